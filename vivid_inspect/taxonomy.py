"""The VIVID label maps: semantic themes and linguistic-complexity traits.

This is the only place that knows which code means which label, and the one English name of each
label: task metrics, report tables, figures and the log viewer all use ``Label.name`` (the
names of the paper's prose, "Social Relationships" and "Other"). The paper's Table 3 heads two
columns differently ("Society", "Others"); those headings are kept in ``paper_heading`` only to
find the paper's published numbers. The order is inferred from the
paper's Tables 3 and 4 and the real rows we could inspect (see ``docs/data.md``); if the
release's mapping files say otherwise, correct the tuples below and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Label:
    """One code of a VIVID label map.

    Attributes:
        code: The integer code used in the CSV (``Semantic_Theme`` value, or trait column suffix).
        name: Short English name, used in metric names (``theme/Love``, ``trait/Sino-Vietnamese``).
        vi: Vietnamese label, used in prompts.
        description_vi: One-line Vietnamese gloss of the label, used in prompts.
        paper_heading: The paper's table heading for the label, where it differs from ``name``;
            used only to look up the paper's published numbers.
    """

    code: int
    name: str
    vi: str
    description_vi: str
    paper_heading: str | None = None


THEMES: tuple[Label, ...] = (
    Label(1, "Love", "Tình yêu", "tình cảm lứa đôi, chuyện yêu đương, gắn bó trai gái"),
    Label(2, "Virtues", "Phẩm chất", "chuẩn mực đạo đức, đức tính tốt đẹp đáng noi theo"),
    Label(3, "Criticism", "Phê phán", "chê bai, chế giễu, phê phán thói xấu hay hành vi sai"),
    Label(4, "Work and Nature", "Lao động và tự nhiên", "lao động, nghề nông, thời tiết, thiên nhiên"),
    Label(
        5,
        "Social Relationships",
        "Quan hệ xã hội",
        "gia đình, họ hàng, bạn bè, làng xóm, cộng đồng",
        "Society",
    ),
    Label(6, "Life Lessons", "Bài học cuộc sống", "kinh nghiệm sống, lời khuyên, triết lý nhân sinh"),
    Label(7, "Other", "Khác", "những chủ đề còn lại, mô tả sự vật hay tình huống cụ thể", "Others"),
)

TRAITS: tuple[Label, ...] = (
    Label(1, "Literal", "Nghĩa đen thuần tuý", "chỉ mang nghĩa miêu tả trực tiếp, không có nghĩa bóng"),
    Label(2, "Sino-Vietnamese", "Từ Hán Việt", "chứa từ Hán Việt hiếm gặp hoặc mang tính văn chương"),
    Label(3, "Uncommon vocabulary", "Từ ngữ ít dùng", "chứa từ cổ, từ địa phương hay từ nay ít dùng"),
    Label(4, "Folk knowledge", "Tri thức dân gian", "dựa trên kinh nghiệm nhà nông, phong tục, mùa vụ"),
    Label(5, "Pragmatic nuance", "Sắc thái ngữ dụng", "có ý mỉa mai, châm biếm hoặc hàm ý đánh giá"),
)

THEME_BY_CODE: dict[int, Label] = {label.code: label for label in THEMES}
TRAIT_BY_CODE: dict[int, Label] = {label.code: label for label in TRAITS}
THEME_NAMES: tuple[str, ...] = tuple(label.name for label in THEMES)
TRAIT_NAMES: tuple[str, ...] = tuple(label.name for label in TRAITS)
PAPER_HEADINGS: dict[str, str] = {
    label.name: label.paper_heading for label in (*THEMES, *TRAITS) if label.paper_heading is not None
}
"""Our name -> the paper's table heading, for the labels the paper's tables name differently."""
