"""The alternative annotator test: may the judge replace the human annotators on this data?

Calderon, Reichart and Dror (2025), "The Alternative Annotator Test for LLM-as-a-Judge: How to
Statistically Justify Replacing Human Annotators with LLMs", ACL 2025. With two or more annotators
who scored the same items, each annotator ``j`` is left out in turn and the rest are the reference:

1. On each item ``j`` scored that at least one other annotator also scored, the *alignment* of a
   score with the others is minus the root mean square of its differences from their scores (the
   paper's measure for numeric and ordinal ratings, ``-RMSE``). The judge wins the item when its
   alignment is at least the left-out annotator's (``W_f = 1``); the annotator wins it when theirs
   is at least the judge's (``W_h = 1``; a tie is a win for both).
2. ``rho_f`` and ``rho_h`` are the shares of items each wins. A one-sided paired t-test of
   ``H0: rho_h - rho_f >= epsilon`` against ``rho_h - rho_f < epsilon`` on the per-item
   differences ``W_h - W_f``: ``epsilon`` is what the judge's lower cost is worth, a handicap on
   the annotator (0.2 for experts, 0.15 skilled annotators, 0.1 crowd workers: `EPSILONS`).
   Differences that do not vary give ``p = 0`` when their mean is below ``epsilon``, else 1.
3. Benjamini-Yekutieli at ``q = 0.05`` over the annotators' p-values of one generation (one data
   set: the authors' reference code corrects per data set, so a second generation's human file
   never changes the first's result); the judge *wins against* an annotator whose null is rejected.
   The mirror test (``H0: rho_h - rho_f <= epsilon``), corrected the same way, says whom the judge
   *loses against*: an annotator better than it by more than the handicap.
4. The winning rate ``omega`` is the share of annotators the judge wins against; the judge passes
   when ``omega >= 0.5``. The advantage probability ``rho`` is the mean of ``rho_f`` over the
   annotators: the chance that the judge is as good as a randomly chosen annotator, for comparing
   judges.

The authors allow two annotators but recommend three or more (with two, the test only asks which
of the two the judge is closer to) and at least 30 items per annotator (the t-test's normal
approximation); below that the result carries `FEW_ANNOTATORS` or `few_items`, its
``passed`` is None and its `AltTest.outcome` is `BELOW_MINIMUM`: omega is reported,
never a pass. `settling_design` computes the design that would settle an open result.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

EPSILONS: dict[str, float] = {"expert": 0.2, "skilled": 0.15, "crowd": 0.1}
"""The authors' rule of thumb for ``epsilon`` by who the annotators are."""
DEFAULT_EPSILON = EPSILONS["expert"]
"""VIVID's annotators are native speakers trained in Vietnamese linguistics (paper §3.3): experts."""
Q_FDR = 0.05
RECOMMENDED_ANNOTATORS = 3
RECOMMENDED_ITEMS = 30
BELOW_MINIMUM = "below the paper's minimum"
"""The outcome of a test with fewer than 3 annotators or 30 shared items per annotator."""
POWER = 0.8
"""The probability with which a design from `settling_design` should settle the question."""
PLANNING_CONFIDENCE = 0.8
"""One-sided confidence of the lower bound on each annotator's effect that `settling_design` plans on."""
MAX_ITEMS = 2000
"""The largest design `settling_design` proposes (shared items per annotator)."""
FEW_ANNOTATORS = (
    "only two annotators: the test then asks which of the two the judge is closer to, with no consensus to "
    f"represent; the authors recommend {RECOMMENDED_ANNOTATORS} or more"
)

Scores = Mapping[Any, float]


@dataclass(frozen=True)
class LeftOut:
    """One annotator left out: the judge against them, on the items they share with the others.

    Attributes:
        annotator: The annotator left out.
        n: Items compared (scored by them, the judge and at least one other annotator).
        judge_wins: ``rho_f``: share of items where the judge is at least as close to the others.
        annotator_wins: ``rho_h``: share where the annotator is at least as close as the judge.
        p_value: One-sided p of ``rho_h - rho_f >= epsilon`` (None: fewer than two items).
        won: Whether the judge wins against this annotator (rejected by Benjamini-Yekutieli).
        spread: Standard deviation of the per-item ``W_h - W_f`` (None: fewer than two items).
        p_loss: One-sided p of ``rho_h - rho_f <= epsilon`` (None: fewer than two items).
        lost: Whether the annotator beats the judge by more than ``epsilon`` (the mirror test rejected).
    """

    annotator: str
    n: int
    judge_wins: float | None
    annotator_wins: float | None
    p_value: float | None
    won: bool = False
    spread: float | None = None
    p_loss: float | None = None
    lost: bool = False


@dataclass(frozen=True)
class AltTest:
    """The alternative annotator test of one judge on one set of annotators.

    Attributes:
        epsilon: The annotators' handicap.
        q: The false discovery rate of the Benjamini-Yekutieli step.
        annotators: Each annotator left out, in name order.
        items: Items scored by the judge and at least two annotators.
        winning_rate: ``omega``, over the annotators with a p-value (None when none has).
        advantage: ``rho``, the mean ``rho_f`` over those annotators (None when none has).
        passed: ``omega >= 0.5`` with the authors' minimum design (None below it, or when ``omega`` is None).
        warnings: Why the design is smaller than the authors recommend, or what was left out.
    """

    epsilon: float
    q: float
    annotators: tuple[LeftOut, ...]
    items: int
    winning_rate: float | None
    advantage: float | None
    passed: bool | None
    warnings: tuple[str, ...] = ()

    @property
    def tested(self) -> int:
        """Annotators with a p-value: the denominator of ``omega``."""
        return sum(1 for a in self.annotators if a.p_value is not None)

    @property
    def minimum_met(self) -> bool:
        """The authors' design: 3 or more annotators tested, each on 30 or more shared items."""
        return _minimum(self.annotators)

    @property
    def ruled_out(self) -> bool:
        """With the minimum design, the judge loses against more than half the annotators: it cannot pass."""
        return self.minimum_met and sum(a.lost for a in self.annotators) > self.tested / 2

    @property
    def outcome(self) -> str:
        """``yes``, ``no`` or why neither: the ``passed`` cell of ``alt_test.csv``."""
        if self.winning_rate is None:
            return "not tested: fewer than two annotators share two or more items with the judge"
        if not self.minimum_met:
            fewest = min(a.n for a in self.annotators if a.p_value is not None)
            return f"{BELOW_MINIMUM} ({self.tested} annotators tested, fewest shared items {fewest})"
        return "yes" if self.passed else "no"


@dataclass(frozen=True)
class Design:
    """A design of the test that should settle an open result, if the judge stays as it is.

    Attributes:
        annotators: Annotators to test (the present ones, and new ones up to the minimum).
        items: Shared items per annotator (None: no design up to `MAX_ITEMS` settles it).
        answer: ``yes`` (the judge would pass) or ``no`` (it would be ruled out).
        power: The predicted probability that the test gives that answer with this design.
        gap: The distance of ``rho_h - rho_f`` from ``epsilon`` the power rests on (the ``k``-th
            largest lower bound; 0 when fewer than ``k`` bounds are above 0).
    """

    annotators: int
    items: int | None
    answer: str
    power: float
    gap: float = 0.0


def settling_design(
    result: AltTest,
    power: float = POWER,
    confidence: float = PLANNING_CONFIDENCE,
    *,
    annotators: int = RECOMMENDED_ANNOTATORS,
    max_items: int = MAX_ITEMS,
) -> Design | None:
    """The fewest shared items per annotator with which the test gives its likely answer with ``power``.

    Each tested annotator keeps the mean ``d = W_h - W_f`` and spread seen now; annotators added to
    reach `RECOMMENDED_ANNOTATORS` are like the present ones on average. The likely answer is
    ``yes`` when at least ``k = ceil(m / 2)`` of the ``m`` annotators have ``d < epsilon`` (the judge
    passes with ``k`` wins), else ``no`` (``floor(m / 2) + 1`` losses rule it out). Each of those
    annotators' one-sided t-test must reject at the Benjamini-Yekutieli level of ``k`` rejections,
    ``k q / (m H_m)``: any ``k`` p-values under it give ``k`` rejections, so its power (the noncentral
    t's) is a lower bound per annotator. Each annotator's distance from ``epsilon`` is planned at its
    lower confidence bound (a pilot that flatters the judge must not promise a small design), so
    the claim is: if the judge is at least that far from ``epsilon``, the design settles the test
    with ``power``. The design's power is the ``k``-th largest of the annotators' (as if their
    results went together, which shared items make them do); the items are the fewest, from the
    minimum 30 on, that bring it to ``power``. ``bench/coverage_alt_test.py`` measures it.

    Args:
        result: A test with at least one annotator tested.
        power: The wanted probability of settling.
        confidence: One-sided confidence of the lower bound on each annotator's distance.
        annotators: Fewest annotators of the design (added ones are like the present ones).
        max_items: The most shared items per annotator a design may have (a generation's items:
            no design may ask for more items than there are).

    Returns:
        The design (its ``items`` None when none up to ``max_items`` settles it), or None when
        nobody was tested.
    """
    tested = [a for a in result.annotators if a.p_value is not None]
    if not tested:
        return None
    z = float(stats.norm.ppf(confidence))
    effects = [
        ((a.annotator_wins or 0.0) - (a.judge_wins or 0.0) - result.epsilon, _spread(a.spread, a.n), a.n)
        for a in tested
    ]
    added = tuple(float(np.mean(column)) for column in zip(*effects, strict=True))
    effects += [(added[0], added[1], int(added[2]))] * max(0, annotators - len(effects))
    m = len(effects)
    answer = "yes" if sum(e < 0 for e, _, _ in effects) >= math.ceil(m / 2) else "no"
    k = math.ceil(m / 2) if answer == "yes" else m // 2 + 1
    level = k * result.q / (m * sum(1 / i for i in range(1, m + 1)))
    # Plan on the effect's lower confidence bound: a pilot's effect is noisy, and a design planned on
    # the estimate itself falls short whenever the pilot happened to flatter the judge (or the annotator).
    planned = [(abs(e) - z * s / math.sqrt(n), s) for e, s, n in effects if (e < 0) == (answer == "yes")]
    helping = [(g, s) for g, s in planned if g > 0]
    if len(helping) < k:
        return Design(m, None, answer, 0.0)
    gap = sorted((g for g, _ in helping), reverse=True)[k - 1]

    def design_power(n: int) -> float:
        critical = float(stats.t.ppf(1 - level, df=n - 1))
        each = sorted(
            (float(stats.nct.sf(critical, n - 1, g * math.sqrt(n) / s)) for g, s in helping), reverse=True
        )
        return each[k - 1]

    low, high = max(RECOMMENDED_ITEMS, max(a.n for a in tested)), min(max_items, MAX_ITEMS)
    if low > high:  # the authors' minimum does not fit in the generation
        return Design(m, None, answer, 0.0, gap)
    if design_power(low) >= power:
        return Design(m, low, answer, design_power(low), gap)
    if design_power(high) < power:
        return Design(m, None, answer, design_power(high), gap)
    while high - low > 1:  # design_power(low) < power <= design_power(high)
        middle = (low + high) // 2
        low, high = (low, middle) if design_power(middle) >= power else (middle, high)
    return Design(m, high, answer, design_power(high), gap)


def _spread(spread: float | None, n: int) -> float:
    """The spread of ``W_h - W_f``; differences that did not vary count as one step in ``n`` varying."""
    return spread if spread is not None and spread > 0 else 1.0 / math.sqrt(n)


def few_items(annotator: str, n: int) -> str:
    """The warning for an annotator below the recommended number of items."""
    return (
        f"annotator {annotator!r} shares {n} item(s) with the judge and another annotator; the authors "
        f"recommend at least {RECOMMENDED_ITEMS} (the t-test's normal approximation)"
    )


def epsilon_of(value: str | float) -> float:
    """``epsilon`` from a number in ``[0, 1)`` or a name in `EPSILONS`.

    Raises:
        ValueError: Neither a known name nor a number in ``[0, 1)``.
    """
    if isinstance(value, str) and value.strip().lower() in EPSILONS:
        return EPSILONS[value.strip().lower()]
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if not 0 <= number < 1:
        names = ", ".join(f"{name} ({eps})" for name, eps in EPSILONS.items())
        raise ValueError(
            f"epsilon must be a number from 0 up to (not including) 1, or one of {names}; got {value!r}"
        )
    return number


def alt_test(
    judge: Scores, annotators: Mapping[str, Scores], *, epsilon: float = DEFAULT_EPSILON, q: float = Q_FDR
) -> AltTest:
    """The alternative annotator test of one judge against two or more annotators.

    Args:
        judge: The judge's score of each item (items it did not score are absent).
        annotators: Each annotator's scores, by item.
        epsilon: The annotators' handicap (see `EPSILONS`).
        q: The false discovery rate.

    Returns:
        The test; see `AltTest`.
    """
    return alt_tests({None: (judge, annotators)}, epsilon=epsilon, q=q)[None]


def alt_tests(
    cases: Mapping[Any, tuple[Scores, Mapping[str, Scores]]],
    *,
    epsilon: float = DEFAULT_EPSILON,
    q: float = Q_FDR,
) -> dict[Any, AltTest]:
    """One judge tested on several sets of annotators (one per generation), each corrected on its own.

    Args:
        cases: For each key (a generation): the judge's scores and the annotators' scores.
        epsilon: The annotators' handicap.
        q: The false discovery rate, controlled over the annotators of each case (one data set).

    Returns:
        The test of each case: the others' p-values never change it.
    """
    epsilon = epsilon_of(epsilon)
    return {key: _case(judge, annotators, epsilon, q) for key, (judge, annotators) in cases.items()}


def _case(judge: Scores, annotators: Mapping[str, Scores], epsilon: float, q: float) -> AltTest:
    rows = _left_outs(judge, annotators, epsilon)
    won, lost = (_rejected([getattr(r, p) for r in rows], q) for p in ("p_value", "p_loss"))
    marked = tuple(
        LeftOut(r.annotator, r.n, r.judge_wins, r.annotator_wins, r.p_value, w, r.spread, r.p_loss, lo)
        for r, w, lo in zip(rows, won, lost, strict=True)
    )
    return _summary(marked, (judge, annotators), epsilon, q)


def _rejected(p_values: list[float | None], q: float) -> list[bool]:
    """Benjamini-Yekutieli over the p-values given (None: not tested, never rejected)."""
    given = [i for i, p in enumerate(p_values) if p is not None]
    if not given:
        return [False] * len(p_values)
    adjusted = stats.false_discovery_control(np.array([p_values[i] for i in given], dtype=float), method="by")
    rejected = {i for i, a in zip(given, adjusted, strict=True) if a <= q}
    return [i in rejected for i in range(len(p_values))]


def _left_outs(judge: Scores, annotators: Mapping[str, Scores], epsilon: float) -> list[LeftOut]:
    rows = []
    for name in sorted(annotators):
        others = {other: scores for other, scores in annotators.items() if other != name}
        wins_f, wins_h = [], []
        for item, score in annotators[name].items():
            reference = [scores[item] for scores in others.values() if item in scores]
            if item not in judge or not reference:
                continue
            judge_alignment, annotator_alignment = (
                _alignment(judge[item], reference),
                _alignment(score, reference),
            )
            wins_f.append(float(judge_alignment >= annotator_alignment))
            wins_h.append(float(annotator_alignment >= judge_alignment))
        n = len(wins_f)
        if n == 0:
            rows.append(LeftOut(str(name), 0, None, None, None))
            continue
        differences = np.array(wins_h) - np.array(wins_f)
        p_value = _one_sided_p(differences, epsilon) if n >= 2 else None
        spread = float(differences.std(ddof=1)) if n >= 2 else None
        # The mirror test is the same t statistic's other tail: H0 mean <= epsilon against > epsilon.
        p_loss = _one_sided_p(2 * epsilon - differences, epsilon) if n >= 2 else None
        rows.append(
            LeftOut(
                str(name), n, float(np.mean(wins_f)), float(np.mean(wins_h)), p_value, False, spread, p_loss
            )
        )
    return rows


def _alignment(score: float, reference: list[float]) -> float:
    """The paper's alignment of a numeric score with the others' scores of the item: minus their RMSE."""
    return -math.sqrt(float(np.mean((np.asarray(reference, dtype=float) - float(score)) ** 2)))


def _one_sided_p(differences: np.ndarray, epsilon: float) -> float:
    """The p-value of the paired t-test of mean(W_h - W_f) >= epsilon against < epsilon."""
    n = differences.size
    mean, spread = float(differences.mean()), float(differences.std(ddof=1))
    if spread <= 1e-12:  # the t statistic is -inf or +inf: the data decide alone
        return 0.0 if mean < epsilon else 1.0
    t = (mean - epsilon) / (spread / math.sqrt(n))
    return float(stats.t.cdf(t, df=n - 1))


def _summary(
    rows: tuple[LeftOut, ...], case: tuple[Scores, Mapping[str, Scores]], epsilon: float, q: float
) -> AltTest:
    judge, annotators = case
    counts = Counter(item for scores in annotators.values() for item in scores)
    items = sum(1 for item, count in counts.items() if count >= 2 and item in judge)
    tested = [r for r in rows if r.p_value is not None]
    warnings: list[str] = []
    if len(annotators) < 2:
        warnings.append("fewer than two annotators: the test needs two or more who scored the same items")
    elif len(annotators) < RECOMMENDED_ANNOTATORS:
        warnings.append(FEW_ANNOTATORS)
    warnings.extend(
        few_items(r.annotator, r.n) for r in rows if r.p_value is not None and r.n < RECOMMENDED_ITEMS
    )
    left = [r.annotator for r in rows if r.p_value is None]
    if left:
        warnings.append(
            f"left out of omega (fewer than two items shared with the judge and another annotator): {', '.join(map(repr, left))}"
        )
    if not tested:
        return AltTest(epsilon, q, rows, items, None, None, None, tuple(warnings))
    omega = sum(r.won for r in tested) / len(tested)
    rho = float(np.mean([r.judge_wins for r in tested]))
    return AltTest(
        epsilon, q, rows, items, omega, rho, omega >= 0.5 if _minimum(rows) else None, tuple(warnings)
    )


def _minimum(rows: tuple[LeftOut, ...]) -> bool:
    tested = [r.n for r in rows if r.p_value is not None]
    return len(tested) >= RECOMMENDED_ANNOTATORS and min(tested) >= RECOMMENDED_ITEMS
