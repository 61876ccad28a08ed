"""Cell status: the one place that decides whether a run (and a plan) skips a cell or must wait.

``vivid run`` and ``vivid plan`` both ask :mod:`vivid_inspect.lab.runner.status`; these tests pin each
rule on real log headers (one tiny offline eval), each shape of "not done" with its own id.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalLog, EvalResults, write_eval_log
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from vivid_inspect.lab.runner.cells import GenerationCell, JudgeCell, PanelCell, config_hash
from vivid_inspect.lab.runner.layout import FoundLog, relative
from vivid_inspect.lab.runner.spec.model import Judge, ModelEntry, Panel
from vivid_inspect.lab.runner.status import (
    generation_done,
    judge_waits,
    judged_done,
    judged_output,
    panel_waits,
)
from vivid_inspect.log_contract import JudgedRecord

SAMPLES = 2


@pytest.fixture(scope="module")
def generation(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, EvalLog]:
    """A log folder holding one finished generation log of SAMPLES samples."""
    log_dir = tmp_path_factory.mktemp("status")
    task = Task(dataset=[Sample(input=f"q{i}", target="a", id=i) for i in range(1, SAMPLES + 1)])
    reply = ModelOutput.from_content("mockllm/model", "a")
    reply.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # no tokenizer download
    model = get_model("mockllm/model", custom_outputs=[reply] * SAMPLES, memoize=False)
    (log,) = eval(task, model=model, log_dir=str(log_dir / "generations"), display="none")
    assert log.status == "success", log.error
    return log_dir, log


def _cells() -> tuple[JudgeCell, JudgeCell, PanelCell]:
    cell = GenerationCell(0, "explain", None, {}, ModelEntry(model="mockllm/model"))
    a = JudgeCell(cell, Judge(name="a", strategy="aspect", model="mockllm/model"))
    b = JudgeCell(cell, Judge(name="b", strategy="cot", model="mockllm/model"))
    panel = PanelCell(cell, Panel(name="p", members=["a", "b"], aggregate="mean"), (a, b))
    return a, b, panel


def _found(log: EvalLog, **update: Any) -> FoundLog:
    return FoundLog(Path(log.location), log.model_copy(update=update))


@pytest.mark.parametrize(
    ("change", "samples", "done"),
    [
        (lambda log: None, SAMPLES, False),
        (lambda log: _found(log), SAMPLES, True),
        (lambda log: _found(log), SAMPLES + 1, False),
        (lambda log: _found(log, status="error"), SAMPLES, False),
        (lambda log: _found(log, status="started"), SAMPLES, False),
        (lambda log: _found(log, results=None), SAMPLES, False),
        (lambda log: _found(log, results=EvalResults(total_samples=1, completed_samples=1)), SAMPLES, False),
    ],
    ids=["no-log", "complete", "more-items-asked", "error", "interrupted", "no-results", "fewer-samples"],
)
def test_generation_done(
    generation: tuple[Path, EvalLog], change: Callable[[EvalLog], FoundLog | None], samples: int, done: bool
) -> None:
    assert generation_done(change(generation[1]), samples) is done


def _write_judged(log_dir: Path, log: EvalLog, cell: JudgeCell | PanelCell, **record: Any) -> None:
    generation_log = Path(log.location)
    fields: dict[str, Any] = {
        "generation_log": relative(log_dir, generation_log),
        "generation_eval_id": log.eval.eval_id,
        "config_hash": config_hash(cell.config),
        **record,
    }
    judged = log.model_copy(
        update={"eval": log.eval.model_copy(update={"metadata": JudgedRecord(**fields).metadata()})}
    )
    output = judged_output(log_dir, cell, generation_log)
    output.parent.mkdir(parents=True, exist_ok=True)
    write_eval_log(judged, str(output))


@pytest.mark.parametrize(
    ("record", "done"),
    [
        ({}, True),
        ({"generation_log": "generations/other.eval"}, False),
        ({"generation_eval_id": "replaced"}, False),
        ({"config_hash": "older-judge-version"}, False),
    ],
    ids=["current", "other-generation-log", "generation-replaced", "other-config"],
)
def test_judge_cell_done_only_when_its_record_is_current(
    generation: tuple[Path, EvalLog], tmp_path: Path, record: dict[str, Any], done: bool
) -> None:
    _, log = generation
    log_dir = tmp_path
    copy = log_dir / "generations" / Path(log.location).name
    copy.parent.mkdir(parents=True)
    copy.write_bytes(Path(log.location).read_bytes())
    log = log.model_copy(update={"location": str(copy)})
    judge, _, _ = _cells()
    assert not anyio.run(judged_done, log_dir, judge, copy, log)  # nothing written yet
    _write_judged(log_dir, log, judge, **record)
    assert anyio.run(judged_done, log_dir, judge, copy, log) is done


def test_panel_done_ignores_the_eval_id_but_not_its_config(
    generation: tuple[Path, EvalLog], tmp_path: Path
) -> None:
    _, log = generation
    copy = tmp_path / "generations" / Path(log.location).name
    copy.parent.mkdir(parents=True)
    copy.write_bytes(Path(log.location).read_bytes())
    log = log.model_copy(update={"location": str(copy)})
    _, _, panel = _cells()
    _write_judged(tmp_path, log, panel, generation_eval_id=None)
    assert anyio.run(judged_done, tmp_path, panel, copy, log)
    _write_judged(tmp_path, log, panel, config_hash="members-changed")
    assert not anyio.run(judged_done, tmp_path, panel, copy, log)


@pytest.mark.parametrize(
    ("log", "ok", "waits"),
    [(None, False, True), (Path("g.eval"), False, True), (Path("g.eval"), True, False)],
    ids=["no-log", "incomplete-log", "complete-log"],
)
def test_a_judge_cell_waits_for_a_complete_generation(log: Path | None, ok: bool, waits: bool) -> None:
    judge, _, _ = _cells()
    reason = judge_waits(judge, log, ok)
    assert (reason is not None) is waits
    if waits:
        assert judge.generation.label in str(reason)


@pytest.mark.parametrize(
    ("current", "log", "missing"),
    [
        ("ab", Path("g.eval"), None),
        ("a", Path("g.eval"), "b"),
        ("", Path("g.eval"), "a, b"),
        ("ab", None, "all"),
    ],
    ids=["all-members", "one-missing", "none", "no-generation-log"],
)
def test_a_panel_waits_for_every_member(current: str, log: Path | None, missing: str | None) -> None:
    a, b, panel = _cells()
    members = {cell for cell in (a, b) if cell.judge.name in current}
    reason = panel_waits(panel, members, log)
    assert reason == (None if missing is None else f"members without scores: {missing}")
