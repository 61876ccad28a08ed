"""Human annotation files: 0-5 scores of model explanations, to validate the LLM judge against.

A file is a CSV with a header and the columns ``id`` (the sample id, an integer), ``score`` (a
whole number 0-5) and, optionally, ``annotator`` and ``generation`` (the key of the generation the
scores were drawn from, see :mod:`vivid_inspect.generation_key`; ``vivid annotate import`` writes
it, and one file holds one generation). UTF-8 with or without a byte-order mark, LF or CRLF line
ends. Every problem in the file is reported at once, each naming the data row (1-based, not
counting the header), the file line and the column, so an annotator can fix them in one pass. A
file that is not what it should be (a folder, a pipe, an ``.env``) is quoted only as a short,
redacted excerpt.

An input format of its own: the runner checks a spec's human scores file with it before any
call, the report and the annotation tools read it; agreement with a judge is the report's
(:mod:`vivid_inspect.report.humans`).
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from vivid_inspect.redact import excerpt
from vivid_inspect.text import nfc

REQUIRED_COLUMNS: tuple[str, ...] = ("id", "score")
OPTIONAL_COLUMNS: tuple[str, ...] = ("annotator", "generation")
RECORD_SUFFIX = ".generation.json"
"""A sheet or scores file ``F`` has its generation's record in ``F.generation.json``."""
MAX_LISTED_PROBLEMS = 50
_QUOTED = 40

# "4" and "4.0" (as spreadsheets write whole numbers) are whole; "4.5" is not.
_WHOLE = re.compile(r"(?P<value>[+-]?\d+)(?:\.0*)?")


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a human scores file."""

    row: int | None
    """1-based data row (the header is not counted); None for the header."""
    line: int
    """1-based line of the file where the row starts."""
    column: str | None
    message: str

    def __str__(self) -> str:
        where = "header" if self.row is None else f"data row {self.row}"
        column = f", column '{self.column}'" if self.column else ""
        return f"{where} (line {self.line}){column}: {self.message}"


class HumanScoresError(ValueError):
    """A human scores file that cannot be used; the message lists every problem found."""

    def __init__(self, path: Path, problems: list[Problem] | str) -> None:
        self.path = path
        self.problems = [] if isinstance(problems, str) else problems
        if isinstance(problems, str):
            message = f"{path}: {problems}"
        else:
            listed = "\n".join(f"  - {problem}" for problem in problems[:MAX_LISTED_PROBLEMS])
            more = len(problems) - MAX_LISTED_PROBLEMS
            tail = f"\n  … and {more} more (fix these first)" if more > 0 else ""
            message = f"{path}: {len(problems)} problem(s) in human scores file:\n{listed}{tail}"
        super().__init__(message)


def read_human_scores(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read and validate a human scores CSV.

    Args:
        path: The CSV file.

    Returns:
        One row per data row, in file order: ``id`` (int64), ``score`` (int64) and, when the
        file has them, ``annotator`` (str, NFC) and ``generation`` (str).

    Raises:
        HumanScoresError: The file is missing, not a regular file, unreadable, has the wrong
            columns, or rows with an id that is not an integer, a score that is not a whole number
            0-5, an empty annotator, an empty generation or one that differs from the first row's,
            or the same (id, annotator) twice. The message names the file and every bad row.
    """
    path = Path(path)
    records = read_records(path, "human scores file", "expected a header 'id,score[,annotator]'")
    header_line, header = records[0]
    columns = _check_header(path, header_line, header)
    problems: list[Problem] = []
    parsed: dict[str, list[object]] = {column: [] for column in columns}
    seen: dict[tuple[int, str | None], tuple[int, int]] = {}
    first_generation: tuple[str, int] | None = None
    for row, (line, record) in enumerate(records[1:], start=1):
        if len(record) != len(columns):
            message = f"expected {len(columns)} fields ({','.join(columns)}), found {len(record)}"
            problems.append(Problem(row, line, None, message))
            continue
        cells = dict(zip(columns, (cell.strip() for cell in record), strict=True))
        sample_id, score, annotator, row_problems = _check_cells(cells, row, line)
        generation = cells.get("generation")
        if generation == "":
            row_problems.append(Problem(row, line, "generation", "generation is empty"))
        elif generation is not None:
            first_generation = first_generation or (generation, row)
            if generation != first_generation[0]:
                message = (
                    f"generation {_shown(generation)} differs from {first_generation[0]!r} of data row "
                    f"{first_generation[1]}; a human scores file holds the scores of one generation"
                )
                row_problems.append(Problem(row, line, "generation", message))
        if sample_id is not None and annotator != "":
            key = (sample_id, annotator)
            if key in seen:
                first_row, first_line = seen[key]
                who = f" by annotator {annotator!r}" if annotator is not None else ""
                message = (
                    f"id {sample_id} scored{who} again (first in data row {first_row}, line {first_line})"
                )
                row_problems.append(Problem(row, line, "id", message))
            else:
                seen[key] = (row, line)
        problems.extend(row_problems)
        if not row_problems:
            values = {"id": sample_id, "score": score, "annotator": annotator, "generation": generation}
            for column in columns:
                parsed[column].append(values[column])
    if problems:
        raise HumanScoresError(path, problems)
    if len(records) == 1:
        raise HumanScoresError(path, "no data rows below the header")
    return _frame(parsed)


def _check_cells(
    cells: dict[str, str], row: int, line: int
) -> tuple[int | None, int | None, str | None, list[Problem]]:
    """One row's id, score and annotator (NFC), each checked on its own, with its problems."""
    problems: list[Problem] = []
    sample_id = whole_number(cells["id"])
    if sample_id is None:
        problems.append(Problem(row, line, "id", _bad("id must be an integer", cells["id"])))
    score = whole_number(cells["score"])
    if score is None or not 0 <= score <= 5:
        message = _bad("score must be a whole number from 0 to 5", cells["score"])
        problems.append(Problem(row, line, "score", message))
    annotator = nfc(cells["annotator"]) if "annotator" in cells else None
    if annotator == "":
        problems.append(Problem(row, line, "annotator", "annotator is empty"))
    return sample_id, score, annotator, problems


def _frame(parsed: dict[str, list[object]]) -> pd.DataFrame:
    """The checked rows as the frame :func:`read_human_scores` returns."""
    frame = pd.DataFrame(
        {"id": pd.Series(parsed["id"], dtype="int64"), "score": pd.Series(parsed["score"], dtype="int64")}
    )
    for column in OPTIONAL_COLUMNS:
        if column in parsed:
            frame[column] = pd.Series(parsed[column], dtype=object)
    return frame


def generation_key(scores: pd.DataFrame) -> str | None:
    """The key of the generation a human scores frame was drawn from, if it records one.

    Args:
        scores: As from :func:`read_human_scores`.

    Returns:
        The ``generation`` column's value, or None for a file without one.
    """
    if "generation" not in scores.columns or scores.empty:
        return None
    return str(scores["generation"].iloc[0])


def record_path(path: str | os.PathLike[str]) -> Path:
    """Where the generation record of a sheet or scores file is kept (``F.generation.json``)."""
    path = Path(path)
    return path.with_name(path.name + RECORD_SUFFIX)


def read_generation_record(path: str | os.PathLike[str]) -> dict[str, object] | None:
    """The generation record beside a sheet or scores file, or None when there is none.

    Args:
        path: The sheet or scores file (not the record).

    Raises:
        HumanScoresError: The record exists but is not a JSON object with a ``generation`` key.
    """
    record = record_path(path)
    if not record.exists():
        return None
    check_regular_file(record, "generation record")
    try:
        data = json.loads(record.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise HumanScoresError(record, f"not a generation record (unreadable JSON: {error})") from None
    if not isinstance(data, dict) or not isinstance(data.get("generation"), str):
        raise HumanScoresError(record, "not a generation record (no 'generation' key)")
    return data


def check_regular_file(path: Path, what: str) -> None:
    """Refuse anything but a readable regular file, saying what it is, without opening it.

    A named pipe is never opened: reading one would wait for a writer for ever.

    Args:
        path: The file.
        what: What it should be, for messages.

    Raises:
        HumanScoresError: The path does not exist, or is a folder, a pipe or another special file.
    """
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise HumanScoresError(path, f"{what} not found") from None
    except OSError as error:
        raise HumanScoresError(path, f"{what} cannot be read ({error.strerror})") from None
    if stat.S_ISDIR(mode):
        raise HumanScoresError(path, f"is a folder, not a {what}; give the CSV file inside it")
    if stat.S_ISFIFO(mode):
        raise HumanScoresError(path, f"is a named pipe (FIFO), not a {what}; it is not read")
    if not stat.S_ISREG(mode):
        raise HumanScoresError(path, f"is a special file (socket or device), not a {what}")


def read_records(path: Path, what: str, empty_hint: str) -> list[tuple[int, list[str]]]:
    """The CSV records of a UTF-8 file (BOM allowed), each with the line it starts on.

    Args:
        path: The file.
        what: What the file is, for messages (``human scores file``, ``sheet``).
        empty_hint: Said after "the file is empty; " when it has no records.

    Raises:
        HumanScoresError: The file is missing, not a regular file, not UTF-8, empty, or a field
            is too long or unreadable (named by row, line and column).
    """
    check_regular_file(path, what)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as error:
        raise HumanScoresError(path, f"not UTF-8 text ({error.reason} at byte {error.start})") from None
    except OSError as error:
        raise HumanScoresError(path, f"{what} cannot be read ({error.strerror})") from None
    records: list[tuple[int, list[str]]] = []
    try:
        _records(text, records)
    except _Unreadable as error:
        row = len(records) or None  # records[0] is the header, so the next record is data row len(records)
        column = None
        if error.column is not None:
            header = [nfc(name).strip() for name in records[0][1]] if records else []
            column = header[error.column] if error.column < len(header) else f"#{error.column + 1}"
        raise HumanScoresError(path, [Problem(row, error.line, column, error.message)]) from None
    if not records:
        raise HumanScoresError(path, f"the file is empty; {empty_hint}")
    return records


class _Unreadable(Exception):
    def __init__(self, line: int, column: int | None, message: str) -> None:
        super().__init__(message)
        self.line, self.column, self.message = line, column, message


def _records(text: str, records: list[tuple[int, list[str]]]) -> None:
    """Append the non-blank CSV records, each with the file line it starts on.

    A quoted field may span lines. Raises :class:`_Unreadable` at a record the CSV reader cannot read.
    """
    offsets: list[int] = []

    def lines() -> Iterator[str]:
        position = 0
        for raw in io.StringIO(text, newline=""):
            offsets.append(position)
            position += len(raw)
            yield raw

    reader = csv.reader(lines())
    line = 1
    try:
        for record in reader:
            if any(cell.strip() for cell in record):
                records.append((line, record))
            line = reader.line_num + 1
    except csv.Error as error:
        limit = csv.field_size_limit()
        if "field larger than field limit" in str(error):
            start = offsets[line - 1] if line - 1 < len(offsets) else 0
            message = (
                f"a field is longer than {limit:,} characters, more than a CSV cell may hold here; shorten it"
            )
            raise _Unreadable(line, _long_column(text, start, limit), message) from None
        raise _Unreadable(line, None, f"unreadable CSV ({error})") from None


def _long_column(text: str, start: int, limit: int) -> int | None:
    """Index of the first field longer than ``limit`` in the record starting at ``start``."""
    column, length, quoted, i = 0, 0, False, start
    while i < len(text):
        char = text[i]
        if quoted and char == '"' and text[i + 1 : i + 2] == '"':
            length, i = length + 1, i + 2
            continue
        if char == '"':
            quoted = not quoted
        elif not quoted and char == ",":
            column, length = column + 1, 0
        elif not quoted and char in "\r\n":
            return None
        else:
            length += 1
        if length > limit:
            return column
        i += 1
    return None


def _check_header(path: Path, line: int, header: list[str]) -> list[str]:
    columns = [nfc(name).strip() for name in header]
    allowed = (*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS)
    problems: list[Problem] = []
    missing = [name for name in REQUIRED_COLUMNS if name not in columns]
    if missing:
        problems.append(
            Problem(None, line, None, f"missing column(s) {_names(missing)}; allowed: {_names(allowed)}")
        )
    unexpected = [name for name in columns if name not in allowed]
    if unexpected:
        # A file given by mistake (an .env) has its first line here: quote it short and redacted.
        shown = ", ".join(_shown(name) for name in unexpected[:5]) + (", …" if len(unexpected) > 5 else "")
        message = f"unexpected column(s) {shown}; allowed: {_names(allowed)}"
        problems.append(Problem(None, line, None, message))
    repeated = sorted({name for name in columns if columns.count(name) > 1 and name in allowed})
    if repeated:
        problems.append(Problem(None, line, None, f"column(s) {_names(repeated)} appear more than once"))
    if problems:
        raise HumanScoresError(path, problems)
    return columns


def whole_number(cell: str) -> int | None:
    """Read a cell as a whole number, as spreadsheets write one (``4``, ``4.0``, ``+4``).

    The one rule for ids and scores in human scores files, annotation sheets and the annotation
    server, so a cell means the same wherever it is read.

    Args:
        cell: The cell's text, already stripped.

    Returns:
        The number, or None when the cell is not a whole number (``4.5``, ``1e0``, ``four``, empty).
    """
    match = _WHOLE.fullmatch(cell)
    return int(match["value"]) if match else None


def _bad(rule: str, cell: str) -> str:
    return f"{rule}, but it is empty" if cell == "" else f"{rule}, found {_shown(cell)}"


def _shown(cell: str) -> str:
    """A cell quoted in a message: short, one line, credentials redacted."""
    return repr(excerpt(cell, _QUOTED))


def _names(names: tuple[str, ...] | list[str]) -> str:
    return ", ".join(repr(name) for name in names)
