"""Judge reliability tables: every table that says how far a judge's scores can be trusted.

Table 1 (each judge against humans, `vivid_inspect.lab.report.tables.table1`), strategy against
strategy with paired intervals and judge against judge (`vivid_inspect.lab.report.tables.judge_pairs`),
self-consistency (`vivid_inspect.lab.report.tables.consistency_table`) and the per-judge summary of
scored, unscored and parse failures (here).

Table 1 and the strategy differences are computed on one generation, the "reliability
generation" (`vivid_inspect.lab.report.tables.reliability_rows.reliability_generation`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import pandas as pd

from vivid_inspect.lab.report.reading.judged import JUDGEMENT_COUNTS, judgement_counts
from vivid_inspect.lab.report.stats.agreement import Agreement
from vivid_inspect.lab.report.stats.consistency import parse_failure_rate
from vivid_inspect.lab.report.stats.humans import human_means
from vivid_inspect.lab.report.stats.repeats import first_repeat
from vivid_inspect.lab.report.tables.consistency_table import consistency_table
from vivid_inspect.lab.report.tables.judge_pairs import judge_differences, judge_pairs
from vivid_inspect.lab.report.tables.judges import JudgeKey, judge_keys, latest, select, strategy_of
from vivid_inspect.lab.report.tables.reliability_rows import on_run, reliability_generation
from vivid_inspect.lab.report.tables.render import Table
from vivid_inspect.lab.report.tables.table1 import build_table1

__all__ = ["Reliability", "build_reliability", "reliability_generation"]


@dataclass(frozen=True)
class Reliability:
    """The judge-reliability tables and the agreements behind Table 1 (for the plots)."""

    tables: tuple[Table, ...]
    agreements: dict[JudgeKey, Agreement] = field(default_factory=dict)
    generation: str | None = None


def build_reliability(
    rows: pd.DataFrame,
    humans: pd.DataFrame | None,
    *,
    generation: str | None = None,
    why: str | None = None,
    n_boot: int = 1000,
    run: str | None = None,
    run_rows: pd.DataFrame | None = None,
) -> Reliability:
    """Every judge-reliability table.

    Args:
        rows: Judge rows of explanation logs (every generation, each judgement once, repeats
            included). Every table but self-consistency uses each judge's first repeat only.
        humans: Human scores (``id``, ``score``, optional ``annotator``), or None.
        generation: The reliability generation's key, already chosen (see
            `reliability_generation`).
        why: How it was chosen, added to Table 1's notes.
        n_boot: 0 skips the intervals (`intervals`); any other value computes them (none resamples).
        run: The run of that generation the humans scored (None: the one ``rows`` holds).
        run_rows: Judge rows of every run (`vivid_inspect.lab.report.reading.logs.LogSet.runs`), where
            Table 1 finds ``run`` when ``rows`` read another run of the generation.

    Returns:
        Table 1, judge pairs, strategy differences, self-consistency and the per-judge summary.
    """
    human = human_means(humans) if humans is not None else {}
    repeated, rows = rows, first_repeat(rows)  # only self-consistency sees the further repeats
    chosen = reliability_generation(rows, set(human), generation)
    compared = on_run(rows, first_repeat(run_rows) if run_rows is not None else rows, chosen, run)
    table, agreements = build_table1(compared, humans, human, chosen, n_boot)
    if why:
        table = replace(table, notes=(why, *table.notes))
    return Reliability(
        tables=(
            table,
            judge_differences(compared, human, chosen, humans is not None, n_boot),
            judge_pairs(rows, n_boot),
            consistency_table(repeated),
            _summary(rows),
        ),
        agreements=agreements,
        generation=chosen,
    )


def _summary(rows: pd.DataFrame) -> Table:
    columns = [
        "judge",
        "strategy",
        "judge_model",
        "generations",
        "samples",
        *JUDGEMENT_COUNTS[:-1],  # truncated is a count of the generations, not of the judges
        "parse_failure_rate",
        "retried",
        "empty_answers",
        "mean",
    ]
    deduped = latest(rows, ["generation", "judge", "judge_model"])
    records: list[dict[str, object]] = []
    for key in judge_keys(deduped):
        mine = select(deduped, key)
        present = mine[~mine["error"]]
        tally = judgement_counts(mine)
        mean = present["value"].mean()
        records.append(
            {
                "judge": key.name,
                "strategy": strategy_of(deduped, key),
                "judge_model": key.model,
                "generations": mine["generation"].nunique(),
                "samples": len(mine),
                **tally,
                "parse_failure_rate": parse_failure_rate(tally["scored"], tally["unscored"]),
                "retried": int(present["retried"].sum()),
                "empty_answers": int((present["parse_status"] == "empty_answer").sum()),
                "mean": None if math.isnan(mean) else float(mean),
            }
        )
    notes = (
        (
            "unscored: the judge gave no readable score after its retries (excluded from every mean, never 0); "
            "refused: a value in the log no judge can give (outside 0-5, not a number), never averaged; "
            "errors: the sample has no score (it failed); empty_answers: empty explanations, scored 0 without a "
            "judge call"
        ),
        "generations: generation keys judged, each judgement counted once however many files hold it",
    )
    title = "Judges: scored and unscored counts and parse-failure rate (all generations)"
    counted = ("generations", "samples", *JUDGEMENT_COUNTS[:-1], "retried", "empty_answers")
    return Table(
        "judge_summary",
        title,
        pd.DataFrame(records, columns=columns),
        decimals=3,
        notes=notes,
        counts=counted,
    )
