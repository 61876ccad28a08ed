"""Strict and lenient reading of classification answers."""

from __future__ import annotations

import unicodedata

import pytest

from vivid_inspect.scorers.answers import final_answer, read_topic, read_traits
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
        # lenient parser version 2: two numbers are two options, never the first in range (was 5)
        pytest.param("9 rồi 5", None, id="two-numbers-are-unreadable"),
        pytest.param("2.5", None, id="decimal-is-not-a-code"),
        pytest.param("không biết", None, id="no-number"),
        pytest.param("0", None, id="zero-out-of-range"),
    ],
)
def test_lenient_topic(answer: str, expected: int | None) -> None:
    assert read_topic(answer).code == expected


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        pytest.param("1,3,5", (1, 3, 5), id="canonical"),
        pytest.param("5, 3 ,1", (1, 3, 5), id="any-order-and-spacing"),
        pytest.param("```\n2,4\n```.", (2, 4), id="decorated"),
        pytest.param("1,1,2", (1, 2), id="duplicates-collapse"),
        pytest.param("Đặc điểm: 2, 5", (2, 5), id="echoed-tag"),
        pytest.param("**3**", (3,), id="bold"),
        pytest.param("1.0,3.0", (1, 3), id="float-form"),
        pytest.param("1; 4", (1, 4), id="semicolons"),
        pytest.param("Câu này có đặc điểm 2 và 5", (2, 5), id="codes-in-prose"),
    ],
)
def test_lenient_traits_reads_codes_in_any_decoration(answer: str, expected: tuple[int, ...]) -> None:
    reading = read_traits(answer)
    assert (reading.codes, reading.status) == (expected, "ok")


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param("", id="empty"),
        pytest.param("   ", id="blank"),
        pytest.param("``` ```", id="empty-code-fence"),
        pytest.param('""', id="empty-quotes"),
        pytest.param("Đặc điểm:", id="echoed-tag-with-nothing"),
        pytest.param("**Đặc điểm:**", id="bold-tag-with-nothing"),
    ],
)
def test_explicit_empty_answer_means_no_traits(answer: str) -> None:
    reading = read_traits(answer)
    assert (reading.codes, reading.status) == ((), "empty")


@pytest.mark.parametrize(
    ("answer", "status"),
    [
        pytest.param("Không có", "no_code", id="words-for-none"),
        pytest.param("Không có đặc điểm nào", "no_code", id="sentence-for-none"),
        pytest.param("không biết", "no_code", id="prose"),
        pytest.param("Literal, Folk knowledge", "no_code", id="names-not-codes"),
        pytest.param("0", "out_of_range", id="zero"),
        pytest.param("1,3,6", "out_of_range", id="one-code-out-of-range"),
        pytest.param("6, 12, 3", "out_of_range", id="several-out-of-range"),
        pytest.param("12", "out_of_range", id="two-digit"),
        pytest.param("2.5", "out_of_range", id="decimal"),
        pytest.param("0,2", "out_of_range", id="zero-beside-a-code"),
    ],
)
def test_answer_without_valid_codes_is_a_parse_failure(answer: str, status: str) -> None:
    reading = read_traits(answer)
    assert (reading.codes, reading.status) == (None, status)


def test_strip_reasoning_keeps_text_after_last_block() -> None:
    assert strip_reasoning("<think>a</think>x<think>b</think>y") == "xy"
