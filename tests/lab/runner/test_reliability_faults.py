"""Provider faults during a real explain run: transient ones are cured, persistent ones resumable.

Every run here is the real ``explain`` task on the bundled sample, through Inspect's ``openai-api``
provider, against FakeOpenAIServer on 127.0.0.1. The server's request log is the ground truth
for what was paid for: a rerun must not send again a request whose answer is already kept.

Retry layers: the OpenAI SDK retries 429, 5xx, dropped connections and timeouts itself and honours
``Retry-After`` (``sdk_retries``); Inspect retries on top with waits of 3 s and more
(``max_retries``, switched off here where a test wants a persistent fault to end a sample fast).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval, eval_set, score
from inspect_ai.log import EvalLog, EvalSample, read_eval_log
from inspect_ai.model import GenerateConfig

from tests.fake_api import (
    GEN,
    JUDGE,
    explain_items,
    explanation_of,
    fake_model,
    idiom_of,
    judge_fails_for,
    requests_by_idiom,
    serving,
)
from vivid_inspect.scorers.judge import judge
from vivid_inspect.tasks import explain
from vivid_inspect.testing.faults import Fault, fail_fraction, fail_prompts
from vivid_inspect.testing.openai_server import FakeOpenAIServer

RETRY_AFTER = 1.0
# Server timestamps are taken just before a reply is sent and just after a request is read.
CLOCK_SLACK = 0.05


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    """The explain task's fake provider, with logs and cache in ``tmp_path``."""
    with serving(tmp_path, monkeypatch) as running:
        yield running


def _samples(log: EvalLog) -> list[EvalSample]:
    full = read_eval_log(log.location) if log.samples is None else log
    assert full.samples is not None
    return full.samples


def _scored(sample: EvalSample) -> bool:
    return sample.error is None and bool(sample.scores) and "judge_aspect" in (sample.scores or {})


def _error_text(sample: EvalSample) -> str:
    assert sample.error is not None
    return f"{sample.error.message}\n{sample.error.traceback}"


def _eval_set(server: FakeOpenAIServer, log_dir: Path, **kwargs: Any) -> tuple[bool, EvalLog]:
    """eval_set of explain(judge=aspect) as a researcher resuming a run would call it."""
    options: dict[str, Any] = {
        "log_dir": str(log_dir),
        "model": fake_model(server, GEN),
        "model_roles": {"grader": fake_model(server, JUDGE)},
        "display": "none",
        "max_retries": 0,
        "retry_attempts": 0,
        "fail_on_error": True,
        "continue_on_fail": True,
        "limit": 8,
    }
    options.update(kwargs)
    ok, logs = eval_set(explain(data="sample", judge="aspect"), **options)
    (log,) = logs
    return ok, log


@pytest.mark.slow
def test_transient_faults_are_cured_honouring_retry_after_and_every_sample_is_scored(
    server: FakeOpenAIServer,
) -> None:
    server.faults = fail_fraction(
        0.2,
        kinds=["rate_limit", "server_error", "unavailable", "drop", "slow"],
        seed=22,  # ~20% of requests fail, every kind occurs, at most 2 faults in a row
        retry_after=RETRY_AFTER,
        delay=3.0,
    )
    items = explain_items()

    (log,) = eval(
        explain(data="sample", judge="aspect"),
        model=fake_model(server, GEN, sdk_retries=4, client_timeout=1.0),
        model_roles={"grader": fake_model(server, JUDGE, sdk_retries=4, client_timeout=1.0)},
        display="none",
        max_connections=64,
        max_retries=2,
        timeout=60,
    )
    server.stop()  # slow replies are logged when their sleep ends; stop() cuts it short
    records = sorted(server.log, key=lambda r: r.started)

    faults = Counter(record.fault for record in records if record.fault)
    assert set(faults) == {"rate_limit", "server_error", "unavailable", "drop", "slow"}
    assert 0.1 < sum(faults.values()) / len(records) < 0.3
    assert log.status == "success"
    samples = _samples(log)
    assert len(samples) == len(items)
    assert all(_scored(sample) for sample in samples)
    assert {s.output.completion for s in samples} == {explanation_of(item.idiom) for item in items}
    assert log.results is not None
    # the judge's column; its companion unscored_* column counts the unscored share beside it
    (aspect,) = [s for s in log.results.scores if s.name.startswith("judge_")]
    assert (aspect.scored_samples, aspect.unscored_samples) == (len(items), 0)
    assert aspect.metrics["mean"].value == 4.0
    # Retry-After: after a 429 or 503 the same request comes back no sooner than the server asked
    refusals = [r for r in records if r.status in (429, 503)]
    assert refusals
    for refused in refusals:
        retry = next(
            r
            for r in records
            if (r.model, r.prompt) == (refused.model, refused.prompt) and r.started > refused.started
        )
        assert retry.started - refused.finished >= RETRY_AFTER - CLOCK_SLACK


@pytest.mark.slow
def test_persistent_failure_is_reported_and_a_rerun_completes_only_those(
    server: FakeOpenAIServer, tmp_path: Path
) -> None:
    items = explain_items()[:8]
    broken = {items[2].idiom, items[5].idiom}
    server.faults = fail_prompts(lambda prompt: idiom_of(prompt) in broken, "server_error")

    ok, log = _eval_set(server, tmp_path / "run")

    assert not ok  # eval_set says the set is incomplete
    assert log.status == "error"
    samples = {s.id: s for s in _samples(log)}
    failed = {item.id for item in items if item.idiom in broken}
    assert {i for i, s in samples.items() if s.error is not None} == failed
    for sample_id in failed:
        # the reason reaches the log: the provider's status and message
        assert "Error code: 500 - injected fault: server_error" in _error_text(samples[sample_id])
    assert all(_scored(samples[item.id]) for item in items if item.id not in failed)
    assert log.results is not None
    assert (log.results.completed_samples, log.results.total_samples) == (6, 8)

    server.reset()
    server.faults = None
    ok, log = _eval_set(server, tmp_path / "run")

    assert ok
    assert log.status == "success"
    assert all(_scored(sample) for sample in _samples(log))
    # only the failed items reached the provider again, once for generation and once for the judge
    assert requests_by_idiom(server.log, GEN) == Counter(broken)
    assert requests_by_idiom(server.log, JUDGE) == Counter(broken)


@pytest.mark.slow
def test_fail_on_error_false_would_hide_failures_from_a_rerun(
    server: FakeOpenAIServer, tmp_path: Path
) -> None:
    """Why runs must keep ``fail_on_error`` on: with it off, Inspect calls a run with errors a success.

    The log says ``success``, ``eval_set`` says the set is complete, and a rerun never retries
    the errored samples, so the mean silently covers fewer items than the spec asked for.
    """
    items = explain_items()[:4]
    server.faults = fail_prompts(lambda prompt: idiom_of(prompt) == items[0].idiom, "server_error")

    ok, log = _eval_set(server, tmp_path / "run", fail_on_error=False, continue_on_fail=None, limit=4)
    assert (ok, log.status) == (True, "success")
    server.reset()
    server.faults = None
    ok, log = _eval_set(server, tmp_path / "run", fail_on_error=False, continue_on_fail=None, limit=4)

    assert (ok, log.status) == (True, "success")
    assert server.model_counts == {}  # nothing was retried
    assert [s.id for s in _samples(log) if s.error is not None] == [items[0].id]


@pytest.mark.slow
def test_judge_failure_keeps_generations_and_a_rerun_calls_only_the_judge(
    server: FakeOpenAIServer, tmp_path: Path
) -> None:
    items = explain_items()[:6]
    judge_down = {items[1].idiom, items[4].idiom}
    server.faults = judge_fails_for(judge_down, lambda: Fault("unavailable"))

    # cache=True keeps every generation in Inspect's model cache, so redoing a sample whose
    # judge failed does not pay for its generation again
    ok, log = _eval_set(server, tmp_path / "run", cache=True, limit=6)

    assert not ok
    samples = {s.id: s for s in _samples(log)}
    for item in items:
        # the generation is in the log even where the judge failed
        assert samples[item.id].output.completion == explanation_of(item.idiom)
        assert _scored(samples[item.id]) == (item.idiom not in judge_down)
        if item.idiom in judge_down:
            assert "Error code: 503" in _error_text(samples[item.id])
    assert requests_by_idiom(server.log, GEN) == Counter(item.idiom for item in items)

    server.reset()
    server.faults = None
    ok, log = _eval_set(server, tmp_path / "run", cache=True, limit=6)

    assert ok
    assert all(_scored(sample) for sample in _samples(log))
    assert requests_by_idiom(server.log, GEN) == Counter()
    assert requests_by_idiom(server.log, JUDGE) == Counter(judge_down)


@pytest.mark.slow
def test_judge_failure_while_rescoring_loses_no_generation(server: FakeOpenAIServer) -> None:
    """Generate first (``judge=none``), judge later: the path of ``inspect score`` and ``vivid run``."""
    items = explain_items()[:6]
    (generated,) = eval(
        explain(data="sample", judge="none"),
        model=fake_model(server, GEN),
        sample_id=[item.id for item in items],
        display="none",
        max_retries=0,
    )
    assert generated.status == "success"
    server.reset()
    judge_down = {items[0].idiom, items[3].idiom}
    # Failures arrive after every other judge reply: a slow reply cut by the client's timeout.
    server.faults = judge_fails_for(judge_down, lambda: Fault("slow", delay=5.0))
    no_retries = GenerateConfig(max_retries=0)
    judge_model = fake_model(server, JUDGE, client_timeout=1.0, config=no_retries)

    # The judge, its URL and the reason are named (not tenacity's RetryError[<Future ...>]).
    with pytest.raises(
        Exception, match=r"openai-api/fake/judge: \w*Timeout\w* calling http://127\.0\.0\.1:\d+/v1"
    ):
        score(
            generated,
            [judge(strategy="aspect")],
            model=judge_model,
            model_roles={"grader": judge_model},
            display="none",
        )
    # the generation log on disk is untouched: every explanation is still there
    on_disk = _samples(read_eval_log(generated.location))
    assert {s.output.completion for s in on_disk} == {explanation_of(item.idiom) for item in items}
    answered = {
        idiom_of(r.prompt) for r in server.log if r.model == JUDGE and r.status == 200 and not r.fault
    }
    assert answered == {item.idiom for item in items} - judge_down

    server.reset()
    server.faults = None
    judge_model = fake_model(server, JUDGE, config=no_retries)
    rescored = score(
        read_eval_log(generated.location),
        [judge(strategy="aspect")],
        model=judge_model,
        model_roles={"grader": judge_model},
        display="none",
    )

    assert all(_scored(sample) for sample in _samples(rescored))
    # the judge replies already received come from Inspect's cache; only the missing ones are asked
    assert requests_by_idiom(server.log, JUDGE) == Counter(judge_down)
    assert GEN not in server.model_counts
