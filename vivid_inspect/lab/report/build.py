"""``vivid report``: every table and figure of the paper from a folder of Inspect logs.

`write_report` reads the logs once (headers and sample summaries, see
`vivid_inspect.lab.report.reading.logs`), builds the tables, prints them as markdown and writes the
files. The same logs (and human file) give byte-identical files on every run. Logs of
``vivid audit`` add one card table per audit (`vivid_inspect.lab.report.cards.audit_tables`) and
are read by no table of generations.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from vivid_inspect.lab.humans.binding import NOT_COMPARED, bind_generation
from vivid_inspect.lab.interrupt import rewriting_report
from vivid_inspect.lab.report import plots
from vivid_inspect.lab.report.cards.audit_tables import audit_tables
from vivid_inspect.lab.report.cards.cards import judge_cards
from vivid_inspect.lab.report.cards.human_files import (
    BoundFile,
    HumanFile,
    bind_files,
    draw_lines,
    labels_of,
    read_human_files,
)
from vivid_inspect.lab.report.cards.judge_card import CARD_FILE
from vivid_inspect.lab.report.cards.summary import report_generations, summary_markdown
from vivid_inspect.lab.report.reading.any_eval import group_rows
from vivid_inspect.lab.report.reading.log_files import AUDIT, CLASSIFICATION_TASKS, NOT_GENERATIONS, SANITY
from vivid_inspect.lab.report.reading.log_refs import LogRef
from vivid_inspect.lab.report.reading.logs import LogSet, generations_in, one_line, read_logs
from vivid_inspect.lab.report.reading.versions import stale_judgements
from vivid_inspect.lab.report.stats.alt_test import DEFAULT_EPSILON, epsilon_of
from vivid_inspect.lab.report.stats.humans import human_means
from vivid_inspect.lab.report.stats.repeats import first_repeat
from vivid_inspect.lab.report.tables.corrected_tables import corrected_view
from vivid_inspect.lab.report.tables.judges import choose_judge, judge_rows, language_of, select, strategy_of
from vivid_inspect.lab.report.tables.paper_tables import comparisons
from vivid_inspect.lab.report.tables.prompt_difference import prompt_differences
from vivid_inspect.lab.report.tables.reliability import Reliability, build_reliability
from vivid_inspect.lab.report.tables.render import Format, Table, parse_formats, to_csv, to_latex, to_markdown
from vivid_inspect.lab.report.tables.tables import counts, group_table, table3, table4, table5
from vivid_inspect.lab.report.tables.usage import usage_table
from vivid_inspect.lab.unscored import UNSCORED_SHARE_LIMIT

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
        cards: The judge card file's text (``judge_card.md``): one page per judge.
        summary: The summary that opens the markdown (``summary.summary_markdown``), which is all
            ``vivid run`` prints of the report.
    """

    markdown: str
    files: list[Path] = field(default_factory=list)
    tables: tuple[Table, ...] = ()
    skipped: tuple[str, ...] = ()
    cards: str = ""
    summary: str = ""

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
    human: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
    formats: Sequence[str] | str = ("md", "csv"),
    judge: str | None = None,
    human_generation: str | Sequence[str | None] | None = None,
    figures: bool = True,
    epsilon: float | str = DEFAULT_EPSILON,
    groups: Sequence[str] = (),
) -> Report:
    """Build the report from a log folder and write it.

    Args:
        log_dir: Folder searched recursively for ``.eval``/``.json`` logs (the output folder
            is left out).
        out_dir: Where files go; default ``<log_dir>/report``.
        human: Human scores CSV (``id, score[, annotator][, generation]``), or several, one per
            generation the humans scored, or None. Table 1 compares with the first file's
            generation; every file's generation gets the corrected columns of Tables 3 and 4.
        formats: Any of ``md`` (``report.md`` and ``judge_card.md``), ``csv`` and ``tex`` (one
            file per table).
        judge: ``NAME`` or ``NAME@MODEL`` of the judge for Tables 3 and 4 (default: the
            aspect-based judge, or the only judge).
        human_generation: Selector of the generation the human scores belong to (a key, model,
            prompt, part of the log path, or several): needed only when a human file names no
            generation and several are judged (see `vivid_inspect.lab.humans.binding`). With
            several files, one selector per file (None for one that needs none).
        figures: Also write the PNG figures.
        epsilon: The alternative annotator test's handicap: a number or ``expert``, ``skilled``,
            ``crowd`` (`vivid_inspect.lab.report.stats.alt_test.epsilon_of`).
        groups: Sample metadata keys to group by: one table per key, as Tables 3 and 4 per
            theme and trait (`vivid_inspect.lab.report.tables.tables.group_table`).

    Returns:
        The report: its markdown and the files written; after the tables of generations, one
        audit card table per audit whose logs are in the folder.

    Raises:
        ValueError: Unknown format, a log folder that does not exist, a ``judge`` or
            ``human_generation`` that matches nothing, selectors that do not pair with the
            files, two files bound to one generation, a bad ``epsilon``, a group key no judged
            sample's metadata has.
        vivid_inspect.lab.humans.scores_file.HumanScoresError: A human scores file is invalid.
        vivid_inspect.lab.interrupt.ReportInterrupted: Ctrl-C once the first file was written: the
            folder keeps its ``INCOMPLETE`` mark.
    """
    chosen_formats = parse_formats(formats)
    handicap = epsilon_of(epsilon)
    root = Path(log_dir)
    out = Path(out_dir) if out_dir is not None else root / DEFAULT_OUT
    paths = _listed(human)
    selectors = _listed(human_generation)
    files = read_human_files(paths, selectors if paths else ())
    logset = read_logs(root, exclude=[out])
    audits, unread = audit_tables(root, logset.audits)
    built = _build(
        logset,
        files,
        judge,
        None if paths else _one(selectors),
        audits=audits,
        epsilon=handicap,
        log_dir=str(log_dir),
        groups=groups,
    )
    tables = (*built.tables, *audits)
    skipped = (*logset.skipped, *(one_line(entry) for entry in unread))
    out.mkdir(parents=True, exist_ok=True)
    with rewriting_report(out) as check:  # marked incomplete until the last file is written
        drawn = _figures(out, tables, built.reliability, built.table1_humans, built.judge) if figures else []
        check()
        summary = summary_markdown(
            tables, has_humans=bool(files), log_dir=str(log_dir), unscored_limit=UNSCORED_SHARE_LIMIT
        )
        markdown = _markdown(logset, tables, bool(files), skipped, built.lines, summary)
        markdown += _figures_markdown(drawn)
        files_written = _write(out, tables, markdown, chosen_formats, check)
        if "md" in chosen_formats:
            files_written.insert(1, _write_text(out / CARD_FILE, built.cards))
    files_written.extend(figure.path for figure in drawn if figure.path is not None)
    return Report(
        markdown=markdown,
        files=files_written,
        tables=tables,
        skipped=skipped,
        cards=built.cards,
        summary=summary,
    )


def _listed(value: object) -> list[Any]:
    """A single option value or a sequence of them as a list (None: empty)."""
    if value is None:
        return []
    if isinstance(value, str | os.PathLike):
        return [value]
    return list(value)  # type: ignore[call-overload]


def _one(selectors: list[str | None]) -> str | None:
    """The selector of Table 1's generation when no human file is given (at most one)."""
    if len(selectors) > 1:
        raise ValueError("--human-generation is given more than once without --human files to pair with")
    return selectors[0] if selectors else None


@dataclass(frozen=True)
class _Built:
    """The tables, the reliability results, the lines report.md says about them, the judge of Tables 3-4."""

    tables: tuple[Table, ...]
    reliability: Reliability
    lines: list[str]
    judge: str
    cards: str = ""
    table1_humans: bool = False


def _build(
    logset: LogSet,
    files: Sequence[HumanFile],
    judge: str | None,
    selector: str | None,
    *,
    audits: Sequence[Table] = (),
    epsilon: float = DEFAULT_EPSILON,
    log_dir: str = "LOG_DIR",
    groups: Sequence[str] = (),
) -> _Built:
    """Every table from the logs read, with what report.md says about them."""
    rows = judge_rows(logset.scores)  # VIVID's explanation judges, and any other task's scorers
    run_rows = judge_rows(logset.run_scores)
    first = first_repeat(rows)  # a judge's further repeats feed self-consistency only
    # A copy holding only further repeats (inspect score -S repeat=r --output-file) is no candidate;
    # every run counts, not only the latest.
    every_first = first_repeat(run_rows)
    judged = set(zip(every_first["generation"], every_first["run"], strict=True))
    generations = generations_in(logset, any_eval=True)
    generic = {ref.key for ref in logset.logs if ref.generic}
    bound = bind_files(generations, judged, files, rows, generic)
    compared = [entry for entry in bound if entry.compared]
    # Table 1 compares with the first file bound to a generation of the folder (else says why not).
    table1 = compared[0] if compared else (bound[0] if bound else None)
    binding = (
        table1.binding if table1 is not None else bind_generation(generations, judged, None, None, selector)
    )
    lines = _binding_lines(bound, table1)
    reliability = build_reliability(
        rows,
        table1.file.scores if table1 is not None and table1.compared else None,
        generation=binding.generation,
        why=binding.note,
        run=binding.run,
        run_rows=run_rows,
    )
    chosen, why = choose_judge(first, judge)
    humans = {str(entry.binding.generation): human_means(entry.file.scores) for entry in compared}
    t3, t4 = table3(first, chosen, why, humans), table4(first, chosen, why, humans)
    grouped = group_rows(first, groups) if groups else first
    by_group = [group_table(grouped, key, humans) for key in dict.fromkeys(groups)]  # a key named twice: once
    if chosen is not None:
        mine = select(first, chosen)
        for entry in compared:
            lines.extend(draw_lines(entry, mine[mine["generation"] == entry.binding.generation]))
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
    cards = judge_cards(
        first,
        [labels_of(entry, generations) for entry in compared],
        audits,
        epsilon=epsilon,
        log_dir=log_dir,
        generations=report_generations([t3]),  # the summary's order and items: one recommended command
    )
    table1_tables = _with_bias_pointer(reliability.tables[0], cards.tables)
    identities = {key: ref.identity for key, ref in refs.items() if ref.identity is not None}
    tables = (
        table1_tables,
        *cards.tables,
        *reliability.tables[1:],
        t3,
        *filter(None, [corrected_view(t3, "Table 3")]),
        t4,
        *filter(None, [corrected_view(t4, "Table 4")]),
        *(shown for table in by_group for shown in (table, corrected_view(table, table.title)) if shown),
        prompt_differences(first, identities),
        t5,
        *found.tables,
        counts(logset.scores),
        usage_table(logset),
    )
    return _Built(
        tables,
        reliability,
        lines,
        chosen.label if chosen else "",
        cards.markdown,
        table1 is not None and table1.compared,
    )


def _binding_lines(bound: Sequence[BoundFile], table1: BoundFile | None) -> list[str]:
    """What report.md says of each human file: not compared (and why), or what else it feeds."""
    lines = []
    for entry in bound:
        if not entry.compared:
            lines.append(f"{entry.file.name}: {entry.binding.note or NOT_COMPARED}")
        elif entry is not table1 and table1 is not None:
            lines.append(
                f"{entry.file.name}: {entry.binding.note}; its scores give the corrected columns of Tables 3 and 4, "
                f"judge_bias and the judge card (Table 1 compares with {table1.file.name}'s generation)"
            )
    return lines


def _with_bias_pointer(table1: Table, extra: Sequence[Table]) -> Table:
    """Table 1 with a note pointing to the judges' bias per generation, when the report has it."""
    bias = next((t for t in extra if t.name == "judge_bias"), None)
    if bias is None:
        return table1
    generations = bias.frame["generation"].nunique()
    note = (
        f"each judge's bias (judge - human) on the {generations} generation(s) with human scores, with its interval, "
        "and the corrected means: judge_bias below"
    )
    return replace(table1, notes=(*table1.notes, note))


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
    summary: str = "",
) -> str:
    by_task = Counter(ref.task for ref in logset.logs)
    judged = sum(1 for ref in logset.logs if ref.vivid_judge is not None)
    lines = ["# VIVID report", "", summary, "## Logs read", ""] if summary else ["# VIVID report", ""]
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


def _write(
    out: Path,
    tables: tuple[Table, ...],
    markdown: str,
    formats: tuple[Format, ...],
    check: Callable[[], None],
) -> list[Path]:
    files: list[Path] = []
    if "md" in formats:
        files.append(_write_text(out / REPORT_MD, markdown))
    for table in tables:
        check()  # a Ctrl-C that a callback dropped stops here, not after the last file
        if not table.files:  # a view printed in report.md; its numbers are in another table's files
            continue
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
