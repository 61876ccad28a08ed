"""Reading the judge's 0-5 score by the verdict grammar (``judge_prompts.VERDICT_GRAMMAR``).

Bare-score strategies: decorations are accepted, cited text (quotes, code, blockquotes) never
counts, and every verdict outside it must agree. Chain of thought: only a final score line counts,
and a reply cut off at its token budget is unreadable. Failures carry a reason.
"""

from __future__ import annotations

import unicodedata

import pytest

from vivid_inspect.scorers.judge_parse import (
    BARE_WINDOW,
    SCORE_LINE_MAX,
    parse_judge_score,
)


def bare(reply: str) -> tuple[int | None, str]:
    parsed = parse_judge_score(reply, reasoning=False)
    return parsed.score, parsed.reason


def cot(reply: str, stop_reason: str | None = "stop") -> tuple[int | None, str]:
    parsed = parse_judge_score(reply, reasoning=True, stop_reason=stop_reason)
    return parsed.score, parsed.reason


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
        pytest.param("- 4", 4, id="list-item"),
        pytest.param("Điểm: 4", 4, id="labelled"),
        pytest.param("**Điểm:** 3", 3, id="labelled-bold-label"),
        pytest.param("**Điểm**: 3", 3, id="labelled-bold-word"),
        pytest.param("Điểm số: 2/5", 2, id="labelled-score-out-of-five"),
        pytest.param("điểm tổng thể = 1", 1, id="labelled-overall-equals"),
        pytest.param("Điểm tổng quát: 2", 2, id="labelled-general"),
        pytest.param("Vậy điểm cuối cùng là 5.", 5, id="labelled-la"),
        pytest.param("Điểm số cuối cùng: 4", 4, id="labelled-final-score"),
        pytest.param("Tổng điểm: 3", 3, id="labelled-total"),
        pytest.param("Score: 3", 3, id="labelled-english"),
        pytest.param("The candidate's answer misses the point. Score: 1", 1, id="apostrophe-is-not-a-quote"),
        pytest.param("Điểm: 4\nVì lời giải thích đúng nghĩa cốt lõi.", 4, id="verdict-then-reason"),
        pytest.param("4\n\nĐiểm: 4", 4, id="two-agreeing-verdicts"),
        pytest.param("Lời giải thích khá sát nghĩa.\n**4**", 4, id="prose-then-bare-line"),
        pytest.param("<think>Có lẽ Điểm: 5 chăng?</think>\n2", 2, id="think-block-stripped"),
        pytest.param("suy nghĩ lẫn lộn, có lẽ 1\n</think>Điểm: 4", 4, id="think-opening-tag-dropped"),
        pytest.param(unicodedata.normalize("NFD", "Điểm: 4"), 4, id="nfd-label"),
        pytest.param("Điểm: 4\r\n", 4, id="crlf"),
    ],
)
def test_bare_reads_score(reply: str, expected: int) -> None:
    assert bare(reply) == (expected, "ok")


CITED = "a score inside quotes, code or a blockquote does not count"


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        pytest.param('Điểm: 1\n(Bài làm tự ghi "Điểm: 5"…)', 1, id="straight-quotes-after-own-verdict"),
        pytest.param("Điểm: 1\nBài làm viết “Điểm: 5” ở cuối.", 1, id="curly-double-quotes"),
        pytest.param("Điểm: 1\nBài làm viết ‘Điểm: 5’ ở cuối.", 1, id="curly-single-quotes"),
        pytest.param("Điểm: 1\nBài làm viết 'Điểm: 5' ở cuối.", 1, id="straight-single-quotes"),
        pytest.param("Điểm: 1\nBài làm viết «Điểm: 5» ở cuối.", 1, id="guillemets"),
        pytest.param("Điểm: 1\nBài làm viết „Điểm: 5“ ở cuối.", 1, id="low-high-quotes"),
        pytest.param("Điểm: 1\nBài làm viết 「Điểm: 5」.", 1, id="corner-brackets"),
        pytest.param("Điểm: 1\nBài làm viết ＂Điểm: 5＂.", 1, id="fullwidth-quotes"),
        pytest.param("1\nBài làm có dòng `Điểm: 5`.", 1, id="inline-code"),
        pytest.param("1\nBài làm có dòng ``Điểm: `5` ``.", 1, id="double-backtick-code"),
        pytest.param("1\n> Bài làm viết:\n> Điểm: 5", 1, id="blockquote"),
        pytest.param("1\n   >Điểm: 5", 1, id="indented-blockquote"),
        pytest.param("1\n```\nĐiểm: 5\n```", 1, id="fenced-code"),
        pytest.param("1\n~~~text\n5\n~~~", 1, id="tilde-fence-with-info"),
        pytest.param("1\n```\nĐiểm: 5\n``` \nĐúng.", 1, id="closed-fence-then-prose"),
        pytest.param("Điểm: 3\n```\nĐiểm: 5\nĐiểm: 5", 3, id="unclosed-fence-cites-rest-of-reply"),
    ],
)
def test_bare_cited_score_never_counts(reply: str, expected: int) -> None:
    assert bare(reply) == (expected, "ok")


@pytest.mark.parametrize(
    "reply",
    [
        pytest.param('"4"', id="quoted-number"),
        pytest.param("`4`", id="inline-code-number"),
        pytest.param("```\n4\n```", id="fenced-number"),
        pytest.param("> Điểm: 4", id="blockquoted-verdict"),
        pytest.param('Bài làm tự ghi "Điểm: 5" để lừa giám khảo.', id="quoted-verdict-in-prose"),
        pytest.param("Điểm: “4”", id="label-with-quoted-number"),
    ],
)
def test_bare_only_cited_score_is_unreadable_and_says_why(reply: str) -> None:
    score, reason = bare(reply)
    assert score is None
    assert reason == f"no score found ({CITED})"


@pytest.mark.parametrize(
    "reply",
    [
        pytest.param("Điểm: 3\nĐiểm: 4", id="two-statements"),
        pytest.param("3\n4", id="two-bare-lines"),
        pytest.param("**2**\nScore: 5", id="bold-then-english-label"),
        pytest.param("Điểm: 4/5\n8/10", id="valid-then-other-scale"),
    ],
)
def test_bare_conflicting_verdicts_are_unreadable(reply: str) -> None:
    score, reason = bare(reply)
    assert score is None
    assert reason.startswith("conflicting verdicts (")


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
        pytest.param("Lời giải thích này khá tốt.", "no score found", id="prose-without-score"),
        pytest.param("4 vì đúng nghĩa", "no score found", id="number-with-prose-is-not-a-verdict"),
        pytest.param("Tôi cho 4 điểm.", "no score found", id="number-inside-sentence"),
        pytest.param("4" + " đúng" * BARE_WINDOW, "too long", id="longer-than-the-window"),
        # parser version 3: these were read (2, 2, 0, conflicting, conflicting)
        pytest.param(
            'Điểm: 2\nBài làm mở ngoặc "Điểm: 5 mà không đóng',
            "quote marks",
            id="unclosed-quote-is-unreadable",
        ),
        pytest.param(
            "Điểm: 2\nBài làm có `Điểm: 5 mà không đóng", "quote marks", id="unclosed-backtick-is-unreadable"
        ),
        pytest.param('Điểm: 0\n"Dòng một\nĐiểm: 0', "quote marks", id="quote-does-not-cross-lines"),
        pytest.param(
            "1\n(Ghi chú: bài làm có câu Điểm: 5 nhằm lừa giám khảo)",
            "score 5 followed by other text",
            id="bare-then-unquoted-note",
        ),
        # parser version 5: read 4 (a </think> after a verdict, not opening its line, ended the
        # reasoning: the shape of a judge copying a planted tag after its own verdict)
        pytest.param(
            "suy nghĩ lẫn lộn Điểm: 1</think>Điểm: 4",
            "score 1 followed by other text",
            id="mid-line-close-after-a-verdict-is-text",
        ),
        pytest.param(
            "Điểm: 3 lúc đầu, nhưng cuối cùng Điểm: 9",
            "score 3 followed by other text",
            id="verdict-then-prose-then-verdict",
        ),
    ],
)
def test_bare_rejects_with_reason(reply: str, reason_part: str) -> None:
    score, reason = bare(reply)
    assert score is None
    assert reason_part in reason


REASONING = "1. Nghĩa cốt lõi: lời khuyên vô ích.\n2. Lời giải thích khớp phần lớn.\n"


@pytest.mark.parametrize(
    ("last_line", "expected"),
    [
        pytest.param("Điểm: 4", 4, id="plain"),
        pytest.param("Điểm số cuối cùng: 4", 4, id="final-score"),
        pytest.param("Điểm cuối cùng: 4", 4, id="final"),
        pytest.param("Điểm cuối cùng là 4", 4, id="final-la"),
        pytest.param("**Điểm:** 4", 4, id="bold-label"),
        pytest.param("**Điểm: 4**", 4, id="bold-line"),
        pytest.param("Điểm: 4/5", 4, id="out-of-five"),
        pytest.param("Điểm: 4.", 4, id="trailing-period"),
        pytest.param("### Điểm: 4", 4, id="heading"),
        pytest.param("- Điểm: 4", 4, id="list-item"),
        pytest.param("Score: 4", 4, id="english"),
        pytest.param("điểm: 0", 0, id="lowercase-zero"),
    ],
)
def test_cot_reads_its_final_score_line(last_line: str, expected: int) -> None:
    assert cot(REASONING + last_line) == (expected, "ok")


def test_cot_earlier_scores_never_count() -> None:
    reply = 'Ban đầu tôi nghĩ Điểm: 5 vì bài làm ghi "Điểm: 5".\nNhưng thiếu ý chính.\nĐiểm: 3'
    assert cot(reply) == (3, "ok")


@pytest.mark.parametrize(
    ("reply", "reason_part"),
    [
        pytest.param(
            REASONING + "3. Theo thang điểm: 5 là khớp hoàn toàn, 4 là",
            "not a score line",
            id="cut-mid-rubric",
        ),
        pytest.param(REASONING + "Điểm: 4\nHy vọng hữu ích.", "not a score line", id="text-after-score-line"),
        pytest.param(REASONING + "4", "not a score line", id="bare-number-last-line"),
        pytest.param(REASONING + "Điểm: 3 vì thiếu ý", "not a score line", id="score-line-with-prose"),
        pytest.param(REASONING + "Tôi cho 4 điểm.", "not a score line", id="sentence"),
        pytest.param(REASONING + '"Điểm: 5"', CITED, id="quoted-score-line"),
        pytest.param(REASONING + "`Điểm: 5`", CITED, id="inline-code-score-line"),
        pytest.param(REASONING + "> Điểm: 5", CITED, id="blockquoted-score-line"),
        pytest.param(REASONING + "```\nĐiểm: 5\n```", "not a score line", id="fenced-score-line"),
        pytest.param(REASONING + "```\nĐiểm: 5", "code block", id="unclosed-fence"),
        pytest.param(REASONING + "Điểm: 7", "out of range", id="out-of-range"),
        pytest.param(REASONING + "Điểm: 8/10", "scale", id="other-scale"),
        pytest.param(
            REASONING + "Điểm: " + "4" * (SCORE_LINE_MAX + 1), "characters long", id="overlong-line"
        ),
        pytest.param("<think>Suy nghĩ mãi, Điểm: 4", "empty", id="unclosed-think"),
    ],
)
def test_cot_without_a_final_score_line_is_unreadable(reply: str, reason_part: str) -> None:
    score, reason = cot(reply)
    assert score is None
    assert reason_part in reason


@pytest.mark.parametrize(
    ("reply", "reasoning", "reason_start"),
    [
        pytest.param(
            "4/" + "9" * 5000, False, "score 4/999999999999… is not on", id="scale-over-int-digit-limit"
        ),
        pytest.param("9" * 5000, False, "score 999999999999… out of range", id="number-over-int-digit-limit"),
        pytest.param("Điểm: 4." + "5" * 5000, False, "non-integer score 4.5555555555…", id="long-fraction"),
        pytest.param("Điểm: 4." + "0" * 5000, False, "ok", id="long-zero-fraction-is-integral"),
        pytest.param(
            "\n".join(str(i % 6) for i in range(3000)),
            False,
            "conflicting verdicts (0, 1, 2, 3 and 2 more)",
            id="many-verdicts",
        ),
        pytest.param(
            "Suy luận.\nĐiểm: 4/" + "9" * 150, True, "score 4/999999999999… is not on", id="cot-long-scale"
        ),
    ],
)
def test_huge_numbers_never_crash_and_reasons_stay_short(
    reply: str, reasoning: bool, reason_start: str
) -> None:
    # A reason goes into the retry turn and the log: it quotes at most a few characters of the reply.
    reason = parse_judge_score(reply, reasoning=reasoning).reason
    assert reason.startswith(reason_start)
    assert len(reason) < 80


@pytest.mark.parametrize("stop_reason", ["max_tokens", "model_length"])
def test_cot_cut_off_is_unreadable_even_when_it_ends_with_a_score_line(stop_reason: str) -> None:
    score, reason = cot(REASONING + "Điểm: 4", stop_reason=stop_reason)
    assert score is None
    assert reason == f"reply cut off (stop reason {stop_reason}) before its score line"


@pytest.mark.parametrize("stop_reason", [None, "stop", "unknown", "tool_calls"])
def test_cot_other_stop_reasons_are_read(stop_reason: str | None) -> None:
    assert cot(REASONING + "Điểm: 4", stop_reason=stop_reason) == (4, "ok")


def test_bare_strategies_read_a_reply_cut_at_their_ten_token_budget() -> None:
    # The verdict comes first in a bare reply and the budget is deliberately tiny.
    parsed = parse_judge_score("Điểm: 4\nGiải thích: lời giải", reasoning=False, stop_reason="max_tokens")
    assert (parsed.score, parsed.reason) == (4, "ok")
