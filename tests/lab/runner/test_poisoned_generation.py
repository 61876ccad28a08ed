"""A model under test whose reply UTF-8 cannot encode costs only that sample, never the log.

The judge's side of this class (a judge reply holding a lone surrogate) is tested in
``test_hostile_judge_replies.py``; here the explanation itself is broken. Before the generate
step sanitised what it stores, Inspect failed to write the whole generation log.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.log import read_eval_log

from tests.fake_api import GEN, explain_items, fake_model, idiom_of, is_judge_prompt, serving
from vivid_inspect.tasks import explain, topic
from vivid_inspect.testing.openai_server import FakeOpenAIServer

# (reply from the provider, the completion stored for it)
BROKEN_REPLIES = [
    pytest.param("\ud800", "\ufffd", id="only-a-high-surrogate"),
    pytest.param(
        "Ý nói người chăm chỉ \udfff cuối cùng thành công.",
        "Ý nói người chăm chỉ \ufffd cuối cùng thành công.",
        id="low-surrogate-inside-text",
    ),
    pytest.param(
        "Giải thích: " + "rất dài " * 2000 + "\ud83d",
        "Giải thích: " + "rất dài " * 2000 + "\ufffd",
        id="half-an-emoji-at-the-end-of-a-long-reply",
    ),
    # the provider moves <think> into the message's reasoning content, where it is sanitised too
    pytest.param("<think>\ud800</think>Ý nói tiết kiệm.", "Ý nói tiết kiệm.", id="surrogate-in-reasoning"),
]


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    with serving(tmp_path, monkeypatch) as running:
        yield running


def _responder(bad_idiom: str, broken: str) -> Any:
    def respond(model: str, messages: list[dict[str, Any]]) -> str:
        prompt = str(messages[-1]["content"])
        if is_judge_prompt(str(messages[0]["content"])):
            return "Điểm: 4"
        return broken if idiom_of(prompt) == bad_idiom else f"Giải thích số {idiom_of(prompt)}."

    return respond


@pytest.mark.parametrize(("broken", "stored"), BROKEN_REPLIES)
def test_a_broken_explanation_costs_only_its_sample_and_the_log_is_written(
    server: FakeOpenAIServer, broken: str, stored: str
) -> None:
    items = explain_items()[:3]
    bad = items[1].idiom
    server.responder = _responder(bad, broken)

    (log,) = eval(
        explain(data="sample", judge="none"),
        model=fake_model(server, GEN),
        sample_id=[item.id for item in items],
        display="none",
        max_retries=0,
    )

    assert log.status == "success", log.error
    full = read_eval_log(log.location)  # on disk and readable
    assert full.samples is not None and len(full.samples) == len(items)
    for sample in full.samples:
        completion = sample.output.completion
        if sample.input == bad:
            assert completion == stored
            assert "\ufffd" in sample.output.message.model_dump_json()  # the whole message, reasoning too
        else:
            assert completion == f"Giải thích số {sample.input}."


def test_a_broken_classification_answer_is_stored_and_scored_wrong(server: FakeOpenAIServer) -> None:
    items = explain_items()[:2]
    server.responder = lambda model, messages: "3\ud800"

    (log,) = eval(
        topic(data="sample"),
        model=fake_model(server, GEN),
        sample_id=[item.id for item in items],
        display="none",
        max_retries=0,
    )

    assert log.status == "success", log.error
    full = read_eval_log(log.location)
    assert full.samples is not None
    assert all(sample.output.completion == "3\ufffd" for sample in full.samples)
