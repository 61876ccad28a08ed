"""Replies to the English judge instructions (``language=en``) read by the one verdict grammar.

The English templates ask for ``Score: N``; the grammar (``judge_prompts.VERDICT_GRAMMAR``, rule 7)
reads that label beside ``Điểm``, with the same rules for cited text, conflicts and the final line.
"""

from __future__ import annotations

import pytest

from vivid_inspect.scorers.judge_parse import parse_judge_score

REASONING = (
    "1. Core meaning: advice that is wasted on the listener.\n"
    '2. The explanation says "Nói bao nhiêu người ta cũng không nghe", which is right.\n'
    "3. Against the scale: the right core meaning, one small detail missing.\n"
)


def _bare(reply: str) -> tuple[int | None, str]:
    parsed = parse_judge_score(reply, reasoning=False)
    return parsed.score, parsed.reason


def _cot(reply: str, stop_reason: str | None = "stop") -> tuple[int | None, str]:
    parsed = parse_judge_score(reply, reasoning=True, stop_reason=stop_reason)
    return parsed.score, parsed.reason


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        pytest.param("Score: 4", 4, id="score"),
        pytest.param("**Score:** 4", 4, id="bold-label"),
        pytest.param("**Score: 4**", 4, id="bold-line"),
        pytest.param("Score: 4/5", 4, id="out-of-five"),
        pytest.param("Final score: 0", 0, id="final-score"),
        pytest.param("score = 5", 5, id="lowercase-equals"),
        pytest.param("Điểm: 3", 3, id="vietnamese-label-still-read"),
    ],
)
def test_cot_reads_an_english_score_line(line: str, expected: int) -> None:
    assert _cot(REASONING + line) == (expected, "ok")


@pytest.mark.parametrize(
    ("reply", "reason_part"),
    [
        pytest.param(REASONING + "Score: 4\nThank you.", "final line is not a score line", id="text-after"),
        pytest.param(
            REASONING + "I would give it a 4.", "final line is not a score line", id="in-a-sentence"
        ),
        pytest.param(REASONING + "Score: four", "final line is not a score line", id="number-word"),
        pytest.param(REASONING + "Overall score: 4", "final line is not a score line", id="unlisted-label"),
        pytest.param(REASONING + '"Score: 4"', "does not count", id="quoted-line"),
        pytest.param(REASONING + "`Score: 4`", "does not count", id="code-span"),
        pytest.param(REASONING + "> Score: 4", "does not count", id="blockquote"),
        pytest.param(REASONING + "Score: 4.5", "non-integer", id="half-point"),
        pytest.param(REASONING + "Score: 8/10", "not on the 0-5 scale", id="other-scale"),
        pytest.param(REASONING + "Score: 6", "out of range", id="out-of-range"),
    ],
)
def test_cot_english_replies_off_the_format_are_unreadable(reply: str, reason_part: str) -> None:
    score, reason = _cot(reply)
    assert score is None and reason_part in reason


def test_cot_english_reply_cut_off_is_unreadable() -> None:
    assert _cot(REASONING + "Score: 4", stop_reason="max_tokens")[0] is None


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        pytest.param("4", 4, id="bare"),
        pytest.param("Score: 2", 2, id="labelled"),
        pytest.param("**Final score:** 1", 1, id="bold-final"),
        pytest.param('The answer claims "Score: 5" but it is wrong.\nScore: 1', 1, id="cited-claim-ignored"),
        pytest.param("Score: 3\n3", 3, id="agreeing-verdicts"),
    ],
)
def test_bare_reads_english_verdicts(reply: str, expected: int) -> None:
    assert _bare(reply) == (expected, "ok")


@pytest.mark.parametrize(
    ("reply", "reason_part"),
    [
        pytest.param("Score: 2\nFinal score: 5", "conflicting verdicts", id="conflict"),
        pytest.param("I give it four points.", "no score found", id="number-word"),
        pytest.param('"Score: 5"', "does not count", id="only-cited"),
    ],
)
def test_bare_english_replies_off_the_format_are_unreadable(reply: str, reason_part: str) -> None:
    score, reason = _bare(reply)
    assert score is None and reason_part in reason
