"""The items to score: read from an exported annotation sheet, as the annotators should see them.

A sheet shows each item's three texts: for VIVID's logs ``idiom``, ``reference_meaning`` and
``explanation``; for another eval's (`vivid_inspect.lab.report.reading.any_eval`) the sample's
``input``, its ``target`` (empty when it has none) and the model's ``output``. Another eval's
sheet carries the judge's scale in its record (``scale``: the adapter's declared one, else the
range of the judge's scores), which bounds the scores an annotator may give; VIVID's is 0-5.

A sheet written by ``vivid annotate export`` holds text cells neutralised for spreadsheets (a
leading ``'`` before anything a spreadsheet would evaluate); the page shows the text itself, so
that quote is taken off again, and only where export put it.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from vivid_inspect.lab.humans.csv_records import Problems, iter_records
from vivid_inspect.lab.humans.scores_file import (
    SCALE_KEY,
    HumanScoresError,
    Problem,
    cell_problem,
    id_problem,
    id_value,
    record_path,
    record_scale,
)
from vivid_inspect.lab.humans.sheet_files import cut, neutralise
from vivid_inspect.lab.humans.sheet_import import sheet_generation
from vivid_inspect.lab.report.reading.judged import Scale, item_key
from vivid_inspect.size_caps import SHEETS
from vivid_inspect.text import nfc

TEXT_COLUMNS: tuple[str, ...] = ("idiom", "reference_meaning", "explanation")
"""VIVID's texts: the idiom, its reference meaning and the explanation to score."""
ANY_COLUMNS: tuple[str, ...] = ("input", "target", "output")
"""Another eval's texts: the sample's input and target, and the model's output to score."""


@dataclass(frozen=True)
class Item:
    """One output to score, as shown: no model, prompt or judge.

    Attributes:
        id: The sample id (VIVID's: a whole number; another eval's: as Inspect wrote it).
        input: What the model was given (VIVID: the idiom).
        target: The reference answer, or empty (VIVID: the reference meaning).
        output: The model's output to score (VIVID: the explanation).
    """

    id: Any
    input: str
    target: str
    output: str

    @property
    def texts(self) -> tuple[str, str, str]:
        """Input, target and output, in the sheet's column order."""
        return (self.input, self.target, self.output)


@dataclass(frozen=True)
class Sheet:
    """An exported sheet's items and the record of the generation they were drawn from.

    Attributes:
        path: The sheet.
        items: Items in the sheet's order.
        record: The generation record beside the sheet; None for a sheet without a
            ``generation`` column (made by hand), whose scores are bound to no generation.
    """

    path: Path
    items: tuple[Item, ...]
    record: dict[str, Any] | None

    @property
    def key(self) -> str | None:
        """The generation key, or None."""
        return None if self.record is None else str(self.record["generation"])

    @property
    def scale(self) -> Scale:
        """The scale the annotators score on: another eval's from the record, else VIVID's."""
        return record_scale(self.record)

    @property
    def columns(self) -> tuple[str, ...]:
        """The names of the three text columns."""
        return TEXT_COLUMNS if self.record is None or SCALE_KEY not in self.record else ANY_COLUMNS


def score_cell(score: int | float | None) -> str:
    """A score as a sheet writes it: ``4``, ``7.5``, never an exponent (empty: not scored)."""
    if score is None:
        return ""
    return str(score) if isinstance(score, int) else np.format_float_positional(score, trim="-")


def sheet_text(
    columns: tuple[str, ...], rows: Iterable[tuple[Any, Item, object, str]], key: str | None
) -> str:
    """A sheet as written: a header, then a row per (id, item, score, annotator), texts cut and neutralised.

    Args:
        columns: The three text columns (`TEXT_COLUMNS` or `ANY_COLUMNS`).
        rows: Each row's id as written, item, score cell and annotator.
        key: The generation key of every row; None writes no ``generation`` column.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    tail = () if key is None else (key,)
    writer.writerow(("id", *columns, "score", "annotator", *(("generation",) if tail else ())))
    for item_id, item, score, annotator in rows:
        writer.writerow([item_id, *(neutralise(cut(text)) for text in item.texts), score, annotator, *tail])
    return buffer.getvalue()


def shown(cell: str) -> str:
    """A sheet cell as the text it stands for.

    The ``'`` that export puts before a formula-like cell is dropped; a ``'`` that the text itself
    starts with is kept.
    """
    if cell.startswith("'") and neutralise(cell[1:]) == cell:
        return cell[1:]
    return cell


def sheet_id(cell: str, any_eval: bool) -> Any:
    """A sheet's id cell as an item id: VIVID's a whole number 1 to ``MAX_ID`` (else None), another eval's its text."""
    if any_eval:
        return item_key(nfc(cell)) if cell else None
    return id_value(cell)


def read_sheet(path: Path) -> Sheet:
    """Read an exported sheet's items and its generation record.

    Args:
        path: The sheet (``id`` and VIVID's `TEXT_COLUMNS` or another eval's `ANY_COLUMNS`
            required; ``generation`` and the score columns optional, the scores are not read).

    Returns:
        The sheet.

    Raises:
        HumanScoresError: The file is not a readable sheet (or is over its size cap), a column is
            missing, an id is not a whole number 1 to ``MAX_ID`` (another eval's: empty) or
            appears twice, rows name several generations, a keyed sheet has no record beside it,
            or another eval's sheet has none with its scale (each problem with its row, line and
            column).
    """
    records = iter_records(path, "sheet", "expected a sheet written by `vivid annotate export`", SHEETS)
    header_line, header = next(records)
    columns = [nfc(name).strip() for name in header]
    texts = ANY_COLUMNS if set(ANY_COLUMNS) <= set(columns) else TEXT_COLUMNS
    missing = [name for name in ("id", *texts) if name not in columns]
    if missing:
        message = f"missing column(s) {', '.join(map(repr, missing))}; expected a sheet written by `vivid annotate export`"
        raise HumanScoresError(path, [Problem(None, header_line, None, message)])
    problems = Problems()
    items: list[Item] = []
    seen: dict[Any, int] = {}
    keys: list[tuple[int, int, dict[str, str]]] = []
    for row, (line, cells) in enumerate(records, start=1):
        values = {name: (cells[i] if i < len(cells) else "") for i, name in enumerate(columns)}
        item = sheet_id(values["id"].strip(), texts == ANY_COLUMNS)
        if item is None:
            problems.add(partial(cell_problem, row, line, "id", id_problem, values["id"].strip()))
            continue
        if item in seen:
            problems.add(
                Problem(row, line, "id", f"id {item} appears again (first in data row {seen[item]})")
            )
            continue
        seen[item] = row
        keys.append((row, line, {"generation": values.get("generation", "").strip()}))
        items.append(Item(item, *(nfc(shown(values[name])) for name in texts)))
    if problems:
        raise problems.error(path)
    if not items:
        raise HumanScoresError(path, "no data rows below the header")
    # import's own reading of the sheet's generation: its record, and a readable scale of another eval's
    record, _ = sheet_generation(path, header_line, keys if "generation" in columns else None)
    if texts == ANY_COLUMNS and (record is None or SCALE_KEY not in record):
        message = f"a sheet of another eval's outputs needs the record `vivid annotate export` wrote beside it, with the judge's scale ({record_path(path).name})"
        raise HumanScoresError(path, message)
    return Sheet(path, tuple(items), record)
