"""The scripted model under test and judge of ``python -m vivid_inspect.testing``.

The judge is held to the project's own templates and parser: every strategy's prompt, in both
instruction languages, is recognised and answered in the format its parser reads, with the score
its rule gives. The model under test answers the real task prompts with the explanation its
quality names. One in-process run through Inspect's real ``openai-api`` provider checks the two
together: every judgement of every strategy is read, none unscored.
"""

from __future__ import annotations

from collections import Counter

import pytest
from inspect_ai import eval
from inspect_ai.model import get_model

from vivid_inspect.baselines.answers import literal_paraphrase
from vivid_inspect.baselines.chrf_judge import judge_fields
from vivid_inspect.data import load_items
from vivid_inspect.scorers.judge import judge_prompt_of
from vivid_inspect.scorers.judge_parse import parse_judge_score
from vivid_inspect.scorers.judge_prompts import TEMPLATES_BY_LANGUAGE, judge_template, render_judge_prompt
from vivid_inspect.scorers.lexical import chrf
from vivid_inspect.solvers.markers import item_block
from vivid_inspect.testing.openai_server import FakeOpenAIServer
from vivid_inspect.testing.scripted import (
    NOT_A_VIVID_PROMPT,
    QUALITIES,
    STRATEGY_RULES,
    UNKNOWN_ITEM,
    ScriptedPeer,
    judge_reply,
    judge_template_of,
    partial_meaning,
    quality_of,
)

_, ITEMS = load_items("sample")
PEER = ScriptedPeer(ITEMS)
CASES = [
    pytest.param(strategy, language, id=f"{strategy}-{language}")
    for language, templates in TEMPLATES_BY_LANGUAGE.items()
    for strategy in templates
]


def test_the_rules_cover_every_strategy_of_the_templates() -> None:
    for templates in TEMPLATES_BY_LANGUAGE.values():
        assert set(templates) == set(STRATEGY_RULES)


@pytest.mark.parametrize(("strategy", "language"), CASES)
def test_each_template_is_recognised(strategy: str, language: str) -> None:
    item = ITEMS[3]
    prompt = render_judge_prompt(
        judge_template(strategy, language),
        idiom=item.idiom,
        reference=item.meaning,
        candidate="Một lời giải thích.",
    )
    assert judge_template_of(prompt) == (strategy, language)


@pytest.mark.parametrize(("strategy", "language"), CASES)
def test_each_reply_is_read_by_the_parser_as_the_rules_score(strategy: str, language: str) -> None:
    item = ITEMS[5]
    for candidate in (
        item.meaning,
        partial_meaning(item.meaning),
        literal_paraphrase(item.idiom),
        ITEMS[6].meaning,
    ):
        prompt = render_judge_prompt(
            judge_template(strategy, language), idiom=item.idiom, reference=item.meaning, candidate=candidate
        )
        reply = PEER.reply(prompt)
        fields = judge_fields(prompt)
        assert fields is not None
        expected = STRATEGY_RULES[strategy](chrf(fields[1], fields[0]))
        parsed = parse_judge_score(reply, reasoning=strategy == "cot", stop_reason="stop")
        assert parsed.score == expected, (reply, parsed.reason)


def test_a_cot_reply_reasons_first_and_ends_with_its_label() -> None:
    vi = judge_reply("cot", "vi", "Chê kẻ lười biếng.", "Chê kẻ lười biếng.")
    en = judge_reply("cot", "en", "Chê kẻ lười biếng.", "Chê kẻ lười biếng.")
    assert vi.splitlines()[-1] == "Điểm: 5" and len(vi.splitlines()) == 4
    assert en.splitlines()[-1] == "Score: 5" and len(en.splitlines()) == 4
    assert judge_reply("aspect", "vi", "Chê kẻ lười biếng.", "Chê kẻ lười biếng.") == "5"


def test_the_strategies_differ_in_the_documented_direction() -> None:
    for value in range(0, 101):
        zero, demo, cot, aspect = (
            STRATEGY_RULES[s](float(value)) for s in ("zero_shot", "demonstration", "cot", "aspect")
        )
        assert aspect <= zero <= demo <= cot
        assert aspect >= 0 and cot <= 5
    assert STRATEGY_RULES["aspect"](25.0) == 0 < STRATEGY_RULES["zero_shot"](25.0)


def test_the_sample_gets_every_quality_of_explanation() -> None:
    counts = Counter(quality_of(item.idiom) for item in ITEMS)
    assert set(counts) == set(QUALITIES)
    assert min(counts.values()) >= 5, counts


def test_the_model_under_test_answers_the_item_of_the_prompt() -> None:
    for index, item in enumerate(ITEMS):
        prompt = f"Giải thích ngắn gọn.\n\n{item_block(item.idiom, 'explain')}"
        answer = PEER.reply(prompt)
        expected = {
            "reference": item.meaning,
            "partial": partial_meaning(item.meaning),
            "literal": literal_paraphrase(item.idiom),
            "wrong": ITEMS[(index + 1) % len(ITEMS)].meaning,
        }[quality_of(item.idiom)]
        assert answer == expected


def test_unknown_items_and_other_prompts_get_a_fixed_answer() -> None:
    seen: list[str] = []
    peer = ScriptedPeer(ITEMS, on_unknown=seen.append)
    prompt = item_block("Một câu không có trong dữ liệu", "explain")
    assert peer.reply(prompt) == UNKNOWN_ITEM
    assert peer.reply(prompt) == UNKNOWN_ITEM
    assert seen == ["Một câu không có trong dữ liệu"]  # said once
    assert peer.reply("Xin chào") == NOT_A_VIVID_PROMPT


@pytest.mark.slow
def test_every_strategy_is_read_through_the_real_provider() -> None:
    with FakeOpenAIServer(responder=ScriptedPeer(ITEMS)) as server:
        generator, judge = (
            get_model(f"openai-api/fake/{name}", base_url=server.base_url, api_key="fake-key", memoize=False)
            for name in ("gen", "judge")
        )
        [log] = eval(
            "vivid_inspect/explain",
            model=generator,
            task_args={"data": "sample", "judge": "all,cot_en"},
            model_roles={"grader": judge},
            limit=12,
            display="none",
        )
        [topic] = eval(
            "vivid_inspect/topic", model=generator, task_args={"data": "sample"}, limit=12, display="none"
        )
    assert log.status == "success" and log.samples
    columns = ["judge_zero_shot", "judge_demonstration", "judge_cot", "judge_aspect", "judge_cot_en"]
    for sample in log.samples:
        assert sample.scores is not None
        for column in columns:
            prompt = judge_prompt_of(sample, column)
            assert prompt is not None
            reference, candidate = judge_fields(prompt) or ("", "")
            strategy = column.removeprefix("judge_").removesuffix("_en")
            assert sample.scores[column].value == STRATEGY_RULES[strategy](chrf(candidate, reference)), column
    assert topic.status == "success" and topic.results is not None
    accuracy = topic.results.scores[0].metrics["accuracy"].value
    assert 0.0 < accuracy < 1.0  # gold answers for half the qualities, the majority label for the rest
