"""Which 95 % interval the report prints for a mean, and from what n: one place for every table.

An interval is printed only where ``bench/coverage.py`` measured its coverage at 93 % or more for
the n at hand; below that the cell says why instead (:attr:`Interval.reason`). An interval never
has zero width because the resampling or the sample could not vary.

The mean of scores bounded in ``[low, high]`` uses the Wilson score interval with the largest
variance a bounded variable of that mean can have (a two-point distribution at the bounds), so a
cell of all zeros (a weak model on a small theme) still gets an honest, non-zero width.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

CONFIDENCE = 0.95
Z95 = 1.959963984540054
MIN_N_MEAN = 5
"""Fewest scores for a mean's interval; below it the cell gives :func:`too_few` instead."""


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


def mean_interval(values: Iterable[float], *, low: float = 0.0, high: float = 5.0) -> Interval:
    """The mean of scores in ``[low, high]`` with its 95 % interval.

    Args:
        values: The scores (NaN are left out).
        low: Smallest possible score.
        high: Largest possible score.

    Returns:
        The mean and its interval; no interval below :data:`MIN_N_MEAN` scores.
    """
    array = np.asarray([float(v) for v in values], dtype=float)
    array = array[np.isfinite(array)]
    n = int(array.size)
    if n == 0:
        return Interval(None, None, None, 0, "no scores")
    mean = float(array.mean())
    if n < MIN_N_MEAN:
        return Interval(mean, None, None, n, too_few(n))
    lo, hi = _wilson_bounded(mean, n, low, high)
    return Interval(mean, lo, hi, n)


def _wilson_bounded(mean: float, n: int, low: float, high: float) -> tuple[float, float]:
    width = high - low
    p = min(max((mean - low) / width, 0.0), 1.0)
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return low + width * max(centre - half, 0.0), low + width * min(centre + half, 1.0)


DIFFERENCE_BOUND = 5.0
"""A difference of two 0-5 scores lies in ``[-5, 5]``."""


def paired_difference_interval(differences: Iterable[float]) -> Interval:
    """The mean of paired differences of two 0-5 scores (one per item) with its 95 % interval.

    The same Wilson interval with the bounded-variance bound as :func:`mean_interval`, on the
    range a difference can take, ``[-5, 5]``: it never has zero width (every item improving by
    exactly one point still leaves the mean uncertain) and never leaves the range.

    Args:
        differences: One difference per item both conditions scored (NaN are left out).

    Returns:
        The mean difference and its interval; no interval below :data:`MIN_N_MEAN` items.
    """
    return mean_interval(differences, low=-DIFFERENCE_BOUND, high=DIFFERENCE_BOUND)
