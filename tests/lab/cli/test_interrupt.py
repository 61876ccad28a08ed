"""Ctrl-C exits 130 with one line saying what was kept and how to go on; a rerun repeats no finished call.

On Ctrl-C Inspect cancels the samples in flight and returns its logs as ``cancelled`` without
raising, so ``vivid run`` went on to judge and report and ended with exit 1 and a raw
``CancelledError`` line. Each case here is a real ``vivid`` process sent SIGINT while the local
test server holds a reply (some items answer at once, one waits until the test lets it go).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fake_api import GEN, JUDGE, explain_items, explanation_of, idiom_of, is_judge_prompt
from vivid_inspect.lab.cli.main import main
from vivid_inspect.lab.interrupt import INCOMPLETE, marked_incomplete
from vivid_inspect.testing.openai_server import FakeOpenAIServer

ITEMS = 4
SPEC = """\
name: interrupted
data: sample
log_dir: logs
runs:
  - tasks: [explain]
    models:
      - model: openai-api/fake/gen
        model_args: {{base_url: "{url}"}}
    limit: {items}
judges:
  - name: aspect
    strategy: aspect
    model: openai-api/fake/judge
    model_args: {{base_url: "{url}"}}
concurrency: {{max_connections: 8}}
retries: {{attempts: 0, max_retries: 0, timeout: 600}}
"""


class Held:
    """A responder that answers at once except for one idiom (or every judgement), held until released."""

    def __init__(self, hold: Callable[[str, str], bool]) -> None:
        self.hold = hold
        self.release = threading.Event()
        self.holding = threading.Event()

    def __call__(self, model: str, messages: list[dict[str, Any]]) -> str:
        prompt = str(messages[-1]["content"])
        if self.hold(model, prompt) and not self.release.is_set():
            self.holding.set()
            self.release.wait(120)
        if model == JUDGE or is_judge_prompt(prompt):
            return "Điểm: 4"
        return explanation_of(idiom_of(prompt) or "")


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("FAKE_API_KEY", "fake-key")
    yield tmp_path


def _start(argv: list[str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "vivid_inspect.lab.cli.main", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        env={**os.environ, "COLUMNS": "200"},
    )


def _interrupt(process: subprocess.Popen[str], ready: Callable[[], bool]) -> tuple[int, str]:
    """Send SIGINT once ``ready()``; the exit code and stderr."""
    deadline = time.monotonic() + 180
    while not ready():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the run never reached the held reply"
        time.sleep(0.05)
    time.sleep(0.5)  # the finished replies reach their samples
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    return process.returncode, err


def _the_line(err: str, start: str) -> str:
    lines = [line for line in err.splitlines() if line.startswith(start)]
    assert len(lines) == 1, err
    assert "CancelledError" not in err and "Traceback" not in err and "KeyboardInterrupt" not in err, err
    return lines[0]


@pytest.mark.slow
def test_ctrl_c_while_generating_exits_130_saying_what_was_kept_and_a_rerun_asks_only_the_rest(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    held_idiom = explain_items()[ITEMS - 1].idiom
    responder = Held(lambda model, prompt: model == GEN and idiom_of(prompt) == held_idiom)
    with FakeOpenAIServer(responder=responder) as server:
        spec = isolated / "spec.yaml"
        spec.write_text(SPEC.format(url=server.base_url, items=ITEMS), encoding="utf-8")
        process = _start(["run", str(spec), "--display", "none", "--no-preflight"], isolated)

        def ready() -> bool:
            answered = sum(r.model == GEN and r.status == 200 for r in server.log)
            return responder.holding.is_set() and answered == ITEMS - 1

        code, err = _interrupt(process, ready)
        responder.release.set()
        line = _the_line(err, "vivid run: interrupted")
        assert code == 130, err
        assert "while generating runs[0]: 1 log interrupted, keeping 3 finished samples" in line
        assert f"`vivid run {spec}` resumes, repeating only the calls that were in flight" in line
        assert not (isolated / "logs" / "judged").exists()  # it stopped: nothing was judged
        assert not (isolated / "logs" / "report").exists()

        resumed = time.monotonic()
        capsys.readouterr()
        assert main(["run", str(spec), "--display", "none", "--no-report"]) == 0
        asked = Counter(idiom_of(r.prompt) for r in server.log if r.model == GEN and r.started >= resumed)
    assert asked == {held_idiom: 1}  # only the reply that was in flight is asked again


@pytest.mark.slow
def test_ctrl_c_while_judging_exits_130_and_keeps_the_generations(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    responder = Held(lambda model, prompt: model == JUDGE)
    with FakeOpenAIServer(responder=responder) as server:
        spec = isolated / "spec.yaml"
        spec.write_text(SPEC.format(url=server.base_url, items=ITEMS), encoding="utf-8")
        process = _start(["run", str(spec), "--display", "none", "--no-preflight"], isolated)
        code, err = _interrupt(process, responder.holding.is_set)
        responder.release.set()
        line = _the_line(err, "vivid run: interrupted")
        assert code == 130, err
        assert f"`vivid run {spec}` resumes" in line

        resumed = time.monotonic()
        assert main(["run", str(spec), "--display", "none", "--no-report"]) == 0
        asked = Counter(r.model for r in server.log if r.started >= resumed)
    assert asked == {JUDGE: ITEMS}  # the generations were kept; only the judge is asked


@pytest.mark.slow
def test_ctrl_c_during_vivid_audit_exits_130_saying_what_was_kept(isolated: Path) -> None:
    responder = Held(lambda model, prompt: model == JUDGE and idiom_of(prompt) == explain_items()[2].idiom)
    with FakeOpenAIServer(responder=responder) as server:
        argv = [
            "audit",
            "openai-api/fake/judge",
            "--model-arg",
            f"base_url={server.base_url}",
            "--limit",
            "3",
            "--probes",
            "wrong",
            "--log-dir",
            str(isolated / "audit-logs"),
            "--out",
            str(isolated / "card"),
        ]
        process = _start(argv, isolated)
        code, err = _interrupt(process, responder.holding.is_set)
        responder.release.set()
    line = _the_line(err, "vivid audit: interrupted")
    assert code == 130, err
    assert "while auditing openai-api/fake/judge:" in line and "finished judgement" in line
    assert "replaying the judge replies Inspect cached" in line
    assert not (isolated / "card").exists()


def test_ctrl_c_in_any_other_command_is_130_and_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import vivid_inspect.lab.report.build as build

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(build, "write_report", interrupted)
    assert main(["report", str(tmp_path)]) == 130
    err = capsys.readouterr().err.strip()
    assert (
        err == f"vivid report: interrupted. Finished work is kept; `vivid report {tmp_path}` starts it again."
    )


# --- Ctrl-C while `vivid report` writes its folder --------------------------------------------------


def _interrupt_after(monkeypatch: pytest.MonkeyPatch, files: int, how: Callable[[], None]) -> list[str]:
    """Make the report's writer call ``how`` once ``files`` files are written; the names written."""
    import vivid_inspect.lab.report.build as build

    written: list[str] = []
    real = build._write_text

    def writer(path: Path, text: str) -> Path:
        if len(written) == files:
            how()
        written.append(path.name)
        return real(path, text)

    monkeypatch.setattr(build, "_write_text", writer)
    return written


def _raise() -> None:
    raise KeyboardInterrupt


def _dropped_by_a_callback() -> None:
    """A Ctrl-C that lands in a weakref callback: Python prints it as ignored and goes on."""

    class Thing:
        pass

    thing = Thing()
    ref = weakref.ref(thing, lambda _: _raise())
    del thing
    assert ref() is None


def _real_signal_in_a_callback() -> None:
    """SIGINT delivered while a weakref callback runs (as when matplotlib frees a figure)."""

    class Thing:
        pass

    thing = Thing()
    ref = weakref.ref(thing, lambda _: signal.raise_signal(signal.SIGINT))
    del thing
    assert ref() is None


@pytest.mark.parametrize("files", [1, 5])
@pytest.mark.parametrize(
    "how", [_raise, _dropped_by_a_callback, _real_signal_in_a_callback], ids=["raised", "dropped", "signal"]
)
def test_ctrl_c_late_in_vivid_report_is_130_one_line_and_leaves_the_folder_marked_incomplete(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    files: int,
    how: Callable[[], None],
) -> None:
    out = tmp_path / "out"
    written = _interrupt_after(monkeypatch, files, how)
    assert main(["report", str(tmp_path), "--out", str(out), "--no-figures"]) == 130
    err = capsys.readouterr().err
    assert "Traceback" not in err and "Exception ignored" not in err and "KeyboardInterrupt" not in err, err
    (line,) = err.strip().splitlines()
    assert line.startswith(
        f"vivid report: interrupted while writing {out}: {out / INCOMPLETE} marks its files"
    )
    assert line.endswith(f"`vivid report {tmp_path} --out {out} --no-figures` starts it again.")
    assert marked_incomplete(out) and "interrupted" in (out / INCOMPLETE).read_text(encoding="utf-8")
    # a dropped Ctrl-C stops at the next file, not after the last one
    assert len(written) <= files + 2 and "usage.csv" not in written


def test_a_report_that_finishes_clears_the_mark_and_says_it_rewrote_an_interrupted_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    hook = sys.unraisablehook
    assert main(["report", str(tmp_path), "--out", str(out), "--no-figures"]) == 0
    assert not marked_incomplete(out)
    _interrupt_after(monkeypatch, 3, _raise)
    assert main(["report", str(tmp_path), "--out", str(out), "--no-figures"]) == 130
    assert marked_incomplete(out)
    monkeypatch.undo()
    capsys.readouterr()
    assert main(["report", str(tmp_path), "--out", str(out), "--no-figures"]) == 0
    err = capsys.readouterr().err
    assert f"vivid report: {out} is marked incomplete ({INCOMPLETE}): a report was interrupted there" in err
    assert not marked_incomplete(out)
    assert sys.unraisablehook is hook  # the command's hook is gone


def test_the_mark_is_written_before_the_first_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen: list[bool] = []
    _interrupt_after(monkeypatch, 99, lambda: None)
    import vivid_inspect.lab.report.build as build

    writer = build._write_text

    def watching(path: Path, text: str) -> Path:
        seen.append(marked_incomplete(path.parent))
        return writer(path, text)

    monkeypatch.setattr(build, "_write_text", watching)
    build.write_report(tmp_path, out_dir=tmp_path / "out", figures=False)
    assert seen and all(seen)
    assert not marked_incomplete(tmp_path / "out")


def test_a_ctrl_c_dropped_in_a_callback_of_any_command_is_130_and_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import vivid_inspect.lab.report.build as build

    def dropping(*args: object, **kwargs: object) -> build.Report:
        _dropped_by_a_callback()  # before any file: outside the report's own watch
        return build.Report(markdown="")

    monkeypatch.setattr(build, "write_report", dropping)
    hook = sys.unraisablehook
    assert main(["report", str(tmp_path)]) == 130
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and "Exception ignored" not in err, err
    # the command went on (Python dropped the interrupt), then says it was interrupted: not exit 0
    assert err.splitlines()[-1] == (
        f"vivid report: interrupted. Finished work is kept; `vivid report {tmp_path}` starts it again."
    )
    assert sys.unraisablehook is hook
