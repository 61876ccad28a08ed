"""The explain task renders its prompt and generates in one solver step, sending the same messages.

Inspect records every solver step of every sample (a span, a state-change event, the diff that
finds it), so the prompt step and the generate step run as one (``explain_generate``); the model
must see exactly what ``explain_prompt`` followed by ``generate()`` would send.
"""

from __future__ import annotations

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset
from inspect_ai.event import SpanBeginEvent
from inspect_ai.log import EvalLog, EvalSample, read_eval_log
from inspect_ai.solver import generate

from tests.scripted import scripted_model
from vivid_inspect.data import load_items
from vivid_inspect.solvers.explain import explain_prompt
from vivid_inspect.solvers.explain_prompts import EXPLAIN_STYLES
from vivid_inspect.tasks import explain

ITEMS = 3
EXPLANATION = "Khuyên người ta phải biết ơn người đã giúp mình."


def _samples(log: EvalLog) -> list[EvalSample]:
    assert log.status == "success", log.error
    samples = read_eval_log(log.location).samples or []
    assert len(samples) == ITEMS
    return sorted(samples, key=lambda sample: int(str(sample.id)))


def _sent(sample: EvalSample) -> list[tuple[str, str]]:
    """The messages the model was sent (the conversation before its reply)."""
    return [(message.role, message.text) for message in sample.messages[:-1]]


@pytest.mark.parametrize("style", EXPLAIN_STYLES)
def test_the_explain_task_prompts_and_generates_in_one_step_with_the_same_messages(style: str) -> None:
    task = explain(prompt=style, data="sample", judge="none")
    chosen = list(task.dataset)[:ITEMS]
    prompts: list[str] = []
    (log,) = eval(
        task, model=scripted_model(lambda p: EXPLANATION, prompts), sample_id=[s.id for s in chosen]
    )
    two_steps: list[str] = []
    (reference,) = eval(
        Task(dataset=MemoryDataset(chosen), solver=[explain_prompt(style), generate()]),  # type: ignore[arg-type]
        model=scripted_model(lambda p: EXPLANATION, two_steps),
    )

    ours, theirs = _samples(log), _samples(reference)
    for sample in ours:
        solver_spans = [e.name for e in sample.events if isinstance(e, SpanBeginEvent) and e.type == "solver"]
        assert solver_spans == ["vivid_inspect/explain_generate"]
        assert sample.output.completion == EXPLANATION
    assert [_sent(s) for s in ours] == [_sent(s) for s in theirs]
    assert sorted(prompts) == sorted(two_steps) and len(prompts) == ITEMS


def test_the_explain_data_keeps_the_idiom_as_input() -> None:
    # The prompt is rendered by the solver, so the viewer's sample list still shows the idiom.
    samples = list(explain(data="sample", judge="none").dataset)
    items = {item.id: item for item in load_items("sample")[1]}
    assert samples and all(s.input == items[int(str(s.id))].idiom for s in samples)
