"""Plain ``inspect eval`` that cannot work stops in a few readable lines, before anything is generated.

Each case runs the real ``inspect eval`` CLI as a user types it, with Inspect's real defaults (no
retry or timeout flag unless the case is about one): a judge without a key, a dead judge or
generator endpoint in each of its shapes (closed port, HTTP 401, 404, 500, no answer, a model the
server does not list), a misspelt ``vivid/*`` model or argument, a baseline without the task's
data, a vivid model in the wrong role. Each prints at most 5 lines, no traceback, the fix in the
message, exits 1, writes no log and sends no generation request. The cases that need no judge
endpoint (``-T judge=none``, ``lexical``, the offline grader) run to the end without a key.

Each command runs in a process of its own, forked from one that has already imported Inspect's
command line (``tests/prewarmed.py``: ~1.4 s of CPU less per case, and tests/test_prewarmed.py shows
that such a run prints and exits as a fresh ``inspect`` does). They run a few at a time; each case
then checks its own output. The endpoints are on 127.0.0.1 (``tests/dead_endpoints.py``,
FakeOpenAIServer).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

from tests import prewarmed
from tests.dead_endpoints import SilentServer, StatusServer, closed_port
from vivid_inspect.endpoints import READ_TIMEOUT
from vivid_inspect.testing.openai_server import FakeOpenAIServer

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "data"
KEY = "fake-key"
WRONG_KEY = "sk-first-contact-canary-0123456789"
MAX_LINES = 5
AT_ONCE = 5  # subprocesses running together: each holds Inspect in memory
PAID_API_KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "AZUREAI_OPENAI_API_KEY")
STATUS_MESSAGE = "injected failure, see [https://status.example/incident]"  # a bracketed URL rich would drop

ORACLE = ("--model", "vivid/oracle", "-M", "data=sample")
EXPLAIN = ("vivid_inspect/explain", "-T", "data=sample", "--limit", "2")
TOPIC = ("vivid_inspect/topic", "-T", "data=sample", "--limit", "2")
GRADER = ("--model-role", "grader=openai-api/fake/judge")
GEN = ("--model", "openai-api/fake/gen")
CHOOSE_JUDGE = (
    "choose the judge: --model-role grader=MODEL (offline: vivid/chrf), or -T judge=none to generate only"
)


@dataclass(frozen=True)
class Case:
    """One ``inspect eval`` command line; ``{name}`` placeholders are the endpoints' URLs."""

    args: tuple[str, ...]
    expected: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()
    absent: tuple[str, ...] = ()
    ok: bool = False  # runs to the end: exit 0 and a successful log


def fill(text: str, urls: dict[str, str]) -> str:
    """``text`` with each ``{name}`` of an endpoint replaced by its URL (other braces kept)."""
    for name, url in urls.items():
        text = text.replace(f"{{{name}}}", url)
    return text


def dead(url: str) -> tuple[tuple[str, str], ...]:
    return (("FAKE_BASE_URL", url),)


CASES: dict[str, Case] = {
    # -- the judge: no key -------------------------------------------------------------------
    "no-key/default-judge": Case(
        (*EXPLAIN, *ORACLE),
        (
            "explain: the judge openai/gpt-4.1 (the default: no --model-role grader given) cannot be created: "
            "No OPENAI_API_KEY",
            f"Nothing was generated. Set its key or install its package, or {CHOOSE_JUDGE}.",
        ),
        absent=("[bold]",),
    ),
    # -- the judge: a dead endpoint, in each shape ---------------------------------------------
    "judge/closed-port": Case(
        (*EXPLAIN, *ORACLE, *GRADER),
        (
            "explain: the judge openai-api/fake/judge (--model-role grader) failed its endpoint check: "
            "no connection to {closed}/models (Connection refused).",
            f"Nothing was generated. Fix the judge's server, URL or key, or {CHOOSE_JUDGE}.",
        ),
        env=dead("{closed}"),
        absent=("VIVID_PREFLIGHT",),  # the check is right: turning it off would not help
    ),
    "judge/http-401": Case(
        (*EXPLAIN, *ORACLE, *GRADER),
        ("failed its endpoint check: HTTP 401 from {fake}/models: Incorrect API key provided.",),
        env=(("FAKE_API_KEY", WRONG_KEY),),
        absent=(WRONG_KEY,),
    ),
    "judge/http-404": Case(
        (*EXPLAIN, *ORACLE, *GRADER),
        (
            "failed its endpoint check: HTTP 404 from {fake_root}/models",
            "It usually ends in /v1",
            "(VIVID_PREFLIGHT=0 skips this check.)",  # a server may serve chat calls and no listing
        ),
        env=dead("{fake_root}"),
    ),
    "judge/http-500": Case(
        (*EXPLAIN, *ORACLE, *GRADER),
        (
            f"failed its endpoint check: HTTP 500 from {{status}}/models: {STATUS_MESSAGE} (the server is failing)",
        ),
        env=dead("{status}"),
    ),
    "judge/no-answer": Case(
        (*EXPLAIN, *ORACLE, *GRADER),
        (f"failed its endpoint check: no answer from {{silent}}/models within {READ_TIMEOUT:g} s",),
        env=dead("{silent}"),
    ),
    "judge/no-answer-within-the-timeout-flag": Case(
        (*EXPLAIN, *ORACLE, *GRADER, "--timeout", "2"),
        ("failed its endpoint check: no answer from {silent}/models within 2 s",),
        env=dead("{silent}"),
    ),
    # -- the model under test ------------------------------------------------------------------
    "generator/closed-port": Case(
        (*TOPIC, *GEN),
        (
            "topic: the model openai-api/fake/gen (--model) failed its endpoint check: no connection to "
            "{closed}/models (Connection refused).",
            "Nothing was generated. Fix the model's server, URL or key.",
        ),
        env=dead("{closed}"),
    ),
    # -- vivid/* names, arguments and data -----------------------------------------------------
    "typo/model": Case(
        (*EXPLAIN, "--model", "vivid/oracel", "-M", "data=sample"),
        ("unknown vivid model 'vivid/oracel'; did you mean vivid/oracle?", "--model-role grader=vivid/chrf"),
    ),
    "typo/grader-role": Case(
        (*EXPLAIN, *ORACLE, "--model-role", "grader=vivid/chrff"),
        ("unknown vivid model 'vivid/chrff'; did you mean vivid/chrf?",),
    ),
    "data/no-model-data": Case(
        (*TOPIC, "--model", "vivid/oracle"),
        (
            "vivid/oracle: no -M data was given, so it answers from hf",
            "Give the model the task's data: -M data=sample beside -T data=sample",
        ),
        absent=("Choose the data with the task parameter",),
    ),
    "data/model-data-is-not-the-tasks": Case(
        ("vivid_inspect/traits", "-T", f"data={FIXTURES / 'good.csv'}", *ORACLE),
        (
            "traits: the model vivid/oracle (--model) answers from vivid_inspect sample",
            "which lacks 6 of the task's 6 items",
            f"Give the model the task's data: -M data={FIXTURES / 'good.csv'}.",
        ),
    ),
    # -- no judge endpoint needed: these run, with no key anywhere -------------------------------
    "ok/judge-none": Case((*EXPLAIN, *ORACLE, "-T", "judge=none"), (), ok=True),
}


@dataclass(frozen=True)
class Result:
    returncode: int
    output: str
    seconds: float
    logs: list[str]
    urls: dict[str, str]


@pytest.fixture(scope="module")
def endpoints() -> Iterator[tuple[dict[str, str], FakeOpenAIServer, StatusServer]]:
    with (
        FakeOpenAIServer(api_key=KEY) as fake,
        StatusServer(500, STATUS_MESSAGE) as status,
        SilentServer() as silent,
    ):
        urls = {
            "closed": f"http://127.0.0.1:{closed_port()}/v1",
            "fake": fake.base_url,
            "fake_root": fake.base_url.removesuffix("/v1"),
            "status": status.base_url,
            "silent": silent.base_url,
        }
        yield urls, fake, status


@pytest.fixture(scope="module")
def results(
    endpoints: tuple[dict[str, str], FakeOpenAIServer, StatusServer], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Result]:
    urls, _, _ = endpoints
    inspect = Path(sys.executable).with_name("inspect")
    base = {
        key: value for key, value in os.environ.items() if key not in PAID_API_KEYS and key != "VIVID_DATA"
    }
    folders = {name: tmp_path_factory.mktemp(name.replace("/", "-")) for name in CASES}  # not thread-safe

    def run(name: str) -> Result:
        case, tmp = CASES[name], folders[name]
        env = {
            **base,
            "COLUMNS": "200",
            "FAKE_API_KEY": KEY,
            "FAKE_BASE_URL": urls["fake"],
            "HF_ENDPOINT": urls["closed"],  # the default data cannot be downloaded: no network
            "VIVID_CACHE_DIR": str(tmp / "cache"),
            "INSPECT_CACHE_DIR": str(tmp / "inspect-cache"),
            **{key: fill(value, urls) for key, value in case.env},
        }
        command = [
            str(inspect),
            "eval",
            *(fill(arg, urls) for arg in case.args),
            "--log-dir",
            str(tmp / "logs"),
        ]
        started = time.monotonic()
        done = prewarmed.run(command, cwd=tmp, env=env, timeout=240)
        seconds = time.monotonic() - started
        logs = [info.name for info in list_eval_logs(str(tmp / "logs"))] if (tmp / "logs").exists() else []
        return Result(done.returncode, done.stdout + done.stderr, seconds, logs, urls)

    with ThreadPoolExecutor(AT_ONCE) as pool:
        return dict(zip(CASES, pool.map(run, CASES), strict=True))


FAILING = [name for name, case in CASES.items() if not case.ok]


@pytest.mark.slow
@pytest.mark.parametrize("name", FAILING)
def test_a_command_that_cannot_work_stops_in_a_few_lines_before_generating(
    results: dict[str, Result], name: str
) -> None:
    case, result = CASES[name], results[name]
    lines = [line for line in result.output.splitlines() if line.strip()]

    assert result.returncode == 1, result.output
    assert "Traceback" not in result.output and "╭" not in result.output, result.output
    assert len(lines) <= MAX_LINES, result.output
    flat = " ".join(result.output.split())  # rich wraps long lines at the terminal's width
    for expected in case.expected:
        assert " ".join(fill(expected, result.urls).split()) in flat, result.output
    for absent in case.absent:
        assert absent not in result.output, result.output
    assert result.logs == []  # no task started: nothing was generated, no log to clean up


@pytest.mark.slow
def test_no_generation_request_reached_any_endpoint(
    results: dict[str, Result], endpoints: tuple[dict[str, str], FakeOpenAIServer, StatusServer]
) -> None:
    _, fake, status = endpoints
    assert fake.model_counts == {}  # only model listings (GET /v1/models), never a chat completion
    assert set(fake.get_counts) <= {"/v1/models", "/models"}
    assert all(request.startswith("GET ") for request in status.requests), status.requests


@pytest.mark.slow
@pytest.mark.parametrize("name", [name for name, case in CASES.items() if case.ok])
def test_a_task_that_calls_no_judge_endpoint_runs_without_a_key(
    results: dict[str, Result], name: str
) -> None:
    result = results[name]
    assert result.returncode == 0, result.output
    assert "Traceback" not in result.output, result.output
    (log,) = result.logs
    header = read_eval_log(log, header_only=True)
    assert header.status == "success", header.error
