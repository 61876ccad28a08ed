"""A 200 reply that cannot be read is retried within the call limits, then fails in one named line.

Issue 22.10: a body that is not UTF-8 or not whole JSON raised a bare ``UnicodeDecodeError`` or
``JSONDecodeError`` (Inspect does not retry them), and a judge reply whose ``choices`` list was
empty an ``IndexError`` in the judge scorer. Now the generate step (``bounded_generate``) and the
judge retry such a reply as a failed call, honouring ``--max-retries``/``timeout`` (the judge: its
own limits, ``call_limits.JUDGE`` under the grader role's), and then end the sample with
``ModelCallError: <model>: unreadable reply from <url>: <why>; gave up after N attempts``, which
never holds the body. A reply with no choices sits in Inspect's cache like any other, so the
retry after it asks under another cache key, and a rerun replays the good reply.

Everything goes through Inspect's real ``openai-api`` provider and FakeOpenAIServer's fault modes.
"""

from __future__ import annotations

import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog, EvalSample, read_eval_log
from inspect_ai.model import GenerateConfig

from tests.fake_api import GEN, JUDGE, Item, explain_items, explanation_of, fake_model, idiom_of, serving
from tests.scripted import scripted_model
from vivid_inspect.call_errors import first_sample_error
from vivid_inspect.tasks import explain
from vivid_inspect.testing.faults import FaultKind, FaultPlan, combine, fail_first, fail_prompts
from vivid_inspect.testing.openai_server import FakeOpenAIServer

# Each fault kind and what the failure says of it.
KINDS: dict[FaultKind, str] = {
    "invalid_json": "a body that is not whole JSON",
    "empty_body": "a body that is not whole JSON",
    "invalid_utf8": "a body that is not UTF-8",
    "no_choices": "no choices",
}
ITEMS = explain_items()[: len(KINDS)]
KIND_OF = dict(zip((item.idiom for item in ITEMS), KINDS, strict=True))


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    with serving(tmp_path, monkeypatch) as running:
        yield running


def _plan(model: str, *, transient: bool) -> FaultPlan:
    """Each item's requests of ``model`` fail with its own kind: once, or always."""
    plans = []
    for idiom, kind in KIND_OF.items():

        def about(prompt: str, idiom: str = idiom) -> bool:
            return idiom_of(prompt) == idiom

        plans.append(fail_first(1, kind, about) if transient else fail_prompts(about, kind))

    def plan(index: int, asked: str, prompt: str) -> Any:
        return combine(*plans)(index, asked, prompt) if asked == model else None

    return plan


def _requests(server: FakeOpenAIServer, model: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for record in server.log:
        if record.model == model:
            idiom = idiom_of(record.prompt)
            assert idiom is not None
            counts[idiom] = counts.get(idiom, 0) + 1
    return counts


def _samples(log: EvalLog) -> dict[str, EvalSample]:
    full = read_eval_log(log.location)
    assert full.samples is not None
    return {str(sample.input): sample for sample in full.samples}


def _generate(server: FakeOpenAIServer, items: list[Item] = ITEMS, **options: Any) -> EvalLog:
    (log,) = eval(
        explain(data="sample", judge="none"),
        model=fake_model(server, GEN),
        sample_id=[item.id for item in items],
        display="none",
        fail_on_error=False,
        **({"max_retries": 1} | options),
    )
    return log


def _judge(server: FakeOpenAIServer, max_retries: int = 1, **options: Any) -> EvalLog:
    grader = fake_model(server, JUDGE, config=GenerateConfig(max_retries=max_retries))
    (log,) = eval(
        explain(data="sample", judge="aspect"),
        model=scripted_model(lambda prompt: "Khuyên người ta nhớ ơn."),
        model_roles={"grader": grader},
        sample_id=[item.id for item in ITEMS],
        display="none",
        fail_on_error=False,
        **options,
    )
    return log


def _assert_named(sample: EvalSample, model: str, url: str, why: str, attempts: int, body: str) -> None:
    assert sample.error is not None, sample.output.completion
    message = sample.error.message
    assert message.startswith("ModelCallError"), message
    assert f"{model}: unreadable reply from {url}: HTTP 200 with {why}" in message, message
    assert f"gave up after {attempts} attempt{'s' if attempts > 1 else ''}" in message, message
    assert "\n" not in message and len(message) < 400
    for part in (body, "chatcmpl", "Traceback", "IndexError", "RetryError"):
        assert part not in message, part


@pytest.mark.slow
@pytest.mark.parametrize("retries", [0, 2])
def test_generation_a_persistent_unreadable_reply_fails_after_max_retries(
    server: FakeOpenAIServer, retries: int
) -> None:
    server.faults = _plan(GEN, transient=False)
    log = _generate(server, max_retries=retries)
    assert log.status == "success"  # the failed samples are errors, the run goes on
    for idiom, sample in _samples(log).items():
        kind = KIND_OF[idiom]
        _assert_named(
            sample, "openai-api/fake/gen", server.base_url, KINDS[kind], retries + 1, explanation_of(idiom)
        )
    assert _requests(server, GEN) == dict.fromkeys(KIND_OF, retries + 1)
    # nor in the log: Inspect stores a failed call's error as its repr, which for a UnicodeDecodeError
    # is the whole body; each failed attempt's event keeps the error's message only
    with zipfile.ZipFile(log.location) as stored:
        text = "".join(stored.read(name).decode("utf-8", "replace") for name in stored.namelist())
    assert "\\x80\\xff" not in text
    assert all(explanation_of(idiom) not in text for idiom in KIND_OF)
    summary = first_sample_error(Path(log.location))  # what `vivid run` prints for a failed cell
    assert summary is not None and summary.startswith("ModelCallError: openai-api/fake/gen: unreadable reply")


@pytest.mark.slow
def test_generation_a_passing_unreadable_reply_is_retried(server: FakeOpenAIServer) -> None:
    server.faults = _plan(GEN, transient=True)
    log = _generate(server, max_retries=1)
    for idiom, sample in _samples(log).items():
        assert sample.error is None, sample.error
        assert sample.output.completion == explanation_of(idiom)
    assert _requests(server, GEN) == dict.fromkeys(KIND_OF, 2)


@pytest.mark.slow
def test_generation_the_timeout_stops_the_retries(server: FakeOpenAIServer) -> None:
    server.faults = fail_prompts(lambda prompt: True, "invalid_json")
    started = time.monotonic()
    log = _generate(server, ITEMS[:1], max_retries=10, timeout=1)
    (sample,) = _samples(log).values()
    # the first attempt ends at once; the retry starts 1-2 s later, past the 1 s timeout: no third
    _assert_named(sample, "openai-api/fake/gen", server.base_url, KINDS["invalid_json"], 2, "chatcmpl")
    assert sum(_requests(server, GEN).values()) == 2
    assert time.monotonic() - started < 60


@pytest.mark.slow
@pytest.mark.parametrize("retries", [0, 1])
def test_judge_a_persistent_unreadable_reply_fails_after_its_max_retries(
    server: FakeOpenAIServer, retries: int
) -> None:
    server.faults = _plan(JUDGE, transient=False)
    log = _judge(server, max_retries=retries)
    for sample in _samples(log).values():
        kind = KIND_OF[str(sample.input)]
        _assert_named(sample, "openai-api/fake/judge", server.base_url, KINDS[kind], retries + 1, "chatcmpl")
    assert _requests(server, JUDGE) == dict.fromkeys(KIND_OF, retries + 1)


@pytest.mark.slow
def test_judge_a_passing_unreadable_reply_is_retried_and_scored(server: FakeOpenAIServer) -> None:
    server.faults = _plan(JUDGE, transient=True)
    log = _judge(server)
    for sample in _samples(log).values():
        assert sample.error is None, sample.error
        assert sample.scores is not None
        assert sample.scores["judge_aspect"].value == 4
    assert _requests(server, JUDGE) == dict.fromkeys(KIND_OF, 2)


@pytest.mark.slow
def test_no_choices_is_asked_again_past_the_cache_and_a_rerun_calls_nothing(server: FakeOpenAIServer) -> None:
    # Inspect caches a reply with no choices like any other: a retry under the same key would
    # replay it, for a week. The retry asks under another key; a rerun replays both.
    server.faults = combine(fail_first(1, "no_choices", lambda prompt: idiom_of(prompt) == ITEMS[0].idiom))
    for _ in range(2):
        log = _judge(server, cache=True)
        (sample,) = [s for s in _samples(log).values() if str(s.input) == ITEMS[0].idiom]
        assert sample.error is None, sample.error
        assert sample.scores is not None and sample.scores["judge_aspect"].value == 4
    assert _requests(server, JUDGE)[ITEMS[0].idiom] == 2

    server.reset()
    server.faults = fail_first(1, "no_choices", lambda prompt: idiom_of(prompt) == ITEMS[1].idiom)
    for _ in range(2):
        log = _generate(server, ITEMS[1:2], cache=True)
        (sample,) = _samples(log).values()
        assert sample.error is None, sample.error
        assert sample.output.completion == explanation_of(ITEMS[1].idiom)
    assert _requests(server, GEN) == {ITEMS[1].idiom: 2}
