"""What spreading labels by the residual spread saves against equal allocation (``report.allocation``).

Simulated folders of eight generations of 1,636 items each. A generation's human and judge scores
are planted so that the residual ``human - lam * judge`` has a chosen spread ``S``. Equal
allocation gives every generation 200 labels (1,600 in all). The planner's design is the one
``vivid annotate serve`` runs: a first batch of ``MIN_PER_GENERATION`` uniform labels on every
generation, ``S`` estimated from it (``ppi.residual_spread``), the rest by ``allocation.allocate``.
Both are scored on the same objective (``allocation.OBJECTIVE``: the sum of the generations'
variances, computed with the true ``S``). The saving is the share of the 1,600 labels the planner
does not need to do as well as equal allocation: the fewest labels whose two-phase plan reaches the
equal plan's objective, found per simulated first batch (and, for reference, with ``S`` known).
The corrected intervals of the two-phase design are also checked for coverage: the second batch
depends on the first, so its validity is measured, not assumed.

- near-constant: six generations with ``S`` about 1, two with ``S`` about 0.05 (models whose
  explanations humans and judge score alike, item for item: a saving of at least 20 % expected);
- paper-like: eight models with spreads from 0.3 to 1.5 (the saving is smaller).
"""

from __future__ import annotations

import numpy as np
from coverage_common import CoverageTable
from planted_scores import Tally

from vivid_inspect.lab.report.allocation import (
    MIN_PER_GENERATION,
    OBJECTIVE,
    Stratum,
    allocate,
    equal,
    labels_needed,
)
from vivid_inspect.lab.report.corrected import corrected_cell
from vivid_inspect.lab.report.ppi import residual_spread

REPS = 300
QUICK_REPS = 20
ITEMS = 1636
PER_GENERATION = 200
FOLDERS: dict[str, tuple[float, ...]] = {
    "two of eight near-constant": (0.8, 0.9, 1.0, 1.0, 1.1, 1.2, 0.05, 0.05),
    "paper-like (spreads 0.3-1.5)": tuple(float(s) for s in np.linspace(0.3, 1.5, 8)),
}


def planted(rng: np.random.Generator, spread: float) -> tuple[np.ndarray, np.ndarray]:
    """Human and judge scores of one generation whose residual human - judge has about this spread.

    The human score is the judge's plus a shift independent of it, so the slope lam is about 1 and
    the residual is the shift; the humans' scale extends past 0-5 here so that clipping does not
    shrink the planted spread (only the spread matters to the allocation).
    """
    judge = rng.choice(6, size=ITEMS, p=[0.05, 0.10, 0.20, 0.30, 0.20, 0.15]).astype(float)
    ones, twos = (spread**2 / 2, 0.0) if spread <= 1 else (0.25, (spread**2 - 0.5) / 8)
    shift = rng.choice([-2, -1, 0, 1, 2], size=ITEMS, p=[twos, ones, 1 - 2 * (ones + twos), ones, twos])
    return judge - 0.5 + shift, judge


def run(reps: int, quick: bool, seed: int) -> list[CoverageTable]:
    """Per folder: the planned and the equal design's objective and widths, the saving, coverage."""
    rng = np.random.default_rng(seed)
    summary = CoverageTable(
        f"Two-phase Neyman allocation against equal allocation (8 generations x {ITEMS} items; objective: {OBJECTIVE})",
        [
            "folder",
            "true S per generation",
            "equal: labels",
            "equal: mean width",
            "planned at 1,600: mean width",
            "labels to match equal (median, 5-95 %)",
            "saving (median)",
            "saving with S known",
            "corrected coverage (two-phase)",
        ],
    )
    for name, spreads in FOLDERS.items():
        generations = [planted(np.random.default_rng(int(rng.integers(2**31))), s) for s in spreads]
        true_s = [residual_spread(h, j) or 0.0 for h, j in generations]
        budget = PER_GENERATION * len(spreads)
        known = [Stratum(f"g{i}", ITEMS, spread=s) for i, s in enumerate(true_s)]
        plain = equal(known, budget)
        target = plain.objective or 0.0
        oracle = labels_needed(known, target) or budget
        needed, widths, tally = [], [], Tally()
        for _ in range(reps):
            firsts = [rng.choice(ITEMS, size=MIN_PER_GENERATION, replace=False) for _ in generations]
            estimated = [
                Stratum(f"g{i}", ITEMS, MIN_PER_GENERATION, residual_spread(h[f], j[f]) or 0.0)
                for i, ((h, j), f) in enumerate(zip(generations, firsts, strict=True))
            ]
            first_total = MIN_PER_GENERATION * len(spreads)

            def realised(
                total: int,
                strata: list[Stratum] = estimated,
                first: int = first_total,
                truth: list[Stratum] = known,
            ) -> float:
                plan = allocate(strata, total - first)
                return sum(
                    (s.spread or 0) ** 2 * (1 / share.total - 1 / ITEMS)
                    for s, share in zip(truth, plan.shares, strict=True)
                )

            low, high = first_total, budget * 2
            while low < high:  # the plans are nested: the realised objective falls as the total grows
                middle = (low + high) // 2
                low, high = (low, middle) if realised(middle) <= target else (middle + 1, high)
            needed.append(low)
            plan = allocate(estimated, budget - first_total)
            widths.append(
                np.mean(
                    [
                        2 * 1.959964 * s.spread * np.sqrt(1 / p.total - 1 / ITEMS)
                        for s, p in zip(known, plan.shares, strict=True)
                    ]
                )
            )
            for (h, j), f, share in zip(generations, firsts, plan.shares, strict=True):
                rest = np.setdiff1d(np.arange(ITEMS), f)
                second = rng.choice(rest, size=share.new, replace=False)
                chosen = np.concatenate([f, second])
                cell = corrected_cell(dict(enumerate(j.tolist())), {int(i): float(h[i]) for i in chosen})
                tally.add(cell.corrected.estimate, cell.corrected.lo, cell.corrected.hi, float(h.mean()))
        labels = np.array(needed)
        summary.rows.append(
            [
                name,
                ", ".join(f"{s:.2f}" for s in true_s),
                budget,
                plain.mean_width,
                float(np.mean(widths)),
                f"{int(np.median(labels))} ({int(np.percentile(labels, 5))}-{int(np.percentile(labels, 95))})",
                f"{1 - np.median(labels) / budget:.1%}",
                f"{1 - oracle / budget:.1%}",
                f"{tally.coverage:.3f} ({tally.printed} intervals)",
            ]
        )
    summary.notes.extend(
        [
            f"two-phase: a first batch of {MIN_PER_GENERATION} uniform labels per generation, S estimated from it, the "
            "rest by allocation.allocate; the objective and widths are computed with the true S",
            "labels to match equal: the fewest labels (first batch included) whose two-phase plan's objective is at most "
            "the equal plan's, per simulated first batch; saving = 1 - that / 1,600",
            "S known: allocation.labels_needed with the true spreads (the best any plan can do)",
            "coverage: every generation's corrected interval after the second batch, against its true human mean",
        ]
    )
    return [summary]
