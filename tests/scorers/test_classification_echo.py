"""Lenient classification replies that repeat the prompt or offer several options (issue 29.4, lenient parser 2).

A real small model (Gemma 3 270M) echoed the topic instruction's numbered list in 25 of 27 replies,
and the lenient parse read the echo's ``1.`` as the answer. The shapes here are built from the real
prompt text (``classify_prompts``): the whole menu, the menu cut by a token budget, the menu then an
answer, partial echoes on one line, the instruction's prose, demonstrations, and options joined by
``hoặc``. The rule (:func:`~vivid_inspect.scorers.answers.answer_lines`): the prompt's repeat is set
aside, and what is left must name exactly one topic number (traits: one code set, no alternatives).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from inspect_ai.model import ModelName, ModelOutput
from inspect_ai.scorer import Scorer, Target
from inspect_ai.solver import TaskState

from vivid_inspect.scorers.answers import LENIENT_PARSER_VERSION, read_topic, read_traits
from vivid_inspect.scorers.classification import topic_match, traits_match
from vivid_inspect.solvers.classify_prompts import TOPIC_INSTRUCTIONS, TRAITS_INSTRUCTIONS, render_prompt

TOPIC_MENU = [line for line in TOPIC_INSTRUCTIONS.splitlines() if line[:1].isdigit()]
TRAITS_MENU = [line for line in TRAITS_INSTRUCTIONS.splitlines() if line[:1].isdigit()]
WHOLE = "\n".join(TOPIC_MENU)
ITEM = "Thành ngữ/tục ngữ: «Ăn cây nào rào cây ấy»"

TOPIC = [
    # unreadable: nothing but the prompt, or several numbers
    pytest.param(WHOLE, None, "echo", id="whole-menu"),
    pytest.param(WHOLE[:120], None, "echo", id="menu-cut-by-the-budget"),
    pytest.param(TOPIC_MENU[0][:30], None, "echo", id="first-entry-cut-in-its-description"),
    pytest.param("\n".join(f"**{line}**" for line in TOPIC_MENU[:3]), None, "echo", id="menu-in-bold"),
    pytest.param("\n".join(line.split(":")[0] for line in TOPIC_MENU), None, "echo", id="menu-names-only"),
    pytest.param(TOPIC_INSTRUCTIONS, None, "echo", id="whole-instruction"),
    pytest.param(render_prompt("topic", "Ăn cây nào rào cây ấy", 3), None, "echo", id="whole-prompt-3-shots"),
    pytest.param(f"{ITEM}\nChủ đề:", None, "echo", id="item-and-tag"),
    pytest.param("Thành ngữ/tục ngữ: «Ăn cháo đá bát»\nChủ đề: 3", None, "echo", id="demonstration-echoed"),
    pytest.param("1. Tình yêu 2. Phẩm chất 3. Phê phán", None, "several", id="partial-echo-on-one-line"),
    pytest.param("Chủ đề: 3 hoặc 5", None, "several", id="two-options-hoac"),
    pytest.param("3, 5", None, "several", id="two-options-comma"),
    pytest.param("- 3\n- 6", None, "several", id="options-as-a-list"),
    pytest.param("Chủ đề 3 trong 7 chủ đề", None, "several", id="code-and-count"),
    pytest.param(WHOLE + "\n3 hoặc 6", None, "several", id="menu-then-two-options"),
    pytest.param("0", None, "out_of_range", id="zero"),
    pytest.param("8", None, "out_of_range", id="eight"),
    # readable: one clear answer, alone or after the echo
    pytest.param(WHOLE + "\nChủ đề: 3", 3, "ok", id="menu-then-answer"),
    pytest.param(WHOLE + "\n\n" + TOPIC_MENU[2], 3, "ok", id="menu-then-chosen-entry"),
    pytest.param(
        TOPIC_INSTRUCTIONS + "\n\n" + ITEM + "\nChủ đề: 6", 6, "ok", id="instruction-item-then-answer"
    ),
    pytest.param(TOPIC_MENU[2], 3, "ok", id="one-whole-entry"),
    pytest.param("3. Phê phán", 3, "ok", id="code-and-name"),
    pytest.param("**3**", 3, "ok", id="bold-number"),
    pytest.param(f"{ITEM}\nChủ đề: 2", 2, "ok", id="item-echoed-then-answer"),
    pytest.param("3\n\nThành ngữ/tục ngữ: «Nước chảy đá mòn»\nChủ đề: 6", 3, "ok", id="made-up-next-example"),
    pytest.param("Chủ đề: 3 (Phê phán)", 3, "ok", id="number-then-name"),
]


@pytest.mark.parametrize(("answer", "code", "status"), TOPIC)
def test_topic_answers_that_echo_or_offer_options(answer: str, code: int | None, status: str) -> None:
    reading = read_topic(answer)
    assert (reading.code, reading.status) == (code, status)


TRAITS_WHOLE = "\n".join(TRAITS_MENU)
TRAITS = [
    pytest.param(TRAITS_WHOLE, None, "echo", id="whole-menu-was-read-as-1-to-5"),
    pytest.param(TRAITS_WHOLE[:150], None, "echo", id="menu-cut-by-the-budget"),
    pytest.param(TRAITS_INSTRUCTIONS, None, "echo", id="whole-instruction-with-its-example-1-3-5"),
    pytest.param("1,3 hoặc 2", None, "several", id="alternatives-hoac"),
    pytest.param("1, 3 or 2, 4", None, "several", id="alternatives-or"),
    pytest.param(TRAITS_WHOLE + "\n1,3", (1, 3), "ok", id="menu-then-answer"),
    pytest.param(TRAITS_MENU[4], (5,), "ok", id="one-entry-whose-description-says-hoac"),
    pytest.param(f"{TRAITS_MENU[0]}\n{TRAITS_MENU[2]}", (1, 3), "ok", id="chosen-entries-not-the-menu"),
    pytest.param("Đặc điểm:", (), "empty", id="tag-alone-is-no-traits"),
]


@pytest.mark.parametrize(("answer", "codes", "status"), TRAITS)
def test_traits_answers_that_echo_or_offer_options(
    answer: str, codes: tuple[int, ...] | None, status: str
) -> None:
    reading = read_traits(answer)
    assert (reading.codes, reading.status) == (codes, status)


@pytest.mark.parametrize(
    ("scorer", "gold", "status"),
    [
        pytest.param(topic_match, "1", "echo", id="topic"),
        pytest.param(traits_match, "1,2,3,4,5", "echo", id="traits"),
    ],
)
def test_the_scorer_gives_an_echo_no_lenient_credit_and_records_the_parser(
    scorer: Callable[[], Scorer], gold: str, status: str
) -> None:
    # The Gemma shape: the menu echoed, nothing else. Version 1 read it as 1 (topic) and 1-5 (traits).
    kind = "topic" if scorer is topic_match else "traits"
    echo = "\n".join(TOPIC_MENU if kind == "topic" else TRAITS_MENU)
    state = TaskState(
        model=ModelName("mockllm/model"),
        sample_id=1,
        epoch=1,
        input="Ăn cây nào rào cây ấy",
        messages=[],
        output=ModelOutput.from_content(model="mockllm/model", content=echo),
    )
    found = asyncio.run(scorer()(state, Target(gold)))
    assert found is not None and found.metadata is not None
    assert (found.metadata["lenient_correct"], found.metadata["parse_status"]) == (False, status)
    assert found.metadata["parser_version"] == LENIENT_PARSER_VERSION == 2
