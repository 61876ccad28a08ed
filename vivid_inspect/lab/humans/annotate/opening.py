"""Open (or reopen) an annotation folder from what the user gave ``vivid annotate serve``.

A source that is a sheet is read where it is. A generation log or a folder of logs is first
exported to ``sheet.csv`` in the annotation folder by ``vivid annotate export``'s own code (the
same theme-stratified, seeded draw and the same ``--generation`` selector); on a restart that
sheet is reused, so nothing is drawn twice. The plan (sheet, annotators, overlap, seed) is kept in
``plan.json``: a restart with other options is refused, because it would deal the items out again
and mix two plans in the annotators' files.

The folder is held (`vivid_inspect.lab.humans.sheet_lock`) before anything in it is read or
written, and for as long as the workspace lives: a second server on it, from another process,
is refused naming the first.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from vivid_inspect.atomic_write import write_atomic
from vivid_inspect.lab.folder_lock import HeldFolder
from vivid_inspect.lab.humans.annotate.items import read_sheet
from vivid_inspect.lab.humans.annotate.queues import assign, check_annotators
from vivid_inspect.lab.humans.annotate.sheet_export import export_sheet
from vivid_inspect.lab.humans.annotate.workspace import PLAN_FILE, Workspace
from vivid_inspect.lab.humans.annotators import annotator_name
from vivid_inspect.lab.humans.scores_file import record_path
from vivid_inspect.lab.humans.sheet_lock import hold_annotation_folder

SHEET_FILE = "sheet.csv"


def default_folder(source: Path) -> Path:
    """The annotation folder beside a source: ``NAME.annotation`` (``sheet.csv`` gives ``sheet.annotation``)."""
    name = source.stem if source.is_file() else source.resolve().name
    return source.resolve().parent / f"{name}.annotation"


def open_workspace(
    source: str | os.PathLike[str],
    annotators: list[str],
    *,
    overlap: int = 0,
    n: int = 200,
    seed: int = 0,
    generation: str | None = None,
    folder: str | os.PathLike[str] | None = None,
    write_log: bool = False,
) -> Workspace:
    """The annotation folder for a source, created on the first start and reopened on the next.

    Args:
        source: A sheet written by ``vivid annotate export`` (``.csv``), a generation log, or a
            folder of logs.
        annotators: Their names (each names a file).
        overlap: Items every annotator scores, for agreement.
        n: Items to draw from a log (as ``export -n``); not used for a sheet.
        seed: Seed of the draw and of the queue orders.
        generation: Selector of the generation inside a folder (as ``export --generation``).
        folder: The annotation folder; default `default_folder`.
        write_log: Also keep a copy of the generation log with the human scores as score
            columns (see `vivid_inspect.lab.humans.annotate.human_log`).

    Returns:
        The workspace, with every annotator's sheet on disk, holding its folder (release it with
        `close`).

    Raises:
        ValueError: A bad annotator name, overlap or source, or a folder started with other
            options; the message says what to do.
        vivid_inspect.lab.folder_lock.FolderBusy: Another process's server holds the folder.
        OSError: The folder cannot be written (read-only, full).
    """
    annotators = [annotator_name(name) for name in annotators]
    problems = check_annotators(annotators)
    if problems:
        raise ValueError("\n".join(problems))
    source = Path(source)
    if not source.exists():
        raise ValueError(f"{source}: not found; give an exported sheet, a generation log or a folder of logs")
    target = Path(folder) if folder is not None else default_folder(source)
    if source.resolve() == target.resolve() or target.resolve() in source.resolve().parents:
        raise ValueError(f"{target}: is the source or holds it; choose another --out-dir")
    with holding(target) as held:
        return _open(source, target, annotators, overlap, n, seed, generation, write_log, held)


@contextlib.contextmanager
def holding(target: Path) -> Iterator[HeldFolder]:
    """Make and hold an annotation folder; let it go again if opening what is in it fails.

    Raises:
        ValueError: ``target`` is a file.
        vivid_inspect.lab.folder_lock.FolderBusy: Another process's server holds the folder.
    """
    if target.exists() and not target.is_dir():
        raise ValueError(
            f"{target}: is a file; the annotation folder must be a folder (choose another with --out-dir)"
        )
    target.mkdir(parents=True, exist_ok=True)
    held = hold_annotation_folder(target)
    try:
        yield held
    except BaseException:
        held.release()
        raise


def _open(
    source: Path,
    target: Path,
    annotators: list[str],
    overlap: int,
    n: int,
    seed: int,
    generation: str | None,
    write_log: bool,
    held: HeldFolder,
) -> Workspace:
    is_sheet = source.is_file() and source.suffix.lower() == ".csv"
    options: dict[str, Any] = {
        "source": str(source.resolve()),
        "annotators": list(annotators),
        "overlap": overlap,
        "seed": seed,
    }
    if not is_sheet:
        options |= {"n": n, "generation": generation}
    plan_path = target / PLAN_FILE
    started = read_started(plan_path, options, "a plan written by `vivid annotate serve`")
    sheet_path = source if is_sheet else target / SHEET_FILE
    exported = not is_sheet and (started is None or not sheet_path.exists())
    if exported:
        export_sheet(source, sheet_path, n=n, seed=seed, generation=generation, force=True)
    try:
        sheet = read_sheet(sheet_path)
        ids = [item.id for item in sheet.items]
        if started is not None and started.get("ids") != ids:
            raise ValueError(
                f"{sheet_path} no longer holds the items {target} was started with; give another --out-dir"
            )
        plan = assign(ids, annotators, overlap=overlap, seed=seed)
    except ValueError:
        if exported and started is None:
            # Nothing was scored from it: leave no sheet that a corrected start would mistake for its own.
            sheet_path.unlink(missing_ok=True)
            record_path(sheet_path).unlink(missing_ok=True)
        raise
    if started is None:
        write_atomic(plan_path, json.dumps(options | {"ids": ids}, ensure_ascii=False, indent=1) + "\n")
    # The folder `vivid report` reads: the folder served, or the one a log file is in. A sheet's
    # generation log may sit in a subfolder of the run (generations/), so no folder is guessed for it.
    report_folder = source.resolve() if source.is_dir() else None if is_sheet else source.resolve().parent
    return Workspace(target, sheet, plan, report_folder=report_folder, write_log=write_log, held=held)


def read_started(
    path: Path, options: dict[str, Any], what: str, compared: list[str] | None = None
) -> dict[str, Any] | None:
    """What an annotation folder was started with (None: not started), refused if its options differ.

    Args:
        path: Its ``plan.json`` or ``pool.json``.
        options: The options given now.
        what: What the file is, for the error (``a plan written by ...``).
        compared: The options that must be the same (default: all of them).

    Raises:
        ValueError: The file is unreadable or not a JSON object, or was written with other options.
    """
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise ValueError(
            f"{path}: unreadable ({error}); remove it only if no annotator has started"
        ) from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: not {what}")
    changed = [key for key in (options if compared is None else compared) if data.get(key) != options[key]]
    if changed:
        listed = ", ".join(f"{key} {data.get(key)!r} (now {options[key]!r})" for key in changed)
        raise ValueError(
            f"{path.parent} was started with other options: {listed}; start it with the same ones, or give another --out-dir"
        )
    return data
