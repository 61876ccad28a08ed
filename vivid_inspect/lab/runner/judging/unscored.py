"""Judges that could not score: read from their judged logs, said in one line per judge.

A judge cell's share of unscored explanations comes from its judged log's header (Inspect counts
the unscored samples of each result column); only a cell over the limit has its sample summaries
read, for the commonest reasons (each score's ``parse_status``) and one reply. Read from the logs,
not from the scoring, so a rerun that makes no calls says the same as the run that judged.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from inspect_ai.log import read_eval_log, read_eval_log_sample_summaries

from vivid_inspect.lab.runner.judging.cell import JudgedResult
from vivid_inspect.log_contract import read_judged_record, recorded_column

REPLY_CHARS = 120
"""The reply a line quotes is cut to this many characters."""


@dataclass
class Unscored:
    """The unscored explanations of one judge, over the cells that exceeded the limit."""

    judge: str
    unscored: int = 0
    judged: int = 0
    cells: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    reply: str | None = None

    def line(self, limit: float, cells: int) -> str:
        """``judge gemma: 85 of 85 explanations unscored (100 %, limit 20 %) in 2 of 2 cells; ...``."""
        share = self.unscored / self.judged if self.judged else 0.0
        reasons = ", ".join(f"{reason} ({count})" for reason, count in self.reasons.most_common(3))
        reply = f"; a reply: {self.reply!r}" if self.reply is not None else ""
        return (
            f"judge {self.judge}: {self.unscored} of {self.judged} explanations unscored "
            f"({100 * share:.0f} %, limit {100 * limit:.0f} %) in {self.cells} of {cells} cell{'s' if cells != 1 else ''}; "
            f"commonest reasons: {reasons or 'not recorded'}{reply}"
        )


def cut(text: str, limit: int = REPLY_CHARS) -> str:
    """``text`` on one line, cut to ``limit`` characters (the last one an ellipsis when cut)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _cell(path: Path, limit: float) -> tuple[int, int, Counter[str], str | None] | None:
    """Unscored and judged counts, reasons and one reply of a judged log over ``limit``; else None."""
    header = read_eval_log(str(path), header_only=True)
    scores = header.results.scores if header.results else []
    record = read_judged_record(header.eval.metadata)
    column = recorded_column(record) if record is not None else None
    chosen = next((s for s in scores if s.name == column), scores[-1] if scores else None)
    if chosen is None or chosen.unscored_samples is None:
        return None
    unscored, judged = chosen.unscored_samples, chosen.unscored_samples + (chosen.scored_samples or 0)
    if not judged or unscored / judged <= limit:
        return None
    reasons: Counter[str] = Counter()
    reply: str | None = None
    for summary in read_eval_log_sample_summaries(str(path)):
        score = (summary.scores or {}).get(chosen.name)
        if score is None or not (isinstance(score.value, float) and math.isnan(score.value)):
            continue
        status = (score.metadata or {}).get("parse_status")
        reasons[str(status or score.reason or "no reason recorded")] += 1
        if reply is None and score.explanation:
            reply = cut(score.explanation)
    return unscored, judged, reasons, reply


def unscored_judges(results: Sequence[JudgedResult], limit: float) -> list[str]:
    """One line per judge with a cell whose unscored share exceeds ``limit``.

    Args:
        results: The judge phase's results; cells without a judged log are passed over.
        limit: The largest unscored share allowed (`vivid_inspect.lab.unscored.UNSCORED_SHARE_LIMIT`).

    Returns:
        The lines, in the order the judges first appear.
    """
    found: dict[str, Unscored] = {}
    cells: Counter[str] = Counter()
    for result in results:
        if not result.ok or not result.output.is_file():
            continue
        cells[result.name] += 1
        cell = _cell(result.output, limit)
        if cell is None:
            continue
        unscored, judged, reasons, reply = cell
        entry = found.setdefault(result.name, Unscored(result.name))
        entry.unscored, entry.judged, entry.cells = (
            entry.unscored + unscored,
            entry.judged + judged,
            entry.cells + 1,
        )
        entry.reasons.update(reasons)
        entry.reply = entry.reply or reply
    return [entry.line(limit, cells[name]) for name, entry in found.items()]
