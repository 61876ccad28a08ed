"""Judge replies built to make a parser backtrack: each is read in linear time.

A regex with two adjacent ``[…]*`` over the same characters, or a lazy ``.*?`` retried at every
opening tag, takes seconds to minutes on replies like ``"4" + "*" * 40000 + "x"`` or
``"<think>" * k``, and parsing runs on the event loop, so every concurrent sample stalls with it.
Each shape here is parsed at 1 MB for both kinds of strategy, and its line-level reading (quote,
code and verdict patterns) at 256 kB with the bare window lifted, each within a generous bound on
the process's CPU time; so is the normalisation the parser does (``prepare`` on the whole reply,
``fold``, NFKC, which can make a text 18 times longer, on the part it reads), which other load on the machine does not inflate as it does wall time
(the real figures, at 1 MB, are in ``bench/parse_adversarial.py`` and ``bench/results.md``).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from vivid_inspect.scorers import judge_parse
from vivid_inspect.scorers.judge_parse import (
    BARE_WINDOW,
    _read_line,
    _unread,
    parse_judge_score,
)
from vivid_inspect.scorers.verdict_text import CITED, cite_line, fold, number_in, prepare
from vivid_inspect.text import strip_reasoning

MEGABYTE = 1_000_000
LINE_SIZE = 256_000


def _repeat(unit: str, size: int, prefix: str = "", suffix: str = "") -> str:
    """``prefix + unit * k + suffix`` of about ``size`` characters."""
    return prefix + unit * max(1, (size - len(prefix) - len(suffix)) // len(unit)) + suffix


SHAPES: dict[str, Callable[[int], str]] = {
    "decorations-then-junk": lambda n: _repeat("*", n, "4", "x"),
    "decorations-around-number": lambda n: _repeat("*", n // 2) + "4" + _repeat("*", n // 2, suffix="x"),
    "spaces-around-number": lambda n: _repeat(" ", n // 2, "**") + "4" + _repeat(" ", n // 2, suffix="x"),
    "brackets-and-quotes": lambda n: _repeat("(\"'“", n, "4", "x"),
    "think-open-tags": lambda n: _repeat("<think>", n),
    "think-close-tags": lambda n: _repeat("</think>", n),
    "think-tags-alternating": lambda n: _repeat("<think>a</think><think>", n),
    "unclosed-straight-quotes": lambda n: _repeat('"', n),
    "unclosed-curly-quotes": lambda n: _repeat("“", n),
    "apostrophes": lambda n: _repeat("a' '", n),
    "guillemets-and-corners": lambda n: _repeat("«「『„", n),
    "backtick-runs-of-many-lengths": lambda n: "".join("`" * (i % 7 + 1) + " " for i in range(n // 5)),
    "single-backticks": lambda n: _repeat("`", n),
    "fence-lines": lambda n: _repeat("```\n", n),
    "fence-lines-of-growing-length": lambda n: "".join("`" * (3 + i % 5) + "x\n" for i in range(n // 7)),
    "blockquote-lines": lambda n: _repeat("> Điểm: 5\n", n),
    "labels-without-numbers": lambda n: _repeat("Điểm: ", n),
    "label-then-spaces": lambda n: _repeat(" ", n, "Điểm", "x"),
    "label-words-repeated": lambda n: _repeat("điểm số tổng cuối ", n),
    "statements": lambda n: _repeat("Điểm: 4 ", n),
    "long-number": lambda n: _repeat("4", n),
    "number-then-scale-spaces": lambda n: _repeat(" ", n, "4", "/x"),
    "decimal-separators": lambda n: _repeat("4.", n),
    "minus-signs": lambda n: _repeat("−", n, suffix="4"),
    "one-long-line": lambda n: _repeat("a", n, suffix="\nĐiểm: 4"),
    "newlines": lambda n: _repeat("\n", n, "x", "Điểm: 4"),
    "bare-verdict-lines": lambda n: _repeat("4\n", n),
    "score-line-after-long-reasoning": lambda n: _repeat("Lý do dài. ", n, suffix="\nĐiểm: 4"),
    # parser version 3: normalisation, quotes in both directions, what follows the number
    "nfkc-expanding": lambda n: _repeat("\ufdfa", n, "4"),
    "invisible-characters": lambda n: _repeat("\u200b", n, "4", "-5"),
    "zero-width-between-digits": lambda n: _repeat("4\u200b", n),
    "dash-look-alikes": lambda n: _repeat("4–", n),
    "quote-openers-of-every-family": lambda n: _repeat("“‘«‹「『〝﹁﹃", n),
    "balanced-reversed-quotes": lambda n: _repeat("»a« ", n, "Điểm: 4 "),
    "crossing-quotes": lambda n: _repeat("“‘”’", n),
    "apostrophes-in-words": lambda n: _repeat("it's ", n, suffix="Score: 4"),
    "code-spans": lambda n: _repeat("`a` ", n, suffix="Điểm: 4"),
    "number-words": lambda n: _repeat("một hai ba ", n, "Điểm: 4\n"),
    "tail-decorations": lambda n: _repeat("*", n, "Điểm: 4", "x"),
    "tail-closing-brackets": lambda n: _repeat(") ", n, "Điểm: 4", "?"),
    # parser version 4: the leading reasoning ends at the first </think> outside cited text
    "quoted-close-tags-one-line": lambda n: _repeat('"</think>" ', n, "<think>", "\nĐiểm: 4"),
    "quoted-close-tag-lines": lambda n: _repeat('"</think>"\n', n, "<think>", "Điểm: 4"),
    "fenced-close-tags": lambda n: _repeat("</think>\n", n, "<think>\n```\n", "```\nĐiểm: 4"),
    "full-width-close-tag-lines": lambda n: _repeat("«＜/think＞»\n", n, "<think>", "Điểm: 4"),
    "blockquoted-close-tags": lambda n: _repeat("> </think>\n", n, suffix="Điểm: 4"),
    "less-than-lines-vietnamese": lambda n: _repeat("Điểm < 5 vì thiếu ý\n", n, suffix="</think>\nĐiểm: 4"),
    "stars-and-ordinals": lambda n: _repeat("★☆ fourth Ⅳ ", n, "Điểm: 4\n"),
    # parser version 5: tags in markup, indented code, lazy quotes or after verdicts; other ratings
    "emphasised-close-tags": lambda n: _repeat("*</think>* ", n, "<think>", "\nĐiểm: 4"),
    "indented-close-tag-lines": lambda n: _repeat("    </think>\n", n, "Bài làm:\n\n", "\nĐiểm: 4"),
    "lazy-quoted-close-tags": lambda n: _repeat("</think>\n", n, "> a\n", "\nĐiểm: 4"),
    "verdicts-then-a-close-tag": lambda n: _repeat("Điểm: 4\n", n, suffix="</think>\nĐiểm: 4"),
    "symbol-ratings-and-ranks": lambda n: _repeat("●○ 🔥🔥 hạng nhì Level iv fоurth ", n, "Điểm: 4\n"),
}


@pytest.mark.slow
@pytest.mark.parametrize("reasoning", [False, True], ids=["bare", "cot"])
@pytest.mark.parametrize("shape", list(SHAPES))
def test_megabyte_reply_parses_fast(shape: str, reasoning: bool) -> None:
    reply = SHAPES[shape](MEGABYTE)
    assert MEGABYTE * 0.9 <= len(reply) <= MEGABYTE * 1.1
    started = time.process_time()
    parsed = parse_judge_score(reply, reasoning=reasoning, stop_reason="stop")
    elapsed = time.process_time() - started
    assert elapsed < 2.0, f"{shape}: {elapsed:.2f} s"
    assert parsed.reason  # a result with a reason, not a hang or a crash


@pytest.mark.parametrize("shape", list(SHAPES))
def test_line_reading_is_linear_without_the_window(shape: str) -> None:
    # The window keeps bare replies at 8 kB; the line-level patterns must not need it.
    line = SHAPES[shape](LINE_SIZE).replace("\n", " ")
    started = time.process_time()
    read_line(line)
    elapsed = time.process_time() - started
    assert elapsed < 2.0, f"{shape}: {elapsed:.2f} s"


def read_line(line: str) -> None:
    """What the parser does with one line, without the window: cut cited spans, find verdicts, numbers."""
    masked = cite_line(line)
    if masked is None:
        return
    found = _read_line(masked)
    number_in(found.prose)
    if found.verdict is None:
        _unread("no score found", [(line, masked or CITED)])


@pytest.mark.parametrize("shape", list(SHAPES))
def test_normalising_is_linear_and_folds_only_what_is_read(shape: str) -> None:
    # prepare() runs on the whole reply; fold() (NFKC, up to 18 times longer) on a bare reply's
    # window or a CoT reply's last line only, so at most 18 x 8,192 characters.
    reply = SHAPES[shape](MEGABYTE)
    started = time.process_time()
    prepared = prepare(reply)
    fold(prepared[:BARE_WINDOW])
    assert time.process_time() - started < 2.0
    assert len(prepared) <= len(reply)


@pytest.mark.parametrize("stars", [8_000, 40_000])
def test_the_issue_reply_is_read_as_nothing(stars: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # "4" + 40,000 "*" + "x" took 137 s: it is not a verdict, and says so at once, with or without
    # the window.
    reply = "4" + "*" * stars + "x"
    parsed = parse_judge_score(reply, reasoning=False)
    too_long = f"reply too long for a bare score ({len(reply)} characters, at most {BARE_WINDOW})"
    assert (parsed.score, parsed.reason) == (None, too_long if len(reply) > BARE_WINDOW else "no score found")
    monkeypatch.setattr(judge_parse, "BARE_WINDOW", 10 * MEGABYTE)
    assert parse_judge_score(reply, reasoning=False).reason == "no score found"


@pytest.mark.slow
@pytest.mark.parametrize("shape", ["think-open-tags", "think-close-tags", "think-tags-alternating"])
def test_strip_reasoning_is_linear(shape: str) -> None:
    reply = SHAPES[shape](MEGABYTE)
    started = time.process_time()
    strip_reasoning(reply)
    assert time.process_time() - started < 2.0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("<think>a</think>x<think>b</think>y", "xy", id="two-blocks"),
        pytest.param("<think>a<think>b</think>x", "x", id="nested-open-is-swallowed"),
        pytest.param("a</think>b</think>c", "c", id="stray-closes-keep-the-last"),
        pytest.param("x<think>never closed", "x", id="unclosed-cuts-the-rest"),
        pytest.param("<THINK>a</Think>x", "x", id="any-case"),
        pytest.param("<thi<think>a</think>nk>b</think>c", "c", id="tag-formed-by-removal"),
    ],
)
def test_strip_reasoning_keeps_its_rules(text: str, expected: str) -> None:
    assert strip_reasoning(text) == expected
