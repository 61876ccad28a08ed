"""What the interval coverage sections share: planted score models, counting, the threshold check.

A planted model is an exact joint distribution of 0-5 scores, so the value every interval should
hold (a kappa, a mean, a difference) is computed from it exactly, never estimated. Scores are
drawn from it many times; each draw goes through the report's own interval function.

- :func:`joint_with_kappa`: a human-and-judge joint table whose unweighted kappa is a chosen value:
  a mixture of perfect agreement and an ordinal noisy judge, solved for the mixing weight.
- :func:`latent_model`: a latent item quality seen through several noisy raters (annotators, judge
  runs, judges), so raters scoring the same items are correlated as real ones are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from coverage_common import CoverageTable, wilson
from scipy import optimize

from vivid_inspect.lab.report.stats.intervals import MIN_COVERAGE, RULES
from vivid_inspect.lab.report.stats.kappa_bounds import WEIGHTS

NS: tuple[int, ...] = (5, 8, 10, 15, 20, 30, 50, 200)
"""The item counts every section measures (issue 21.4)."""
K = 6

# Human score distributions like real ones: the paper's humans (mean 3.47), a weak model judged
# mostly 0, a spread-out middle, scores piled on 4-5, and a bimodal one.
MARGINS: dict[str, tuple[float, ...]] = {
    "aspect-like": (0.04, 0.06, 0.10, 0.20, 0.30, 0.30),
    "weak model": (0.55, 0.20, 0.10, 0.08, 0.05, 0.02),
    "middle": (0.10, 0.10, 0.20, 0.30, 0.20, 0.10),
    "top-heavy": (0.00, 0.00, 0.00, 0.10, 0.40, 0.50),
    "bimodal": (0.30, 0.05, 0.10, 0.10, 0.15, 0.30),
}
# How a judge departs from the human score when it does: shift -> probability.
NOISE: dict[str, dict[int, float]] = {
    "off by one": {-2: 0.05, -1: 0.25, 0: 0.35, 1: 0.30, 2: 0.05},
    "lenient": {-1: 0.15, 0: 0.35, 1: 0.45, 2: 0.05},
    "wide": {-3: 0.05, -2: 0.10, -1: 0.20, 0: 0.30, 1: 0.20, 2: 0.10, 3: 0.05},
}


def kappa_of(joint: np.ndarray, weights: str) -> float:
    """The population kappa of a 6 x 6 joint probability table."""
    w = WEIGHTS[weights]
    rows, cols = joint.sum(axis=1), joint.sum(axis=0)
    return float(1 - (w * joint).sum() / (rows @ w @ cols))


def shifted(margin: Sequence[float], noise: Mapping[int, float]) -> np.ndarray:
    """The joint table of a human score drawn from ``margin`` and a judge that shifts it by ``noise``."""
    joint = np.zeros((K, K))
    for score, p in enumerate(margin):
        for shift, q in noise.items():
            joint[score, min(max(score + shift, 0), K - 1)] += p * q
    return joint


def joint_with_kappa(margin: Sequence[float], noise: Mapping[int, float], kappa: float) -> np.ndarray | None:
    """A joint table with unweighted kappa ``kappa``: perfect agreement mixed with the noisy judge.

    Returns:
        The table, or None when even the noisy judge alone agrees more than ``kappa``.
    """
    agree, noisy = np.diag(np.asarray(margin, dtype=float)), shifted(margin, noise)
    if kappa_of(noisy, "unweighted") > kappa:
        return None
    weight = optimize.brentq(lambda t: kappa_of(t * agree + (1 - t) * noisy, "unweighted") - kappa, 0.0, 1.0)
    return weight * agree + (1 - weight) * noisy


def draw_pairs(
    joint: np.ndarray, n: int, reps: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """``reps`` samples of ``n`` items from a joint table: (first, second) scores, one row per sample."""
    cells = rng.choice(K * K, size=(reps, n), p=joint.ravel() / joint.sum())
    return cells // K, cells % K


@dataclass(frozen=True)
class Rater:
    """A rater of a latent item quality: the quality itself with probability ``exact``, else shifted."""

    exact: float
    noise: Mapping[int, float]

    def given(self) -> np.ndarray:
        """P(score | quality) as a 6 x 6 table (rows: quality)."""
        table = np.zeros((K, K))
        spread = sum(self.noise.values())
        for quality in range(K):
            table[quality, quality] += self.exact
            for shift, q in self.noise.items():
                table[quality, min(max(quality + shift, 0), K - 1)] += (1 - self.exact) * q / spread
        return table


def latent_joint(margin: Sequence[float], first: Rater, second: Rater) -> np.ndarray:
    """The exact joint table of two raters' scores of the same items."""
    return np.einsum("t,ta,tb->ab", np.asarray(margin, dtype=float), first.given(), second.given())


def draw_raters(
    margin: Sequence[float], raters: Sequence[Rater], n: int, reps: int, rng: np.random.Generator
) -> list[np.ndarray]:
    """Scores of each rater on the same ``n`` items, ``reps`` samples (one array per rater)."""
    quality = rng.choice(K, size=(reps, n), p=np.asarray(margin) / np.sum(margin))
    out = []
    for rater in raters:
        given = rater.given()
        u = rng.random((reps, n))
        out.append((u[..., None] > np.cumsum(given[quality], axis=-1)).sum(axis=-1).clip(0, K - 1))
    return out


class Tally:
    """Coverage of one planted value at one n: printed intervals that hold it, and their widths."""

    def __init__(self) -> None:
        self.defined = self.printed = self.covered = 0
        self.draws = 0
        self.width = 0.0

    def add(self, estimate: float | None, lo: float | None, hi: float | None, truth: float) -> None:
        """Count one draw's interval (None ends: no interval printed)."""
        self.draws += 1
        if estimate is None:
            return
        self.defined += 1
        if lo is None or hi is None:
            return
        self.printed += 1
        self.covered += int(lo - 1e-9 <= truth <= hi + 1e-9)
        self.width += hi - lo

    @property
    def coverage(self) -> float:
        """Share of intervals that hold the planted value (NaN when none was made)."""
        return self.covered / self.printed if self.printed else float("nan")

    def row(self, *cells: object) -> list[object]:
        """A table row: the given cells, then made, coverage with its Wilson interval, mean width."""
        lo, hi = wilson(self.covered, self.printed)
        return [
            *cells,
            f"{self.printed}/{self.draws}",
            self.coverage,
            f"[{lo:.3f}, {hi:.3f}]" if self.printed else "",
            self.width / self.printed if self.printed else float("nan"),
        ]


def record(worst: dict[int, Tally], n: int, tally: Tally) -> None:
    """Keep the planted value of worst coverage at n (one with no interval made leaves it as it is)."""
    if tally.printed and (n not in worst or tally.coverage < worst[n].coverage):
        worst[n] = tally


def holds(tally: Tally) -> bool:
    """Coverage measured at 93 % or more (the point estimate, as the issue states the rule)."""
    return tally.coverage >= MIN_COVERAGE


ROW_COLUMNS = ("intervals made / draws", "coverage", "coverage 95 % CI", "mean width")


def smallest_n(worst: Mapping[int, Tally]) -> int | None:
    """The smallest n from which coverage holds (:func:`holds`) at every larger measured n too."""
    ok = None
    for n in sorted(worst, reverse=True):
        if not holds(worst[n]):
            break
        ok = n
    return ok


def threshold_table(worst_by_statistic: Mapping[str, Mapping[int, Tally]], *, quick: bool) -> CoverageTable:
    """Per statistic: the worst coverage at each n, the n it supports, and the report's constant."""
    table = CoverageTable(
        "Smallest n whose coverage holds on every planted value, against intervals.RULES",
        ["statistic", "method", *(f"n={n}" for n in NS), "bench: from n", "RULES.min_n", "check"],
    )
    for statistic, worst in worst_by_statistic.items():
        derived, rule = smallest_n(worst), RULES[statistic]
        cells = [worst[n].coverage if n in worst else float("nan") for n in NS]
        table.rows.append(
            [statistic, rule.method, *cells, derived, rule.min_n, _check(derived, rule.min_n, quick)]
        )
    table.notes.append(
        "worst coverage over every planted value and shape at that n, measured below RULES.min_n too (there "
        "the report prints too_few instead); 'bench: from n' is the smallest n from which it is at least 0.93 "
        "at every larger n too; RULES.min_n may be larger (more cautious) where the bench is within noise "
        "of 0.93, never smaller"
    )
    return table


def _check(derived: int | None, min_n: int, quick: bool) -> str:
    if quick:
        return "(quick run: too few draws to check)"
    if derived is None:
        return "MISMATCH: no n holds; the report must print no interval"
    if min_n == derived:
        return "matches"
    if min_n > derived:
        return "holds (RULES more cautious)"
    return "MISMATCH: RULES prints below the n that holds"
