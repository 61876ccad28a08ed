"""Text helpers shared by every comparison of Vietnamese strings."""

from __future__ import annotations

import re
import unicodedata

_THINK_BLOCK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think>", re.IGNORECASE)
_THINK_OPEN = re.compile(r"<think>", re.IGNORECASE)


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


def strip_reasoning(text: str) -> str:
    """Remove ``<think>`` reasoning that some models (Qwen3, GreenMind-R1) put before the answer.

    Closed blocks are removed. When a model's server already dropped the opening tag, whatever
    precedes the last ``</think>`` is reasoning. An opening tag that is never closed means the
    model ran out of tokens while thinking: there is no final answer, so the result is empty.

    Args:
        text: A model's raw completion.

    Returns:
        The text of the final answer, not stripped of surrounding whitespace.
    """
    text = _THINK_BLOCK.sub("", text)
    closes = list(_THINK_CLOSE.finditer(text))
    if closes:
        text = text[closes[-1].end() :]
    opened = _THINK_OPEN.search(text)
    if opened:
        text = text[: opened.start()]
    return text
