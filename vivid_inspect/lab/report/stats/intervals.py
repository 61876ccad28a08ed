"""Which 95 % interval the report prints for each statistic, and from what n: one place for every table.

Each statistic has one method and a smallest n (`RULES`). Both were chosen by simulation in
``bench/coverage.py`` (table in ``bench/results.md`` and ``docs/reports.md``) on a grid of score
shapes that includes skewed ones (75 % and 90 % of the scores at 5 or at 0, 95 % at 5 and the rest
0) and items of varying difficulty: the method is the one whose coverage held best, and the
smallest n is the smallest of n = 5, 8, 10, 15, 20, 30, 50, 100, 200 from which its measured
coverage is 93 % or more on every shape (and stays so at every larger n). Below it a cell prints
no interval and says why (`too_few`); the bench prints whether these constants still match
what it measures. The ``*_intervals`` functions are the batched forms the bench runs.

An interval is never of zero width: a statistic the items cannot vary (two judges whose scores
are identical item for item) gets no interval and the reason, never ``[1.000, 1.000]``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from vivid_inspect.lab.report.stats.bounded_mean import betting_interval, betting_intervals
from vivid_inspect.lab.report.stats.kappa_bounds import (
    CATEGORIES,
    confusion_of,
    jackknife_z_bounds_of_counts,
    kappa_of_counts,
    score_bounds_of_counts,
    t_quantile,
)

CONFIDENCE = 0.95
MIN_COVERAGE = 0.93
"""An interval is printed only for the n where its simulated coverage is at least this."""


@dataclass(frozen=True)
class Rule:
    """How one statistic's interval is made and from what n it is printed.

    Attributes:
        method: The method, in a few words (the docs and the bench print it).
        min_n: Fewest items for an interval; below it the cell says `too_few`.
    """

    method: str
    min_n: int


RULES: dict[str, Rule] = {
    "mean": Rule("betting interval for a bounded mean (Waudby-Smith and Ramdas 2024)", 5),
    "mean_difference": Rule("betting interval of the per-item differences, bounded in [-5, 5]", 5),
    "kappa": Rule(
        "union of the score interval of 1 - kappa (a ratio of disagreements) and the jackknife on Fisher's z",
        100,
    ),
    "weighted_kappa": Rule(
        "the same union; the score interval's disagreement size with a chance-sized pseudo-item", 200
    ),
    "kappa_per_annotator": Rule("mean over annotators of each annotator's kappa interval", 50),
    "self_consistency_kappa": Rule("mean over run pairs of each pair's kappa interval", 50),
    "kappa_difference": Rule("leave-one-out jackknife t interval of the paired difference", 50),
    "corrected_mean": Rule(
        "prediction-powered (PPI++) mean, finite-population t interval widened for skew; also the human-only mean and the bias",
        20,
    ),
}
"""The method and the smallest n of every interval the report prints (see the module docstring)."""

_KAPPA_RULE = {"unweighted": "kappa", "quadratic": "weighted_kappa"}

MIN_N_MEAN = RULES["mean"].min_n
"""Fewest scores for a mean's interval; below it the cell gives `too_few` instead."""

IDENTICAL = "no interval: the two sides' scores are identical item for item"
NO_VARIATION = "no interval: the items cannot vary this statistic"


@dataclass(frozen=True)
class Interval:
    """A point estimate with its 95 % interval, or the reason there is no interval.

    Attributes:
        estimate: The point estimate (None when there is no data).
        lo: Lower end (None when no interval is printed).
        hi: Upper end (None when no interval is printed).
        n: How many values it rests on.
        reason: Why no interval is printed (None when it is).
    """

    estimate: float | None
    lo: float | None
    hi: float | None
    n: int
    reason: str | None = None


def too_few(n: int) -> str:
    """The sentence a cell shows in place of an interval it cannot print."""
    return f"too few items for a 95 % interval (n={n})"


def interval_text(interval: Interval, decimals: int = 3) -> str:
    """The interval as a table cell: ``[0.612, 0.851]``, or why there is none (empty: no estimate)."""
    if interval.lo is not None and interval.hi is not None:
        return f"[{interval.lo:.{decimals}f}, {interval.hi:.{decimals}f}]"
    return "" if interval.estimate is None else interval.reason or ""


def mean_interval(
    values: Iterable[float], *, low: float = 0.0, high: float = 5.0, min_n: int | None = None
) -> Interval:
    """The mean of scores in ``[low, high]`` with its 95 % interval.

    Args:
        values: The scores, in item order (NaN are left out).
        low: Smallest possible score.
        high: Largest possible score.
        min_n: Fewest scores for an interval (default the rule's; the bench measures below it).

    Returns:
        The mean and its betting interval; no interval below `MIN_N_MEAN` scores.
    """
    return _mean(values, low, high, _fewest("mean", min_n))


def mean_intervals(
    values: np.ndarray,
    *,
    low: float = 0.0,
    high: float = 5.0,
    min_n: int | None = None,
    statistic: str = "mean",
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`mean_interval` of each row of ``values`` (samples of one size, no NaN), at once.

    ``statistic="mean_difference"`` with ``low=-5, high=5`` is `mean_difference_interval`'s
    interval of per-item differences (rows of zeros get none there: the caller checks).

    Returns:
        Means, lower and upper ends (NaN ends when a row has fewer scores than the rule's).
    """
    array = np.asarray(values, dtype=float)
    mean = array.mean(axis=1)
    if array.shape[1] < _fewest(statistic, min_n):
        return mean, np.full_like(mean, np.nan), np.full_like(mean, np.nan)
    lo, hi = betting_intervals(array, low, high, 1 - CONFIDENCE)
    return mean, lo, hi


def mean_difference_interval(
    first: Sequence[float] | np.ndarray,
    second: Sequence[float] | np.ndarray,
    *,
    low: float = 0.0,
    high: float = 5.0,
    min_n: int | None = None,
) -> Interval:
    """The mean of ``first - second`` over paired items, with its 95 % interval.

    Args:
        first: One side's score per item.
        second: The other side's, for the same items in the same order.
        low: Smallest possible score.
        high: Largest possible score.
        min_n: Fewest items for an interval (default the rule's).

    Returns:
        The mean difference and its betting interval; none when the two sides are identical
        item for item (the difference cannot vary), or below the rule's fewest items.
    """
    a, b = np.asarray(first, dtype=float), np.asarray(second, dtype=float)
    if a.size and np.array_equal(a, b):
        return Interval(0.0, None, None, int(a.size), IDENTICAL)
    return _mean(a - b, low - high, high - low, _fewest("mean_difference", min_n))


def kappa_interval(
    first: np.ndarray, second: np.ndarray, *, weights: str = "unweighted", min_n: int | None = None
) -> Interval:
    """Cohen's kappa between two sides' whole scores 0-5, with its 95 % interval (`RULES`' method).

    Args:
        first: One side's scores (whole, 0-5), one per item.
        second: The other side's, for the same items.
        weights: ``"unweighted"`` or ``"quadratic"``.
        min_n: Fewest items for an interval (default the rule's).

    Returns:
        Kappa and its interval; no estimate when a side gives a single score (kappa undefined),
        no interval below the rule's fewest items.
    """
    n = int(np.asarray(first).size)
    estimate = _kappa(first, second, weights)
    if estimate is None:
        return Interval(None, None, None, n, "kappa undefined")
    if n < _fewest(_KAPPA_RULE[weights], min_n):
        return Interval(estimate, None, None, n, too_few(n))
    _, lo, hi = kappa_intervals(confusion_of(first, second), weights=weights, min_n=min_n)
    return _checked(estimate, float(lo), float(hi), n)


def kappa_intervals(
    confusion: np.ndarray, *, weights: str = "unweighted", min_n: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Kappa and its 95 % interval for each 6 x 6 confusion matrix of counts, at once.

    The vectorised form of `kappa_interval` (which calls it), for many tables at once.

    Args:
        confusion: Counts, rows one side's score and columns the other's (last two axes 6 x 6).
        weights: ``"unweighted"`` or ``"quadratic"``.
        min_n: Fewest items for an interval (default the rule's).

    Returns:
        Estimates, lower and upper ends; NaN where kappa is undefined (estimate too) or the table
        has fewer items than the rule's (ends only).
    """
    counts = np.asarray(confusion, dtype=float)
    estimate = kappa_of_counts(counts, weights)
    score_lo, score_hi = score_bounds_of_counts(counts, weights, CONFIDENCE)
    z_lo, z_hi = jackknife_z_bounds_of_counts(counts, weights, CONFIDENCE)
    lo, hi = np.fmin(score_lo, z_lo), np.fmax(score_hi, z_hi)
    short = counts.sum(axis=(-1, -2)) < _fewest(_KAPPA_RULE[weights], min_n)
    bad = short | ~np.isfinite(estimate)
    return estimate, np.where(bad, np.nan, lo), np.where(bad, np.nan, hi)


def mean_kappa_interval(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]], *, statistic: str, min_n: int | None = None
) -> Interval:
    """The mean of several kappas (annotators, or run pairs) with the mean of their intervals.

    Each pair's kappa is on that pair's items. The ends are the means of the pairs' ends: if every
    pair's interval holds its kappa, the mean interval holds the mean kappa, so its coverage is at
    least that of the pairs together. Pairs whose kappa is undefined are left out, as they are from
    the mean.

    Args:
        pairs: ``(first, second)`` whole scores of each pair, on that pair's items.
        statistic: ``"kappa_per_annotator"`` or ``"self_consistency_kappa"`` (its rule).
        min_n: Fewest items for an interval (default the rule's).

    Returns:
        The mean kappa and its interval; n is the fewest items of a defined pair.
    """
    if not pairs:
        return Interval(None, None, None, 0, "kappa undefined")
    tables = [confusion_of(a, b)[None] for a, b in pairs]
    estimate, lo, hi, n = mean_kappa_intervals(tables, statistic=statistic, min_n=min_n)
    if not np.isfinite(estimate[0]):
        return Interval(None, None, None, 0, "kappa undefined")
    if not np.isfinite(lo[0]):
        return Interval(float(estimate[0]), None, None, int(n[0]), too_few(int(n[0])))
    return _checked(float(estimate[0]), float(lo[0]), float(hi[0]), int(n[0]))


def mean_kappa_intervals(
    tables: Sequence[np.ndarray], *, statistic: str, min_n: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`mean_kappa_interval` of many draws at once: one array of confusion matrices per pair.

    Args:
        tables: Per pair, its confusion matrices of counts (shape ``(draws, 6, 6)``).
        statistic: ``"kappa_per_annotator"`` or ``"self_consistency_kappa"`` (its rule).
        min_n: Fewest items for an interval (default the rule's).

    Returns:
        Mean kappa, lower and upper ends, and n (fewest items of a defined pair) per draw; NaN
        ends where n is below the rule's, NaN everywhere where no pair's kappa is defined.
    """
    kappas, los, his, sizes = [], [], [], []
    for counts in tables:
        kappa, lo, hi = kappa_intervals(counts, min_n=2)
        kappas.append(kappa)
        los.append(lo)
        his.append(hi)
        sizes.append(np.where(np.isfinite(kappa), counts.sum(axis=(-1, -2)), np.inf))
    kappa, lo, hi = np.array(kappas), np.array(los), np.array(his)
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a draw with no defined pair: NaN, said above
        estimate, low, high = np.nanmean(kappa, axis=0), np.nanmean(lo, axis=0), np.nanmean(hi, axis=0)
    n = np.min(np.array(sizes), axis=0)
    short = ~(n >= _fewest(statistic, min_n))
    n = np.where(np.isfinite(n), n, 0).astype(int)
    return estimate, np.where(short, np.nan, low), np.where(short, np.nan, high), n


def kappa_difference_interval(
    reference: np.ndarray, first: np.ndarray, second: np.ndarray, *, min_n: int | None = None
) -> Interval:
    """Kappa of ``first`` with ``reference`` minus kappa of ``second`` with it, on the same items.

    Args:
        reference: The reference scores (the humans'), whole 0-5.
        first: Judge A's whole scores, same items.
        second: Judge B's.
        min_n: Fewest items for an interval (default the rule's).

    Returns:
        The difference with its paired jackknife interval; none when the judges are identical item
        for item, when a leave-one-out kappa is undefined, or below the rule's fewest items.
    """
    n = int(np.asarray(reference).size)
    a, b = _kappa(reference, first, "unweighted"), _kappa(reference, second, "unweighted")
    if a is None or b is None:
        return Interval(None, None, None, n, "kappa undefined")
    estimate = a - b
    if np.array_equal(np.asarray(first), np.asarray(second)):
        return Interval(estimate, None, None, n, IDENTICAL)
    if n < _fewest("kappa_difference", min_n):
        return Interval(estimate, None, None, n, too_few(n))
    _, lo, hi = kappa_difference_intervals(
        *(np.asarray(x, dtype=int)[None] for x in (reference, first, second)), min_n=min_n
    )
    if not np.isfinite(lo[0]):
        return Interval(estimate, None, None, n, NO_VARIATION)
    return _checked(estimate, float(lo[0]), float(hi[0]), n)


def kappa_difference_intervals(
    reference: np.ndarray, first: np.ndarray, second: np.ndarray, *, min_n: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`kappa_difference_interval` of many draws at once (rows of whole scores, one size).

    Kappa without one item depends only on that item's cell of the 6 x 6 table, so each
    leave-one-out difference is read from two tables of 36 leave-one-out kappas.

    Returns:
        Differences, lower and upper ends of the jackknife t interval (kept within [-2, 2]); NaN
        ends where a leave-one-out kappa is undefined, no item moves the difference, the two
        judges are identical item for item, or the rows are shorter than the rule's; NaN
        estimates where a kappa is undefined.
    """
    reference, first, second = (np.asarray(x, dtype=int) for x in (reference, first, second))
    n = reference.shape[1]
    cells = np.eye(CATEGORIES * CATEGORIES).reshape(-1, CATEGORIES, CATEGORIES)
    estimate = np.zeros(reference.shape[0])
    without = np.zeros(reference.shape, dtype=float)
    for sign, judge in ((1.0, first), (-1.0, second)):
        counts = _confusions(reference, judge)
        estimate += sign * kappa_of_counts(counts, "unweighted")
        left = kappa_of_counts(counts[:, None] - cells, "unweighted")  # (draws, 36)
        without += sign * np.take_along_axis(left, reference * CATEGORIES + judge, axis=1)
    with np.errstate(invalid="ignore"):
        spread = np.sqrt((n - 1) / n * ((without - without.mean(axis=1, keepdims=True)) ** 2).sum(axis=1))
    half = t_quantile(n, CONFIDENCE) * spread
    bad = (
        ~np.isfinite(spread)
        | ~(spread > 1e-12)
        | (first == second).all(axis=1)
        | (n < _fewest("kappa_difference", min_n))
    )
    lo = np.where(bad, np.nan, np.maximum(estimate - half, -2.0))
    return estimate, lo, np.where(bad, np.nan, np.minimum(estimate + half, 2.0))


def _confusions(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """The 6 x 6 confusion matrix of counts of each row of paired scores."""
    draws, size = first.shape[0], CATEGORIES * CATEGORIES
    cells = first * CATEGORIES + second + (np.arange(draws) * size)[:, None]
    return (
        np.bincount(cells.ravel(), minlength=draws * size)
        .reshape(draws, CATEGORIES, CATEGORIES)
        .astype(float)
    )


def _fewest(statistic: str, min_n: int | None) -> int:
    return RULES[statistic].min_n if min_n is None else min_n


def _mean(values: Iterable[float], low: float, high: float, fewest: int) -> Interval:
    array = np.asarray([float(v) for v in values], dtype=float)
    array = array[np.isfinite(array)]
    n = int(array.size)
    if n == 0:
        return Interval(None, None, None, 0, "no scores")
    mean = float(array.mean())
    if n < fewest:
        return Interval(mean, None, None, n, too_few(n))
    lo, hi = betting_interval(array, low, high, 1 - CONFIDENCE)
    return _checked(mean, lo, hi, n)


def _kappa(first: np.ndarray, second: np.ndarray, weights: str) -> float | None:
    first, second = np.asarray(first, dtype=int), np.asarray(second, dtype=int)
    if first.size < 2:
        return None
    value = float(kappa_of_counts(confusion_of(first, second), weights))
    return value if math.isfinite(value) else None


def _checked(estimate: float, lo: float, hi: float, n: int) -> Interval:
    """The interval, widened to hold its estimate (rounding); none when it has no width."""
    lo, hi = min(lo, estimate), max(hi, estimate)
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi - lo <= 1e-12:
        return Interval(estimate, None, None, n, NO_VARIATION)
    return Interval(estimate, lo, hi, n)
