"""One table cell's corrected columns (report/stats/corrected.py): the estimators under the report's rule."""

from __future__ import annotations

import numpy as np
import pytest

from vivid_inspect.lab.report.stats.corrected import MIN_LABELLED, SCORE_RANGE, corrected_cell
from vivid_inspect.lab.report.stats.intervals import RULES, too_few
from vivid_inspect.lab.report.stats.ppi import (
    ALL_LABELLED,
    UNSCORED_MIN,
    missed_spread,
    ppi_mean,
    sampled_mean,
)
from vivid_inspect.lab.report.tables.corrected_tables import CORRECTED_COLUMNS, corrected_columns


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
    expected = ppi_mean(y, yhat, rest, bounds=SCORE_RANGE)
    assert (cell.corrected.estimate, cell.corrected.lo, cell.corrected.hi) == (
        expected.estimate,
        expected.lo,
        expected.hi,
    )
    every = np.concatenate([yhat, rest])
    alone = sampled_mean(y, 400, bounds=SCORE_RANGE, extra=missed_spread(yhat, every))
    assert (cell.human.estimate, cell.human.lo, cell.human.hi) == (alone.estimate, alone.lo, alone.hi)
    judge_mean = every.mean()
    assert (cell.bias.estimate, cell.bias.lo, cell.bias.hi) == pytest.approx(
        (judge_mean - expected.estimate, judge_mean - expected.hi, judge_mean - expected.lo), abs=1e-12
    )
    # with lam = 1 the bias is the mean of judge - human over the labelled items
    assert expected.lam < 1 or cell.bias.estimate == pytest.approx(float(np.mean(yhat - y)))
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


def _with_unscored(seed: int, labelled_unscored: int) -> tuple[dict[int, float], dict[int, float], set[int]]:
    """400 items, the 60 lowest-scored by humans unscored by the judge; 80 labelled, `labelled_unscored` of them unscored."""
    rng = np.random.default_rng(seed)
    human = np.sort(rng.choice(6, size=400, p=[0.05, 0.1, 0.15, 0.25, 0.25, 0.2]).astype(float))
    judge = np.clip(np.rint(human + 0.5 + rng.normal(0, 0.8, 400)), 0, 5)
    unscored = set(range(60))
    chosen = [
        *rng.choice(60, size=labelled_unscored, replace=False),
        *rng.choice(np.arange(60, 400), 80, replace=False),
    ]
    scores = {i: float(judge[i]) for i in range(60, 400)}
    return scores, {int(i): float(human[i]) for i in chosen}, unscored


def test_unscored_items_are_a_stratum_weighted_by_their_share_of_every_item():
    judge, human, unscored = _with_unscored(0, UNSCORED_MIN + 5)
    cell = corrected_cell(judge, human, unscored=unscored)
    scored_ids = sorted(i for i in human if i in judge)
    y = np.array([human[i] for i in scored_ids])
    yhat = np.array([judge[i] for i in scored_ids])
    rest = np.array([judge[i] for i in sorted(judge) if i not in human])
    hu = np.array([human[i] for i in sorted(unscored) if i in human])
    scored = ppi_mean(y, yhat, rest, bounds=SCORE_RANGE)
    own = sampled_mean(hu, 60, bounds=SCORE_RANGE)
    share = 60 / 400
    estimate = (1 - share) * scored.estimate + share * own.estimate
    down = np.hypot((1 - share) * (scored.estimate - scored.lo), share * (own.estimate - own.lo))
    up = np.hypot((1 - share) * (scored.hi - scored.estimate), share * (own.hi - own.estimate))
    assert (cell.corrected.estimate, cell.corrected.lo, cell.corrected.hi) == pytest.approx(
        (estimate, estimate - down, estimate + up), abs=1e-12
    )
    assert (cell.n_human, cell.n_human_unscored, cell.n_unscored, cell.n_items) == (95, 15, 60, 340)
    assert cell.note == ""
    # the human-only mean is over every labelled item, unscored ones included; the bias over the scored ones
    assert cell.human.estimate == pytest.approx(float(np.mean([*y, *hu])))
    assert cell.bias.n == 80


@pytest.mark.parametrize("labelled_unscored", [0, 1, UNSCORED_MIN - 1])
@pytest.mark.parametrize("score_range", [(0.0, 5.0), (0.0, 10.0), (1.0, 5.0)])
def test_with_few_labelled_unscored_items_their_share_spans_the_whole_range(
    labelled_unscored: int, score_range: tuple[float, float]
):
    judge, human, unscored = _with_unscored(1, labelled_unscored)
    cell = corrected_cell(judge, human, unscored=unscored, score_range=score_range)
    scored_ids = sorted(i for i in human if i in judge)
    y = np.array([human[i] for i in scored_ids])
    yhat = np.array([judge[i] for i in scored_ids])
    rest = np.array([judge[i] for i in sorted(judge) if i not in human])
    scored = ppi_mean(y, yhat, rest, bounds=score_range)
    share, (low, high) = 60 / 400, score_range
    hu = [human[i] for i in unscored if i in human]
    middle = float(np.clip(np.mean(hu), low, high)) if hu else scored.estimate
    # the unscored stratum's mean: its labelled items as they are, the other ones anywhere in the range
    bottom, top = ((sum(hu) + (60 - len(hu)) * end) / 60 for end in score_range)
    assert cell.corrected.estimate == pytest.approx((1 - share) * scored.estimate + share * middle, abs=1e-12)
    assert cell.corrected.lo == pytest.approx(max((1 - share) * scored.lo + share * bottom, low), abs=1e-12)
    assert cell.corrected.hi == pytest.approx(min((1 - share) * scored.hi + share * top, high), abs=1e-12)
    assert f"({share:.1%}) is bounded by the whole score range {low:g}-{high:g}" in cell.note
    assert cell.n_human_unscored == labelled_unscored


def test_without_unscored_items_the_cell_is_the_scored_estimate():
    judge, human = _cell(6, 300, 50)
    assert corrected_cell(judge, human, unscored=set(judge)) == corrected_cell(judge, human)


def _skewed(seed: int, items: int = 400) -> tuple[np.ndarray, np.ndarray]:
    """95 % of human scores 5, the rest 0; the judge agrees but for rare off-by-one."""
    rng = np.random.default_rng(seed)
    human = np.where(rng.random(items) < 0.95, 5.0, 0.0)
    return human, np.clip(human + rng.choice([-1, 0, 1], size=items, p=[0.04, 0.94, 0.02]), 0, 5)


@pytest.mark.parametrize("seed", range(4))
def test_no_zero_among_the_labels_still_holds_the_judges_zeros_elsewhere(seed: int):
    """The issue's case: 20 labelled items all 5 and judged 5, the judge's 0s on unlabelled items."""
    human, judge = _skewed(seed)
    fives = np.flatnonzero((human == 5) & (judge == 5))[:20]
    cell = corrected_cell(dict(enumerate(judge.tolist())), {int(i): 5.0 for i in fives})
    truth = human.mean()
    assert cell.corrected.lo <= truth <= cell.corrected.hi
    assert cell.human.lo <= truth <= cell.human.hi
    assert cell.corrected.hi <= 5.0 and cell.human.hi <= 5.0
    assert cell.bias.lo <= float((judge - human).mean()) <= cell.bias.hi


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("score_range", [(0.0, 5.0), (0.0, 1.0 * 5), (-1.0, 5.0)])
def test_no_mean_or_interval_leaves_the_score_range(seed: int, score_range: tuple[float, float]):
    human, judge = _skewed(seed, 120)
    rng = np.random.default_rng(seed)
    chosen = rng.choice(120, size=rng.integers(2, 60), replace=False)
    cell = corrected_cell(
        dict(enumerate(judge.tolist())),
        {int(i): float(human[i]) for i in chosen},
        min_n=2,
        score_range=score_range,
    )
    low, high = score_range
    for interval in (cell.corrected, cell.human):
        assert low <= interval.estimate <= high
        assert interval.lo is None or low <= interval.lo <= interval.estimate <= interval.hi <= high
    assert cell.bias.lo is None or low - high <= cell.bias.lo <= cell.bias.hi <= high - low


def test_a_narrow_range_clips_what_a_wide_one_leaves():
    human, judge = _skewed(0, 200)
    labels = {i: float(human[i]) for i in range(0, 200, 5)}
    wide = corrected_cell(dict(enumerate(judge.tolist())), labels, score_range=(0.0, 10.0))
    assert wide.corrected.hi > 5.0  # the interval of a mean near the top runs past it unless clipped
    narrow = corrected_cell(dict(enumerate(judge.tolist())), labels)
    # no higher than if every one of the 160 unlabelled items scored 5
    top = (sum(labels.values()) + 160 * 5.0) / 200
    assert narrow.corrected.hi == pytest.approx(min(wide.corrected.hi, top)) and top < 5.0
    assert narrow.corrected.lo == wide.corrected.lo


def test_the_columns_count_the_unscored_labelled_items_and_say_how():
    judge, human, unscored = _with_unscored(2, 3)
    columns = corrected_columns(judge, human, items=set(judge) | unscored)
    assert columns["n_human"] == 83 and columns["n_human_unscored"] == 3
    note = str(columns["corrected_note"])
    assert "60 item(s) the judge left unscored (3 labelled) are a stratum of their own" in note
    assert "bounded by the whole score range 0-5" in note
    assert set(columns) == set(CORRECTED_COLUMNS)
    plain = corrected_columns(judge, {i: v for i, v in human.items() if i in judge})
    assert plain["n_human_unscored"] == 0 and plain["corrected_note"] == ""


def test_table3_counts_the_labelled_items_the_judge_left_unscored():
    """Through Table 3: an unscored item is in its cell's unscored stratum, not dropped without a note."""
    from tests.lab.report.tables.test_report_units import _frame, _rows
    from vivid_inspect.lab.report.tables.judges import choose_judge
    from vivid_inspect.lab.report.tables.tables import table3

    values = {i: float(i % 6) for i in range(1, 61)} | {i: float("nan") for i in range(61, 71)}
    rows = _frame(_rows(values))
    judge, why = choose_judge(rows)
    human = {i: float(i % 6) for i in range(1, 41)} | {i: 0.0 for i in range(61, 64)}
    cells = table3(rows, judge, why, {"gen.eval": human}).csv_rows
    average = cells[cells["cell"] == "Average"].iloc[0]
    assert average["n_human"] == 43 and average["n_human_unscored"] == 3 and average["n_items"] == 60
    assert "10 item(s) the judge left unscored (3 labelled)" in average["corrected_note"]
    judged = {i: v for i, v in values.items() if i <= 60}
    expected = corrected_cell(judged, human, unscored=set(range(61, 71)))
    assert average["corrected_mean"] == pytest.approx(expected.corrected.estimate)
    assert average["corrected_mean_hi"] == pytest.approx(expected.corrected.hi)


@pytest.mark.parametrize("labelled_unscored", [2, UNSCORED_MIN + 2])
def test_every_scored_item_labelled_leaves_only_the_unscored_stratum_uncertain(labelled_unscored: int):
    judge, human, unscored = _with_unscored(3, labelled_unscored)
    human = human | {i: float(v) for i, v in judge.items()}  # every item the judge scored is labelled
    cell = corrected_cell(judge, human, unscored=unscored)
    assert cell.corrected.lo is not None and cell.corrected.lo < cell.corrected.estimate < cell.corrected.hi
    assert cell.corrected.reason is None


def test_a_cell_labelled_whole_with_unscored_items_is_exact():
    judge, human, unscored = _with_unscored(4, 60)
    human = human | {i: float(v) for i, v in judge.items()}
    cell = corrected_cell(judge, human, unscored=unscored)
    assert cell.corrected.lo is None and cell.corrected.reason == ALL_LABELLED
    assert cell.corrected.estimate == pytest.approx(np.mean(list(human.values())))


def _bound(
    labels: list[float], items: int, score_range: tuple[float, float] = SCORE_RANGE
) -> tuple[float, float]:
    """The mean over `items` items when the labelled ones are `labels` and the others anywhere in the range."""
    return ((sum(labels) + (items - len(labels)) * end) / items for end in score_range)  # type: ignore[return-value]


@pytest.mark.parametrize(
    "rare", [[5.0, 5.0], [2.0] * 5, [3.0, 3.0, 2.0, 1.0, 1.0], [4.0, 3.0, 2.0, 1.0], [1.0] * 10]
)
def test_most_items_labelled_the_interval_keeps_to_what_the_labels_imply(rare: list[float]):
    """The tester's shape: 46 items, 40 labelled summing to 10, a literal baseline judged as the humans do."""
    scores = [*rare, *[0.0] * (40 - len(rare)), 1.0, *[0.0] * 5]
    judge = dict(enumerate(scores))
    cell = corrected_cell(judge, {i: scores[i] for i in range(40)})
    bottom, top = _bound(scores[:40], 46)
    assert bottom == pytest.approx(10 / 46)
    for interval in (cell.corrected, cell.human):
        assert bottom - 1e-12 <= interval.lo <= interval.estimate <= interval.hi <= top + 1e-12
    judge_mean = float(np.mean(scores))
    assert judge_mean - top - 1e-12 <= cell.bias.lo <= cell.bias.hi <= judge_mean - bottom + 1e-12
    assert cell.bias.lo <= 0.0 <= cell.bias.hi  # the judge is the humans here
    whole = corrected_cell(judge, judge)
    assert whole.corrected.estimate == pytest.approx(judge_mean) and whole.corrected.reason == ALL_LABELLED
    assert whole.corrected.lo is None and whole.bias.estimate == pytest.approx(0.0)


def _population(shape: str, seed: int, items: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    if shape == "literal baseline":  # mostly 0, a few higher, the judge the humans
        human = rng.choice(6, size=items, p=[0.9, 0.03, 0.02, 0.02, 0.01, 0.02]).astype(float)
        return human, human.copy()
    if shape == "weak model":
        human = rng.choice(6, size=items, p=[0.7, 0.15, 0.07, 0.04, 0.03, 0.01]).astype(float)
        return human, np.clip(human + rng.choice([-1, 0, 1, 2], size=items, p=[0.05, 0.7, 0.2, 0.05]), 0, 5)
    human = rng.choice(6, size=items, p=[0.05, 0.08, 0.12, 0.2, 0.3, 0.25]).astype(float)
    return human, np.clip(np.rint(human + 0.6 + rng.normal(0, 0.9, items)), 0, 5)


def _widths(
    human: np.ndarray, judge: np.ndarray, order: np.ndarray, ns: tuple[int, ...]
) -> list[dict[str, float]]:
    widths = []
    for n in ns:
        cell = corrected_cell(dict(enumerate(judge.tolist())), {int(i): float(human[i]) for i in order[:n]})
        widths.append(
            {
                key: 0.0 if interval.lo is None else interval.hi - interval.lo
                for key, interval in (("corrected", cell.corrected), ("human", cell.human))
            }
        )
        if n == human.size:  # every item labelled: the exact mean, said so
            assert cell.corrected.estimate == pytest.approx(human.mean())
            assert cell.corrected.reason == cell.human.reason == ALL_LABELLED
    return widths


NESTED = (20, 30, 40, 45, 46)


@pytest.mark.parametrize("shape", ["literal baseline", "lenient"])
@pytest.mark.parametrize("seed", range(4))
def test_labelling_more_of_a_fixed_population_never_widens_the_interval(shape: str, seed: int):
    """Labels added to the same 46 items (20, 30, 40, 45, then all): the interval narrows down to the exact mean."""
    human, judge = _population(shape, seed, 46)
    widths = _widths(human, judge, np.random.default_rng(seed + 100).permutation(46), NESTED)
    for key in ("corrected", "human"):
        series = [w[key] for w in widths]
        assert all(later <= earlier + 1e-12 for earlier, later in zip(series, series[1:], strict=False)), (
            key,
            series,
        )
        assert series[-1] == 0.0


@pytest.mark.parametrize("shape", ["literal baseline", "weak model", "lenient"])
@pytest.mark.parametrize("seed", range(4))
def test_the_interval_is_never_wider_than_the_unlabelled_items_could_move_the_mean(shape: str, seed: int):
    """(N - n)(max - min)/N: whatever the sample's spread, near N the interval shrinks to the exact mean."""
    human, judge = _population(shape, seed, 46)
    widths = _widths(human, judge, np.random.default_rng(seed + 200).permutation(46), NESTED)
    for n, width in zip(NESTED, widths, strict=True):
        assert max(width.values()) <= (46 - n) * 5 / 46 + 1e-12


@pytest.mark.parametrize("seed", range(8))
def test_every_interval_lies_within_the_bound_of_the_labelled_items_alone(seed: int):
    """Over every item, unscored ones included, at any share labelled and any score range."""
    rng = np.random.default_rng(seed)
    items = int(rng.integers(30, 120))
    human, judge = _population(("literal baseline", "weak model", "lenient")[seed % 3], seed, items)
    score_range = ((0.0, 5.0), (0.0, 10.0), (-1.0, 5.0))[seed % 3]
    unscored = set(rng.choice(items, size=int(rng.integers(0, items // 5)), replace=False).tolist())
    chosen = rng.choice(items, size=int(rng.integers(items // 2, items)), replace=False)
    labels = {int(i): float(human[i]) for i in chosen}
    cell = corrected_cell(
        {i: float(judge[i]) for i in range(items) if i not in unscored},
        labels,
        unscored=unscored,
        min_n=2,
        score_range=score_range,
    )
    bottom, top = _bound(list(labels.values()), items, score_range)
    for interval in (cell.corrected, cell.human):
        assert bottom - 1e-12 <= interval.estimate <= top + 1e-12
        assert interval.lo is None or bottom - 1e-12 <= interval.lo <= interval.hi <= top + 1e-12
