"""Coverage of the strategy-difference kappa interval (``judge_pairs.judge_differences``).

Planted: a latent quality per item, a human and two judges who see it through their own noise
(:class:`planted_scores.Rater`); the planted value is kappa(human, A) minus kappa(human, B) from
the exact joint tables. Pairs of judges: a better and a worse one, two equally good ones (a
difference of 0, the case a reader most wants to get right), and two near-perfect ones. Each
draw goes through ``intervals.kappa_difference_interval``, which ``paired_difference`` prints.
The mean difference printed beside it is the ``means`` section's paired difference.
"""

from __future__ import annotations

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

from vivid_inspect.lab.report.intervals import RULES, kappa_difference_interval

REPS = 2000
"""More than the other sections: the draws are cheap, and the worst of 27 planted values is noisy."""
QUICK_REPS = 60
HUMAN = Rater(0.9, NOISE["off by one"])
PAIRS = {
    "better (0.9) vs worse (0.6)": (Rater(0.9, NOISE["lenient"]), Rater(0.6, NOISE["off by one"])),
    "equal (0.75 vs 0.75)": (Rater(0.75, NOISE["off by one"]), Rater(0.75, NOISE["lenient"])),
    "near-perfect (0.98 vs 0.95)": (Rater(0.98, NOISE["off by one"]), Rater(0.95, NOISE["off by one"])),
}


def run(reps: int, quick: bool, seed: int) -> list[CoverageTable]:
    """Coverage of the paired kappa-difference interval over judge pairs, margins and n."""
    rng = np.random.default_rng(seed)
    ns = (5, 10, 50) if quick else NS
    table = CoverageTable(
        f"Kappa of judge A minus judge B with the humans: {RULES['kappa_difference'].method}",
        ["judges", "human scores", "planted difference", "n", *ROW_COLUMNS],
    )
    worst: dict[str, dict[int, Tally]] = {"kappa_difference": {}}
    for name, (a, b) in PAIRS.items():
        for margin in ("aspect-like", "weak model", "middle"):
            truth = kappa_of(latent_joint(MARGINS[margin], HUMAN, a), "unweighted") - kappa_of(
                latent_joint(MARGINS[margin], HUMAN, b), "unweighted"
            )
            for n in ns:
                tally = Tally()
                human, first, second = draw_raters(MARGINS[margin], [HUMAN, a, b], n, reps, rng)
                for h, x, y in zip(human, first, second, strict=True):
                    interval = kappa_difference_interval(h, x, y, min_n=2)
                    tally.add(interval.estimate, interval.lo, interval.hi, truth)
                table.rows.append(tally.row(name, margin, round(truth, 3), n))
                record(worst["kappa_difference"], n, tally)
    table.notes.append(
        "no interval is made when a leave-one-out kappa is undefined or the two judges agree item for item"
    )
    return [table, threshold_table(worst, quick=quick)]
