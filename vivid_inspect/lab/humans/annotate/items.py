"""The items to score: read from an exported annotation sheet, as the annotators should see them.

A sheet written by ``vivid annotate export`` holds text cells neutralised for spreadsheets (a
leading ``'`` before anything a spreadsheet would evaluate); the page shows the text itself, so
that quote is taken off again, and only where export put it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from vivid_inspect.lab.humans.csv_records import Problems, iter_records
from vivid_inspect.lab.humans.csv_records import shown as shown_cell
from vivid_inspect.lab.humans.scores_file import (
    HumanScoresError,
    Problem,
    id_problem,
    id_value,
    read_generation_record,
    record_path,
)
from vivid_inspect.lab.humans.sheet_files import neutralise
from vivid_inspect.size_caps import SHEETS
from vivid_inspect.text import nfc

TEXT_COLUMNS: tuple[str, ...] = ("idiom", "reference_meaning", "explanation")


@dataclass(frozen=True)
class Item:
    """One explanation to score, as shown: no model, prompt or judge."""

    id: int
    idiom: str
    reference_meaning: str
    explanation: str


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


def _id_problem(row: int, line: int, cell: str) -> Problem:
    return Problem(row, line, "id", id_problem(cell))


def shown(cell: str) -> str:
    """A sheet cell as the text it stands for.

    The ``'`` that export puts before a formula-like cell is dropped; a ``'`` that the text itself
    starts with is kept.
    """
    if cell.startswith("'") and neutralise(cell[1:]) == cell:
        return cell[1:]
    return cell


def read_sheet(path: Path) -> Sheet:
    """Read an exported sheet's items and its generation record.

    Args:
        path: The sheet (``id, idiom, reference_meaning, explanation`` required; ``generation``
            and the score columns optional, the scores are not read).

    Returns:
        The sheet.

    Raises:
        HumanScoresError: The file is not a readable sheet (or is over its size cap), a column is
            missing, an id is not a whole number 1 to ``MAX_ID`` or appears twice, rows name several
            generations, or a keyed sheet has no record beside it (each problem with its row, line
            and column).
    """
    records = iter_records(path, "sheet", "expected a sheet written by `vivid annotate export`", SHEETS)
    header_line, header = next(records)
    columns = [nfc(name).strip() for name in header]
    missing = [name for name in ("id", *TEXT_COLUMNS) if name not in columns]
    if missing:
        message = f"missing column(s) {', '.join(map(repr, missing))}; expected a sheet written by `vivid annotate export`"
        raise HumanScoresError(path, [Problem(None, header_line, None, message)])
    problems = Problems()
    items: list[Item] = []
    seen: dict[int, int] = {}
    keys: set[str] = set()
    for row, (line, cells) in enumerate(records, start=1):
        values = {name: (cells[i] if i < len(cells) else "") for i, name in enumerate(columns)}
        item = id_value(values["id"].strip())
        if item is None:
            problems.add(partial(_id_problem, row, line, values["id"].strip()))
            continue
        if item in seen:
            problems.add(
                Problem(row, line, "id", f"id {item} appears again (first in data row {seen[item]})")
            )
            continue
        seen[item] = row
        if "generation" in values:
            keys.add(values["generation"].strip())
        texts = {name: nfc(shown(values[name])) for name in TEXT_COLUMNS}
        items.append(Item(item, **texts))
    if len(keys) > 1:
        named = sorted(keys)
        listed = ", ".join(shown_cell(key) for key in named[:5]) + (
            f" and {len(named) - 5:,} more" if len(named) > 5 else ""
        )
        problems.add(Problem(None, header_line, "generation", f"rows name several generations: {listed}"))
    if problems:
        raise problems.error(path)
    if not items:
        raise HumanScoresError(path, "no data rows below the header")
    record = None
    if keys:
        key = keys.pop()
        record = read_generation_record(path)
        if record is None:
            message = (
                f"no record of generation {key!r} beside the sheet ({record_path(path).name}); serve the sheet "
                "where `vivid annotate export` wrote it, with its record"
            )
            raise HumanScoresError(path, message)
        if record["generation"] != key:
            raise HumanScoresError(
                path, f"the sheet names generation {key!r} but its record is of {record['generation']!r}"
            )
    return Sheet(path, tuple(items), record)
