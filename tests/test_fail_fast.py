"""Dead or wrong endpoints fail fast under plain Inspect, and failures name the endpoint.

The tasks carry finite call limits (``vivid_inspect.call_limits``) that the command line still
overrides, and a call that runs out of retries ends its sample with an error naming the model,
the URL and the provider's reason instead of tenacity's ``RetryError[<Future …>]``. Everything
runs against 127.0.0.1: a port nothing listens on, or FakeOpenAIServer.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, cast

import httpx
import openai
import pytest
from inspect_ai import Task, eval
from inspect_ai.log import EvalLog, EvalSample, read_eval_log
from inspect_ai.model import GenerateConfig, ModelOutput, ModelUsage, get_model
from tenacity import RetryError, Retrying, stop_after_attempt

from tests.fake_api import GEN, fake_model
from vivid_inspect.call_errors import (
    describe_failure,
    first_sample_error,
    innermost,
    is_call_failure,
)
from vivid_inspect.call_limits import GENERATION, JUDGE, RUN_ATTEMPTS
from vivid_inspect.lab.runner.prepare.models import generate_config
from vivid_inspect.lab.runner.spec.model import Retries, Spec
from vivid_inspect.tasks import explain, topic, traits
from vivid_inspect.testing.faults import Fault, fail_prompts
from vivid_inspect.testing.openai_server import FakeOpenAIServer

SECRET = "sk-fail-fast-canary-0123456789"


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def only_sample(log: EvalLog) -> EvalSample:
    full = read_eval_log(log.location) if log.samples is None else log
    assert full.samples is not None and len(full.samples) == 1
    return full.samples[0]


def model_configs(log: EvalLog) -> list[GenerateConfig]:
    """The generation options of every model call in a log, as Inspect recorded them."""
    full = read_eval_log(log.location) if log.samples is None else log
    return [
        event.config for sample in full.samples or [] for event in sample.events if event.event == "model"
    ]


# -- the table of limits -------------------------------------------------------------------------


@pytest.mark.parametrize("limits", [GENERATION, JUDGE], ids=["generation", "judge"])
def test_every_limit_in_the_table_is_finite(limits: Any) -> None:
    assert 0 < limits.max_retries < 10
    assert 0 < limits.attempt_timeout <= limits.timeout
    assert limits.config().attempt_timeout == limits.attempt_timeout


def test_spec_retries_defaults_are_the_table() -> None:
    defaults = Retries()
    assert (defaults.max_retries, defaults.timeout, defaults.attempt_timeout) == (
        GENERATION.max_retries,
        GENERATION.timeout,
        GENERATION.attempt_timeout,
    )
    assert defaults.attempts == RUN_ATTEMPTS and RUN_ATTEMPTS < 10  # eval_set's own default is 10


TASKS = [
    pytest.param(lambda: explain(data="sample", judge="none"), id="explain"),
    pytest.param(lambda: topic(data="sample"), id="topic"),
    pytest.param(lambda: traits(data="sample"), id="traits"),
]


@pytest.mark.parametrize("make", TASKS)
def test_tasks_carry_finite_retry_limits(make: Any) -> None:
    task: Task = make()
    assert task.config.max_retries == GENERATION.max_retries
    assert task.config.timeout == GENERATION.timeout


def _mock_outputs(n: int) -> list[ModelOutput]:
    outputs = [ModelOutput.from_content("mockllm/model", "1") for _ in range(n)]
    for output in outputs:
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return outputs


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        pytest.param({}, (3, 300, 180), id="task-defaults"),
        pytest.param(
            {"max_retries": 1, "timeout": 30, "attempt_timeout": 7}, (1, 30, 7), id="command-line-wins"
        ),
        pytest.param({"batch": True}, (3, 300, None), id="batch-calls-are-not-cut"),
    ],
)
@pytest.mark.parametrize("make", TASKS)
def test_each_call_runs_with_the_task_defaults_unless_overridden(
    make: Any, options: dict[str, Any], expected: tuple[Any, ...], tmp_path: Path
) -> None:
    model = get_model("mockllm/model", custom_outputs=_mock_outputs(2), memoize=False)
    (log,) = eval(make(), model=model, limit=1, display="none", log_dir=str(tmp_path), **options)

    configs = model_configs(log)
    assert configs and {(c.max_retries, c.timeout, c.attempt_timeout) for c in configs} == {expected}


# -- plain `inspect eval` against a dead endpoint ------------------------------------------------


@pytest.mark.slow
def test_inspect_eval_on_a_closed_port_ends_within_two_minutes_naming_model_and_url(tmp_path: Path) -> None:
    """The real defaults, as a user runs them: `inspect eval` in a subprocess, nothing overridden.

    The task-start check would stop this in seconds (tests/test_first_contact_cli.py); with it off,
    as for an endpoint that serves no model listing, the call limits still end the run.
    """
    port = closed_port()
    url = f"http://127.0.0.1:{port}/v1"
    env = {
        **os.environ,
        "OPENAI_API_KEY": SECRET,
        "OPENAI_BASE_URL": url,
        "INSPECT_LOG_DIR": str(tmp_path / "logs"),
        "COLUMNS": "200",
        "VIVID_PREFLIGHT": "0",
    }
    command = [
        *(sys.executable, "-m", "inspect_ai", "eval", "vivid_inspect/tasks.py@explain"),
        *("--model", "openai/gpt-4o", "-T", "data=sample", "-T", "judge=none", "--limit", "2"),
        *("--display", "plain"),
    ]
    started = time.monotonic()
    done = subprocess.run(  # noqa: PLW1510 - the exit code is not the point: the message is
        command, env=env, cwd=Path(__file__).parents[1], capture_output=True, text=True, timeout=300
    )
    elapsed = time.monotonic() - started

    output = " ".join((done.stdout + done.stderr).split())  # rich wraps long lines
    assert elapsed < 120, f"took {elapsed:.0f} s"
    assert (
        f"ModelCallError: openai/gpt-4o: no connection to {url}/chat/completions (Connection refused)"
        in output
    )
    assert f"gave up after {GENERATION.max_retries + 1} attempts" in output
    assert SECRET not in output
    (log,) = (tmp_path / "logs").glob("*.eval")
    assert read_eval_log(str(log), header_only=True).status == "error"


@pytest.mark.slow
def test_a_lower_max_retries_on_the_command_line_ends_the_call_sooner(tmp_path: Path) -> None:
    port = closed_port()
    model = get_model("openai/gpt-4o", base_url=f"http://127.0.0.1:{port}/v1", api_key=SECRET, memoize=False)
    started = time.monotonic()
    (log,) = eval(
        explain(data="sample", judge="none"),
        model=model,
        limit=1,
        max_retries=0,
        display="none",
        log_dir=str(tmp_path),
    )
    elapsed = time.monotonic() - started

    sample = only_sample(log)
    assert sample.error is not None
    assert "gave up after 1 attempt" in sample.error.message
    assert elapsed < 60  # one attempt and the SDK's own two quick retries, no Inspect back-off


# -- what a failed call says ---------------------------------------------------------------------

FAILURES = [
    pytest.param(
        "server_error",
        {},
        "HTTP 500 from {url}/chat/completions: injected fault: server_error",
        id="http-500",
    ),
    pytest.param(
        "unauthorised",
        {"api_key": "the-right-key"},
        "HTTP 401 from {url}/chat/completions: Incorrect API key",
        id="http-401",
    ),
    pytest.param(
        "stall",
        {},
        "AttemptTimeoutError calling {url}: attempt_timeout '2' exceeded",
        id="attempt-timeout",
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize(("fault", "server_args", "expected"), FAILURES)
def test_a_failed_call_names_model_status_message_and_url(
    fault: str, server_args: dict[str, Any], expected: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INSPECT_LOG_DIR", str(tmp_path / "logs"))
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with FakeOpenAIServer(**server_args) as server:
        if fault != "unauthorised":
            server.faults = fail_prompts(lambda prompt: True, Fault(fault, delay=60))  # type: ignore[arg-type]
        model = fake_model(server, GEN)
        (log,) = eval(
            explain(data="sample", judge="none"),
            model=model,
            limit=1,
            max_retries=0,
            attempt_timeout=2,
            display="none",
        )
        url = server.base_url

    assert_call_named(log, "openai-api/fake/gen", expected.format(url=url))


def assert_call_named(log: EvalLog, model: str, expected: str) -> None:
    """The log's one sample failed with a ModelCallError naming ``model`` and ``expected``, nothing raw."""
    sample = only_sample(log)
    assert sample.error is not None
    message = sample.error.message
    assert message.startswith("ModelCallError"), message
    assert model in message and expected in message
    assert "RetryError" not in message and "Future" not in message and SECRET not in message
    summary = first_sample_error(Path(log.location))  # what `vivid run` prints for a failed cell
    assert summary is not None and summary.startswith(f"ModelCallError: {model}: ")
    assert expected in summary


def _status_error(status: int, body: dict[str, Any]) -> openai.APIStatusError:
    request = httpx.Request("POST", "https://user:pw@api.example.com/v1/chat/completions?key=abc")
    response: Any = httpx.Response(status, request=request, json=body)  # the SDK's httpx2 reads it
    return openai.APIStatusError(f"Error code: {status}", response=response, body=body["error"])


def _retry_error(error: BaseException, attempts: int = 3) -> RetryError:
    try:
        for attempt in Retrying(stop=stop_after_attempt(attempts), reraise=False):
            with attempt:
                raise error
    except RetryError as retry:
        return retry
    raise AssertionError("tenacity did not give up")


def _refused() -> openai.APIConnectionError:
    request: Any = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    try:
        try:
            raise ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 9)")
        except OSError as cause:
            raise httpx.ConnectError("All connection attempts failed", request=request) from cause
    except httpx.ConnectError as connect:
        error = openai.APIConnectionError(request=request)
        error.__cause__ = connect
        return error


UNAUTHORISED = {"error": {"message": f"Incorrect API key provided: {SECRET}", "type": "invalid_api_key"}}

SHAPES = [
    pytest.param(
        lambda: _retry_error(_refused()),
        "no connection to http://127.0.0.1:9/v1/chat/completions (Connection refused); gave up after 3 attempts",
        id="retry-error-of-refused-connection",
    ),
    pytest.param(
        lambda: ExceptionGroup("eval failed", [_retry_error(_refused(), 5)]),
        "no connection to http://127.0.0.1:9/v1/chat/completions (Connection refused); gave up after 5 attempts",
        id="exception-group-around-retry-error",
    ),
    pytest.param(
        lambda: _status_error(401, UNAUTHORISED),
        "HTTP 401 from https://api.example.com/v1/chat/completions: Incorrect API key provided: [REDACTED]",
        id="status-error-redacted-url-without-credentials-or-query",
    ),
    pytest.param(
        lambda: _retry_error(
            _status_error(404, {"error": {"message": "The model `gpt-5x` does not exist"}}), 1
        ),
        "HTTP 404 from https://api.example.com/v1/chat/completions: The model `gpt-5x` does not exist; "
        "gave up after 1 attempt",
        id="model-not-found",
    ),
    pytest.param(
        lambda: openai.APITimeoutError(
            request=cast(Any, httpx.Request("POST", "http://h:1/v1/chat/completions"))
        ),
        "APITimeoutError calling http://h:1/v1/chat/completions: Request timed out",
        id="client-timeout",
    ),
]


@pytest.mark.parametrize(("make", "expected"), SHAPES)
def test_describe_failure_unwraps_and_names_the_endpoint(
    make: Any, expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    error = make()
    assert is_call_failure(error)
    assert describe_failure(error) == expected


def test_errors_that_are_not_calls_are_left_alone() -> None:
    error = ValueError("a bug")
    assert not is_call_failure(error)
    assert innermost(ExceptionGroup("g", [error])) is error


def _spec(**top: Any) -> Spec:
    runs = [{"tasks": ["explain"], "models": ["mockllm/model"]}]
    return Spec.model_validate({"name": "limits", "log_dir": "logs", "runs": runs, **top})


@pytest.mark.parametrize(
    ("spec", "overrides", "expected"),
    [
        pytest.param(_spec(), {}, (3, 300, 180), id="defaults"),
        pytest.param(_spec(batch=True), {}, (3, 300, None), id="batch-calls-are-not-cut"),
        pytest.param(
            _spec(batch=True, retries={"attempt_timeout": 900}),
            {},
            (3, 300, 900),
            id="batch-chosen-in-retries",
        ),
        pytest.param(
            _spec(batch=True), {"attempt_timeout": 600}, (3, 300, 600), id="batch-chosen-in-generate"
        ),
        pytest.param(_spec(), {"batch": True}, (3, 300, None), id="batch-in-a-judges-generate"),
        pytest.param(
            _spec(retries={"max_retries": 0, "attempt_timeout": 5}), {}, (0, 300, 5), id="spec-values"
        ),
    ],
)
def test_vivid_run_limits_come_from_the_spec_with_batch_calls_uncut(
    spec: Spec, overrides: dict[str, Any], expected: tuple[Any, ...]
) -> None:
    config = generate_config(spec, overrides)
    assert (config.max_retries, config.timeout, config.attempt_timeout) == expected


# -- the judge's calls say the same -------------------------------------------------------------

JUDGE_FAILURES = [
    pytest.param(
        "server_error", "HTTP 500 from {url}/chat/completions: injected fault: server_error", id="http-500"
    ),
    pytest.param("unauthorised", "HTTP 401 from {url}/chat/completions: Incorrect API key", id="http-401"),
    pytest.param(
        "stall", "AttemptTimeoutError calling {url}: attempt_timeout '2' exceeded", id="attempt-timeout"
    ),
    pytest.param("closed", "no connection to {url}/chat/completions (Connection refused)", id="closed-port"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("fault", "expected"), JUDGE_FAILURES)
def test_a_failed_judge_call_names_the_judge_its_url_and_the_reason(
    fault: str, expected: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The judge inside `inspect eval ... explain` (and `inspect score`, `vivid run`, `vivid audit`)."""
    from tests.scripted import scripted_model

    monkeypatch.setenv("INSPECT_LOG_DIR", str(tmp_path / "logs"))
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    config = GenerateConfig(max_retries=0, attempt_timeout=2)
    if fault == "closed":
        url = f"http://127.0.0.1:{closed_port()}/v1"
        grader = get_model(
            "openai-api/fake/judge", base_url=url, api_key=SECRET, memoize=False, config=config
        )
        (log,) = eval(
            explain(data="sample", judge="aspect"),
            model=scripted_model(lambda prompt: "Khuyên người ta nhớ ơn."),
            model_roles={"grader": grader},
            limit=1,
            display="none",
        )
    else:
        server_args = {"api_key": "the-right-key"} if fault == "unauthorised" else {}
        with FakeOpenAIServer(**server_args) as server:  # type: ignore[arg-type]
            if fault != "unauthorised":
                server.faults = fail_prompts(lambda prompt: True, Fault(fault, delay=60))  # type: ignore[arg-type]
            (log,) = eval(
                explain(data="sample", judge="aspect"),
                model=scripted_model(lambda prompt: "Khuyên người ta nhớ ơn."),
                model_roles={"grader": fake_model(server, "judge", config=config)},
                limit=1,
                display="none",
            )
            url = server.base_url

    assert_call_named(log, "openai-api/fake/judge", expected.format(url=url))


JUDGE_SPEC = """\
name: judge-fails
data: sample
log_dir: logs
runs:
  - tasks: [explain]
    models: [vivid/oracle]
    limit: 2
judges:
  - name: aspect
    strategy: aspect
    model: openai-api/fake/judge
    model_args: {{base_url: "{url}"}}
retries: {{attempts: 0, max_retries: 0}}
"""


@pytest.mark.slow
@pytest.mark.parametrize("entry", ["vivid run", "vivid audit", "vivid sanity"])
@pytest.mark.usefixtures("no_retry_waits")  # the message is the point, not the back-off
def test_every_entry_point_names_a_failed_judge_call(
    entry: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from vivid_inspect.lab.audit.run import AuditError, run_audit
    from vivid_inspect.lab.cli.main import main

    monkeypatch.setenv("INSPECT_LOG_DIR", str(tmp_path / "logs"))
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("FAKE_API_KEY", SECRET)
    with FakeOpenAIServer() as server:
        server.faults = fail_prompts(lambda prompt: True, Fault("server_error"))
        url = server.base_url
        judge = get_model(
            "openai-api/fake/judge",
            base_url=url,
            api_key=SECRET,
            memoize=False,
            config=GenerateConfig(max_retries=0),
        )
        if entry == "vivid run":
            spec = tmp_path / "spec.yaml"
            spec.write_text(JUDGE_SPEC.format(url=url), encoding="utf-8")
            capsys.readouterr()
            assert main(["run", str(spec), "--display", "none", "--no-report"]) == 1
            message = " ".join(capsys.readouterr().err.split())
        elif entry == "vivid audit":
            with pytest.raises(AuditError) as caught:
                run_audit(judge, probes=["partial"], limit=2, retries=0, preflight=False, display="none")
            message = str(caught.value)
        else:
            # the alias of `vivid audit --probes literal`, by its command line (its preflight passes:
            # the server lists its models, then fails every call)
            argv = ["sanity", "openai-api/fake/judge", "-M", f"base_url={url}", "-M", "max_retries=0"]
            capsys.readouterr()
            assert main([*argv, "--limit", "2"]) == 1
            message = " ".join(capsys.readouterr().err.split())

    expected = f"ModelCallError: openai-api/fake/judge: HTTP 500 from {url}/chat/completions"
    assert expected in message, message
    assert "RetryError" not in message and "Future" not in message and SECRET not in message
    assert "ModelCallError('" not in message
