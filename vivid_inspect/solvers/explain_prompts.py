"""Vietnamese prompts of the explanation task (paper Appendix A.1), in our own wording.

Zero-shot is minimal: the idiom and a request for a concise Vietnamese explanation. Few-shot
gives the model the role of a Vietnamese-language expert and three demonstrations: two proverbs
and one idiom, chosen as a social proverb, a culinary proverb and an ironic idiom. Both end with
the shared item block, so the item under test is always the last ``Thành ngữ/tục ngữ: «…»`` line.
"""

from __future__ import annotations

from typing import Literal

from vivid_inspect.solvers.markers import item_block
from vivid_inspect.text import nfc

ExplainStyle = Literal["zero_shot", "few_shot"]
EXPLAIN_STYLES: tuple[ExplainStyle, ...] = ("zero_shot", "few_shot")

EXPLAIN_DEMONSTRATIONS: list[tuple[str, str]] = [
    (
        # social proverb
        "Bán anh em xa, mua láng giềng gần",
        "Lúc tối lửa tắt đèn, hàng xóm ở gần giúp mình được nhanh hơn anh em ruột ở xa; khuyên "
        "giữ gìn tình làng nghĩa xóm.",
    ),
    (
        # culinary proverb
        "Ăn cơm không rau như đau không thuốc",
        "Bữa cơm thiếu rau thì khó nuốt, khó chịu như người ốm mà không có thuốc; đề cao rau "
        "xanh trong bữa ăn hằng ngày của người Việt.",
    ),
    (
        # ironic idiom
        "Mèo khen mèo dài đuôi",
        "Giễu kẻ tự khen mình, khoe khoang những điều chẳng có gì đáng khen.",
    ),
]
"""Few-shot demonstrations as (idiom, explanation); the task leaves these idioms out of scoring."""

ZERO_SHOT = "Hãy giải thích ngắn gọn bằng tiếng Việt ý nghĩa của thành ngữ/tục ngữ sau."
"""Instruction line of the zero-shot prompt."""

FEW_SHOT = (
    "Bạn là chuyên gia ngôn ngữ tiếng Việt, am hiểu thành ngữ, tục ngữ và văn hoá dân gian Việt "
    "Nam. Hãy giải thích ngắn gọn, chính xác ý nghĩa của thành ngữ/tục ngữ được hỏi bằng tiếng "
    "Việt, theo cách các ví dụ dưới đây."
)
"""Instruction paragraph of the few-shot prompt; the demonstrations follow it."""


def render_explain_prompt(style: ExplainStyle, idiom: str) -> str:
    """Render the explanation prompt for one idiom.

    Args:
        style: ``zero_shot`` or ``few_shot``.
        idiom: The idiom or proverb to explain.

    Returns:
        The prompt text, NFC-normalised, ending with the item line and ``Giải thích:``.

    Raises:
        ValueError: If ``style`` is not one of `EXPLAIN_STYLES`.
    """
    target = item_block(nfc(idiom).strip(), "explain")
    if style == "zero_shot":
        return nfc(f"{ZERO_SHOT}\n\n{target}")
    if style == "few_shot":
        demos = "\n\n".join(item_block(demo, "explain", answer) for demo, answer in EXPLAIN_DEMONSTRATIONS)
        return nfc(f"{FEW_SHOT}\n\n{demos}\n\n{target}")
    raise ValueError(f"unknown prompt style {style!r}; expected one of {', '.join(EXPLAIN_STYLES)}")
