"""The corrected columns of Tables 3 and 4, and the view of them printed under each table.

For a generation human scores are bound to, every cell (a theme, ``Average``, a trait) gets the
human-only mean, the prediction-powered (PPI++) mean and the judge's bias, each with its 95 %
interval (`vivid_inspect.lab.report.stats.corrected.corrected_cell`), and the number of labelled
items, beside the judge-only mean the table already holds. A cell with fewer labelled items
than the rule's smallest n (`MIN_LABELLED`) prints the
means and says why it prints no interval. Other generations leave the columns empty.

The CSV files hold these columns (`CORRECTED_COLUMNS`); the terminal view of a wide table
has no room for them, so `corrected_view` prints them under it, one row per bound
generation and cell, as a table that writes no file of its own.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Collection, Mapping
from typing import Any

import pandas as pd

from vivid_inspect.lab.report.stats.corrected import MIN_LABELLED, SCORE_RANGE, VARIANCE_NOTE, corrected_cell
from vivid_inspect.lab.report.stats.intervals import Interval, interval_text
from vivid_inspect.lab.report.tables.render import Table, interval_columns

CORRECTED_COLUMNS: tuple[str, ...] = (
    *interval_columns("human_mean", text=False),
    *interval_columns("corrected_mean", text=False),
    *interval_columns("bias", text=False),
    "n_human",
    "n_human_unscored",
    "corrected_note",
)
"""The columns a cell gains; ``n_human_unscored``: labelled items the judge left unscored (counted in
``n_human``); ``corrected_note`` says why the three have no interval, or how unscored items were counted."""
ESTIMAND = (
    "human_mean, corrected_mean: estimates of the mean human score over every item of the cell the judge scored "
    "(human_mean from the labelled items only, corrected_mean from the judge's score of every item corrected by "
    "the labelled ones); bias: the judge's mean over the items it scored minus their corrected mean (positive: "
    "lenient), what the correction removes"
)
ASSUMPTION = (
    "the labelled items are taken to be a uniform random draw within their generation (as `vivid annotate "
    "export` and `serve` draw them); items picked otherwise give means of the picked items"
)
VIEW_COLUMNS: tuple[str, ...] = (
    "model",
    "prompt",
    "data",
    "generation",
    "cell",
    "n_human",
    "n_human_unscored",
    "n_items",
    "judge_mean",
    "human_mean",
    "human_ci",
    "corrected_mean",
    "corrected_ci",
    "bias",
    "bias_ci",
    "note",
)


def corrected_columns(
    judge: Mapping[int, float],
    human: Mapping[int, float] | None,
    items: Collection[int] = (),
    score_range: tuple[float, float] = SCORE_RANGE,
) -> dict[str, object]:
    """One cell's corrected columns.

    Args:
        judge: The judge's score of every item of the cell it scored (an item's epochs averaged).
        human: Each labelled item's human score for the cell's generation (any items: those
            outside the cell are left out), or None when no human scores are bound to it.
        items: Every item of the cell; those missing from ``judge`` were left unscored (or refused).
        score_range: The lowest and highest score.

    Returns:
        The values of `CORRECTED_COLUMNS`: empty without human scores.
    """
    if human is None:
        return dict.fromkeys(CORRECTED_COLUMNS[:-1]) | {"corrected_note": ""}
    unscored = set(items) - set(judge)
    mine = {item: score for item, score in human.items() if item in judge or item in unscored}
    found = corrected_cell(judge, mine, unscored=unscored, score_range=score_range)
    columns: dict[str, object] = {}
    for name, interval in (
        ("human_mean", found.human),
        ("corrected_mean", found.corrected),
        ("bias", found.bias),
    ):
        columns |= {name: interval.estimate, f"{name}_lo": interval.lo, f"{name}_hi": interval.hi}
    columns["n_human"] = found.n_human
    columns["n_human_unscored"] = found.n_human_unscored
    why = _why_none(found.n_human, (found.human, found.corrected, found.bias))
    counted = (
        f"{found.n_unscored} item(s) the judge left unscored ({found.n_human_unscored} labelled) are a stratum of "
        "their own in corrected_mean; bias is over the items it scored"
        if found.n_unscored and found.n_human
        else ""
    )
    columns["corrected_note"] = "; ".join(filter(None, (why, counted, found.note)))
    return columns


def _why_none(n_human: int, intervals: tuple[Interval, ...]) -> str:
    if n_human == 0:
        return "no human scores on this cell's items"
    if all(interval.lo is not None for interval in intervals):
        return ""
    if n_human < MIN_LABELLED:
        return f"too few labelled items for an interval ({n_human}; printed from {MIN_LABELLED})"
    reasons = sorted({interval.reason for interval in intervals if interval.lo is None and interval.reason})
    return "; ".join(reasons)


def corrected_view(table: Table, number: str) -> Table | None:
    """The corrected columns of a cell table, for the terminal: one row per bound generation and cell.

    Args:
        table: Table 3 or 4 as `vivid_inspect.lab.report.tables.tables.table3` built it.
        number: ``Table 3`` or ``Table 4``, for the title.

    Returns:
        The view (it writes no file: its numbers are in the table's CSV), or None when no
        generation of the table has human scores.
    """
    cells = table.csv_rows
    bound = cells[cells["n_human"].notna()] if "n_human" in cells.columns else cells.iloc[0:0]
    if bound.empty:
        return None
    records = []
    for row in bound.to_dict("records"):
        records.append(
            {
                key: row[key]
                for key in VIEW_COLUMNS[: VIEW_COLUMNS.index("n_items") + 1]  # the cell and its counts
            }
            | {"judge_mean": row["judge_mean"]}
            | {
                column: row[name] if column == name else _ci(row, name)
                for name in ("human_mean", "corrected_mean", "bias")
                for column in (name, name.replace("_mean", "") + "_ci")
            }
            | {"note": row["corrected_note"]}
        )
    frame = pd.DataFrame(records, columns=list(VIEW_COLUMNS)).assign(judge=bound["judge"].to_numpy())
    shown = [c for c in VIEW_COLUMNS if c not in ("data", "generation")]
    if frame["judge"].nunique() > 1:  # a group table of several judges
        shown.insert(2, "judge")
    if frame["data"].nunique() > 1:
        shown.insert(2, "data")
    if frame[["model", "prompt", "data"]].drop_duplicates().shape[0] < frame["generation"].nunique():
        shown.insert(2, "generation")
    notes = (
        ESTIMAND,
        ASSUMPTION,
        VARIANCE_NOTE,
        f"every number here is also in {table.name}.csv (columns human_mean, corrected_mean, bias with _lo/_hi, "
        "n_human, n_human_unscored, n_items, corrected_note)",
    )
    return Table(
        f"{table.name}_corrected",
        f"{number} corrected by the human scores: human-only mean, prediction-powered (PPI++) mean and the "
        "judge's bias",
        frame[shown],
        decimals=2,
        notes=notes,
        counts=("n_human", "n_human_unscored", "n_items"),
        files=False,
    )


def _ci(row: Mapping[Any, object], name: str) -> str:
    """``[lo, hi]`` of one of the row's intervals, or empty (the note says why)."""
    lo, hi = row.get(f"{name}_lo"), row.get(f"{name}_hi")
    if (
        not isinstance(lo, numbers.Real)
        or not isinstance(hi, numbers.Real)
        or math.isnan(lo)
        or math.isnan(hi)
    ):
        return ""
    return interval_text(Interval(float(lo), float(lo), float(hi), 0), decimals=2)
