"""How often the alternative annotator test passes a judge, by how good the judge is and by the design.

Planted: a latent quality per item (the paper's human score distribution), each annotator its
quality plus rounded normal noise (sd 0.9, about the agreement of two careful annotators), the
judge the same with a noise of its own: none (the annotators' consensus, rounded: should pass), as
much as an annotator's, twice as much, or a random score (should fail). Every annotator scores
every item. Each draw goes through ``alt_test.alt_test`` with epsilon 0.2 (experts, the default);
the table gives the pass rate (``omega >= 0.5``) with its Wilson interval and the mean omega and
rho, for 2, 3 and 5 annotators and 10 to 100 shared items: the authors' advice (3 or more
annotators, 30 or more items) is where a good judge passes reliably and a poor one does not.
"""

from __future__ import annotations

import numpy as np
from coverage_common import CoverageTable, wilson

from vivid_inspect.lab.report.alt_test import DEFAULT_EPSILON, alt_test

REPS = 400
QUICK_REPS = 30
QUALITY = (0.05, 0.10, 0.15, 0.25, 0.25, 0.20)
ANNOTATOR_NOISE = 0.9
JUDGES: dict[str, float | None] = {
    "consensus of the annotators": 0.0,
    "as noisy as an annotator": ANNOTATOR_NOISE,
    "twice as noisy": 2 * ANNOTATOR_NOISE,
    "random scores": None,
}


def run(reps: int, quick: bool, seed: int) -> list[CoverageTable]:
    """Pass rates over judges x annotators x items."""
    rng = np.random.default_rng(seed)
    items_grid = (10, 30, 100) if quick else (10, 20, 30, 50, 100)
    table = CoverageTable(
        f"Alternative annotator test at epsilon {DEFAULT_EPSILON}: pass rate by judge, annotators and shared items",
        [
            "judge",
            "annotators",
            "items",
            "passed / draws",
            "pass rate",
            "pass rate 95 % CI",
            "mean omega",
            "mean rho",
        ],
    )
    for name, noise in JUDGES.items():
        for annotators in (2, 3, 5):
            for items in items_grid:
                passed, omegas, rhos = 0, [], []
                for _ in range(reps):
                    quality = rng.choice(6, size=items, p=QUALITY)
                    humans = {
                        f"a{k}": np.clip(np.rint(quality + rng.normal(0, ANNOTATOR_NOISE, items)), 0, 5)
                        for k in range(annotators)
                    }
                    if noise is None:
                        judge = rng.integers(0, 6, size=items).astype(float)
                    elif noise == 0:
                        judge = np.rint(np.mean(list(humans.values()), axis=0))
                    else:
                        judge = np.clip(np.rint(quality + rng.normal(0, noise, items)), 0, 5)
                    result = alt_test(
                        dict(enumerate(judge)),
                        {a: dict(enumerate(s)) for a, s in humans.items()},
                        epsilon=DEFAULT_EPSILON,
                    )
                    passed += bool(result.passed)
                    omegas.append(result.winning_rate or 0.0)
                    rhos.append(result.advantage or 0.0)
                lo, hi = wilson(passed, reps)
                table.rows.append(
                    [
                        name,
                        annotators,
                        items,
                        f"{passed}/{reps}",
                        passed / reps,
                        f"[{lo:.3f}, {hi:.3f}]",
                        float(np.mean(omegas)),
                        float(np.mean(rhos)),
                    ]
                )
    table.notes.append(
        "the consensus judge is rounded from every annotator's score, the left-out one's included (as a judge "
        "trained on such labels would be); the others see only the items' quality"
    )
    return [table]
