"""A judge panel: one extra score per item aggregating its members' scores (no model calls).

Each member keeps its own judged log; the panel writes one more, whose column ``judge_panel``
holds the aggregate and whose score metadata lists every member's score. A member that could
not score an item (an unreadable reply) is left out of that item's aggregate; an item no member
scored is unscored.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from inspect_ai import score_async
from inspect_ai.log import EvalLog, read_eval_log_async
from inspect_ai.model import get_model
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from vivid_inspect.lab.runner.cells import PanelCell, config_hash
from vivid_inspect.lab.runner.judging.cell import JudgedResult, without_errors, write_log_atomic
from vivid_inspect.lab.runner.layout import judged_path, relative
from vivid_inspect.lab.runner.spec.model import Aggregate
from vivid_inspect.lab.runner.status import judged_done, judged_output
from vivid_inspect.log_contract import PANEL_STRATEGY, JudgedRecord, JudgeId
from vivid_inspect.scorers.judge_metrics import judge_metrics

PANEL_COLUMN = JudgeId(PANEL_STRATEGY, None).column
_MEMBER_PREFIX = "panel_member/"


def aggregate(values: Sequence[float], how: Aggregate) -> float | None:
    """Combine member scores.

    Args:
        values: The members' scores of one item (unscored members already left out).
        how: ``mean``; ``median`` (the mean of the middle two for an even count); ``majority``
            (the most frequent score, a tie going to the lowest of the tied scores, so a split
            panel never rounds an item up).

    Returns:
        The aggregate, or None when there are no values.

    Raises:
        ValueError: If ``how`` is not one of the three.
    """
    if not values:
        return None
    if how == "mean":
        return float(statistics.fmean(values))
    if how == "median":
        return float(statistics.median(values))
    if how == "majority":
        counts = Counter(values)
        top = max(counts.values())
        return float(min(value for value, count in counts.items() if count == top))
    raise ValueError(f"unknown aggregate {how!r}; expected mean, median or majority")


def _value(score: Score | None) -> float | None:
    if score is None:
        return None
    try:
        value = score.as_float()
    except (ValueError, TypeError):
        return None
    return None if math.isnan(value) else value


@scorer(metrics=judge_metrics(), name=PANEL_COLUMN)
def panel_scorer(members: list[str], aggregate_by: str) -> Scorer:
    """Aggregate member scores already on the task state (seeded from the members' logs).

    Args:
        members: Member judge names, in panel order.
        aggregate_by: ``mean``, ``median`` or ``majority``.

    Returns:
        A scorer writing the aggregate, with each member's score in the metadata.
    """

    async def score(state: TaskState, target: Target) -> Score:
        scores = state.scores or {}
        member_scores = {name: _value(scores.get(_MEMBER_PREFIX + name)) for name in members}
        scored = [v for v in member_scores.values() if v is not None]
        value = aggregate(scored, aggregate_by)  # type: ignore[arg-type]
        metadata = {"strategy": PANEL_STRATEGY, "aggregate": aggregate_by, "members": member_scores}
        if value is None:
            return Score.unscored(reason="no panel member scored this item", metadata=metadata)
        return Score(value=value, metadata=metadata)

    return score


async def _member_scores(path: Path) -> dict[tuple[str | int, int], Score]:
    log = await read_eval_log_async(str(path))
    found: dict[tuple[str | int, int], Score] = {}
    for sample in log.samples or []:
        for score in (sample.scores or {}).values():
            found[(sample.id, sample.epoch)] = score
    return found


def _strip_members(log: EvalLog) -> None:
    for sample in log.samples or []:
        sample.scores = {k: v for k, v in (sample.scores or {}).items() if not k.startswith(_MEMBER_PREFIX)}
    if log.results is not None:
        log.results.scores = [s for s in log.results.scores if s.name == PANEL_COLUMN]
    log.eval.scorers = [s for s in log.eval.scorers or [] if s.name == PANEL_COLUMN]


async def run_panel_cell(log_dir: Path, cell: PanelCell, generation_log: Path) -> JudgedResult:
    """Write (or keep) the panel's judged log of one generation log.

    Args:
        log_dir: The spec's log folder.
        cell: The panel cell; all its members' judged logs must be current.
        generation_log: The explanation log the members judged.

    Returns:
        The cell's result; ``done`` when the panel log was already current.
    """
    output = judged_output(log_dir, cell, generation_log)
    if await judged_done(log_dir, cell, generation_log):
        return JudgedResult(cell.panel.name, generation_log, output, "done")
    rel_generation = relative(log_dir, generation_log)
    digest = config_hash(cell.config)
    log, skipped = without_errors(await read_eval_log_async(str(generation_log)))
    members = [m.judge.name for m in cell.members]
    by_member = {name: await _member_scores(judged_path(log_dir, name, generation_log)) for name in members}
    for sample in log.samples or []:
        sample.scores = {
            _MEMBER_PREFIX + name: scores[(sample.id, sample.epoch)]
            for name, scores in by_member.items()
            if (sample.id, sample.epoch) in scores
        }
    log.results = None  # the members' columns are inputs, not results of this log
    # "none/none" needs no key and makes no call: the panel only reads scores.
    scored = await score_async(
        log,
        [panel_scorer(members, cell.panel.aggregate)],
        model=get_model("none/none"),
        action="append",
        copy=False,
    )
    _strip_members(scored)
    record = JudgedRecord(
        name=cell.panel.name,
        strategy=PANEL_STRATEGY,
        members=members,
        aggregate=cell.panel.aggregate,
        model=None,
        generation_log=rel_generation,
        config_hash=digest,
        config=cell.config,
        skipped_errored_samples=skipped,
    )
    scored.eval.metadata = {**(scored.eval.metadata or {}), **record.metadata()}
    await write_log_atomic(scored, output)
    return JudgedResult(cell.panel.name, generation_log, output, "scored")
