"""Where a spec's outputs live in its log folder, and how to find a cell's log among them.

``<log_dir>/generations/``       the eval set (Inspect's own logs, ``eval-set.json``)
``<log_dir>/judged/<judge>/``    one judged log per explanation log, same file name
``<log_dir>/judged/<judge>/repeat-<r>/``  the judge's further repeats (``repeats: k``), r = 1..k-1
``<log_dir>/judged/<panel>/``    the panel's aggregate, same file name
``<log_dir>/vivid/<spec name>/`` the resolved spec and the package freeze of the last run

Generations get a folder of their own because ``eval_set`` claims every log below its folder:
judged logs there would look like stray logs of the set's tasks (they keep the task's identity).
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log

from vivid_inspect.lab.runner.cells import (
    GENERATIONS_DIR,
    JUDGED_DIR,
    GenerationCell,
    repeat_label,
    split_model_args,
)
from vivid_inspect.log_contract import short_task

logger = logging.getLogger(__name__)


def generations_dir(log_dir: Path) -> Path:
    """The eval set's folder."""
    return log_dir / GENERATIONS_DIR


def judged_path(log_dir: Path, judge_name: str, generation_log: Path, repeat: int = 0) -> Path:
    """Where a judge's (or panel's) scores of one generation log go; ``repeat`` > 0 in a subfolder."""
    return log_dir / JUDGED_DIR / repeat_label(judge_name, repeat) / generation_log.name


def relative(log_dir: Path, path: Path) -> str:
    """A path inside the log folder as the POSIX path the report resolves against the folder."""
    return path.resolve().relative_to(log_dir.resolve()).as_posix()


def runs_dir(log_dir: Path, spec_name: str) -> Path:
    """Where the resolved spec and the package freeze go."""
    return log_dir / "vivid" / spec_name


@dataclass(frozen=True)
class FoundLog:
    """A generation log on disk with its header."""

    path: Path
    header: EvalLog


def matches(cell: GenerationCell, header: EvalLog) -> bool:
    """Whether a log header is a log of this generation cell (task, arguments, model)."""
    spec = header.eval
    base_url, model_args = split_model_args(cell.model.model_args)
    recorded: dict[str, Any] = dict(spec.task_args or {})
    return (
        short_task(spec.task) == cell.task
        and all(recorded.get(key) == value for key, value in cell.args.items())
        and spec.model == cell.model.model
        and all((spec.model_args or {}).get(key) == value for key, value in model_args.items())
        and (base_url is None or spec.model_base_url == base_url)
    )


def read_generation_logs(log_dir: Path) -> list[FoundLog]:
    """Headers of every log in the generations folder (unreadable files are skipped)."""
    folder = generations_dir(log_dir)
    if not folder.is_dir():
        return []
    found = []
    for info in list_eval_logs(str(folder), recursive=False):
        path = Path(info.name.removeprefix("file://"))
        try:
            found.append(FoundLog(path, read_eval_log(str(path), header_only=True)))
        except Exception as error:  # noqa: BLE001 - a crashed log is Inspect's to recover
            logger.info("skipping unreadable log %s: %s", path, error)
    return found


def latest_log(cell: GenerationCell, logs: list[FoundLog]) -> FoundLog | None:
    """The newest log of a cell, preferring successful ones."""
    mine = [log for log in logs if matches(cell, log.header)]
    if not mine:
        return None
    # Inspect replaces a failed log with a new attempt; the newest success is the one to use.
    return max(mine, key=lambda log: (log.header.status == "success", os.path.getmtime(log.path)))


def foreign_logs(log_dir: Path, cells: list[GenerationCell]) -> list[FoundLog]:
    """Generation logs of cells that are not in the spec (a model removed, another spec's logs).

    They stay where they are, and the report reads every log of the folder, theirs included.
    """
    return [log for log in read_generation_logs(log_dir) if not any(matches(c, log.header) for c in cells)]
