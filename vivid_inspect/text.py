"""Text helpers shared by every comparison of Vietnamese strings and every text we store."""

from __future__ import annotations

import contextlib
import re
import unicodedata
from collections import Counter
from collections.abc import Callable
from typing import Any

_THINK_TAG = re.compile(r"<(/?)think>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think>", re.IGNORECASE)
_THINK_OPEN = re.compile(r"<think>", re.IGNORECASE)
_SURROGATE = re.compile("[\ud800-\udfff]")
# What a terminal acts on instead of showing: C0 and C1 controls (ESC starts colour and cursor
# codes), line and paragraph separators, and the bidirectional and invisible format characters.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
_UNPRINTABLE_IN_LINES = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]"
)

REPLACEMENT = "\ufffd"
"""What a lone surrogate becomes in stored text (U+FFFD REPLACEMENT CHARACTER)."""


def nfc(text: str) -> str:
    """Return ``text`` in Unicode NFC.

    Vietnamese arrives both precomposed and decomposed (NFD ``Đầu`` is not NFC ``Đầu``), so
    every comparison normalises both sides with this function.

    Args:
        text: Any string.

    Returns:
        The NFC form of ``text``.
    """
    return unicodedata.normalize("NFC", text)


def printable(text: object, *, lines: bool = False) -> str:
    r"""``text`` as one line a terminal shows as written: each control character escaped (``\x1b``, ``\n``).

    A spec is shared, so a model or judge name in it may hold ANSI codes or a newline that would
    rewrite what the terminal shows; every name the CLI prints goes through here.

    Args:
        text: A name, label or path (anything ``str()`` takes).
        lines: Keep line breaks and tabs: for a whole text the command prints (a report's
            markdown), whose names are escaped by the same rule.

    Returns:
        The text with every control, separator and bidirectional or invisible format character
        written as its Python escape; other text (Vietnamese included) unchanged.
    """
    pattern = _UNPRINTABLE_IN_LINES if lines else _UNPRINTABLE
    return pattern.sub(lambda found: found.group().encode("unicode_escape").decode("ascii"), str(text))


def unmarked(text: str) -> str:
    """Inspect's message as plain text on one line: its rich markup (``[bold]KEY[/bold]``) rendered.

    Text that is not valid markup reads as it is.
    """
    from rich.errors import MarkupError
    from rich.text import Text

    with contextlib.suppress(MarkupError):
        text = Text.from_markup(text).plain
    return " ".join(text.split())


def has_lone_surrogate(text: str) -> bool:
    r"""Whether ``text`` holds a surrogate code point, which UTF-8 cannot encode.

    A provider that sends a JSON ``"\ud800"`` escape gives Python such a string; writing it into a
    log raises ``UnicodeEncodeError``. (A valid pair like ``"\ud83d\ude00"`` is decoded by JSON into
    one character, so any surrogate left in a ``str`` is a broken one.)

    Args:
        text: Any string.

    Returns:
        True when at least one surrogate is present.
    """
    return _SURROGATE.search(text) is not None


class RepeatedKey(ValueError):
    """A JSON object gives ``key`` twice; Python's ``json`` would keep its last value silently."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def unique_keys(
    pairs: list[tuple[str, Any]], refuse: Callable[[str], Exception] = RepeatedKey
) -> dict[str, Any]:
    """``json``'s ``object_pairs_hook`` for untrusted JSON: an object that gives a key twice is refused.

    Which of its values counts would be a guess, so a log, an annotation request and a request to
    the test server are all refused by this one rule, naming the key.

    Args:
        pairs: The object's keys and values, in order.
        refuse: Makes the error raised from the key: of the repeated keys, the one given first.

    Returns:
        The object as a dict.

    Raises:
        RepeatedKey: A key is given twice (or the error ``refuse`` makes).
    """
    found = dict(pairs)
    if len(found) < len(pairs):
        counts = Counter(key for key, _ in pairs)
        raise refuse(next(key for key, count in counts.items() if count > 1))
    return found


def sanitize(value: Any) -> Any:
    """Make text safe to store: lone surrogates become U+FFFD, recursively through dicts and lists.

    Args:
        value: A string, or a dict, list or tuple holding strings; anything else is returned as is.

    Returns:
        The same structure with every string encodable as UTF-8; an unchanged string is returned
        as the same object.
    """
    if isinstance(value, str):
        return _SURROGATE.sub(REPLACEMENT, value) if has_lone_surrogate(value) else value
    if isinstance(value, dict):
        return {sanitize(key): sanitize(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(sanitize(item) for item in value)
    return value


def strip_reasoning(text: str) -> str:
    """Remove ``<think>`` reasoning that some models (Qwen3, GreenMind-R1) put before the answer.

    Closed blocks are removed. When a model's server already dropped the opening tag, whatever
    precedes the last ``</think>`` is reasoning. An opening tag that is never closed means the
    model ran out of tokens while thinking: there is no final answer, so the result is empty.

    One left-to-right pass over the tags, so linear in the text's length (a lazy
    ``<think>.*?</think>`` search is quadratic on ``"<think>" * k``).

    Args:
        text: A model's raw completion.

    Returns:
        The text of the final answer, not stripped of surrounding whitespace.
    """
    # The same blocks a leftmost, non-overlapping "<think>.*?</think>" would remove: an opening
    # tag starts a block, the first closing tag after it ends the block.
    kept: list[str] = []
    position, opened = 0, -1
    for tag in _THINK_TAG.finditer(text):
        if opened < 0 and not tag.group(1):
            opened = tag.start()
        elif opened >= 0 and tag.group(1):
            kept.append(text[position:opened])
            position, opened = tag.end(), -1
    kept.append(text[position:])
    text = "".join(kept)
    closes = list(_THINK_CLOSE.finditer(text))
    if closes:
        text = text[closes[-1].end() :]
    first_open = _THINK_OPEN.search(text)
    if first_open:
        text = text[: first_open.start()]
    return text
