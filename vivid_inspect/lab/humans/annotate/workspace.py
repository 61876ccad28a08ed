"""The annotation folder: each annotator's sheet, scores one at a time, undo, human scores.

Files, all in the annotation folder (beside the source, never over it):

- ``sheet.csv`` and its record: the sample, exported from a generation log (only when the source
  is a log or a folder; an exported sheet given as the source is read where it is);
- ``plan.json``: the sheet, annotators, overlap and seed the queues were dealt with, so that a
  restart with other options is refused instead of mixing two plans;
- ``NAME.csv`` and its record, one per annotator: their queue as a sheet in the format
  ``vivid annotate import`` reads, rewritten (atomically) at every score;
- ``humans.csv`` and its record: the scores of every annotator who has finished, written by
  ``vivid annotate import``'s own code, for ``vivid report --human``;
- ``human-logs/`` with ``--write-log``: copies of the generation's logs with the human scores as
  score columns (`.human_log`);
- ``.tokens.json`` (readable by its owner only): each annotator's access token, so that their
  URL still works after a restart.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import threading
from collections.abc import Hashable
from dataclasses import dataclass, field
from functools import partial
from itertools import combinations
from pathlib import Path
from typing import Any

from vivid_inspect.atomic_write import write_atomic
from vivid_inspect.lab.folder_lock import HeldFolder
from vivid_inspect.lab.humans.annotate.guidelines import guidelines
from vivid_inspect.lab.humans.annotate.human_log import LOGS_FOLDER, generation_logs, write_human_log
from vivid_inspect.lab.humans.annotate.items import ANY_COLUMNS, Item, Sheet, score_cell, sheet_id, sheet_text
from vivid_inspect.lab.humans.annotate.queues import Plan
from vivid_inspect.lab.humans.csv_records import Problems, id_problem, iter_records
from vivid_inspect.lab.humans.csv_records import shown as shown_cell
from vivid_inspect.lab.humans.scores_file import (
    HumanScoresError,
    Problem,
    levels,
    record_path,
    score_rule,
    score_value,
)
from vivid_inspect.lab.humans.sheet_import import import_sheets
from vivid_inspect.lab.report.reading.judged import VIVID_SCALE, Scale
from vivid_inspect.size_caps import SHEETS
from vivid_inspect.text import nfc

HUMANS_FILE = "humans.csv"
PLAN_FILE = "plan.json"
TOKENS_FILE = ".tokens.json"


class ScoreError(ValueError):
    """A score request that is refused (unknown item, a score off the sheet's scale)."""


class SaveError(RuntimeError):
    """A change that could not be written.

    Args:
        message: What was (not) saved, and what to do.
        saved: Whether the annotator's sheet holds the change (only the human scores file failed).
    """

    def __init__(self, message: str, *, saved: bool) -> None:
        super().__init__(message)
        self.saved = saved


@dataclass
class Annotator:
    """One annotator's queue and scores.

    Attributes:
        name: The annotator.
        queue: Their items, in the order shown.
        path: Their sheet.
        scores: Item to score, for the items scored so far.
        history: (item, score before) of every change this run, newest last, for undo.
    """

    name: str
    queue: tuple[Any, ...]
    path: Path
    scores: dict[Any, int | float] = field(default_factory=dict)
    history: list[tuple[Any, int | float | None]] = field(default_factory=list)

    @property
    def done(self) -> int:
        """How many of their items have a score."""
        return len(self.scores)

    @property
    def finished(self) -> bool:
        """Whether every item of their queue has a score."""
        return self.done == len(self.queue)


class Workspace:
    """The annotation folder of one sheet and its annotators; safe to use from several threads.

    Args:
        folder: The annotation folder (created if needed).
        sheet: The items and their generation record.
        plan: Every annotator's queue.
        report_folder: The log folder to name in the ``vivid report`` command the page offers.
        write_log: Also keep copies of the generation's logs with the human scores (``--write-log``).
        held: The folder's lock, held for as long as the workspace serves (released by `close`).
    """

    def __init__(
        self,
        folder: Path,
        sheet: Sheet,
        plan: Plan,
        *,
        report_folder: Path | None = None,
        write_log: bool = False,
        held: HeldFolder | None = None,
    ) -> None:
        self.folder = folder
        self.held = held
        self.sheet = sheet
        self.plan = plan
        self.report_folder = report_folder
        # Found now, before anyone scores: a missing log must not fail the last score of the day.
        self.human_logs = generation_logs(sheet.record, report_folder, folder) if write_log else {}
        self.items: dict[Any, Item] = {item.id: item for item in sheet.items}
        self._lock = threading.Lock()
        self.humans_stale = False
        self.annotators = {name: self._load(name) for name in plan.annotators}
        self.tokens = self._tokens()
        self._refresh_humans()

    def close(self) -> None:
        """Let the annotation folder go: another server may then take it."""
        if self.held is not None:
            self.held.release()
            self.held = None

    # --- reading and writing files ---------------------------------------------------------------

    def _load(self, name: str) -> Annotator:
        queue = self.plan.queues[name]
        annotator = Annotator(name, queue, self.folder / f"{name}.csv")
        if annotator.path.exists():
            annotator.scores = _read_scores(annotator.path, set(queue), self.sheet)
        else:
            self._write(annotator)
        return annotator

    def _write(self, annotator: Annotator, scores: dict[Any, int | float] | None = None) -> None:
        """Write an annotator's sheet with ``scores`` (default: their scores in memory)."""
        scores = annotator.scores if scores is None else scores
        rows = ((i, self.items[i], score_cell(scores.get(i)), annotator.name) for i in annotator.queue)
        text = sheet_text(self.sheet.columns, rows, self.sheet.key)
        if self.sheet.record is not None and not record_path(annotator.path).exists():
            record = self.sheet.record | {"sheet": annotator.path.name, "sheet_ids": list(annotator.queue)}
            write_atomic(record_path(annotator.path), json.dumps(record, ensure_ascii=False, indent=1) + "\n")
        write_atomic(annotator.path, text, encoding="utf-8-sig")

    def _tokens(self) -> dict[str, str]:
        """Token to annotator; kept in a file only its owner can read, so URLs survive a restart."""
        path = self.folder / TOKENS_FILE
        stored: dict[str, str] = {}
        if path.exists():
            try:
                loaded = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError, RecursionError) as error:
                reason = getattr(error, "strerror", None) or type(error).__name__
                raise ValueError(
                    f"{path}: unreadable ({reason}); remove it to give every annotator a new URL"
                ) from None
            stored = {str(k): str(v) for k, v in loaded.items()} if isinstance(loaded, dict) else {}
        by_name = {name: stored.get(name) or secrets.token_urlsafe(24) for name in self.plan.annotators}
        if by_name != stored:
            handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                json.dump(by_name, file)
        return {token: name for name, token in by_name.items()}

    @property
    def humans_path(self) -> Path:
        """The human scores file for ``vivid report --human``."""
        return self.folder / HUMANS_FILE

    def _refresh_humans(self) -> None:
        """Write the finished annotators' scores as the human scores file (import's own code).

        With no finished annotator left (an undo), the file is removed: it never holds stale scores.
        """
        finished = [a.path for a in self.annotators.values() if a.finished]
        if finished:
            scores = import_sheets(finished, self.humans_path, force=True)
            for log, copy in self.human_logs.items():
                write_human_log(log, scores, copy, str(self.sheet.key))
        else:
            self.humans_path.unlink(missing_ok=True)
            record_path(self.humans_path).unlink(missing_ok=True)
            for copy in self.human_logs.values():
                copy.unlink(missing_ok=True)

    # --- what a request does ---------------------------------------------------------------------

    def annotator_of(self, token: str) -> str | None:
        """The annotator a token belongs to (compared in constant time), or None."""
        found = None
        for known, name in self.tokens.items():
            if secrets.compare_digest(known.encode(), token.encode()):
                found = name
        return found

    def url_token(self, name: str) -> str:
        """An annotator's token."""
        return next(token for token, owner in self.tokens.items() if owner == name)

    def score(self, name: str, item_id: Any, score: Any) -> dict[str, Any]:
        """Record a score, on disk before returning; memory changes only once it is.

        Raises:
            ScoreError: ``item_id`` is not an item of the annotator's queue, or ``score`` is not a
                JSON number on the sheet's scale (on VIVID's, a whole number 0-5: not a string, a
                fraction or a boolean).
            SaveError: The annotator's sheet (or the human scores file) could not be written.
        """
        annotator = self.annotators[name]
        item = _known(annotator, item_id)
        if isinstance(score, str) or score_value(score, self.sheet.scale) is None:
            raise ScoreError(f"{score_rule(self.sheet.scale)}, got {shown(score)}")
        with self._lock:
            before = annotator.scores.get(item)
            self._commit(annotator, annotator.scores | {item: score}, push=(item, before))
            return self._summary(annotator) | {"id": item, "score": score}

    def undo(self, name: str) -> dict[str, Any]:
        """Take back the newest change of this run; ``id`` is None when there is nothing to undo.

        Raises:
            SaveError: The annotator's sheet (or the human scores file) could not be written; the
                change is not taken back.
        """
        annotator = self.annotators[name]
        with self._lock:
            if not annotator.history:
                return self._summary(annotator) | {"id": None, "score": None}
            item, before = annotator.history[-1]
            scores = dict(annotator.scores)
            if before is None:
                scores.pop(item, None)
            else:
                scores[item] = before
            self._commit(annotator, scores, push=None)
            return self._summary(annotator) | {"id": item, "score": before}

    def _commit(
        self,
        annotator: Annotator,
        scores: dict[Any, int | float],
        push: tuple[Any, int | float | None] | None,
    ) -> None:
        """Write an annotator's new scores, then (only then) hold them in memory.

        The annotator's sheet is what a restart reads: memory follows it, never leads it. The human
        scores file is derived from the finished sheets; one that cannot be rewritten is removed,
        never left stale, and written again at the next save (or restart).

        Args:
            annotator: Whose scores change.
            scores: All of their scores after the change.
            push: The change to remember for undo (item, score before); None takes the newest back.

        Raises:
            SaveError: Nothing changed (``saved`` False: the sheet could not be written), or the
                sheet holds the change but the human scores file could not be written (``saved`` True).
        """
        was_finished = annotator.finished
        try:
            self._write(annotator, scores)
        except Exception as error:  # noqa: BLE001 - whatever stopped the write, nothing was kept
            raise SaveError(
                f"NOT SAVED: {annotator.path.name} could not be written ({_reason(error)}); nothing was "
                "changed: free space or fix the folder, then score again",
                saved=False,
            ) from error
        annotator.scores = scores
        if push is None:
            annotator.history.pop()
        else:
            annotator.history.append(push)
        if was_finished or annotator.finished or self.humans_stale:
            # The human scores file holds finished annotators only: the change of one who is not,
            # and was not, finished leaves it as it is (and spares rewriting a --write-log copy).
            self._refresh_humans_or_remove(annotator)

    def _refresh_humans_or_remove(self, annotator: Annotator) -> None:
        try:
            self._refresh_humans()
        except Exception as error:  # noqa: BLE001 - a derived file: removed, whatever stopped it
            self.humans_stale = True
            for path in (self.humans_path, record_path(self.humans_path), *self.human_logs.values()):
                with contextlib.suppress(OSError):
                    path.unlink(missing_ok=True)
            raise SaveError(
                f"saved in {annotator.path.name}, but {self.humans_path.name} could not be written "
                f"({_reason(error)}); it was removed rather than left out of date, and is written again "
                "at the next score or when the server restarts",
                saved=True,
            ) from error
        self.humans_stale = False

    def state(self, name: str) -> dict[str, Any]:
        """Everything the page shows an annotator: their items (blind), progress, guidelines."""
        annotator = self.annotators[name]
        with self._lock:
            items = [
                {"id": i, **dict(zip(self.sheet.columns, self.items[i].texts, strict=True)), "score": score}
                for i in annotator.queue
                for score in [annotator.scores.get(i)]
            ]
            return self._summary(annotator) | {
                "annotator": name,
                "items": items,
                "guidelines": guidelines() if self.sheet.columns != ANY_COLUMNS else None,
                "scale": _page_scale(self.sheet.scale),
            }

    def _summary(self, annotator: Annotator) -> dict[str, Any]:
        finished = [a for a in self.annotators.values() if a.finished]
        humans = None
        if annotator.finished:
            humans = {
                "path": str(self.humans_path.resolve()),
                "finished": len(finished),
                "annotators": len(self.annotators),
                "command": self.report_command(),
                "logs": str((self.folder / LOGS_FOLDER).resolve()) if self.human_logs else None,
            }
        return {
            "done": annotator.done,
            "total": len(annotator.queue),
            "finished": annotator.finished,
            "can_undo": bool(annotator.history),
            "humans": humans,
            "agreement": self._agreement(),
        }

    def report_command(self) -> str:
        """The ``vivid report`` command that reads the human scores this folder writes."""
        folder = str(self.report_folder) if self.report_folder else "LOG_DIR"
        return f"vivid report {quoted(folder)} --human {quoted(str(self.humans_path.resolve()))}"

    def written(self) -> str:
        """What a finished annotator's scores are written to, for the start-up message."""
        return f"{self.humans_path} is written"

    def description(self) -> str:
        """What is served, in a few words, for the start-up message."""
        key = self.sheet.key or "none (a sheet without a generation column)"
        return f"{len(self.plan.ids)} item(s) of generation {key}"

    def _agreement(self) -> dict[str, Any]:
        """Agreement on the shared items, only once every annotator has scored all of them."""
        shared = self.plan.shared
        if not shared:
            return {"status": "none", "message": "no items are shared between annotators (--overlap 0)"}
        waiting = sum(1 for a in self.annotators.values() if any(i not in a.scores for i in shared))
        if waiting:
            return {
                "status": "waiting",
                "message": f"shown when every annotator has scored the {len(shared)} shared items ({waiting} annotator(s) still to finish them)",
            }
        # imported here: scipy and scikit-learn took a third of the server's start-up, for a rare view
        from vivid_inspect.lab.report.stats.agreement import agreement
        from vivid_inspect.lab.report.stats.raters import raters_alpha

        maps: dict[str, dict[Hashable, float | int | None]] = {
            name: {i: a.scores[i] for i in shared} for name, a in sorted(self.annotators.items())
        }
        pairs = []
        for first, second in combinations(maps, 2):
            result = agreement(maps[second], maps[first], n_boot=0, scale=self.sheet.scale)
            pairs.append(
                {
                    "annotators": [first, second],
                    "n": result.n,
                    "kappa": result.kappa,
                    "quadratic_kappa": result.weighted_kappa,
                    "exact": result.exact,
                }
            )
        notes: list[str] = []
        # Krippendorff's ordinal alpha is defined here on VIVID's whole levels 0-5 only.
        alpha = raters_alpha(maps, notes) if self.sheet.scale == VIVID_SCALE else None
        return {"status": "ready", "n": len(shared), "pairs": pairs, "alpha": alpha, "notes": notes}


def _page_scale(scale: Scale) -> dict[str, Any]:
    """The scale as the page offers it: its levels (None: any number in its range), its rule, where it came from."""
    note = (
        None
        if scale.declared
        else f"scale {scale.label}: the range of the judge's scores (no scale was declared)"
    )
    return {
        "low": scale.low,
        "high": scale.high,
        "levels": levels(scale),
        "rule": score_rule(scale),
        "note": note,
    }


def _known(annotator: Annotator, item_id: Any) -> Any:
    if type(item_id) in (int, str) and item_id in annotator.queue:
        return item_id
    raise ScoreError(f"id {shown(item_id)} is not one of this annotator's items")


def shown(value: Any) -> str:
    """A value from a request, quoted short: never the repr of a whole nested structure."""
    if isinstance(value, list | dict):
        return f"a JSON {'array' if isinstance(value, list) else 'object'}"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**20:
        return "a number with more than 20 digits"
    return repr(str(value)[:20])


def _reason(error: Exception) -> str:
    return (
        (error.strerror if isinstance(error, OSError) else None) or str(error)[:200] or type(error).__name__
    )


def _read_scores(path: Path, queue: set[Any], sheet: Sheet | None = None) -> dict[Any, int | float]:
    """The scores in an annotator's sheet, checked against their queue (each item once) and ``sheet``'s scale."""
    scale = VIVID_SCALE if sheet is None else sheet.scale
    records = iter_records(path, "annotator sheet", "expected the sheet this server wrote", SHEETS)
    header_line, header = next(records)
    columns = [nfc(name).strip() for name in header]
    if "id" not in columns or "score" not in columns:
        message = "missing column 'id' or 'score'; not a sheet this server wrote"
        raise HumanScoresError(path, [Problem(None, header_line, None, message)])
    at = {name: columns.index(name) for name in ("id", "score")}
    scores: dict[Any, int | float] = {}
    problems = Problems()
    seen: dict[Any, tuple[int, int]] = {}
    for row, (line, cells) in enumerate(records, start=1):
        values = {name: (cells[i].strip() if i < len(cells) else "") for name, i in at.items()}
        item = sheet_id(values["id"], sheet is not None and sheet.columns == ANY_COLUMNS)
        if item is None or item not in queue:
            problems.add(partial(_not_an_item, row, line, values["id"], item))
            continue
        if item in seen:
            first_row, first_line = seen[item]
            message = f"id {item} appears again (first in data row {first_row}, line {first_line}); an item is scored once"
            problems.add(Problem(row, line, "id", message))
            continue
        seen[item] = (row, line)
        if values["score"] == "":
            continue
        score = score_value(values["score"], scale)
        if score is None:
            problems.add(partial(_bad_score, row, line, values["score"], scale))
            continue
        scores[item] = score
    if queue - set(seen):
        message = f"{len(queue - set(seen))} item(s) of this annotator's queue are missing"
        problems.add(Problem(None, header_line, "id", message))
    if problems:
        raise problems.error(path)
    return scores


def _not_an_item(row: int, line: int, cell: str, item: Any) -> Problem:
    message = id_problem(cell) if item is None else f"id {item} is not one of this annotator's items"
    return Problem(row, line, "id", message)


def _bad_score(row: int, line: int, cell: str, scale: Scale) -> Problem:
    return Problem(row, line, "score", f"{score_rule(scale)}, found {shown_cell(cell)}")


def quoted(text: str) -> str:
    """A path or name as a shell word (quoted only when it needs to be)."""
    return (
        text
        if text and all(c.isalnum() or c in "/._-:" for c in text)
        else "'" + text.replace("'", "'\\''") + "'"
    )
