"""Coverage of the report's kappa intervals (``intervals.kappa_intervals``), unweighted and quadratic.

Planted, on every shape of :mod:`coverage_grid` (the old five human score distributions and the
skewed ones of issue 29): joint tables of a human and a judge score whose unweighted kappa is a
chosen value (perfect agreement mixed with an off-by-one, lenient or wide judge), and the
difficulty model (a latent quality and difficulty per item, a good and a weak judge whose errors
follow the human's on hard items). The quadratic-weighted kappa of each table is its own planted
value. Draws where a side gives a single score have no kappa (the report prints none) and are not
counted as made. Judge-against-judge agreement (``judge_pairs``) prints the same interval.

``--candidates`` (``run(..., candidates=True)``) also measures the methods the report's was chosen
against: the score interval alone, the jackknife on the z scale alone, and percentile and BCa
bootstraps, on the skewed shapes.
"""

from __future__ import annotations

import numpy as np
from coverage_common import CoverageTable
from coverage_grid import ROW_COLUMNS, SKEWED, Cell, Skill, Worst, draw_joint, joint_of, ns_of, shapes_of
from planted_scores import NOISE, joint_with_kappa, kappa_of

from vivid_inspect.lab.report.stats.intervals import RULES, kappa_intervals

REPS = 2000
QUICK_REPS = 60
MIXTURES: tuple[tuple[str, tuple[float, ...]], ...] = (
    ("off by one", (0.2, 0.5, 0.7, 0.84, 0.95)),
    ("lenient", (0.5, 0.84)),
    ("wide", (0.5, 0.84)),
)
HUMAN = Skill(0.95, 0.7)
JUDGES = {"difficulty, good judge": Skill(0.85, 0.4), "difficulty, weak judge": Skill(0.6, 0.2)}
STATISTIC = {"unweighted": "kappa", "quadratic": "weighted_kappa"}


def designs(quick: bool) -> list[tuple[str, str, np.ndarray]]:
    """(shape, judge, 6 x 6 joint table) of every planted design."""
    out = []
    for shape, margin in shapes_of(quick).items():
        for noise, kappas in MIXTURES[:1] if quick else MIXTURES:
            for planted in kappas[:2] if quick else kappas:
                joint = joint_with_kappa(margin, NOISE[noise], planted)
                if joint is not None:
                    out.append((shape, f"{noise}, kappa {planted}", joint))
        for name, judge in JUDGES.items():
            out.append((shape, name, joint_of(margin, [HUMAN, judge])))
    return out


def run(reps: int, quick: bool, seed: int, candidates: bool = False) -> list[CoverageTable]:
    """Coverage of both kappa intervals over every planted table and n."""
    rng = np.random.default_rng(seed)
    columns = ["human scores", "judge", "planted", "n", *ROW_COLUMNS]
    tables = {
        weights: CoverageTable(f"{title}: {RULES[STATISTIC[weights]].method}", columns)
        for weights, title in (("unweighted", "Cohen's kappa"), ("quadratic", "Quadratic-weighted kappa"))
    }
    worst = Worst()
    for shape, judge, joint in designs(quick):
        truth = {weights: kappa_of(joint, weights) for weights in tables}
        for n in ns_of(quick):
            counts = draw_joint(joint, n, reps, rng)
            for weights, table in tables.items():
                estimate, lo, hi = kappa_intervals(counts, weights=weights, min_n=2)
                cell = Cell(estimate, lo, hi, truth[weights])
                table.rows.append(cell.row(shape, judge, round(truth[weights], 3), n))
                worst.add(STATISTIC[weights], n, cell, f"{shape}, {judge}")
    for table in tables.values():
        table.notes.append("draws where a side gave a single score have no kappa and are not counted as made")
    out = [*tables.values(), worst.table(quick=quick)]
    if candidates:
        out.append(compare(reps, quick, rng))
    return out


def compare(reps: int, quick: bool, rng: np.random.Generator, boots: int = 400) -> CoverageTable:
    """Worst coverage on the skewed shapes of each candidate method, per n (the choice's evidence)."""
    from scipy import stats

    from vivid_inspect.lab.report.stats.kappa_bounds import (
        jackknife_z_bounds_of_counts,
        kappa_of_counts,
        score_bounds_of_counts,
    )

    def bootstrap(counts: np.ndarray, weights: str) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        estimate = kappa_of_counts(counts, weights)
        n = counts.sum(axis=(1, 2)).astype(int)
        p = counts.reshape(len(counts), -1) / n[:, None]
        drawn = rng.multinomial(n, p, size=(boots, len(counts))).reshape(boots, len(counts), 6, 6)
        values = kappa_of_counts(drawn.astype(float), weights)
        values = np.where(np.isfinite(values), values, np.nan)
        with np.errstate(invalid="ignore"):
            lo, hi = np.nanpercentile(values, [2.5, 97.5], axis=0)
            below = np.nanmean(values < estimate, axis=0)
        bias = stats.norm.ppf(np.clip(below, 1e-3, 1 - 1e-3))
        ends = [stats.norm.cdf(2 * bias + z) * 100 for z in (-1.959964, 1.959964)]
        bca = [
            np.array(
                [np.nanpercentile(values[:, i], e[i]) if np.isfinite(e[i]) else np.nan for i in range(len(e))]
            )
            for e in ends
        ]
        return {"percentile bootstrap": (lo, hi), "bias-corrected bootstrap": (bca[0], bca[1])}

    worst: dict[tuple[str, str], dict[int, float]] = {}
    for shape, _judge, joint in designs(quick):
        if shape not in SKEWED:
            continue
        for n in ns_of(quick):
            counts = draw_joint(joint, n, min(reps, 500), rng)
            for weights in ("unweighted", "quadratic"):
                truth = kappa_of(joint, weights)
                estimate = kappa_of_counts(counts, weights)
                methods = {
                    "score interval alone": score_bounds_of_counts(counts, weights, 0.95),
                    "jackknife on z alone": jackknife_z_bounds_of_counts(counts, weights, 0.95),
                    "the report's (both)": kappa_intervals(counts, weights=weights, min_n=2)[1:],
                    **bootstrap(counts, weights),
                }
                for method, (lo, hi) in methods.items():
                    cell = Cell(estimate, lo, hi, truth)
                    mine = worst.setdefault((weights, method), {})
                    if cell.printed >= 50:
                        mine[n] = min(mine.get(n, 1.0), cell.coverage)
    ns = ns_of(quick)
    table = CoverageTable(
        f"Candidate kappa intervals on the skewed shapes: worst coverage per n ({min(reps, 500)} draws each)",
        ["kappa", "method", *(f"n={n}" for n in ns)],
    )
    for (weights, method), by_n in worst.items():
        table.rows.append([weights, method, *(by_n.get(n, float("nan")) for n in ns)])
    table.notes.append(
        f"bootstraps with {boots} resamples of the confusion table; the bias-corrected one without acceleration; "
        "a cell with fewer than 50 intervals made is left out"
    )
    return table
