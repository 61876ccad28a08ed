"""Parse and validate ``VIVID_Dataset.csv`` in the format of the real release.

The real file writes labels as floats (``1.0``), quotes fields that hold commas, and has meanings
with leading spaces and parenthesised glosses. This module turns its bytes into validated
:class:`VividItem` records, or raises one :class:`VividDataError` listing every problem with its
file, row and column, so that a hand-edited file can be fixed in one pass.
"""

from __future__ import annotations

import csv
import io
import logging
import warnings
from dataclasses import dataclass

from vivid_inspect.taxonomy import THEME_BY_CODE, TRAIT_BY_CODE
from vivid_inspect.text import nfc

logger = logging.getLogger(__name__)

IDIOM_COLUMN = "Idiom_Proverb"
MEANING_COLUMN = "Meaning"
TRAIT_COLUMNS: tuple[str, ...] = tuple(f"Linguistic_Complexity_Taxonomy_{code}" for code in TRAIT_BY_CODE)
THEME_COLUMN = "Semantic_Theme"
COLUMNS: tuple[str, ...] = (IDIOM_COLUMN, MEANING_COLUMN, *TRAIT_COLUMNS, THEME_COLUMN)

_MAX_LISTED_PROBLEMS = 50


class VividDataError(ValueError):
    """A data file that cannot be used; the message lists every problem found."""


class DuplicateIdiomWarning(UserWarning):
    """The same idiom occurs on more than one row; all rows are kept."""


@dataclass(frozen=True)
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


def parse_vivid_csv(raw: bytes, source: str) -> list[VividItem]:
    """Parse the bytes of a VIVID CSV file.

    Args:
        raw: The file's bytes (UTF-8, with or without BOM; LF or CRLF line ends).
        source: Name of the file or URL, used in every message.

    Returns:
        The validated items in file order.

    Raises:
        VividDataError: The file is not UTF-8, its header is wrong, or some rows are invalid. The
            message names the file and, for row problems, each row, line and column.
    """
    text = _decode(raw, source)
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader, None)
    except csv.Error as exc:
        raise VividDataError(f"{source}: line 1: unreadable CSV header ({exc})") from None
    if header is None:
        raise VividDataError(f"{source}: the file is empty; expected the header {', '.join(COLUMNS)}")
    columns = [column.strip() for column in header]
    _check_header(columns, source)

    items: list[VividItem] = []
    problems: list[str] = []
    line = reader.line_num + 1
    row_number = 0
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            problems.append(f"line {line}: unreadable CSV ({exc}); is a quote left open?")
            break
        if len(row) <= 1 and not "".join(row).strip():
            # A blank line is not a row (pandas skips it too); a row of empty fields is, and fails.
            line = reader.line_num + 1
            continue
        row_number += 1
        item, row_problems = _parse_row(columns, row, row_number, line)
        problems.extend(row_problems)
        if item is not None:
            items.append(item)
        line = reader.line_num + 1

    if problems:
        shown = problems[:_MAX_LISTED_PROBLEMS]
        more = len(problems) - len(shown)
        listing = "\n".join(f"  - {problem}" for problem in shown)
        tail = f"\n  … and {more} more" if more else ""
        raise VividDataError(f"{source}: {len(problems)} problem(s) in the data file:\n{listing}{tail}")
    if not items:
        raise VividDataError(f"{source}: the file has a header but no data rows")
    _warn_duplicates(items, source)
    return items


def _decode(raw: bytes, source: str) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise VividDataError(
            f"{source}: line {line}: byte 0x{raw[exc.start]:02x} at offset {exc.start} is not UTF-8; "
            "save the file as UTF-8"
        ) from None


def _check_header(header: list[str], source: str) -> None:
    missing = [column for column in COLUMNS if column not in header]
    unexpected = [column for column in header if column not in COLUMNS]
    duplicated = sorted({column for column in header if header.count(column) > 1})
    problems = []
    if missing:
        problems.append(f"missing column(s): {', '.join(missing)}")
    if unexpected:
        problems.append(f"unexpected column(s): {', '.join(repr(c) for c in unexpected)}")
    if duplicated:
        problems.append(f"repeated column(s): {', '.join(duplicated)}")
    if problems:
        raise VividDataError(
            f"{source}: line 1 (header): {'; '.join(problems)}. Expected exactly: {', '.join(COLUMNS)}"
        )
    if tuple(header) != COLUMNS:
        logger.info("%s: columns are in a different order than the release; reading them by name", source)


def _parse_row(
    columns: list[str], row: list[str], row_number: int, line: int
) -> tuple[VividItem | None, list[str]]:
    where = f"row {row_number} (line {line})"
    if len(row) != len(columns):
        return None, [f"{where}: has {len(row)} fields, expected {len(columns)}; is a comma unquoted?"]
    cells = dict(zip(columns, row))
    problems: list[str] = []

    idiom = nfc(cells[IDIOM_COLUMN].strip())
    meaning = nfc(cells[MEANING_COLUMN].strip())
    if not idiom:
        problems.append(f"{where}, column {IDIOM_COLUMN}: empty idiom")
    elif "«" in idiom or "»" in idiom or "\n" in idiom:
        problems.append(f"{where}, column {IDIOM_COLUMN}: guillemets or line breaks are not allowed in an idiom")
    if not meaning:
        problems.append(f"{where}, column {MEANING_COLUMN}: empty meaning")

    trait_ids: list[int] = []
    for code, column in zip(TRAIT_BY_CODE, TRAIT_COLUMNS):
        value = _code(cells[column])
        if value not in (0, 1):
            problems.append(f"{where}, column {column}: {cells[column]!r} is not 0 or 1 (0.0/1.0)")
        elif value == 1:
            trait_ids.append(code)

    theme = _code(cells[THEME_COLUMN])
    if theme not in THEME_BY_CODE:
        problems.append(f"{where}, column {THEME_COLUMN}: {cells[THEME_COLUMN]!r} is not a theme code 1-7")

    if problems:
        return None, problems
    assert theme is not None
    return VividItem(row_number, line, idiom, meaning, theme, tuple(trait_ids)), []


def _code(cell: str) -> int | None:
    """Read an integer code written as ``1``, ``1.0`` or ``1.00``; None when it is anything else."""
    try:
        value = float(cell.strip())
    except ValueError:
        return None
    if not value.is_integer():
        return None
    return int(value)


def _warn_duplicates(items: list[VividItem], source: str) -> None:
    first_seen: dict[str, VividItem] = {}
    for item in items:
        earlier = first_seen.setdefault(item.idiom, item)
        if earlier is not item:
            message = (
                f"{source}: row {item.id} (line {item.line}) repeats the idiom {item.idiom!r} of row "
                f"{earlier.id}; both rows are kept"
            )
            logger.warning(message)
            warnings.warn(message, DuplicateIdiomWarning, stacklevel=3)
