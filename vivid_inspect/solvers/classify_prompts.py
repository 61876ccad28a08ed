"""Vietnamese prompts and fixed demonstrations of the two classification tasks (topic, traits).

The answer formats asked for here are the ones [`vivid_inspect.scorers.classification`][vivid_inspect.scorers.classification] reads:
one integer 1-7 for topic; ascending comma-separated trait codes, or nothing, for traits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from vivid_inspect.solvers.markers import item_block
from vivid_inspect.taxonomy import THEMES, TRAITS

ClassifyKind = Literal["topic", "traits"]
MAX_SHOTS = 5


@dataclass(frozen=True)
class Demonstration:
    """A hand-written classification example shown to the model.

    Its idiom may also be an item of the data set (the real file holds many common idioms): the
    task then leaves that item out of scoring and records its id (see
    [`vivid_inspect.data.load_vivid`][vivid_inspect.data.load_vivid]), so no model is scored on an example it was shown.

    Attributes:
        idiom: The example idiom or proverb.
        theme_id: Its theme code (the topic answer).
        trait_ids: Its trait codes, ascending (the traits answer).
    """

    idiom: str
    theme_id: int
    trait_ids: tuple[int, ...]


# Chosen so that the default three cover a one-trait, a two-trait and a no-trait answer.
DEMONSTRATIONS: tuple[Demonstration, ...] = (
    Demonstration("Ăn cháo đá bát", 3, (5,)),
    Demonstration("Mồng chín tháng chín có mưa, thì con sắm sửa cày bừa làm ăn", 4, (1, 4)),
    Demonstration("Gieo gió gặt bão", 6, ()),
    Demonstration("Môn đăng hộ đối", 5, (2,)),
    Demonstration("Ông tơ bà nguyệt", 1, (3,)),
)

_THEME_LIST = "\n".join(f"{t.code}. {t.vi}: {t.description_vi}" for t in THEMES)
_TRAIT_LIST = "\n".join(f"{t.code}. {t.vi}: {t.description_vi}" for t in TRAITS)

TOPIC_INSTRUCTIONS = f"""Hãy xác định chủ đề của thành ngữ, tục ngữ tiếng Việt dưới đây. Có bảy chủ đề:
{_THEME_LIST}

Chỉ trả lời bằng đúng một số nguyên từ 1 đến 7 ứng với chủ đề phù hợp nhất, không giải thích gì thêm."""

TRAITS_INSTRUCTIONS = f"""Hãy xác định các đặc điểm ngôn ngữ và văn hoá của thành ngữ, tục ngữ tiếng Việt dưới đây. Có năm đặc điểm:
{_TRAIT_LIST}

Một câu có thể có nhiều đặc điểm hoặc không có đặc điểm nào. Chỉ trả lời bằng các mã số của mọi đặc điểm phù hợp, theo thứ tự tăng dần, cách nhau bằng dấu phẩy (ví dụ: 1,3,5). Nếu không có đặc điểm nào thì để trống câu trả lời. Không giải thích gì thêm."""

INSTRUCTIONS: dict[ClassifyKind, str] = {"topic": TOPIC_INSTRUCTIONS, "traits": TRAITS_INSTRUCTIONS}


def topic_answer(theme_id: int) -> str:
    """The canonical topic answer (and target) for a theme code."""
    return str(theme_id)


def traits_answer(trait_ids: tuple[int, ...] | list[int]) -> str:
    """The canonical traits answer (and target): ascending codes joined by commas, ``""`` for none."""
    return ",".join(str(code) for code in sorted(trait_ids))


def render_prompt(kind: ClassifyKind, idiom: str, shots: int) -> str:
    """Render the full classification prompt for one item.

    Args:
        kind: ``topic`` or ``traits``.
        idiom: The item under test.
        shots: How many of `DEMONSTRATIONS` to show, 0 to 5, in their fixed order.

    Returns:
        Instructions, the demonstrations with their answers, then the item and an empty answer tag.

    Raises:
        ValueError: ``kind`` or ``shots`` is out of range.
    """
    if kind not in INSTRUCTIONS:
        raise ValueError(f"unknown classification task {kind!r}; expected 'topic' or 'traits'")
    if not 0 <= shots <= MAX_SHOTS:
        raise ValueError(f"shots must be between 0 and {MAX_SHOTS}, got {shots}")
    blocks = [INSTRUCTIONS[kind]]
    for demo in DEMONSTRATIONS[:shots]:
        answer = topic_answer(demo.theme_id) if kind == "topic" else traits_answer(demo.trait_ids)
        blocks.append(item_block(demo.idiom, kind, answer))
    blocks.append(item_block(idiom, kind))
    return "\n\n".join(blocks)
