"""The report's mean interval: never zero width, no interval below its fewest scores."""

from __future__ import annotations

import math

import pytest

from vivid_inspect.report.intervals import MIN_N_MEAN, mean_interval, too_few


@pytest.mark.parametrize("value", [0.0, 5.0, 2.0])
def test_a_constant_sample_still_has_a_non_zero_width(value: float) -> None:
    interval = mean_interval([value] * 20)
    assert interval.estimate == value
    assert interval.lo is not None and interval.hi is not None
    assert interval.lo <= value <= interval.hi
    assert interval.hi - interval.lo > 0


def test_below_the_fewest_scores_the_cell_says_why() -> None:
    interval = mean_interval([3.0] * (MIN_N_MEAN - 1))
    assert interval.lo is None and interval.hi is None
    assert interval.reason == too_few(MIN_N_MEAN - 1)
    assert interval.estimate == 3.0


def test_nan_scores_are_left_out() -> None:
    interval = mean_interval([1.0, math.nan, 3.0, 2.0, 2.0, 2.0])
    assert interval.n == 5 and interval.estimate == 2.0


def test_no_scores() -> None:
    interval = mean_interval([])
    assert interval.estimate is None and interval.n == 0 and interval.reason == "no scores"
