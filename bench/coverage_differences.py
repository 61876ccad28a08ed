"""Coverage of the strategy-difference kappa interval (``judge_pairs.judge_differences``).

Planted, on every shape of :mod:`coverage_grid`: the difficulty model, a human and two judges who
see each item's quality through their own skill, their errors following the item on hard items;
the planted value is kappa(human, A) minus kappa(human, B) from the exact joint tables. Pairs of
judges: a better and a worse one, two equally good ones (a difference of 0, the case a reader most
wants to get right), and two near-perfect ones. Each draw goes through
``intervals.kappa_difference_intervals``, the batch form of ``kappa_difference_interval``, which
``paired_difference`` prints. The mean difference
printed beside it is the ``means`` section's paired difference.
"""

from __future__ import annotations

import numpy as np
from coverage_common import CoverageTable
from coverage_grid import ROW_COLUMNS, Cell, Skill, Worst, draw, joint_of, ns_of, shapes_of
from planted_scores import kappa_of

from vivid_inspect.lab.report.stats.intervals import RULES, kappa_difference_intervals

REPS = 2000
QUICK_REPS = 60
HUMAN = Skill(0.95, 0.7)
PAIRS = {
    "better vs worse": (Skill(0.9, 0.6), Skill(0.6, 0.2)),
    "equal": (Skill(0.75, 0.4), Skill(0.75, 0.4, against=0.4)),
    "near-perfect": (Skill(0.98, 0.9), Skill(0.95, 0.8)),
}


def run(reps: int, quick: bool, seed: int) -> list[CoverageTable]:
    """Coverage of the paired kappa-difference interval over judge pairs, shapes and n."""
    rng = np.random.default_rng(seed)
    table = CoverageTable(
        f"Kappa of judge A minus judge B with the humans: {RULES['kappa_difference'].method}",
        ["judges", "human scores", "planted difference", "n", *ROW_COLUMNS],
    )
    worst = Worst()
    for name, (a, b) in PAIRS.items():
        for shape, margin in shapes_of(quick).items():
            truth = kappa_of(joint_of(margin, [HUMAN, a]), "unweighted") - kappa_of(
                joint_of(margin, [HUMAN, b]), "unweighted"
            )
            for n in ns_of(quick):
                human, first, second = draw(margin, [HUMAN, a, b], n, reps, rng)
                cell = Cell(*kappa_difference_intervals(human, first, second, min_n=2), truth)
                table.rows.append(cell.row(name, shape, round(truth, 3), n))
                worst.add("kappa_difference", n, cell, f"{name}, {shape}")
    table.notes.append(
        "no interval is made when a leave-one-out kappa is undefined or the two judges agree item for item"
    )
    return [table, worst.table(quick=quick)]
