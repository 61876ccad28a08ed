"""The CSV records of a human scores file or an annotation sheet: streamed, within a size cap.

UTF-8 with or without a byte-order mark, LF or CRLF line ends, quoted fields over several lines.
Each record comes with the file line it starts on, so every problem can name its data row
(1-based, not counting the header), line and column. The file is refused before it is opened
when it is not a regular file (a pipe would block) or is over its cap
(`vivid_inspect.size_caps`), and reading stops at the cap if it grows meanwhile. Records are
read one at a time, never the whole text at once: a reader keeps only the cells it needs.
"""

from __future__ import annotations

import codecs
import csv
import io
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from vivid_inspect.redact import excerpt
from vivid_inspect.size_caps import Capped, SizeCap, SizeCapError
from vivid_inspect.text import nfc

MAX_LISTED_PROBLEMS = 50
MAX_ID = 10**15 - 1
"""The largest sample id a human scores file or sheet may name (VIVID's ids are 1-based row numbers)."""
_QUOTED = 40
_CHUNK = 1 << 16


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a human scores file or sheet."""

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
    """A human scores file or sheet that cannot be used; the message lists the problems found.

    Args:
        path: The file.
        problems: The problems (at most `MAX_LISTED_PROBLEMS` are listed), or one message
            about the whole file.
        total: How many problems there are in all, when more were found than ``problems`` holds.
    """

    def __init__(self, path: Path, problems: list[Problem] | str, total: int | None = None) -> None:
        self.path = path
        self.problems = [] if isinstance(problems, str) else problems
        if isinstance(problems, str):
            message = f"{path}: {problems}"
        else:
            total = max(total or 0, len(problems))
            listed = "\n".join(f"  - {problem}" for problem in problems[:MAX_LISTED_PROBLEMS])
            more = total - min(len(problems), MAX_LISTED_PROBLEMS)
            tail = f"\n  … and {more:,} more (fix these first)" if more > 0 else ""
            message = f"{path}: {total:,} problem(s) in human scores file:\n{listed}{tail}"
        super().__init__(message)


class Problems:
    """The problems of one file as they are found: the first `MAX_LISTED_PROBLEMS` kept, the rest counted.

    A file with a million bad rows must not hold a million messages.
    """

    def __init__(self) -> None:
        self.listed: list[Problem] = []
        self.count = 0

    def add(self, problem: Problem | Callable[[], Problem]) -> None:
        """Count a problem, and keep it while fewer than the most listed are kept.

        Args:
            problem: The problem, or what makes it: called only while it is kept, since quoting a
                cell (redacted) costs more than reading the row, a million times over.
        """
        self.count += 1
        if len(self.listed) < MAX_LISTED_PROBLEMS:
            self.listed.append(problem if isinstance(problem, Problem) else problem())

    def __bool__(self) -> bool:
        return self.count > 0

    def error(self, path: Path, more: list[Problem] | None = None, more_count: int = 0) -> HumanScoresError:
        """The error listing these problems (and ``more``, found apart), in row order."""
        listed = sorted(self.listed + (more or []), key=lambda problem: problem.row or 0)
        return HumanScoresError(path, listed[:MAX_LISTED_PROBLEMS], self.count + more_count)


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


def check_size(path: Path, cap: SizeCap) -> int:
    """The cap in force for ``path``, which is refused when it is over it already.

    Raises:
        HumanScoresError: The file is over the cap, or the cap's variable is not a size.
    """
    try:
        limit = cap.limit()
    except SizeCapError as error:
        raise HumanScoresError(path, str(error)) from None
    size = path.stat().st_size
    if size > limit:
        raise HumanScoresError(path, cap.over(size, limit))
    return limit


def iter_records(path: Path, what: str, empty_hint: str, cap: SizeCap) -> Iterator[tuple[int, list[str]]]:
    """The non-blank CSV records of a UTF-8 file, each with the file line it starts on; the header first.

    Args:
        path: The file.
        what: What the file is, for messages (``human scores file``, ``sheet``).
        empty_hint: Said after "the file is empty; " when it has no records.
        cap: The size cap of this kind of file.

    Yields:
        ``(line, cells)`` for each record that is not blank.

    Raises:
        HumanScoresError: The file is missing, not a regular file, over its cap, not UTF-8, empty,
            or a record is unreadable or has a field too long (named by row, line and column).
    """
    check_regular_file(path, what)
    limit = check_size(path, cap)
    header: list[str] | None = None
    count = 0
    line = 1
    try:
        with path.open("rb") as raw:
            capped = Capped(raw, limit, lambda read: HumanScoresError(path, cap.over(read, limit)))
            text = io.TextIOWrapper(io.BufferedReader(capped, _CHUNK), encoding="utf-8-sig", newline="")
            reader = csv.reader(text)
            for record in reader:
                if any(cell.strip() for cell in record):
                    header = record if header is None else header
                    count += 1
                    yield line, record
                line = reader.line_num + 1
    except UnicodeDecodeError:
        offset, reason, at_line = _first_bad_byte(path)
        raise HumanScoresError(path, f"not UTF-8 text ({reason} at byte {offset}, line {at_line})") from None
    except csv.Error as error:
        row = count or None  # the header is record 1, so the next record is data row `count`
        column: str | None = None
        limit_chars = csv.field_size_limit()
        if "field larger than field limit" in str(error):
            message = f"a field is longer than {limit_chars:,} characters, more than a CSV cell may hold here; shorten it"
            index = _long_column(path, line, limit_chars)
            if index is not None:
                names = [nfc(name).strip() for name in header or []]
                column = names[index] if index < len(names) else f"#{index + 1}"
        else:
            message = f"unreadable CSV ({error})"
        raise HumanScoresError(path, [Problem(row, line, column, message)]) from None
    except OSError as error:
        raise HumanScoresError(path, f"{what} cannot be read ({error.strerror or error})") from None
    if header is None:
        raise HumanScoresError(path, f"the file is empty; {empty_hint}")


def _first_bad_byte(path: Path) -> tuple[int, str, int]:
    """Where a file stops being UTF-8: byte offset, reason and line, found in chunks."""
    carry, base, lines = b"", 0, 1
    with path.open("rb") as handle:
        while True:
            chunk = handle.read(_CHUNK)
            data = carry + chunk
            try:
                _, used = codecs.utf_8_decode(data, "strict", not chunk)
            except UnicodeDecodeError as error:
                return base + error.start, str(error.reason), lines + data.count(b"\n", 0, error.start)
            lines += data.count(b"\n", 0, used)
            carry, base = data[used:], base + used
            if not chunk:
                return base, "unreadable", lines


def _long_column(path: Path, line: int, limit: int) -> int | None:
    """Index of the first field longer than ``limit`` in the record starting at ``line``."""
    with path.open(encoding="utf-8-sig", errors="replace", newline="") as handle:
        for _ in range(line - 1):
            if not handle.readline():
                return None
        column, length, quoted = 0, 0, False
        while chunk := handle.read(_CHUNK):
            for char in chunk:
                if char == '"':  # an escaped quote ("") toggles twice: still inside the field
                    quoted = not quoted
                elif not quoted and char == ",":
                    column, length = column + 1, 0
                elif not quoted and char in "\r\n":
                    return None
                else:
                    length += 1
                if length > limit:
                    return column
    return None


def whole_number(cell: str) -> int | None:
    """Read a cell as a whole number, as spreadsheets write one (``4``, ``4.0``, ``+4``).

    The one rule for ids and scores in human scores files, annotation sheets and the annotation
    server, so a cell means the same wherever it is read. Only the digits 0-9 count (not other
    scripts' digits, not full-width ones), and at most 18 of them: no id or score is longer, and a
    5,000-digit cell is not a number anyone meant.

    Args:
        cell: The cell's text, already stripped.

    Returns:
        The number, or None when the cell is not a whole number (``4.5``, ``1e0``, ``four``,
        ``٤``, empty, or more than 18 digits).
    """
    sign, digits = (cell[0], cell[1:]) if cell[:1] in ("+", "-") else ("", cell)
    whole, point, fraction = digits.partition(".")
    if not whole or len(whole) > 18 or not whole.isascii() or not whole.isdigit():
        return None
    if point and fraction.strip("0"):
        return None
    return -int(whole) if sign == "-" else int(whole)


def id_value(cell: str) -> int | None:
    """A cell as a sample id (a whole number 1 to `MAX_ID`), or None (`id_problem` says why)."""
    value = whole_number(cell)
    return value if value is not None and 1 <= value <= MAX_ID else None


def id_problem(cell: str) -> str:
    """Why a cell is not a sample id: what it holds instead."""
    value = whole_number(cell)
    rule = f"id must be an integer from 1 to {MAX_ID:,}"
    digits = cell[1:] if cell[:1] in ("+", "-") else cell
    if cell == "":
        return "id must be an integer, but it is empty"
    if value is not None:
        return f"{rule}, found {shown(cell)}"
    if digits.isdigit() and not digits.isascii():
        return f"id must be an integer written with the digits 0-9, found {shown(cell)}"
    if digits.isdigit():
        return f"{rule}, found a number of {len(digits):,} digits ({shown(cell)})"
    return f"id must be an integer, found {shown(cell)}"


def shown(cell: str) -> str:
    """A cell quoted in a message: short, one line, credentials redacted, its length when cut."""
    quoted = repr(excerpt(cell, _QUOTED))
    return f"{quoted} ({len(cell):,} characters)" if len(cell) > _QUOTED else quoted
