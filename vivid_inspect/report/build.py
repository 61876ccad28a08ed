"""``vivid report``: every table and figure of the paper from a folder of Inspect logs.

:func:`write_report` reads the logs once (headers and sample summaries, see
:mod:`vivid_inspect.report.logs`), builds the tables, prints them as markdown and writes the
files. The same logs (and human file) give byte-identical files on every run. Logs of
``vivid audit`` add one card table per audit (:mod:`vivid_inspect.report.audit_tables`) and
are read by no table of generations.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import pandas as pd

from vivid_inspect.inputs.human_scores import read_generation_record, read_human_scores
from vivid_inspect.report import plots
from vivid_inspect.report.audit_tables import audit_tables
from vivid_inspect.report.binding import NOT_COMPARED, bind_generation, generations_in
from vivid_inspect.report.judges import choose_judge, judge_rows, language_of, strategy_of
from vivid_inspect.report.log_files import AUDIT, CLASSIFICATION_TASKS, NOT_GENERATIONS, SANITY
from vivid_inspect.report.log_refs import LogRef
from vivid_inspect.report.logs import LogSet, one_line, read_logs
from vivid_inspect.report.paper_tables import comparisons
from vivid_inspect.report.prompt_difference import prompt_differences
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
from vivid_inspect.report.tables import counts, table3, table4, table5
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
    built = _build(logset, humans, judge, human_generation, record)
    lines = [
        f"{Path(human).name}: {line}" if human is not None and line.startswith(NOT_COMPARED) else line
        for line in built.lines
    ]
    audits, unread = audit_tables(root, logset.audits)
    tables = (*built.tables, *audits)
    skipped = (*logset.skipped, *(one_line(entry) for entry in unread))
    out.mkdir(parents=True, exist_ok=True)
    drawn = _figures(out, tables, built.reliability, humans is not None, built.judge) if figures else []
    markdown = _markdown(logset, tables, human is not None, skipped, lines) + _figures_markdown(drawn)
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
    built = _build(logset, humans, judge, human_generation, human_record)
    return built.tables, built.reliability


@dataclass(frozen=True)
class _Built:
    """The tables, the reliability results, the lines report.md says about them, the judge of Tables 3-4."""

    tables: tuple[Table, ...]
    reliability: Reliability
    lines: list[str]
    judge: str


def _build(
    logset: LogSet,
    humans: pd.DataFrame | None,
    judge: str | None,
    human_generation: str | None,
    human_record: dict[str, object] | None,
) -> _Built:
    """Every table from the logs read, with what report.md says about them."""
    rows = judge_rows(logset.scores[logset.scores["task"] == "explain"])
    run_rows = judge_rows(logset.run_scores[logset.run_scores["task"] == "explain"])
    first = first_repeat(rows)  # a judge's further repeats feed self-consistency only
    # A copy holding only further repeats (inspect score -S repeat=r --output-file) is no candidate.
    every_first = first_repeat(run_rows)
    judged = set(
        zip(every_first["generation"], every_first["run"], strict=True)
    )  # every run, not only the latest
    bound = bind_generation(generations_in(logset), judged, humans, human_record, human_generation)
    lines = [] if bound.compared else [bound.note or ""]
    reliability = build_reliability(
        rows,
        humans if bound.compared else None,
        generation=bound.generation,
        why=bound.note,
        run=bound.run,
        run_rows=run_rows,
    )
    chosen, why = choose_judge(first, judge)
    t3, t4 = table3(first, chosen, why), table4(first, chosen, why)
    refs = _generation_refs(logset)
    t5 = table5(logset.scores, _classification_pairs(refs))
    found = comparisons(
        reliability.tables[0],
        t3,
        t4,
        t5,
        refs=refs,
        judge=chosen,
        strategy=strategy_of(first, chosen) if chosen else "",
        language=language_of(first, chosen) if chosen else None,
        table1_generation=reliability.generation,
    )
    lines.extend(found.reasons)
    identities = {key: ref.identity for key, ref in refs.items() if ref.identity is not None}
    tables = (
        *reliability.tables,
        t3,
        t4,
        prompt_differences(first, identities),
        t5,
        *found.tables,
        counts(logset.scores),
        usage_table(logset),
    )
    return _Built(tables, reliability, lines, chosen.label if chosen else "")


def _generation_refs(logset: LogSet) -> dict[str, LogRef]:
    """A log of each generation, by key: the generation log of its newest run when the folder holds it."""
    refs: dict[str, LogRef] = {}
    ordered = sorted(
        logset.logs, key=lambda ref: (ref.rel == ref.generation_log, ref.complete, ref.created, ref.rel)
    )
    for ref in ordered:
        if ref.identity is not None:
            refs[ref.key] = ref
    return refs


def _classification_pairs(refs: Mapping[str, LogRef]) -> dict[str, str]:
    """Each classification generation's key to its key with the task left out (topic and traits pair on it)."""
    return {
        key: replace(ref.identity, task="classification", eval_id="", log="").key
        for key, ref in refs.items()
        if ref.identity is not None and ref.task in CLASSIFICATION_TASKS
    }


def _markdown(
    logset: LogSet,
    tables: tuple[Table, ...],
    has_humans: bool,
    skipped: tuple[str, ...],
    lines_about: list[str],
) -> str:
    by_task: dict[str, int] = {}
    for ref in logset.logs:
        by_task[ref.task] = by_task.get(ref.task, 0) + 1
    judged = sum(1 for ref in logset.logs if ref.vivid_judge is not None)
    lines = ["# VIVID report", ""]
    if not logset.logs:
        lines.append("- no Inspect logs found")
    else:
        tasks = ", ".join(f"{task} {n}" for task, n in sorted(by_task.items()))
        runs = {(ref.key, ref.run) for ref in logset.logs}
        generations = {ref.key for ref in logset.logs}
        lines.append(
            f"- logs read: {len(logset.logs)} ({tasks}; {judged} of them judged copies of a generation): "
            f"{len(generations)} generation(s) in {len(runs)} run(s), each judgement counted once"
        )
    incomplete = sorted(ref.rel for ref in logset.logs if not ref.complete)
    if incomplete:
        lines.append(
            f"- incomplete logs (their completed samples are used, rows flagged): {', '.join(incomplete)}"
        )
    lines.extend(f"- skipped: {entry}" for entry in skipped)
    lines.extend(f"- {entry}" for entry in logset.counted_once)
    lines.extend(_refused_notes(logset))
    lines.extend(f"- {entry}" for entry in lines_about)
    lines.extend(_set_aside_notes(logset))
    stale = stale_judgements(logset.scores)
    if stale:
        lines.append(f"- {stale}")
    lines.extend(_left_out_notes(logset))
    if not has_humans:
        lines.append("- no human scores: pass --human FILE for the agreement statistics of Table 1")
    lines.append("")
    return "\n".join(lines) + "\n" + "\n".join(to_markdown(table) for table in tables)


def _refused_notes(logset: LogSet, limit: int = 10) -> list[str]:
    """One line per value no judge or scorer could give (up to ``limit``), naming its log and sample."""
    found = logset.refused
    if not found:
        return []
    head = (
        f"- refused {len(found)} value(s) no judge or scorer can give, counted as refused and never averaged:"
    )
    listed = [f"  - {entry}" for entry in found[:limit]]
    more = [f"  - and {len(found) - limit} more"] if len(found) > limit else []
    return [head, *listed, *more]


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
    """One note per set of items the tasks left out because they are demonstrations of the prompt."""
    tasks_by_ids: dict[tuple[int, ...], set[str]] = {}
    for ref in logset.logs:
        if ref.left_out and ref.vivid_judge is None:
            setting = (
                ref.prompt
                if ref.prompt is not None
                else f"{ref.shots} shots"
                if ref.shots is not None
                else None
            )
            tasks_by_ids.setdefault(ref.left_out, set()).add(
                f"{ref.task} ({setting})" if setting else ref.task
            )
    return [
        f"- left out {len(ids)} item(s) whose idiom is a demonstration of the prompt, in {', '.join(sorted(tasks))}: "
        f"ids {', '.join(map(str, ids))} (no score counts them)"
        for ids, tasks in sorted(tasks_by_ids.items())
    ]


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
    out: Path, tables: tuple[Table, ...], reliability: Reliability, has_humans: bool, judge: str
) -> list[plots.Drawn]:
    by_name = {table.name: table for table in tables}
    table3, table4 = by_name["table3_themes"].frame, by_name["table4_traits"].frame
    return plots.draw_figures(out, table3, table4, reliability.agreements, has_humans, judge=judge)


def _figures_markdown(drawn: list[plots.Drawn]) -> str:
    """The figures section of report.md: each file drawn, or why it was not."""
    if not drawn:
        return ""
    lines = ["", "### Figures", ""]
    for figure in drawn:
        what = figure.title if figure.path is not None else f"not drawn: {figure.reason}"
        lines.append(f"- `{figure.file}`: {what}")
    return "\n".join(lines) + "\n"
