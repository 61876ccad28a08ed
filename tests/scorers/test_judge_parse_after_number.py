"""After the number only what the grammar allows; look-alikes and invisible characters normalised first.

Issue 22.2: ``Điểm: 4-5`` was read as 4, ``Score: 4 out of 10`` as 4, ``Điểm: 2 (thang 0-10)`` as 2
and ``5／10`` as 5: ranges, hedges, other scales and self-corrections read as their first number.
The verdict grammar (``judge_prompts.VERDICT_GRAMMAR`` rules 1, 3 and 4, parser version 3) now lets
only these follow the number of a verdict: nothing, ``/5``, ``điểm`` or ``points``, closing
punctuation or brackets, markdown emphasis; and in a bare-score reply every other text that counts
(outside cited text) holds no digit and no number word. Unicode look-alikes of ``/``, ``-`` and the
digits are read as what they look like (NFKC, and a short table for the slashes and dashes NFKC
keeps) and invisible format characters are removed before any of this, so no disguise gets through.

Every shape is read for every strategy (the three bare-score ones and chain of thought) with both
instruction languages' labels.
"""

from __future__ import annotations

import sys
import unicodedata

import pandas as pd
import pytest

from vivid_inspect.lab.report.reading.logs import SCORE_COLUMNS
from vivid_inspect.lab.report.reading.versions import stale_judgements
from vivid_inspect.log_contract import JUDGE_LANGUAGES
from vivid_inspect.scorers import verdict_text
from vivid_inspect.scorers.judge import STRATEGIES
from vivid_inspect.scorers.judge_parse import JUDGE_PARSER_VERSION, parse_judge_score
from vivid_inspect.scorers.judge_prompts import VERDICT_GRAMMAR, judge_template, retry_turn

LABELS = {"vi": "Điểm", "en": "Score"}
LANGUAGE_IDS = [pytest.param(language, id=language) for language in JUDGE_LANGUAGES]
BARE = [name for name, strategy in STRATEGIES.items() if not strategy.reasoning]
REASONING = "1. Nghĩa cốt lõi: lời khuyên vô ích.\n2. Lời giải thích khớp phần lớn.\n"


def read(reply: str, strategy: str) -> tuple[int | None, str]:
    reasoning = STRATEGIES[strategy].reasoning
    parsed = parse_judge_score(
        REASONING + reply if reasoning else reply, reasoning=reasoning, stop_reason="stop"
    )
    return parsed.score, parsed.reason


# Verdict lines whose number is followed by something the grammar does not allow. ``{label}`` is
# the instruction language's label; each line is also tried as a bare-number line where it has one.
REFUSED = [
    # ranges
    pytest.param("{label}: 4-5", id="range-hyphen"),
    pytest.param("{label}: 4–5", id="range-en-dash"),
    pytest.param("{label}: 4—5", id="range-em-dash"),
    pytest.param("{label}: 4 - 5", id="range-spaced"),
    pytest.param("{label}: 4‐5", id="range-unicode-hyphen"),
    pytest.param("{label}: 4−5", id="range-minus-sign"),
    pytest.param("{label}: 4~5", id="range-tilde"),
    pytest.param("{label}: 4～5", id="range-fullwidth-tilde"),
    pytest.param("{label}: 4 đến 5", id="range-vietnamese"),
    pytest.param("{label}: 4 to 5", id="range-english"),
    pytest.param("{label}: 4/5-5/5", id="range-of-fractions"),
    # other scales
    pytest.param("{label}: 4 out of 10", id="out-of-ten"),
    pytest.param("{label}: 4 out of 5", id="out-of-five-in-words"),
    pytest.param("{label}: 4 trên 10", id="tren-muoi"),
    pytest.param("{label}: 2 (thang 0-10)", id="scale-in-brackets"),
    pytest.param("{label}: 5／10", id="fullwidth-slash-ten"),
    pytest.param("{label}: 5⁄10", id="fraction-slash-ten"),
    pytest.param("{label}: 5∕10", id="division-slash-ten"),
    pytest.param("{label}: 8/10", id="eight-of-ten"),
    pytest.param("{label}: 4/5/5", id="two-slashes"),
    pytest.param("{label}: 80%", id="percent"),
    pytest.param("{label}: 4 (80%)", id="percent-in-brackets"),
    # hedges
    pytest.param("{label}: 4 hoặc 5", id="hoac"),
    pytest.param("{label}: 4 or 5", id="or"),
    pytest.param("{label}: 4 hay 5", id="hay"),
    pytest.param("{label}: 4, có thể 5", id="comma-maybe"),
    pytest.param("{label}: 4 (có thể 5)", id="brackets-maybe"),
    pytest.param("{label}: 4?", id="question-mark"),
    pytest.param("{label}: 4...", id="trailing-off"),
    pytest.param("{label}: 4…", id="ellipsis"),
    pytest.param("{label}: 4+", id="plus"),
    pytest.param("{label}: 4 trở lên", id="or-more"),
    pytest.param("{label}: 4 (tạm chấm)", id="provisional"),
    pytest.param("{label}: 3.5", id="decimal-point"),
    pytest.param("{label}: 3,5", id="decimal-comma"),
    pytest.param("{label}: 3½", id="vulgar-fraction"),
    pytest.param("{label}: 4, 5", id="two-numbers"),
    pytest.param("{label}: 4 5", id="two-numbers-spaced"),
    # self-corrections
    pytest.param("{label}: 4 — à không, 3", id="a-khong"),
    pytest.param("{label}: 4 - actually 3", id="actually"),
    pytest.param("{label}: 4. À không, {label}: 3", id="corrected-statement"),
    pytest.param("{label}: 4 → 3", id="arrow"),
    pytest.param("{label}: 4 -> 3", id="ascii-arrow"),
    pytest.param("{label}: ~~4~~ 3", id="struck-out"),
    pytest.param("{label}: 4 (sửa: 3)", id="correction-in-brackets"),
    # other text after the number on its line
    pytest.param("{label}: 4 vì đúng nghĩa", id="reason-on-the-line"),
    pytest.param("{label}: 4 (theo yêu cầu trong bài làm)", id="aside-in-brackets"),
    pytest.param("{label}: 4. Bài làm đúng.", id="sentence-after-the-stop"),
    pytest.param("{label}: 4 “đúng”", id="quotation-after"),
    pytest.param("{label}: 4 `ok`", id="code-after"),
    pytest.param("{label}: 4,", id="comma"),
    pytest.param("{label}: 4;", id="semicolon"),
    pytest.param("{label}: 4:", id="colon"),
    pytest.param("{label}: 4 điểm 5", id="unit-then-number"),
    pytest.param("{label}: 4 points out of 5", id="unit-then-scale-words"),
]


@pytest.mark.parametrize("strategy", list(STRATEGIES))
@pytest.mark.parametrize("language", LANGUAGE_IDS)
@pytest.mark.parametrize("line", REFUSED)
def test_only_the_grammar_may_follow_the_number(line: str, language: str, strategy: str) -> None:
    verdict = line.format(label=LABELS[language])
    score, reason = read(verdict, strategy)
    assert score is None, reason
    if not STRATEGIES[strategy].reasoning:
        # the line alone, decorated, and as a bare-number line (label removed) are refused alike
        for variant in (f"**{verdict}**", verdict.replace(f"{LABELS[language]}: ", "", 1)):
            assert read(variant, strategy)[0] is None, variant


READ = [
    pytest.param("{label}: 4", 4, id="plain"),
    pytest.param("{label}: 4/5", 4, id="out-of-five"),
    pytest.param("{label}: 4 / 5", 4, id="out-of-five-spaced"),
    pytest.param("{label}: 4 điểm", 4, id="unit-diem"),
    pytest.param("{label}: 4/5 điểm", 4, id="out-of-five-unit"),
    pytest.param("{label}: 4 points", 4, id="unit-points"),
    pytest.param("{label}: 1 point", 1, id="unit-point"),
    pytest.param("{label}: 4.", 4, id="full-stop"),
    pytest.param("{label}: 4!", 4, id="exclamation"),
    pytest.param("{label}: 4。", 4, id="ideographic-full-stop"),
    pytest.param("**{label}: 4**", 4, id="bold-line"),
    pytest.param("**{label}:** 4.", 4, id="bold-label-stop"),
    pytest.param("{label}: **4**", 4, id="bold-number"),
    pytest.param("{label}: _4_", 4, id="italic-number"),
    pytest.param("({label}: 4)", 4, id="bracketed"),
    pytest.param("[{label}: 4/5].", 4, id="square-bracketed"),
    pytest.param("{label}: 4.0", 4, id="integral-decimal"),
    pytest.param("{label}：４／５", 4, id="fullwidth-colon-digit-slash"),
    pytest.param("{label}: 𝟒", 4, id="mathematical-bold-digit"),
    pytest.param("{label}: 4⁄5", 4, id="fraction-slash-five"),
    pytest.param("{label}: 4∕5", 4, id="division-slash-five"),
    pytest.param("{label}:\u00a04", 4, id="no-break-space"),
    pytest.param("{label}:\u20034\u2009/\u20095", 4, id="em-and-thin-spaces"),
    pytest.param("Đi\u00adểm: 4", 4, id="soft-hyphen-in-the-label"),
    pytest.param("{label}: \u200b4\u200b", 4, id="zero-width-spaces"),
    pytest.param("\ufeff{label}: 4", 4, id="byte-order-mark"),
    pytest.param("{label}: \u202a4\u202c", 4, id="bidi-embedding"),
    pytest.param("{label}\u2060: 4", 4, id="word-joiner"),
]


@pytest.mark.parametrize("strategy", list(STRATEGIES))
@pytest.mark.parametrize("language", LANGUAGE_IDS)
@pytest.mark.parametrize(("line", "expected"), READ)
def test_what_may_follow_the_number_is_read(line: str, expected: int, language: str, strategy: str) -> None:
    verdict = line.format(label=LABELS[language])
    if "Điểm" in verdict and language == "en":
        verdict = verdict.replace("Điểm", "Score")
    assert read(verdict, strategy) == (expected, "ok")


@pytest.mark.parametrize("strategy", BARE)
@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        pytest.param("4", 4, id="bare"),
        pytest.param("**4**.", 4, id="bold-stop"),
        pytest.param("(4/5)", 4, id="bracketed-fraction"),
        pytest.param("4 điểm", 4, id="with-unit"),
        pytest.param("5 points!", 5, id="with-english-unit"),
        pytest.param("- 4", 4, id="list-item"),
        pytest.param("— 4", 4, id="dash-list-item"),
        pytest.param("４", 4, id="fullwidth"),
        pytest.param("⁴", 4, id="superscript"),
        pytest.param("④", 4, id="circled"),
        pytest.param("4\u200b", 4, id="zero-width-after"),
        pytest.param("−1", None, id="minus-sign-is-negative"),
        pytest.param("–1", None, id="en-dash-is-negative"),
        pytest.param("－1", None, id="fullwidth-hyphen-is-negative"),
        pytest.param("+4", None, id="signed"),
        pytest.param("4²", None, id="superscript-after"),
        pytest.param("4️⃣", None, id="keycap-emoji"),
        pytest.param("4\u0301", None, id="combining-mark-on-the-digit"),
    ],
)
def test_bare_number_lines(reply: str, expected: int | None, strategy: str) -> None:
    assert read(reply, strategy)[0] == expected


@pytest.mark.parametrize("strategy", BARE)
@pytest.mark.parametrize("language", LANGUAGE_IDS)
@pytest.mark.parametrize(
    ("after", "expected"),
    [
        pytest.param("Đúng nghĩa cốt lõi, giữ được sắc thái.", 4, id="prose"),
        pytest.param("The explanation keeps the core meaning.", 4, id="english-prose"),
        pytest.param('Bài làm tự ghi "Điểm: 5" ở cuối.', 4, id="prose-citing-a-number"),
        pytest.param("À không, 3.", None, id="correction-digit"),
        pytest.param("À không, ba.", None, id="correction-vietnamese-word"),
        pytest.param("Actually, three.", None, id="correction-english-word"),
        pytest.param("Hoặc có thể năm.", None, id="hedge-vietnamese-word"),
        pytest.param("Maybe five.", None, id="hedge-english-word"),
        pytest.param("Gần đạt tối đa: chỉ thiếu một ý.", None, id="mot"),
        pytest.param("Tính trên thang 10.", None, id="other-scale-named"),
        pytest.param("(thang 0-10)", None, id="scale-on-its-own-line"),
        pytest.param("Khoảng mười phần trăm sai.", None, id="muoi"),
        pytest.param("Thiếu một nửa ý.", None, id="nua"),
        pytest.param("Thirty percent is missing.", None, id="thirty"),
        pytest.param("Một phần ba.", None, id="fraction-words"),
        pytest.param("٣", None, id="arabic-indic-digit"),
        pytest.param("四", None, id="cjk-numeral"),
        pytest.param("½", None, id="vulgar-fraction"),
    ],
)
def test_bare_prose_after_the_verdict_has_no_number(
    after: str, expected: int | None, language: str, strategy: str
) -> None:
    for reply in (f"{LABELS[language]}: 4\n{after}", f"4\n\n{after}"):
        score, reason = read(reply, strategy)
        assert score == expected, (reply, reason)
        if expected is None:  # a lone other-script digit or ½ is a second verdict: a conflict
            assert "number" in reason or "conflicting verdicts" in reason, reason


@pytest.mark.parametrize("strategy", BARE)
@pytest.mark.parametrize(
    "reply",
    [
        pytest.param("Có lẽ 5.\nĐiểm: 3", id="digit-before-the-verdict"),
        pytest.param("Phân vân giữa bốn và ba.\nĐiểm: 3", id="number-words-before"),
        pytest.param("Bài làm có 3 ý. Điểm: 3", id="digit-before-the-label"),
        pytest.param("3-4\nĐiểm: 3", id="range-line-before"),
        pytest.param("Score: 4\n\nThe third point is missing: 2 of 3 right.", id="digits-after-a-blank-line"),
    ],
)
def test_bare_any_other_number_that_counts_makes_the_reply_unreadable(reply: str, strategy: str) -> None:
    # A bare-score reply is its verdict: a number anywhere else (outside cited text) is a hedge or
    # a second verdict the grammar cannot rank, before the verdict as much as after it.
    score, reason = read(reply, strategy)
    assert score is None
    assert "number" in reason


@pytest.mark.parametrize(
    ("line", "reason_part"),
    [
        pytest.param("Điểm: ٤", "digits", id="arabic-indic"),
        pytest.param("Điểm: ४", "digits", id="devanagari"),
        pytest.param("Điểm: ๔", "digits", id="thai"),
        pytest.param("Điểm: 4٣", "digits", id="mixed-scripts"),
        pytest.param("Điểm: −1", "out of range", id="minus-sign"),
        pytest.param("Điểm: ‒2", "out of range", id="figure-dash"),
        pytest.param("Điểm: 5⁄10", "scale", id="fraction-slash-scale"),
    ],
)
@pytest.mark.parametrize("strategy", ["aspect", "cot"])
def test_other_digits_and_look_alikes_are_refused_with_a_reason(
    line: str, reason_part: str, strategy: str
) -> None:
    score, reason = read(line, strategy)
    assert score is None
    assert reason_part in reason


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        pytest.param("Điểm: 4\u2028hoặc 5", None, id="line-separator-then-hedge"),
        pytest.param("Điểm: 4\u2029Đúng nghĩa cốt lõi.", 4, id="paragraph-separator-then-prose"),
        pytest.param("Điểm: 4\x85Đúng nghĩa.", 4, id="next-line-control"),
        pytest.param("Điểm: 4\rĐiểm: 3", None, id="carriage-return-alone"),
        pytest.param("Điểm: 3\u2028Điểm: 3", 3, id="agreeing-across-a-separator"),
    ],
)
def test_every_line_break_ends_a_line(reply: str, expected: int | None) -> None:
    assert read(reply, "aspect")[0] == expected


def test_cot_only_its_last_line_is_held_to_the_grammar() -> None:
    reasoning = "Có lẽ 4-5, hoặc bốn trên mười; À không, 3 (thang 0-10).\n"
    assert parse_judge_score(reasoning + "Điểm: 3", reasoning=True).score == 3
    assert parse_judge_score(reasoning + "Điểm: 3-4", reasoning=True).score is None


# -- what the normalisation removes and maps ---------------------------------------------------------


def test_every_format_character_of_this_pythons_unicode_is_removed() -> None:
    # The table is written out (no scan of 1.1 million code points at import); this pins it to
    # the Unicode database of the running Python.
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        if unicodedata.category(char) == "Cf":
            assert verdict_text.normalise(f"4{char}") == "4", f"U+{code:04X}"


def test_removed_characters_are_format_or_default_ignorable_only() -> None:
    removed = [chr(c) for first, last in verdict_text.INVISIBLE_RANGES for c in range(first, last + 1)]
    # Cf: format; Mn: variation selectors and the grapheme joiner; Lo: Hangul and Khmer fillers;
    # Cn: code points Unicode reserves as default-ignorable
    assert {unicodedata.category(c) for c in removed} <= {"Cf", "Mn", "Lo", "Cn"}
    assert all(verdict_text.normalise(f"a{c}b") == "ab" for c in removed)
    assert {"\u200b", "\u200d", "\u00ad", "\u202e", "\u2066", "\ufeff", "\u2060", "\ufe0f", "\u3164"} <= set(
        removed
    )


@pytest.mark.parametrize("char", list("⁄∕⧸╱／"))
def test_slash_look_alikes_read_as_a_slash(char: str) -> None:
    assert verdict_text.normalise(f"4{char}5") == "4/5"


@pytest.mark.parametrize("char", list("‐‑‒–—―−⁃﹘﹣－˗➖"))
def test_dash_look_alikes_read_as_a_hyphen(char: str) -> None:
    assert verdict_text.normalise(f"4{char}5") == "4-5"


@pytest.mark.parametrize("digits", ["０１２３４５", "𝟎𝟏𝟐𝟑𝟒𝟓", "𝟘𝟙𝟚𝟛𝟜𝟝", "⁰¹²³⁴⁵", "₀₁₂₃₄₅"])
def test_digit_look_alikes_read_as_digits(digits: str) -> None:
    assert verdict_text.normalise(digits) == "012345"


def test_other_scripts_digits_are_kept_for_the_parser_to_refuse() -> None:
    assert verdict_text.normalise("٤४๔") == "٤४๔"


# -- the grammar's text, its version, and the templates -------------------------------------------


def test_the_grammar_says_what_may_follow_the_number() -> None:
    for phrase in ("/5", "điểm", "points", "number word", "NFKC", "invisible", "unbalanced"):
        assert phrase in VERDICT_GRAMMAR, phrase


def test_the_parser_version_is_bumped_and_scores_of_the_old_rules_are_named() -> None:
    # Scores read under version 2 can differ (4-5 was 4): the report's stale check names them, and
    # the judge cell's configuration (which holds the version) makes `vivid run` judge them again.
    assert JUDGE_PARSER_VERSION >= 3  # version 4: tests/scorers/test_judge_parse_reasoning.py
    rows = pd.DataFrame(
        [
            {
                "task": "explain",
                "log": "judged.eval",
                "strategy": "aspect",
                "error": False,
                "prompt_version": 2,
                "parser_version": 2,
            }
        ],
        columns=list(SCORE_COLUMNS),
    )
    stale = stale_judgements(rows)
    assert stale is not None and "prompt 2/parser 2" in stale and "judged.eval" in stale


@pytest.mark.parametrize("language", LANGUAGE_IDS)
@pytest.mark.parametrize("strategy", list(STRATEGIES))
def test_each_template_and_retry_turn_asks_for_what_the_grammar_reads(strategy: str, language: str) -> None:
    label = LABELS[language]
    template = judge_template(strategy, language)
    reasoning = STRATEGIES[strategy].reasoning
    asked = f"{label}: 3" if reasoning else "3"
    assert read(asked, strategy) == (3, "ok")
    # what each template rules out, in its own language's label, is unreadable
    for off_format in (
        f"{label}: 3-4",
        f"{label}: 3/10",
        f"{label}: 3.5",
        f"{label}: 3 (tạm)",
        f"{label}: 3 hoặc 4",
    ):
        assert read(off_format, strategy)[0] is None, off_format
    says = {"vi": ("số nguyên", "0 đến 5"), "en": ("whole number", "0 to 5")}[language]
    for phrase in says:
        assert phrase in template and phrase in retry_turn(reasoning, language)
