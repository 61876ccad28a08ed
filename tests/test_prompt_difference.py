"""Few-shot minus zero-shot: paired over the items both generations scored, with a bounded paired interval."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from vivid_inspect.generation_key import Generation
from vivid_inspect.report.intervals import MIN_N_MEAN, paired_difference_interval, too_few
from vivid_inspect.report.judges import judge_rows
from vivid_inspect.report.logs import SCORE_COLUMNS
from vivid_inspect.report.prompt_difference import prompt_differences

ZERO = {1: 1.0, 2: 2.0, 3: 0.0, 4: 4.0, 5: 3.0, 6: 2.0, 7: math.nan}
FEW = {1: 3.0, 2: 2.0, 3: 1.0, 4: 5.0, 5: 3.0, 6: 4.0, 7: 5.0, 8: 5.0}


def _generation(prompt: str, *, data: str = "a" * 64, version: str = "2") -> Generation:
    return Generation("explain", version, "m/gen", prompt, "data.csv", tuple(range(1, 9)), data_digest=data)


def _rows(
    generation: Generation, values: dict[int, float], judge: str = "lexical"
) -> list[dict[str, object]]:
    return [
        dict.fromkeys(SCORE_COLUMNS)
        | {
            "generation": generation.key,
            "task": "explain",
            "model": generation.model,
            "prompt": generation.prompt,
            "data": generation.data_label,
            "id": item,
            "epoch": 1,
            "judge": judge,
            "judge_model": "",
            "strategy": "lexical",
            "value": value,
            "error": False,
            "refused": False,
        }
        for item, value in values.items()
    ]


def _table(*groups: tuple[Generation, dict[int, float]]) -> pd.DataFrame:
    rows = judge_rows(pd.DataFrame([r for g, v in groups for r in _rows(g, v)], columns=list(SCORE_COLUMNS)))
    return prompt_differences(rows, {g.key: g for g, _ in groups}).frame


def test_the_difference_is_over_the_items_both_scored() -> None:
    zero, few = _generation("zero_shot"), _generation("few_shot")
    (row,) = _table((zero, ZERO), (few, FEW)).to_dict("records")
    both = [i for i in ZERO if i in FEW and not math.isnan(ZERO[i])]
    differences = [FEW[i] - ZERO[i] for i in both]
    expected = paired_difference_interval(differences)
    assert row["n_items"] == len(both) == 6
    assert row["difference"] == pytest.approx(np.mean(differences))
    assert (row["difference_lo"], row["difference_hi"]) == (
        pytest.approx(expected.lo),
        pytest.approx(expected.hi),
    )
    assert row["zero_shot_mean"] == pytest.approx(np.mean([ZERO[i] for i in both]))
    assert (row["zero_shot_generation"], row["few_shot_generation"]) == (zero.key, few.key)


@pytest.mark.parametrize(
    "few",
    [
        pytest.param(_generation("few_shot", data="b" * 64), id="other-data"),
        pytest.param(_generation("few_shot", version="3"), id="other-task-version"),
    ],
)
def test_generations_on_other_data_or_versions_are_not_paired(few: Generation) -> None:
    assert _table((_generation("zero_shot"), ZERO), (few, FEW)).empty


def test_too_few_items_give_no_interval_and_say_so() -> None:
    zero, few = _generation("zero_shot"), _generation("few_shot")
    (row,) = _table((zero, {1: 1.0, 2: 2.0}), (few, {1: 2.0, 2: 2.0})).to_dict("records")
    assert row["n_items"] == 2 and pd.isna(row["difference_lo"]) and row["note"] == too_few(2)


@pytest.mark.parametrize("difference", [-5.0, -1.0, 0.0, 1.0, 5.0])
def test_a_constant_difference_has_a_bounded_non_zero_interval(difference: float) -> None:
    interval = paired_difference_interval([difference] * 20)
    assert interval.lo is not None and interval.hi is not None
    assert -5.0 <= interval.lo <= difference <= interval.hi <= 5.0 and interval.hi > interval.lo


def test_below_the_fewest_items_there_is_no_interval() -> None:
    interval = paired_difference_interval([1.0] * (MIN_N_MEAN - 1) + [math.nan])
    assert interval.n == MIN_N_MEAN - 1 and interval.lo is None and interval.reason == too_few(MIN_N_MEAN - 1)


@pytest.mark.parametrize("shift", [0.0, 0.8, -2.0])
def test_seeded_coverage_of_a_planted_difference(shift: float) -> None:
    # A small seeded check; bench/coverage.py measures the full grid.
    rng = np.random.default_rng(7)
    covered, reps, n = 0, 400, 20
    for _ in range(reps):
        quality = rng.integers(0, 6, n)
        few = np.clip(quality + np.round(shift + rng.normal(0, 1, n)), 0, 5)
        planted = np.mean(np.clip(quality + np.round(shift + rng.normal(0, 1, (2000, n))), 0, 5) - quality)
        interval = paired_difference_interval(few - quality)
        assert interval.lo is not None and interval.hi is not None
        covered += interval.lo <= planted <= interval.hi
    assert covered / reps >= 0.93
