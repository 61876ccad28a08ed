"""Progress without a terminal (issue 31.4): a plain line every few seconds from ``vivid run`` and ``vivid audit``.

A pipe or ``nohup`` shows no live status line or bar; the periodic line says calls, errors, cells
done and in progress, elapsed time and rate. The interval is ``$VIVID_PROGRESS_SECONDS`` (15 by
default); the tests set a hundredth of a second and wait for the first line, not for a clock.
"""

from __future__ import annotations

import io
import threading
import time

import pytest
from rich.console import Console

from vivid_inspect.lab.audit.progress import showing
from vivid_inspect.lab.runner.progress import Progress, tracking
from vivid_inspect.lab.ticker import DEFAULT_SECONDS, PROGRESS_SECONDS_ENV, interval, ticking


def _pipe() -> tuple[Console, io.StringIO]:
    stream = io.StringIO()
    return Console(file=stream, force_terminal=False, highlight=False, soft_wrap=True), stream


def _first_line(stream: io.StringIO, marker: str) -> str:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        lines = [line for line in stream.getvalue().splitlines() if marker in line]
        if lines:
            return lines[0]
        time.sleep(0.005)
    raise AssertionError(f"no line with {marker!r} in 5 s: {stream.getvalue()!r}")


@pytest.fixture
def fast(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PROGRESS_SECONDS_ENV, "0.01")


@pytest.mark.usefixtures("fast")
def test_vivid_run_prints_a_progress_line_without_a_terminal() -> None:
    console, stream = _pipe()
    assert not console.is_terminal
    progress = Progress(totals={"generation": 8, "judge": 8}, console=console)
    # cells run while calls go by: the line says they are in progress, not 0 of 16 and nothing else
    progress.running["generation"] = 8
    progress.calls["vivid/oracle"] += 138
    progress.sample_errors = 1
    with tracking(progress):
        line = _first_line(stream, "progress —")
    assert "cells 0/16, 8 running (generation 0/8, judge 0/8) · 138 calls · 1 error · " in line
    assert "s elapsed · " in line and line.endswith(" calls/s")


@pytest.mark.parametrize(
    ("quiet", "ticks", "seconds"), [(True, True, "0.01"), (False, False, "0.01"), (False, True, "0")]
)
def test_no_periodic_line_when_quiet_over_inspects_display_or_turned_off(
    quiet: bool, ticks: bool, seconds: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PROGRESS_SECONDS_ENV, seconds)
    console, stream = _pipe()
    progress = Progress(totals={"generation": 1}, console=console, quiet=quiet, ticks=ticks)
    with tracking(progress):
        time.sleep(0.05)
    assert "progress —" not in stream.getvalue()


def test_cells_found_done_count_as_done() -> None:
    progress = Progress(totals={"generation": 8, "judge": 8}, console=_pipe()[0])
    for _ in range(8):
        progress.cell_done("generation")
    assert progress.line().startswith("cells 8/16 (generation 8/8, judge 0/8) · 0 calls")


@pytest.mark.usefixtures("fast")
def test_vivid_audit_prints_a_progress_line_without_a_terminal() -> None:
    console, stream = _pipe()
    with showing(240, "judging 12 probes of mockllm/judge", console=console) as tracker:
        tracker.done, tracker.calls, tracker.errors = 12, 40, 2
        line = _first_line(stream, "candidates")
    assert line.startswith(
        "vivid audit judging 12 probes of mockllm/judge — 12/240 candidates · 40 calls · 2 errors · "
    )
    assert line.endswith(" calls/s")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, DEFAULT_SECONDS),
        ("2.5", 2.5),
        ("0", 0.0),
        ("fifteen", DEFAULT_SECONDS),
        ("nan", DEFAULT_SECONDS),
    ],
)
def test_the_interval_comes_from_the_environment(
    value: str | None, expected: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    if value is None:
        monkeypatch.delenv(PROGRESS_SECONDS_ENV, raising=False)
    else:
        monkeypatch.setenv(PROGRESS_SECONDS_ENV, value)
    assert interval() == expected


@pytest.mark.usefixtures("fast")
def test_a_line_that_cannot_be_read_now_does_not_stop_the_next() -> None:
    # a counter that grew while the ticker read it ("dictionary changed size during iteration")
    said: list[int] = []
    done = threading.Event()

    def say() -> None:
        said.append(1)
        if len(said) == 1:
            raise RuntimeError("dictionary changed size during iteration")
        done.set()

    with ticking(say):
        assert done.wait(5)
    assert len(said) >= 2
