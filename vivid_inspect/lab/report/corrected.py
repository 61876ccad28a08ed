"""The corrected columns of one table cell: human-only mean, prediction-powered mean and the judge's bias.

One cell is one generation's items in a theme, a trait or all of them. The judge scored every item
(its own mean and interval are the table's ``judge_mean`` columns); humans scored a uniform random
sample of them. From those the cell gets, each with its 95 % interval
(:mod:`vivid_inspect.lab.report.ppi`, finite-population variance):

- ``human_mean``: the humans' mean over the labelled items of the cell;
- ``corrected_mean``: the prediction-powered (PPI++) mean, the judge's mean over every item of the
  cell corrected by the humans' scores;
- ``bias``: the judge's mean minus the humans' over the labelled items (positive: lenient).

All three estimate means over every item of the cell, so an interval is printed only from
``intervals.RULES["corrected_mean"].min_n`` labelled items of the cell (chosen by
``bench/coverage_ppi.py``); below it the cell says :func:`~vivid_inspect.lab.report.intervals.too_few`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from vivid_inspect.lab.report.intervals import RULES, Interval, too_few
from vivid_inspect.lab.report.ppi import ALPHA, Estimate, ppi_mean, sampled_mean

MIN_LABELLED = RULES["corrected_mean"].min_n
"""Fewest labelled items of a cell for an interval of its corrected, human-only or bias mean."""
VARIANCE_NOTE = (
    "human_mean, corrected_mean, bias: the humans' scores are taken as a uniform random sample of the "
    "generation's items; intervals: finite-population t interval (1 - n/N) s^2/n, printed from "
    f"{MIN_LABELLED} labelled items of the cell (docs: corrected-means)"
)


@dataclass(frozen=True)
class Corrected:
    """The corrected columns of one cell.

    Attributes:
        human: The humans' mean over the cell's labelled items.
        corrected: The prediction-powered mean over every item of the cell.
        bias: Judge minus humans over the labelled items.
        lam: The power-tuning parameter of ``corrected`` (0: the judge adds nothing, 1: plain PPI).
        n_human: Labelled items of the cell.
        n_items: Items of the cell the judge scored.
    """

    human: Interval
    corrected: Interval
    bias: Interval
    lam: float | None
    n_human: int
    n_items: int


def corrected_cell(
    judge: Mapping[int, float], human: Mapping[int, float], *, min_n: int | None = None, alpha: float = ALPHA
) -> Corrected:
    """The corrected columns of a cell from the judge's and the humans' score per item.

    Args:
        judge: The judge's score of every item of the cell it scored (an item's epochs averaged).
        human: The humans' score of the labelled items (an item's annotators averaged); items the
            judge did not score cannot be corrected and are left out.
        min_n: Fewest labelled items for an interval (default the rule's; the bench measures below it).
        alpha: One minus the confidence level.

    Returns:
        The human-only mean, the corrected mean and the bias, each with its interval or the reason
        there is none.
    """
    fewest = MIN_LABELLED if min_n is None else min_n
    labelled = sorted(item for item in human if item in judge)
    y = np.array([human[i] for i in labelled], dtype=float)
    yhat = np.array([judge[i] for i in labelled], dtype=float)
    rest = np.array([judge[i] for i in sorted(judge) if i not in human], dtype=float)
    n, total = len(labelled), len(judge)
    if n == 0:
        empty = Interval(None, None, None, 0, "no human scores in this cell")
        return Corrected(empty, empty, empty, None, 0, total)
    corrected = ppi_mean(y, yhat, rest, alpha=alpha)
    return Corrected(
        _interval(sampled_mean(y, total, alpha=alpha), fewest),
        _interval(corrected, fewest),
        _interval(sampled_mean(yhat - y, total, alpha=alpha), fewest),
        corrected.lam,
        n,
        total,
    )


def _interval(estimate: Estimate, fewest: int) -> Interval:
    if estimate.n < fewest and estimate.n < estimate.n_items:
        return Interval(estimate.estimate, None, None, estimate.n, too_few(estimate.n))
    return Interval(estimate.estimate, estimate.lo, estimate.hi, estimate.n, estimate.reason)
