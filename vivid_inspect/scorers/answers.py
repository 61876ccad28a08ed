"""Reading a classification answer: strictly (the paper's exact match) and leniently."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Literal

from vivid_inspect.data.normalise import idiom_key
from vivid_inspect.solvers.classify_prompts import DEMONSTRATIONS, INSTRUCTIONS, ClassifyKind
from vivid_inspect.solvers.markers import ANSWER_TAGS, ITEM_LABEL
from vivid_inspect.text import nfc, strip_reasoning


def final_answer(completion: str) -> str:
    """The model's final answer as the paper compares it: reasoning removed, whitespace stripped, NFC.

    Args:
        completion: The raw completion.

    Returns:
        The answer text with nothing else changed (no case folding, no punctuation removal).
    """
    return nfc(strip_reasoning(completion).strip())


# Numbers as a model writes trait codes: "1,3" is two codes (the prompt's separator), "1.0" one.
_NUMBER = re.compile(r"\d+(?:\.\d+)?")

LENIENT_PARSER_VERSION = 2
"""Version of the lenient reading of topic and traits answers; each score records it (``parser_version``).

1: topic, the first whole number 1-7 anywhere; traits, every number of the answer.
2: what repeats the prompt is set aside first (`answer_lines`); a topic answer must then name
exactly one number, and an answer offering several options (``3 hoặc 5``, ``1,3 or 2``) is unreadable.
"""

_MENU_LINE = re.compile(r"^(?P<code>\d)\. ")
_OR = re.compile(r"(?<!\w)(?:hoặc|or)(?!\w)", re.IGNORECASE)
_ECHO_MIN = 8  # shortest key of a cut instruction line that counts as its echo ("hãy xác")


@dataclass(frozen=True)
class _Prompt:
    """A task's prompt as comparison keys: the menu's entries, its other lines, its fixed lines."""

    entries: dict[int, tuple[str, str]]  # code -> (key of "N. name", key of the whole entry)
    lines: tuple[str, ...]
    item: str
    tag: str
    demonstrations: tuple[str, ...]


@cache
def _prompt(kind: ClassifyKind) -> _Prompt:
    entries: dict[int, tuple[str, str]] = {}
    lines: list[str] = []
    for line in INSTRUCTIONS[kind].splitlines():
        menu = _MENU_LINE.match(line)
        if menu:
            name = line[: line.index(":")] if ":" in line else line
            entries[int(menu["code"])] = (idiom_key(name), idiom_key(line))
        elif idiom_key(line):
            lines.append(idiom_key(line))
    demos = tuple(idiom_key(demo.idiom) for demo in DEMONSTRATIONS)
    return _Prompt(entries, tuple(lines), idiom_key(ITEM_LABEL), idiom_key(ANSWER_TAGS[kind]), demos)


def answer_lines(answer: str, kind: ClassifyKind) -> tuple[str, bool]:
    """The lines of a classification answer that answer, and whether the rest repeated the prompt.

    Set aside (compared on [`idiom_key`][vivid_inspect.data.normalise.idiom_key], so case, markdown and
    punctuation do not matter): the instruction's menu echoed from its first entry on, whole or cut
    short, at least two entries (``1. Tình yêu: …`` ``2. Phẩm chất: …``); any menu entry cut inside
    its description (``1. Tình yêu: tình cảm lứa``, what a token budget leaves of an echo); a line
    of the instruction's prose, whole or cut (``Chỉ trả lời bằng đúng một số nguyên từ 1 đến 7 …``);
    an item line (``Thành ngữ/tục ngữ: «…»``), and after a demonstration's item line its answer.
    An item line after an answer starts an example the model made up: the rest is not read. A
    single entry (``3. Phê phán``, or the whole entry) or entries that do not start the menu
    (``1. …`` ``3. …`` in a traits answer) are an answer, not an echo, and each is read as its code.

    Args:
        answer: The final answer (see `final_answer`).
        kind: ``topic`` or ``traits``.

    Returns:
        The answering lines joined by newlines (a menu entry as its code), and True when anything
        was set aside as an echo.
    """
    prompt = _prompt(kind)
    read: list[tuple[str, str, int | None]] = []  # (line, class, menu code)
    after_demonstration = False
    for line in answer.splitlines():
        key = idiom_key(line)
        if not key:
            continue
        if after_demonstration and key.startswith(prompt.tag):
            read.append((line, "echo", None))
        elif key.startswith(prompt.item):
            demonstration = any(demo in key for demo in prompt.demonstrations)
            read.append((line, "item", None))
            after_demonstration = demonstration
            continue
        elif len(key) >= _ECHO_MIN and any(own.startswith(key) for own in prompt.lines):
            read.append((line, "echo", None))
        else:
            code = next(
                (
                    c
                    for c, (_, entry) in prompt.entries.items()
                    if key.startswith(f"{c} ") and entry.startswith(key)
                ),
                None,
            )
            if code is None:
                read.append((line, "answer", None))
            else:
                name, entry = prompt.entries[code]
                read.append((line, "echo" if len(name) < len(key) < len(entry) else "menu", code))
        after_demonstration = False
    # The menu from its first entry on is an echo; a cut entry continues the run it ends.
    run = [index for index, (_, _, code) in enumerate(read) if code is not None]
    length = 0
    while length < len(run) and read[run[length]][2] == length + 1:
        length += 1
    echoed_menu = set(run[:length]) if length >= 2 else set()
    kept: list[str] = []
    echoed = False
    for index, (line, kind_of, code) in enumerate(read):
        if kind_of == "item" and kept:
            break
        if kind_of in ("item", "echo") or index in echoed_menu:
            echoed = True
        else:
            # A chosen entry counts as its code: its description is the prompt's ("… hoặc …").
            kept.append(line if code is None else str(code))
    return "\n".join(kept), echoed


TopicStatus = Literal["ok", "no_code", "out_of_range", "several", "echo"]


@dataclass(frozen=True)
class TopicReading:
    """What the lenient parse read from a topic answer.

    Attributes:
        code: The theme code 1-7, or None when the answer is unreadable.
        status: ``ok``; ``no_code`` (no number); ``echo`` (nothing but a repeat of the prompt);
            ``several`` (more than one number, such as ``3 hoặc 5`` or ``1. … 2. …`` on one line);
            ``out_of_range`` (one number that is not a code 1-7, such as ``0`` or ``2.5``).
    """

    code: int | None
    status: TopicStatus


def read_topic(answer: str) -> TopicReading:
    """Read a topic answer leniently: exactly one number, 1-7, once the prompt's echo is set aside.

    Args:
        answer: The final answer (see `final_answer`).

    Returns:
        The code read and how it was read.
    """
    text, echoed = answer_lines(answer, "topic")
    values = {float(token) for token in _NUMBER.findall(text)}
    if not values:
        return TopicReading(None, "echo" if echoed else "no_code")
    if len(values) > 1:
        return TopicReading(None, "several")
    (value,) = values
    if not value.is_integer() or not 1 <= value <= 7:
        return TopicReading(None, "out_of_range")
    return TopicReading(int(value), "ok")


TraitsStatus = Literal["ok", "empty", "no_code", "out_of_range", "several", "echo"]

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
            (a number that is not a code 1-5, such as ``0`` or the ``6`` of ``1,3,6``), ``several``
            (options offered: ``1,3 hoặc 2``) or ``echo`` (nothing but a repeat of the prompt).
    """

    codes: tuple[int, ...] | None
    status: TraitsStatus


def read_traits(answer: str) -> TraitsReading:
    """Read a traits answer leniently: codes 1-5 in any order, spacing or decoration.

    The prompt asks for an empty answer when no trait applies, so only an answer with nothing in
    it (blank, punctuation or markdown only, or the echoed ``Đặc điểm:`` tag alone) means "no
    traits". Words such as "Không có" are not an answer in the asked format, and a number outside
    1-5 is not a trait code: both are unreadable and never earn lenient credit. A repeat of the
    prompt is set aside first (`answer_lines`; a repeat alone is unreadable, not "no traits"),
    and an answer offering alternatives (``hoặc``, ``or``) is unreadable.

    Args:
        answer: The final answer (see `final_answer`).

    Returns:
        The codes read and how they were read.
    """
    text, echoed = answer_lines(answer, "traits")
    if _OR.search(text):
        return TraitsReading(None, "several")
    numbers = _NUMBER.findall(text)
    if not numbers and echoed:
        return TraitsReading(None, "echo")
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
