"""The report's opening: what a first reader acts on, before any table.

A judge whose replies were mostly unreadable comes first (its means measure nothing), then each
generation's headline mean by the judge of Tables 3 and 4 with its interval and n (and the
corrected mean where humans scored it), then what is missing with the one command that adds it.
``vivid run`` prints only this and points to ``report.md`` for the tables.
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Sequence

import pandas as pd

from vivid_inspect.lab.report.render import Table
from vivid_inspect.text import printable

SUMMARY_HEADING = "## Summary"


def _number(value: object) -> float | None:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return None if math.isnan(number) else number


def _interval(row: pd.Series, column: str) -> str:
    mean, lo, hi = (_number(row.get(name)) for name in (column, f"{column}_lo", f"{column}_hi"))
    if mean is None:
        return "no score"
    return (
        f"{mean:.2f} [{lo:.2f}, {hi:.2f}]"
        if lo is not None and hi is not None
        else f"{mean:.2f} (no interval at this n)"
    )


def _table(tables: Sequence[Table], name: str) -> pd.DataFrame | None:
    return next((table.csv_rows for table in tables if table.name == name), None)


def unreadable_lines(tables: Sequence[Table], limit: float) -> list[str]:
    """One line per judge whose share of samples with no readable score exceeds ``limit``."""
    judges = _table(tables, "judge_summary")
    lines: list[str] = []
    if judges is None:
        return lines
    for row in judges.to_dict("records"):
        samples = _number(row.get("samples")) or 0
        missing = (_number(row.get("unscored")) or 0) + (_number(row.get("refused")) or 0)
        if samples and missing / samples > limit:
            model = (
                f" [{printable(row['judge_model'])}]"
                if isinstance(row.get("judge_model"), str) and row["judge_model"]
                else ""
            )
            lines += [
                f"- **judge {printable(row['judge'])}{model} could not score**: {missing:.0f} of {samples:.0f} replies "
                f"({missing / samples:.0%}) gave no readable score;",
                "  its means below are not measurements (judge_summary.csv, judge_card.md)",
            ]
    return lines


def headline_lines(tables: Sequence[Table]) -> list[str]:
    """Each generation's mean over all its items by the judge of Tables 3 and 4."""
    themes = _table(tables, "table3_themes")
    if themes is None or themes.empty or "cell" not in themes:
        return ["- no judged explanations: no headline means"]
    rows = themes[themes["cell"] == "Average"]
    lines = ["- headline means (judge score 0-5 over every item, 95% interval, n items):"]
    for _, row in rows.iterrows():
        judge = (
            f"{row['judge']} [{row['judge_model']}]"
            if isinstance(row.get("judge_model"), str)
            else row["judge"]
        )
        line = f"  - {row['model']} {row['prompt']}: {_interval(row, 'judge_mean')}, n={row['n_items']} (judge {judge})"
        if _number(row.get("corrected_mean")) is not None:
            line += f"; corrected by {row['n_human']} human labels: {_interval(row, 'corrected_mean')}"
        lines.append(printable(line))  # names come from the logs: a newline there is shown, not obeyed
    return lines


def missing_lines(tables: Sequence[Table], *, has_humans: bool, log_dir: str) -> list[str]:
    """What the report could not say, each with the one command that adds it."""
    if has_humans:
        return []
    themes = _table(tables, "table3_themes")
    selector = ""
    if themes is not None and not themes.empty and {"model", "prompt"} <= set(themes.columns):
        first = themes.iloc[0]
        generation = printable(f"{first['model']} {first['prompt']}")
        selector = f" --generation {shlex.quote(generation)}"
    return [
        "- missing: human scores, so no judge is validated yet (agreement, corrected means, the card's verdict);",
        "  collect them, then report with them:",
        f"  `vivid annotate serve {shlex.quote(log_dir)}{selector} --annotators A,B,C`",
        f"  `vivid report {shlex.quote(log_dir)} --human humans.csv`",
    ]


def summary_markdown(
    tables: Sequence[Table], *, has_humans: bool, log_dir: str, unscored_limit: float
) -> str:
    """The summary section that opens ``report.md`` and is all ``vivid run`` prints of the report.

    Args:
        tables: The report's tables.
        has_humans: Whether human scores were given.
        log_dir: The log folder, as the commands suggested should name it.
        unscored_limit: The share of unreadable replies above which a judge is named first.

    Returns:
        Markdown: a heading and its bullet lines, ending with a blank line.
    """
    lines = [
        SUMMARY_HEADING,
        "",
        *unreadable_lines(tables, unscored_limit),
        *headline_lines(tables),
        *missing_lines(tables, has_humans=has_humans, log_dir=log_dir),
    ]
    return "\n".join(lines) + "\n"
