"""``vivid run``: prepare everything, generate, judge, aggregate, record, report.

Every step finds the work already done and skips it: generation through ``eval_set``'s own
resume, judge and panel cells by their judged logs. So a run after a crash or Ctrl-C does only
what is missing, and a run after a complete one makes no model calls.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vivid_inspect.lab.interrupt import raise_if_cancelled
from vivid_inspect.lab.report.build import Report, write_report
from vivid_inspect.lab.runner.audits import AUDITS_DIR, AuditResult, run_audits
from vivid_inspect.lab.runner.cells import JUDGED_DIR
from vivid_inspect.lab.runner.generate import GenerationResult, reuse_conflicts, run_generations
from vivid_inspect.lab.runner.judging.cell import JudgedResult
from vivid_inspect.lab.runner.judging.phase import run_judges
from vivid_inspect.lab.runner.judging.unscored import unscored_judges
from vivid_inspect.lab.runner.lock import Holder, describe, log_folder_lock
from vivid_inspect.lab.runner.prepare.models import build_models
from vivid_inspect.lab.runner.prepare.preflight import run_preflight
from vivid_inspect.lab.runner.prepare.prepared import Prepared, prepare
from vivid_inspect.lab.runner.progress import COMPACT, Progress, inspect_console_quiet, tracking
from vivid_inspect.lab.runner.record import output_entry, write_record
from vivid_inspect.lab.runner.scrub import redacted_logging, redacted_output, scrub_folder
from vivid_inspect.lab.runner.spec.credentials import placeholder_line, spec_texts
from vivid_inspect.lab.runner.spec.load import LoadedSpec
from vivid_inspect.lab.runner.spec.problems import SpecError
from vivid_inspect.lab.runner.spec.yaml_source import with_lines
from vivid_inspect.lab.unscored import UNSCORED_SHARE_LIMIT
from vivid_inspect.lab.writable import check_writable
from vivid_inspect.redact import add_public_text
from vivid_inspect.text import printable


@dataclass
class RunResult:
    """The outcome of one ``vivid run``.

    Attributes:
        generations: One result per generation cell.
        judged: One result per judge cell, then per panel cell.
        progress: Counters, including model calls per model.
        record_dir: Where the resolved spec and package freeze were written.
        report: The report's Markdown, when the report step ran.
        report_files: The files the report step wrote (tables, ``report.md``, figures).
        audits: One result per ``audits:`` entry of the spec.
        unscored: One line per judge with a cell whose unscored share exceeds the run's limit
            (`unscored`); ``vivid run`` then exits 1.
    """

    generations: list[GenerationResult]
    judged: list[JudgedResult]
    progress: Progress
    record_dir: Path
    report: str | None = None
    report_files: list[Path] = field(default_factory=list)
    audits: list[AuditResult] = field(default_factory=list)
    unscored: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether every cell of the spec is complete, and every audit it lists has its card."""
        cells = all(g.done for g in self.generations) and all(j.ok for j in self.judged)
        return cells and all(a.ok for a in self.audits)


def _outputs(
    prepared: Prepared, generations: list[GenerationResult], judged: list[JudgedResult]
) -> dict[str, Any]:
    log_dir = prepared.loaded.log_dir
    entries: dict[str, Any] = {
        g.cell.label: output_entry(log_dir, g.log, g.status, g.error) for g in generations
    }
    for j in judged:
        generation = next(
            (g.cell.label for g in generations if g.log == j.generation_log), str(j.generation_log)
        )
        entries[f"{j.name} × {generation}"] = output_entry(log_dir, j.output, j.status, j.error)
    return entries


def _report(loaded: LoadedSpec, progress: Progress) -> Report | None:
    try:
        return write_report(
            loaded.log_dir,
            out_dir=loaded.log_dir / "report",
            human=[path for path, _ in loaded.humans],
            human_generation=[generation for _, generation in loaded.humans],
            formats=("md", "csv"),
        )
    except Exception as error:  # noqa: BLE001 - the logs are complete; the report can be rebuilt
        progress.error(f"report failed: {type(error).__name__}: {error}")
        return None


def register_placeholders(loaded: LoadedSpec) -> str | None:
    """Make the spec's model names, service names and paths placeholders for redaction.

    A key that is part of them (``LLAMACPP_API_KEY=llamacpp`` for ``openai-api/llamacpp/...``)
    is then never redacted, so the logs, the resolved spec and the report keep the model's name
    and a rerun finds its logs (`vivid_inspect.redact.placeholder_reason`).

    Args:
        loaded: The spec.

    Returns:
        One line naming the credential variables of the spec's models that hold placeholders,
        or None.
    """
    data = loaded.spec.model_dump(mode="json")
    paths = [str(loaded.log_dir), *(str(path) for path, _ in loaded.humans), loaded.data or ""]
    add_public_text([*spec_texts(data, str(loaded.source)), *paths])
    return placeholder_line(data)


def run_spec(
    loaded: LoadedSpec,
    *,
    display: str | None = None,
    report: bool = True,
    quiet: bool = False,
    preflight: bool = True,
    wait: bool = False,
    unscored_limit: float = UNSCORED_SHARE_LIMIT,
) -> RunResult:
    """Run (or resume) a validated spec.

    Args:
        loaded: The spec.
        display: Inspect's display type for generation (``full``, ``rich``, ``plain``, ``none``).
        report: Build the report at the end.
        quiet: Print no progress lines.
        preflight: Check each model endpoint that still has calls to make, with one request,
            before anything runs (`preflight`).
        wait: When another run holds the log folder, wait for it instead of raising FolderBusy.
        unscored_limit: The largest unscored share a judge cell may have before the result names
            its judge (`RunResult.unscored`).

    Returns:
        What ran and what is complete.

    Raises:
        FolderBusy: Another live ``vivid run`` holds the log folder and ``wait`` is False
            (nothing has run).
        FolderNotWritable: No file can be created in the log folder, e.g. it is read-only
            (nothing has run, nothing in it has changed).
        SpecError: An item id the spec lists is not in the data, or a finished log holds other
            items than the spec now selects (nothing has run).
        SetupError: A model cannot be created, e.g. its API key is missing, or its endpoint
            failed the preflight check (nothing has run).
        VividDataError: The data cannot be read (nothing has run).
        KeyboardInterrupt: Interrupted (Ctrl-C); completed work is kept and a rerun resumes. A
            `RunInterrupted` says what was kept.
    """
    # before the lock: its file is the first write, and a read-only folder must change nothing
    check_writable(loaded.log_dir)
    placeholders = register_placeholders(loaded)
    if placeholders is not None and not quiet:
        print(f"vivid run: {placeholders}", file=sys.stderr)

    def waiting(holder: Holder) -> None:
        if not quiet:
            print(
                f"vivid run: waiting for {describe(holder)} to finish with {loaded.log_dir}", file=sys.stderr
            )

    # One run per log folder: a second would repeat every missing call (see runner/lock.py).
    # Credentials a provider echoes are redacted from output now and from the files at the end.
    with (
        log_folder_lock(loaded.log_dir, spec=str(loaded.source), wait=wait, on_wait=waiting),
        redacted_logging(),
        redacted_output(),
    ):
        try:
            return _run_spec(
                loaded, display=display, report=report, quiet=quiet, preflight=preflight, limit=unscored_limit
            )
        finally:
            scrub_folder(loaded.log_dir)


def _run_spec(
    loaded: LoadedSpec, *, display: str | None, report: bool, quiet: bool, preflight: bool, limit: float
) -> RunResult:
    prepared = prepare(loaded)
    conflicts = reuse_conflicts(prepared)
    if conflicts:
        raise SpecError(with_lines(str(loaded.source), conflicts), str(loaded.source))
    cells = prepared.cells
    # Creating the first model makes Inspect print its version and hook count; vivid's own lines
    # say what is running.
    with inspect_console_quiet():
        models = build_models(loaded)
    checked = run_preflight(loaded, models) if preflight else None
    progress = Progress(
        totals={"generation": len(cells.generations), "judge": len(cells.judges), "panel": len(cells.panels)},
        quiet=quiet,
    )
    progress.ticks = not progress.console.is_terminal or display in (None, COMPACT, "none")
    record_dir = write_record(prepared)
    progress.note(f"{loaded.spec.name}: logs in {loaded.log_dir}")
    if checked is not None and checked.checked:
        progress.note(f"preflight: {len(checked.checked)} endpoint(s) answered: {', '.join(checked.checked)}")
    for note in checked.notes if checked is not None else []:
        progress.note(f"preflight: {note}")
    with tracking(progress):
        generations = run_generations(prepared, models, progress, display)
        started = time.time()
        with progress.live("judging"), inspect_console_quiet():
            judged = run_judges(prepared, generations, models.judges, progress)
        raise_if_cancelled(loaded.log_dir / JUDGED_DIR, started, "judging")
        audits: list[AuditResult] = []
        for entry in loaded.spec.audits:
            # one audit at a time, so that Ctrl-C (which Inspect turns into cancelled logs) stops
            # the run before the next audit starts
            started = time.time()
            alone = dataclasses.replace(loaded, spec=loaded.spec.model_copy(update={"audits": [entry]}))
            with progress.live("auditing"), inspect_console_quiet():
                audits += run_audits(alone, models.judges, progress)
            raise_if_cancelled(loaded.log_dir / AUDITS_DIR / entry.judge, started, f"auditing {entry.judge}")
    write_record(prepared, _outputs(prepared, generations, judged))
    # judge cells only: a panel of such judges would repeat their lines
    unscored = unscored_judges(judged[: len(cells.judges)], limit)
    result = RunResult(generations, judged, progress, record_dir, audits=audits, unscored=unscored)
    progress.note("finished" if result.ok else "finished with incomplete cells (rerun to resume)")
    if report:
        built = _report(loaded, progress)
        result.report = str(built.markdown) if built is not None else None
        result.report_files = list(built.files) if built is not None else []
        if built is not None and not quiet:  # the summary only: the tables are in report.md
            progress.console.print(printable(built.summary, lines=True), markup=False)
    return result
