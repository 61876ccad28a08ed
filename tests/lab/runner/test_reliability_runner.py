"""``vivid run`` under failure: killed mid-run, persistent provider errors, bad specs, secrets.

Runs go through the ``vivid`` command (``vivid_inspect.lab.cli.main``) with a spec whose generator and
judge are ``openai-api/fake/...`` models served by FakeOpenAIServer on 127.0.0.1. The killed run
is a real subprocess ended with SIGKILL; the other runs call ``main([...])`` in this process, which
returns the exit code the console script exits with.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import EvalLog, read_eval_log

from tests.fake_api import (
    GEN,
    JUDGE,
    default_responder,
    explain_items,
    explanation_of,
    idiom_of,
    judge_fails_for,
    serving,
)
from tests.lab.runner.test_secrets import CANARY, files_containing
from vivid_inspect.lab.cli.main import main
from vivid_inspect.testing.faults import Fault, fail_prompts
from vivid_inspect.testing.openai_server import FakeOpenAIServer

SPEC = """\
name: {name}
data: sample
log_dir: logs
runs:
  - name: explanations
    tasks: [explain]
    models:
      - model: openai-api/fake/gen
        model_args: {{base_url: "{url}"}}
    limit: {limit}
judges:
  - name: aspect
    strategy: aspect
    model: openai-api/fake/judge
    model_args: {{base_url: "{url}"}}
concurrency: {{max_connections: {connections}}}
retries: {{attempts: 0, max_retries: 0, timeout: 60}}
{extra}"""


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    """The fake provider; its dummy key is in the environment, logs and cache in ``tmp_path``."""
    with serving(tmp_path, monkeypatch) as running:
        for name, value in running.env().items():
            monkeypatch.setenv(name, value)
        yield running


def write_spec(
    folder: Path,
    server: FakeOpenAIServer,
    *,
    name: str = "faults",
    limit: int = 8,
    connections: int = 8,
    extra: str = "",
) -> Path:
    """A spec in ``folder`` (logs in ``folder/logs``): explain on the sample, judged by ``aspect``."""
    folder.mkdir(parents=True, exist_ok=True)
    spec = folder / "spec.yaml"
    text = SPEC.format(name=name, url=server.base_url, limit=limit, connections=connections, extra=extra)
    spec.write_text(text, encoding="utf-8")
    return spec


def vivid_run(spec: Path, capture: pytest.CaptureFixture[str], *flags: str) -> tuple[int, str]:
    """``vivid run SPEC`` in this process: its exit code and what it printed to stderr."""
    capture.readouterr()
    code = main(["run", str(spec), "--display", "none", *flags])
    return code, capture.readouterr().err


def single_log(folder: Path) -> EvalLog:
    """The one ``.eval`` log in ``folder``."""
    (path,) = sorted(folder.glob("*.eval"))
    return read_eval_log(str(path))


def results_of(log_dir: Path) -> tuple[dict[Any, str], dict[Any, Any], dict[str, float]]:
    """What a finished run found: explanations and judge scores per sample, and the judge's metrics."""
    judged = single_log(log_dir / "judged" / "aspect")
    assert judged.samples is not None and judged.results is not None
    # the generation log that was judged (a killed run's crashed log may lie beside it)
    generated = read_eval_log(str(log_dir / judged.eval.metadata["vivid_judge"]["generation_log"]))
    assert generated.status == "success" and generated.samples is not None
    outputs = {s.id: s.output.completion for s in generated.samples}
    scores = {s.id: (s.scores or {})["judge_aspect"].value for s in judged.samples}
    (column,) = judged.results.scores
    return outputs, scores, {name: metric.value for name, metric in column.metrics.items()}


def varied_responder(model: str, messages: list[dict[str, Any]]) -> str:
    """The default generator; a judge whose score (0-5) depends on the item."""
    prompt = str(messages[-1]["content"])
    if model == GEN:
        return default_responder(model, messages)
    return str(len(idiom_of(prompt) or "") % 6)


def requests_by(server: FakeOpenAIServer, model: str, since: float = 0.0) -> Counter[str | None]:
    """Requests of ``model`` per idiom (received at ``since`` or later, in ``time.monotonic()``)."""
    return Counter(idiom_of(r.prompt) for r in server.log if r.model == model and r.started >= since)


@pytest.mark.slow
def test_sigkill_mid_run_then_rerun_repeats_no_finished_sample(
    server: FakeOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = 12
    server.latency = {GEN: 0.3, JUDGE: 0.0}
    server.responder = varied_responder  # scores differ per item, so equal metrics mean something
    spec = write_spec(tmp_path / "killed", server, limit=items, connections=2)
    command = [
        sys.executable,
        "-m",
        "vivid_inspect.lab.cli.main",
        "run",
        str(spec),
        "--display",
        "none",
        "--no-report",
    ]
    killed = subprocess.Popen(
        command, env=os.environ.copy(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 180
        while sum(r.model == GEN and r.status == 200 for r in server.log) < items // 2:
            assert killed.poll() is None and time.monotonic() < deadline, (
                "the run ended before it could be killed"
            )
            time.sleep(0.01)
    finally:
        killed.send_signal(signal.SIGKILL)
        killed.wait()
    assert killed.returncode == -signal.SIGKILL
    # what the killed run kept: Inspect writes finished samples into the log as it goes
    (crashed,) = [
        read_eval_log(str(p)) for p in (tmp_path / "killed" / "logs" / "generations").glob("*.eval")
    ]
    assert crashed.status == "started" and crashed.samples is not None
    kept = {str(sample.input) for sample in crashed.samples}
    assert 0 < len(kept) < items

    resumed_at = time.monotonic()  # a request of the killed run may still be logged after this
    code, err = vivid_run(spec, capsys, "--no-report")

    assert code == 0, err
    asked_again = requests_by(server, GEN, since=resumed_at)
    assert not set(asked_again) & kept  # no finished sample is paid for twice
    assert set(asked_again.values()) == {1}
    # Inspect may also recover samples that finished after its last log write (its sample buffer)
    assert sum(asked_again.values()) <= items - len(kept)
    # the uninterrupted run of the same spec gives the same explanations, scores and metrics
    resumed = results_of(tmp_path / "killed" / "logs")
    reference_spec = write_spec(tmp_path / "uninterrupted", server, limit=items, connections=2)
    code, err = vivid_run(reference_spec, capsys, "--no-report")
    assert code == 0, err
    assert results_of(tmp_path / "uninterrupted" / "logs") == resumed
    assert len(resumed[0]) == items
    assert len(set(resumed[1].values())) > 1


@pytest.mark.slow
def test_persistent_failure_exits_1_and_a_rerun_completes_only_the_missing(
    server: FakeOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = explain_items()[:6]
    broken = {items[1].idiom, items[4].idiom}
    server.faults = fail_prompts(lambda prompt: idiom_of(prompt) in broken, "server_error")
    spec = write_spec(tmp_path, server, limit=len(items))

    code, err = vivid_run(spec, capsys, "--no-report")

    assert code == 1
    assert f"rerun `vivid run {spec}` to resume" in err
    (generated,) = [read_eval_log(str(p)) for p in (tmp_path / "logs" / "generations").glob("*.eval")]
    assert generated.status == "error" and generated.samples is not None
    errors = {str(s.input): s.error for s in generated.samples if s.error is not None}
    assert set(errors) == broken  # every failing item is reported, with the provider's reason
    for error in errors.values():
        assert (
            error is not None and "Error code: 500 - injected fault" in f"{error.message}\n{error.traceback}"
        )
    finished = {str(s.input) for s in generated.samples if s.error is None}
    assert finished == {item.idiom for item in items} - broken  # and every other item is done
    assert not list((tmp_path / "logs").glob("judged/*/*.eval"))  # an incomplete log is not judged

    server.reset()
    server.faults = None
    code, err = vivid_run(spec, capsys, "--no-report")

    assert code == 0, err
    asked = requests_by(server, GEN)
    assert asked == Counter(broken)
    outputs, scores, metrics = results_of(tmp_path / "logs")
    assert len(outputs) == len(scores) == len(items)
    assert metrics["mean"] == 4.0


@pytest.mark.slow
def test_one_failing_item_does_not_hold_up_the_others(
    server: FakeOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = explain_items()[:16]
    server.latency = {GEN: 0.05}
    server.faults = fail_prompts(lambda prompt: idiom_of(prompt) == items[1].idiom, "server_error")
    spec = write_spec(tmp_path, server, limit=len(items), connections=2)

    code, _ = vivid_run(spec, capsys, "--no-report")

    assert code == 1
    (generated,) = [read_eval_log(str(p)) for p in (tmp_path / "logs" / "generations").glob("*.eval")]
    assert generated.samples is not None
    assert {str(s.input) for s in generated.samples if s.error is not None} == {items[1].idiom}
    assert sum(s.error is None for s in generated.samples) == len(items) - 1


# -- bad specs ---------------------------------------------------------------------------------------


def _api_key_in_spec(good: str) -> str:
    return good.replace("model_args: {base_url", f"model_args: {{api_key: {CANARY}, base_url")


BAD_SPECS = [
    pytest.param(lambda good: "name: [unclosed\n", "spec.yaml:2: (spec): not valid YAML", id="yaml-syntax"),
    pytest.param(lambda good: "", "spec.yaml", id="empty-file"),
    pytest.param(
        lambda good: good + "colour: red\n", "colour: unknown key; expected one of", id="unknown-key"
    ),
    pytest.param(
        lambda good: good.replace("max_connections: 8", "max_connections: '8'"),
        "concurrency.max_connections: Input should be a valid integer (got '8')",
        id="wrong-type",
    ),
    pytest.param(
        lambda good: good.replace("strategy: aspect", "strategy: best"),
        "judges[0].strategy: unknown judge strategy 'best'",
        id="bad-strategy",
    ),
    pytest.param(
        lambda good: good.replace("data: sample", "data: nowhere.csv"),
        "data: file not found",
        id="missing-data-file",
    ),
    pytest.param(lambda good: good + "human: absent.csv\n", "human: file not found", id="missing-human-file"),
    pytest.param(
        _api_key_in_spec,
        "runs[0].models[0].model_args.api_key: 'api_key' names a credential",
        id="api-key-in-spec",
    ),
]


@pytest.mark.parametrize(("make", "message"), BAD_SPECS)
def test_bad_spec_exits_2_names_the_key_and_writes_nothing(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    make: Callable[[str], str],
    message: str,
) -> None:
    monkeypatch.setenv("FAKE_API_KEY", "fake-key")
    good = SPEC.format(name="bad", url="http://127.0.0.1:9/v1", limit=2, connections=8, extra="")
    spec = tmp_path / "spec.yaml"
    spec.write_text(make(good), encoding="utf-8")

    code, err = vivid_run(spec, capsys)

    assert code == 2
    assert message in err and str(spec) in err
    assert "Nothing was run." in err
    assert CANARY not in err
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["spec.yaml"]


H = (
    "Idiom_Proverb,Meaning,"
    + ",".join(f"Linguistic_Complexity_Taxonomy_{n}" for n in range(1, 6))
    + ",Semantic_Theme"
)


def _bad_data_spec(tmp_path: Path, server: FakeOpenAIServer) -> Path:
    (tmp_path / "items.csv").write_text(
        f"{H}\nNước đổ đầu vịt,Nói mãi chẳng nghe,0,0,0,0,1,9\n", encoding="utf-8"
    )
    spec = write_spec(tmp_path, server)
    spec.write_text(spec.read_text().replace("data: sample", "data: items.csv"))
    return spec


def test_bad_data_file_exits_2_names_the_row_calls_nothing_and_writes_nothing(
    server: FakeOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = vivid_run(_bad_data_spec(tmp_path, server), capsys)

    assert code == 2
    assert f"{tmp_path / 'items.csv'}: 1 problem(s) in the data file" in err
    assert "row 1 (line 2), column Semantic_Theme: '9' is not a theme code 1-7" in err
    assert server.model_counts == {}
    assert not (tmp_path / "logs").exists()


def test_bad_human_scores_file_exits_2_before_any_call(
    server: FakeOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "humans.csv").write_text("id,score\n1,9\n", encoding="utf-8")
    spec = write_spec(tmp_path, server, limit=2, extra="human: humans.csv\n")

    code, err = vivid_run(spec, capsys)

    assert code == 2
    assert f"{tmp_path / 'humans.csv'}" in err and "data row 1 (line 2), column 'score'" in err
    assert server.model_counts == {}
    assert not (tmp_path / "logs").exists()


# -- secrets -----------------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_full_vivid_run_writes_the_key_nowhere(
    server: FakeOpenAIServer,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FAKE_API_KEY", CANARY)
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    items = explain_items()[:4]
    server.faults = fail_prompts(lambda prompt: idiom_of(prompt) == items[0].idiom, "server_error")
    spec = write_spec(tmp_path, server, name="secrets", limit=len(items))

    code, err = vivid_run(spec, capfd, "--no-report")  # a failed sample: its error is written to the log
    assert code == 1
    server.faults = None
    code, err_rerun = vivid_run(spec, capfd)  # then the rest, and the report

    assert code == 0, err_rerun
    written = {p.relative_to(tmp_path).parts[:2] for p in (tmp_path / "logs").rglob("*") if p.is_file()}
    # logs, judged logs, the spec copy and package freeze, the report
    assert {("logs", "generations"), ("logs", "judged"), ("logs", "vivid"), ("logs", "report")} <= written
    assert files_containing(tmp_path, CANARY) == []
    out, more_err = capfd.readouterr()
    assert CANARY not in err + err_rerun + out + more_err


@pytest.mark.slow
def test_judge_failure_keeps_generations_and_a_rerun_calls_only_the_missing_judgements(
    server: FakeOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = explain_items()[:6]
    judge_down = {items[0].idiom, items[3].idiom}
    # the failing judge calls end last (a reply slower than the client's timeout), after every other
    server.faults = judge_fails_for(judge_down, lambda: Fault("slow", delay=5.0))
    spec = write_spec(tmp_path, server, limit=len(items))
    spec.write_text(
        spec.read_text().replace('model_args: {base_url: "', 'model_args: {client_timeout: 1, base_url: "')
    )

    code, err = vivid_run(spec, capsys, "--no-report")

    assert code == 1
    assert "aspect failed" in err
    (generated,) = [read_eval_log(str(p)) for p in (tmp_path / "logs" / "generations").glob("*.eval")]
    assert generated.status == "success" and generated.samples is not None
    assert {s.output.completion for s in generated.samples} == {explanation_of(item.idiom) for item in items}
    answered = {
        idiom_of(r.prompt) for r in server.log if r.model == JUDGE and r.status == 200 and not r.fault
    }
    assert answered == {item.idiom for item in items} - judge_down

    resumed_at = time.monotonic()
    server.faults = None
    code, err = vivid_run(spec, capsys, "--no-report")

    assert code == 0, err
    assert requests_by(server, GEN, since=resumed_at) == Counter()
    assert requests_by(server, JUDGE, since=resumed_at) == Counter(judge_down)
    _, scores, _ = results_of(tmp_path / "logs")
    assert set(scores.values()) == {4} and len(scores) == len(items)
