"""Coverage of the self-consistency kappa interval (``consistency.py``: a judge run k times).

Planted, on every shape of :mod:`coverage_grid`: k = 2 or 3 runs of one judge in the difficulty
model (each run exact with its own probability on easy and hard items, wrong in the item's
direction otherwise; at temperature 0 a judge repeats itself most of the time, so near-exact runs
are planted beside a noisy one); the planted value is the kappa of two runs' population joint
table, the same for every pair. Each draw goes through ``intervals.mean_kappa_intervals``, the
batch form of ``mean_kappa_interval`` that ``self_consistency`` prints.
"""

from __future__ import annotations

import itertools

import numpy as np
from coverage_common import CoverageTable
from coverage_grid import ROW_COLUMNS, Cell, Skill, Worst, confusions, draw, joint_of, ns_of, shapes_of
from planted_scores import kappa_of

from vivid_inspect.lab.report.stats.intervals import RULES, mean_kappa_intervals

REPS = 2000
QUICK_REPS = 60
RUNS = {
    "noisy (0.6 / 0.3)": Skill(0.6, 0.3),
    "steady (0.9 / 0.7)": Skill(0.9, 0.7),
    "near-exact (0.97 / 0.9)": Skill(0.97, 0.9),
}


def run(reps: int, quick: bool, seed: int) -> list[CoverageTable]:
    """Coverage of the mean pairwise run kappa interval over runs, exactness, shapes and n."""
    rng = np.random.default_rng(seed)
    table = CoverageTable(
        f"Self-consistency kappa: {RULES['self_consistency_kappa'].method}",
        ["runs", "scores", "exact per run (easy / hard)", "planted kappa", "n", *ROW_COLUMNS],
    )
    worst = Worst()
    for runs in (2, 3):
        for shape, margin in shapes_of(quick).items():
            for name, rater in RUNS.items():
                truth = kappa_of(joint_of(margin, [rater, rater]), "unweighted")
                for n in ns_of(quick):
                    scores = draw(margin, [rater] * runs, n, reps, rng)
                    tables = [
                        confusions(scores[p], scores[q]) for p, q in itertools.combinations(range(runs), 2)
                    ]
                    estimate, lo, hi, _ = mean_kappa_intervals(
                        tables, statistic="self_consistency_kappa", min_n=2
                    )
                    cell = Cell(estimate, lo, hi, truth)
                    table.rows.append(cell.row(runs, shape, name, round(truth, 3), n))
                    worst.add("self_consistency_kappa", n, cell, f"{runs} runs, {shape}, {name}")
    return [table, worst.table(quick=quick)]
