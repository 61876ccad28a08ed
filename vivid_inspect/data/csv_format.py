"""Parse and validate ``VIVID_Dataset.csv`` in the format of the real release.

The real file writes labels as floats (``1.0``), quotes fields that hold commas, and has meanings
with leading spaces and parenthesised glosses. This module turns its bytes into validated
`VividItem` records, or raises one `VividDataError` listing every problem with its
file, row and column, so that a hand-edited file can be fixed in one pass.
"""

from __future__ import annotations

import csv
import io
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

from vivid_inspect.data.normalise import idiom_key
from vivid_inspect.redact import excerpt
from vivid_inspect.size_caps import Capped
from vivid_inspect.taxonomy import THEME_BY_CODE, TRAIT_BY_CODE
from vivid_inspect.text import nfc

logger = logging.getLogger(__name__)

IDIOM_COLUMN = "Idiom_Proverb"
MEANING_COLUMN = "Meaning"
TRAIT_COLUMNS: tuple[str, ...] = tuple(f"Linguistic_Complexity_Taxonomy_{code}" for code in TRAIT_BY_CODE)
THEME_COLUMN = "Semantic_Theme"
COLUMNS: tuple[str, ...] = (IDIOM_COLUMN, MEANING_COLUMN, *TRAIT_COLUMNS, THEME_COLUMN)

_MAX_LISTED_PROBLEMS = 50

_TRAIT_SETS: dict[tuple[int, ...], tuple[int, ...]] = {}
MAX_FIELD_CHARS = 131_072
"""Longest field a data file may hold: the csv module's default limit, kept as a data rule."""

# Cell values quoted in a message are cut to this, and redacted: the file may not be data at all.
_QUOTE_LIMIT = 40


class VividDataError(ValueError):
    """A data file that cannot be used; the message lists every problem found."""


@dataclass(frozen=True, slots=True)
class VividItem:
    """One validated row of the data set.

    Attributes:
        id: 1-based position of the row among the data rows of the source file (header excluded).
        line: Line of the source file where the row starts (for messages).
        idiom: The idiom or proverb, NFC, surrounding whitespace removed.
        meaning: The reference meaning, NFC, surrounding whitespace removed.
        theme_id: Theme code 1-7.
        trait_ids: Trait codes 1-5 that apply, ascending (possibly empty).
    """

    id: int
    line: int
    idiom: str
    meaning: str
    theme_id: int
    trait_ids: tuple[int, ...]


@dataclass(frozen=True)
class Duplicate:
    """A row whose idiom (compared by [`idiom_key`][vivid_inspect.data.normalise.idiom_key]) is an earlier row's.

    Attributes:
        row: The repeating item.
        first: The earliest item with the same idiom.
    """

    row: VividItem
    first: VividItem

    def describe(self) -> str:
        """One line: which row repeats which."""
        return f"row {self.row.id} (line {self.row.line}) repeats {_quote(self.row.idiom)} of row {self.first.id}"


def parse_vivid_csv(raw: bytes, source: str) -> list[VividItem]:
    """Parse the bytes of a VIVID CSV file.

    Args:
        raw: The file's bytes (UTF-8, with or without BOM; LF or CRLF line ends).
        source: Name of the file or URL, used in every message.

    Returns:
        The validated items in file order (repeated idioms included: see `find_duplicates`).

    Raises:
        VividDataError: The file is not UTF-8, its header is wrong, or some rows are invalid. The
            message names the file and, for row problems, each row, line and column. Text from the
            file is quoted only as a short, redacted excerpt. (Its size is capped where it is read:
            [`vivid_inspect.data.sources`][vivid_inspect.data.sources].)
    """
    try:
        found = _parse(io.BytesIO(raw), len(raw), raw[:4096], source)
    except UnicodeDecodeError:
        _decode(raw, source)  # raises, naming the line and byte
        raise
    return _checked(found, source)


def parse_vivid_file(path: Path, source: str, limit: int) -> list[VividItem]:
    """Parse a VIVID CSV file from disk, row by row, without holding its bytes.

    What `parse_vivid_csv` does for bytes, for a local file: memory stays near the items
    kept (``bench/input_size.py``), since the file's bytes are never all in memory at once.

    Args:
        path: The file (checked to be a regular file within the size cap by the caller).
        source: Name of the file, used in every message.
        limit: The size cap; a file that grows past it while it is read is refused.

    Returns:
        The validated items in file order.

    Raises:
        VividDataError: As `parse_vivid_csv`, and a file that grew past ``limit``.
    """
    with path.open("rb") as handle:
        head = handle.read(4096)
        handle.seek(0)
        capped = Capped(
            handle, limit, lambda _: VividDataError(f"{source}: grew past {limit:,} bytes while it was read")
        )
        try:
            found = _parse(io.BufferedReader(capped, 1 << 16), limit, head, source)
        except UnicodeDecodeError:
            handle.seek(0)
            _decode(
                handle.read(limit + 1), source
            )  # raises, naming the line and byte (an error: memory is no concern)
            raise
    return _checked(found, source)


def _checked(found: tuple[list[VividItem], list[str], int], source: str) -> list[VividItem]:
    items, problems, count = found
    if problems:
        more = count - len(problems)
        listing = "\n".join(f"  - {problem}" for problem in problems)
        tail = f"\n  … and {more:,} more" if more else ""
        raise VividDataError(f"{source}: {count:,} problem(s) in the data file:\n{listing}{tail}")
    if not items:
        raise VividDataError(f"{source}: the file has a header but no data rows")
    return items


# One pass over every row: the keys need not fill (and flush) idiom_key's cache, which serves the
# repeated look-ups of a task's demonstrations.
_uncached_key = idiom_key.__wrapped__


def _parse(binary: BinaryIO, size: int, head: bytes, source: str) -> tuple[list[VividItem], list[str], int]:
    """The items, the first problems and the count of all problems of a file, read row by row.

    The text is never held whole: rows are decoded as the reader reaches them, and only the first
    problems are kept (a file of bad rows must not hold a message per row), so memory stays near
    the items kept (``bench/input_size.py``).

    Args:
        binary: The file's bytes, as a stream.
        size: No field is longer than this (the file's size, or its cap).
        head: The first bytes, quoted when the header is not a VIVID header.
        source: Name of the file, for messages.
    """
    stream = io.TextIOWrapper(binary, encoding="utf-8-sig", newline="")
    with _fields_up_to(size + 1):
        # The reader may read any field the file holds (no field is longer than the file); fields
        # longer than MAX_FIELD_CHARS are then reported by row and column instead of as a CSV error.
        reader = csv.reader(stream, strict=True)
        try:
            header = next(reader, None)
        except csv.Error as exc:
            raise VividDataError(f"{source}: line 1: unreadable CSV header ({exc})") from None
        if header is None:
            raise VividDataError(f"{source}: the file is empty; expected the header {', '.join(COLUMNS)}")
        columns = [column.strip() for column in header]
        _check_header(columns, head.decode("utf-8-sig", "replace"), source)

        items: list[VividItem] = []
        problems: list[str] = []
        count = 0
        line = reader.line_num + 1
        row_number = previous_line = 0
        while True:
            try:
                row = next(reader)
            except StopIteration:
                break
            except csv.Error as exc:
                count += 1
                problems.append(f"line {line}: unreadable CSV ({exc}); is a quote left open?")
                break
            if len(row) <= 1 and not "".join(row).strip():
                # A blank line is not a row (pandas skips it too); a row of empty fields is, and fails.
                line = reader.line_num + 1
                continue
            row_number += 1
            if row_number == previous_line:
                # The same number as the last row's line (so in a file without blank or multi-line
                # rows): one int object for both, not two per row.
                row_number = previous_line
            previous_line = line
            item, row_problems = _parse_row(columns, row, row_number, line)
            count += len(row_problems)
            problems.extend(row_problems[: _MAX_LISTED_PROBLEMS - len(problems)])
            if item is not None:
                items.append(item)
            line = reader.line_num + 1
    return items, problems[:_MAX_LISTED_PROBLEMS], count


def find_duplicates(items: list[VividItem]) -> list[Duplicate]:
    """Rows whose idiom repeats an earlier row's, compared by their idiom key.

    Args:
        items: Validated items in file order.

    Returns:
        One entry per repeating row, in file order.
    """
    # Found by sorting one hash per row (8 bytes a row, not a dict of every idiom's key), then
    # comparing the keys themselves within each run of equal hashes.
    hashes = np.fromiter(
        (hash(_uncached_key(item.idiom)) for item in items), dtype=np.int64, count=len(items)
    )
    order = np.argsort(hashes, kind="stable")  # stable: within a run, file order
    ordered = hashes[order]
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    ends = np.append(starts[1:], len(order))
    duplicates: list[Duplicate] = []
    for start, end in zip(starts[ends - starts > 1].tolist(), ends[ends - starts > 1].tolist(), strict=True):
        firsts: list[tuple[str, VividItem]] = []
        for index in order[start:end].tolist():
            item = items[index]
            key = _uncached_key(item.idiom)
            match = next((first for seen, first in firsts if seen == key), None)
            if match is None:
                firsts.append((key, item))
            else:
                duplicates.append(Duplicate(item, match))
    duplicates.sort(key=lambda duplicate: duplicate.row.id)
    return duplicates


@contextmanager
def _fields_up_to(limit: int) -> Iterator[None]:
    previous = csv.field_size_limit()
    csv.field_size_limit(max(previous, limit))
    try:
        yield
    finally:
        csv.field_size_limit(previous)


def _quote(value: str) -> str:
    """A cell value as messages show it: first line only, redacted, cut short."""
    return repr(excerpt(value, _QUOTE_LIMIT))


def _too_long(value: str) -> str:
    spans = value.count("\n") + 1
    hint = f" (it spans {spans:,} lines; is a quote left open?)" if spans > 1 else ""
    return f"{len(value):,} characters, more than the {MAX_FIELD_CHARS:,} a field may hold{hint}"


def _decode(raw: bytes, source: str) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise VividDataError(
            f"{source}: line {line}: byte 0x{raw[exc.start]:02x} at offset {exc.start} is not UTF-8; "
            "save the file as UTF-8"
        ) from None


def _check_header(header: list[str], text: str, source: str) -> None:
    long = [(index, column) for index, column in enumerate(header, 1) if len(column) > MAX_FIELD_CHARS]
    if long:
        index, column = long[0]
        raise VividDataError(f"{source}: line 1 (header), field {index}: {_too_long(column)}")
    expected = ", ".join(COLUMNS)
    if not {column.casefold() for column in header} & {column.casefold() for column in COLUMNS}:
        # Probably not a VIVID file at all (an .env, a JSON or HTML page): quote a short excerpt only.
        raise VividDataError(
            f"{source}: line 1 (header): {excerpt(text, _QUOTE_LIMIT)!r} does not look like a VIVID CSV "
            f"header; is this the right file? Expected the columns: {expected}"
        )
    missing = [column for column in COLUMNS if column not in header]
    unexpected = [column for column in header if column not in COLUMNS]
    duplicated = sorted({column for column in header if header.count(column) > 1})
    problems = []
    if missing:
        problems.append(f"missing column(s): {', '.join(missing)}")
    if unexpected:
        problems.append(f"unexpected column(s): {', '.join(_quote(c) for c in unexpected[:5])}")
        if len(unexpected) > 5:
            problems[-1] += f" and {len(unexpected) - 5} more"
    if duplicated:
        problems.append(f"repeated column(s): {', '.join(duplicated)}")
    if problems:
        raise VividDataError(
            f"{source}: line 1 (header): {'; '.join(problems)}. Expected exactly: {expected}"
        )
    if tuple(header) != COLUMNS:
        logger.info("%s: columns are in a different order than the release; reading them by name", source)


def _parse_row(
    columns: list[str], row: list[str], row_number: int, line: int
) -> tuple[VividItem | None, list[str]]:
    where = f"row {row_number} (line {line})"
    long = [
        f"{where}, column {columns[index] if index < len(columns) else f'field {index + 1}'}: {_too_long(value)}"
        for index, value in enumerate(row)
        if len(value) > MAX_FIELD_CHARS
    ]
    if long:
        return None, long
    if len(row) != len(columns):
        return None, [f"{where}: has {len(row)} fields, expected {len(columns)}; is a comma unquoted?"]
    cells = dict(zip(columns, row, strict=True))
    problems: list[str] = []

    idiom = nfc(cells[IDIOM_COLUMN].strip())
    meaning = nfc(cells[MEANING_COLUMN].strip())
    if not idiom:
        problems.append(f"{where}, column {IDIOM_COLUMN}: empty idiom")
    elif "«" in idiom or "»" in idiom or "\n" in idiom:
        problems.append(
            f"{where}, column {IDIOM_COLUMN}: guillemets or line breaks are not allowed in an idiom"
        )
    if not meaning:
        problems.append(f"{where}, column {MEANING_COLUMN}: empty meaning")
    for column, text, allowed in (
        (IDIOM_COLUMN, idiom, _CONTROL),
        (MEANING_COLUMN, meaning, _CONTROL_BUT_LINES),
    ):
        found = allowed.search(text)
        if found:
            problems.append(
                f"{where}, column {column}: {_quote(text)} holds the control character "
                f"U+{ord(found.group()):04X}; a text cell holds none (save the file without it)"
            )

    trait_ids: list[int] = []
    for code, column in zip(TRAIT_BY_CODE, TRAIT_COLUMNS, strict=True):
        value = _code(cells[column])
        if value not in (0, 1):
            problems.append(f"{where}, column {column}: {_quote(cells[column])} is not 0 or 1 (0.0/1.0)")
        elif value == 1:
            trait_ids.append(code)

    theme = _code(cells[THEME_COLUMN])
    if theme not in THEME_BY_CODE:
        problems.append(
            f"{where}, column {THEME_COLUMN}: {_quote(cells[THEME_COLUMN])} is not a theme code 1-7"
        )

    if problems:
        return None, problems
    assert theme is not None
    traits = tuple(trait_ids)
    # One tuple per set of traits (32 of them), shared by every row that has it.
    return VividItem(row_number, line, idiom, meaning, theme, _TRAIT_SETS.setdefault(traits, traits)), []


# A NUL, an escape or another control character in a text reaches prompts, logs and terminals
# unseen; a meaning may span lines (its line breaks and tabs are kept), an idiom is one line.
_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")  # its line break has its own message
_CONTROL_BUT_LINES = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def _code(cell: str) -> int | None:
    """Read an integer code written as ``1``, ``1.0`` or ``1.00``; None when it is anything else."""
    try:
        value = float(cell.strip())
    except ValueError:
        return None
    if not value.is_integer():
        return None
    return int(value)
