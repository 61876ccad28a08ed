"""``vivid run`` checks every model endpoint with one request before it generates anything.

A closed port, a wrong key (401), a wrong route (404) or a model the server does not serve is
reported per model at its YAML path with the URL, nothing is run and the exit code is 1, within
seconds. A finished spec sends no request at all; ``--no-preflight`` skips the check; ``vivid
plan`` says what will be checked. Every endpoint is on 127.0.0.1: a closed port or FakeOpenAIServer.
"""

from __future__ import annotations

import json
import re
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from tests.fake_api import default_responder, isolate_inspect
from tests.test_fail_fast import SECRET, closed_port
from vivid_inspect.endpoints import Probe
from vivid_inspect.lab.cli.main import main
from vivid_inspect.lab.runner.prepare.preflight import Target, probe_for
from vivid_inspect.testing.openai_server import FakeOpenAIServer
from vivid_inspect.text import printable

KEY = "fake-key"
WALL = 120  # generous: a check takes seconds; an unchecked dead endpoint took minutes

SPEC = """\
name: preflight
data: sample
log_dir: logs
runs:
  - tasks: [explain]
    models:
      - model: openai-api/fake/{generator}
        model_args: {{base_url: "{url}"}}
    limit: 2
judges:
  - name: aspect
    strategy: aspect
    model: openai-api/fake/{judge}
    model_args: {{base_url: "{judge_url}"}}
retries: {{attempts: 0, max_retries: 0}}
"""


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    """A server that wants ``KEY``; the environment holds it unless a test changes it."""
    isolate_inspect(tmp_path, monkeypatch)
    monkeypatch.setenv("FAKE_API_KEY", KEY)
    with FakeOpenAIServer(responder=default_responder, api_key=KEY) as running:
        yield running


def write_spec(
    folder: Path, url: str, *, generator: str = "gen", judge: str = "judge", judge_url: str | None = None
) -> Path:
    spec = folder / "spec.yaml"
    text = SPEC.format(url=url, generator=generator, judge=judge, judge_url=judge_url or url)
    spec.write_text(text, encoding="utf-8")
    return spec


def vivid(capture: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str, float]:
    """``vivid ARGS`` in this process: exit code, stdout, stderr and seconds taken."""
    capture.readouterr()
    started = time.monotonic()
    code = main(list(args))
    elapsed = time.monotonic() - started
    out, err = capture.readouterr()
    return code, out, err, elapsed


def run(spec: Path, capture: pytest.CaptureFixture[str], *flags: str) -> tuple[int, str, float]:
    code, _, err, elapsed = vivid(capture, "run", str(spec), "--display", "none", "--no-report", *flags)
    return code, " ".join(err.split()), elapsed


def test_closed_port_is_reported_per_model_and_nothing_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    isolate_inspect(tmp_path, monkeypatch)
    monkeypatch.setenv("FAKE_API_KEY", SECRET)
    url = f"http://127.0.0.1:{closed_port()}/v1"
    spec = write_spec(tmp_path, url)

    code, err, elapsed = run(spec, capsys)

    assert code == 1 and elapsed < WALL
    assert "2 model endpoint checks failed" in err
    refused = f"no connection to {url}/models (Connection refused)"
    assert f"runs[0].models[0]: openai-api/fake/gen: {refused}" in err
    assert f"judges[0]: openai-api/fake/judge: {refused}" in err
    assert "Nothing was run." in err and SECRET not in err
    assert not (tmp_path / "logs").exists()


def test_wrong_key_is_a_401_at_preflight_with_no_model_call(
    server: FakeOpenAIServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FAKE_API_KEY", SECRET)  # not the key the server wants
    spec = write_spec(tmp_path, server.base_url)

    code, err, elapsed = run(spec, capsys)

    assert code == 1 and elapsed < WALL
    message = f"HTTP 401 from {server.base_url}/models: Incorrect API key provided. (check the API key"
    assert f"runs[0].models[0]: openai-api/fake/gen: {message}" in err
    assert f"judges[0]: openai-api/fake/judge: {message}" in err
    assert "Nothing was run." in err and SECRET not in err
    assert server.get_counts == {"/v1/models": 1}  # one request for the endpoint both models share
    assert server.model_counts == {}
    assert not (tmp_path / "logs").exists()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("generator", "judge", "path", "expected"),
    [
        pytest.param(
            "gpt-4o-typo",
            "judge",
            "runs[0].models[0]",
            "openai-api/fake/gpt-4o-typo: model 'gpt-4o-typo' not found: {url}/models lists gen, judge",
            id="unknown-generator",
        ),
        pytest.param(
            "gen",
            "judgee",
            "judges[0]",
            "openai-api/fake/judgee: model 'judgee' not found: {url}/models lists gen, judge",
            id="unknown-judge",
        ),
    ],
)
def test_a_model_the_server_does_not_serve_is_a_404_at_preflight(
    server: FakeOpenAIServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    generator: str,
    judge: str,
    path: str,
    expected: str,
) -> None:
    spec = write_spec(tmp_path, server.base_url, generator=generator, judge=judge)

    code, err, elapsed = run(spec, capsys)

    assert code == 1 and elapsed < WALL
    assert f"{path}: {expected.format(url=server.base_url)}" in err
    assert "1 model endpoint failed its check" in err and "Nothing was run." in err
    assert server.model_counts == {}


def test_a_base_url_without_v1_is_a_404_route_at_preflight(
    server: FakeOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = server.base_url.removesuffix("/v1")
    spec = write_spec(tmp_path, root, judge_url=server.base_url)

    code, err, _ = run(spec, capsys)

    assert code == 1
    assert f"runs[0].models[0]: openai-api/fake/gen: HTTP 404 from {root}/models" in err
    assert "is base_url right? It usually ends in /v1" in err
    assert "judges[0]" not in err  # the judge's endpoint answered


@pytest.mark.slow
def test_healthy_endpoints_are_asked_once_then_a_finished_spec_asks_nothing(
    server: FakeOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = write_spec(tmp_path, server.base_url)

    code, err, _ = run(spec, capsys)

    assert code == 0, err
    assert server.get_counts == {"/v1/models": 1}  # generator and judge share the endpoint
    assert server.model_counts == {"gen": 2, "judge": 2}

    server.reset()
    code, err, _ = run(spec, capsys)

    assert code == 0, err
    assert server.get_counts == {} and server.model_counts == {}  # nothing left: no request at all


@pytest.mark.slow
def test_no_preflight_skips_the_check(
    server: FakeOpenAIServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FAKE_API_KEY", SECRET)
    spec = write_spec(tmp_path, server.base_url)

    code, err, _ = run(spec, capsys, "--no-preflight")

    assert code == 1  # the generation calls fail instead, each with the provider's reason
    assert server.get_counts == {}
    assert "endpoint check" not in err
    assert f"HTTP 401 from {server.base_url}/chat/completions: Incorrect API key provided." in err


@pytest.mark.slow
def test_offline_models_need_no_request(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "name: offline\ndata: sample\nlog_dir: logs\n"
        "runs:\n  - tasks: [explain]\n    models: [vivid/literal]\n    limit: 2\n"
        "judges:\n  - {name: lexical, strategy: lexical}\n",
        encoding="utf-8",
    )

    code, err, _ = run(spec, capsys)

    assert code == 0, err
    assert "preflight" not in err


def test_plan_says_which_endpoints_a_run_checks(
    server: FakeOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = write_spec(tmp_path, server.base_url)

    code, out, _, _ = vivid(capsys, "plan", str(spec))

    assert code == 0
    assert "Preflight (vivid run checks these endpoints before generating)" in out
    assert "openai-api/fake/gen (generation): one request (a model listing) to its endpoint" in out
    assert "openai-api/fake/judge (judge): one request" in out and "--no-preflight" in out
    assert server.get_counts == {} and server.model_counts == {}  # a plan sends nothing


def test_a_dns_failure_is_reported_at_preflight(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    isolate_inspect(tmp_path, monkeypatch)
    monkeypatch.setenv("FAKE_API_KEY", KEY)
    real = socket.getaddrinfo

    def no_such_host(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host == "no-such-host.invalid":  # never sent to a resolver: the lookup fails here
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", no_such_host)
    spec = write_spec(
        tmp_path, "http://no-such-host.invalid/v1", judge_url=f"http://127.0.0.1:{closed_port()}/v1"
    )

    code, err, elapsed = run(spec, capsys)

    assert code == 1 and elapsed < WALL
    assert (
        "runs[0].models[0]: openai-api/fake/gen: no connection to http://no-such-host.invalid/v1/models "
        "(DNS lookup failed: Name or service not known)"
    ) in err
    assert "judges[0]: openai-api/fake/judge: no connection to" in err


class _Api:
    """The parts of a provider that the preflight reads, for providers the tests cannot create."""

    def __init__(self, api_key: str | None = None) -> None:
        self.api_key = api_key
        self.model_name = "m"


class _Model:
    def __init__(self) -> None:
        self.api = _Api("k")


@pytest.mark.parametrize(
    ("name", "base_url", "expected"),
    [
        pytest.param("mockllm/model", None, None, id="offline-mockllm"),
        pytest.param("vivid/oracle", None, None, id="offline-baseline"),
        pytest.param("hf/Qwen/Qwen3-8B", None, "runs on this machine", id="hf-in-process"),
        pytest.param("vllm/Qwen/Qwen3-8B", None, "runs on this machine", id="vllm-started-by-inspect"),
        pytest.param(
            "vllm/Qwen/Qwen3-8B", "http://gpu:8000/v1", "http://gpu:8000/v1/models", id="vllm-server"
        ),
        pytest.param("google/gemini-2.5-pro", None, "no cheap request for provider 'google'", id="other"),
    ],
)
def test_each_provider_is_checked_as_far_as_it_can_be(
    name: str, base_url: str | None, expected: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VLLM_BASE_URL", raising=False)
    target = Target(("runs", 0, "models", 0), name, cast(Any, _Model()), base_url)

    probe = probe_for(target)

    if expected is None:
        assert probe is None
    elif isinstance(probe, Probe):
        assert probe.url == expected and ("Authorization", "Bearer k") in probe.headers
    else:
        assert probe is not None and expected in probe


@pytest.mark.slow
def test_plan_of_a_finished_spec_says_no_check_is_needed(
    server: FakeOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = write_spec(tmp_path, server.base_url)
    code, err, _ = run(spec, capsys)
    assert code == 0, err

    code, out, _, _ = vivid(capsys, "plan", str(spec))

    assert code == 0
    assert "none: no cell still to run calls a model endpoint" in out


@pytest.mark.slow
def test_a_judge_left_only_with_its_audit_is_checked_before_the_audit_runs(
    server: FakeOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeOpenAIServer(responder=default_responder, api_key=KEY) as judge_server:
        judge_url = judge_server.base_url
        spec = write_spec(tmp_path, server.base_url, judge_url=judge_url)
        code, err, _ = run(spec, capsys)
        assert code == 0, err
    # The judge's endpoint is gone. The generation and judge cells are done; only the audit added
    # now has calls to make, all to that endpoint.
    spec.write_text(
        spec.read_text(encoding="utf-8") + "audits:\n  - {judge: aspect, probes: [partial], limit: 2}\n",
        encoding="utf-8",
    )

    code, err, elapsed = run(spec, capsys)

    assert code == 1 and elapsed < WALL
    assert f"judges[0]: openai-api/fake/judge: no connection to {judge_url}/models" in err
    assert "Nothing was run." in err
    assert not (tmp_path / "logs" / "audits").exists()


@pytest.mark.slow
def test_a_failing_or_silent_server_stops_the_run_within_the_specs_attempt_timeout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.dead_endpoints import SilentServer, StatusServer

    isolate_inspect(tmp_path, monkeypatch)
    monkeypatch.setenv("FAKE_API_KEY", KEY)
    with StatusServer(500, "upstream [db] down") as failing, SilentServer() as silent:
        spec = write_spec(tmp_path, failing.base_url, judge_url=silent.base_url)
        spec.write_text(
            spec.read_text(encoding="utf-8").replace(
                "retries: {attempts: 0, max_retries: 0}",
                "retries: {attempts: 0, max_retries: 0, attempt_timeout: 2}",
            ),
            encoding="utf-8",
        )

        code, err, elapsed = run(spec, capsys)

    assert code == 1 and elapsed < WALL
    assert (
        f"runs[0].models[0]: openai-api/fake/gen: HTTP 500 from {failing.base_url}/models: upstream [db] down "
        "(the server is failing)"
    ) in err
    assert f"judges[0]: openai-api/fake/judge: no answer from {silent.base_url}/models within 2 s" in err
    assert "Nothing was run." in err
    assert failing.requests == ["GET /v1/models"]
    assert not (tmp_path / "logs").exists()


UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e]")
HOSTILE_NAMES = {
    "ansi-and-newline": "gen\x1b[2J\x1b[31m\nTOTAL $0.00",
    "carriage-return": "gen\rjudge",
    "bell-and-backspace": "gen\x07\x08\x08",
    "c1-csi": "gen\x9b2J",
    "bidi-override": "gen\u202etxt.exe",
    "line-separator": "gen\u2028forged line",
}


@pytest.mark.parametrize("name", list(HOSTILE_NAMES))
def test_vivid_plan_prints_a_hostile_model_name_escaped_on_one_line(
    name: str, server: FakeOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile = HOSTILE_NAMES[name]
    spec = write_spec(tmp_path, server.base_url, generator="HOSTILE")
    quoted = json.dumps(f"openai-api/fake/{hostile}")  # a YAML double-quoted string with its escapes
    spec.write_text(
        spec.read_text(encoding="utf-8").replace("openai-api/fake/HOSTILE", quoted), encoding="utf-8"
    )

    code, out, err, _ = vivid(capsys, "plan", str(spec))

    assert code == 0, err
    shown = hostile.encode("unicode_escape").decode("ascii")
    assert f"openai-api/fake/{shown}" in out
    assert not UNPRINTABLE.search(out.replace("\n", "")) and not UNPRINTABLE.search(err.replace("\n", ""))
    assert "TOTAL $0.00" not in out.splitlines()[-1] and not any(
        line.startswith(("TOTAL", "judge", "forged")) for line in out.splitlines()
    )


@pytest.mark.parametrize("name", list(HOSTILE_NAMES))
def test_progress_lines_print_a_hostile_name_escaped(name: str) -> None:
    from io import StringIO

    from rich.console import Console

    from vivid_inspect.lab.runner.progress import Progress

    sink = StringIO()
    progress = Progress(console=Console(file=sink, highlight=False, soft_wrap=True, color_system=None))
    progress.note(f"generating openai-api/fake/{HOSTILE_NAMES[name]}")
    progress.error(f"openai-api/fake/{HOSTILE_NAMES[name]} failed")
    printed = sink.getvalue()
    assert len(printed.strip().splitlines()) == 2, printed
    assert not UNPRINTABLE.search(printed.replace("\n", "")) and not UNPRINTABLE.search(progress.messages[0])


def test_printable_keeps_vietnamese_and_escapes_only_what_a_terminal_acts_on() -> None:
    assert printable("Đầu voi đuôi chuột — 100% ✓") == "Đầu voi đuôi chuột — 100% ✓"
    assert printable("a\x1b[0mb\nc\td\x00\x7f\u200b") == "a\\x1b[0mb\\nc\\td\\x00\\x7f\\u200b"


@pytest.mark.parametrize("name", list(HOSTILE_NAMES))
def test_vivid_report_prints_names_from_the_logs_escaped_and_keeps_its_own_lines(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import vivid_inspect.lab.report.build as build

    cell = HOSTILE_NAMES[name].replace("\n", " ")  # as the markdown tables write a cell's line break
    markdown = f"# VIVID report\n\n| model |\n| --- |\n| openai-api/fake/{cell} |\n"
    monkeypatch.setattr(build, "write_report", lambda *args, **kwargs: build.Report(markdown=markdown))

    code, out, _, _ = vivid(capsys, "report", str(tmp_path))

    assert code == 0
    assert not UNPRINTABLE.search(out.replace("\n", ""))
    assert out.splitlines()[:4] == markdown.splitlines()[:4] and len(out.splitlines()) == 5
