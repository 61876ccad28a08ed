"""The corrected columns of one table cell: human-only mean, prediction-powered mean and the judge's bias.

One cell is one generation's items in a theme, a trait or all of them. The judge scored every item
(its own mean and interval are the table's ``judge_mean`` columns); humans scored a uniform random
sample of them. From those the cell gets, each with its 95 % interval
(`vivid_inspect.lab.report.stats.ppi`, finite-population variance):

- ``human_mean``: the humans' mean over the labelled items of the cell;
- ``corrected_mean``: the prediction-powered (PPI++) mean, the judge's mean over every item of the
  cell corrected by the humans' scores;
- ``bias``: the judge's mean over the items it scored minus their corrected mean (positive:
  lenient); with ``lam = 1`` it is the mean of judge - human over the labelled items.

All three estimate means over every item of the cell, so an interval is printed only from
``intervals.RULES["corrected_mean"].min_n`` labelled items of the cell (chosen by
``bench/coverage_ppi.py``); below it the cell says `too_few`.

Items of the cell the judge left unscored (or refused) are a stratum of their own
(`with_unscored`): the estimand stays the mean human score over
every item of the cell, not over the items the judge could score. Means and intervals are clipped
to the score range (``score_range``, 0-5 by default; the bias to plus or minus its width) and to
what the labelled items alone allow (`vivid_inspect.lab.report.stats.ppi.labelled_bounds`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace

import numpy as np

from vivid_inspect.lab.report.stats.intervals import RULES, Interval, too_few
from vivid_inspect.lab.report.stats.ppi import (
    ALPHA,
    Estimate,
    missed_spread,
    ppi_mean,
    sampled_mean,
    with_unscored,
)

SCORE_RANGE = (0.0, 5.0)
"""The judge's and the humans' score range: no mean or interval extends past it."""
MIN_LABELLED = RULES["corrected_mean"].min_n
"""Fewest labelled items of a cell for an interval of its corrected, human-only or bias mean."""
VARIANCE_NOTE = (
    "human_mean, corrected_mean, bias: the humans' scores are taken as a uniform random sample of the "
    "generation's items; intervals: finite-population t interval (1 - n/N) s^2/n, printed from "
    f"{MIN_LABELLED} labelled items of the cell, within the score range; items the judge left unscored are "
    "a stratum of their own (docs: corrected-means)"
)


@dataclass(frozen=True)
class Corrected:
    """The corrected columns of one cell.

    Attributes:
        human: The humans' mean over the cell's labelled items.
        corrected: The prediction-powered mean over every item of the cell.
        bias: Judge minus humans over the labelled items.
        lam: The power-tuning parameter of ``corrected`` (0: the judge adds nothing, 1: plain PPI):
            the slope of the human scores on the judge's over the labelled items it scored, clipped
            to [0, 1].
        n_human: Labelled items of the cell (the judge's unscored ones included).
        n_items: Items of the cell the judge scored.
        n_human_unscored: Labelled items of the cell the judge left unscored.
        n_unscored: Items of the cell the judge left unscored.
        note: How the corrected interval was made when not the plain way (empty otherwise).
    """

    human: Interval
    corrected: Interval
    bias: Interval
    lam: float | None
    n_human: int
    n_items: int
    n_human_unscored: int = 0
    n_unscored: int = 0
    note: str = ""


def corrected_cell(
    judge: Mapping[int, float],
    human: Mapping[int, float],
    *,
    unscored: Collection[int] = (),
    min_n: int | None = None,
    alpha: float = ALPHA,
    score_range: tuple[float, float] = SCORE_RANGE,
) -> Corrected:
    """The corrected columns of a cell from the judge's and the humans' score per item.

    Args:
        judge: The judge's score of every item of the cell it scored (an item's epochs averaged).
        human: The humans' score of the labelled items (an item's annotators averaged); items
            neither in ``judge`` nor in ``unscored`` are not of the cell and are left out.
        unscored: Items of the cell the judge left unscored or refused: their own stratum.
        min_n: Fewest labelled items for an interval (default the rule's; the bench measures below it).
        alpha: One minus the confidence level.
        score_range: The lowest and highest score.

    Returns:
        The human-only mean, the corrected mean and the bias, each with its interval or the reason
        there is none.
    """
    fewest = MIN_LABELLED if min_n is None else min_n
    unscored = set(unscored) - set(judge)
    labelled = sorted(item for item in human if item in judge)
    y = np.array([human[i] for i in labelled], dtype=float)
    yhat = np.array([judge[i] for i in labelled], dtype=float)
    rest = np.array([judge[i] for i in sorted(judge) if i not in human], dtype=float)
    y_unscored = np.array([human[i] for i in sorted(unscored) if i in human], dtype=float)
    return corrected_arrays(
        y, yhat, rest, y_unscored, len(unscored), min_n=fewest, alpha=alpha, score_range=score_range
    )


def corrected_arrays(
    y: np.ndarray,
    yhat: np.ndarray,
    rest: np.ndarray,
    y_unscored: np.ndarray,
    n_unscored: int,
    *,
    min_n: int = MIN_LABELLED,
    alpha: float = ALPHA,
    score_range: tuple[float, float] = SCORE_RANGE,
) -> Corrected:
    """`corrected_cell` on arrays (the bench calls it directly, thousands of times).

    Args:
        y: Human scores of the labelled items the judge scored.
        yhat: The judge's scores of the same items.
        rest: The judge's scores of the unlabelled items it scored.
        y_unscored: Human scores of the labelled items the judge left unscored.
        n_unscored: Items the judge left unscored, labelled or not.
        min_n: Fewest labelled items for an interval.
        alpha: One minus the confidence level.
        score_range: The lowest and highest score.

    Returns:
        As `corrected_cell`.
    """
    n, scored = y.size, y.size + rest.size
    n_all = n + y_unscored.size
    if n_all == 0:
        empty = Interval(None, None, None, 0, "no human scores in this cell")
        return Corrected(empty, empty, empty, None, 0, scored, 0, n_unscored)
    scored_mean = ppi_mean(y, yhat, rest, alpha=alpha, bounds=score_range)
    corrected = with_unscored(scored_mean, y_unscored, n_unscored, bounds=score_range, alpha=alpha)
    # The human scores spread at least as the judge's do on the items the labels miss (95 % of scores at 5,
    # no 0 among the labels, the judge's 0s elsewhere): the human-only interval counts that spread too.
    missed = missed_spread(yhat, np.concatenate([yhat, rest]))
    human = sampled_mean(
        np.concatenate([y, y_unscored]), scored + n_unscored, alpha=alpha, bounds=score_range, extra=missed
    )
    bias = _bias(scored_mean, float(np.concatenate([yhat, rest]).mean()) if scored else 0.0)
    return Corrected(
        _interval(human, min_n),
        _interval(corrected, min_n),
        _interval(bias, min_n),
        corrected.lam if n else None,
        n_all,
        scored,
        y_unscored.size,
        n_unscored,
        corrected.note or "",
    )


def _bias(scored: Estimate, judge_mean: float) -> Estimate:
    """The judge's mean over the items it scored minus their corrected mean, with the mirrored interval.

    The judge's mean is exact (it scored every one of them), so the corrected mean's interval is the
    bias's. It is the mean of judge - human over the labelled items when ``lam`` is 1; a smaller
    ``lam`` (a judge that predicts the humans less than one for one) makes it more precise, and the
    guard on ``lam`` (`OFF_MODE_MIN`) keeps it honest when the
    labels hold too few of the judge's rare scores (the plain mean of judge - human covered 0.39 there).
    """
    if scored.estimate is None:
        return scored
    return replace(
        scored,
        estimate=judge_mean - scored.estimate,
        lo=None if scored.hi is None else judge_mean - scored.hi,
        hi=None if scored.lo is None else judge_mean - scored.lo,
        note=None,
    )


def _interval(estimate: Estimate, fewest: int) -> Interval:
    if estimate.n < fewest and estimate.n < estimate.n_items:
        return Interval(estimate.estimate, None, None, estimate.n, too_few(estimate.n))
    return Interval(estimate.estimate, estimate.lo, estimate.hi, estimate.n, estimate.reason)
