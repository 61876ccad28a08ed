"""How many human labels each generation gets, so that the corrected means are as precise as they can be.

The corrected (prediction-powered) mean of a generation with ``N`` items, ``n`` of them labelled,
prints a 95 % interval of half-width ``t_(n-2) sqrt((1 - n/N) (S^2 + PSEUDO^2 / (n - 2)) / n)``
(`vivid_inspect.lab.report.stats.ppi`: ``S`` the spread, standard deviation, of the residual
``human - lam * judge`` over its items; one pseudo-residual ``PSEUDO`` a whole score from the mean;
the ``t`` quantile with ``n - 2`` degrees of freedom). The plan predicts exactly that
(`half_width`); what it cannot predict is the widening for a skewed residual (for any residual past
half of the items labelled) and for the judge's spread the labels miss, which the bench measures
(``bench/coverage_allocation.py``). Labels are worth most where ``S`` is large; the pseudo-residual
and the quantile make every generation's first labels worth something too, however small its ``S``.

**Objective**: the sum of the generations' squared half-widths ``sum_g h_g(n_g)^2`` for a given
number of labels: the mean squared half-width of the printed intervals and, up to the quantile, the
mean variance of a difference between two generations' corrected means (each pair's is ``V_a + V_b``),
which is what a reader of a ranking of models compares. Without the pseudo-residual and with a
normal quantile it is minimised by Neyman's allocation ``n_g ∝ S_g`` (Lagrange: ``S_g^2 / n_g^2``
equal; the ``-S^2/N`` term does not depend on ``n_g``).

With whole labels, a minimum per generation (`MIN_PER_GENERATION`, so that every corrected
mean is printed with an interval) and no more labels than items, the allocation is made one label at
a time, each to the generation whose squared half-width it lowers most: each ``h_g^2`` is convex and
decreasing in ``n`` (a product of positive convex decreasing factors), so this greedy order is
optimal for every total.

``S_g`` is not known before labelling: it is estimated from a first batch of labels on every
generation (`first_batch`); the rest of the labels follow the estimate (`allocate`).
An ``S`` from 20 labels is itself uncertain, so a plan by the spreads that is predicted to lower the
objective by less than `MIN_GAIN` against equal allocation is not worth that risk: the plan
says so and shares the labels equally (the bench: a plan by the spreads was 1.26 times wider than
equal allocation on a folder with one near-constant generation before both changes). Within a
generation the labelled items are still a uniform draw, which the corrected mean needs.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from scipy import stats

from vivid_inspect.lab.report.stats.intervals import RULES
from vivid_inspect.lab.report.stats.ppi import ALPHA, PSEUDO

MIN_PER_GENERATION = RULES["corrected_mean"].min_n
"""Fewest labels a generation is planned: the n from which its corrected mean gets an interval."""
OBJECTIVE = "the sum of the generations' squared half-widths of the printed 95 % interval"
MIN_GAIN = 0.10
"""A plan by the spreads must lower the predicted objective by this share against equal allocation."""


@dataclass(frozen=True)
class Stratum:
    """One generation as the planner sees it.

    Attributes:
        key: The generation's key (or any name).
        items: Items that can be labelled (the judge scored them).
        labelled: Items already labelled.
        spread: ``S``, the residual's standard deviation estimated from those labels (None: unknown).
    """

    key: str
    items: int
    labelled: int = 0
    spread: float | None = None


@dataclass(frozen=True)
class Share:
    """One generation's part of a plan.

    Attributes:
        key: The generation.
        items: Its items.
        labelled: Labels it had before this round.
        new: Labels this round gives it.
        spread: The ``S`` the plan used (None in a first batch without earlier labels).
        width: Expected width of its 95 % corrected interval after this round (None without ``S``).
    """

    key: str
    items: int
    labelled: int
    new: int
    spread: float | None
    width: float | None

    @property
    def total(self) -> int:
        """Labels after this round."""
        return self.labelled + self.new


@dataclass(frozen=True)
class Plan:
    """Labels per generation for one round, and what they are expected to buy.

    Attributes:
        shares: Each generation, in the order given.
        kind: ``"neyman"`` (by the residual spreads), ``"equal"`` (they would not help enough) or
            ``"first batch"`` (equal, to estimate them).
        objective: The sum of the expected variances (None without every ``S``).
        notes: What the plan assumed or could not do.
    """

    shares: tuple[Share, ...]
    kind: str
    objective: float | None
    notes: tuple[str, ...] = ()

    @property
    def new(self) -> int:
        """Labels this round, over every generation."""
        return sum(share.new for share in self.shares)

    @property
    def mean_width(self) -> float | None:
        """The mean of the expected interval widths (None without every ``S``)."""
        widths = [share.width for share in self.shares if share.width is not None]
        return sum(widths) / len(widths) if widths and len(widths) == len(self.shares) else None


def variance(spread: float, n: int, items: int) -> float:
    """The printed variance of the corrected mean with ``n`` of ``items`` labelled (inf for n <= 2).

    ``(1 - n/N) (S^2 + PSEUDO^2 / (n - 2)) / n``: the interval's ``s^2`` with ``n - 2`` degrees of
    freedom and the pseudo-residual, as `vivid_inspect.lab.report.stats.ppi.ppi_mean` computes it.
    """
    if n <= 2:
        return math.inf
    return max(1 - n / items, 0.0) * (spread**2 + PSEUDO**2 / (n - 2)) / n


def half_width(spread: float, n: int, items: int) -> float:
    """The half-width of the 95 % corrected interval the report prints: ``t_(n-2) sqrt(variance)``."""
    if n <= 2:
        return math.inf
    return _quantile(n - 2) * math.sqrt(variance(spread, n, items))


def width(spread: float, n: int, items: int) -> float:
    """The width of the 95 % corrected interval the report prints (for a symmetric residual)."""
    return 2 * half_width(spread, n, items)


@lru_cache(maxsize=4096)
def _quantile(df: int) -> float:
    return float(stats.t.ppf(1 - ALPHA / 2, df=df))


def first_batch(strata: Sequence[Stratum], budget: int, *, minimum: int = MIN_PER_GENERATION) -> Plan:
    """Labels to bring every generation to ``minimum`` (or as close as ``budget`` allows), evenly.

    Args:
        strata: The generations.
        budget: Labels available this round.
        minimum: Labels each generation should reach.

    Returns:
        The plan; labels left over wait for the first batch's spreads.
    """
    _check(strata, budget)
    new = dict.fromkeys((s.key for s in strata), 0)
    upto = [replace(s, items=max(min(minimum, s.items), s.labelled)) for s in strata]
    left = _round_robin(upto, new, budget)  # a short budget is shared evenly
    notes = [f"first batch: up to {minimum} labels per generation to estimate the spread of human - judge"]
    if left:
        notes.append(
            f"{left} label(s) left for the next round, allocated by the spreads the first batch shows"
        )
    return _plan(strata, new, "first batch", notes)


def allocate(
    strata: Sequence[Stratum], budget: int, *, minimum: int = MIN_PER_GENERATION, fallback: bool = True
) -> Plan:
    """The allocation of ``budget`` new labels by the generations' residual spreads.

    Args:
        strata: The generations, each with its estimated ``spread``.
        budget: New labels this round.
        minimum: Fewest labels (old and new) a generation ends with, when it has that many items.
        fallback: Share the labels equally when the plan by the spreads is predicted to lower the
            objective by less than `MIN_GAIN` (the plan's notes say so).

    Returns:
        The plan that minimises `OBJECTIVE` for this many labels (or the equal one).

    Raises:
        ValueError: A generation without a spread, a negative budget, or a generation without items.
    """
    _check(strata, budget)
    unknown = [s.key for s in strata if s.spread is None]
    if unknown:
        raise ValueError(
            f"no spread for generation(s) {', '.join(unknown)}: label a first batch of them first"
        )
    new, left = _minimum_first(strata, budget, minimum)
    heap = [
        (-_gain(s, s.labelled + new[s.key]), i)
        for i, s in enumerate(strata)
        if s.labelled + new[s.key] < s.items
    ]
    heapq.heapify(heap)
    while left > 0 and heap:
        _, i = heapq.heappop(heap)
        s = strata[i]
        new[s.key] += 1
        left -= 1
        if s.labelled + new[s.key] < s.items:
            heapq.heappush(heap, (-_gain(s, s.labelled + new[s.key]), i))
    notes = [f"allocation by the spread of human - judge; objective: {OBJECTIVE}"]
    if left:
        notes.append(f"{left} label(s) unused: every item of every generation is labelled")
    plan = _plan(strata, new, "neyman", notes)
    if not fallback:
        return plan
    even, _ = _minimum_first(strata, budget, minimum)
    _round_robin(strata, even, budget - sum(even.values()))
    shared = _plan(strata, even, "equal", [])
    gain = 1 - (plan.objective or 0.0) / shared.objective if shared.objective else 0.0
    if gain >= MIN_GAIN:
        return Plan(
            plan.shares,
            plan.kind,
            plan.objective,
            (*plan.notes, f"predicted gain over equal allocation {gain:.0%}"),
        )
    return Plan(
        shared.shares,
        "equal",
        shared.objective,
        (
            f"allocation by the spreads would lower the objective by only {max(gain, 0.0):.0%} (under "
            f"{MIN_GAIN:.0%}): not worth the uncertainty of spreads measured on few labels, so the labels are "
            "shared equally",
        ),
    )


def _minimum_first(strata: Sequence[Stratum], budget: int, minimum: int) -> tuple[dict[str, int], int]:
    """New labels that bring each generation to the minimum, as far as the budget goes, and what is left."""
    new = dict.fromkeys((s.key for s in strata), 0)
    left = budget
    for s in strata:
        give = min(max(min(minimum, s.items) - s.labelled, 0), left)
        new[s.key], left = give, left - give
    return new, left


def _round_robin(strata: Sequence[Stratum], new: dict[str, int], left: int) -> int:
    """Deal ``left`` more labels one per generation in turn, as far as each one's items allow; the rest."""
    while left > 0 and any(s.labelled + new[s.key] < s.items for s in strata):
        for s in strata:
            if left and s.labelled + new[s.key] < s.items:
                new[s.key] += 1
                left -= 1
    return left


def equal(strata: Sequence[Stratum], budget: int) -> Plan:
    """The same number of new labels for every generation (as far as its items allow): the comparison."""
    _check(strata, budget)
    new = dict.fromkeys((s.key for s in strata), 0)
    _round_robin(strata, new, budget)
    return _plan(strata, new, "equal", ["equal allocation"])


def _gain(stratum: Stratum, n: int) -> float:
    """How much one more label lowers the squared half-width at n labels."""
    if n <= 2:
        return math.inf
    spread = stratum.spread or 0.0
    return half_width(spread, n, stratum.items) ** 2 - half_width(spread, n + 1, stratum.items) ** 2


def _check(strata: Sequence[Stratum], budget: int) -> None:
    if budget < 0:
        raise ValueError(f"the number of labels must be 0 or more, got {budget}")
    empty = [s.key for s in strata if s.items <= 0]
    if empty:
        raise ValueError(f"generation(s) {', '.join(empty)} have no items to label")
    keys = [s.key for s in strata]
    if len(set(keys)) != len(keys):
        raise ValueError("a generation is named twice")


def _plan(strata: Sequence[Stratum], new: dict[str, int], kind: str, notes: list[str]) -> Plan:
    shares = tuple(
        Share(
            s.key,
            s.items,
            s.labelled,
            new[s.key],
            s.spread,
            None
            if s.spread is None or s.labelled + new[s.key] <= 2
            else width(s.spread, s.labelled + new[s.key], s.items),
        )
        for s in strata
    )
    known = all(s.spread is not None for s in strata)
    objective = (
        sum(half_width(s.spread or 0.0, s.labelled + new[s.key], s.items) ** 2 for s in strata)
        if known
        else None
    )
    return Plan(shares, kind, objective, tuple(notes))


def plan_lines(plan: Plan, labels: dict[str, str] | None = None) -> list[str]:
    """The plan as lines for a terminal: one per generation, then the objective and the notes.

    Args:
        plan: The plan.
        labels: A readable name per generation key (``MODEL PROMPT``), if any.

    Returns:
        The lines (no trailing newline).
    """
    names = labels or {}
    rows = [("generation", "items", "labelled", "new", "total", "spread S", "predicted printed 95 % width")]
    for share in plan.shares:
        rows.append(
            (
                f"{share.key} {names.get(share.key, '')}".strip(),
                str(share.items),
                str(share.labelled),
                str(share.new),
                str(share.total),
                "" if share.spread is None else f"{share.spread:.3f}",
                "" if share.width is None else f"{share.width:.3f}",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() for row in rows
    ]
    lines.append(f"{plan.new} new label(s) ({plan.kind})")
    if plan.objective is not None:
        lines.append(
            f"objective, {OBJECTIVE}: {plan.objective:.5f}; mean expected width {plan.mean_width:.3f}"
        )
    below = [s.key for s in plan.shares if 0 < s.total < MIN_PER_GENERATION and s.total < s.items]
    if below:
        lines.append(
            f"fewer than {MIN_PER_GENERATION} labels (no interval for their corrected mean): {', '.join(below)}"
        )
    lines.extend(plan.notes)
    return lines
