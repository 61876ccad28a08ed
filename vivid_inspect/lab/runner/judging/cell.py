"""Judging: ``inspect_ai.score`` of each explanation log by each judge, one judged log per pair.

A judged log is the generation log with one score column, the judge's, and eval metadata
``vivid_judge`` saying which judge produced it (a rescored log's header has no model roles of
its own, and two judges may share a strategy). A cell whose judged log exists for the same
generation log and the same judge configuration is skipped, so adding a judge to a spec and
rerunning calls only the new judge. The configuration includes the judge prompt and parser
versions, so judgements made under other rules are redone (and their logs replaced) by the next
run. A judge with ``repeats: k`` gets k judged logs per generation log, the first in
``judged/<judge>/``, repeat r in ``judged/<judge>/repeat-<r>/``; each repeat's replies are cached
apart, so a redone repeat reuses its own replies and never another's. The lexical judge (chrF
against the reference) is applied the same way, without a grader: its judged log names no model.
Logs are written to a temporary file and renamed, so a kill never leaves a half-written log where
a finished one is expected.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai import score_async
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog, read_eval_log_async, write_eval_log_async
from inspect_ai.model import Model, get_model

from vivid_inspect.atomic_write import replacing
from vivid_inspect.inspect_private import model_roles_config
from vivid_inspect.lab.runner.cells import JudgeCell, config_hash
from vivid_inspect.lab.runner.layout import relative
from vivid_inspect.lab.runner.status import judged_done, judged_output
from vivid_inspect.lab.usage_events import scorer_usage, usage_record
from vivid_inspect.log_contract import GRADER_ROLE, JudgedRecord
from vivid_inspect.scorers.judge import judge_scorer
from vivid_inspect.scorers.lexical import lexical


@dataclass(frozen=True)
class JudgedResult:
    """What happened to one judge (or panel) cell."""

    name: str
    generation_log: Path
    output: Path
    status: str  # "done" (found complete), "scored", "failed"
    error: str | None = None

    @property
    def ok(self) -> bool:
        """Whether the judged log exists and is current."""
        return self.status in ("done", "scored")


async def write_log_atomic(log: EvalLog, path: Path) -> None:
    """Write a log so that ``path`` holds either the old file or the complete new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # not fsynced: a judged log lost to a power cut is judged again by the next run
    with replacing(path, fsync=False) as temporary:
        await write_eval_log_async(log, str(temporary), format="eval")


def without_errors(log: EvalLog) -> tuple[EvalLog, int]:
    """The log without samples that errored (there is no explanation to judge), and their count."""
    samples = log.samples or []
    kept = [sample for sample in samples if sample.error is None]
    return log.model_copy(update={"samples": kept}), len(samples) - len(kept)


async def _score(log: EvalLog, cell: JudgeCell, model: Model | None) -> EvalLog:
    if cell.lexical:
        # "none/none" needs no key and makes no call; without it, score_async would rebuild the
        # generator from the log header, which needs that provider's API key.
        return await score_async(
            log, [lexical()], model=get_model("none/none"), action="overwrite", copy=False
        )
    if model is None:
        raise ValueError(f"judge {cell.judge.name!r} ({cell.judge.strategy}) needs a model")
    scorer = judge_scorer(
        strategy=cell.judge.strategy,
        judge_model=cell.judge.model,
        retries=cell.judge.retries,
        repeat=cell.repeat,
        language=cell.judge.language,
    )
    scored = await score_async(
        log, [scorer], model=model, model_roles={GRADER_ROLE: model}, action="overwrite", copy=False
    )
    scored.eval.model_roles = model_roles_config({GRADER_ROLE: model})
    return scored


async def run_judge_cell(
    log_dir: Path, cell: JudgeCell, generation_log: Path, model: Model | None
) -> JudgedResult:
    """Judge one generation log with one judge, unless its judged log is already current.

    Args:
        log_dir: The spec's log folder.
        cell: The judge cell.
        generation_log: The explanation log to judge.
        model: The judge model (`make_judge_model`); None
            for the lexical judge.

    Returns:
        The cell's result; ``status`` is ``done`` when nothing had to be called.

    Raises:
        ValueError: If an LLM judge is given no model.
    """
    output = judged_output(log_dir, cell, generation_log)
    header = await read_eval_log_async(str(generation_log), header_only=True)
    if await judged_done(log_dir, cell, generation_log, header):
        return JudgedResult(cell.label, generation_log, output, "done")
    rel_generation = relative(log_dir, generation_log)
    digest = config_hash(cell.config)
    log, skipped = without_errors(await read_eval_log_async(str(generation_log)))
    scored = await _score(log, cell, model)
    record = JudgedRecord(
        name=cell.judge.name,
        strategy=cell.judge.strategy,
        model=cell.judge.model,
        repeat=cell.repeat,
        # The lexical judge reads no instructions: no language to record.
        language=None if cell.lexical else cell.judge.language,
        temperature=_judge_temperature(scored),
        generation_log=rel_generation,
        generation_eval_id=header.eval.eval_id,
        config_hash=digest,
        config=cell.config,
        skipped_errored_samples=skipped,
        # The judge's calls are only in the sample events of a re-scored log; summing them
        # here, once, lets the report read them from the header instead of every sample.
        usage=_judge_usage(scored),
    )
    scored.eval.metadata = {**(scored.eval.metadata or {}), **record.metadata()}
    # The viewer's list shows the task name and tags: without these, every judged copy of a
    # generation looks like the generation itself.
    scored.eval.tags = list(dict.fromkeys([*(scored.eval.tags or []), *judged_tags(cell)]))
    scored.eval.task_display_name = (
        f"{scored.eval.task_display_name or header.eval.task} · {judged_title(cell)}"
    )
    await write_log_atomic(scored, output)
    return JudgedResult(cell.label, generation_log, output, "scored")


def judged_title(cell: JudgeCell) -> str:
    """``judge chrf_aspect (aspect, vivid/chrf)``: which judge a judged log holds, for its title."""
    return f"judge {cell.label} ({cell.judge.strategy}, {cell.judge.model or 'no model'})"


def judged_tags(cell: JudgeCell) -> list[str]:
    """The eval tags of a judged log: ``judged``, its judge's name, strategy, model and language."""
    return [
        "judged",
        f"judge:{cell.label}",
        f"strategy:{cell.judge.strategy}",
        f"judge_model:{cell.judge.model or 'none'}",
        *([] if cell.lexical else [f"language:{cell.judge.language}"]),
    ]


def _judge_temperature(scored: EvalLog) -> float | list[float] | None:
    """The temperature the judge's calls ran at, read from their model events.

    The scorer sets the judge's own default under the spec's ``generate`` options, so the
    events, not the spec, say what was used. None when the judge made no call (the lexical
    judge, or only empty explanations); a list if calls differed.
    """
    seen = sorted(
        {
            float(event.config.temperature)
            for sample in scored.samples or []
            for event in sample.events
            if isinstance(event, ModelEvent)
            and event.role == GRADER_ROLE
            and event.config.temperature is not None
        }
    )
    if not seen:
        return None
    return seen[0] if len(seen) == 1 else seen


def _judge_usage(scored: EvalLog) -> dict[str, Any]:
    """Usage of each scorer's model calls in a freshly scored log, keyed by scorer name."""
    names = [score.name for score in (scored.results.scores if scored.results else [])]
    events = [[event.model_dump(mode="json") for event in sample.events] for sample in scored.samples or []]
    return {name: usage_record(*scorer_usage(events, name)) for name in names}
