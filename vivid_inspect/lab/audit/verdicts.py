"""A probe's statistics and verdict, from the judge's scores alone (no Inspect, no logs).

Each probe states an expectation about the judge's 0-5 scores of its candidates (see
``docs/audit.md``). Three kinds exist:

- the *control* (``repeat``): the reference judged again as a fresh call. Its differences from
  the reference are the judge's test-retest noise on the same items: the *noise floor*;
- comparative expectations (``same``, ``lower``, ``not_higher``, ``within_1``) are decided on the
  *shift*: the mean over items of the per-item difference ``probe - comparison``, on the items the
  judge scored in both;
- own-score expectations (``high``, ``at_most_1``) are decided on the probe's own *mean*; the shift
  against the comparison is still reported.

A verdict holds two criteria to their bounds (`Thresholds`), each through its interval:

- the statistic (shift or mean) must lie inside its accepted range;
- a rate. For the *invariance* probes (``same``, ``not_higher``, ``within_1``) it is the *flip rate
  beyond the control*: the share of items whose score changed (rose, for ``not_higher``) by more than
  the item bound, less the share of items on which the control changed by the same rule. Its bound
  is the shift's margin over the smallest change counted as a flip (one point with whole scores;
  two for ``within_1``): a judge whose bias sits exactly at the shift's margin flips at most that
  share beyond its noise, so the two criteria put the margin in the same place, and a noisy judge
  is not taken for a biased one. For the other probes it is the share of items on which the
  expectation holds (a sensitivity or floor rate), whose interval must lie at or above ``min_rate``.

A criterion whose interval lies wholly outside its range fails the probe; one whose interval
straddles the bound leaves it inconclusive, as do too few items, too many unscored verdicts and a
comparison that was not run. Noise therefore reads as "inconclusive", never as "fail".

The intervals (`mean_interval`, `rate_interval`) are analytic, so a probe's numbers do
not depend on a seed or on which other probes ran. ``bench/coverage_audit.py`` measures their coverage
for every n from 5 to 200 over a grid of planted shapes; an interval is printed only from the n
where it covers at least 93 % (`MIN_N_INTERVAL`), and otherwise says why.

Every threshold has a documented range (`ALLOWED`), checked when `Thresholds` is made,
and the audit's seed is checked by `check_seed`, which the CLI calls before any model call.

Importing the module loads nothing heavy; numpy and scipy load when a probe is evaluated, so the
CLI can import `Thresholds` cheaply (``tests/lab/audit/test_audit_card.py`` holds it to that).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, Literal, Protocol

from vivid_inspect.bounds import MAX_SEED, shown
from vivid_inspect.scorers.judge_parse import MAX_SCORE

# numpy and scipy are imported where an interval is computed: `vivid validate` reads the probe
# table through this module and stays free of data science (tests/lab/cli/test_cli_startup.py).
if TYPE_CHECKING:
    import numpy as np

EXPECTATIONS = ("repeat", "high", "same", "lower", "not_higher", "at_most_1", "within_1")
"""Every expectation a probe can state, in the order of the audit's probe table."""

CONTROL = "repeat"
"""The control's expectation: the same candidate as its comparison, judged again (the noise floor)."""

OWN_SCORE = frozenset({"high", "at_most_1"})
"""Expectations decided on the probe's own scores; the others on the shift against a comparison."""

INVARIANCE = frozenset({"same", "not_higher", "within_1"})
"""Expectations judged against the control's noise floor: a change that keeps the meaning changes nothing."""

EXPECTS: dict[str, str] = {
    "repeat": "same as {c}, asked again",
    "high": "high",
    "same": "same as {c}",
    "lower": "lower than {c}",
    "not_higher": "not higher than {c}",
    "at_most_1": "at most 1",
    "within_1": "within 1 of {c}",
}
"""Each expectation in a few words, ``{c}`` standing for the comparison (the card's table, the plot's rows)."""

RATE_NAMES: dict[str, str] = {
    "repeat": "agreement",
    "high": "floor",
    "same": "robustness",
    "not_higher": "robustness",
    "within_1": "robustness",
    "lower": "sensitivity",
    "at_most_1": "sensitivity",
}
"""What the rate of each expectation measures: the control the judge's agreement with itself,
invariance probes a robustness rate (CALM), must-drop probes a sensitivity rate, the reference the
share of items at or above the floor."""

Verdict = Literal["pass", "fail", "inconclusive"]
Statistic = Literal["shift", "mean"]
_EPS = 1e-9  # means of equal values can land a rounding error beside a bound
_MAX_PROBLEMS = 20

PSEUDO_ITEMS = 1.0
"""Weight of each of the two pseudo-items, above and below the mean, in a t interval (`mean_interval`).

Like Agresti and Coull's added successes and failures, they keep the interval honest where the
items cannot show the spread: every score equal (a deterministic judge) or rare large jumps. The
plain t interval and the percentile bootstrap covered 45-80 % of rare-jump shapes at 30 items; with the
pseudo-items every shape of ``bench/coverage_audit.py``'s grid is covered at 93 % or more, for every
n from 5 to 200 (``bench/results.md``). Weight 0.5 covered 91 % of rare 5-point jumps at n=200, and
so did pseudo-items only half the range from a mean near 0."""

MIN_N_INTERVAL: dict[str, int] = {"mean": 2, "rate": 2}
"""Fewest items from which each kind of interval is printed: ``mean`` (the shift, the probe's mean and
the flips beyond the control, `mean_interval`) and ``rate`` (the exact interval of a share).
From the coverage measured in ``bench/coverage_audit.py`` (``bench/results.md``): below it the card
says "too few items for a 95 % interval (n=...)"."""


class ProbeLike(Protocol):
    """Anything with a probe's name, comparison and expectation (``audit.probes.Probe`` is one)."""

    @property
    def name(self) -> str:
        """The probe's name."""
        ...

    @property
    def comparison(self) -> str | None:
        """The probe it is compared with, or None."""
        ...

    @property
    def expectation(self) -> str:
        """One of `EXPECTATIONS`."""
        ...


@dataclass(frozen=True)
class Thresholds:
    """The bounds the verdicts use; every one adjustable, all validated on construction.

    Scores are on the judge's 0-5 scale; shares from 0 to 1. The defaults suit 30-50 audited
    items: with 40 items a sound judge's probes pass, even one whose two calls on one answer agree
    only 55 % of the time, and a bias of a point or more fails.

    Attributes:
        high_floor: ``high`` (the reference): the mean's interval and each item must reach this.
            The rubric's 5 is a perfect explanation and 4 a correct one with a small flaw.
        same_tolerance: ``same`` (spelling variants) and ``repeat`` (the control): the shift's
            interval must lie inside ``±same_tolerance``; half a point is less than one step of the
            whole-number scale.
        lower_margin: ``lower`` (partial answers): the shift's interval must lie at or below
            ``-lower_margin``; a judge that docks less than half a point on average for dropping half
            the meaning cannot tell a complete answer from an incomplete one.
        not_higher_margin: ``not_higher`` (padding, authority, injected verdicts): the shift's interval
            must lie at or below ``+not_higher_margin``.
        within: ``within_1`` (the English answer): the shift's interval must lie inside ``±within``,
            and an item holds when its scores differ by at most ``within``.
        ceiling: ``at_most_1`` (wrong, literal, hedge): the mean's interval and each item must stay at
            or below this; the rubric gives 0-1 to a wrong or empty explanation.
        item_tolerance: How far one item's scores may differ and still count as unchanged (``same``,
            ``not_higher``, ``repeat``), or must drop to count as lower (``lower``). From 0 to below
            1: below 1, so with whole scores an item is unchanged only when equal.
        min_rate: For the must-drop and own-score probes (``lower``, ``high``, ``at_most_1``), the
            rate's exact interval must lie at or above this; from 0 to below 1, as an exact interval
            never lies wholly at 100 %. The invariance probes' rate bound is not set here: it follows
            from their shift margin (`flip_bound`).
        min_items: Fewer items than this (paired items for a comparative expectation, scored items
            for an own-score one) leave the probe inconclusive, whatever the intervals say.
        max_unscored: When more than this share of the probe's items are left out (unscored by the
            judge, on either side of the pair), a probe that did not fail is inconclusive: the
            scored items may not represent the rest.
        confidence: Level of every interval, from 0.8 to 0.9999: below 0.8 noise on few items
            would fail probes instead of leaving them inconclusive. Coverage is measured at 0.95.

    Every range is in `ALLOWED` and ``docs/audit.md``.
    """

    high_floor: float = 4.0
    same_tolerance: float = 0.5
    lower_margin: float = 0.5
    not_higher_margin: float = 0.5
    within: float = 1.0
    ceiling: float = 1.0
    item_tolerance: float = 0.5
    min_rate: float = 0.7
    min_items: int = 10
    max_unscored: float = 0.1
    confidence: float = 0.95

    def __post_init__(self) -> None:
        problems = threshold_problems({f.name: getattr(self, f.name) for f in fields(self)})
        if problems:
            raise ValueError("\n".join(problems))

    def with_overrides(self, pairs: Iterable[str]) -> Thresholds:
        """These thresholds with ``NAME=VALUE`` overrides (``min_rate=0.8``), every problem at once.

        Args:
            pairs: Overrides as typed on a command line.

        Returns:
            New thresholds.

        Raises:
            ValueError: One line per unknown name, unreadable value or value off its range.
        """
        known = {f.name: f for f in fields(self)}
        changes: dict[str, Any] = {}
        problems: list[str] = []
        for pair in pairs:
            name, equals, text = pair.partition("=")
            name = name.strip()
            if not equals:
                problems.append(f"threshold {pair!r}: expected NAME=VALUE, e.g. min_rate=0.8")
            elif name not in known:
                problems.append(f"threshold {name!r} is unknown; known: {', '.join(known)}")
            elif name in _WHOLE:
                try:
                    changes[name] = int(text)
                except ValueError:
                    problems.append(
                        f"threshold {name}: {text.strip()!r} is not a whole number written in digits "
                        f"(e.g. {name}={known[name].default}); allowed {ALLOWED[name]}"
                    )
            else:
                try:
                    changes[name] = float(text)
                except ValueError:
                    problems.append(
                        f"threshold {name}: {text.strip()!r} is not a number; allowed {ALLOWED[name]}"
                    )
        # The values that did read are checked too, so that one run reports every problem.
        problems += threshold_problems({f.name: getattr(self, f.name) for f in fields(self)} | changes)
        if problems:
            raise ValueError("\n".join(problems))
        return replace(self, **changes)


_SCALE = {
    "high_floor",
    "same_tolerance",
    "lower_margin",
    "not_higher_margin",
    "within",
    "ceiling",
    "item_tolerance",
}
_WHOLE = {"min_items"}
_CONFIDENCE_RANGE = (0.8, 0.9999)

ALLOWED: dict[str, str] = {
    **{name: f"0 to {MAX_SCORE}" for name in sorted(_SCALE - {"item_tolerance"})},
    "item_tolerance": "0 to below 1",
    "min_rate": "0 to below 1",
    "max_unscored": "0 to 1",
    "min_items": "1 or more",
    "confidence": f"{_CONFIDENCE_RANGE[0]} to {_CONFIDENCE_RANGE[1]}",
}
"""Each threshold's allowed values, as its error message and ``docs/audit.md`` state them."""


def threshold_problems(values: Mapping[str, Any]) -> list[str]:
    """Every threshold off its range, one line each naming it and its range (empty when all are fine).

    Args:
        values: Threshold name -> value, for every field of `Thresholds`.

    Returns:
        The problems.
    """
    return [p for name, value in values.items() if (p := _problem(name, value)) is not None]


def _problem(name: str, value: object) -> str | None:
    """The problem of one threshold's value on its own, or None."""
    allowed = ALLOWED.get(name, "")
    head = f"Thresholds.{name} = {value!r}"
    if name in _WHOLE:
        whole = isinstance(value, numbers.Integral) and not isinstance(value, bool)
        if not whole or int(value) < 1:  # type: ignore[call-overload]
            return f"{head}: must be a whole number, {allowed}"
        return None
    number = _number(value)
    if number is None or math.isnan(number):
        return f"{head}: must be a number; allowed {allowed}"
    if name == "item_tolerance" and not 0 <= number < 1:
        return f"{head}: must be below 1, or a one-point change would count as no change; allowed {allowed}"
    if name in _SCALE and not 0 <= number <= MAX_SCORE:
        return f"{head}: on the judge's scale; allowed {allowed}"
    if name == "min_rate" and not 0 <= number < 1:
        return (
            f"{head}: a share; allowed {allowed} (an exact interval never lies wholly at 100 %, so no "
            "probe could pass)"
        )
    if name == "max_unscored" and not 0 <= number <= 1:
        return f"{head}: a share; allowed {allowed}"
    if name == "confidence" and not _CONFIDENCE_RANGE[0] <= number <= _CONFIDENCE_RANGE[1]:
        return (
            f"{head}: a level; allowed {allowed} (below, noise would fail probes; at 1 or above, no "
            "interval is finite)"
        )
    return None


def seed_problem(seed: object, name: str = "seed") -> str | None:
    """Why ``seed`` cannot seed the audit's draws and bootstraps, in one line naming it, or None.

    numpy's generator takes a whole number, 0 or more; a negative one, one above the bound a spec's
    seed has (`vivid_inspect.bounds.MAX_SEED`), a float, text or a bool is refused here,
    before any model call, instead of failing after the judge's calls.

    Args:
        seed: The value given.
        name: How the user wrote it (``--seed``, ``audits[0].seed``).

    Returns:
        The problem, or None when the seed is fine.
    """
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        return f"{name} = {shown(seed)}: must be a whole number, 0 or more"
    if int(seed) > MAX_SEED:  # the bound a spec's audit seed has (vivid_inspect.bounds)
        return f"{name} = {shown(seed)}: must be at most {MAX_SEED}"
    return None


def check_seed(seed: object, name: str = "seed") -> int:
    """The seed as an ``int``, or a ``ValueError`` naming it (`seed_problem`).

    Args:
        seed: The value given.
        name: How the user wrote it (``--seed``, ``audits[0].seed``).

    Returns:
        The seed.

    Raises:
        ValueError: One line naming ``name``, when the seed is not a whole number, 0 or more.
    """
    problem = seed_problem(seed, name)
    if problem is not None:
        raise ValueError(problem)
    return int(seed)  # type: ignore[call-overload]


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    return float(value)


DEFAULT_THRESHOLDS = Thresholds()
"""The documented defaults."""


@dataclass(frozen=True)
class ProbeResult:
    """One probe's statistics and verdict. A value that cannot be computed is NaN.

    Attributes:
        probe: The probe's name.
        comparison: The probe it is compared with (None for the reference).
        expectation: One of `EXPECTATIONS`.
        n_items: Items the probe has a record for (scored or not).
        n_paired: Items scored in both the probe and its comparison (0 without a comparison).
        unscored: The probe's items the judge left unscored.
        comparison_unscored: Of the probe's items, those whose comparison the judge left unscored.
        mean: Mean of the probe's scored items (it decides ``high`` and ``at_most_1``).
        paired_mean: Mean of the probe's scores over the paired items.
        comparison_mean: Mean of the comparison's scores over the paired items, so that
            ``paired_mean - comparison_mean == shift``.
        shift: Mean of ``probe - comparison`` over the paired items.
        ci_low: Lower end of the shift's interval (`mean_interval`, paired over items).
        ci_high: Upper end of the shift's interval.
        rate: Share of the decided items on which the expectation holds.
        rate_name: ``agreement``, ``robustness``, ``sensitivity`` or ``floor`` (`RATE_NAMES`).
        verdict: ``pass``, ``fail`` or ``inconclusive``.
        reason: Why, in one sentence naming the measures and the bounds.
        mean_ci_low: Lower end of the mean's interval.
        mean_ci_high: Upper end of the mean's interval.
        rate_ci_low: Lower end of the rate's exact interval.
        rate_ci_high: Upper end of the rate's exact interval.
        statistic: Which statistic the verdict holds to its bound: ``shift`` or ``mean``.
        bound_low: Lowest accepted value of that statistic.
        bound_high: Highest accepted value of that statistic.
        notes: Anything the reader should know about the numbers (left-out items, no interval).
        n_control: Invariance probes: items paired both in the probe and in the control.
        control_flips: Invariance probes: over those items, the share on which the control changed
            by the probe's rule (half the share that changed either way, for ``not_higher``: a
            repeat is as likely to go up as down).
        excess_flips: Invariance probes: the probe's flip share less ``control_flips``, over the
            same items: the flips beyond the judge's noise.
        excess_ci_low: Lower end of its interval (`mean_interval`, paired over items).
        excess_ci_high: Upper end of its interval.
        flip_bound: Invariance probes: the most ``excess_flips`` accepted (`flip_bound`).
    """

    probe: str
    comparison: str | None
    expectation: str
    n_items: int
    n_paired: int
    unscored: int
    comparison_unscored: int
    mean: float
    paired_mean: float
    comparison_mean: float
    shift: float
    ci_low: float
    ci_high: float
    rate: float
    rate_name: str
    verdict: Verdict
    reason: str
    mean_ci_low: float = math.nan
    mean_ci_high: float = math.nan
    rate_ci_low: float = math.nan
    rate_ci_high: float = math.nan
    statistic: Statistic = "shift"
    bound_low: float = math.nan
    bound_high: float = math.nan
    notes: tuple[str, ...] = field(default=())
    n_control: int = 0
    control_flips: float = math.nan
    excess_flips: float = math.nan
    excess_ci_low: float = math.nan
    excess_ci_high: float = math.nan
    flip_bound: float = math.nan


def accepted_range(expectation: str, thresholds: Thresholds) -> tuple[float, float]:
    """The values of the deciding statistic (shift or mean) that meet an expectation.

    Args:
        expectation: One of `EXPECTATIONS`.
        thresholds: The bounds.

    Returns:
        ``(lowest, highest)`` accepted value.
    """
    t = thresholds
    return {
        "repeat": (-t.same_tolerance, t.same_tolerance),
        "high": (t.high_floor, float(MAX_SCORE)),
        "same": (-t.same_tolerance, t.same_tolerance),
        "lower": (-float(MAX_SCORE), -t.lower_margin),
        "not_higher": (-float(MAX_SCORE), t.not_higher_margin),
        "at_most_1": (0.0, t.ceiling),
        "within_1": (-t.within, t.within),
    }[expectation]


def bound_text(expectation: str, thresholds: Thresholds) -> str:
    """The accepted range as a reader writes it: ``≥ 4.00``, ``±0.50``, ``≤ -0.50``, ``±0.125``.

    Two decimals, or as many as the bound has, so that the bound shown is the bound used.
    """
    low, high = accepted_range(expectation, thresholds)
    if expectation in ("repeat", "same", "within_1"):
        return f"±{_exact(high)}"
    if expectation == "high":
        return f"≥ {_exact(low)}"
    return f"≤ {_exact(high, '+')}" if expectation in ("lower", "not_higher") else f"≤ {_exact(high)}"


def _exact(value: float, sign: str = "") -> str:
    value += 0.0  # -0.0 (a zero margin negated) reads as +0.00, not -0.00
    text = format(value, f"{sign}.2f")
    return text if float(text) == value else format(value, f"{sign}.6g")


def share_text(share: float) -> str:
    """A share or level as a percentage with the decimals it has: ``95 %``, ``97.5 %``, ``99.99 %``."""
    return "n/a" if math.isnan(share) else f"{format(100 * share, '.4g')} %"


def check_scores(scores: Mapping[str, Mapping[Any, Any]]) -> dict[str, dict[Hashable, float]]:
    """The scores as floats, NaN (or None) for unscored; every bad score reported at once.

    Args:
        scores: Probe name -> item id -> score.

    Returns:
        Probe name -> item id -> float (NaN when unscored).

    Raises:
        ValueError: One line per score that is not a number from 0 to 5, naming probe and item, or
            per probe whose scores are not a mapping.
    """
    if not isinstance(scores, Mapping):
        raise ValueError(f"scores must map probe name to item scores, not a {type(scores).__name__}")
    clean: dict[str, dict[Hashable, float]] = {}
    problems: list[str] = []
    for probe, items in scores.items():
        clean[probe] = {}
        if not isinstance(items, Mapping):
            problems.append(
                f"probe {probe!r}: scores must map item id to score, not a {type(items).__name__}"
            )
            continue
        for item, value in items.items():
            number = math.nan if value is None else _number(value)
            if number is None or not (math.isnan(number) or 0 <= number <= MAX_SCORE):
                problems.append(
                    f"probe {probe!r}, item {item!r}: score {value!r} is not a number from 0 to {MAX_SCORE} "
                    "(NaN or None when unscored)"
                )
            else:
                clean[probe][item] = number
    if problems:
        more = len(problems) - _MAX_PROBLEMS
        shown = problems[:_MAX_PROBLEMS] + ([f"... and {more} more"] if more > 0 else [])
        raise ValueError("\n".join(shown))
    return clean


def smallest_flip(expectation: str, thresholds: Thresholds) -> int:
    """The smallest whole-point change of one item that counts as a flip of an invariance probe.

    A flip is a change beyond the item bound (``item_tolerance`` for ``same`` and ``not_higher``,
    ``within`` for ``within_1``); with whole scores the smallest such change is the next whole point.
    """
    bound = thresholds.within if expectation == "within_1" else thresholds.item_tolerance
    return math.floor(bound + _EPS) + 1


def flip_bound(expectation: str, thresholds: Thresholds) -> float:
    """The most flips beyond the control an invariance probe may show: its shift margin per smallest flip.

    A judge whose flips beyond its noise are each the smallest counted change moves the mean by
    ``flip share × smallest change``; at the shift's margin that share is ``margin / smallest change``.
    Holding the flips to that share puts the rate's margin where the shift's is: ``0.5`` for
    ``same`` and ``not_higher`` (half a point, one point per flip) and for ``within_1`` (one point,
    two per flip) with the defaults.

    Args:
        expectation: ``same``, ``not_higher`` or ``within_1``.
        thresholds: The bounds.

    Returns:
        A share from 0 to 1.
    """
    margin = {
        "same": thresholds.same_tolerance,
        "not_higher": thresholds.not_higher_margin,
        "within_1": thresholds.within,
    }[expectation]
    return min(1.0, margin / smallest_flip(expectation, thresholds))


def mean_interval(
    values: np.ndarray | Sequence[float],
    low: float,
    high: float,
    confidence: float = 0.95,
    *,
    jump: float | None = None,
) -> tuple[float, float]:
    """The interval of the mean of values bounded in ``[low, high]``, paired over items.

    A Student t interval around the mean whose spread counts two pseudo-items (`PSEUDO_ITEMS`
    each), one above the mean and one below it, as far from it as one item's value could lie (the
    farther end of the range), at most ``jump``; clipped to the range. The pseudo-items keep a width
    where the items cannot show the spread (every item equal, rare large jumps) without moving the
    centre; no resampling, so no seed. Below `MIN_N_INTERVAL` ``["mean"]`` items there is none.

    Args:
        values: Per-item values (a shift's differences, a probe's scores, flips beyond the control).
        low: Smallest value an item can take.
        high: Largest value an item can take.
        confidence: The interval's level.
        jump: The largest change of one item's value (one score's whole scale for a shift, whose
            items lie within 5 of the mean in practice though the range is 10 wide); default: the
            width of the range.

    Returns:
        ``(low end, high end)``, around the mean; NaN when there are too few items.
    """
    import numpy as np
    from scipy import stats

    array = np.asarray(values, dtype=float)
    n = array.size
    if n < MIN_N_INTERVAL["mean"]:
        return math.nan, math.nan
    weight = PSEUDO_ITEMS
    total = n + 2 * weight
    centre = float(array.mean())
    reach = min(high - low if jump is None else jump, max(high - centre, centre - low))
    spread = float(((array - centre) ** 2).sum()) + 2 * weight * reach**2
    half = float(stats.t.ppf((1 + confidence) / 2, total - 1)) * math.sqrt(spread / (total - 1) / total)
    return max(low, centre - half), min(high, centre + half)


def rate_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The exact (Clopper-Pearson) interval of a share; NaN below `MIN_N_INTERVAL` ``["rate"]``.

    Exact rather than Wilson's: Wilson's covered 85-92 % of some shares near 100 % and 70 % at 10 to
    50 items (``bench/coverage_audit.py``), the exact one at least its level at every n and share.
    """
    if n < MIN_N_INTERVAL["rate"]:
        return math.nan, math.nan
    from scipy import stats

    interval = stats.binomtest(successes, n).proportion_ci(confidence_level=confidence, method="exact")
    return float(interval.low), float(interval.high)


def find_control(probes: Sequence[ProbeLike], scores: Mapping[str, object]) -> ProbeLike | None:
    """The control probe among ``probes`` that has scores, or None.

    Raises:
        ValueError: More than one probe is a control: which noise floor counts would be a guess.
    """
    controls = [probe for probe in probes if probe.expectation == CONTROL]
    if len(controls) > 1:
        names = ", ".join(probe.name for probe in controls)
        raise ValueError(f"probes {names} are all controls ({CONTROL!r}); an audit has one noise floor")
    return controls[0] if controls and controls[0].name in scores else None


def evaluate_probe(
    probe: ProbeLike,
    scores: Mapping[str, Mapping[Any, float]],
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
    *,
    control: ProbeLike | None = None,
) -> ProbeResult:
    """One probe's statistics and verdict.

    Args:
        probe: The probe; its scores must be in ``scores`` (checked by `check_scores`).
        scores: Every probe's scores, so that the comparison's and the control's can be found.
        thresholds: The bounds.
        control: The control probe (expectation ``repeat``), whose scores give an invariance
            probe's noise floor; without it an invariance probe's flips can pass their bound but
            never fail it (noise cannot be told from bias).

    Returns:
        The result.

    Raises:
        ValueError: If the probe is compared with itself, or its expectation is not one of
            `EXPECTATIONS`.
    """
    import numpy as np

    from vivid_inspect.lab.report.stats.score_stats import sorted_ids

    _check_probe(probe)
    expectation = probe.expectation
    if expectation not in EXPECTATIONS:
        raise ValueError(
            f"probe {probe.name!r}: expectation {expectation!r} is unknown; known: {', '.join(EXPECTATIONS)}"
        )
    t = thresholds
    own = scores[probe.name]
    ids = sorted_ids(own)
    values = np.array([own[i] for i in ids], dtype=float)
    scored = values[~np.isnan(values)]
    notes: list[str] = []
    comparison = scores.get(probe.comparison) if probe.comparison is not None else None
    paired_ids: list[Hashable] = []
    if comparison is not None:
        other = np.array([comparison.get(i, math.nan) for i in ids], dtype=float)
        absent = sum(i not in comparison for i in ids)
        if absent:
            notes.append(f"{absent} item(s) of {probe.name!r} have no {probe.comparison!r} record at all")
        paired = ~np.isnan(values) & ~np.isnan(other)
        paired_ids = [i for i, keep in zip(ids, paired, strict=True) if keep]
        differences = values[paired] - other[paired]
        comparison_unscored = sum(i in comparison and math.isnan(comparison[i]) for i in ids)
        paired_mean, comparison_mean = _mean(values[paired]), _mean(other[paired])
    else:
        differences = np.array([], dtype=float)
        comparison_unscored = 0
        paired_mean = comparison_mean = math.nan
    scale = float(MAX_SCORE)
    shift_low, shift_high = mean_interval(differences, -scale, scale, t.confidence, jump=scale)
    mean_low, mean_high = mean_interval(scored, 0.0, scale, t.confidence)
    own_score = expectation in OWN_SCORE
    decided = scored if own_score else differences
    holds = _holds(expectation, decided, t)
    rate = _mean(holds.astype(float))
    rate_low, rate_high = rate_interval(int(holds.sum()), int(holds.size), t.confidence)
    for kind, size in (("mean", decided.size), ("rate", holds.size)):
        if 0 < size < MIN_N_INTERVAL[kind]:
            notes.append(_too_few(int(size), t.confidence))
            break
    flips = _Flips()
    if expectation in INVARIANCE:
        flips = _flips_beyond_control(probe, dict(zip(paired_ids, ~holds, strict=True)), scores, control, t)
    statistic: Statistic = "mean" if own_score else "shift"
    low, high = accepted_range(expectation, t)
    verdict, reason = _verdict(
        probe,
        n_items=len(ids),
        n_decided=int(decided.size),
        value=_mean(decided),
        interval=(mean_low, mean_high) if own_score else (shift_low, shift_high),
        rate=(rate, rate_low, rate_high),
        flips=flips,
        comparison_missing=not own_score and comparison is None,
        thresholds=t,
    )
    return ProbeResult(
        probe=probe.name,
        comparison=probe.comparison,
        expectation=expectation,
        n_items=len(ids),
        n_paired=int(differences.size),
        unscored=int(np.isnan(values).sum()),
        comparison_unscored=int(comparison_unscored),
        mean=_mean(scored),
        paired_mean=paired_mean,
        comparison_mean=comparison_mean,
        shift=_mean(differences),
        ci_low=shift_low,
        ci_high=shift_high,
        rate=rate,
        rate_name=RATE_NAMES[expectation],
        verdict=verdict,
        reason=reason,
        mean_ci_low=mean_low,
        mean_ci_high=mean_high,
        rate_ci_low=rate_low,
        rate_ci_high=rate_high,
        statistic=statistic,
        bound_low=low,
        bound_high=high,
        notes=tuple(notes),
        n_control=flips.n,
        control_flips=flips.control,
        excess_flips=flips.excess,
        excess_ci_low=flips.low,
        excess_ci_high=flips.high,
        flip_bound=flips.bound,
    )


@dataclass(frozen=True)
class _Flips:
    """An invariance probe's flips beyond the control (all NaN for the other probes)."""

    n: int = 0
    raw: float = math.nan
    raw_high: float = math.nan
    control: float = math.nan
    excess: float = math.nan
    low: float = math.nan
    high: float = math.nan
    bound: float = math.nan
    control_name: str | None = None


def _flips_beyond_control(
    probe: ProbeLike,
    flipped: Mapping[Hashable, bool],
    scores: Mapping[str, Mapping[Any, float]],
    control: ProbeLike | None,
    t: Thresholds,
) -> _Flips:
    """The probe's flips (by item) less the control's, by the probe's own rule, over the items in both."""
    import numpy as np

    from vivid_inspect.lab.report.stats.score_stats import sorted_ids

    bound = flip_bound(probe.expectation, t)
    raw = _mean(np.array(list(flipped.values()), dtype=float))
    _, raw_high = rate_interval(sum(flipped.values()), len(flipped), t.confidence)
    base = _Flips(raw=raw, raw_high=raw_high, bound=bound)
    if control is None or control.comparison is None:
        return base
    repeat, original = scores.get(control.name), scores.get(control.comparison)
    if repeat is None or original is None:
        return base
    noise = {
        i: repeat[i] - original[i]
        for i in flipped
        if i in repeat and i in original and not math.isnan(repeat[i]) and not math.isnan(original[i])
    }
    items = sorted_ids(noise)
    if not items:
        return replace(base, control_name=control.name)
    changes = np.array([noise[i] for i in items], dtype=float)
    item_bound = (t.within if probe.expectation == "within_1" else t.item_tolerance) + _EPS
    control_flips = (np.abs(changes) > item_bound).astype(float)
    if probe.expectation == "not_higher":
        # A repeat is as likely to go up as down: half its changes either way is its rate of rises,
        # with less noise than counting its rises alone.
        control_flips = control_flips / 2
    excess = np.array([float(flipped[i]) for i in items]) - control_flips
    low, high = mean_interval(excess, -1.0, 1.0, t.confidence, jump=1.0)
    return replace(
        base,
        n=len(items),
        control=_mean(control_flips),
        excess=_mean(excess),
        low=low,
        high=high,
        control_name=control.name,
    )


def evaluate(
    scores: Mapping[str, Mapping[Any, Any]],
    probes: Sequence[ProbeLike],
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
) -> tuple[ProbeResult, ...]:
    """Every probe that has scores, in the order of ``probes``; probes without scores are left out.

    Args:
        scores: Probe name -> item id -> 0-5 score, NaN (or None) when unscored.
        probes: The probes, in the card's order; the control among them (expectation ``repeat``)
            gives the invariance probes their noise floor.
        thresholds: The bounds.

    Returns:
        One result per probe present in ``scores``.

    Raises:
        ValueError: On a score off the scale, a probe listed twice or compared with itself, more
            than one control, or an unknown expectation.
    """
    seen: set[str] = set()
    for probe in probes:
        if probe.name in seen:
            raise ValueError(f"probe {probe.name!r} is listed twice: the card would show it twice")
        seen.add(probe.name)
        _check_probe(probe)
    clean = check_scores(scores)
    control = find_control(probes, clean)
    return tuple(
        evaluate_probe(probe, clean, thresholds, control=control) for probe in probes if probe.name in clean
    )


def unreadable_probes(
    results: Sequence[ProbeResult], thresholds: Thresholds = DEFAULT_THRESHOLDS
) -> list[str]:
    """The inconclusive probes whose judge left more than ``max_unscored`` of their own items unscored.

    Such a probe is undecided because the judge's replies could not be read, not for want of
    items; ``vivid audit`` exits 3 for it (``vivid_inspect.lab.cli.audit``). A probe whose
    comparison is unreadable is not named for it: the comparison is named itself.

    Args:
        results: The card's probe results.
        thresholds: The bounds the verdicts used.

    Returns:
        Their names, in the card's order.
    """
    return [
        r.probe
        for r in results
        if r.verdict == "inconclusive"
        and r.n_items
        and r.unscored / r.n_items > thresholds.max_unscored + _EPS
    ]


def _check_probe(probe: ProbeLike) -> None:
    if probe.comparison is not None and probe.comparison == probe.name:
        raise ValueError(
            f"probe {probe.name!r} is compared with itself: its shift would be 0 whatever the judge does"
        )


def _mean(values: np.ndarray) -> float:
    return float(values.mean()) if values.size else math.nan


def _holds(expectation: str, decided: np.ndarray, t: Thresholds) -> np.ndarray:
    """Per item, whether the expectation holds (``decided``: own scores or differences)."""
    tol = t.item_tolerance + _EPS
    if expectation == "high":
        return decided >= t.high_floor - _EPS
    if expectation == "at_most_1":
        return decided <= t.ceiling + _EPS
    if expectation in ("same", "repeat"):
        return abs(decided) <= tol
    if expectation == "lower":
        return decided < -tol
    if expectation == "not_higher":
        return decided <= tol
    return abs(decided) <= t.within + _EPS


def _too_few(n: int, confidence: float) -> str:
    return f"too few items for a {share_text(confidence)} interval (n={n})"


Side = Literal["inside", "outside", "straddles"]


def _side(interval: tuple[float, float], low: float, high: float) -> Side:
    lo, hi = interval
    if math.isnan(lo) or math.isnan(hi):
        return "straddles"
    if lo >= low - _EPS and hi <= high + _EPS:
        return "inside"
    if lo > high + _EPS or hi < low - _EPS:
        return "outside"
    return "straddles"


def _meaning(probe: ProbeLike) -> str:
    """What a failed expectation says about the judge."""
    other = f"`{probe.comparison}`"
    name = f"`{probe.name}`"
    return {
        "repeat": f"the judge does not repeat its own score of {other} when asked again ({name})",
        "high": f"the judge does not score the reference meaning ({name}) high",
        "same": f"the judge's score changes from {other} to {name}, which means the same",
        "lower": f"the judge does not score {name} lower than {other}",
        "not_higher": f"the judge scores {name} higher than {other}",
        "at_most_1": f"the judge gives {name} more than the rubric's 0-1",
        "within_1": f"the judge scores {name} more than a point away from {other}",
    }[probe.expectation]


def _rate_criterion(
    probe: ProbeLike, rate: tuple[float, float, float], flips: _Flips, t: Thresholds
) -> tuple[str, Side] | None:
    """The rate's text and side of its bound; None for the control, whose agreement is the floor itself."""
    expectation = probe.expectation
    if expectation == CONTROL:
        return None
    if expectation in INVARIANCE:
        bound = f"≤ {percent_text(flips.bound)}"
        if flips.control_name is None:
            # Without a control the raw flips are an upper bound on the flips beyond noise: they can
            # show that the probe is within its bound, never that it is not.
            side: Side = "inside" if flips.raw_high <= flips.bound + _EPS else "straddles"
            return (
                f"flips {percent_text(flips.raw)} (up to {percent_text(flips.raw_high)}) {_relation(side)} {bound} with no "
                "control to tell the judge's noise from a bias",
                side,
            )
        side = _side((flips.low, flips.high), -1.0, flips.bound)
        return (
            f"flips beyond the control `{flips.control_name}` {signed_percent_text(flips.excess)} "
            f"[{signed_percent_text(flips.low)}, {signed_percent_text(flips.high)}] {_relation(side)} {bound}",
            side,
        )
    value, low, high = rate
    side = _side((low, high), t.min_rate, 1.0)
    return (
        f"{RATE_NAMES[expectation]} {percent_text(value)} [{percent_text(low)}, {percent_text(high)}] {_relation(side)} "
        f"≥ {share_text(t.min_rate)}",
        side,
    )


def _verdict(
    probe: ProbeLike,
    *,
    n_items: int,
    n_decided: int,
    value: float,
    interval: tuple[float, float],
    rate: tuple[float, float, float],
    flips: _Flips,
    comparison_missing: bool,
    thresholds: Thresholds,
) -> tuple[Verdict, str]:
    t = thresholds
    own_score = probe.expectation in OWN_SCORE
    what = "scored" if own_score else "paired"
    if comparison_missing:
        compared = "none is named" if probe.comparison is None else f"`{probe.comparison}` has no scores"
        return "inconclusive", f"no comparison to shift against: {compared}"
    if n_decided == 0:
        return "inconclusive", f"no {what} item"
    if n_decided < t.min_items:
        return "inconclusive", f"only {n_decided} {what} item(s); a verdict needs at least {t.min_items}"
    low, high = accepted_range(probe.expectation, t)
    label = "mean" if own_score else "shift"
    sign = "" if own_score else "+"
    value_side = _side(interval, low, high)
    value_text = (
        f"{label} {value:{sign}.2f} [{_fmt(interval[0], sign)}, {_fmt(interval[1], sign)}] "
        f"{_relation(value_side)} {bound_text(probe.expectation, t)}"
    )
    sides = {value_text: value_side}
    criterion = _rate_criterion(probe, rate, flips, t)
    if criterion is not None:
        sides[criterion[0]] = criterion[1]
    failed = [text for text, side in sides.items() if side == "outside"]
    if failed:
        return "fail", f"{_meaning(probe)}: {'; '.join(failed)}"
    rate_value, rate_low, rate_high = rate
    shown = list(sides)
    if criterion is None:  # the control: its agreement is reported, not held to a bound
        shown.append(
            f"{RATE_NAMES[probe.expectation]} {percent_text(rate_value)} [{percent_text(rate_low)}, {percent_text(rate_high)}], "
            "the noise floor of the invariance probes"
        )
    left_out = n_items - n_decided
    if left_out / n_items > t.max_unscored + _EPS:
        return "inconclusive", (
            f"{left_out} of {n_items} items unscored on one side or both (more than {share_text(t.max_unscored)}); "
            f"{'; '.join(shown)}"
        )
    if all(side == "inside" for side in sides.values()):
        return "pass", "; ".join(shown)
    undecided = [text for text, side in sides.items() if side == "straddles"]
    return "inconclusive", f"{'; '.join(undecided)}: more items would decide"


def _relation(side: Side) -> str:
    return {"inside": "meets", "outside": "misses", "straddles": "straddles"}[side]


def _fmt(value: float, sign: str) -> str:
    return "n/a" if math.isnan(value) else format(value, f"{sign}.2f")


def percent_text(value: float) -> str:
    """A share as a whole percentage (``42 %``), ``n/a`` for NaN."""
    return "n/a" if math.isnan(value) else f"{100 * value:.0f} %"


def signed_percent_text(value: float) -> str:
    """A change of a share as a signed whole percentage (``+5 %``, ``-3 %``, ``+0 %``), ``n/a`` for NaN."""
    return "n/a" if math.isnan(value) else f"{100 * value + 0.0:+.0f} %"
