"""Coverage of the per-annotator kappa interval (``raters.py``: each annotator a rater against the judge).

Planted, on every shape of :mod:`coverage_grid`: the difficulty model (a latent quality and a
difficulty per item, seen by two or three annotators and the judge, whose errors follow the item
on hard items); the planted value is the mean over annotators of each annotator's population
kappa with the judge, computed exactly. Designs: annotators on disjoint items (the paper's 150
each, cut to n), all annotators on the same items, and three annotators on disjoint items. n is
the items per annotator. Each draw goes through ``intervals.mean_kappa_intervals``, the batch form
of ``mean_kappa_interval`` that ``rater_agreement`` prints.
"""

from __future__ import annotations

import numpy as np
from coverage_common import CoverageTable
from coverage_grid import ROW_COLUMNS, Cell, Skill, Worst, confusions, draw, joint_of, ns_of, shapes_of
from planted_scores import kappa_of

from vivid_inspect.lab.report.stats.intervals import RULES, mean_kappa_intervals

REPS = 2000
QUICK_REPS = 60

JUDGES = {"good judge": Skill(0.85, 0.4), "weak judge": Skill(0.6, 0.2)}
ANNOTATORS = (Skill(0.95, 0.7), Skill(0.85, 0.5), Skill(0.9, 0.6))
DESIGNS = {
    "2 annotators, disjoint items": (2, False),
    "2 annotators, same items": (2, True),
    "3 annotators, disjoint items": (3, False),
}


def run(reps: int, quick: bool, seed: int) -> list[CoverageTable]:
    """Coverage of the mean per-annotator kappa interval over every design, shape, judge and n."""
    rng = np.random.default_rng(seed)
    table = CoverageTable(
        f"Mean per-annotator kappa: {RULES['kappa_per_annotator'].method}",
        ["design", "human scores", "judge", "planted mean kappa", "n per annotator", *ROW_COLUMNS],
    )
    worst = Worst()
    for design, (count, shared) in DESIGNS.items():
        people = ANNOTATORS[:count]
        for shape, margin in shapes_of(quick).items():
            for judge_name, judge in JUDGES.items():
                truth = float(np.mean([kappa_of(joint_of(margin, [a, judge]), "unweighted") for a in people]))
                for n in ns_of(quick):
                    if shared:
                        *scores, judged = draw(margin, [*people, judge], n, reps, rng)
                        tables = [confusions(s, judged) for s in scores]
                    else:
                        tables = [confusions(*draw(margin, [a, judge], n, reps, rng)) for a in people]
                    estimate, lo, hi, _ = mean_kappa_intervals(
                        tables, statistic="kappa_per_annotator", min_n=2
                    )
                    cell = Cell(estimate, lo, hi, truth)
                    table.rows.append(cell.row(design, shape, judge_name, round(truth, 3), n))
                    worst.add("kappa_per_annotator", n, cell, f"{design}, {shape}, {judge_name}")
    table.notes.append(
        "a draw where an annotator's or the judge's scores are a single value leaves that annotator out of "
        "the mean, as the report does; the planted value is still the mean over all annotators"
    )
    return [table, worst.table(quick=quick)]
