"""Coverage of the report's kappa intervals (``intervals.kappa_interval``), unweighted and quadratic.

Planted: joint tables of a human and a judge score whose unweighted kappa is 0.2, 0.5, 0.7, 0.84
or 0.95 (:func:`planted_scores.joint_with_kappa`), on five human score distributions like real
ones (the paper's, a weak model's mostly zeros, a spread middle, scores piled on 4-5, bimodal)
and three ways of disagreeing (off by one, lenient, wide); the quadratic-weighted kappa of each
table is its own planted value. A draw where a side gives a single score has no kappa (the
report prints none) and is not counted. Judge-against-judge agreement (``judge_pairs``) prints
the same interval.
"""

from __future__ import annotations

import numpy as np
from coverage_common import CoverageTable
from planted_scores import (
    MARGINS,
    NOISE,
    NS,
    ROW_COLUMNS,
    Tally,
    draw_pairs,
    joint_with_kappa,
    kappa_of,
    record,
    threshold_table,
)

from vivid_inspect.lab.report.intervals import RULES, kappa_interval

REPS = 1000
QUICK_REPS = 60
KAPPAS = (0.2, 0.5, 0.7, 0.84, 0.95)
# Every margin with the ordinal noise; the other noises on two margins, to keep the run short.
DESIGNS: tuple[tuple[str, str], ...] = (
    *((margin, "off by one") for margin in MARGINS),
    ("aspect-like", "lenient"),
    ("middle", "lenient"),
    ("bimodal", "wide"),
    ("middle", "wide"),
)


def run(reps: int, quick: bool, seed: int) -> list[CoverageTable]:
    """Coverage of both kappa intervals over every planted table and n."""
    rng = np.random.default_rng(seed)
    ns = (5, 10, 50) if quick else NS
    designs = DESIGNS[:2] if quick else DESIGNS
    columns = ["human scores", "judge noise", "planted kappa", "n", *ROW_COLUMNS]
    tables = {
        weights: CoverageTable(f"{title}: {RULES[statistic].method}", columns)
        for weights, statistic, title in (
            ("unweighted", "kappa", "Cohen's kappa"),
            ("quadratic", "weighted_kappa", "Quadratic-weighted kappa"),
        )
    }
    worst: dict[str, dict[int, Tally]] = {"kappa": {}, "weighted_kappa": {}}
    for margin, noise in designs:
        for planted in KAPPAS:
            joint = joint_with_kappa(MARGINS[margin], NOISE[noise], planted)
            if joint is None:
                continue
            truth = {weights: kappa_of(joint, weights) for weights in tables}
            for n in ns:
                tallies = {weights: Tally() for weights in tables}
                first, second = draw_pairs(joint, n, reps, rng)
                for a, b in zip(first, second, strict=True):
                    for weights, tally in tallies.items():
                        interval = kappa_interval(a, b, weights=weights, min_n=2)
                        tally.add(interval.estimate, interval.lo, interval.hi, truth[weights])
                for (weights, tally), statistic in zip(tallies.items(), worst, strict=True):
                    tables[weights].rows.append(tally.row(margin, noise, round(truth[weights], 3), n))
                    record(worst[statistic], n, tally)
    for table in tables.values():
        table.notes.append("draws where a side gave a single score have no kappa and are not counted as made")
    return [*tables.values(), threshold_table(worst, quick=quick)]
