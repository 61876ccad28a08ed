"""One table cell's corrected columns (report/corrected.py): the estimators under the report's rule."""

from __future__ import annotations

import numpy as np
import pytest

from vivid_inspect.lab.report.corrected import MIN_LABELLED, corrected_cell
from vivid_inspect.lab.report.intervals import RULES, too_few
from vivid_inspect.lab.report.ppi import ALL_LABELLED, ppi_mean, sampled_mean


def _cell(seed: int, items: int, labelled: int) -> tuple[dict[int, float], dict[int, float]]:
    rng = np.random.default_rng(seed)
    human = rng.choice(6, size=items, p=[0.05, 0.1, 0.15, 0.25, 0.25, 0.2]).astype(float)
    judge = np.clip(np.rint(human + 0.7 + rng.normal(0, 0.8, items)), 0, 5)
    chosen = rng.choice(items, size=labelled, replace=False)
    ids = rng.permutation(10_000)[:items] + 1  # sample ids are not positions
    return {int(ids[i]): float(judge[i]) for i in range(items)}, {
        int(ids[i]): float(human[i]) for i in chosen
    }


def test_the_cell_is_the_estimators_on_its_items():
    judge, human = _cell(0, 400, 60)
    cell = corrected_cell(judge, human)
    labelled = sorted(human)
    y = np.array([human[i] for i in labelled])
    yhat = np.array([judge[i] for i in labelled])
    rest = np.array([judge[i] for i in sorted(judge) if i not in human])
    expected = ppi_mean(y, yhat, rest)
    assert (cell.corrected.estimate, cell.corrected.lo, cell.corrected.hi) == (
        expected.estimate,
        expected.lo,
        expected.hi,
    )
    alone = sampled_mean(y, 400)
    assert (cell.human.estimate, cell.human.lo, cell.human.hi) == (alone.estimate, alone.lo, alone.hi)
    assert cell.bias.estimate == pytest.approx(float(np.mean(yhat - y)))
    assert cell.bias.estimate > 0  # the planted judge is lenient
    assert (cell.n_human, cell.n_items, cell.lam) == (60, 400, expected.lam)


def test_the_order_of_items_does_not_change_the_cell():
    judge, human = _cell(1, 200, 40)
    shuffled = dict(reversed(list(judge.items())))
    assert corrected_cell(shuffled, dict(reversed(list(human.items())))) == corrected_cell(judge, human)


def test_below_the_rule_a_cell_says_too_few():
    judge, human = _cell(2, 300, MIN_LABELLED - 1)
    cell = corrected_cell(judge, human)
    for interval in (cell.corrected, cell.human, cell.bias):
        assert interval.estimate is not None and interval.lo is None
        assert interval.reason == too_few(MIN_LABELLED - 1)
    assert RULES["corrected_mean"].min_n == MIN_LABELLED
    assert corrected_cell(judge, human, min_n=5).corrected.lo is not None


def test_a_cell_labelled_whole_is_exact_however_small():
    judge, human = _cell(3, 6, 6)
    cell = corrected_cell(judge, human)
    assert cell.corrected.estimate == pytest.approx(np.mean(list(human.values())))
    assert cell.corrected.reason == ALL_LABELLED


def test_human_scores_of_items_the_judge_did_not_score_are_left_out():
    judge, human = _cell(4, 100, 40)
    extra = dict(human) | {99_999: 5.0}
    assert corrected_cell(judge, extra) == corrected_cell(judge, human)


def test_a_cell_without_human_scores_says_so():
    judge, _ = _cell(5, 50, 0)
    cell = corrected_cell(judge, {})
    assert cell.n_human == 0 and cell.corrected.estimate is None
    assert cell.corrected.reason == "no human scores in this cell"
