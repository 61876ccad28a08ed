"""Strict and lenient reading of classification answers."""

from __future__ import annotations

import unicodedata

import pytest

from vivid_inspect.scorers.answers import final_answer, lenient_topic, lenient_traits
from vivid_inspect.text import strip_reasoning


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(" 3\n", "3", id="whitespace-stripped"),
        pytest.param("<think>maybe 5, no</think>\n3", "3", id="think-block-removed"),
        pytest.param("reasoning without opening tag</think> 4", "4", id="dangling-close-tag"),
        pytest.param("<think>ran out of tokens 3", "", id="unclosed-think-has-no-answer"),
        pytest.param("3.", "3.", id="trailing-period-kept"),
        pytest.param("```\n1,3\n```", "```\n1,3\n```", id="code-fence-kept"),
        pytest.param(unicodedata.normalize("NFD", "Không có"), "Không có", id="nfc"),
    ],
)
def test_final_answer_only_strips_reasoning_and_whitespace(raw: str, expected: str) -> None:
    assert final_answer(raw) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        pytest.param("3", 3, id="bare"),
        pytest.param("3.", 3, id="trailing-period"),
        pytest.param("Chủ đề: 6", 6, id="decorated"),
        pytest.param("```\n2\n```", 2, id="code-fence"),
        pytest.param("4.0", 4, id="float-form"),
        pytest.param("9 rồi 5", 5, id="first-in-range"),
        pytest.param("2.5", None, id="decimal-is-not-a-code"),
        pytest.param("không biết", None, id="no-number"),
        pytest.param("0", None, id="zero-out-of-range"),
    ],
)
def test_lenient_topic(answer: str, expected: int | None) -> None:
    assert lenient_topic(answer) == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        pytest.param("1,3,5", (1, 3, 5), id="canonical"),
        pytest.param("5, 3 ,1", (1, 3, 5), id="any-order-and-spacing"),
        pytest.param("```\n2,4\n```.", (2, 4), id="decorated"),
        pytest.param("", (), id="empty-is-none"),
        pytest.param("Không có đặc điểm nào", (), id="words-mean-none"),
        pytest.param("1,1,2", (1, 2), id="duplicates-collapse"),
        pytest.param("6, 12, 3", (3,), id="out-of-range-ignored"),
    ],
)
def test_lenient_traits(answer: str, expected: tuple[int, ...]) -> None:
    assert lenient_traits(answer) == expected


def test_strip_reasoning_keeps_text_after_last_block() -> None:
    assert strip_reasoning("<think>a</think>x<think>b</think>y") == "xy"
