"""A server that stalls or trickles its reply cannot hold a run for ever.

``attempt_timeout`` cuts each attempt, so a call ends after about attempt_timeout × (max_retries
+ 1) plus Inspect's back-off, whether the server sends its headers and then nothing (``stall``)
or one byte every few seconds, which no read timeout catches (``trickle``). Under ``vivid run``
the run then exits 1 and a rerun against a healthy server completes only what is missing; under
plain Inspect the task's own generate step applies the limit. Small limits keep the tests short.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

import pytest
from inspect_ai import eval, score
from inspect_ai.log import read_eval_log
from inspect_ai.model import GenerateConfig

from tests.fake_api import GEN, JUDGE, explain_items, fake_model, idiom_of, serving
from vivid_inspect.call_errors import describe_failure
from vivid_inspect.call_limits import JUDGE as JUDGE_LIMITS
from vivid_inspect.lab.cli.main import main
from vivid_inspect.scorers.judge import judge
from vivid_inspect.tasks import explain
from vivid_inspect.testing.faults import Fault
from vivid_inspect.testing.openai_server import FakeOpenAIServer

ATTEMPT_TIMEOUT = 3
MAX_RETRIES = 1
STALL = 600.0  # far longer than any test: only attempt_timeout can end the wait
MODES = [
    pytest.param(Fault("stall", delay=STALL), id="headers-then-silence"),
    pytest.param(Fault("trickle", interval=1.0), id="one-byte-a-second"),
]

SPEC = """\
name: stalled
data: sample
log_dir: logs
runs:
  - tasks: [explain]
    models:
      - model: openai-api/fake/gen
        model_args: {{base_url: "{url}"}}
    limit: {limit}
judges:
  - name: aspect
    strategy: aspect
    model: openai-api/fake/judge
    model_args: {{base_url: "{url}"}}
retries: {{attempts: 0, max_retries: {max_retries}, attempt_timeout: {attempt_timeout}, timeout: 600}}
"""


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    with serving(tmp_path, monkeypatch) as running:
        for name, value in running.env().items():
            monkeypatch.setenv(name, value)
        yield running


def starts(server: FakeOpenAIServer, model: str) -> dict[str | None, list[float]]:
    """When each request of ``model`` arrived, per idiom."""
    found: dict[str | None, list[float]] = {}
    for record in sorted(server.log, key=lambda r: r.started):
        if record.model == model:
            found.setdefault(idiom_of(record.prompt), []).append(record.started)
    return found


def assert_cut_by_attempt_timeout(arrivals: list[float]) -> None:
    """Each call made max_retries + 1 attempts, each ended by attempt_timeout (then a back-off)."""
    assert len(arrivals) == MAX_RETRIES + 1
    for earlier, later in pairwise(arrivals):
        # the attempt lasted attempt_timeout (then Inspect's back-off, removed here); generous for a slow machine
        assert ATTEMPT_TIMEOUT - 0.2 <= later - earlier < ATTEMPT_TIMEOUT + 30


@pytest.mark.slow
@pytest.mark.parametrize("fault", MODES)
def test_vivid_run_ends_a_stalled_call_exits_1_and_a_rerun_completes(
    server: FakeOpenAIServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    fault: Fault,
    no_retry_waits: None,
) -> None:
    # Without Inspect's 3-6 s back-off between the two attempts: attempt_timeout ending each one is
    # the point (the arrivals are still attempt_timeout apart), not how long Inspect waits.
    items = explain_items()[:3]
    stalled = items[1].idiom
    server.faults = lambda index, model, prompt: (
        fault if model == GEN and idiom_of(prompt) == stalled else None
    )
    spec = tmp_path / "spec.yaml"
    text = SPEC.format(
        url=server.base_url, limit=len(items), max_retries=MAX_RETRIES, attempt_timeout=ATTEMPT_TIMEOUT
    )
    spec.write_text(text, encoding="utf-8")

    started = time.monotonic()
    code = main(["run", str(spec), "--display", "none", "--no-report"])
    elapsed = time.monotonic() - started
    err = " ".join(capsys.readouterr().err.split())

    assert code == 1
    assert elapsed < 120  # for ever without attempt_timeout: the server never finishes its reply
    assert_cut_by_attempt_timeout(starts(server, GEN)[stalled])
    assert (
        f"AttemptTimeoutError calling {server.base_url}: attempt_timeout '{ATTEMPT_TIMEOUT}' exceeded" in err
    )
    assert "rerun `vivid run" in err

    server.faults = None
    server.reset()
    code = main(["run", str(spec), "--display", "none", "--no-report"])

    assert code == 0, capsys.readouterr().err
    assert Counter(idiom_of(r.prompt) for r in server.log if r.model == GEN) == Counter([stalled])
    judged = read_eval_log(str(next((tmp_path / "logs" / "judged" / "aspect").glob("*.eval"))))
    assert judged.samples is not None and len(judged.samples) == len(items)


def assert_one_cut_attempt(arrivals: list[float], error: str) -> None:
    """With max_retries 0 a stalled call is one request, ended by attempt_timeout."""
    assert len(arrivals) == 1  # the SDK's own retries never start: the whole attempt is cut
    assert f"attempt_timeout '{QUICK_TIMEOUT}' exceeded" in error


QUICK_TIMEOUT = 3


@pytest.mark.slow
@pytest.mark.parametrize("fault", MODES)
def test_the_tasks_generate_step_bounds_a_stalled_call(
    server: FakeOpenAIServer, tmp_path: Path, fault: Fault
) -> None:
    server.faults = lambda index, model, prompt: fault
    model = fake_model(server, GEN, sdk_retries=2)

    started = time.monotonic()
    (log,) = eval(
        explain(data="sample", judge="none"),
        model=model,
        limit=1,
        max_retries=0,
        attempt_timeout=QUICK_TIMEOUT,
        display="none",
        log_dir=str(tmp_path / "generate"),
    )

    assert time.monotonic() - started < 60
    samples = read_eval_log(log.location).samples or []
    assert len(samples) == 1 and samples[0].error is not None
    (arrivals,) = starts(server, GEN).values()
    assert_one_cut_attempt(arrivals, samples[0].error.message)


@pytest.mark.slow
@pytest.mark.parametrize("fault", MODES)
def test_the_judge_under_inspect_score_bounds_a_stalled_call(
    server: FakeOpenAIServer, tmp_path: Path, fault: Fault
) -> None:
    (generated,) = eval(
        explain(data="sample", judge="none"),
        model=fake_model(server, GEN),
        limit=1,
        display="none",
        log_dir=str(tmp_path / "generate"),
    )
    server.faults = lambda index, model, prompt: fault if model == JUDGE else None
    # as `inspect score` builds it: the grader's own config only, here with short limits
    grader = fake_model(
        server, JUDGE, sdk_retries=2, config=GenerateConfig(max_retries=0, attempt_timeout=QUICK_TIMEOUT)
    )

    started = time.monotonic()
    with pytest.raises(Exception) as raised:
        score(generated, judge(strategy="zero_shot"), model_roles={"grader": grader}, display="none")

    assert time.monotonic() - started < 60
    (arrivals,) = starts(server, JUDGE).values()
    assert_one_cut_attempt(arrivals, describe_failure(raised.value))


def test_the_judge_carries_its_own_attempt_timeout(server: FakeOpenAIServer, tmp_path: Path) -> None:
    """A grader role does not inherit the task's attempt_timeout: the judge's own limit applies."""
    (generated,) = eval(
        explain(data="sample", judge="none"),
        model=fake_model(server, GEN),
        limit=1,
        display="none",
        log_dir=str(tmp_path / "generate"),
    )

    scored = score(
        generated,
        judge(strategy="zero_shot"),
        model_roles={"grader": fake_model(server, JUDGE)},
        display="none",
    )

    assert scored.samples is not None
    configs = [
        e.config for s in scored.samples for e in s.events if e.event == "model" and e.role == "grader"
    ]
    assert configs and {(c.max_retries, c.attempt_timeout) for c in configs} == {
        (JUDGE_LIMITS.max_retries, JUDGE_LIMITS.attempt_timeout)
    }
