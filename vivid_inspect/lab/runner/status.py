"""Whether a cell's work is done or must wait: the one place ``vivid run`` and ``vivid plan`` decide it.

A cell is skipped (done, no calls) when:

- generation: its newest log (`latest_log`) succeeded and holds
  every item × epoch; otherwise ``eval_set`` resumes it, reusing the samples it holds;
- judge: its judged log exists, succeeded, and its record names this generation log (path and
  eval id) and this judge configuration (prompt and parser versions included);
- panel: its judged log exists, succeeded, and names this generation log and this panel
  configuration (which holds each member's configuration hash).

A cell waits (fails for this run, a rerun does it) when what it reads is missing: a judge cell
without a complete generation log, a panel without each member's current scores.
"""

from __future__ import annotations

from pathlib import Path

from inspect_ai.log import EvalLog, read_eval_log_async

from vivid_inspect.lab.runner.cells import JudgeCell, PanelCell, config_hash
from vivid_inspect.lab.runner.layout import FoundLog, judged_path, relative
from vivid_inspect.log_contract import JudgedRecord, read_judged_record


def generation_done(log: FoundLog | None, samples: int) -> bool:
    """Whether a generation cell's log is complete, so that a run generates nothing for it.

    Args:
        log: The cell's newest log, or None.
        samples: Samples the cell runs (items × epochs).

    Returns:
        True when the log succeeded and holds at least ``samples`` samples.
    """
    if log is None or log.header.status != "success" or log.header.results is None:
        return False
    return log.header.results.total_samples >= samples


def judged_output(log_dir: Path, cell: JudgeCell | PanelCell, generation_log: Path) -> Path:
    """Where a judge or panel cell writes its judged log of one generation log."""
    if isinstance(cell, PanelCell):
        return judged_path(log_dir, cell.panel.name, generation_log)
    return judged_path(log_dir, cell.judge.name, generation_log, cell.repeat)


async def read_judged(path: Path) -> JudgedRecord | None:
    """The judged record of a finished judged log; None when there is no readable one."""
    if not path.is_file():
        return None
    try:
        header = await read_eval_log_async(str(path), header_only=True)
    except Exception:  # noqa: BLE001 - an unreadable output is redone, not fatal
        return None
    return read_judged_record(header.eval.metadata) if header.status == "success" else None


async def judged_done(
    log_dir: Path, cell: JudgeCell | PanelCell, generation_log: Path, generation: EvalLog | None = None
) -> bool:
    """Whether a judge or panel cell's judged log is current, so that a run skips the cell.

    Args:
        log_dir: The spec's log folder.
        cell: The judge or panel cell.
        generation_log: The explanation log it judges.
        generation: That log's header; a judge cell's record must name its eval id (a generation
            log replaced in place is judged again). Not checked for a panel, whose members are.

    Returns:
        True when the judged log names this generation log and this configuration.
    """
    record = await read_judged(judged_output(log_dir, cell, generation_log))
    if record is None or record.generation_log != relative(log_dir, generation_log):
        return False
    if (
        isinstance(cell, JudgeCell)
        and generation is not None
        and record.generation_eval_id != generation.eval.eval_id
    ):
        return False
    return record.config_hash == config_hash(cell.config)


def judge_waits(cell: JudgeCell, generation_log: Path | None, generation_ok: bool) -> str | None:
    """Why a judge cell cannot run now (None when it can): its generation has no complete log."""
    if generation_log is None or not generation_ok:
        return f"{cell.generation.label} has no complete log"
    return None


def panel_waits(cell: PanelCell, current_members: set[JudgeCell], generation_log: Path | None) -> str | None:
    """Why a panel cell cannot run now (None when it can): members without current scores.

    Args:
        cell: The panel cell.
        current_members: The judge cells whose judged logs are current (done or just scored).
        generation_log: The explanation log, or None when there is none.
    """
    missing = [member.judge.name for member in cell.members if member not in current_members]
    if generation_log is None or missing:
        return f"members without scores: {', '.join(missing) or 'all'}"
    return None
