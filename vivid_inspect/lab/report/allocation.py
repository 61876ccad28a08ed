"""How many human labels each generation gets, so that the corrected means are as precise as they can be.

The corrected (prediction-powered) mean of a generation with ``N`` items, ``n`` of them labelled,
has variance ``V(n) = S^2 (1/n - 1/N)``, where ``S`` is the spread (standard deviation) of the
residual ``human - lam * judge`` over its items (:mod:`vivid_inspect.lab.report.ppi`). Labels are worth
most where ``S`` is large: a generation on which the judge is right, or wrong by the same amount,
on every item needs few.

**Objective**: the sum of the generations' variances ``sum_g V_g(n_g)`` for a given number of
labels. It is the mean variance of the difference between two generations' corrected means (each
pair's is ``V_a + V_b``; the sum over pairs is ``(G - 1) sum_g V_g``), which is what a reader of a
ranking of models compares, and the mean squared half-width of their intervals. Minimising it
under ``sum_g n_g = n`` (Lagrange: ``S_g^2 / n_g^2`` equal for every g; the ``-S^2/N`` term does
not depend on ``n_g``) gives Neyman's allocation ``n_g ∝ S_g``. (The mean of the interval widths,
``sum_g S_g / sqrt(n_g)``, would give ``n_g ∝ S_g^(2/3)``: it spends more on the near-constant
generations, whose widths are already small.)

With whole labels, a minimum per generation (:data:`MIN_PER_GENERATION`, so that every corrected
mean is printed with an interval) and no more labels than items, the allocation is made one label at
a time, each to the generation whose variance it lowers most (``S^2 / (n (n + 1))``): for a sum of
convex decreasing terms this greedy order is optimal for every total, and it reduces to
``n_g ∝ S_g`` when neither bound binds.

``S_g`` is not known before labelling: it is estimated from a first batch of labels on every
generation (:func:`first_batch`); the rest of the labels follow the estimate (:func:`allocate`).
Within a generation the labelled items are still a uniform draw, which the corrected mean needs.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass

from vivid_inspect.lab.report.intervals import RULES, Z95

MIN_PER_GENERATION = RULES["corrected_mean"].min_n
"""Fewest labels a generation is planned: the n from which its corrected mean gets an interval."""
OBJECTIVE = (
    "the sum of the generations' variances (the mean variance of a difference between two generations)"
)


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
        kind: ``"neyman"`` (by the residual spreads) or ``"first batch"`` (equal, to estimate them).
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
        widths = [share.width for share in self.shares]
        if not widths or any(w is None for w in widths):
            return None
        return sum(w for w in widths if w is not None) / len(widths)


def variance(spread: float, n: int, items: int) -> float:
    """The corrected mean's variance with ``n`` of ``items`` labelled: ``S^2 (1/n - 1/N)`` (inf for n = 0)."""
    if n <= 0:
        return math.inf
    return spread**2 * max(1 / n - 1 / items, 0.0)


def width(spread: float, n: int, items: int) -> float:
    """The expected width of the 95 % corrected interval (normal quantile): ``2 z sqrt(V)``."""
    return 2 * Z95 * math.sqrt(variance(spread, n, items))


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
    wanted = {s.key: max(min(minimum, s.items) - s.labelled, 0) for s in strata}
    new = dict.fromkeys(wanted, 0)
    left = budget
    while left > 0 and any(new[k] < wanted[k] for k in wanted):
        for key in wanted:  # round robin: a short budget is shared evenly
            if left and new[key] < wanted[key]:
                new[key] += 1
                left -= 1
    notes = [f"first batch: up to {minimum} labels per generation to estimate the spread of human - judge"]
    if left:
        notes.append(
            f"{left} label(s) left for the next round, allocated by the spreads the first batch shows"
        )
    return _plan(strata, new, "first batch", notes)


def allocate(strata: Sequence[Stratum], budget: int, *, minimum: int = MIN_PER_GENERATION) -> Plan:
    """Neyman allocation of ``budget`` new labels by the generations' residual spreads.

    Args:
        strata: The generations, each with its estimated ``spread``.
        budget: New labels this round.
        minimum: Fewest labels (old and new) a generation ends with, when it has that many items.

    Returns:
        The plan that minimises :data:`OBJECTIVE` for this many labels.

    Raises:
        ValueError: A generation without a spread, a negative budget, or a generation without items.
    """
    _check(strata, budget)
    unknown = [s.key for s in strata if s.spread is None]
    if unknown:
        raise ValueError(
            f"no spread for generation(s) {', '.join(unknown)}: label a first batch of them first"
        )
    new = dict.fromkeys((s.key for s in strata), 0)
    left = budget
    for s in strata:  # the minimum first, as far as the budget goes
        give = min(max(min(minimum, s.items) - s.labelled, 0), left)
        new[s.key], left = give, left - give
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
    notes = [
        f"Neyman allocation: labels in proportion to the spread of human - judge; objective: {OBJECTIVE}"
    ]
    if left:
        notes.append(f"{left} label(s) unused: every item of every generation is labelled")
    return _plan(strata, new, "neyman", notes)


def equal(strata: Sequence[Stratum], budget: int) -> Plan:
    """The same number of new labels for every generation (as far as its items allow): the comparison."""
    _check(strata, budget)
    new = dict.fromkeys((s.key for s in strata), 0)
    left = budget
    while left > 0 and any(s.labelled + new[s.key] < s.items for s in strata):
        for s in strata:
            if left and s.labelled + new[s.key] < s.items:
                new[s.key] += 1
                left -= 1
    return _plan(strata, new, "equal", ["equal allocation"])


def labels_needed(
    strata: Sequence[Stratum], target: float, *, minimum: int = MIN_PER_GENERATION
) -> int | None:
    """The fewest new labels whose Neyman allocation reaches an objective of ``target`` or less.

    Args:
        strata: The generations, each with its spread.
        target: The sum of variances to reach.
        minimum: As in :func:`allocate`.

    Returns:
        The number of labels, or None when even labelling every item does not reach it.
    """
    room = sum(s.items - s.labelled for s in strata)
    if allocate(strata, room, minimum=minimum).objective > target:  # type: ignore[operator]
        return None
    low, high = 0, room  # the greedy plans are nested, so the objective falls as the budget grows
    while low < high:
        middle = (low + high) // 2
        objective = allocate(strata, middle, minimum=minimum).objective
        if objective is not None and objective <= target:
            high = middle
        else:
            low = middle + 1
    return low


def _gain(stratum: Stratum, n: int) -> float:
    """How much one more label lowers the variance at n labels: S^2 (1/n - 1/(n+1))."""
    spread = stratum.spread or 0.0
    return math.inf if n == 0 else spread**2 / (n * (n + 1))


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
            if s.spread is None or s.labelled + new[s.key] == 0
            else width(s.spread, s.labelled + new[s.key], s.items),
        )
        for s in strata
    )
    known = all(s.spread is not None for s in strata)
    objective = (
        sum(variance(s.spread or 0.0, s.labelled + new[s.key], s.items) for s in strata) if known else None
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
    rows = [("generation", "items", "labelled", "new", "total", "spread S", "expected 95 % width")]
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
