"""A probe's statistics and verdict, from the judge's scores alone (no Inspect, no logs).

Each probe states an expectation about the judge's 0-5 scores of its candidates (see
``docs/audit.md``). Two kinds exist:

- comparative expectations (``same``, ``lower``, ``not_higher``, ``within_1``) are decided on the
  *shift*: the mean over items of the per-item difference ``probe - comparison``, on the items the
  judge scored in both, with a paired bootstrap interval that resamples items;
- own-score expectations (``high``, ``at_most_1``) are decided on the probe's own *mean*, with a
  bootstrap interval over its scored items; the shift against the comparison is still reported.

A verdict holds two criteria to their bounds (:class:`Thresholds`): the statistic's interval must
lie inside the accepted range, and so must the Wilson interval of the *rate*, the share of items on
which the expectation holds (CALM's robustness rate for the invariance probes, a sensitivity rate
for the must-drop probes). A criterion whose interval lies wholly outside its range fails the
probe; one whose interval straddles the bound leaves it inconclusive, as do too few items, too many
unscored verdicts and a comparison that was not run. Noise therefore reads as "inconclusive", never
as "fail".

Every threshold has a documented range (:data:`ALLOWED`), checked when :class:`Thresholds` is made,
and the bootstrap's seed is checked by :func:`check_seed`, which the CLI calls before any model call:
a value that passes these checks gives sound numbers, never a failure after the judge's calls.

Importing the module loads nothing heavy; numpy and scipy load when a probe is evaluated, so the
CLI can import :class:`Thresholds` cheaply (``tests/test_audit_card.py`` holds it to that).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, Literal, Protocol

from vivid_inspect.scorers.judge_parse import MAX_SCORE

if TYPE_CHECKING:
    import numpy as np

EXPECTATIONS = ("high", "same", "lower", "not_higher", "at_most_1", "within_1")
"""Every expectation a probe can state, in the order of the audit's probe table."""

OWN_SCORE = frozenset({"high", "at_most_1"})
"""Expectations decided on the probe's own scores; the others on the shift against a comparison."""

RATE_NAMES: dict[str, str] = {
    "high": "floor",
    "same": "robustness",
    "not_higher": "robustness",
    "within_1": "robustness",
    "lower": "sensitivity",
    "at_most_1": "sensitivity",
}
"""What the rate of each expectation measures: invariance probes a robustness rate (CALM), must-drop
probes a sensitivity rate, the reference the share of items at or above the floor."""

Verdict = Literal["pass", "fail", "inconclusive"]
Statistic = Literal["shift", "mean"]
_EPS = 1e-9  # bootstrap means of equal values can land a rounding error beside a bound
_MAX_PROBLEMS = 20
N_BOOT_RANGE = (200, 100_000)
"""Fewest and most bootstrap resamples: 200 leave 5 beyond each end of a 95 % interval; more than
100000 add memory and time, not precision, to a mean of 0-5 scores."""
MIN_TAIL = 5
"""Resamples beyond each end of a percentile interval, at least; fewer and the end is an extreme
resample, not the quantile the interval's level names."""
_BATCH_CELLS = 1_000_000  # resampled values held at once: 8 MB, whatever n_boot and the item count


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
        """One of :data:`EXPECTATIONS`."""
        ...


@dataclass(frozen=True)
class Thresholds:
    """The bounds the verdicts use; every one adjustable, all validated on construction.

    Scores are on the judge's 0-5 scale; shares from 0 to 1. The defaults suit 30-50 audited
    items: with 40 items a sound judge's probes pass, and a bias of a point or more fails.

    Attributes:
        high_floor: ``high`` (the reference): the mean's interval and each item must reach this.
            The rubric's 5 is a perfect explanation and 4 a correct one with a small flaw.
        same_tolerance: ``same`` (spelling variants): the shift's interval must lie inside
            ``±same_tolerance``; half a point is less than one step of the whole-number scale.
        lower_margin: ``lower`` (partial answers): the shift's interval must lie at or below
            ``-lower_margin``; a judge that docks less than half a point on average for dropping half
            the meaning cannot tell a complete answer from an incomplete one.
        not_higher_margin: ``not_higher`` (padding, authority, injected verdicts): the shift's interval
            must lie at or below ``+not_higher_margin``; the slack for a judge's own noise.
        within: ``within_1`` (the English answer): the shift's interval must lie inside ``±within``,
            and an item holds when its scores differ by at most ``within``.
        ceiling: ``at_most_1`` (wrong, literal, hedge): the mean's interval and each item must stay at
            or below this; the rubric gives 0-1 to a wrong or empty explanation.
        item_tolerance: How far one item's scores may differ and still count as unchanged (``same``,
            ``not_higher``), or must drop to count as lower (``lower``). From 0 to below 1: below 1,
            so with whole scores an item is unchanged only when equal; 0 counts only equal scores as
            unchanged, and the default 0.5 lets the mean of a judge's repeats wobble a little.
        min_rate: The rate's Wilson interval must lie at or above this; from 0 to below 1, as a
            Wilson interval never lies wholly at 100 %. 0.7 leaves room for items where a sound
            judge is right to differ (an idiom whose literal reading is its meaning, a reference
            whose first half already says it all).
        min_items: Fewer items than this (paired items for a comparative expectation, scored items
            for an own-score one) leave the probe inconclusive, whatever the intervals say.
        max_unscored: When more than this share of the probe's items are left out (unscored by the
            judge, on either side of the pair), a probe that did not fail is inconclusive: the
            scored items may not represent the rest.
        confidence: Level of every interval, from 0.8 to 0.9999: below 0.8 noise on few items
            would fail probes instead of leaving them inconclusive.
        n_boot: Bootstrap resamples of each interval, from 200 to 100000, and enough to leave
            :data:`MIN_TAIL` resamples beyond each end of the interval (1000 for 0.99).

    Every range is in :data:`ALLOWED` and ``docs/audit.md``.
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
    n_boot: int = 2000

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
_WHOLE = {"min_items", "n_boot"}
_CONFIDENCE_RANGE = (0.8, 0.9999)

ALLOWED: dict[str, str] = {
    **{name: f"0 to {MAX_SCORE}" for name in sorted(_SCALE - {"item_tolerance"})},
    "item_tolerance": "0 to below 1",
    "min_rate": "0 to below 1",
    "max_unscored": "0 to 1",
    "min_items": "1 or more",
    "confidence": f"{_CONFIDENCE_RANGE[0]} to {_CONFIDENCE_RANGE[1]}",
    "n_boot": f"{N_BOOT_RANGE[0]} to {N_BOOT_RANGE[1]}",
}
"""Each threshold's allowed values, as its error message and ``docs/audit.md`` state them."""


def threshold_problems(values: Mapping[str, Any]) -> list[str]:
    """Every threshold off its range, one line each naming it and its range (empty when all are fine).

    Args:
        values: Threshold name -> value, for every field of :class:`Thresholds`.

    Returns:
        The problems.
    """
    problems = [p for name, value in values.items() if (p := _problem(name, value)) is not None]
    if not any(p.startswith(("Thresholds.n_boot ", "Thresholds.confidence ")) for p in problems):
        problems += _tail_problems(values.get("n_boot"), values.get("confidence"))
    return problems


def _problem(name: str, value: object) -> str | None:
    """The problem of one threshold's value on its own, or None."""
    allowed = ALLOWED.get(name, "")
    head = f"Thresholds.{name} = {value!r}"
    if name in _WHOLE:
        whole = isinstance(value, numbers.Integral) and not isinstance(value, bool)
        count = int(value) if whole else None  # type: ignore[call-overload]
        if name == "min_items" and (count is None or count < 1):
            return f"{head}: must be a whole number, {allowed}"
        if name == "n_boot" and (count is None or not N_BOOT_RANGE[0] <= count <= N_BOOT_RANGE[1]):
            return f"{head}: must be a whole number from {allowed}"
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
            f"{head}: a share; allowed {allowed} (a Wilson interval never lies wholly at 100 %, so no "
            "probe could pass)"
        )
    if name == "max_unscored" and not 0 <= number <= 1:
        return f"{head}: a share; allowed {allowed}"
    if name == "confidence" and not _CONFIDENCE_RANGE[0] <= number <= _CONFIDENCE_RANGE[1]:
        return (
            f"{head}: a level; allowed {allowed} (below, noise would fail probes; above, no bootstrap "
            f"of {N_BOOT_RANGE[1]} resamples leaves {MIN_TAIL} beyond each end)"
        )
    return None


def _tail_problems(n_boot: object, confidence: object) -> list[str]:
    """n_boot against confidence: each end of a percentile interval needs MIN_TAIL resamples beyond it."""
    if not isinstance(n_boot, numbers.Integral) or _number(confidence) is None:
        return []
    fewest = min_resamples(float(confidence))  # type: ignore[arg-type]
    if int(n_boot) >= fewest:
        return []
    return [
        f"Thresholds.n_boot = {n_boot!r}: too few resamples for confidence {confidence}: each end of the "
        f"interval needs {MIN_TAIL} resamples beyond it; allowed {fewest} to {N_BOOT_RANGE[1]} at this confidence"
    ]


def min_resamples(confidence: float) -> int:
    """Fewest resamples that leave :data:`MIN_TAIL` beyond each end of an interval at ``confidence``.

    Args:
        confidence: The interval's level, from 0 to below 1.

    Returns:
        At least ``N_BOOT_RANGE[0]``: 200 at 0.95, 1000 at 0.99, 10000 at 0.999.
    """
    # The rounding guard keeps 2 * 5 / 0.05 at 200, not the 201 that float division gives.
    return max(N_BOOT_RANGE[0], math.ceil(2 * MIN_TAIL / (1 - confidence) - 1e-6))


def seed_problem(seed: object, name: str = "seed") -> str | None:
    """Why ``seed`` cannot seed the audit's draws and bootstraps, in one line naming it, or None.

    numpy's generator takes a whole number, 0 or more (any size); a negative one, a float, text or a
    bool is refused here, before any model call, instead of failing after the judge's calls.

    Args:
        seed: The value given.
        name: How the user wrote it (``--seed``, ``audits[0].seed``).

    Returns:
        The problem, or None when the seed is fine.
    """
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        return f"{name} = {seed!r}: must be a whole number, 0 or more"
    return None


def check_seed(seed: object, name: str = "seed") -> int:
    """The seed as an ``int``, or a ``ValueError`` naming it (:func:`seed_problem`).

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
        expectation: One of :data:`EXPECTATIONS`.
        n_items: Items the probe has a record for (scored or not).
        n_paired: Items scored in both the probe and its comparison (0 without a comparison).
        unscored: The probe's items the judge left unscored.
        comparison_unscored: Of the probe's items, those whose comparison the judge left unscored.
        mean: Mean of the probe's scored items (it decides ``high`` and ``at_most_1``).
        paired_mean: Mean of the probe's scores over the paired items.
        comparison_mean: Mean of the comparison's scores over the paired items, so that
            ``paired_mean - comparison_mean == shift``.
        shift: Mean of ``probe - comparison`` over the paired items.
        ci_low: Lower end of the shift's paired bootstrap interval.
        ci_high: Upper end of the shift's paired bootstrap interval.
        rate: Share of the decided items on which the expectation holds.
        rate_name: ``robustness``, ``sensitivity`` or ``floor`` (:data:`RATE_NAMES`).
        verdict: ``pass``, ``fail`` or ``inconclusive``.
        reason: Why, in one sentence naming the measures and the bounds.
        mean_ci_low: Lower end of the mean's bootstrap interval.
        mean_ci_high: Upper end of the mean's bootstrap interval.
        rate_ci_low: Lower end of the rate's Wilson interval.
        rate_ci_high: Upper end of the rate's Wilson interval.
        statistic: Which statistic the verdict holds to its bound: ``shift`` or ``mean``.
        bound_low: Lowest accepted value of that statistic.
        bound_high: Highest accepted value of that statistic.
        notes: Anything the reader should know about the numbers (left-out items, no interval).
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


def accepted_range(expectation: str, thresholds: Thresholds) -> tuple[float, float]:
    """The values of the deciding statistic (shift or mean) that meet an expectation.

    Args:
        expectation: One of :data:`EXPECTATIONS`.
        thresholds: The bounds.

    Returns:
        ``(lowest, highest)`` accepted value.
    """
    t = thresholds
    return {
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
    if expectation in ("same", "within_1"):
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


def sorted_ids(ids: Iterable[Hashable]) -> list[Hashable]:
    """Item ids in a fixed order: sorted, or sorted by ``repr`` when types mix.

    A fixed order makes a seeded bootstrap give the same interval whatever order the scores came in.
    """
    ids = list(ids)
    try:
        return sorted(ids)  # type: ignore[type-var]
    except TypeError:
        return sorted(ids, key=repr)


def evaluate_probe(
    probe: ProbeLike,
    scores: Mapping[str, Mapping[Any, float]],
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
    *,
    seed: int = 0,
) -> ProbeResult:
    """One probe's statistics and verdict.

    Args:
        probe: The probe; its scores must be in ``scores`` (checked by :func:`check_scores`).
        scores: Every probe's scores, so that the comparison's can be found.
        thresholds: The bounds.
        seed: Seed of the bootstrap; each probe uses it afresh, so a probe's interval does not
            depend on which other probes ran.

    Returns:
        The result.

    Raises:
        ValueError: If the seed is not a whole number, 0 or more (:func:`check_seed`), the probe
            is compared with itself, or its expectation is not one of :data:`EXPECTATIONS`.
    """
    import numpy as np

    check_seed(seed)
    _check_probe(probe)
    expectation = probe.expectation
    if expectation not in EXPECTATIONS:
        raise ValueError(
            f"probe {probe.name!r}: expectation {expectation!r} is unknown; known: {', '.join(EXPECTATIONS)}"
        )
    own = scores[probe.name]
    ids = sorted_ids(own)
    values = np.array([own[i] for i in ids], dtype=float)
    scored = values[~np.isnan(values)]
    notes: list[str] = []
    comparison = scores.get(probe.comparison) if probe.comparison is not None else None
    if comparison is not None:
        other = np.array([comparison.get(i, math.nan) for i in ids], dtype=float)
        absent = sum(i not in comparison for i in ids)
        if absent:
            notes.append(f"{absent} item(s) of {probe.name!r} have no {probe.comparison!r} record at all")
        paired = ~np.isnan(values) & ~np.isnan(other)
        differences = values[paired] - other[paired]
        comparison_unscored = sum(i in comparison and math.isnan(comparison[i]) for i in ids)
        paired_mean, comparison_mean = _mean(values[paired]), _mean(other[paired])
    else:
        differences = np.array([], dtype=float)
        comparison_unscored = 0
        paired_mean = comparison_mean = math.nan
    shift_low, shift_high = _mean_ci(differences, thresholds, seed)
    mean_low, mean_high = _mean_ci(scored, thresholds, seed)
    own_score = expectation in OWN_SCORE
    decided = scored if own_score else differences
    holds = _holds(expectation, decided, thresholds)
    rate = _mean(holds.astype(float))
    rate_low, rate_high = _wilson(int(holds.sum()), int(holds.size), thresholds.confidence)
    statistic: Statistic = "mean" if own_score else "shift"
    low, high = accepted_range(expectation, thresholds)
    if decided.size == 1:
        notes.append("one item: no interval")
    verdict, reason = _verdict(
        probe,
        n_items=len(ids),
        n_decided=int(decided.size),
        value=_mean(decided),
        interval=(mean_low, mean_high) if own_score else (shift_low, shift_high),
        rate=(rate, rate_low, rate_high),
        comparison_missing=not own_score and comparison is None,
        thresholds=thresholds,
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
    )


def evaluate(
    scores: Mapping[str, Mapping[Any, Any]],
    probes: Sequence[ProbeLike],
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
    *,
    seed: int = 0,
) -> tuple[ProbeResult, ...]:
    """Every probe that has scores, in the order of ``probes``; probes without scores are left out.

    Args:
        scores: Probe name -> item id -> 0-5 score, NaN (or None) when unscored.
        probes: The probes, in the card's order.
        thresholds: The bounds.
        seed: Seed of every bootstrap.

    Returns:
        One result per probe present in ``scores``.

    Raises:
        ValueError: On a bad seed, a score off the scale, a probe listed twice or compared with
            itself, or an unknown expectation.
    """
    check_seed(seed)
    seen: set[str] = set()
    for probe in probes:
        if probe.name in seen:
            raise ValueError(f"probe {probe.name!r} is listed twice: the card would show it twice")
        seen.add(probe.name)
        _check_probe(probe)
    clean = check_scores(scores)
    return tuple(
        evaluate_probe(probe, clean, thresholds, seed=seed) for probe in probes if probe.name in clean
    )


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
    if expectation == "same":
        return abs(decided) <= tol
    if expectation == "lower":
        return decided < -tol
    if expectation == "not_higher":
        return decided <= tol
    return abs(decided) <= t.within + _EPS


def _mean_ci(values: np.ndarray, t: Thresholds, seed: int) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean, resampling items; NaN below two items."""
    import numpy as np

    if values.size < 2:
        return math.nan, math.nan
    if np.all(values == values[0]):
        # Every resample has the same mean: the interval has no width (scipy would say so too).
        return float(values[0]), float(values[0])
    from scipy import stats

    result = stats.bootstrap(
        (values,),
        np.mean,
        n_resamples=t.n_boot,
        confidence_level=t.confidence,
        method="percentile",
        vectorized=True,
        rng=np.random.default_rng(seed),
        # In batches, so that memory stays bounded (8 MB) whatever n_boot and the item count; the
        # interval is the same as in one batch.
        batch=max(1, _BATCH_CELLS // values.size),
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def _wilson(successes: int, n: int, confidence: float) -> tuple[float, float]:
    """Wilson score interval of a share; honest at 0 % and 100 % where a bootstrap has no width."""
    if n == 0:
        return math.nan, math.nan
    from scipy import stats

    interval = stats.binomtest(successes, n).proportion_ci(confidence_level=confidence, method="wilson")
    return float(interval.low), float(interval.high)


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
        "high": f"the judge does not score the reference meaning ({name}) high",
        "same": f"the judge's score changes from {other} to {name}, which means the same",
        "lower": f"the judge does not score {name} lower than {other}",
        "not_higher": f"the judge scores {name} higher than {other}",
        "at_most_1": f"the judge gives {name} more than the rubric's 0-1",
        "within_1": f"the judge scores {name} more than a point away from {other}",
    }[probe.expectation]


def _verdict(
    probe: ProbeLike,
    *,
    n_items: int,
    n_decided: int,
    value: float,
    interval: tuple[float, float],
    rate: tuple[float, float, float],
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
    rate_value, rate_low, rate_high = rate
    rate_side = _side((rate_low, rate_high), t.min_rate, 1.0)
    rate_text = (
        f"{RATE_NAMES[probe.expectation]} {_pct(rate_value)} [{_pct(rate_low)}, {_pct(rate_high)}] "
        f"{_relation(rate_side)} ≥ {share_text(t.min_rate)}"
    )
    sides = {value_text: value_side, rate_text: rate_side}
    failed = [text for text, side in sides.items() if side == "outside"]
    if failed:
        return "fail", f"{_meaning(probe)}: {'; '.join(failed)}"
    left_out = n_items - n_decided
    if left_out / n_items > t.max_unscored + _EPS:
        return "inconclusive", (
            f"{left_out} of {n_items} items unscored on one side or both (more than {share_text(t.max_unscored)}); "
            f"{value_text}; {rate_text}"
        )
    if all(side == "inside" for side in sides.values()):
        return "pass", f"{value_text}; {rate_text}"
    undecided = [text for text, side in sides.items() if side == "straddles"]
    return "inconclusive", f"{'; '.join(undecided)}: more items would decide"


def _relation(side: Side) -> str:
    return {"inside": "meets", "outside": "misses", "straddles": "straddles"}[side]


def _fmt(value: float, sign: str) -> str:
    return "n/a" if math.isnan(value) else format(value, f"{sign}.2f")


def _pct(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{100 * value:.0f} %"
