"""Reads the 0-5 score out of an LLM judge's reply, by the verdict grammar.

The grammar itself is written once, in :data:`vivid_inspect.scorers.judge_prompts.VERDICT_GRAMMAR`
(and the README's "Verdict grammar"); this module is its only reader. In short: ``<think>`` blocks
go first; text inside quotes, inline code, fenced code or a blockquote is material the judge
cites, never its verdict; a bare-score reply's verdicts must agree; a chain-of-thought reply must
end with its score line and must not have been cut off. Nothing is guessed: a reply without a clear
integer from 0 to 5 is a parse failure with a reason, which the scorer turns into a retry and then
an unscored sample.

Parsing is linear in the reply's length (every pattern uses possessive quantifiers, spans are found
by one left-to-right scan), and bounded: a bare-score reply is read only when its answer, after
reasoning is removed, holds at most :data:`BARE_WINDOW` characters, and a chain-of-thought
reply's final line only when it holds at most :data:`SCORE_LINE_MAX`. ``bench/parse_adversarial.py``
measures the worst cases.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vivid_inspect.text import nfc, strip_reasoning

MIN_SCORE = 0
MAX_SCORE = 5

JUDGE_PARSER_VERSION = 2
"""Version of the reading rules; recorded in each score's metadata (``parser_version``).

1: last labelled statement wins, a statement right after an opening quote is skipped.
2: the verdict grammar of :data:`~vivid_inspect.scorers.judge_prompts.VERDICT_GRAMMAR`.
"""

BARE_WINDOW = 8192
"""Longest answer (characters, after ``<think>`` removal) read for a bare-score strategy.

Those templates ask for one integer and a budget of 10 tokens; a longer answer is off-format, and
reading it whole would let a verdict far from the end decide, so it is unreadable instead."""

SCORE_LINE_MAX = 200
"""Longest final line a chain-of-thought reply may end with; the score line is a few words."""

TRUNCATED_STOP_REASONS = frozenset({"max_tokens", "model_length"})
"""Stop reasons of a reply cut off by a token budget or the context window."""

# Stands for a cited span once it is cut out: text, but never a digit, label or decoration.
_CITED = "\ufffc"

# A number as judges write it: optional sign, Vietnamese decimal comma or a point.
_NUMBER = r"(?P<number>[-−]?\d++(?:[.,]\d++)?+)"
# "/5" after the number is the scale, not part of the score; "/10" is another scale and fails.
_SCALE = r"(?:[^\S\n]*+/[^\S\n]*+(?P<scale>\d++))?+"
_GAP = r"[^\S\n]++"
_LABEL = (
    rf"(?:điểm(?:{_GAP}(?:số|tổng{_GAP}quát|tổng(?:{_GAP}thể)?+|chung))?+(?:{_GAP}cuối(?:{_GAP}cùng)?+)?+"
    rf"|tổng{_GAP}điểm|final{_GAP}score|score)"
)
# Label, then ":", "=" or " là", then the number: "Điểm: 4", "**Điểm số:** 4/5", "Điểm cuối cùng là 4".
_STATEMENT_BODY = rf"{_LABEL}(?!\w)[^\S\n*_]*+[*_]*+[^\S\n]*+(?:[:：=]|(?<=\s)là(?!\w))[^\S\n]*+[*_]*+[^\S\n]*+{_NUMBER}{_SCALE}"
_STATEMENT = re.compile(rf"(?<!\w){_STATEMENT_BODY}(?![.,]?\d)", re.IGNORECASE)
# Markup a line may carry around its verdict: bold, italics, brackets, a heading or list marker.
_LINE_DECORATION = " \t*_()[]#"
_LIST_MARKER = re.compile(r"[-+•][^\S\n]++")
_BARE_NUMBER = re.compile(rf"{_NUMBER}{_SCALE}")
_SCORE_LINE = re.compile(_STATEMENT_BODY, re.IGNORECASE)

# Quote characters: symmetric ones toggle; directional ones open with the key and close with the value.
_SYMMETRIC_QUOTES = frozenset('"＂')
_APOSTROPHE_QUOTES = frozenset("'")
_PAIRED_QUOTES = {"“": "”", "‘": "’", "«": "»", "„": "“", "「": "」", "『": "』"}
_SPECIAL = re.compile(r"`++|[\"＂'“‘«„「『]")
_BACKTICKS = re.compile(r"`++")
_CITATION_MARKS = "\"＂'“”‘’«»„「」『』`>"
_FENCE = re.compile(r"^[^\S\n]{0,3}+(?P<fence>`{3,}+|~{3,}+)(?P<info>[^\n]*+)", re.MULTILINE)


@dataclass(frozen=True)
class JudgeParse:
    """The outcome of parsing one judge reply.

    Attributes:
        score: The integer score 0-5, or None when the reply could not be read.
        reason: ``"ok"`` on success, otherwise why the reply was rejected.
    """

    score: int | None
    reason: str

    @property
    def ok(self) -> bool:
        """Whether a score was read."""
        return self.score is not None


def _shown(text: str, limit: int = 12) -> str:
    """``text`` cut for a reason: reasons go into the retry turn and the log, never a megabyte."""
    return text if len(text) <= limit else f"{text[:limit]}…"


def _validate(number: str, scale: str | None) -> JudgeParse:
    # Lengths first: int() refuses strings over 4,300 digits, and float() turns them into inf.
    if scale is not None and (len(scale) > 3 or int(scale) != MAX_SCORE):
        return JudgeParse(None, f"score {_shown(number)}/{_shown(scale)} is not on the 0-{MAX_SCORE} scale")
    text = number.replace("−", "-").replace(",", ".")
    whole, _, fraction = text.lstrip("-").partition(".")
    if len(whole) > 3:
        return JudgeParse(None, f"score {_shown(number)} out of range {MIN_SCORE}-{MAX_SCORE}")
    if fraction.strip("0"):
        return JudgeParse(None, f"non-integer score {_shown(number)}")
    score = int(float(text))
    if not MIN_SCORE <= score <= MAX_SCORE:
        return JudgeParse(None, f"score {score} out of range {MIN_SCORE}-{MAX_SCORE}")
    return JudgeParse(score, "ok")


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _mask_line(line: str) -> str:
    """``line`` with every quoted or inline-code span replaced by one cited-text mark.

    Spans do not cross lines. An opening quote or backtick run that is never closed cites the rest
    of its line: the judge is quoting, and what follows is not its own statement. An apostrophe
    opens a quote only at the start of a word and closes one only at its end, so ``judge's`` is a
    word, not a quote. One left-to-right pass: linear in the line's length.
    """
    if line.lstrip().startswith(">"):
        return _CITED
    out: list[str] = []
    pos = 0
    for found in _SPECIAL.finditer(line):
        start = found.start()
        if start < pos:
            continue  # inside a span already cut out
        token = found.group()
        if token[0] == "`":
            # a code span closes with a run of exactly as many backticks
            closing = next(
                (run for run in _BACKTICKS.finditer(line, found.end()) if run.group() == token), None
            )
            end = len(line) if closing is None else closing.end()
        elif token in _APOSTROPHE_QUOTES:
            if start > 0 and _is_word(line[start - 1]):
                continue  # an apostrophe inside a word
            end = len(line)
            search = found.end()
            while (close := line.find(token, search)) != -1:
                if close + 1 >= len(line) or not _is_word(line[close + 1]):
                    end = close + 1
                    break
                search = close + 1
        else:
            closer = token if token in _SYMMETRIC_QUOTES else _PAIRED_QUOTES[token]
            close = line.find(closer, found.end())
            end = len(line) if close == -1 else close + 1
        out.append(line[pos:start])
        out.append(_CITED)
        pos = end
        if end >= len(line):
            break
    out.append(line[pos:])
    return "".join(out)


def _fence_blocks(text: str) -> list[tuple[int, int]]:
    """Line ranges (first, last; fence lines included) of the fenced code blocks of ``text``.

    A block opens with a line of three or more backticks or tildes and closes with a bare fence of
    the same character at least as long; an unclosed block runs to the end. Only fence lines are
    visited, so this is linear in the text's length.
    """
    blocks: list[tuple[int, int]] = []
    opened: tuple[int, str] | None = None
    line_no, last = 0, 0
    for found in _FENCE.finditer(text):
        line_no += text.count("\n", last, found.start())
        last = found.start()
        fence = found.group("fence")
        if opened is None:
            opened = (line_no, fence)
        elif fence[0] == opened[1][0] and len(fence) >= len(opened[1]) and not found.group("info").strip():
            blocks.append((opened[0], line_no))
            opened = None
    if opened is not None:
        blocks.append((opened[0], line_no + text.count("\n", last)))
    return blocks


def _ends_inside_fence(text: str) -> bool:
    """Whether ``text`` ends inside an unclosed fenced code block (the rules of :func:`_fence_blocks`)."""
    opened: str | None = None
    for found in _FENCE.finditer(text):
        fence = found.group("fence")
        if opened is None:
            opened = fence
        elif fence[0] == opened[0] and len(fence) >= len(opened) and not found.group("info").strip():
            opened = None
    return opened is not None


def _core(line: str) -> str:
    """A line without the markup around its verdict (bold, brackets, heading, list marker, final stop)."""
    core = line.strip(_LINE_DECORATION).rstrip(".!").rstrip(_LINE_DECORATION)
    listed = _LIST_MARKER.match(core)
    return core[listed.end() :] if listed else core


def _line_verdicts(line: str) -> list[re.Match[str]]:
    """The verdicts a (masked) line states: the whole line as a decorated number, else its statements."""
    whole = _BARE_NUMBER.fullmatch(_core(line))
    return [whole] if whole else list(_STATEMENT.finditer(line))


_UNCITE = str.maketrans("", "", _CITATION_MARKS)


def _has_verdict(line: str, strip: str) -> bool:
    core = line.strip(strip).rstrip(".!").strip(strip)
    return bool(_BARE_NUMBER.fullmatch(core) or _STATEMENT.search(line))


def _unread(reason: str, read: list[tuple[str, str]]) -> JudgeParse:
    """A failure, saying so when the only scores were inside cited text.

    Args:
        reason: Why nothing was read.
        read: Each line as written and as read (cited spans cut out).
    """
    if any(
        _has_verdict(raw.translate(_UNCITE), _LINE_DECORATION) and not _has_verdict(masked, _LINE_DECORATION)
        for raw, masked in read
    ):
        reason += " (a score inside quotes, code or a blockquote does not count)"
    return JudgeParse(None, reason)


def _parse_bare(text: str) -> JudgeParse:
    if len(text) > BARE_WINDOW:
        return JudgeParse(
            None, f"reply too long for a bare score ({len(text)} characters, at most {BARE_WINDOW})"
        )
    fenced = {line_no for first, last in _fence_blocks(text) for line_no in range(first, last + 1)}
    read = [
        (line, _CITED if line_no in fenced else _mask_line(line))
        for line_no, line in enumerate(text.split("\n"))
    ]
    verdicts = [verdict for _, masked in read for verdict in _line_verdicts(masked)]
    if not verdicts:
        return _unread("no score found", read)
    readings = [_validate(v.group("number"), v.group("scale")) for v in verdicts]
    distinct = list(dict.fromkeys(r.score if r.ok else r.reason for r in readings))
    if len(distinct) > 1:
        said = list(dict.fromkeys(_shown(v.group(0).strip(), 24) for v in verdicts))
        shown = ", ".join(said[:4]) + (f" and {len(said) - 4} more" if len(said) > 4 else "")
        return JudgeParse(None, f"conflicting verdicts ({shown})")
    return readings[0]


def _parse_reasoning(text: str, stop_reason: str | None) -> JudgeParse:
    if stop_reason in TRUNCATED_STOP_REASONS:
        return JudgeParse(None, f"reply cut off (stop reason {stop_reason}) before its score line")
    start = text.rfind("\n") + 1
    line = text[start:]
    if len(line) > SCORE_LINE_MAX:
        return JudgeParse(None, f"final line is not a score line (it is {len(line)} characters long)")
    # A final line that closes a fence is a fence, not a score line; only an open fence needs a check.
    if _ends_inside_fence(text):
        return JudgeParse(None, "final line is not a score line (it is inside a code block)")
    masked = _mask_line(line)
    found = _SCORE_LINE.fullmatch(_core(masked))
    if found is None:
        return _unread("final line is not a score line", [(line, masked)])
    return _validate(found.group("number"), found.group("scale"))


def parse_judge_score(reply: str, *, reasoning: bool, stop_reason: str | None = None) -> JudgeParse:
    """Read a 0-5 integer score from a judge reply, by the verdict grammar.

    Args:
        reply: The judge's raw completion.
        reasoning: True for a chain-of-thought strategy (the reply must end with its score line),
            False for a bare-score one (every verdict outside cited text must agree).
        stop_reason: Why the judge stopped (``ModelOutput.stop_reason``); a chain-of-thought reply
            stopped by ``max_tokens`` or ``model_length`` is unreadable, whatever it ends with.

    Returns:
        The score, or None with the reason (empty reply, no score, conflicting verdicts, final line
        not a score line, cut off, out of range, non-integer, wrong scale, too long).
    """
    text = nfc(strip_reasoning(reply)).strip()
    if not text:
        return JudgeParse(None, "empty reply")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _parse_reasoning(text, stop_reason) if reasoning else _parse_bare(text)
