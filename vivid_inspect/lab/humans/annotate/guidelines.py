"""The guidelines beside each item: the judges' 0-5 rubric and the aspect-based judge's criteria.

Both are in Vietnamese as the judges read them, each with an English gloss.

The Vietnamese text is the judge prompts' own (`vivid_inspect.scorers.judge_prompts`'s
``RUBRIC_TITLE``, ``RUBRIC_LEVELS`` and ``ASPECT_CRITERIA``, from which the aspect-based
judge's template is built), so annotators and judges score against the same rubric.
"""

from __future__ import annotations

from typing import TypedDict

from vivid_inspect.scorers.judge_prompts import ASPECT_CRITERIA, RUBRIC_LEVELS
from vivid_inspect.scorers.judge_prompts import RUBRIC_TITLE as _RUBRIC_TITLE_VI


class Line(TypedDict):
    """One guideline: the Vietnamese text and its English gloss."""

    vi: str
    en: str


RUBRIC_TITLE = Line(
    vi=_RUBRIC_TITLE_VI,
    en="Scale (whole number 0 to 5): how well the explanation matches the reference meaning.",
)

_RUBRIC_EN = {
    5: "A full match: the core meaning right, nothing missing, the right nuance.",
    4: "Core meaning right; only a small detail missing or off.",
    3: "Most of the meaning right, but an important point missing or the nuance wrong.",
    2: "Only a small part right; the rest vague, missing or wrong.",
    1: "Almost entirely wrong; only distantly related to the reference meaning.",
    0: "Wrong meaning, unrelated, empty, or a refusal.",
}
RUBRIC: dict[int, Line] = {
    score: Line(vi=text, en=_RUBRIC_EN[score]) for score, text in RUBRIC_LEVELS.items()
}

_CRITERIA_EN = (
    "Criterion 1 (core meaning): does the explanation get the main meaning (figurative if the saying "
    "is figurative, literal if it is only literal)? If the core meaning is wrong, the overall score is 0, "
    "however fluent the text or good the other criteria.",
    "Criterion 2 (completeness): does it cover the main points of the reference meaning, and does it "
    "add anything made up?",
    "Criterion 3 (cultural and pragmatic nuance): does it keep the saying's tone (reproach, irony, "
    "advice, praise...) and its cultural background (farming lore, customs, Sino-Vietnamese or archaic "
    "words)?",
    "Criterion 4 (native-speaker reading): would a knowledgeable Vietnamese speaker understand the "
    "saying the way the explanation does?",
)
CRITERIA: tuple[Line, ...] = tuple(
    Line(vi=vi, en=en) for vi, en in zip(ASPECT_CRITERIA, _CRITERIA_EN, strict=True)
)


def guidelines() -> dict[str, object]:
    """The guidelines as the page receives them (rubric from 5 down to 0, then the criteria)."""
    return {
        "rubric_title": RUBRIC_TITLE,
        "rubric": [{"score": score, **RUBRIC[score]} for score in sorted(RUBRIC, reverse=True)],
        "criteria": list(CRITERIA),
    }
