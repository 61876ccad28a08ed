"""Reads the 0-5 score out of an LLM judge's reply, by the verdict grammar.

The grammar itself is written once, in `vivid_inspect.scorers.judge_prompts.VERDICT_GRAMMAR`
(and the docs' "Verdict grammar"); this module and `verdict_text` are
its only reader. In short: invisible characters go and look-alikes are folded first, then the
leading reasoning, up to the first ``</think>`` outside cited text; text inside quotes, inline code, fenced code or a blockquote is material the
judge cites, never its verdict, and quote marks that do not pair up make a reply unreadable; after
the number of a verdict only ``/5``, ``điểm``/``points``, closing punctuation and emphasis may
follow; a bare-score reply's verdicts must agree and nothing else in it that counts may hold a
number; a chain-of-thought reply must end with its score line and must not have been cut off.
Nothing is guessed: a reply without a clear integer from 0 to 5 is a parse failure with a reason,
which the scorer turns into a retry and then an unscored sample.

Parsing is linear in the reply's length (every pattern uses possessive quantifiers, spans are found
by one left-to-right scan), and bounded: a bare-score reply is read only when its answer, after
reasoning is removed, holds at most `BARE_WINDOW` characters, and a chain-of-thought
reply's final line only when it holds at most `SCORE_LINE_MAX`; only that much is folded
(NFKC can make text 18 times longer). ``bench/parse_adversarial.py`` measures the worst cases.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vivid_inspect.call_limits import TRUNCATED_STOP_REASONS
from vivid_inspect.scorers.verdict_text import (
    CITED,
    LESS_THAN,
    THINK_CLOSE,
    THINK_OPEN,
    cite_line,
    fold,
    number_in,
    prepare,
)

MIN_SCORE = 0
MAX_SCORE = 5

JUDGE_PARSER_VERSION = 5
"""Version of the reading rules; recorded in each score's metadata (``parser_version``).

1: last labelled statement wins, a statement right after an opening quote is skipped.
2: the verdict grammar of `VERDICT_GRAMMAR`.
3: quotes read in both directions, unpaired quote marks unreadable; only ``/5``, a unit, closing
punctuation and emphasis after the number (``4-5``, ``4 out of 10``, ``4 (thang 0-10)`` unreadable,
were 4); no other number in a bare-score reply; invisible characters removed and look-alikes folded.
4: reasoning is only a leading block, up to the first ``</think>`` outside cited text (was: all
before the last ``</think>``, so a cited ``</think>Điểm: 5`` was read as the verdict, and a cited
``<think>`` made a reply unreadable); ordinals (``fourth``), capital Roman numerals and star ratings
count as numbers in a bare-score reply (``Score: 5`` then ``the fourth level`` was 5).
5: a ``</think>`` ends the reasoning only when it begins its line (or, after an opening
``<think>``, follows text that is not inline markup), and never after a verdict in a reply without
an opening tag; indented code blocks are cited text, and so are blockquotes' lazy continuation
lines for tags; a chain-of-thought reply whose final line is indented four columns is unreadable
(``Điểm: 1`` then a cited ``*</think>Điểm: 5*`` or ``    </think>Điểm: 5`` was 5). Vietnamese rank
ordinals (``hạng nhì``, ``đệ tứ``), lower-case Roman numerals after a level word, ratings in other
symbols (``●●○``, ``🔥🔥``, ``*****``), ordinal adverbs and numbers words in Cyrillic or Greek
look-alikes count as numbers in a bare-score reply.
"""

BARE_WINDOW = 8192
"""Longest answer (characters, after ``<think>`` removal) read for a bare-score strategy.

Those templates ask for one integer and a budget of 10 tokens; a longer answer is off-format, and
reading it whole would let a verdict far from the end decide, so it is unreadable instead."""

SCORE_LINE_MAX = 200
"""Longest final line a chain-of-thought reply may end with; the score line is a few words."""

# A number as judges write it: a sign (refused, but read so the reason can say so), digits of any
# script (refused unless 0-9), a Vietnamese decimal comma or a point.
_NUMBER = r"(?P<number>[-+]?+\d++(?:[.,]\d++)?+)"
_GAP = r"[^\S\n]++"
_LABEL = (
    rf"(?:điểm(?:{_GAP}(?:số|tổng{_GAP}quát|tổng(?:{_GAP}thể)?+|chung))?+(?:{_GAP}cuối(?:{_GAP}cùng)?+)?+"
    rf"|tổng{_GAP}điểm|final{_GAP}score|score)"
)
# After the label: ":", "=" or " là", with emphasis around: "Điểm: 4", "**Điểm:** 4", "Điểm cuối cùng là 4".
_SEPARATOR = r"(?!\w)[^\S\n]*+[*_]*+[^\S\n]*+(?:[:=]|(?<=\s)là(?!\w))[^\S\n]*+[*_]*+[^\S\n]*+"
_STATEMENT = re.compile(rf"(?<!\w){_LABEL}{_SEPARATOR}{_NUMBER}", re.IGNORECASE)
# What may open a verdict line: blanks, emphasis, brackets, a heading, a list marker.
_LEAD = r"(?:[^\S\n]|[*_(\[#])*+(?:[-+•][^\S\n]++(?:[^\S\n]|[*_(\[])*+)?+"
_BARE_NUMBER = re.compile(rf"{_LEAD}{_NUMBER}")
_SCORE_LINE = re.compile(rf"{_LEAD}{_LABEL}{_SEPARATOR}{_NUMBER}", re.IGNORECASE)
# What may follow the number, to the end of its line: "/5" (the scale; "/10" is read so that it is
# refused), the unit, closing brackets, emphasis and blanks, and one full stop or exclamation mark.
_DECORATION = r"(?:[^\S\n]|[*_])*+"
_CLOSING = r"(?:[^\S\n]|[*_)\]])*+"
_TAIL = re.compile(
    rf"{_DECORATION}(?:/[^\S\n]*+(?P<scale>\d++){_DECORATION})?+"
    rf"(?:(?:điểm|points?+)(?!\w))?+{_CLOSING}(?:[.!。]{_CLOSING})?+",
    re.IGNORECASE,
)
# U+1FEF (Greek varia) and U+FF40 fold to a backtick, U+FF5E to a tilde.
_FENCE = re.compile(r"^[^\S\n]{0,3}+(?P<fence>[`｀\u1fef]{3,}+|[~～]{3,}+)(?P<info>[^\n]*+)", re.MULTILINE)
_FENCE_CHAR = str.maketrans("｀\u1fef～", "``~")
_CITATION_MARKS = "\"'“”‘’«»„‟‚‛‹›⹂「」『』〝〞〟﹁﹂﹃﹄`>"


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
    if not number.isascii() or (scale is not None and not scale.isascii()):
        return JudgeParse(None, f"score {_shown(number)} is not written in the digits 0-9")
    # Lengths first: int() refuses strings over 4,300 digits, and float() turns them into inf.
    if scale is not None and (len(scale) > 3 or int(scale) != MAX_SCORE):
        return JudgeParse(None, f"score {_shown(number)}/{_shown(scale)} is not on the 0-{MAX_SCORE} scale")
    if number[0] in "+-":
        return JudgeParse(None, f"signed score {_shown(number)} out of range {MIN_SCORE}-{MAX_SCORE}")
    whole, _, fraction = number.replace(",", ".").partition(".")
    if len(whole) > 3:
        return JudgeParse(None, f"score {_shown(number)} out of range {MIN_SCORE}-{MAX_SCORE}")
    if fraction.strip("0"):
        return JudgeParse(None, f"non-integer score {_shown(number)}")
    score = int(whole)
    if not MIN_SCORE <= score <= MAX_SCORE:
        return JudgeParse(None, f"score {score} out of range {MIN_SCORE}-{MAX_SCORE}")
    return JudgeParse(score, "ok")


@dataclass(frozen=True)
class _Line:
    """What one read line (cited spans cut out) says.

    Attributes:
        verdict: The number and scale of its verdict, if it is a verdict line.
        prose: The rest of the line that counts: all of it, or the text before a labelled verdict.
        refused: Why the line makes the reply unreadable (a verdict followed by other text).
    """

    verdict: tuple[str, str | None] | None
    prose: str
    refused: str | None = None


def _read_line(line: str) -> _Line:
    """A line's verdict (a labelled statement ending the line, or a lone number) and its prose.

    Args:
        line: One folded line with its cited spans cut out (`cite_line`).

    Returns:
        The reading; ``refused`` is set when a labelled statement is followed by anything the
        grammar does not allow (``Điểm: 4-5``, ``Điểm: 4, có thể 5``, ``Điểm: 3 … Điểm: 4``).
    """
    for statement in _STATEMENT.finditer(line):
        tail = _TAIL.fullmatch(line, statement.end())
        if tail is None:
            rest = line[statement.end() :].strip()
            return _Line(
                None, "", f"score {_shown(statement['number'])} followed by other text ({_shown(rest)})"
            )
        return _Line((statement["number"], tail["scale"]), line[: statement.start()])
    bare = _BARE_NUMBER.match(line)
    tail = _TAIL.fullmatch(line, bare.end()) if bare else None
    if bare and tail:
        return _Line((bare["number"], tail["scale"]), "")
    return _Line(None, line)


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
        fence = found.group("fence").translate(_FENCE_CHAR)
        if opened is None:
            opened = (line_no, fence)
        elif fence[0] == opened[1][0] and len(fence) >= len(opened[1]) and not found.group("info").strip():
            blocks.append((opened[0], line_no))
            opened = None
    if opened is not None:
        blocks.append((opened[0], line_no + text.count("\n", last)))
    return blocks


def _ends_inside_fence(text: str) -> bool:
    """Whether ``text`` ends inside an unclosed fenced code block (the rules of `_fence_blocks`).

    Full-width backticks and tildes count as fence characters here, as NFKC would read them, so a
    reply that is not folded whole (a long chain of thought) is read as one that is.
    """
    opened: str | None = None
    for found in _FENCE.finditer(text):
        fence = found.group("fence").translate(_FENCE_CHAR)
        if opened is None:
            opened = fence
        elif fence[0] == opened[0] and len(fence) >= len(opened) and not found.group("info").strip():
            opened = None
    return opened is not None


_QUOTE_START = ">\uff1e\ufe65"  # what folds to ">"
_LIST_ITEM = re.compile(r"[^\S\n]{0,3}+(?:[-+*•]|\d{1,9}+[.)])(?:[^\S\n]|$)")


def _indent(line: str) -> int:
    """Columns of leading blank space (a tab counts as four)."""
    return len(line[: len(line) - len(line.lstrip())].expandtabs(4))


def _block_lines(text: str, *, lazy_quotes: bool) -> set[int]:
    """Numbers of the lines of ``text`` inside a cited block, as Markdown reads them.

    Fenced code blocks (fence lines included, `_fence_blocks`) and indented code blocks (lines
    indented four columns or more after a blank line, a fence or the start, outside a list, whose
    indented lines are its items' content); with ``lazy_quotes``,
    also blockquote lines and the lines that continue them lazily (every line after one, up to a
    blank line: CommonMark's lazy continuation, since which of them the judge meant as quoted
    cannot be told).
    """
    cited = {number for first, last in _fence_blocks(text) for number in range(first, last + 1)}
    can_code, quoted, listed, after_blank = True, False, False, True
    for number, line in enumerate(text.split("\n")):
        blank = not line.strip()
        if number in cited:
            can_code, quoted, listed = True, False, False
        elif not blank and can_code and not listed and _indent(line) >= 4:
            cited.add(number)
        else:
            if _LIST_ITEM.match(line):
                listed = True  # its indented lines are its content, read as the judge's text
            elif not blank and after_blank and not _indent(line):
                listed = False
            quoted = not blank and (line.lstrip()[0] in _QUOTE_START or quoted)
            if lazy_quotes and quoted:
                cited.add(number)
            can_code = blank
        after_blank = blank
    return cited


_UNCITE = str.maketrans("", "", _CITATION_MARKS)


def _has_verdict(line: str) -> bool:
    # Any labelled statement counts here, whatever follows it: the hint is about cited verdicts.
    return _STATEMENT.search(line) is not None or _read_line(line).verdict is not None


def _unread(reason: str, read: list[tuple[str, str]]) -> JudgeParse:
    """A failure, saying so when the only scores were inside cited text.

    Args:
        reason: Why nothing was read.
        read: Each line as written (folded) and as read (cited spans cut out).
    """
    if any(_has_verdict(raw.translate(_UNCITE)) and not _has_verdict(masked) for raw, masked in read):
        reason += " (a score inside quotes, code or a blockquote does not count)"
    return JudgeParse(None, reason)


def _unpaired(where: str) -> str:
    return f"unbalanced or ambiguous quote marks on {where}: which text is cited cannot be told"


def _parse_bare(text: str) -> JudgeParse:
    if len(text) > BARE_WINDOW:
        return JudgeParse(
            None, f"reply too long for a bare score ({len(text)} characters, at most {BARE_WINDOW})"
        )
    text = fold(text).strip()
    fenced = _block_lines(text, lazy_quotes=False)
    read: list[tuple[str, str]] = []
    verdicts: list[tuple[str, str | None]] = []
    stray: str | None = None
    for line_no, line in enumerate(text.split("\n")):
        masked = CITED if line_no in fenced else cite_line(line)
        if masked is None:
            return JudgeParse(None, _unpaired(f"line {line_no + 1}"))
        read.append((line, masked))
        found = _read_line(masked)
        if found.refused:
            return JudgeParse(None, found.refused)
        if found.verdict:
            verdicts.append(found.verdict)
        stray = stray or number_in(found.prose)
    if not verdicts:
        return _unread("no score found", read)
    if stray is not None:
        # A hedge, a correction, another scale or a second verdict the grammar cannot rank.
        return JudgeParse(None, f"a number outside the verdict ({_shown(stray)})")
    readings = [_validate(number, scale) for number, scale in verdicts]
    distinct = list(dict.fromkeys(r.score if r.ok else r.reason for r in readings))
    if len(distinct) > 1:
        said = list(
            dict.fromkeys(_shown(number + (f"/{scale}" if scale else ""), 24) for number, scale in verdicts)
        )
        shown = ", ".join(said[:4]) + (f" and {len(said) - 4} more" if len(said) > 4 else "")
        return JudgeParse(None, f"conflicting verdicts ({shown})")
    return readings[0]


def _parse_reasoning(text: str, stop_reason: str | None) -> JudgeParse:
    if stop_reason in TRUNCATED_STOP_REASONS:
        return JudgeParse(None, f"reply cut off (stop reason {stop_reason}) before its score line")
    line = text[text.rfind("\n") + 1 :]
    if len(line) > SCORE_LINE_MAX:
        return JudgeParse(None, f"final line is not a score line (it is {len(line)} characters long)")
    if _indent(fold(line)) >= 4:
        # Code, or the lazy continuation of the line above: either way not a score line of its own.
        return JudgeParse(None, "final line is not a score line (it is indented as code)")
    # A final line that closes a fence is a fence, not a score line; only an open fence needs a check.
    if _ends_inside_fence(text):
        return JudgeParse(None, "final line is not a score line (it is inside a code block)")
    line = fold(line).strip()
    masked = cite_line(line)
    if masked is None:
        return JudgeParse(None, f"final line is not a score line ({_unpaired('it')})")
    found = _SCORE_LINE.match(masked)
    tail = _TAIL.fullmatch(masked, found.end()) if found else None
    if found is None or tail is None:
        return _unread("final line is not a score line", [(line, masked)])
    return _validate(found["number"], tail["scale"])


REASONING_FOLD_MAX = 65_536
"""Most characters of the lines holding ``<`` that are folded and read while the closing
``</think>`` of the leading reasoning is looked for; past it the reply is unreadable (a reply from a
judge never needs it: its reasoning has a few lines with ``<`` at most)."""

_LESS_THAN = re.compile(f"[{LESS_THAN}]")


def _closes_reasoning(before: str, opened: bool) -> bool:
    """Whether a ``</think>`` after ``before`` (its line's text before it) may end the reasoning.

    It must begin its line (after at most three spaces, or it would be code); or, in a reply that
    opens with ``<think>``, follow text on its line that is not inline markup (``*</think>*``,
    ``_</think>_``, ``[</think>](…)`` or ``<b></think>`` cite the tag).
    """
    if not before.strip():
        return _indent(before) < 4
    if not opened:
        return False
    last = before.rstrip()
    return last[-1] not in _INLINE_MARKUP or last.casefold().endswith("<think>")


_INLINE_MARKUP = "*_~[(|>"


def _after_reasoning(text: str) -> tuple[str | None, str]:
    """The answer after a reply's leading reasoning, or None and why it cannot be told.

    Reasoning is only a leading block: the text up to the first ``</think>`` that stands outside
    every fenced or indented code block, blockquote (with its lazy continuation lines), quote and
    code span, and that begins its line; in a reply that opens with ``<think>`` it may also follow
    text on its line that is not inline markup. In a reply that does not open with ``<think>`` (a
    chat template may open it in the prompt) nothing before the tag may be a verdict: a
    ``</think>`` after a score is never reasoning. Tags are found in the text as the rest of the
    parser reads it (folded: ``＜/ｔｈｉｎｋ＞`` is a tag), but only lines holding a character that
    folds to ``<`` are folded here. A ``</think>`` the judge cites, and any ``<think>`` after the
    start of the reply, are text like any other.

    Args:
        text: The reply after `prepare`.

    Returns:
        ``(answer, "")``, the answer's first line folded and the rest as given; or ``(None, reason)``
        when a leading ``<think>`` is never closed outside cited text, or when the lines to fold
        exceed `REASONING_FOLD_MAX`.
    """
    opened = THINK_OPEN.match(fold(text.lstrip()[:32])) is not None
    cited: set[int] | None = None
    budget = REASONING_FOLD_MAX
    line_no, counted_to, next_line = 0, 0, 0
    for found in _LESS_THAN.finditer(text):
        if found.start() < next_line:
            continue  # a later "<" on a line already read
        start = text.rfind("\n", 0, found.start()) + 1
        end = text.find("\n", found.start())
        end = len(text) if end < 0 else end
        line_no += text.count("\n", counted_to, start)
        counted_to, next_line = start, end + 1
        if cited is None:
            cited = _block_lines(text, lazy_quotes=True)
        if line_no in cited:
            continue
        line = text[start:end]
        if not line.isascii():
            budget -= len(line)
            line = fold(line)
        if budget < 0:
            return None, f"reasoning markup too long to read (over {REASONING_FOLD_MAX:,} characters)"
        if line.lstrip().startswith(">"):
            continue  # a blockquote line
        for tag in THINK_CLOSE.finditer(line):
            budget -= tag.start()  # cite_line reads the line up to the tag
            if budget < 0:
                return None, f"reasoning markup too long to read (over {REASONING_FOLD_MAX:,} characters)"
            before = line[: tag.start()]
            # every quote and code span before it closed, and no markup around it
            if cite_line(before) is None or not _closes_reasoning(before, opened):
                continue
            if not opened and any(map(_has_verdict, text[:start].split("\n"))):
                return text, ""  # a verdict came first: this tag, and every later one, is text
            return line[tag.end() :] + text[end:], ""
    if opened:
        return None, "empty reply (a <think> block never closed: no answer after the reasoning)"
    return text, ""


def parse_judge_score(reply: str, *, reasoning: bool, stop_reason: str | None = None) -> JudgeParse:
    """Read a 0-5 integer score from a judge reply, by the verdict grammar.

    Args:
        reply: The judge's raw completion.
        reasoning: True for a chain-of-thought strategy (the reply must end with its score line),
            False for a bare-score one (every verdict outside cited text must agree, and nothing
            else that counts may hold a number).
        stop_reason: Why the judge stopped (``ModelOutput.stop_reason``); a chain-of-thought reply
            stopped by ``max_tokens`` or ``model_length`` is unreadable, whatever it ends with.

    Returns:
        The score, or None with the reason (empty reply, no score, conflicting verdicts, text after
        the score, a number outside the verdict, unpaired quote marks, final line not a score line,
        cut off, out of range, non-integer, wrong scale, other digits, too long).
    """
    answer, why = _after_reasoning(prepare(reply))
    if answer is None:
        return JudgeParse(None, why)
    text = answer.strip()
    if not text:
        return JudgeParse(None, "empty reply")
    return _parse_reasoning(text, stop_reason) if reasoning else _parse_bare(text)
