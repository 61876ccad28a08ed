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
    width = high - low
    y = np.clip((np.asarray(values, dtype=float) - low) / width, 0.0, 1.0)
    bets = _bets(y, alpha)
    threshold = math.log(1 / alpha)
    grid = np.unique(np.concatenate([np.linspace(0.0, 1.0, _GRID + 1), [float(y.mean())]]))
    kept = ~_rejected(y, bets, grid, threshold)
    if not kept.any():  # cannot happen for a martingale test with these bets; the safe answer
        return low, high
    first, last = int(np.argmax(kept)), len(grid) - 1 - int(np.argmax(kept[::-1]))
    # Each end lies between a rejected and a kept candidate (or is the range's own end).
    rejected = np.array([grid[first - 1] if first else 0.0, grid[last + 1] if last < len(grid) - 1 else 1.0])
    inside = np.array([grid[first], grid[last]])
    open_end = np.array([first > 0, last < len(grid) - 1])
    for _ in range(_BISECTIONS):
        middle = (rejected + inside) / 2
        out = _rejected(y, bets, middle, threshold)
        rejected = np.where(out, middle, rejected)
        inside = np.where(out, inside, middle)
    # The rejected side of each end: the interval is never narrower than the set it approximates.
    lo, hi = (float(v) for v in np.where(open_end, rejected, [0.0, 1.0]))
    return low + width * lo, low + width * hi


def _bets(y: np.ndarray, alpha: float) -> np.ndarray:
    """The predictable plug-in bet of each item: from the running mean and variance before it."""
    n = y.size
    t = np.arange(1, n + 1)
    mean = np.minimum((0.5 + np.cumsum(y)) / (t + 1), 1.0)
    variance = (0.25 + np.cumsum((y - mean) ** 2)) / (t + 1)
    before = np.concatenate([[0.25], variance[:-1]])
    return np.sqrt(2 * math.log(1 / alpha) / (n * before))


def _rejected(y: np.ndarray, bets: np.ndarray, means: np.ndarray, threshold: float) -> np.ndarray:
    """Whether the hedged capital against each candidate mean ever reaches ``1/alpha``."""
    m = means[:, None]
    with np.errstate(divide="ignore"):
        up = np.minimum(bets[None, :], _TRUNCATION / m)
        down = np.minimum(bets[None, :], _TRUNCATION / (1 - m))
    # Both bets are truncated below 1/m and 1/(1-m), so each factor stays positive.
    gain_up = np.cumsum(np.log1p(up * (y[None, :] - m)), axis=1) + math.log(_THETA)
    gain_down = np.cumsum(np.log1p(-down * (y[None, :] - m)), axis=1) + math.log(1 - _THETA)
    capital = np.maximum(gain_up, gain_down).max(axis=1)
    return np.asarray(capital >= threshold)
