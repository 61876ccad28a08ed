"""The judge phase: every judge cell, then every panel cell, a few cells at a time.

Judge cells of different (generation × judge) pairs are independent, so several are scored at
once (``concurrency.judge_cells``); each judge model's own ``max_connections`` still bounds its
concurrent calls. A failed cell is reported and the others go on; its panel waits for a rerun.
"""

from __future__ import annotations

from pathlib import Path

import anyio
from inspect_ai.model import Model

from vivid_inspect.call_errors import call_failure_message
from vivid_inspect.inspect_private import configured_async_backend
from vivid_inspect.lab.runner.cells import JUDGED_DIR, GenerationCell, JudgeCell, PanelCell
from vivid_inspect.lab.runner.generate import GenerationResult
from vivid_inspect.lab.runner.judging.cell import JudgedResult, run_judge_cell
from vivid_inspect.lab.runner.judging.panel import run_panel_cell
from vivid_inspect.lab.runner.prepare.prepared import Prepared
from vivid_inspect.lab.runner.progress import Progress
from vivid_inspect.lab.runner.status import judge_waits, panel_waits, read_judged


def _failed(name: str, generation_log: Path | None, error: BaseException | str) -> JudgedResult:
    message = error if isinstance(error, str) else call_failure_message(error)
    return JudgedResult(name, generation_log or Path(), Path(), "failed", message)


async def prune_orphans(log_dir: Path) -> list[Path]:
    """Delete judged logs whose generation log is gone.

    ``eval_set`` replaces a generation log when it resumes it (after a crash, or when a run
    block asks for more items); the judged copies of the old file would otherwise be read by
    the report beside those of the new one.

    Args:
        log_dir: The spec's log folder.

    Returns:
        The files deleted.
    """
    removed = []
    # Judged logs of further repeats sit one folder deeper (judged/<judge>/repeat-<r>/).
    for path in sorted((log_dir / JUDGED_DIR).rglob("*.eval")):
        record = await read_judged(path)
        if record is not None and not (log_dir / (record.generation_log or "")).is_file():
            path.unlink()
            removed.append(path)
    return removed


async def _judge_all(
    prepared: Prepared,
    generations: dict[GenerationCell, GenerationResult],
    models: dict[str, Model],
    progress: Progress,
) -> list[JudgedResult]:
    loaded = prepared.loaded
    removed = await prune_orphans(loaded.log_dir)
    if removed:
        progress.note(f"removed {len(removed)} judged log(s) of generation logs that eval_set replaced")
    limiter = anyio.CapacityLimiter(loaded.spec.concurrency.judge_cells)
    finished: dict[JudgeCell, JudgedResult] = {}

    async def judge_one(cell: JudgeCell) -> None:
        generation = generations[cell.generation]
        reason = judge_waits(cell, generation.log, generation.done)
        if reason is not None or generation.log is None:
            finished[cell] = _failed(cell.label, generation.log, reason or "no log")
            progress.cell_done("judge", ok=False)
            return
        async with limiter:
            progress.running["judge"] += 1
            try:
                model = None if cell.lexical else models[cell.judge.name]
                result = await run_judge_cell(loaded.log_dir, cell, generation.log, model)
            except Exception as error:  # noqa: BLE001 - reported per cell; other cells go on
                result = _failed(cell.label, generation.log, error)
            finally:
                progress.running["judge"] -= 1
        finished[cell] = result
        progress.cell_done("judge", ok=result.ok)
        if result.status == "scored":
            progress.note(f"{cell.label} judged {cell.generation.label}")
        elif result.status == "failed":
            progress.error(f"{cell.label} failed on {cell.generation.label}: {result.error}")

    async with anyio.create_task_group() as group:
        for cell in prepared.cells.judges:
            group.start_soon(judge_one, cell)

    results = [finished[cell] for cell in prepared.cells.judges]  # spec order, not finishing order
    already = sum(1 for r in results if r.status == "done")
    if already:
        progress.note(f"{already} judge cell{'s' if already != 1 else ''} already done")
    ok = {cell for cell, result in finished.items() if result.ok}
    for panel in prepared.cells.panels:
        results.append(await _panel_one(prepared, panel, generations, ok, progress))
    return results


async def _panel_one(
    prepared: Prepared,
    cell: PanelCell,
    generations: dict[GenerationCell, GenerationResult],
    ok: set[JudgeCell],
    progress: Progress,
) -> JudgedResult:
    generation = generations[cell.generation]
    # The members are the judges' first repeats: the panel aggregates those only.
    reason = panel_waits(cell, ok, generation.log)
    if reason is not None or generation.log is None:
        result = _failed(cell.panel.name, generation.log, reason or "no log")
    else:
        try:
            result = await run_panel_cell(prepared.loaded.log_dir, cell, generation.log)
        except Exception as error:  # noqa: BLE001
            result = _failed(cell.panel.name, generation.log, error)
    progress.cell_done("panel", ok=result.ok)
    if result.error:
        progress.error(f"panel {cell.panel.name} not written for {cell.generation.label}: {result.error}")
    return result


def run_judges(
    prepared: Prepared, generations: list[GenerationResult], models: dict[str, Model], progress: Progress
) -> list[JudgedResult]:
    """Run every judge and panel cell whose output is missing or out of date.

    Args:
        prepared: The prepared spec.
        generations: Results of the generation phase (a cell without a complete log is skipped).
        models: Judge models by judge name (`Models`); the
            lexical judge needs none.
        progress: Counts cells and calls.

    Returns:
        One result per judge cell, then one per panel cell.
    """
    if not prepared.cells.judges:
        return []
    by_cell = {result.cell: result for result in generations}
    return anyio.run(_judge_all, prepared, by_cell, models, progress, backend=configured_async_backend())
