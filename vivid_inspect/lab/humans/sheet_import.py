"""Import filled annotation sheets as one human scores file (``id, score, annotator[, generation]``).

Every problem in every sheet is reported at once, one line each, naming the sheet, row, line and
column. Only ids, scores, annotators and the generation key are read, so the text cells (which
export neutralised as spreadsheet formulas) never change what is scored.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import pandas as pd

from vivid_inspect.atomic_write import write_atomic
from vivid_inspect.lab.humans.annotators import annotator_key, annotator_name, spelled_apart
from vivid_inspect.lab.humans.binding import id_order
from vivid_inspect.lab.humans.csv_records import Problems, id_problem, id_value, iter_records
from vivid_inspect.lab.humans.scores_file import (
    RECORD_SUFFIX,
    SCALE_KEY,
    HumanScoresError,
    ItemRules,
    Problem,
    cell_problem,
    load_record,
    read_generation_record,
    read_human_scores,
    record_path,
    record_scale,
    score_rule,
    score_value,
    whole_number,
)
from vivid_inspect.lab.humans.sheet_files import check_output
from vivid_inspect.lab.humans.sheet_lock import not_served
from vivid_inspect.lab.report.reading.judged import Scale, item_key
from vivid_inspect.redact import excerpt
from vivid_inspect.size_caps import SHEETS
from vivid_inspect.text import nfc

HUMAN_COLUMNS: tuple[str, ...] = ("id", "score", "annotator")
_READ = ("id", "score", "annotator", "generation")
"""The only columns of a sheet that import reads."""


def import_sheets(
    sheets: Sequence[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    *,
    annotator: str | None = None,
    force: bool = False,
) -> pd.DataFrame:
    """Check filled sheets and write them as one human scores file (``id, score, annotator[, generation]``).

    Every problem in every sheet is reported at once: a row without a score, a score that is not
    a whole number 0-5 (for another eval's sheet: off the scale its record holds), an id that is
    not an integer (another eval's: any text) or not a sample of the sheet's generation,
    the same id scored twice by one annotator, sheets of different generations. The generation
    key of exported sheets is carried into the scores file, and their record (found beside the
    sheet, or as any ``*.generation.json`` with that key in the sheet's folder) is copied beside
    it. A sheet without a ``generation`` column (made by hand) gives an unbound scores file.

    Args:
        sheets: Filled sheets (columns ``id`` and ``score`` required; ``annotator``,
            ``generation`` and the sheet's text columns optional).
        out: The human scores CSV to write.
        annotator: Annotator of rows whose ``annotator`` cell is empty; default the sheet's
            file name without extension.
        force: Replace an existing scores file (an input is never replaced).

    Returns:
        The scores as written (sorted by annotator, then id), as read back by
        `vivid_inspect.lab.humans.scores_file.read_human_scores`.

    Raises:
        ValueError: No sheet given, any problem in any sheet (the message lists them all), or
            ``out`` is an input or exists without ``force``.
        vivid_inspect.lab.folder_lock.FolderBusy: ``out`` is in an annotation folder that a running
            ``vivid annotate serve`` holds (that server alone writes there).
    """
    with not_served(Path(out)):
        return _import(sheets, Path(out), annotator=annotator, force=force)


def _import(
    sheets: Sequence[str | os.PathLike[str]], out: Path, *, annotator: str | None, force: bool
) -> pd.DataFrame:
    if not sheets:
        raise ValueError("no sheet given; expected one or more filled annotation sheets")
    inputs = [path for sheet in map(Path, sheets) for path in (sheet, record_path(sheet))]
    check_output(out, inputs, force=force)
    records: list[tuple[Any, int | float, str]] = []
    seen: dict[tuple[Any, str], str] = {}
    spellings: dict[str, tuple[str, str]] = {}
    errors: list[str] = []
    bound: dict[Path, dict[str, Any] | None] = {}
    for sheet in map(Path, sheets):
        try:
            rows, bound[sheet] = _check_sheet(sheet, annotator or sheet.stem, seen, spellings)
        except HumanScoresError as error:
            errors.append(str(error))
        else:
            records.extend(rows)
    keys = {sheet: (record or {}).get("generation") for sheet, record in bound.items()}
    if len(set(keys.values())) > 1:
        listed = "\n".join(f"  - {sheet}: {key or 'no generation column'}" for sheet, key in keys.items())
        errors.append(
            f"the sheets were drawn from different generations; import each generation on its own:\n{listed}"
        )
    if errors:
        raise ValueError("\n".join(errors))
    record = next(iter(bound.values()), None)
    if record is not None:
        check_output(record_path(out), inputs, force=force)
    return write_scores(out, records, record, list(bound))


def write_scores(
    out: Path,
    rows: list[tuple[Any, int | float, str]],
    record: dict[str, Any] | None,
    sources: Sequence[Path],
) -> pd.DataFrame:
    """Write checked (id, score, annotator) rows as a human scores file, and its generation's record beside it.

    Args:
        out: The human scores file.
        rows: The scores (sorted here by annotator, then id).
        record: The record of the generation they score; None writes an unbound file.
        sources: The files the scores were read from (recorded: the report says the items were drawn).

    Returns:
        The file as `vivid_inspect.lab.humans.scores_file.read_human_scores` reads it back.
    """
    rows = sorted(rows, key=lambda r: (r[2], id_order(str(r[0]))))
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow((*HUMAN_COLUMNS, "generation") if record else HUMAN_COLUMNS)
    writer.writerows((*row, record["generation"]) if record else row for row in rows)
    if record is not None:
        kept = {key: value for key, value in record.items() if key not in ("sheet", "sheet_ids")}
        # The draw's seed stays: the report says the items were drawn uniformly (draw_check.how_drawn).
        kept["sheets"] = [str(source) for source in sources]
        write_atomic(record_path(out), json.dumps(kept, ensure_ascii=False, indent=1) + "\n")
    write_atomic(out, buffer.getvalue())
    # Another eval's file holds its ids as text and its scores on its scale (the report reads it so).
    any_eval = record is not None and SCALE_KEY in record
    return read_human_scores(out, ItemRules(scale=record_scale(record)) if any_eval else None)


def _sheet_record(path: Path, key: str, line: int) -> dict[str, Any]:
    """The record of the generation a sheet names: beside it, or with that key in its folder."""
    beside = read_generation_record(path)
    if beside is not None:
        if beside["generation"] != key:
            message = f"the sheet names generation {key!r} but its record {record_path(path).name} is of {beside['generation']!r}"
            raise HumanScoresError(path, [Problem(1, line, "generation", message)])
        return beside
    for other in sorted(path.parent.glob(f"*{RECORD_SUFFIX}")):
        try:
            data = load_record(other)
        except HumanScoresError:
            continue  # not a record (a pipe, a folder, a huge or broken file): not the one looked for
        if data.get("generation") == key:
            return data
    message = (
        f"no record of generation {key!r}: looked for {record_path(path).name} and any *{RECORD_SUFFIX} in "
        f"{path.parent}; keep the record `vivid annotate export` wrote beside the sheet in the sheet's folder"
    )
    raise HumanScoresError(path, [Problem(1, line, "generation", message)])


def _check_sheet(
    path: Path,
    default_annotator: str,
    seen: dict[tuple[Any, str], str],
    spellings: dict[str, tuple[str, str]],
) -> tuple[list[tuple[Any, int | float, str]], dict[str, Any] | None]:
    """A sheet's (id, score, annotator) rows, checked; ``seen`` and ``spellings`` carry across sheets.

    The sheet is streamed and only the cells import reads are kept (never the text columns).
    """
    records = iter_records(path, "sheet", "expected the exported header with filled scores", SHEETS)
    header_line, header = next(records)
    columns = [nfc(name).strip() for name in header]
    missing = [name for name in ("id", "score") if name not in columns]
    if missing:
        raise HumanScoresError(
            path, [Problem(None, header_line, None, f"missing column(s) {', '.join(map(repr, missing))}")]
        )
    at = {name: columns.index(name) for name in _READ if name in columns}
    cells = [
        (row, line, {name: (record[i].strip() if i < len(record) else "") for name, i in at.items()})
        for row, (line, record) in enumerate(records, start=1)
    ]
    record, samples = sheet_generation(path, header_line, cells if "generation" in at else None)
    problems = Problems()
    rows: list[tuple[Any, int | float, str]] = []
    for row, line, values in cells:
        before = problems.count
        item, score = _check_cells(problems, row, line, values, record, samples)
        who = annotator_name(values.get("annotator", "")) or annotator_name(default_annotator)
        key = annotator_key(who)
        where = f"{path.name} data row {row}"
        if not key:
            problems.add(Problem(row, line, "annotator", f"annotator {who!r} has no visible character"))
        elif spellings.setdefault(key, (who, where))[0] != who:
            first, first_where = spellings[key]
            problems.add(
                Problem(row, line, "annotator", f"{spelled_apart(first, who)} (first in {first_where})")
            )
        elif item is not None:
            if (item, key) in seen:
                message = f"id {item} scored again by {who!r} (first in {seen[(item, key)]}); an annotator scores an item once"
                problems.add(Problem(row, line, "id", message))
            else:
                seen[(item, key)] = where
        if item is not None and score is not None and problems.count == before:
            rows.append((item, score, who))
    if problems:
        raise problems.error(path)
    if not rows:
        raise HumanScoresError(path, "no data rows below the header")
    return rows, record


def _check_cells(
    problems: Problems,
    row: int,
    line: int,
    cells: dict[str, str],
    record: dict[str, Any] | None,
    samples: set[str] | None,
) -> tuple[Any, int | float | None]:
    """A row's id (a sample of the sheet's generation) and score (on its scale), each checked on its own.

    Problems go to ``problems`` (their messages made only while they are listed). The duplicate
    check, which carries state across rows and sheets, stays with the caller.
    """
    number = whole_number(cells["id"])
    item = id_value(cells["id"])
    scale = record_scale(record)
    if record is not None and SCALE_KEY in record:  # another eval's: an id of the generation, as text
        item = item_key(nfc(cells["id"])) if cells["id"] in (samples or ()) else None
        if item is None:
            message = f"id {_shown(cells['id'])} is not a sample of generation {record['generation']!r} (the sheet's)"
            problems.add(Problem(row, line, "id", message))
    elif number is not None and samples is not None and record is not None and str(number) not in samples:
        # A sheet of a generation: any number that is none of its samples (0, -3, 9999) is said to be so.
        message = f"id {number} is not a sample of generation {record['generation']!r} (the sheet's; {len(samples)} samples)"
        problems.add(Problem(row, line, "id", message))
        item = None
    elif item is None:
        problems.add(partial(cell_problem, row, line, "id", id_problem, cells["id"]))
    score = score_value(cells["score"], scale)
    if cells["score"] == "":
        problems.add(Problem(row, line, "score", "not scored yet (empty score)"))
    elif score is None:
        problems.add(
            partial(cell_problem, row, line, "score", partial(_score_problem, scale), cells["score"])
        )
    return item, score


def _score_problem(scale: Scale, cell: str) -> str:
    return f"{score_rule(scale)}, found {_shown(cell)}"


def sheet_generation(
    path: Path, header_line: int, cells: list[tuple[int, int, dict[str, str]]] | None
) -> tuple[dict[str, Any] | None, set[str] | None]:
    """The record of the generation a sheet was drawn from and its sample ids; None without a key.

    Args:
        path: The sheet.
        header_line: Its header's line.
        cells: Each row's (row, line, cells) with its ``generation`` cell; None: no such column.

    Raises:
        HumanScoresError: An empty key, rows of several generations, no record of the key (beside
            the sheet, or with that key in its folder), or one whose scale is unreadable.
    """
    if cells is None:
        return None, None
    keys: dict[str, tuple[int, int]] = {}
    problems = Problems()
    for row, line, values in cells:
        key = values["generation"]
        if not key:
            problems.add(
                Problem(row, line, "generation", "generation key is empty; keep the exported column as it is")
            )
        else:
            keys.setdefault(key, (row, line))
    if len(keys) > 1:
        (first, _), *others = keys.items()
        listed = ", ".join(f"{_shown(key)} (data row {where[0]})" for key, where in others[:5])
        listed += f" and {len(others) - 5:,} more" if len(others) > 5 else ""
        problems.add(
            Problem(None, header_line, "generation", f"rows name several generations: {first!r} and {listed}")
        )
    if problems:
        raise problems.error(path)
    if not keys:
        return None, None
    key, (_, line) = next(iter(keys.items()))
    record = _sheet_record(path, key, line)
    try:
        record_scale(record)
    except ValueError as error:
        raise HumanScoresError(path, [Problem(1, line, "generation", str(error))]) from None
    return record, {str(item) for item in record.get("sample_ids") or []}


def _shown(cell: str) -> str:
    return repr(excerpt(cell, 40))
