"""Coverage of the report's mean interval (``intervals.mean_interval``) and paired mean difference.

Planted: distributions of 0-5 scores with a known mean, including the edges the report meets: a
weak model judged mostly 0 (mean 0.13, as VinaLLaMA in the paper), two-point spreads (all mass on
0 and 5, the largest variance a bounded mean can have, and on 0/1 or 4/5), means near 5, the
halves of two annotators' means, and the paired difference of two judges on the same items.
Every draw goes through the report's function; coverage is measured at every n, below the
printed threshold too, with ``min_n=2``.
"""

from __future__ import annotations

import numpy as np
from coverage_common import CoverageTable
from coverage_grid import ROW_COLUMNS, SKEWED, Cell, Skill, Worst, joint_of, ns_of
from coverage_grid import SHAPES as GRID

from vivid_inspect.lab.report.stats.intervals import RULES, mean_intervals

REPS = 2000
QUICK_REPS = 60

SCORES = np.arange(6, dtype=float)
HALVES = np.arange(11, dtype=float) / 2


def _two_point(a: int, b: int, mean: float) -> np.ndarray:
    p = np.zeros(6)
    p[b] = (mean - a) / (b - a)
    p[a] = 1 - p[b]
    return p


def _geometric(mean: float, values: np.ndarray = SCORES) -> np.ndarray:
    """Mass that decays (or grows) geometrically along the scale, with the given mean."""
    lo, hi = 1e-6, 1e6
    for _ in range(200):
        ratio = np.sqrt(lo * hi)
        weights = ratio ** np.arange(values.size)
        if (values * weights).sum() / weights.sum() < mean:
            lo = ratio
        else:
            hi = ratio
    return weights / weights.sum()


# name -> (values, probabilities); the planted mean is computed from them.
SHAPES: dict[str, tuple[np.ndarray, np.ndarray]] = {
    "weak model, mostly 0 (mean 0.13)": (SCORES, _geometric(0.13)),
    "two-point 0/5, mean 0.13": (SCORES, _two_point(0, 5, 0.13)),
    "two-point 0/1, mean 0.13": (SCORES, _two_point(0, 1, 0.13)),
    "two-point 0/5, mean 0.5": (SCORES, _two_point(0, 5, 0.5)),
    "two-point 0/5, mean 2.5": (SCORES, _two_point(0, 5, 2.5)),
    "binomial, mean 2.5": (SCORES, np.array([1, 5, 10, 10, 5, 1]) / 32),
    "paper-like spread": (SCORES, np.array([0.04, 0.06, 0.10, 0.20, 0.30, 0.30])),
    "skewed to 5, mean 4.5": (SCORES, _geometric(4.5)),
    "two-point 4/5, mean 4.87": (SCORES, _two_point(4, 5, 4.87)),
    "two-point 0/5, mean 4.87": (SCORES, _two_point(0, 5, 4.87)),
    "two annotators' halves, mean 3.4": (HALVES, _geometric(3.4, HALVES)),
    **{f"grid: {name}": (SCORES, np.asarray(p)) for name, p in GRID.items() if name in SKEWED},
    "95 % at 0, rest 5": (SCORES, _two_point(0, 5, 0.25)),
}
# Two judges on the same items of the difficulty model (errors follow the item), on skewed shapes.
PAIRED_JUDGES = (Skill(0.85, 0.4), Skill(0.6, 0.2))

# Paired differences of two judges on the same items: (first, second) joint over 0-5 x 0-5.
DIFFERENCES: dict[str, np.ndarray] = {
    "lenient judge, +0.4 on 'middle' items": np.array(
        [
            [0.02, 0.03, 0.00, 0.00, 0.00, 0.00],
            [0.00, 0.03, 0.05, 0.00, 0.00, 0.00],
            [0.00, 0.00, 0.08, 0.10, 0.00, 0.00],
            [0.00, 0.00, 0.00, 0.12, 0.14, 0.00],
            [0.00, 0.00, 0.00, 0.00, 0.10, 0.11],
            [0.00, 0.00, 0.00, 0.00, 0.00, 0.22],
        ]
    ).T,
    "rare large disagreements, weak model": np.array(
        [
            [0.80, 0.02, 0.00, 0.00, 0.00, 0.03],
            [0.05, 0.05, 0.00, 0.00, 0.00, 0.00],
            [0.00, 0.00, 0.02, 0.00, 0.00, 0.00],
            [0.00, 0.00, 0.00, 0.01, 0.00, 0.00],
            [0.00, 0.00, 0.00, 0.00, 0.01, 0.00],
            [0.00, 0.00, 0.00, 0.00, 0.00, 0.01],
        ]
    ),
    "near-identical judges at the top": np.array(
        [
            [0.00, 0.00, 0.00, 0.00, 0.00, 0.00],
            [0.00, 0.00, 0.00, 0.00, 0.00, 0.00],
            [0.00, 0.00, 0.00, 0.00, 0.00, 0.00],
            [0.00, 0.00, 0.00, 0.05, 0.01, 0.00],
            [0.00, 0.00, 0.00, 0.01, 0.30, 0.02],
            [0.00, 0.00, 0.00, 0.00, 0.01, 0.60],
        ]
    ),
}


CHUNK = 250
"""Draws bounded at once (the betting interval holds draws x candidates x items in memory)."""


def _batched(values: np.ndarray, **kwargs: object) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    parts = [mean_intervals(values[i : i + CHUNK], min_n=2, **kwargs) for i in range(0, len(values), CHUNK)]  # type: ignore[arg-type]
    return tuple(np.concatenate(p) for p in zip(*parts, strict=True))  # type: ignore[return-value]


def run(reps: int, quick: bool, seed: int) -> list[CoverageTable]:
    """Coverage of the mean and mean-difference intervals over every planted shape and n."""
    rng = np.random.default_rng(seed)
    ns = ns_of(quick)
    columns = ["planted", "mean", "n", *ROW_COLUMNS]
    means = CoverageTable(f"Mean of 0-5 scores: {RULES['mean'].method}", columns)
    worst = Worst()
    shapes = list(SHAPES.items())[:3] if quick else list(SHAPES.items())
    for name, (values, p) in shapes:
        truth = float(values @ p)
        for n in ns:
            cell = Cell(*_batched(rng.choice(values, size=(reps, n), p=p)), truth)
            means.rows.append(cell.row(name, round(truth, 3), n))
            worst.add("mean", n, cell, name)
    differences = CoverageTable(
        f"Paired mean difference of two judges: {RULES['mean_difference'].method}", columns
    )
    joints = {name: joint / joint.sum() for name, joint in DIFFERENCES.items()}
    for shape in () if quick else SKEWED:
        joints[f"difficulty, good vs weak judge, {shape}"] = joint_of(GRID[shape], PAIRED_JUDGES)
    for name, joint in joints.items():
        truth = float(np.arange(6) @ joint.sum(axis=1) - np.arange(6) @ joint.sum(axis=0))
        for n in ns:
            cells = rng.choice(36, size=(reps, n), p=joint.ravel())
            gaps = (cells // 6 - cells % 6).astype(float)
            estimate, lo, hi = _batched(gaps, low=-5.0, high=5.0, statistic="mean_difference")
            identical = ~gaps.any(axis=1)  # the report prints no interval: the difference cannot vary
            cell = Cell(estimate, np.where(identical, np.nan, lo), np.where(identical, np.nan, hi), truth)
            differences.rows.append(cell.row(name, round(truth, 3), n))
            worst.add("mean_difference", n, cell, name)
    differences.notes.append(
        "a draw whose two judges agree on every item gets no interval (the difference cannot vary) and is "
        "not counted as made"
    )
    return [means, differences, worst.table(quick=quick)]
