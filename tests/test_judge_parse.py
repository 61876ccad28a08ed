"""Reading the judge's 0-5 score: accepted decorations, last verdict wins, failures carry a reason."""

from __future__ import annotations

import unicodedata

import pytest

from vivid_inspect.scorers.judge_parse import parse_judge_score


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        pytest.param("4", 4, id="bare"),
        pytest.param("  0 \n", 0, id="bare-zero-with-whitespace"),
        pytest.param("5.", 5, id="bare-trailing-period"),
        pytest.param("**4**", 4, id="markdown-bold"),
        pytest.param("4/5", 4, id="out-of-five"),
        pytest.param("4 / 5", 4, id="out-of-five-spaced"),
        pytest.param("4.0", 4, id="integral-float"),
        pytest.param("3,0", 3, id="integral-float-decimal-comma"),
        pytest.param("(2)", 2, id="parenthesised"),
        pytest.param("Điểm: 4", 4, id="labelled"),
        pytest.param("**Điểm:** 3", 3, id="labelled-bold-label"),
        pytest.param("Điểm số: 2/5", 2, id="labelled-score-out-of-five"),
        pytest.param("điểm tổng thể = 1", 1, id="labelled-overall-equals"),
        pytest.param("Vậy điểm cuối cùng là 5.", 5, id="labelled-la"),
        pytest.param("Score: 3", 3, id="labelled-english"),
        pytest.param(
            "Nghĩa chuẩn nói về sự vô ích.\nLời giải thích đúng một phần.\nĐiểm: 2",
            2,
            id="cot-final-line",
        ),
        pytest.param(
            "Ban đầu tôi nghĩ Điểm: 5 vì lời văn hay.\nNhưng thiếu ý chính.\nĐiểm: 3",
            3,
            id="cot-last-statement-wins",
        ),
        pytest.param("Lời giải thích khá sát nghĩa.\n**4**", 4, id="cot-bare-last-line"),
        pytest.param("<think>Có lẽ Điểm: 5 chăng?</think>\n2", 2, id="think-block-stripped"),
        pytest.param("suy nghĩ lẫn lộn Điểm: 1</think>Điểm: 4", 4, id="think-opening-tag-dropped"),
        pytest.param(unicodedata.normalize("NFD", "Điểm: 4"), 4, id="nfd-label"),
    ],
)
def test_reads_score(reply: str, expected: int) -> None:
    parsed = parse_judge_score(reply)
    assert (parsed.score, parsed.reason, parsed.ok) == (expected, "ok", True)


@pytest.mark.parametrize(
    ("reply", "reason_part"),
    [
        pytest.param("7", "out of range", id="above-range"),
        pytest.param("-1", "out of range", id="negative"),
        pytest.param("Điểm: 6", "out of range", id="labelled-above-range"),
        pytest.param("4.5", "non-integer", id="half-point"),
        pytest.param("Điểm: 3,5", "non-integer", id="half-point-decimal-comma"),
        pytest.param("8/10", "scale", id="other-scale"),
        pytest.param("", "empty", id="empty"),
        pytest.param("<think>Để xem nào, Điểm: 4 có vẻ hợp", "empty", id="unclosed-think"),
        pytest.param("Lời giải thích này khá tốt.", "no score", id="prose-without-score"),
        pytest.param("4 vì đúng nghĩa", "no score", id="number-with-prose-is-not-a-verdict"),
        pytest.param("Điểm: 3 lúc đầu, nhưng cuối cùng Điểm: 9", "out of range", id="last-verdict-wins-even-if-bad"),
    ],
)
def test_rejects_with_reason(reply: str, reason_part: str) -> None:
    parsed = parse_judge_score(reply)
    assert parsed.score is None
    assert not parsed.ok
    assert reason_part in parsed.reason
