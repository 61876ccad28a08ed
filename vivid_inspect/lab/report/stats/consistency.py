"""A judge against itself: test-retest agreement over repeated runs, and the share of unparsed replies."""

from __future__ import annotations

import itertools
import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from sklearn.metrics import cohen_kappa_score

from vivid_inspect.lab.report.stats.intervals import Interval, mean_kappa_interval
from vivid_inspect.lab.report.stats.score_stats import (
    SCORES,
    Row,
    ScoreMap,
    as_row_of,
    categories,
    clean_scores,
    constant_reason,
    note_left_out,
    quiet,
    sorted_ids,
)


@dataclass(frozen=True)
class Consistency:
    """Test-retest agreement of one judge run several times on the same items.

    ``mean_kappa_lo``/``_hi`` are its 95 % interval: the mean over run pairs of each pair's
    kappa score interval (`mean_kappa_interval`), None
    where none is printed; ``interval`` holds it with the reason.
    """

    runs: int
    n: int
    mean_kappa: float | None
    mean_kappa_lo: float | None
    mean_kappa_hi: float | None
    mean_exact: float | None
    flip_rate: float | None
    """Share of items whose score is not the same in every run."""
    notes: tuple[str, ...] = ()
    interval: Interval | None = None

    def as_row(self) -> Row:
        """One table row, rounded to 4 decimals, notes joined."""
        return as_row_of(self, skip=("interval",))


def self_consistency(runs: Sequence[ScoreMap], *, intervals: bool = True) -> Consistency:
    """Test-retest agreement of a judge run k >= 2 times on the same items.

    Args:
        runs: One score map per run, keyed by item id.
        intervals: Also the 95 % interval of the mean kappa.

    Returns:
        Mean pairwise Cohen's kappa and exact agreement over the items every run scored, and the
        share of those items whose score changed between runs.

    Raises:
        ValueError: Fewer than two runs, or a score that is not a number from 0 to 5.
    """
    if len(runs) < 2:
        raise ValueError(f"self_consistency needs at least 2 runs of the judge, got {len(runs)}")
    notes: list[str] = []
    maps = [clean_scores(run, f"run {r}", notes) for r, run in enumerate(runs, start=1)]
    ids = sorted_ids(set.intersection(*(set(m) for m in maps)))
    note_left_out(set().union(*maps), ids, "were not scored in every run", notes)
    n = len(ids)
    if n == 0:
        notes.append("no item was scored in every run")
        return Consistency(
            runs=len(runs),
            n=0,
            mean_kappa=None,
            mean_kappa_lo=None,
            mean_kappa_hi=None,
            mean_exact=None,
            flip_rate=None,
            notes=tuple(notes),
        )
    matrix = np.vstack(
        [
            categories(np.array([m[i] for i in ids], dtype=float), f"run {r}", notes)
            for r, m in enumerate(maps, 1)
        ]
    )
    pairs = list(itertools.combinations(range(len(runs)), 2))
    exact = [float(np.mean(matrix[p] == matrix[q])) for p, q in pairs]
    kappas: list[float] = []
    undefined: list[str] = []
    for p, q in pairs:
        reason = (
            "only 1 item" if n < 2 else constant_reason(matrix[p], matrix[q], f"run {p + 1}", f"run {q + 1}")
        )
        if reason:
            undefined.append(reason)
        else:
            with quiet():
                kappas.append(float(cohen_kappa_score(matrix[p], matrix[q], labels=list(SCORES))))
    if undefined:
        notes.append(
            f"kappa undefined for {len(undefined)} of {len(pairs)} run pairs: {'; '.join(undefined)}"
        )
    interval = (
        mean_kappa_interval([(matrix[p], matrix[q]) for p, q in pairs], statistic="self_consistency_kappa")
        if kappas and intervals
        else None
    )
    return Consistency(
        runs=len(runs),
        n=n,
        mean_kappa=float(np.mean(kappas)) if kappas else None,
        mean_kappa_lo=None if interval is None else interval.lo,
        mean_kappa_hi=None if interval is None else interval.hi,
        mean_exact=float(np.mean(exact)),
        flip_rate=float(np.mean((matrix != matrix[0]).any(axis=0))),
        notes=tuple(notes),
        interval=interval,
    )


def parse_failure_rate(n_scored: int, n_unscored: int) -> float | None:
    """Share of judge replies that yielded no score.

    Args:
        n_scored: Items the judge scored.
        n_unscored: Items whose judge reply had no parseable score.

    Returns:
        ``n_unscored / (n_scored + n_unscored)``, or ``None`` when both are 0.

    Raises:
        ValueError: A count is not a non-negative integer.
    """
    for name, value in (("n_scored", n_scored), ("n_unscored", n_unscored)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    total = n_scored + n_unscored
    return None if total == 0 else n_unscored / total
