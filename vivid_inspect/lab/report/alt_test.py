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
   the annotator (0.2 for experts, 0.15 skilled annotators, 0.1 crowd workers: :data:`EPSILONS`).
   Differences that do not vary give ``p = 0`` when their mean is below ``epsilon``, else 1.
3. Benjamini-Yekutieli at ``q = 0.05`` over the annotators' p-values (over every generation's
   annotators when one judge is tested on several, as the paper advises for several domains); the
   judge *wins against* an annotator whose null is rejected.
4. The winning rate ``omega`` is the share of annotators the judge wins against; the judge passes
   when ``omega >= 0.5``. The advantage probability ``rho`` is the mean of ``rho_f`` over the
   annotators: the chance that the judge is as good as a randomly chosen annotator, for comparing
   judges.

The authors allow two annotators but recommend three or more (with two, the test only asks which
of the two the judge is closer to) and at least 30 items per annotator (the t-test's normal
approximation); below that the result carries :data:`FEW_ANNOTATORS` or :func:`few_items`.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
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
    """

    annotator: str
    n: int
    judge_wins: float | None
    annotator_wins: float | None
    p_value: float | None
    won: bool = False
    spread: float | None = None


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
        passed: ``omega >= 0.5`` (None when ``omega`` is None).
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


def items_to_pass(result: AltTest) -> int | None:
    """About how many shared items per annotator would let the judge pass, if it keeps its advantage.

    The judge passes with wins against half the annotators (rounded up), ``k`` of ``m``; at the
    Benjamini-Yekutieli step each of those ``k`` needs ``p <= k q / (m H_m)``. An annotator whose
    mean ``W_h - W_f`` is below ``epsilon`` reaches that with the ``n`` at which the same one-sided
    t-test, with the same mean and spread as now, gives that p; the answer is the ``k``-th smallest
    such ``n``.

    Args:
        result: A test with at least one annotator tested.

    Returns:
        The items, or None when fewer than ``k`` annotators are below ``epsilon`` (more items of
        the same kind will not make the judge pass) or nobody was tested.
    """
    tested = [a for a in result.annotators if a.p_value is not None]
    if not tested:
        return None
    m = len(tested)
    k = math.ceil(m / 2)
    level = k * result.q / (m * sum(1 / i for i in range(1, m + 1)))
    needed = []
    for a in tested:
        gap = result.epsilon - ((a.annotator_wins or 0.0) - (a.judge_wins or 0.0))
        if gap <= 0:
            continue
        spread = a.spread if a.spread is not None and a.spread > 0 else 1.0 / math.sqrt(a.n)
        needed.append(_items_for(gap, spread, level, a.n))
    if len(needed) < k:
        return None
    return sorted(needed)[k - 1]


def _items_for(gap: float, spread: float, level: float, start: int) -> int:
    """The fewest items, from ``start`` on, whose one-sided t-test of a mean ``gap`` below epsilon reaches ``level``."""
    z = float(stats.norm.ppf(1 - level))
    # The normal approximation first: the t needs at least as many.
    n = max(start, 2, math.ceil((z * spread / gap) ** 2))
    while float(stats.t.cdf(-gap * math.sqrt(n) / spread, df=n - 1)) > level:
        n = math.ceil(n * 1.05) + 1
    return n


def few_items(annotator: str, n: int) -> str:
    """The warning for an annotator below the recommended number of items."""
    return (
        f"annotator {annotator!r} shares {n} item(s) with the judge and another annotator; the authors "
        f"recommend at least {RECOMMENDED_ITEMS} (the t-test's normal approximation)"
    )


def epsilon_of(value: str | float) -> float:
    """``epsilon`` from a number in ``[0, 1)`` or a name in :data:`EPSILONS`.

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
        epsilon: The annotators' handicap (see :data:`EPSILONS`).
        q: The false discovery rate.

    Returns:
        The test; see :class:`AltTest`.
    """
    return alt_tests({None: (judge, annotators)}, epsilon=epsilon, q=q)[None]


def alt_tests(
    cases: Mapping[Any, tuple[Scores, Mapping[str, Scores]]],
    *,
    epsilon: float = DEFAULT_EPSILON,
    q: float = Q_FDR,
) -> dict[Any, AltTest]:
    """One judge tested on several sets of annotators (one per generation), one FDR step over all.

    Args:
        cases: For each key (a generation): the judge's scores and the annotators' scores.
        epsilon: The annotators' handicap.
        q: The false discovery rate, controlled over every annotator of every case.

    Returns:
        The test of each case; ``omega`` is per case, the rejections are decided together.
    """
    epsilon = epsilon_of(epsilon)
    left_outs = {key: _left_outs(judge, annotators, epsilon) for key, (judge, annotators) in cases.items()}
    tested = [
        (key, i) for key, rows in left_outs.items() for i, row in enumerate(rows) if row.p_value is not None
    ]
    p_values = np.array([left_outs[key][i].p_value for key, i in tested], dtype=float)
    rejected = stats.false_discovery_control(p_values, method="by") <= q if p_values.size else np.array([])
    won = {place for place, rejection in zip(tested, rejected, strict=True) if rejection}
    results: dict[Any, AltTest] = {}
    for key, rows in left_outs.items():
        marked = tuple(
            LeftOut(r.annotator, r.n, r.judge_wins, r.annotator_wins, r.p_value, (key, i) in won, r.spread)
            for i, r in enumerate(rows)
        )
        results[key] = _summary(marked, cases[key], epsilon, q)
    return results


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
        rows.append(
            LeftOut(str(name), n, float(np.mean(wins_f)), float(np.mean(wins_h)), p_value, False, spread)
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
    counts: dict[Hashable, int] = {}
    for scores in annotators.values():
        for item in scores:
            counts[item] = counts.get(item, 0) + 1
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
    return AltTest(epsilon, q, rows, items, omega, rho, omega >= 0.5, tuple(warnings))
