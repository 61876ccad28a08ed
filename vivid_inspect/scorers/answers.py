"""Reading a classification answer: strictly (the paper's exact match) and leniently."""

from __future__ import annotations

import re

from vivid_inspect.text import nfc, strip_reasoning

_INTEGER = re.compile(r"(?<![\d.,])-?\d+(?:[.,]\d+)?(?![\d])")


def final_answer(completion: str) -> str:
    """The model's final answer as the paper compares it: reasoning removed, whitespace stripped, NFC.

    Args:
        completion: The raw completion.

    Returns:
        The answer text with nothing else changed (no case folding, no punctuation removal).
    """
    return nfc(strip_reasoning(completion).strip())


def _integers(text: str) -> list[int]:
    """Whole numbers written in ``text``, in order; decimals such as ``4.5`` are not whole numbers."""
    values: list[int] = []
    for token in _INTEGER.findall(text):
        number = float(token.replace(",", "."))
        if number.is_integer():
            values.append(int(number))
    return values


def lenient_topic(answer: str) -> int | None:
    """The first whole number from 1 to 7 in the answer, or None."""
    for value in _integers(answer):
        if 1 <= value <= 7:
            return value
    return None


def lenient_traits(answer: str) -> tuple[int, ...]:
    """The set of trait codes 1-5 written anywhere in the answer, ascending.

    Commas between digits separate codes here (``1,3`` is 1 and 3), unlike in :func:`_integers`.
    """
    return tuple(sorted({int(digit) for digit in re.findall(r"(?<!\d)[1-5](?!\d)", answer)}))
