"""The extended grid every interval section measures (issue 29.3), and vectorised counting.

Score shapes: the five human score distributions of :mod:`planted_scores` plus skewed ones like
real ones (75 % and 90 % of the scores at 5, and at 0) and the issue's two-point shape (95 % at
5, the rest 0). Rater models on each shape:

- *mixture*: perfect agreement mixed with an ordinal noisy judge, solved for a planted kappa
  (:func:`planted_scores.joint_with_kappa`);
- *difficulty*: a latent quality per item and a difficulty per item: on a hard item every rater
  (annotators, judges, runs) is more often wrong, and wrong in the item's own direction, so the
  raters' errors are correlated through the item as real ones are. The joint tables are exact
  (a sum over quality, difficulty and direction), so every planted value is computed, never
  estimated.

Draws are made for all repetitions at once and go through the report's own functions; the
kappa intervals take whole batches of confusion matrices
(:func:`vivid_inspect.lab.report.stats.intervals.kappa_intervals`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from coverage_common import CoverageTable, wilson
from planted_scores import MARGINS

from vivid_inspect.lab.report.stats.intervals import MIN_COVERAGE, RULES

K = 6
NS: tuple[int, ...] = (5, 8, 10, 15, 20, 30, 50, 100, 200)
"""The item counts measured: issue 21.4's, and 100 (where the issue found weighted kappa at 87.5 %)."""


def _skewed(at: int, share: float) -> tuple[float, ...]:
    """``share`` of the scores at ``at``, the rest decaying by half per step away from it."""
    rest = np.array([0.5 ** abs(k - at) if k != at else 0.0 for k in range(K)])
    p = rest / rest.sum() * (1 - share)
    p[at] = share
    return tuple(float(v) for v in p)


SHAPES: dict[str, tuple[float, ...]] = {
    **MARGINS,
    "75 % at 5": _skewed(5, 0.75),
    "90 % at 5": _skewed(5, 0.90),
    "75 % at 0": _skewed(0, 0.75),
    "90 % at 0": _skewed(0, 0.90),
    "95 % at 5, rest 0": (0.05, 0.0, 0.0, 0.0, 0.0, 0.95),
}
"""Human score distributions: the old five and the skewed ones of issue 29."""

SKEWED = ("75 % at 5", "90 % at 5", "75 % at 0", "90 % at 0", "95 % at 5, rest 0")

HARD = 0.4
"""Share of hard items in the difficulty model."""


@dataclass(frozen=True)
class Skill:
    """A rater in the difficulty model: how often exact on easy and on hard items.

    When wrong, the rater moves the item's quality one step (two with probability ``far``) in the
    item's own direction (up or down, drawn once per item and shared by every rater), clipped to
    0-5; with probability ``against`` the other way.
    """

    easy: float
    hard: float
    far: float = 0.2
    against: float = 0.2

    def given(self, hard: bool, direction: int) -> np.ndarray:
        """P(score | quality) on one kind of item, as a 6 x 6 table (rows: quality)."""
        exact = self.hard if hard else self.easy
        table = np.zeros((K, K))
        for quality in range(K):
            table[quality, quality] += exact
            for sign, p_sign in ((direction, 1 - self.against), (-direction, self.against)):
                for step, p_step in ((1, 1 - self.far), (2, self.far)):
                    table[quality, min(max(quality + sign * step, 0), K - 1)] += (1 - exact) * p_sign * p_step
        return table


KINDS: tuple[tuple[bool, int, float], ...] = tuple(
    (hard, direction, (HARD if hard else 1 - HARD) * 0.5) for hard in (False, True) for direction in (-1, 1)
)
"""(hard, direction, probability) of each kind of item."""


def joint_of(margin: Sequence[float], raters: Sequence[Skill]) -> np.ndarray:
    """The exact joint distribution of several raters' scores of one item (one axis per rater)."""
    p = np.asarray(margin, dtype=float)
    total = np.zeros((K,) * len(raters))
    for hard, direction, weight in KINDS:
        tables = [rater.given(hard, direction) for rater in raters]
        letters = "abcdefgh"[: len(raters)]
        spec = "t," + ",".join(f"t{c}" for c in letters) + "->" + letters
        total += weight * np.einsum(spec, p, *tables)
    return total


def draw(
    margin: Sequence[float], raters: Sequence[Skill], n: int, reps: int, rng: np.random.Generator
) -> np.ndarray:
    """Scores of each rater on the same ``n`` items, ``reps`` samples: shape (raters, reps, n)."""
    quality = rng.choice(K, size=(reps, n), p=np.asarray(margin) / np.sum(margin))
    kind = rng.choice(len(KINDS), size=(reps, n), p=[w for _, _, w in KINDS])
    out = np.empty((len(raters), reps, n), dtype=np.int64)
    for r, rater in enumerate(raters):
        cumulative = np.stack([np.cumsum(rater.given(h, d), axis=1) for h, d, _ in KINDS])
        u = rng.random((reps, n))
        out[r] = (u[..., None] > cumulative[kind, quality]).sum(axis=-1).clip(0, K - 1)
    return out


def draw_joint(joint: np.ndarray, n: int, reps: int, rng: np.random.Generator) -> np.ndarray:
    """Confusion matrices of ``reps`` samples of ``n`` items from a 6 x 6 joint table: (reps, 6, 6)."""
    p = joint.ravel() / joint.sum()
    return rng.multinomial(n, p, size=reps).reshape(reps, K, K).astype(float)


def confusions(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """The confusion matrix of each row of paired scores: (reps, n) x 2 -> (reps, 6, 6)."""
    reps = first.shape[0]
    cells = (first * K + second) + (np.arange(reps) * K * K)[:, None]
    return np.bincount(cells.ravel(), minlength=reps * K * K).reshape(reps, K, K).astype(float)


class Cell:
    """Coverage of one planted value at one n, counted from arrays of draws (NaN: none made)."""

    def __init__(self, estimate: np.ndarray, lo: np.ndarray, hi: np.ndarray, truth: float) -> None:
        estimate, lo, hi = (np.asarray(x, dtype=float) for x in (estimate, lo, hi))
        self.draws = int(estimate.size)
        made = np.isfinite(estimate) & np.isfinite(lo) & np.isfinite(hi)
        self.printed = int(made.sum())
        held = (lo[made] - 1e-9 <= truth) & (truth <= hi[made] + 1e-9)
        self.covered = int(held.sum())
        self.below = int((hi[made] + 1e-9 < truth).sum())
        self.width = float((hi[made] - lo[made]).sum())

    @property
    def coverage(self) -> float:
        """Share of intervals that hold the planted value (NaN when none was made)."""
        return self.covered / self.printed if self.printed else float("nan")

    def row(self, *cells: object) -> list[object]:
        """The given cells, then made / draws, coverage, its Wilson interval, misses above, mean width."""
        lo, hi = wilson(self.covered, self.printed)
        missed = self.printed - self.covered
        return [
            *cells,
            f"{self.printed}/{self.draws}",
            self.coverage,
            f"[{lo:.3f}, {hi:.3f}]" if self.printed else "",
            f"{self.below}/{missed}" if missed else "",
            self.width / self.printed if self.printed else float("nan"),
        ]


ROW_COLUMNS = ("made / draws", "coverage", "coverage 95 % CI", "truth above / misses", "mean width")


class Worst:
    """The worst coverage of each statistic at each n over the grid, and where it was."""

    def __init__(self) -> None:
        self.by: dict[str, dict[int, tuple[float, str]]] = {}

    def add(self, statistic: str, n: int, cell: Cell, where: str) -> None:
        """Keep the cell if it is the worst so far at ``n`` (a cell with no interval made is skipped)."""
        if not cell.printed:
            return
        mine = self.by.setdefault(statistic, {})
        if n not in mine or cell.coverage < mine[n][0]:
            mine[n] = (cell.coverage, where)

    def smallest_n(self, statistic: str) -> int | None:
        """The smallest n from which the worst coverage is at least 93 % at every larger n too."""
        ok = None
        for n in sorted(self.by.get(statistic, {}), reverse=True):
            if self.by[statistic][n][0] < MIN_COVERAGE:
                break
            ok = n
        return ok

    def table(self, *, quick: bool) -> CoverageTable:
        """Per statistic: the worst coverage at each n, the n it supports, and ``RULES``' constant."""
        table = CoverageTable(
            "Smallest n whose coverage holds on every planted value and shape, against intervals.RULES",
            [
                "statistic",
                *(f"n={n}" for n in NS),
                "bench: from n",
                "RULES.min_n",
                "check",
                "worst cell below it",
            ],
        )
        for statistic, worst in self.by.items():
            derived, rule = self.smallest_n(statistic), RULES[statistic].min_n
            cells = [worst[n][0] if n in worst else float("nan") for n in NS]
            failing = [(n, where) for n, (cov, where) in sorted(worst.items()) if cov < MIN_COVERAGE]
            table.rows.append(
                [
                    statistic,
                    *cells,
                    derived,
                    rule,
                    _check(derived, rule, quick),
                    failing[-1][1] if failing else "",
                ]
            )
        table.notes.append(
            "worst coverage over every planted value and shape at that n, measured below RULES.min_n too (there "
            "the report prints no interval); 'bench: from n' is the smallest n from which it is at least 0.93 at "
            "every larger n; 'worst cell below it' is the worst cell at the largest n that misses 0.93"
        )
        return table


def _check(derived: int | None, min_n: int, quick: bool) -> str:
    if quick:
        return "(quick run: too few draws to check)"
    if derived is None:
        return "MISMATCH: no n holds"
    if min_n == derived:
        return "matches"
    if min_n > derived:
        return "holds (RULES more cautious)"
    return "MISMATCH: RULES prints below the n that holds"


def ns_of(quick: bool) -> tuple[int, ...]:
    """The item counts of a run."""
    return (8, 20, 50) if quick else NS


def shapes_of(quick: bool, names: Sequence[str] | None = None) -> Mapping[str, tuple[float, ...]]:
    """The shapes of a run (a quick run: one old and two skewed)."""
    chosen = names or list(SHAPES)
    if quick:
        chosen = [name for name in chosen if name in ("aspect-like", "75 % at 5", "90 % at 0")]
    return {name: SHAPES[name] for name in chosen}
