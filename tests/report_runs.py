"""Small real runs for the report tests: the offline vivid/* models on small data files, judged copies.

Every log here is written by Inspect itself (``eval``, ``eval_set``, ``score``, or the
``inspect score`` command), never by hand, except where a test says it crafts one.
"""

from __future__ import annotations

import asyncio
import csv
import os
import shutil
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from inspect_ai import eval, score_async
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log
from inspect_ai.model import get_model

from tests import prewarmed
from vivid_inspect.data import COLUMNS
from vivid_inspect.scorers.judge import judge as judge_scorer
from vivid_inspect.tasks import explain, topic, traits

GRADER = "vivid/chrf"
SAMPLE = Path(str(resources.files("vivid_inspect.data").joinpath("sample.csv")))


def sample_rows() -> list[list[str]]:
    """The bundled sample's data rows (header left out)."""
    with SAMPLE.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == list(COLUMNS)
    return rows[1:]


def write_data(path: Path, rows: Sequence[Sequence[str]]) -> Path:
    """A data file in the release's format."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(COLUMNS)
        writer.writerows(rows)
    return path


def same_name_data(root: Path) -> tuple[Path, Path]:
    """Two data files both named ``data.csv``: the bundled sample, and its rows reversed less five.

    Sample id ``i`` is the i-th row, so the same ids name other idioms (and themes) in the second.
    """
    rows = sample_rows()
    return write_data(root / "a" / "data.csv", rows), write_data(root / "b" / "data.csv", rows[::-1][5:])


def run(
    tasks: list[object],
    model: str,
    data: str | os.PathLike[str],
    log_dir: Path,
    sample_id: list[int] | None = None,
) -> list[EvalLog]:
    """One ``eval`` of the tasks with an offline model that reads the same data."""
    logs = eval(
        tasks,  # type: ignore[arg-type]
        model=get_model(model, data=str(data)),
        model_roles={"grader": get_model(GRADER)},
        log_dir=str(log_dir),
        sample_id=sample_id,
        display="none",
    )
    assert all(log.status == "success" for log in logs), [log.error for log in logs]
    return logs


def explain_run(
    model: str,
    data: str | os.PathLike[str],
    log_dir: Path,
    *,
    prompt: str = "zero_shot",
    judge: str = "lexical",
    sample_id: list[int] | None = None,
) -> Path:
    """One explanation generation; its log."""
    (log,) = run([explain(prompt=prompt, judge=judge, data=str(data))], model, data, log_dir, sample_id)
    return Path(log.location)


def classification_runs(
    model: str, data: str | os.PathLike[str], log_dir: Path, shots: int = 3
) -> list[Path]:
    """A topic and a traits generation; their logs."""
    logs = run(
        [topic(shots=shots, data=str(data)), traits(shots=shots, data=str(data))], model, data, log_dir
    )
    return [Path(log.location) for log in logs]


def judged_copy(log: Path, out: Path, *, action: str = "append", strategy: str = "aspect") -> Path:
    """What ``inspect score LOG --action ACTION --output-file OUT`` writes, from Python."""
    scored = asyncio.run(
        score_async(
            read_eval_log(str(log)),
            [judge_scorer(strategy=strategy)],
            model_roles={"grader": get_model(GRADER)},
            action=action,  # type: ignore[arg-type]
        )
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    write_eval_log(scored, str(out))
    return out


def inspect_score(log: Path, out: Path, *, action: str = "append", strategy: str = "aspect") -> Path:
    """The real ``inspect score`` command, as the documentation shows it (prewarmed: tests/prewarmed.py)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    command = [
        str(Path(sys.executable).with_name("inspect")),
        "score",
        str(log),
        "--scorer",
        "vivid_inspect/judge",
        "-S",
        f"strategy={strategy}",
        "--model-role",
        f"grader={GRADER}",
        "--action",
        action,
        "--output-file",
        str(out),
        "--display",
        "none",
    ]
    if action == "overwrite":
        command.append("--overwrite")
    done = prewarmed.run(command, cwd=os.getcwd(), env=dict(os.environ), timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return out


def copy_file(source: Path, target: Path) -> Path:
    """A plain file copy (``cp``), as a user backs a log up."""
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    return target


def failed_attempt(log: Path, out: Path, keep: int) -> Path:
    """An earlier failed attempt of the same cell: the first ``keep`` samples, status error, its own eval id.

    What ``inspect eval-retry`` leaves beside its new log (Inspect keeps the failed log; the retry
    is a new eval with a new id). Made from the complete log so that no model is called again.
    """
    failed = read_eval_log(str(log))
    failed.status = "error"
    failed.eval.eval_id = failed.eval.eval_id[:-4] + "fail"
    failed.eval.created = "2000-01-01T00:00:00+00:00"
    failed.samples = (failed.samples or [])[:keep]
    out.parent.mkdir(parents=True, exist_ok=True)
    write_eval_log(failed, str(out))
    return out
