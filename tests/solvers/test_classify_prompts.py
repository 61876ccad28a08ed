"""Each classification prompt asks for the format that the scorer reads."""

from __future__ import annotations

import pytest

from vivid_inspect.scorers.answers import final_answer, read_topic, read_traits
from vivid_inspect.solvers.classify_prompts import (
    DEMONSTRATIONS,
    INSTRUCTIONS,
    render_prompt,
    topic_answer,
    traits_answer,
)
from vivid_inspect.solvers.markers import ANSWER_TAGS, last_item
from vivid_inspect.taxonomy import THEMES, TRAITS


@pytest.mark.parametrize("kind", ["topic", "traits"])
@pytest.mark.parametrize("shots", [0, 3, 5])
def test_prompt_ends_with_the_item_under_test(kind: str, shots: int) -> None:
    prompt = render_prompt(kind, "Nước chảy đá mòn", shots)  # type: ignore[arg-type]
    assert last_item(prompt) == ("Nước chảy đá mòn", kind)
    assert prompt.rstrip().endswith(ANSWER_TAGS[kind])  # type: ignore[index]
    shown = [demo.idiom for demo in DEMONSTRATIONS if f"«{demo.idiom}»" in prompt]
    assert shown == [demo.idiom for demo in DEMONSTRATIONS[:shots]]


def test_topic_prompt_lists_the_seven_themes_in_code_order() -> None:
    positions = [INSTRUCTIONS["topic"].index(f"{theme.code}. {theme.vi}") for theme in THEMES]
    assert positions == sorted(positions)


def test_traits_prompt_lists_the_five_traits_and_the_empty_answer() -> None:
    text = INSTRUCTIONS["traits"]
    positions = [text.index(f"{trait.code}. {trait.vi}") for trait in TRAITS]
    assert positions == sorted(positions)
    assert "1,3,5" in text and "để trống" in text


@pytest.mark.parametrize("demo", DEMONSTRATIONS, ids=lambda d: d.idiom)
def test_demonstration_answers_read_back_by_both_parsers(demo) -> None:
    topic = topic_answer(demo.theme_id)
    traits = traits_answer(demo.trait_ids)
    assert final_answer(topic) == topic and read_topic(topic).code == demo.theme_id
    assert final_answer(traits) == traits and read_traits(traits).codes == demo.trait_ids


def test_demonstrated_answer_appears_after_its_tag() -> None:
    prompt = render_prompt("traits", "Nước chảy đá mòn", 2)
    assert "«Ăn cháo đá bát»\nĐặc điểm: 5" in prompt
    assert "cày bừa làm ăn»\nĐặc điểm: 1,4" in prompt


def test_unknown_kind_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown classification task 'theme'"):
        render_prompt("theme", "x", 0)  # type: ignore[arg-type]
