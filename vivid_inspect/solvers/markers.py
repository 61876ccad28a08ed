"""How every VIVID prompt marks the item under test, so baselines can find it again.

All three tasks end their prompt with the same two lines: the item line (the idiom inside
guillemets, which no idiom contains) and the answer tag of the task. Demonstrations use the same
lines followed by their answers, so the item under test is always the *last* item line.
"""

from __future__ import annotations

import re
from typing import Literal

from vivid_inspect.text import nfc

TaskKind = Literal["explain", "topic", "traits"]

ITEM_LABEL = "Thành ngữ/tục ngữ"
ANSWER_TAGS: dict[TaskKind, str] = {"explain": "Giải thích:", "topic": "Chủ đề:", "traits": "Đặc điểm:"}

_ITEM = re.compile(rf"^{re.escape(ITEM_LABEL)}: «(?P<idiom>[^«»\n]+)»[ \t]*\n(?P<tag>[^\n]*)", re.MULTILINE)


def item_block(idiom: str, kind: TaskKind, answer: str = "") -> str:
    """Render the item line and the answer tag (with an answer, for a demonstration).

    Args:
        idiom: The idiom or proverb.
        kind: Which task's answer tag to use.
        answer: The demonstration's answer; empty for the item under test.

    Returns:
        Two lines: ``Thành ngữ/tục ngữ: «…»`` and ``<tag> <answer>``.
    """
    tag = ANSWER_TAGS[kind]
    return (
        f"{ITEM_LABEL}: «{idiom}»\n{tag} {answer}".rstrip() if answer else f"{ITEM_LABEL}: «{idiom}»\n{tag}"
    )


def last_item(prompt: str) -> tuple[str, TaskKind] | None:
    """Find the item under test in a rendered prompt.

    Args:
        prompt: The full prompt text (all user messages joined).

    Returns:
        ``(idiom, kind)`` of the last item line, NFC-normalised, or None when the prompt has no
        item line followed by a known answer tag.
    """
    matches = list(_ITEM.finditer(prompt))
    if not matches:
        return None
    last = matches[-1]
    tag_line = last.group("tag").strip()
    for kind, tag in ANSWER_TAGS.items():
        if tag_line.startswith(tag):
            return nfc(last.group("idiom").strip()), kind
    return None
