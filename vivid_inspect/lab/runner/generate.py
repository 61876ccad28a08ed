"""Generation: one ``inspect_ai.eval_set`` per run block, all in ``<log_dir>/generations``.

``eval_set`` is what makes a rerun cheap: it pairs each task with its log by task identity,
returns finished logs as they are, and resumes an interrupted or failed log by reusing the
samples it already holds, so only missing samples reach the model.
"""

from __future__ import annotations

import time
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

from inspect_ai import eval_set
from inspect_ai.log import EvalLog
from inspect_ai.model import Model

from vivid_inspect.call_errors import call_failure_message, first_sample_error
from vivid_inspect.lab.interrupt import raise_if_cancelled
from vivid_inspect.lab.runner.cells import GenerationCell
from vivid_inspect.lab.runner.layout import FoundLog, generations_dir, latest_log, read_generation_logs
from vivid_inspect.lab.runner.prepare.models import Models, generate_config, model_key
from vivid_inspect.lab.runner.prepare.prepared import Prepared, PreparedBlock
from vivid_inspect.lab.runner.progress import COMPACT, Progress
from vivid_inspect.lab.runner.spec.problems import Problem
from vivid_inspect.lab.runner.status import generation_done


@dataclass(frozen=True)
class GenerationResult:
    """Where a generation cell's log is, if it finished."""

    cell: GenerationCell
    log: Path | None
    status: str
    error: str | None = None

    @property
    def done(self) -> bool:
        """Whether the cell's log is complete and can be judged."""
        return self.log is not None and self.status == "success"


def _models(blocks: list[PreparedBlock], models: Models) -> list[Model]:
    # One Model per distinct entry; Inspect pairs each with every task of the call.
    keys = dict.fromkeys(model_key(cell.model) for block in blocks for cell in block.cells)
    return [models.generation[key] for key in keys]


def _call_key(prepared: Prepared, block: PreparedBlock) -> str:
    """Blocks with equal keys can share one ``eval_set`` call: same models, items and options."""
    run_block = prepared.loaded.spec.runs[block.index]
    models = sorted(repr((m.model, sorted(m.model_args.items()))) for m in run_block.models)
    selection = (block.selection.sample_id, block.selection.limit)
    return repr((models, selection, run_block.epochs, sorted(run_block.generate.items())))


def eval_set_groups(prepared: Prepared) -> list[list[PreparedBlock]]:
    """Run blocks grouped into ``eval_set`` calls, in spec order.

    ``eval_set`` crosses every task with every model and gives all of them the same items and
    options, so only blocks that agree on those can share a call; sharing lets their tasks run
    side by side instead of one block after the other.
    """
    groups: dict[str, list[PreparedBlock]] = {}
    for block in prepared.blocks:
        groups.setdefault(_call_key(prepared, block), []).append(block)
    return list(groups.values())


def _run_group(
    prepared: Prepared, blocks: list[PreparedBlock], models: Models, display: str | None
) -> list[EvalLog]:
    spec = prepared.loaded.spec
    first = blocks[0]
    run_block = spec.runs[first.index]
    config = generate_config(spec, run_block.generate)
    _, logs = eval_set(
        tasks=[task for block in blocks for task in block.tasks.values()],
        model=_models(blocks, models),
        log_dir=str(generations_dir(prepared.loaded.log_dir)),
        sample_id=first.selection.sample_id,
        limit=first.selection.limit,
        epochs=run_block.epochs,
        retry_attempts=spec.retries.attempts,
        retry_wait=spec.retries.wait,
        retry_on_error=spec.retries.on_error,
        max_tasks=spec.concurrency.max_tasks,
        max_samples=spec.concurrency.max_samples,
        # Several calls (and specs sharing a folder) keep their logs side by side.
        log_dir_allow_dirty=True,
        # A sample that keeps failing must not stop the others: the task runs to its end, is
        # marked as an error, and a rerun retries only the samples that failed.
        continue_on_fail=True,
        # `compact` (vivid run's default): our progress line instead of Inspect's task panels.
        display="none" if display == COMPACT else display,  # type: ignore[arg-type]
        **config.model_dump(exclude_none=True),
    )
    return logs


def _all_done(prepared: Prepared, blocks: list[PreparedBlock]) -> bool:
    """Whether every cell of these blocks has a finished log with all its items (as ``vivid plan`` counts)."""
    logs = read_generation_logs(prepared.loaded.log_dir)
    for block in blocks:
        epochs = prepared.loaded.spec.runs[block.index].epochs
        if not all(
            generation_done(latest_log(cell, logs), block.item_count(cell) * epochs) for cell in block.cells
        ):
            return False
    return True


def _selection_of(header: EvalLog) -> tuple[list[int] | None, int | None]:
    config = header.eval.config
    recorded = config.sample_id
    ids = sorted(int(i) for i in recorded) if isinstance(recorded, list) else None
    limit = config.limit if isinstance(config.limit, int) else None
    return ids, limit


def reuse_conflicts(prepared: Prepared) -> list[Problem]:
    """Finished logs that ``eval_set`` would keep although the spec now selects other items.

    ``eval_set`` decides that a log is complete by counting samples, not by their ids: after a
    change of ``seed`` (same ``n``) it would keep the old items, and the judges would score
    those. Such a log has to be removed (or the spec pointed at another log folder) first.

    Args:
        prepared: The prepared spec.

    Returns:
        One problem per such log, at the run block's selection key.
    """
    logs = read_generation_logs(prepared.loaded.log_dir)
    problems = []
    for block in prepared.blocks:
        run_block = prepared.loaded.spec.runs[block.index]
        key = next(
            (k for k in ("sample", "sample_ids", "limit") if getattr(run_block, k) is not None), "runs"
        )
        wanted = (block.selection.sample_id, block.selection.limit)
        for cell in block.cells:
            log = latest_log(cell, logs)
            if log is None or log.header.status != "success" or log.header.results is None:
                continue
            planned = block.item_count(cell) * run_block.epochs
            if _selection_of(log.header) != wanted and log.header.results.total_samples >= planned:
                path = ("runs", block.index) if key == "runs" else ("runs", block.index, key)
                problems.append(
                    Problem(
                        path,
                        f"{cell.label}: its log {log.path.name} holds other items than this "
                        "selection, and eval_set would keep it; delete that log (and its copies "
                        "under judged/) or use another log_dir",
                    )
                )
    return problems


def run_generations(
    prepared: Prepared, models: Models, progress: Progress, display: str | None = None
) -> list[GenerationResult]:
    """Run (or resume) every run block.

    Args:
        prepared: The prepared spec.
        models: The spec's models (`build_models`).
        progress: Counts cells, calls and errors.
        display: Inspect display type (``full``, ``plain``, ``none``, ...); None for Inspect's default;
            ``compact`` for none of Inspect's display but a live progress line of our own.

    Returns:
        One result per generation cell, in spec order.

    Raises:
        RunInterrupted: Ctrl-C: ``eval_set`` cancelled a log (its finished samples are kept).
    """
    results: list[GenerationResult] = []
    for blocks in eval_set_groups(prepared):
        error: str | None = None
        names = ", ".join(f"runs[{block.index}]" for block in blocks)
        cells = sum(len(block.cells) for block in blocks)
        started = time.time()
        already = False
        try:
            if _all_done(prepared, blocks):
                # Nothing to generate: eval_set would only return these logs (and draw its panels).
                already, logs = True, []
            else:
                progress.note(f"generating {names} ({cells} cells)")
                progress.running["generation"] += cells
                try:
                    with progress.live(f"generating {names}") if display == COMPACT else nullcontext():
                        logs = _run_group(prepared, blocks, models, display)
                finally:
                    progress.running["generation"] -= cells
        except KeyboardInterrupt:
            raise
        except Exception as caught:  # noqa: BLE001 - one failed call must not stop the others
            error = call_failure_message(caught)
            progress.error(f"generating {names} failed: {error}")
            logs = []
        # On Ctrl-C eval_set returns with its logs cancelled: stop here, not at the next group
        raise_if_cancelled(generations_dir(prepared.loaded.log_dir), started, f"generating {names}")
        returned = [FoundLog(Path(log.location.removeprefix("file://")), log) for log in logs if log.location]
        on_disk: list[FoundLog] | None = None
        for cell in (cell for block in blocks for cell in block.cells):
            log = latest_log(cell, returned)
            if log is None:
                on_disk = on_disk if on_disk is not None else read_generation_logs(prepared.loaded.log_dir)
                log = latest_log(cell, on_disk)
            status = log.header.status if log else "missing"
            results.append(GenerationResult(cell, log.path if log else None, status, error))
            progress.cell_done("generation", ok=status == "success")
            if status != "success":
                reason = first_sample_error(log.path) if log else None
                why = f": {reason}" if reason else ""
                progress.error(f"{cell.label}: generation {status}{why} (a rerun resumes it)")
        if already:  # said once they are counted, so the totals agree with it
            progress.note(f"{names}: all {cells} generation cells are already done")
    return results
