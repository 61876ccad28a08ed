"""A confidence interval for the mean of bounded scores that holds at every n: the betting interval.

Waudby-Smith and Ramdas (2024), "Estimating means of bounded random variables by betting", JRSS-B
86(1). For each candidate mean ``m`` a gambler bets, item by item, that the scores lie above
``m`` and (with the other half of the capital) below it, sizing each bet from the items seen so
far only. If ``m`` is the true mean the capital is a nonnegative martingale, so by Ville's
inequality it reaches ``1/alpha`` with probability at most ``alpha``; the interval is every ``m``
whose capital never did. This holds for any distribution of scores in ``[low, high]`` and any
number of items, with no normal approximation, so a weak model's mostly-zero scores or a
two-point spread do not break it (the Wilson interval with the bounded variance covers 83 % at
some means; ``bench/coverage_means.py``).

The choices are the paper's fixed-n recommendations: the hedged capital process with
``theta = 1/2``, the predictable plug-in bet ``sqrt(2 log(1/alpha) / (n sigma^2_{t-1}))`` from a
running variance that starts at 1/4 with one pseudo-score at 1/2, and bets truncated at
``3/(4m)`` and ``3/(4(1-m))`` so that no bet can lose the whole capital. The items are taken in
the order given (callers pass them in item-id order, which does not depend on the scores).
"""

from __future__ import annotations

import math

import numpy as np

_GRID = 32
"""Candidate means first tried on this many steps of the unit range; each end is then bisected."""
_BISECTIONS = 14
"""Halvings of each end's last grid step: to within 1/(32 * 2**14) of the range, far below a printed digit."""
_TRUNCATION = 0.75
_THETA = 0.5


def betting_interval(values: np.ndarray, low: float, high: float, alpha: float) -> tuple[float, float]:
    """The betting confidence interval of the mean of ``values``, all within ``[low, high]``.

    Args:
        values: The scores, in an order that does not depend on their values (at least 1).
        low: Smallest possible score.
        high: Largest possible score (above ``low``).
        alpha: One minus the confidence level.

    Returns:
        The interval's ends, within ``[low, high]``; never of zero width.
    """
    lo, hi = betting_intervals(np.asarray(values, dtype=float)[None, :], low, high, alpha)
    return float(lo[0]), float(hi[0])


def betting_intervals(
    values: np.ndarray, low: float, high: float, alpha: float
) -> tuple[np.ndarray, np.ndarray]:
    """`betting_interval` of each row of ``values`` (samples of the same size), at once.

    Returns:
        Lower and upper ends, one per row.
    """
    width = high - low
    y = np.clip((np.asarray(values, dtype=float) - low) / width, 0.0, 1.0)
    bets = _bets(y, alpha)
    threshold = math.log(1 / alpha)
    rows = np.arange(y.shape[0])
    base = np.linspace(0.0, 1.0, _GRID + 1)
    grid = np.sort(
        np.concatenate([np.broadcast_to(base, (y.shape[0], base.size)), y.mean(axis=1)[:, None]], 1), 1
    )
    kept = ~_rejected(y, bets, grid, threshold)
    last_column = grid.shape[1] - 1
    # A row with no kept candidate cannot happen for a martingale test with these bets; the safe
    # answer is then the whole range (first 0, last the final column, both ends closed).
    none = np.asarray(~kept.any(axis=1))
    first = np.where(none, 0, np.argmax(kept, axis=1))
    last = np.where(none, last_column, last_column - np.argmax(kept[:, ::-1], axis=1))
    # Each end lies between a rejected and a kept candidate (or is the range's own end).
    rejected = np.stack(
        [
            np.where(first > 0, grid[rows, np.maximum(first - 1, 0)], 0.0),
            np.where(last < last_column, grid[rows, np.minimum(last + 1, last_column)], 1.0),
        ],
        axis=1,
    )
    inside = np.stack([grid[rows, first], grid[rows, last]], axis=1)
    open_end = np.stack([first > 0, last < last_column], axis=1) & ~none[:, None]
    for _ in range(_BISECTIONS):
        middle = (rejected + inside) / 2
        out = _rejected(y, bets, middle, threshold)
        rejected = np.where(out, middle, rejected)
        inside = np.where(out, inside, middle)
    # The rejected side of each end: the interval is never narrower than the set it approximates.
    ends = np.where(open_end, rejected, np.array([0.0, 1.0]))
    return low + width * ends[:, 0], low + width * ends[:, 1]


def _bets(y: np.ndarray, alpha: float) -> np.ndarray:
    """The predictable plug-in bet of each item (last axis): from the running mean and variance before it."""
    n = y.shape[-1]
    t = np.arange(1, n + 1)
    mean = np.minimum((0.5 + np.cumsum(y, axis=-1)) / (t + 1), 1.0)
    variance = (0.25 + np.cumsum((y - mean) ** 2, axis=-1)) / (t + 1)
    before = np.concatenate([np.full((*y.shape[:-1], 1), 0.25), variance[..., :-1]], axis=-1)
    return np.sqrt(2 * math.log(1 / alpha) / (n * before))


def _rejected(y: np.ndarray, bets: np.ndarray, means: np.ndarray, threshold: float) -> np.ndarray:
    """Whether the hedged capital of each row against each of its candidate means ever reaches ``1/alpha``."""
    m = means[:, :, None]
    with np.errstate(divide="ignore"):
        up = np.minimum(bets[:, None, :], _TRUNCATION / m)
        down = np.minimum(bets[:, None, :], _TRUNCATION / (1 - m))
    # Both bets are truncated below 1/m and 1/(1-m), so each factor stays positive.
    gain_up = np.cumsum(np.log1p(up * (y[:, None, :] - m)), axis=2) + math.log(_THETA)
    gain_down = np.cumsum(np.log1p(-down * (y[:, None, :] - m)), axis=2) + math.log(1 - _THETA)
    capital = np.maximum(gain_up, gain_down).max(axis=2)
    return np.asarray(capital >= threshold)
