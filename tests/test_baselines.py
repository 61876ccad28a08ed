"""The offline reference models answer through the real task prompts and never guess."""

from __future__ import annotations

import asyncio

import pytest
from inspect_ai import eval
from inspect_ai.model import ChatMessageUser, get_model

from vivid_inspect.baselines.answers import BaselineAnswers, literal_paraphrase
from vivid_inspect.baselines.model import BaselineModelError
from vivid_inspect.data import load_items
from vivid_inspect.tasks import topic, traits


@pytest.mark.parametrize("task_fn", [topic, traits], ids=["topic", "traits"])
@pytest.mark.parametrize("shots", [0, 3])
def test_oracle_is_perfect_and_literal_is_the_majority_floor(task_fn, shots: int) -> None:
    logs = eval(
        [task_fn(shots=shots, data="sample")],
        model=[get_model("vivid/oracle", data="sample"), get_model("vivid/literal", data="sample")],
        display="none",
    )
    by_model = {log.eval.model: log for log in logs}
    oracle = by_model["vivid/oracle"].results.scores[0].metrics  # type: ignore[union-attr]
    literal = by_model["vivid/literal"].results.scores[0].metrics  # type: ignore[union-attr]
    assert oracle["accuracy"].value == 1.0
    _, items = load_items("sample")
    floor = BaselineAnswers("literal", items)
    if task_fn is topic:
        expected = sum(item.theme_id == floor.majority_theme for item in items) / len(items)
    else:
        expected = sum(item.trait_ids == floor.majority_traits for item in items) / len(items)
    assert literal["accuracy"].value == pytest.approx(expected)
    assert literal["accuracy"].value < 0.5


def test_majority_labels_of_the_sample() -> None:
    _, items = load_items("sample")
    floor = BaselineAnswers("literal", items)
    # Criticism and Life Lessons tie at 9 items each: the lower code wins.
    assert floor.majority_theme == 3
    assert floor.majority_traits == ()


def test_literal_paraphrase_keeps_the_words() -> None:
    text = literal_paraphrase("Nước đổ đầu vịt")
    assert "nước đổ đầu vịt" in text


def _ask(model_name: str, prompt: str) -> str:
    model = get_model(model_name, data="sample")
    return asyncio.run(model.generate([ChatMessageUser(content=prompt)])).completion


def test_unknown_item_fails_loudly() -> None:
    with pytest.raises(BaselineModelError, match="not in vivid_inspect sample"):
        _ask("vivid/oracle", "Thành ngữ/tục ngữ: «Câu không có thật»\nChủ đề:")


def test_prompt_without_item_line_fails_loudly() -> None:
    with pytest.raises(BaselineModelError, match="no VIVID item line"):
        _ask("vivid/literal", "Hãy chấm điểm câu trả lời sau.")


def test_unknown_baseline_name_is_rejected() -> None:
    with pytest.raises(ValueError, match="vivid/oracle, vivid/literal"):
        get_model("vivid/genius", data="sample")
