"""Reading a classification answer: strictly (the paper's exact match) and leniently."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from vivid_inspect.data.normalise import idiom_key
from vivid_inspect.solvers.markers import ANSWER_TAGS
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


TraitsStatus = Literal["ok", "empty", "no_code", "out_of_range"]

# Numbers as a model writes trait codes: "1,3" is two codes (the prompt's separator), "1.0" one.
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
# What the traits prompt ends with; a model that repeats it and adds nothing answered "no traits".
_ANSWER_TAG_KEY = idiom_key(ANSWER_TAGS["traits"])


@dataclass(frozen=True)
class TraitsReading:
    """What the lenient parse read from a traits answer.

    Attributes:
        codes: The trait codes, ascending and without repeats; ``()`` for an explicit empty answer;
            None when the answer is unreadable.
        status: ``ok`` (codes read), ``empty`` (nothing but decoration: "no traits", as the prompt
            asks), ``no_code`` (text without any number, such as "Không có") or ``out_of_range``
            (a number that is not a code 1-5, such as ``0`` or the ``6`` of ``1,3,6``).
    """

    codes: tuple[int, ...] | None
    status: TraitsStatus

    @property
    def readable(self) -> bool:
        """True when the answer names a trait set (possibly empty)."""
        return self.codes is not None


def read_traits(answer: str) -> TraitsReading:
    """Read a traits answer leniently: codes 1-5 in any order, spacing or decoration.

    The prompt asks for an empty answer when no trait applies, so only an answer with nothing in
    it (blank, punctuation or markdown only, or the echoed ``Đặc điểm:`` tag alone) means "no
    traits". Words such as "Không có" are not an answer in the asked format, and a number outside
    1-5 is not a trait code: both are unreadable and never earn lenient credit.

    Args:
        answer: The final answer (see :func:`final_answer`).

    Returns:
        The codes read and how they were read.
    """
    numbers = _NUMBER.findall(answer)
    if not numbers:
        # Compared on the idiom key so case, punctuation, markdown and spelling do not matter.
        empty = idiom_key(answer) in ("", _ANSWER_TAG_KEY)
        return TraitsReading((), "empty") if empty else TraitsReading(None, "no_code")
    codes: set[int] = set()
    for token in numbers:
        value = float(token)
        if not value.is_integer() or not 1 <= value <= 5:
            return TraitsReading(None, "out_of_range")
        codes.add(int(value))
    return TraitsReading(tuple(sorted(codes)), "ok")
