"""Few-shot minus zero-shot: paired over the items both generations scored, with the report's paired interval."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from vivid_inspect.generation_key import Generation
from vivid_inspect.lab.report.reading.logs import SCORE_COLUMNS
from vivid_inspect.lab.report.stats.intervals import IDENTICAL, RULES, mean_difference_interval, too_few
from vivid_inspect.lab.report.tables.judges import judge_rows
from vivid_inspect.lab.report.tables.prompt_difference import prompt_differences

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
    expected = mean_difference_interval([FEW[i] for i in both], [ZERO[i] for i in both])
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


def test_identical_prompts_get_no_interval_and_say_why() -> None:
    zero, few = _generation("zero_shot"), _generation("few_shot")
    same = {i: float(i % 6) for i in range(1, 21)}
    (row,) = _table((zero, same), (few, same)).to_dict("records")
    assert row["difference"] == 0.0 and pd.isna(row["difference_lo"]) and row["note"] == IDENTICAL


def test_an_interval_is_printed_from_the_rules_smallest_n() -> None:
    zero, few = _generation("zero_shot"), _generation("few_shot")
    n = RULES["mean_difference"].min_n
    (row,) = _table(
        (zero, {i: 1.0 for i in range(1, n + 1)}), (few, {i: float(i % 3) for i in range(1, n + 1)})
    ).to_dict("records")
    assert row["n_items"] == n and row["difference_lo"] <= row["difference"] <= row["difference_hi"]
