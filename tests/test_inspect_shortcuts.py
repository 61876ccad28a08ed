"""conftest.py's shortcuts for in-process evals: no realtime sample buffer, a one-thread compressor.

The buffer is a SQLite copy of each running sample's events for live viewing in `inspect view`;
Inspect compresses each log member with 12 zstd threads. A log written with the shortcuts holds what
a log written with Inspect's defaults holds: the same samples, outputs, scores, events, recorded
config and results, and every member reads back.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import inspect_ai._eval.task.log as inspect_task_log
import inspect_ai._util.zipfile as inspect_zipfile
import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalLog
from inspect_ai.log._recorders.buffer import SampleBufferDatabase
from inspect_ai.scorer import match
from inspect_ai.solver import generate

from tests.scripted import scripted_model


def _run(log_dir: Path) -> EvalLog:
    task = Task(
        dataset=[Sample(input=f"{n} + {n}", target=str(2 * n)) for n in range(4)],
        solver=generate(),
        scorer=match(),
    )
    model = scripted_model(lambda prompt: "the answer is " + str(2 * int(prompt.split()[0])))
    (log,) = eval(task, model=model, log_dir=str(log_dir), display="none")
    assert log.status == "success" and log.samples is not None
    return log


def _content(log: EvalLog) -> list[Any]:
    assert log.samples is not None
    return [
        (
            sample.input,
            sample.output.completion,
            {name: (score.value, score.answer) for name, score in (sample.scores or {}).items()},
            [message.text for message in sample.messages],
            [event.event for event in sample.events],
        )
        for sample in sorted(log.samples, key=lambda s: str(s.id))
    ]


def _members(log: EvalLog) -> dict[str, bytes]:
    with zipfile.ZipFile(log.location) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_a_log_written_with_the_shortcuts_holds_what_one_written_with_inspects_defaults_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the shortcuts are on
    assert inspect_task_log.SampleBufferDatabase is not SampleBufferDatabase
    assert inspect_zipfile._ZSTD_THREADS == 0  # type: ignore[attr-defined]
    without = _run(tmp_path / "without")

    made: list[SampleBufferDatabase] = []

    def counted(**kwargs: Any) -> SampleBufferDatabase:
        made.append(SampleBufferDatabase(**kwargs))
        return made[-1]

    monkeypatch.setattr(inspect_task_log, "SampleBufferDatabase", counted)
    monkeypatch.setattr(inspect_zipfile, "_ZSTD_THREADS", 12)
    with_buffer = _run(tmp_path / "with")

    assert len(made) == 1  # the second run did write the buffer
    assert _content(without) == _content(with_buffer)
    assert without.eval.config == with_buffer.eval.config
    assert without.results == with_buffer.results
    assert _members(without).keys() == _members(with_buffer).keys()
