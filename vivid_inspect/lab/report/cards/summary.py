"""The report's opening: what a first reader acts on, before any table.

A judge whose replies were mostly unreadable comes first (its means measure nothing), then each
generation's headline mean by the judge of Tables 3 and 4 with its interval and n (and the
corrected mean where humans scored it), then what is missing with the one command that adds it.
``vivid run`` prints only this and points to ``report.md`` for the tables.
"""

from __future__ import annotations

import math
import re
import shlex
from collections.abc import Sequence

import pandas as pd

from vivid_inspect.lab.report.reading.judged import VIVID_SCALE
from vivid_inspect.lab.report.stats.alt_test import RECOMMENDED_ITEMS
from vivid_inspect.lab.report.tables.render import Table
from vivid_inspect.lab.unscored import mostly_unscored
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
        if mostly_unscored(int(missing), int(samples), limit):
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
    # the judges' scale, as Table 3's title says it (`tables.scale_label`)
    scale = re.search(r"\(([^)]*)\)", next(t.title for t in tables if t.name == "table3_themes"))
    scale_text = scale[1] if scale else VIVID_SCALE.label
    lines = [f"- headline means (judge score {scale_text} over every item, 95% interval, n items):"]
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


def report_generations(tables: Sequence[Table]) -> list[tuple[str, int]]:
    """``MODEL PROMPT`` and item count of each generation of Table 3, in the report's order."""
    themes = _table(tables, "table3_themes")
    if themes is None or themes.empty or not {"model", "prompt", "cell", "n_items"} <= set(themes.columns):
        return []
    found: dict[str, int] = {}
    rows = themes[themes["cell"] == "Average"]
    labels = rows["model"].astype(str) + " " + rows["prompt"].astype(str)
    shared = rows.get("generation", labels).groupby(labels).nunique()
    for label, (_, row) in zip(labels, rows.iterrows(), strict=True):
        # two generations of one model and prompt (two tasks of another eval): only the key selects one
        name = row["generation"] if shared[label] > 1 else label
        found.setdefault(name, int(_number(row["n_items"]) or 0))
    return list(found.items())


def other_eval(tables: Sequence[Table]) -> bool:
    """Whether the judge of Tables 3 and 4 is another eval's scorer (it records no VIVID strategy)."""
    themes, judges = _table(tables, "table3_themes"), _table(tables, "judge_summary")
    if themes is None or judges is None or themes.empty or not {"judge", "strategy"} <= {*themes, *judges}:
        return False
    mine = judges[judges["judge"] == themes["judge"].iloc[0]]
    return bool(len(mine)) and not any(isinstance(s, str) and s for s in mine["strategy"])


def annotate_target(
    generations: Sequence[tuple[str, int]], scored: Sequence[str] = ()
) -> tuple[str | None, int]:
    """The generation `annotate_command` names (None: none known) and the shared items it asks for."""
    items = dict(generations)
    chosen = next(iter(scored), None) or next(iter(items), None)
    return chosen, min(RECOMMENDED_ITEMS, items.get(chosen or "", RECOMMENDED_ITEMS))


def annotate_command(log_dir: str, generations: Sequence[tuple[str, int]], scored: Sequence[str] = ()) -> str:
    """The one way to collect human scores the summary and every judge card recommend.

    One rule, so that a user who follows the summary and then a card is never refused by ``serve``
    (both write the same annotation folder): the generation people already scored when there is one
    (more of the same), else the first generation in the report's order. ``--overlap`` (the items
    every annotator shares, the alternative annotator test's minimum) never exceeds the generation's
    items, and ``-n`` is left to its default, which takes every item of a smaller generation.

    Args:
        log_dir: The log folder as the user named it.
        generations: ``MODEL PROMPT`` and item count of each generation, in the report's order.
        scored: ``MODEL PROMPT`` (or the key) of the generations with human scores.

    Returns:
        The ``vivid annotate serve`` command in backticks (no selector without a known generation);
        it serves another eval's generation as it serves VIVID's (docs/annotation.md).
    """
    chosen, overlap = annotate_target(generations, scored)
    selector = f" --generation {shlex.quote(chosen)}" if chosen else ""
    # Shell-quoted (a folder with a space stays one word), then escaped (a newline in a name is shown).
    return printable(
        f"`vivid annotate serve {shlex.quote(log_dir)}{selector} --annotators A,B,C --overlap {overlap}`"
    )


def report_command(
    log_dir: str, file: str, generations: Sequence[tuple[str, int]], scored: Sequence[str], generic: bool
) -> str:
    """``vivid report LOG_DIR --human FILE`` in backticks, with the generation another eval's CSV cannot name.

    With several generations in the folder: the one `annotate_command` named.
    """
    chosen = annotate_target(generations, scored)[0]
    several = chosen if generic and len(generations) > 1 else None
    selector = printable(f" --human-generation {shlex.quote(several)}") if several else ""
    return f"`vivid report {shlex.quote(log_dir)} --human {file}{selector}`"


def missing_lines(tables: Sequence[Table], *, has_humans: bool, log_dir: str) -> list[str]:
    """What the report could not say, each with the one command that adds it."""
    if has_humans:
        return []
    generations, generic = report_generations(tables), other_eval(tables)
    return [
        "- missing: human scores, so no judge is validated yet (agreement, corrected means, the card's verdict);",
        "  collect them, then report with them:",
        f"  {annotate_command(log_dir, generations)}",
        f"  {report_command(log_dir, 'humans.csv', generations, (), generic)}",
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
        Markdown: a heading and its bullet lines, ending with a newline.
    """
    lines = [
        SUMMARY_HEADING,
        "",
        *unreadable_lines(tables, unscored_limit),
        *headline_lines(tables),
        *missing_lines(tables, has_humans=has_humans, log_dir=log_dir),
    ]
    return "\n".join(lines) + "\n"
