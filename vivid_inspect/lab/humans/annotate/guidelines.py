"""The guidelines beside each item: the judges' 0-5 rubric and the aspect-based judge's criteria.

Both are in Vietnamese as the judges read them, each with an English gloss.

The Vietnamese text is the judge prompts' own (`vivid_inspect.scorers.judge_prompts`), so
annotators and judges score against the same rubric; ``tests/lab/humans/annotate/test_annotate_server.py`` checks
that every line here still appears in the aspect-based judge's prompt.
"""

from __future__ import annotations

from typing import TypedDict


class Line(TypedDict):
    """One guideline: the Vietnamese text and its English gloss."""

    vi: str
    en: str


RUBRIC_TITLE = Line(
    vi="Thang điểm (số nguyên từ 0 đến 5), đo mức độ lời giải thích khớp với nghĩa chuẩn:",
    en="Scale (whole number 0 to 5): how well the explanation matches the reference meaning.",
)

RUBRIC: dict[int, Line] = {
    5: Line(
        vi="Khớp hoàn toàn: đúng nghĩa cốt lõi, đủ ý, đúng sắc thái.",
        en="A full match: the core meaning right, nothing missing, the right nuance.",
    ),
    4: Line(
        vi="Đúng nghĩa cốt lõi, chỉ thiếu hoặc lệch một chi tiết nhỏ.",
        en="Core meaning right; only a small detail missing or off.",
    ),
    3: Line(
        vi="Đúng phần lớn nghĩa nhưng thiếu một ý quan trọng hoặc sai sắc thái.",
        en="Most of the meaning right, but an important point missing or the nuance wrong.",
    ),
    2: Line(
        vi="Chỉ đúng một phần nhỏ; phần còn lại mơ hồ, thiếu hoặc sai.",
        en="Only a small part right; the rest vague, missing or wrong.",
    ),
    1: Line(
        vi="Gần như sai hoàn toàn, chỉ liên quan rất xa tới nghĩa chuẩn.",
        en="Almost entirely wrong; only distantly related to the reference meaning.",
    ),
    0: Line(
        vi="Sai nghĩa, không liên quan, bỏ trống hoặc từ chối trả lời.",
        en="Wrong meaning, unrelated, empty, or a refusal.",
    ),
}

CRITERIA: tuple[Line, ...] = (
    Line(
        vi="Tiêu chí 1 (độ chính xác của nghĩa cốt lõi): lời giải thích có nắm đúng nghĩa chính của câu không "
        "(nghĩa bóng nếu câu có nghĩa bóng, nghĩa đen nếu câu chỉ mang nghĩa đen)? Nếu tiêu chí này bị 0 điểm, "
        "tức là sai nghĩa cốt lõi, thì điểm tổng thể bắt buộc là 0, dù lời văn trôi chảy hay các tiêu chí khác "
        "tốt đến đâu.",
        en="Criterion 1 (core meaning): does the explanation get the main meaning (figurative if the saying "
        "is figurative, literal if it is only literal)? If the core meaning is wrong, the overall score is 0, "
        "however fluent the text or good the other criteria.",
    ),
    Line(
        vi="Tiêu chí 2 (tính đầy đủ): lời giải thích có bao quát các ý chính của nghĩa chuẩn không, có thêm điều "
        "bịa đặt không?",
        en="Criterion 2 (completeness): does it cover the main points of the reference meaning, and does it "
        "add anything made up?",
    ),
    Line(
        vi="Tiêu chí 3 (sắc thái văn hoá và ngữ dụng): có giữ đúng sắc thái của câu (chê trách, mỉa mai, khuyên "
        "răn, ca ngợi...) và bối cảnh văn hoá (kinh nghiệm nhà nông, phong tục, từ Hán Việt, từ cổ) không?",
        en="Criterion 3 (cultural and pragmatic nuance): does it keep the saying's tone (reproach, irony, "
        "advice, praise...) and its cultural background (farming lore, customs, Sino-Vietnamese or archaic "
        "words)?",
    ),
    Line(
        vi="Tiêu chí 4 (khớp với cách hiểu của người bản ngữ): một người Việt am hiểu có hiểu câu này đúng như "
        "lời giải thích không?",
        en="Criterion 4 (native-speaker reading): would a knowledgeable Vietnamese speaker understand the "
        "saying the way the explanation does?",
    ),
)


def guidelines() -> dict[str, object]:
    """The guidelines as the page receives them (rubric from 5 down to 0, then the criteria)."""
    return {
        "rubric_title": RUBRIC_TITLE,
        "rubric": [{"score": score, **RUBRIC[score]} for score in sorted(RUBRIC, reverse=True)],
        "criteria": list(CRITERIA),
    }
