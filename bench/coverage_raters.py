"""Coverage of the per-annotator kappa interval (``raters.py``: each annotator a rater against the judge).

Planted: a latent quality per item seen by two or three annotators and the judge
(:func:`planted_scores.latent_model`), each exact with its own probability and otherwise off by
one or lenient; the planted value is the mean over annotators of each annotator's population
kappa with the judge, computed exactly. Designs: annotators on disjoint items (the paper's
150 each, cut to n), all annotators on the same items, and three annotators on disjoint items.
n is the items per annotator. Each draw goes through ``intervals.mean_kappa_interval``, the
function ``rater_agreement`` prints.
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

from vivid_inspect.lab.report.intervals import RULES, mean_kappa_interval

REPS = 1000
QUICK_REPS = 60

JUDGES = {"judge exact 0.6": Rater(0.6, NOISE["off by one"]), "judge exact 0.9": Rater(0.9, NOISE["lenient"])}
ANNOTATORS = (Rater(0.95, NOISE["off by one"]), Rater(0.8, NOISE["off by one"]), Rater(0.9, NOISE["lenient"]))
DESIGNS = {
    "2 annotators, disjoint items": (2, False),
    "2 annotators, same items": (2, True),
    "3 annotators, disjoint items": (3, False),
}


def run(reps: int, quick: bool, seed: int) -> list[CoverageTable]:
    """Coverage of the mean per-annotator kappa interval over every design, judge and n."""
    rng = np.random.default_rng(seed)
    ns = (5, 12, 50) if quick else NS
    margins = ("aspect-like",) if quick else ("aspect-like", "weak model")
    table = CoverageTable(
        f"Mean per-annotator kappa: {RULES['kappa_per_annotator'].method}",
        ["design", "human scores", "judge", "planted mean kappa", "n per annotator", *ROW_COLUMNS],
    )
    worst: dict[str, dict[int, Tally]] = {"kappa_per_annotator": {}}
    for design, (count, shared) in DESIGNS.items():
        people = ANNOTATORS[:count]
        for margin in margins:
            for judge_name, judge in JUDGES.items():
                truth = float(
                    np.mean([kappa_of(latent_joint(MARGINS[margin], a, judge), "unweighted") for a in people])
                )
                for n in ns:
                    tally = Tally()
                    if shared:
                        *scores, judged = draw_raters(MARGINS[margin], [*people, judge], n, reps, rng)
                        samples = [[(s[r], judged[r]) for s in scores] for r in range(reps)]
                    else:
                        drawn = [draw_raters(MARGINS[margin], [a, judge], n, reps, rng) for a in people]
                        samples = [[(s[r], j[r]) for s, j in drawn] for r in range(reps)]
                    for pairs in samples:
                        interval = mean_kappa_interval(pairs, statistic="kappa_per_annotator", min_n=2)
                        tally.add(interval.estimate, interval.lo, interval.hi, truth)
                    table.rows.append(tally.row(design, margin, judge_name, round(truth, 3), n))
                    record(worst["kappa_per_annotator"], n, tally)
    table.notes.append(
        "a draw where an annotator's or the judge's scores are a single value leaves that annotator out of "
        "the mean, as the report does; the planted value is still the mean over all annotators"
    )
    return [table, threshold_table(worst, quick=quick)]
