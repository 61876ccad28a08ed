"""``vivid report``: every table and figure of the paper from a folder of Inspect logs.

:func:`write_report` reads the logs once (headers and sample summaries, see
:mod:`vivid_inspect.report.logs`), builds the tables, prints them as markdown and writes the
files. The same logs (and human file) give byte-identical files on every run. Logs of
``vivid audit`` add one card table per audit (:mod:`vivid_inspect.report.audit_tables`) and
are read by no table of generations.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from vivid_inspect.inputs.human_scores import read_generation_record, read_human_scores
from vivid_inspect.report import paper, plots
from vivid_inspect.report.audit_tables import audit_tables
from vivid_inspect.report.binding import bind_generation, generations_in
from vivid_inspect.report.judges import PAPER_JUDGE, choose_judge, judge_rows
from vivid_inspect.report.log_files import AUDIT, NOT_GENERATIONS, SANITY
from vivid_inspect.report.logs import LogSet, one_line, read_logs
from vivid_inspect.report.reliability import Reliability, build_reliability
from vivid_inspect.report.render import (
    Format,
    Table,
    parse_formats,
    to_csv,
    to_latex,
    to_markdown,
)
from vivid_inspect.report.repeats import first_repeat
from vivid_inspect.report.tables import (
    AVERAGE,
    THEME_COLUMNS,
    TRAIT_COLUMNS,
    counts,
    table3,
    table4,
    table5,
)
from vivid_inspect.report.usage import usage_table
from vivid_inspect.report.versions import stale_judgements

DEFAULT_OUT = "report"
REPORT_MD = "report.md"


@dataclass(frozen=True)
class Report:
    """A built report.

    Attributes:
        markdown: Every table as markdown, as the CLI prints it.
        files: Files written, in the order written.
        tables: The tables, in report order.
        skipped: Files under the log folder that were not read, and audit logs that gave no card,
            ``path: reason`` each.
    """

    markdown: str
    files: list[Path] = field(default_factory=list)
    tables: tuple[Table, ...] = ()
    skipped: tuple[str, ...] = ()

    def table(self, name: str) -> Table:
        """The table with this name (``table1_judges``, ``table3_themes``, ...)."""
        for table in self.tables:
            if table.name == name:
                return table
        raise ValueError(f"no table {name!r} in the report; have {', '.join(t.name for t in self.tables)}")


def write_report(
    log_dir: str | os.PathLike[str],
    *,
    out_dir: str | os.PathLike[str] | None = None,
    human: str | os.PathLike[str] | None = None,
    formats: Sequence[str] | str = ("md", "csv"),
    judge: str | None = None,
    human_generation: str | None = None,
    figures: bool = True,
) -> Report:
    """Build the report from a log folder and write it.

    Args:
        log_dir: Folder searched recursively for ``.eval``/``.json`` logs (the output folder
            is left out).
        out_dir: Where files go; default ``<log_dir>/report``.
        human: Human scores CSV (``id, score[, annotator]``) for Table 1, or None.
        formats: Any of ``md`` (``report.md``), ``csv`` and ``tex`` (one file per table).
        judge: ``NAME`` or ``NAME@MODEL`` of the judge for Tables 3 and 4 (default: the
            aspect-based judge, or the only judge).
        human_generation: Selector of the generation the human scores belong to (a key, model,
            prompt, part of the log path, or several): needed only when the human file names no
            generation and several are judged (see :mod:`vivid_inspect.report.binding`).
        figures: Also write the PNG figures.

    Returns:
        The report: its markdown and the files written; after the tables of generations, one
        audit card table per audit whose logs are in the folder.

    Raises:
        ValueError: Unknown format, a log folder that does not exist, a ``judge`` or
            ``human_generation`` that matches nothing.
        vivid_inspect.inputs.human_scores.HumanScoresError: The human scores file is invalid.
    """
    chosen_formats = parse_formats(formats)
    root = Path(log_dir)
    out = Path(out_dir) if out_dir is not None else root / DEFAULT_OUT
    humans = read_human_scores(human) if human is not None else None
    record = read_generation_record(human) if human is not None else None
    logset = read_logs(root, exclude=[out])
    tables, reliability = build_tables(
        logset, humans=humans, judge=judge, human_generation=human_generation, human_record=record
    )
    audits, unread = audit_tables(root, logset.audits)
    tables = (*tables, *audits)
    skipped = (*logset.skipped, *(one_line(entry) for entry in unread))
    out.mkdir(parents=True, exist_ok=True)
    drawn = _figures(out, tables, reliability, humans is not None) if figures else []
    markdown = _markdown(logset, tables, human is not None, skipped) + _figures_markdown(drawn)
    files = _write(out, tables, markdown, chosen_formats)
    files.extend(figure.path for figure in drawn if figure.path is not None)
    return Report(markdown=markdown, files=files, tables=tables, skipped=skipped)


def build_tables(
    logset: LogSet,
    *,
    humans: pd.DataFrame | None = None,
    judge: str | None = None,
    human_generation: str | None = None,
    human_record: dict[str, object] | None = None,
) -> tuple[tuple[Table, ...], Reliability]:
    """Every table of the report, in order, from logs already read.

    Args:
        logset: The logs.
        humans: Human scores (as from ``read_human_scores``), or None.
        judge: Judge for Tables 3 and 4 (see :func:`vivid_inspect.report.judges.choose_judge`).
        human_generation: Selector of the generation of Table 1 (see :func:`write_report`).
        human_record: The generation record beside the human file, whose eval id is checked.

    Returns:
        The tables and the reliability results (agreements for the figures).
    """
    rows = judge_rows(logset.scores[logset.scores["task"] == "explain"])
    first = first_repeat(rows)  # a judge's further repeats feed self-consistency only
    # A copy holding only further repeats (inspect score -S repeat=r --output-file) is no candidate.
    generation, why = bind_generation(
        generations_in(logset), set(first["generation"]), humans, human_record, human_generation
    )
    reliability = build_reliability(rows, humans, generation=generation, why=why)
    chosen, why = choose_judge(first, judge)
    t3, t4, t5 = table3(first, chosen, why), table4(first, chosen, why), table5(logset.scores)
    comparisons = _comparisons(reliability.tables[0], t3, t4, t5)
    return (
        *reliability.tables,
        t3,
        t4,
        t5,
        *comparisons,
        counts(logset.scores),
        usage_table(logset),
    ), reliability


def _comparisons(t1: Table, t3: Table, t4: Table, t5: Table) -> list[Table]:
    judges = t1.frame[t1.frame["strategy"] != ""]
    ours1 = judges.rename(columns={"judge_model": "model_name"})
    # The paper's judge mean is over the human-scored items: our mean over the paired items.
    ours1 = ours1.assign(model=ours1["model_name"], prompt=ours1["strategy"], mean=ours1["judge_mean"])
    matched = [paper.paper_model(str(m)) == PAPER_JUDGE for m in ours1["model"]]
    human_rows = t1.frame[t1.frame["judge"] == "human"]
    if any(matched) and not human_rows.empty:
        human = human_rows.assign(model=PAPER_JUDGE, prompt="human", mean=human_rows["human_mean"])
        ours1 = pd.concat([human, ours1], ignore_index=True)
    t5_paper = t5.frame[t5.frame["shots"].fillna(3) == 3]
    specs = [
        ("table1", "Table 1", ours1, "prompt", ["mean", "kappa"], 3),
        ("table3", "Table 3", t3.frame, "prompt", [*THEME_COLUMNS, AVERAGE], 2),
        ("table4", "Table 4", t4.frame, "prompt", list(TRAIT_COLUMNS), 2),
        ("table5", "Table 5", t5_paper, None, ["topic", "traits"], 3),
    ]
    tables = []
    for name, title, ours, prompt, columns, decimals in specs:
        frame = paper.compare(name, ours, model="model", prompt=prompt, columns=columns)
        if name == "table1":
            # The human row's kappa is 1 by definition on both sides; its mean is worth comparing.
            frame = frame[~((frame["prompt"] == "human") & (frame["column"] == "kappa"))].reset_index(
                drop=True
            )
            frame.loc[frame["prompt"] == "human", "model"] = "humans"
        if frame.empty:
            continue
        notes: tuple[str, ...] = ("diff = ours - paper; only models (and judge models) the paper evaluated",)
        if name == "table1":
            notes += (
                "mean: a judge's mean over the items the humans scored (judge_mean); on the humans' row, theirs",
            )
        tables.append(
            Table(
                f"{name}_vs_paper", f"{title}: ours beside the paper's", frame, decimals=decimals, notes=notes
            )
        )
    return tables


def _markdown(logset: LogSet, tables: tuple[Table, ...], has_humans: bool, skipped: tuple[str, ...]) -> str:
    by_task: dict[str, int] = {}
    for ref in logset.logs:
        by_task[ref.task] = by_task.get(ref.task, 0) + 1
    judged = sum(1 for ref in logset.logs if ref.vivid_judge is not None)
    lines = ["# VIVID report", ""]
    if not logset.logs:
        lines.append("- no Inspect logs found")
    else:
        tasks = ", ".join(f"{task} {n}" for task, n in sorted(by_task.items()))
        lines.append(
            f"- logs read: {len(logset.logs)} ({tasks}; {judged} of them judged copies of a generation)"
        )
    incomplete = sorted(ref.rel for ref in logset.logs if not ref.complete)
    if incomplete:
        lines.append(
            f"- incomplete logs (their completed samples are used, rows flagged): {', '.join(incomplete)}"
        )
    lines.extend(f"- skipped: {entry}" for entry in skipped)
    lines.extend(_set_aside_notes(logset))
    stale = stale_judgements(logset.scores)
    if stale:
        lines.append(f"- {stale}")
    lines.extend(_left_out_notes(logset))
    if not has_humans:
        lines.append("- no human scores: pass --human FILE for the agreement statistics of Table 1")
    lines.append("")
    return "\n".join(lines) + "\n" + "\n".join(to_markdown(table) for table in tables)


def _set_aside_notes(logset: LogSet, limit: int = 10) -> list[str]:
    """One note per kind of judged log that holds no generations (audit, sanity), naming the logs."""
    notes = []
    for kind, paths in ((AUDIT, logset.audits), (SANITY, logset.sanity)):
        if not paths:
            continue
        rels = [path.relative_to(logset.root).as_posix() for path in paths]
        listed = ", ".join(rels[:limit]) + (f" and {len(rels) - limit} more" if len(rels) > limit else "")
        notes.append(
            f"- set aside {len(rels)} {kind} log(s), read by no table of generations: {listed}; "
            f"each is {NOT_GENERATIONS[kind]}"
            + ("; their cards are the audit tables" if kind == AUDIT else "")
        )
    return notes


def _left_out_notes(logset: LogSet) -> list[str]:
    """One section: per task setting, the items left out as shown idioms or near-duplicates, and why.

    Each generation log's task metadata ``leakage`` names every item it left out, the idiom shown
    with its answer that the item is or resembles (a demonstration or a judge's graded example)
    and their similarity; an older log only its ids. Settings that left out the same items share
    a line; each note is one line of the report's list.
    """
    settings_by_record: dict[tuple[float | None, tuple[str, ...]], set[str]] = {}
    for ref in logset.logs:
        if ref.vivid_judge is not None or not ref.leakage.left_out:
            continue
        setting = (
            ref.prompt if ref.prompt is not None else f"{ref.shots} shots" if ref.shots is not None else None
        )
        described = tuple(entry.describe() for entry in ref.leakage.left_out)
        settings_by_record.setdefault((ref.leakage.threshold, described), set()).add(
            f"{ref.task} ({setting})" if setting else ref.task
        )
    lines = []
    for (threshold, described), settings in sorted(
        settings_by_record.items(), key=lambda item: sorted(item[1])
    ):
        head = (
            f"- left out of {', '.join(sorted(settings))} ({len(described)} item(s), no score counts them): "
        )
        if threshold is None:
            ids = ", ".join(line.split(" ", 2)[1] for line in described)
            lines.append(
                head + "the idiom is a demonstration or a judge's graded example (logged before task "
                f"version 3, which recorded the ids only): ids {ids}"
            )
        else:
            lines.append(
                head + f"the idiom is, or is a near-duplicate of (similarity >= {threshold:g}), one shown "
                "with its answer: " + "; ".join(described)
            )
    return lines


def _write(out: Path, tables: tuple[Table, ...], markdown: str, formats: tuple[Format, ...]) -> list[Path]:
    files: list[Path] = []
    if "md" in formats:
        files.append(_write_text(out / REPORT_MD, markdown))
    for table in tables:
        if "csv" in formats:
            files.append(_write_text(out / f"{table.name}.csv", to_csv(table)))
        if "tex" in formats:
            files.append(_write_text(out / f"{table.name}.tex", to_latex(table)))
    return files


def _write_text(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8", newline="\n")
    return path


def _figures(
    out: Path, tables: tuple[Table, ...], reliability: Reliability, has_humans: bool
) -> list[plots.Drawn]:
    by_name = {table.name: table for table in tables}
    table3, table4 = by_name["table3_themes"].frame, by_name["table4_traits"].frame
    return plots.draw_figures(out, table3, table4, reliability.agreements, has_humans)


def _figures_markdown(drawn: list[plots.Drawn]) -> str:
    """The figures section of report.md: each file drawn, or why it was not."""
    if not drawn:
        return ""
    lines = ["", "### Figures", ""]
    for figure in drawn:
        what = figure.title if figure.path is not None else f"not drawn: {figure.reason}"
        lines.append(f"- `{figure.file}`: {what}")
    return "\n".join(lines) + "\n"
