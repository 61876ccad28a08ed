"""Confidence intervals for Cohen's kappa that hold at small n and near perfect agreement.

Kappa is one minus a ratio of disagreements: ``1 - D_o / D_e``, with ``D_o`` the mean weighted
disagreement of the items and ``D_e`` the disagreement expected from the two sides' margins. The
percentile bootstrap of kappa under-covers at small n (planted 0.84: 50 % at n=5) and cannot
vary at all when every item agrees (``[1.000, 1.000]``). `score_bounds_of_counts` inverts a
score test of the ratio instead, as Wilson's interval does for a proportion: a candidate ratio
``R0`` is kept when ``|D_o - R0 D_e|`` is within the t quantile of its standard error, with the
variance of ``D_o`` taken at the disagreement ``R0 D_e`` the candidate implies (not at the one
observed, which is 0 when every item agrees), the rest of the variance from the influence
functions of the margins, and a continuity correction of half an item. With unweighted kappa
the disagreement of an item is 0 or 1 and its variance under the candidate is binomial. With
quadratic weights it is not: the variance is taken from a disagreement size estimated from the
items with one pseudo-disagreement added, of the size a disagreement has by chance under the two
margins, which keeps it honest when the few disagreements seen are all small (or none).

`jackknife_z_bounds_of_counts` is the leave-one-out jackknife of kappa on Fisher's z
scale; kappa without one item is read from the at most 36 cells of its table.

Coverage is measured in ``bench/coverage_kappa.py``; which of these the report prints, and from
what n, is `vivid_inspect.lab.report.stats.intervals`.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy import stats

CATEGORIES = 6
_LEVELS = np.arange(CATEGORIES)
WEIGHTS: dict[str, np.ndarray] = {
    "unweighted": 1.0 - np.eye(CATEGORIES),
    # Scaled to a largest disagreement of 1, so an item's disagreement lies in [0, 1].
    "quadratic": np.subtract.outer(_LEVELS, _LEVELS).astype(float) ** 2 / (CATEGORIES - 1) ** 2,
}


_SMALLEST = {name: float(w[w > 0].min()) for name, w in WEIGHTS.items()}
"""The smallest disagreement of each weighting: a step of one score."""


@functools.lru_cache(maxsize=4096)
def t_quantile(n: int, confidence: float) -> float:
    """The two-sided t quantile with ``n - 1`` degrees of freedom."""
    return float(stats.t.ppf(0.5 + confidence / 2, max(n - 1, 1)))


def score_bounds_of_counts(
    confusion: np.ndarray, weights: str, confidence: float
) -> tuple[np.ndarray, np.ndarray]:
    """The score interval of Cohen's kappa of each 6 x 6 confusion matrix of counts (last two axes), at once.

    Every term is a sum over items, so it is a sum over the 36 cells weighted by their counts:
    many tables (the bench's draws) are bounded in one pass.

    Returns:
        Lower and upper ends, NaN where kappa is undefined (no disagreement expected by chance).
    """
    w = WEIGHTS[weights]
    counts = np.asarray(confusion, dtype=float)
    n = counts.sum(axis=(-1, -2))
    with np.errstate(divide="ignore", invalid="ignore"):
        rows = counts.sum(axis=-1) / n[..., None]
        cols = counts.sum(axis=-2) / n[..., None]
        observed = (counts * w).sum(axis=(-1, -2)) / n
        expected = np.einsum("ab,...a,...b->...", w, rows, cols)
        # Influence of each cell's items on the expected disagreement (through both margins).
        influence = (cols @ w.T)[..., :, None] + (rows @ w)[..., None, :] - 2 * expected[..., None, None]
        var_expected = (counts * influence**2).sum(axis=(-1, -2)) / n
        cov = (counts * (w - observed[..., None, None]) * influence).sum(axis=(-1, -2)) / n
        # One pseudo-disagreement of the size chance gives: its mean and mean square under the margins.
        chance = rows[..., :, None] * cols[..., None, :]
        disagreeing = (chance * (w > 0)).sum(axis=(-1, -2))
        pseudo_mean = expected / disagreeing
        pseudo_square = (chance * w * w).sum(axis=(-1, -2)) / disagreeing
        size = ((counts * w * w).sum(axis=(-1, -2)) + pseudo_square) / (n * observed + pseudo_mean)
        q2 = stats.t.ppf(0.5 + confidence / 2, np.maximum(n - 1, 1)) ** 2 / n
        half = 0.5 * _SMALLEST[weights] / n  # half an item's smallest disagreement
        a = expected**2 - q2 * (var_expected - expected**2)

        def roots(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            b = -(2 * d * expected + q2 * (expected * size - 2 * cov))
            root = np.sqrt(np.maximum(b * b - 4 * a * d * d, 0.0))
            return (-b - root) / (2 * a), (-b + root) / (2 * a)

        low = observed - half
        low_ratio = np.where(low <= 0, 0.0, np.maximum(roots(np.maximum(low, 0.0))[0], 0.0))
        high_ratio = np.where(a > 0, roots(observed + half)[1], np.inf)
    undefined = ~(expected > 0)
    lo = np.where(undefined, np.nan, np.maximum(1.0 - high_ratio, -1.0))
    hi = np.where(undefined, np.nan, np.minimum(1.0 - low_ratio, 1.0))
    return lo, hi


def jackknife_z_bounds_of_counts(
    confusion: np.ndarray, weights: str, confidence: float
) -> tuple[np.ndarray, np.ndarray]:
    """The leave-one-out jackknife interval of kappa on Fisher's z scale, for each confusion matrix.

    ``atanh(kappa)`` plus or minus a t quantile times the jackknife standard error of
    ``atanh`` of the leave-one-out kappas, mapped back with ``tanh``. On skewed scores kappa's
    sampling distribution has a long lower tail, and the score interval then misses above; the z
    scale stretches the top of the range and reaches higher. The t quantile's degrees of freedom
    are the items off the commonest agreeing pair less one: on 90 % of items scored 5 by both,
    the others carry the information.

    Returns:
        Lower and upper ends, NaN where kappa or a leave-one-out kappa of an item is undefined,
        or no item moves it (every item agrees: the score interval covers that case).
    """
    counts = np.asarray(confusion, dtype=float)
    flat = counts.reshape(*counts.shape[:-2], CATEGORIES * CATEGORIES)
    n = flat.sum(axis=-1)
    cells = np.eye(CATEGORIES * CATEGORIES).reshape(-1, CATEGORIES, CATEGORIES)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.arctanh(np.clip(kappa_of_counts(counts, weights), -_Z_EDGE, _Z_EDGE))
        without = kappa_of_counts(counts[..., None, :, :] - cells, weights)
        z_without = np.where(flat > 0, np.arctanh(np.clip(without, -_Z_EDGE, _Z_EDGE)), 0.0)
        undefined = ((flat > 0) & ~np.isfinite(without)).any(axis=-1)
        centre = (flat * z_without).sum(axis=-1) / n
        spread = np.sqrt((n - 1) / n * (flat * (z_without - centre[..., None]) ** 2).sum(axis=-1))
        off = n - np.diagonal(counts, axis1=-2, axis2=-1).max(axis=-1)
        half = stats.t.ppf(0.5 + confidence / 2, np.maximum(off - 1, 1)) * spread
    bad = undefined | ~np.isfinite(z) | ~(spread > 1e-12)
    return np.where(bad, np.nan, np.tanh(z - half)), np.where(bad, np.nan, np.tanh(z + half))


_Z_EDGE = 0.999
"""Kappas are clipped to this before ``atanh``: a kappa of 1 (perfect agreement) has no z."""


def kappa_of_counts(confusion: np.ndarray, weights: str) -> np.ndarray:
    """Kappa of each confusion matrix of counts (last two axes 6 x 6); NaN where undefined."""
    w = WEIGHTS[weights]
    total = confusion.sum(axis=(-1, -2))
    with np.errstate(divide="ignore", invalid="ignore"):
        rows = confusion.sum(axis=-1) / total[..., None]
        cols = confusion.sum(axis=-2) / total[..., None]
        observed = (w * confusion).sum(axis=(-1, -2)) / total
        expected = np.einsum("ab,...a,...b->...", w, rows, cols)
        kappa = 1.0 - observed / expected
    constant = ((rows > 0).sum(axis=-1) < 2) | ((cols > 0).sum(axis=-1) < 2)
    return np.where(constant, np.nan, kappa)


def confusion_of(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """The 6 x 6 confusion matrix of counts (rows ``first``, columns ``second``)."""
    cells = np.asarray(first, dtype=int) * CATEGORIES + np.asarray(second, dtype=int)
    return np.bincount(cells, minlength=CATEGORIES * CATEGORIES).reshape(CATEGORIES, CATEGORIES).astype(float)
