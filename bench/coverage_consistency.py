"""Coverage of the self-consistency kappa interval (``consistency.py``: a judge run k times).

Planted: a latent quality per item and k = 2 or 3 runs of one judge that each give it exactly
with probability ``exact`` and are otherwise off by one (at temperature 0 a judge repeats itself
most of the time: exact 0.9 and 0.97 are planted beside 0.6); the planted value is the kappa of
two runs' population joint table, the same for every pair. Each draw goes through
``intervals.mean_kappa_interval``, which ``self_consistency`` prints.
"""

from __future__ import annotations

import itertools

import numpy as np
from coverage_common import CoverageTable
from planted_scores import (
    MARGINS,
    NOISE,
    NS,
    ROW_COLUMNS,
    Rater,
    Tally,
    draw_raters,
    kappa_of,
    latent_joint,
    record,
    threshold_table,
)

from vivid_inspect.lab.report.intervals import RULES, mean_kappa_interval

REPS = 1000
QUICK_REPS = 60
EXACT = (0.6, 0.9, 0.97)


def run(reps: int, quick: bool, seed: int) -> list[CoverageTable]:
    """Coverage of the mean pairwise run kappa interval over runs, exactness, margins and n."""
    rng = np.random.default_rng(seed)
    ns = (5, 10, 50) if quick else NS
    table = CoverageTable(
        f"Self-consistency kappa: {RULES['self_consistency_kappa'].method}",
        ["runs", "human-like scores", "exact per run", "planted kappa", "n", *ROW_COLUMNS],
    )
    worst: dict[str, dict[int, Tally]] = {"self_consistency_kappa": {}}
    for runs in (2, 3):
        for margin in ("aspect-like", "weak model", "top-heavy"):
            for exact in EXACT:
                rater = Rater(exact, NOISE["off by one"])
                truth = kappa_of(latent_joint(MARGINS[margin], rater, rater), "unweighted")
                for n in ns:
                    tally = Tally()
                    scores = draw_raters(MARGINS[margin], [rater] * runs, n, reps, rng)
                    for r in range(reps):
                        pairs = [
                            (scores[p][r], scores[q][r]) for p, q in itertools.combinations(range(runs), 2)
                        ]
                        interval = mean_kappa_interval(pairs, statistic="self_consistency_kappa", min_n=2)
                        tally.add(interval.estimate, interval.lo, interval.hi, truth)
                    table.rows.append(tally.row(runs, margin, exact, round(truth, 3), n))
                    record(worst["self_consistency_kappa"], n, tally)
    return [table, threshold_table(worst, quick=quick)]
