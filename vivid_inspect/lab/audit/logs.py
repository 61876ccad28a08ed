"""Reading an audit's probe logs back: the judge's score of every probe's candidate of every item.

The logs of one audit share an ``audit_id`` (`AuditRecord`);
each holds one probe. The judge's column is the [`column`][vivid_inspect.judge_id.JudgeId.column] of the
record's strategy and language. Imports nothing heavy: ``vivid report`` and the CLI read it too.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from vivid_inspect.judge_id import DEFAULT_STRATEGY, JudgeId
from vivid_inspect.log_contract import read_audit_record

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog

ProbeScores = dict[str, dict[int | str, float]]
"""Probe -> item id -> the judge's score (NaN when unscored)."""


def _score(sample: Any, column: str) -> float:
    score = (sample.scores or {}).get(column)
    if score is None:
        return math.nan
    try:
        value = score.as_float()
    except (TypeError, ValueError):
        return math.nan
    return value if math.isfinite(value) else math.nan


def probe_scores(logs: Iterable[EvalLog]) -> ProbeScores:
    """The judge's scores of every probe of one audit, from its logs (read with their samples).

    Args:
        logs: The probe logs of one audit. Logs without an audit record are ignored; when one
            probe has several logs (a probe run again), the most recently created one counts.

    Returns:
        Probe -> item id -> score, NaN for a candidate the judge left unscored (an unreadable
        verdict) or a sample without the judge's column; probes in the order given.

    Raises:
        ValueError: The logs belong to more than one audit.
    """
    chosen: dict[str, EvalLog] = {}
    audits: set[str | None] = set()
    for log in logs:
        record = read_audit_record(log.eval.metadata)
        if record is None or record.probe is None:
            continue
        audits.add(record.audit_id)
        old = chosen.get(record.probe)
        if old is None or str(log.eval.created) >= str(old.eval.created):
            chosen[record.probe] = log
    if len(audits) > 1:
        names = ", ".join(sorted(str(audit) for audit in audits))
        raise ValueError(f"the logs belong to {len(audits)} audits ({names}); read one audit at a time")
    scores: ProbeScores = {}
    for probe, log in chosen.items():
        record = read_audit_record(log.eval.metadata)
        assert record is not None  # chosen above for having one
        column = JudgeId.of(record.strategy or DEFAULT_STRATEGY, record.language).column
        scores[probe] = {sample.id: _score(sample, column) for sample in log.samples or []}
    return scores
