"""Coverage of the paired difference interval: few-shot minus zero-shot over the items both scored.

The report's ``prompt_difference`` table prints
:func:`vivid_inspect.report.intervals.paired_difference_interval` around the mean of one difference
per item (each in ``[-5, 5]``). Here the differences are drawn from known discrete distributions on
-5..5 (a rounded normal of planted mean shift and spread, clipped to the range, whose exact mean is
the planted value), for every n the report can meet, including shifts near the edges (±4.5) where
a symmetric interval would leave the range.
"""

from __future__ import annotations

import math

import numpy as np
from coverage_common import CoverageTable, wilson

from vivid_inspect.report.intervals import paired_difference_interval

REPS = 1000
QUICK_REPS = 100
NS = (5, 8, 10, 15, 20, 30, 50, 200)
SHIFTS = (-4.5, -2.0, -0.5, 0.0, 0.5, 2.0, 4.5)
SPREADS = (0.5, 1.5)
VALUES = np.arange(-5, 6)


def _distribution(shift: float, spread: float) -> np.ndarray:
    """Probabilities of -5..5: a normal of mean ``shift`` rounded to whole points, clipped to the range."""
    edges = np.concatenate(([-math.inf], VALUES[:-1] + 0.5, [math.inf]))
    cdf = np.array([0.5 * (1 + math.erf((e - shift) / (spread * math.sqrt(2)))) for e in edges])
    return np.diff(cdf)


def run(reps: int, quick: bool, seed: int) -> list[CoverageTable]:
    """Coverage and width per n, the worst case over the planted shifts and spreads."""
    rng = np.random.default_rng(seed)
    rows = []
    for n in NS:
        worst, worst_at, widths, printed = 2.0, "", [], 0
        for shift in SHIFTS:
            for spread in SPREADS:
                p = _distribution(shift, spread)
                truth = float(p @ VALUES)
                covered = 0
                for _ in range(reps):
                    interval = paired_difference_interval(rng.choice(VALUES, size=n, p=p).astype(float))
                    if interval.lo is None or interval.hi is None:
                        continue
                    printed += 1
                    widths.append(interval.hi - interval.lo)
                    covered += interval.lo <= truth <= interval.hi
                rate = covered / reps
                if rate < worst or (rate == worst and not worst_at):
                    worst, worst_at = rate, f"shift {shift:+.1f}, spread {spread}"
        low, high = wilson(round(worst * reps), reps)
        rows.append(
            (
                n,
                "yes" if printed else "no (too few items)",
                worst if printed else None,
                f"[{low:.3f}, {high:.3f}]" if printed else "",
                worst_at if printed else "",
                float(np.mean(widths)) if widths else None,
            )
        )
    lowest = min((row[2] for row in rows if row[2] is not None), default=None)
    notes = [
        f"{len(SHIFTS) * len(SPREADS)} planted distributions per n (shifts {', '.join(f'{s:+g}' for s in SHIFTS)}; "
        f"spreads {', '.join(map(str, SPREADS))}), {reps} repetitions each; coverage: the worst of them, at: "
        "the first planted distribution where it occurs",
        f"lowest coverage over every n: {lowest:.3f}" if lowest is not None else "no interval printed",
        "the interval is Wilson's with the bounded-variance bound on [-5, 5], as mean_interval's: its width is "
        "that of the widest distribution a difference of that mean can have, whatever the data's spread",
    ]
    table = CoverageTable(
        "paired_difference_interval: few-shot minus zero-shot (95 %)",
        ["n", "interval printed", "worst coverage", "its 95 % MC interval", "at", "mean width"],
        rows,
        notes,
    )
    return [table]
