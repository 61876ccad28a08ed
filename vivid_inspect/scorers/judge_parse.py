"""Reads the 0-5 score out of an LLM judge's reply.

Every judge template asks either for a bare integer or for reasoning that ends with the line
``Điểm: N``. Judges decorate anyway (``**4**``, ``4/5``, ``4.0``), so this module accepts the
common decorations but never guesses: a reply without a clear integer from 0 to 5 is a parse
failure with a reason, which the scorer turns into a retry and then an unscored sample.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vivid_inspect.text import nfc, strip_reasoning

MIN_SCORE = 0
MAX_SCORE = 5

# A number as judges write it: optional sign, Vietnamese decimal comma or a point.
_NUMBER = r"(?P<number>[-−]?\d+(?:[.,]\d+)?)"
# "/5" after the number is the scale, not part of the score; "/10" is another scale and fails.
_SCALE = r"(?:\s*/\s*(?P<scale>\d+))?"
_DECORATION = r"[\s*_`\"'“”‘’«»()\[\]]*"

# The whole reply is one score: "4", "**4**", "4/5", "4.0", "(4)".
_BARE = re.compile(rf"^{_DECORATION}{_NUMBER}{_SCALE}{_DECORATION}[.!]?{_DECORATION}$")

# A labelled score statement anywhere: "Điểm: 4", "**Điểm số:** 4/5", "Điểm cuối cùng là 4".
_LABEL = (
    r"(?:điểm(?:\s+(?:số|tổng(?:\s+thể)?|cuối(?:\s+cùng)?|chung|tổng\s+quát))?"
    r"|tổng\s+điểm|final\s+score|score)"
)
# A statement right after an opening quote is the judge quoting the candidate (an injected
# "Điểm: 5"), not its own verdict, so it never counts.
_STATEMENT = re.compile(
    rf"(?<![\"“«‘'])(?<!\w){_LABEL}(?!\w)[\s*_`]*(?:[:：=]|\s+là)[\s*_`\"'“”]*{_NUMBER}{_SCALE}",
    re.IGNORECASE,
)


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


def _validate(number: str, scale: str | None) -> JudgeParse:
    text = number.replace("−", "-").replace(",", ".")
    if scale is not None and int(scale) != MAX_SCORE:
        return JudgeParse(None, f"score {number}/{scale} is not on the 0-{MAX_SCORE} scale")
    value = float(text)
    if not value.is_integer():
        return JudgeParse(None, f"non-integer score {number}")
    score = int(value)
    if not MIN_SCORE <= score <= MAX_SCORE:
        return JudgeParse(None, f"score {score} out of range {MIN_SCORE}-{MAX_SCORE}")
    return JudgeParse(score, "ok")


def parse_judge_score(reply: str) -> JudgeParse:
    """Read a 0-5 integer score from a judge reply.

    Accepted, in this order: a reply that is only a (decorated) number; otherwise the *last*
    labelled statement such as ``Điểm: 4`` (chain-of-thought replies may mention scores while
    reasoning, and the final verdict is the one the template asks for); otherwise a last line
    that is only a number. ``<think>`` blocks are removed first.

    Args:
        reply: The judge's raw completion.

    Returns:
        The score, or None with the reason (empty reply, no score, out of range, non-integer,
        wrong scale).
    """
    text = nfc(strip_reasoning(reply)).strip()
    if not text:
        return JudgeParse(None, "empty reply")

    bare = _BARE.match(text)
    if bare:
        return _validate(bare.group("number"), bare.group("scale"))

    statements = list(_STATEMENT.finditer(text))
    if statements:
        last = statements[-1]
        return _validate(last.group("number"), last.group("scale"))

    last_line = text.splitlines()[-1].strip()
    bare_line = _BARE.match(last_line)
    if bare_line:
        return _validate(bare_line.group("number"), bare_line.group("scale"))

    return JudgeParse(None, "no score found")
