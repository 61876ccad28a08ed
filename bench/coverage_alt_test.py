"""How often the alternative annotator test passes a judge, by how good the judge is and by the design.

Planted: a latent quality per item (the paper's human score distribution), each annotator its
quality plus rounded normal noise (sd 0.9, about the agreement of two careful annotators), the
judge the same with a noise of its own: none (the annotators' consensus, rounded: should pass), as
much as an annotator's, twice as much, or a random score (should fail). Every annotator scores
every item. Each draw goes through ``alt_test.alt_test`` with epsilon 0.2 (experts, the default);
the table gives the pass rate (``omega >= 0.5``) with its Wilson interval and the mean omega and
rho, for 2, 3 and 5 annotators and 10 to 100 shared items: the authors' advice (3 or more
annotators, 30 or more items) is where a good judge passes reliably and a poor one does not. The
"ruled out" column is the judge card's "no" (with the minimum design, annotators beat the judge by
more than epsilon on more than half): it should stay near 0 for a judge as good as an annotator.

The second table checks what the card says would settle an open test: a pilot (3 x 30 or 2 x 20)
that neither passes nor rules the judge out gets :func:`settling_design`'s design; a fresh panel of
that design, drawn from the same judge and annotators, must give the design's answer at least as
often as its claimed power, on average over the pilots. The third does the same for the labelled
items the card says would settle the bias question (``judge_card.labels_to_settle``).
"""

from __future__ import annotations

import numpy as np
from coverage_common import CoverageTable, wilson
from scipy import stats

from vivid_inspect.lab.report.cards.judge_card import (
    BIAS_TOLERANCE,
    UNDECIDED,
    bias_verdict,
    labels_to_settle,
)
from vivid_inspect.lab.report.stats.alt_test import (
    DEFAULT_EPSILON,
    PLANNING_CONFIDENCE,
    AltTest,
    alt_test,
    settling_design,
)
from vivid_inspect.lab.report.stats.corrected import Corrected, corrected_cell

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
DESIGN_JUDGES: dict[str, float | None] = {
    "as noisy as an annotator": ANNOTATOR_NOISE,
    "1.5 times as noisy": 1.5 * ANNOTATOR_NOISE,
    "twice as noisy": 2 * ANNOTATOR_NOISE,
    "random scores": None,
}
PILOTS = ((3, 30), (2, 20), (4, 30))


def _panel(rng: np.random.Generator, noise: float | None, annotators: int, items: int) -> AltTest:
    """One draw: annotators and a judge (consensus for noise 0, random for None) on shared items."""
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
    return alt_test(
        dict(enumerate(judge)), {a: dict(enumerate(s)) for a, s in humans.items()}, epsilon=DEFAULT_EPSILON
    )


def _true_effect(rng: np.random.Generator, noise: float | None, annotators: int) -> float:
    """The judge's true ``rho_h - rho_f - epsilon`` with this many annotators, from one panel of 20,000 items."""
    result = _panel(rng, noise, annotators, 20_000)
    return (
        float(np.mean([(a.annotator_wins or 0) - (a.judge_wins or 0) for a in result.annotators]))
        - DEFAULT_EPSILON
    )


def _designs(reps: int, rng: np.random.Generator) -> CoverageTable:
    """Does the design the card proposes settle the test with the power it claims?"""
    table = CoverageTable(
        "The design the judge card proposes for an open test: claimed power against the rate a fresh panel settles",
        [
            "judge",
            "true rho_h - rho_f - epsilon",
            "pilot",
            "open pilots",
            "designs (none)",
            "median items",
            "answer yes / no",
            "mean claimed power",
            "settled",
            "rate",
            "rate 95 % CI",
            "planned distance held",
            "rate where it held",
        ],
    )
    for name, noise in DESIGN_JUDGES.items():
        for annotators, items in PILOTS:
            truth = _true_effect(rng, noise, max(annotators, 3))
            opened = none = settled = held = settled_held = 0
            claimed, sizes, answers = [], [], []
            for _ in range(reps):
                pilot = _panel(rng, noise, annotators, items)
                if pilot.passed or pilot.ruled_out:
                    continue
                opened += 1
                design = settling_design(pilot)
                if design is None or design.items is None:
                    none += 1
                    continue
                fresh = _panel(rng, noise, design.annotators, design.items)
                ok = bool(fresh.passed) if design.answer == "yes" else fresh.ruled_out
                settled += ok
                holds = (truth < 0) == (design.answer == "yes") and abs(truth) >= design.gap
                held += holds
                settled_held += ok and holds
                claimed.append(design.power)
                sizes.append(design.items)
                answers.append(design.answer)
            n = len(claimed)
            lo, hi = wilson(settled, n)
            table.rows.append(
                [
                    name,
                    truth,
                    f"{annotators} x {items}",
                    f"{opened}/{reps}",
                    f"{n} ({none})",
                    int(np.median(sizes)) if sizes else None,
                    f"{answers.count('yes')} / {answers.count('no')}",
                    float(np.mean(claimed)) if claimed else None,
                    f"{settled}/{n}",
                    settled / n if n else None,
                    f"[{lo:.3f}, {hi:.3f}]",
                    f"{held}/{n}",
                    settled_held / held if held else None,
                ]
            )
    table.notes += [
        "a pilot that passes or rules the judge out is settled and proposes nothing; the design keeps the pilot's "
        "annotators (at least 3) and plans each one's distance of rho_h - rho_f from epsilon at its 80 % lower "
        "confidence bound; the claimed power is a lower bound per annotator (the Benjamini-Yekutieli level of the "
        "fewest rejections that decide)",
        "the claim is conditional: if the judge is at least the planned distance from epsilon, the design settles "
        "the test with the claimed power (rate where it held); where the true distance is small (within 0.1 of "
        "epsilon) a 30-item pilot rarely proposes a design, and one that does was flattered by chance",
        "true rho_h - rho_f - epsilon: from one panel of 20,000 items with the design's annotators",
    ]
    return table


BIAS_ITEMS = 1000
BIAS_SHIFTS = (0.0, 0.1, 0.25, 0.35, 0.5)
BIAS_PILOTS = (30, 60)


def _planned(c: Corrected) -> float:
    """The distance from the tolerance that labels_to_settle plans on (its lower confidence bound)."""
    b, hi, lo = c.bias.estimate or 0.0, c.bias.hi or 0.0, c.bias.lo or 0.0
    error = max(hi - b, b - lo) / float(stats.t.ppf(0.975, c.n_human - 2))
    return abs(abs(b) - BIAS_TOLERANCE) - float(stats.norm.ppf(PLANNING_CONFIDENCE)) * error


def _bias_labels(reps: int, rng: np.random.Generator) -> CoverageTable:
    """Do the labelled items the card proposes settle the bias question as often as claimed?"""
    table = CoverageTable(
        f"The labelled items the judge card proposes for an open bias answer (tolerance ±{BIAS_TOLERANCE:g}, "
        f"{BIAS_ITEMS} items): how often a fresh draw of that many settles it",
        [
            "judge shift",
            "true bias",
            "pilot",
            "open pilots",
            "proposals (none)",
            "median labels",
            "settled",
            "rate",
            "rate 95 % CI",
            "planned distance held",
            "rate where it held",
        ],
    )
    for shift in BIAS_SHIFTS:
        for pilot in BIAS_PILOTS:
            opened = none = settled = held = settled_held = 0
            truths, sizes = [], []
            for _ in range(reps):
                human = rng.choice(6, size=BIAS_ITEMS, p=QUALITY).astype(float)
                judged = np.clip(np.rint(human + rng.normal(shift, 0.8, BIAS_ITEMS)), 0, 5)
                truth = float(np.mean(judged - human))
                truths.append(truth)
                judge = dict(enumerate(judged))
                first = corrected_cell(judge, {int(i): human[i] for i in rng.permutation(BIAS_ITEMS)[:pilot]})
                if bias_verdict(first) != UNDECIDED:
                    continue
                opened += 1
                needed = labels_to_settle(first)
                if needed is None:
                    none += 1
                    continue
                sizes.append(needed)
                fresh = corrected_cell(
                    judge, {int(i): human[i] for i in rng.permutation(BIAS_ITEMS)[:needed]}
                )
                ok = bias_verdict(fresh) != UNDECIDED
                inside = abs(first.bias.estimate or 0.0) < BIAS_TOLERANCE
                holds = (abs(truth) < BIAS_TOLERANCE) == inside and abs(
                    abs(truth) - BIAS_TOLERANCE
                ) >= _planned(first)
                settled += ok
                held += holds
                settled_held += ok and holds
            n = len(sizes)
            lo, hi = wilson(settled, n)
            table.rows.append(
                [
                    shift,
                    float(np.mean(truths)),
                    pilot,
                    f"{opened}/{reps}",
                    f"{n} ({none})",
                    int(np.median(sizes)) if sizes else None,
                    f"{settled}/{n}",
                    settled / n if n else None,
                    f"[{lo:.3f}, {hi:.3f}]",
                    f"{held}/{n}",
                    settled_held / held if held else None,
                ]
            )
    table.notes += [
        "human scores from the paper's distribution, the judge's the human's plus normal noise (sd 0.8) moved by "
        "the shift, rounded and kept in 0-5; a pilot of uniform labels whose bias interval straddles the "
        "tolerance gets the card's proposal; 'settled': a fresh uniform draw of that many labels puts the interval "
        "inside or wholly outside the tolerance (the claim is 80 %)",
        f"the distance from the tolerance is planned at its {PLANNING_CONFIDENCE:.0%} lower confidence bound: "
        "the claim is conditional on the true distance being at least that (rate where it held); a bias within "
        "about 0.05 of the tolerance can seldom be placed on one side by any pilot",
    ]
    return table


def run(reps: int, quick: bool, seed: int) -> list[CoverageTable]:
    """Pass rates over judges x annotators x items, and the proposed designs' power."""
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
            "ruled out",
            "mean omega",
            "mean rho",
        ],
    )
    for name, noise in JUDGES.items():
        for annotators in (2, 3, 5):
            for items in items_grid:
                passed, ruled, omegas, rhos = 0, 0, [], []
                for _ in range(reps):
                    result = _panel(rng, noise, annotators, items)
                    passed += (result.winning_rate or 0.0) >= 0.5
                    ruled += result.ruled_out
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
                        ruled / reps,
                        float(np.mean(omegas)),
                        float(np.mean(rhos)),
                    ]
                )
    table.notes.append(
        "the consensus judge is rounded from every annotator's score, the left-out one's included (as a judge "
        "trained on such labels would be); the others see only the items' quality",
    )
    table.notes.append(
        'pass rate: omega >= 0.5; below 3 annotators or 30 items the card and alt_test.csv say "below the '
        'paper\'s minimum" instead of a pass; ruled out: the card\'s "no" (only with the minimum design)'
    )
    return [table, _designs(max(reps // 2, 1), rng), _bias_labels(max(reps // 2, 1), rng)]
