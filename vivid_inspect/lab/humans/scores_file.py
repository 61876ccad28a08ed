"""Human annotation files: 0-5 scores of model explanations, to validate the LLM judge against.

A file is a CSV with a header and the columns ``id`` (the sample id, an integer), ``score`` (a
whole number 0-5) and, optionally, ``annotator`` and ``generation`` (the key of the generation the
scores were drawn from, see `vivid_inspect.generation_key`; ``vivid annotate import`` writes
it, and one file holds one generation). UTF-8 with or without a byte-order mark, LF or CRLF line
ends. Every problem in the file is reported at once, each naming the data row (1-based, not
counting the header), the file line and the column, so an annotator can fix them in one pass (the
first 50 are listed, with the count of the rest). A file that is not what it should be (a folder,
a pipe, an ``.env``) is quoted only as a short, redacted excerpt.

An id is a whole number from 1 to `csv_records.MAX_ID` (sample ids are 1-based row numbers), written
with the digits 0-9; an annotator is named once, one way (`vivid_inspect.lab.humans.annotators`);
an annotator scores an item once. A file over its size cap
(`vivid_inspect.size_caps.HUMAN_SCORES`) is refused before it is read; under it the file is
streamed and held as arrays of numbers, so memory stays within a small multiple of its size.

An input format of its own: the runner checks a spec's human scores file with it before any
call, the report and the annotation tools read it; agreement with a judge is the report's
(`vivid_inspect.lab.report.stats.humans`).
"""

from __future__ import annotations

import json
import math
import os
import re
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from vivid_inspect.lab.humans.annotators import annotator_key, annotator_name, spelled_apart
from vivid_inspect.lab.humans.csv_records import (
    MAX_LISTED_PROBLEMS,
    HumanScoresError,
    Problem,
    Problems,
    check_regular_file,
    id_problem,
    id_value,
    iter_records,
    shown,
    whole_number,
)
from vivid_inspect.lab.report.reading.judged import LETTER_SCALE, VIVID_SCALE, Scale, item_key
from vivid_inspect.size_caps import HUMAN_SCORES
from vivid_inspect.text import nfc

REQUIRED_COLUMNS: tuple[str, ...] = ("id", "score")
OPTIONAL_COLUMNS: tuple[str, ...] = ("annotator", "generation")
RECORD_SUFFIX = ".generation.json"
"""A sheet or scores file ``F`` has its generation's record in ``F.generation.json``."""
SCORE_RULE = "score must be a whole number from 0 to 5"
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)", re.ASCII)
"""Another eval's score: digits 0-9, a sign and a point (not ``nan``, ``inf``, ``1e3``), in at most 40
characters (no score is longer; 400 digits would read as an infinity)."""
MAX_RECORD_BYTES = 2**20
"""A generation record is a few hundred bytes; one over a mebibyte is not one."""
SCALE_KEY = "scale"
"""The record key of another eval's scale, which bounds the humans' scores (absent: VIVID's 0-5)."""


@dataclass(frozen=True)
class ItemRules:
    """What a human file may hold for a generation of another eval than VIVID's (VIVID's rules: None).

    Attributes:
        ids: The generation's item ids (as `item_key` keys them); None: any text (a file read
            to be bound to its generation, then read again with its ids).
        scale: The judges' declared scale, which holds every score; None: any finite number.
    """

    ids: frozenset[Any] | None = None
    scale: Scale | None = None


@dataclass
class _Rows:
    """The rows read so far, as arrays: one entry per data row (0 / -1 where a cell is bad)."""

    ids: array[int] = field(default_factory=lambda: array("q"))
    scores: array[Any] = field(default_factory=lambda: array("b"))
    who: array[int] = field(default_factory=lambda: array("i"))
    lines: array[int] = field(default_factory=lambda: array("i"))
    names: list[str] = field(default_factory=list)
    """Each annotator's spelling, by code (``who``)."""
    codes: dict[str, int] = field(default_factory=dict)
    """Annotator key to code."""
    first_row: list[int] = field(default_factory=list)
    """The data row each annotator first appears in, by code."""
    problems: Problems = field(default_factory=Problems)
    items: dict[Any, int] | None = None
    """Under `ItemRules`: each text id's code (``ids`` holds codes from 1), in the order first seen."""


def read_human_scores(path: str | os.PathLike[str], rules: ItemRules | None = None) -> pd.DataFrame:
    """Read and validate a human scores CSV.

    Args:
        path: The CSV file.
        rules: For a generation of another eval: its ids and scale (VIVID's rules when None).

    Returns:
        One row per data row, in file order: ``id`` (int64; under ``rules`` text, a whole number
        as an int, see `item_key`), ``score`` (int64; under ``rules`` float64) and, when the
        file has them, ``annotator`` (str, NFC) and ``generation`` (str).

    Raises:
        HumanScoresError: The file is missing, not a regular file, over its size cap, unreadable,
            has the wrong columns, or rows with an id that is not a whole number 1 to
            `MAX_ID`, a score that is not a whole number 0-5, an empty annotator, an
            annotator written two ways, an empty generation or one that differs from the first
            row's, or the same item scored twice by one annotator. The message names the file and
            the bad rows.
    """
    path = Path(path)
    records = iter_records(
        path, "human scores file", "expected a header 'id,score[,annotator]'", HUMAN_SCORES
    )
    header_line, header = next(records)
    columns = _check_header(path, header_line, header)
    index = {name: columns.index(name) for name in columns}
    rows = _Rows() if rules is None else _Rows(scores=array("d"), items={})
    first_generation: tuple[str, int] | None = None
    for row, (line, record) in enumerate(records, start=1):
        rows.lines.append(line)
        if len(record) != len(columns):
            message = f"expected {len(columns)} fields ({','.join(columns)}), found {len(record)}"
            rows.problems.add(Problem(row, line, None, message))
            _append(rows, 0, -1, -1 if "annotator" in index else None)
            continue
        cells = (record[index["id"]].strip(), record[index["score"]].strip(), row, line)
        sample_id, score = _check_numbers(rows, *cells) if rules is None else _check_any(rows, rules, *cells)
        code = _annotator(rows, record[index["annotator"]], row, line) if "annotator" in index else None
        if "generation" in index:
            generation = record[index["generation"]].strip()
            if generation == "":
                rows.problems.add(Problem(row, line, "generation", "generation is empty"))
            elif first_generation is None:
                first_generation = (generation, row)
            elif generation != first_generation[0]:
                rows.problems.add(partial(_other_generation, row, line, generation, first_generation))
        _append(rows, sample_id, score, code)
    if not rows.lines:
        raise HumanScoresError(path, "no data rows below the header")
    duplicates, count = _scored_twice(rows, "annotator" in index)
    if rows.problems or count:
        raise rows.problems.error(path, duplicates, count)
    return _frame(rows, first_generation[0] if first_generation else None, columns)


def cell_problem(row: int, line: int, column: str, message: Callable[[str], str], cell: str) -> Problem:
    """A problem whose message quotes a cell (made only for the problems listed)."""
    return Problem(row, line, column, message(cell))


def _other_generation(row: int, line: int, generation: str, first: tuple[str, int]) -> Problem:
    message = (
        f"generation {shown(generation)} differs from {first[0]!r} of data row {first[1]}; "
        "a human scores file holds the scores of one generation"
    )
    return Problem(row, line, "generation", message)


def _check_any(
    rows: _Rows, rules: ItemRules, id_cell: str, score_cell: str, row: int, line: int
) -> tuple[int, float]:
    """`_check_numbers` under `ItemRules`: a row's id code (0 when bad) and score (NaN when bad)."""
    key = item_key(nfc(id_cell))
    if id_cell == "" or (rules.ids is not None and key not in rules.ids):
        message = "id is empty" if id_cell == "" else f"id {shown(id_cell)} is not an item of the generation"
        rows.problems.add(Problem(row, line, "id", message))
        code = 0
    else:
        code = rows.items.setdefault(key, len(rows.items) + 1) if rows.items is not None else 0
    score = any_number(score_cell)
    scale = rules.scale
    if score is None or (scale is not None and not scale.low <= score <= scale.high):
        rule = "score must be a number" + (
            f" from {scale.low:g} to {scale.high:g} (the judge's scale)" if scale else ""
        )
        rows.problems.add(partial(cell_problem, row, line, "score", partial(_bad, rule), score_cell))
        score = math.nan
    return code, score


def any_number(cell: str) -> float | None:
    """Another eval's score cell as a number, or None (see ``_NUMBER``)."""
    return float(cell) if len(cell) <= 40 and _NUMBER.fullmatch(cell) else None


def record_scale(record: dict[str, Any] | None) -> Scale:
    """The scale a generation record holds (another eval's), or VIVID's 0-5 when it holds none.

    Raises:
        ValueError: The record's ``scale`` is not a finite range (low below high) with its flags.
    """
    if record is None or SCALE_KEY not in record:
        return VIVID_SCALE
    try:
        scale = Scale(**record[SCALE_KEY])
        if math.isfinite(scale.low) and math.isfinite(scale.high) and scale.low < scale.high:
            return scale
    except TypeError:
        pass
    raise ValueError(
        f"the generation record's {SCALE_KEY!r} is not a scale (low below high, ordinal, declared)"
    )


def levels(scale: Scale) -> tuple[float, ...] | None:
    """The scores a human may give on an ordinal scale (Inspect's letters: 0, 0.5 and 1); None: any number in range."""
    if scale == LETTER_SCALE:
        return (0.0, 0.5, 1.0)
    return tuple(range(math.ceil(scale.low), math.floor(scale.high) + 1)) if scale.ordinal else None


def score_rule(scale: Scale) -> str:
    """What a score must be, as an error message says it."""
    given = levels(scale)
    if given is None:
        return f"score must be a number from {scale.low:g} to {scale.high:g}"
    if all(isinstance(level, int) for level in given):
        return f"score must be a whole number from {scale.low:g} to {scale.high:g}"
    return "score must be one of " + ", ".join(f"{level:g}" for level in given)


def score_value(given: Any, scale: Scale) -> int | float | None:
    """A human's score (a JSON number, or a sheet cell's text) if the scale holds it, else None.

    On whole levels (VIVID's 0-5) only a whole number is a score (a JSON ``4.0`` is not).
    """
    whole = levels(scale) is not None and scale != LETTER_SCALE
    if isinstance(given, str):
        given = whole_number(given) if whole else any_number(given)
    if isinstance(given, bool) or not isinstance(given, int | float) or (whole and isinstance(given, float)):
        return None
    allowed = levels(scale)
    held = given in allowed if allowed is not None else scale.low <= given <= scale.high
    return given if held else None


def _append(rows: _Rows, sample_id: int, score: float, code: int | None) -> None:
    rows.ids.append(sample_id)
    rows.scores.append(score)
    if code is not None:  # a file without annotators keeps no annotator codes
        rows.who.append(code)


def _check_numbers(rows: _Rows, id_cell: str, score_cell: str, row: int, line: int) -> tuple[int, int]:
    """A row's id (0 when bad) and score (-1 when bad), each checked on its own."""
    sample_id = id_value(id_cell)
    if sample_id is None:
        rows.problems.add(partial(cell_problem, row, line, "id", id_problem, id_cell))
        sample_id = 0
    score = whole_number(score_cell)
    if score is None or not 0 <= score <= 5:
        rows.problems.add(partial(cell_problem, row, line, "score", partial(_bad, SCORE_RULE), score_cell))
        score = -1
    return sample_id, score


def _annotator(rows: _Rows, cell: str, row: int, line: int) -> int:
    """The code of a row's annotator; -1 when the cell is empty or a second spelling of one annotator."""
    name = annotator_name(cell)
    key = annotator_key(name)
    if not key:
        message = "annotator is empty" if not name else f"annotator {name!r} has no visible character"
        rows.problems.add(Problem(row, line, "annotator", message))
        return -1
    code = rows.codes.get(key)
    if code is None:
        code = rows.codes[key] = len(rows.names)
        rows.names.append(name)
        rows.first_row.append(row)
    elif rows.names[code] != name:
        first = rows.names[code]
        rows.problems.add(
            Problem(
                row,
                line,
                "annotator",
                f"{spelled_apart(first, name)} (first in data row {rows.first_row[code]})",
            )
        )
        return -1
    return code


def _scored_twice(rows: _Rows, named: bool) -> tuple[list[Problem], int]:
    """The rows that score an item again by the same annotator (the first few), and how many there are.

    Found with arrays (a sort of one number per row), not a dict of every (item, annotator): a
    valid file of a million rows costs a few bytes a row here.
    """
    ids = np.frombuffer(rows.ids, dtype=np.int64)
    who = np.frombuffer(rows.who, dtype=np.int32) if named else np.zeros(0, dtype=np.int32)
    valid = (ids > 0) & (who >= 0) if named else ids > 0
    if valid.all() and (_ascending(ids, who) if named else bool((ids[1:] > ids[:-1]).all())):
        return [], 0  # in order (as import writes them), each row after the last: none repeats
    if len(rows.names) < 9_000:
        # One int64 per row: id * annotators + annotator fits, since ids are at most 10**15.
        keys = ids[valid]
        if named:
            keys *= max(len(rows.names), 1)
            keys += who[valid]
        keys.sort()
        if not (keys[1:] == keys[:-1]).any():
            return [], 0
        del keys
    # Some item is scored twice: find which rows, in file order (an error, so memory is no concern).
    who = who if named else np.zeros(len(ids), dtype=np.int32)
    where = np.flatnonzero(valid)
    order = where[np.lexsort((where, who[where], ids[where]))]
    repeat = (ids[order][1:] == ids[order][:-1]) & (who[order][1:] == who[order][:-1])
    starts = np.concatenate(([True], ~repeat))
    first_of = order[np.maximum.accumulate(np.where(starts, np.arange(len(order)), 0))]
    repeated = np.flatnonzero(~starts)
    later, first = order[repeated], first_of[repeated]
    chosen = np.argsort(later, kind="stable")[:MAX_LISTED_PROBLEMS]
    problems = []
    for at, earlier in zip(later[chosen].tolist(), first[chosen].tolist(), strict=True):
        by = f" by annotator {rows.names[rows.who[at]]!r}" if named else ""
        item = rows.ids[at] if rows.items is None else list(rows.items)[rows.ids[at] - 1]
        message = (
            f"id {item} scored{by} again (first in data row {earlier + 1}, line {rows.lines[earlier]}); "
            "an annotator scores an item once"
        )
        problems.append(Problem(at + 1, rows.lines[at], "id", message))
    return problems, len(repeated)


def _ascending(ids: np.ndarray, who: np.ndarray) -> bool:
    """Whether the rows go strictly up by (annotator, id) or by (id, annotator): then none repeats."""
    for major, minor in ((who, ids), (ids, who)):
        up = major[1:] > major[:-1]
        up |= (major[1:] == major[:-1]) & (minor[1:] > minor[:-1])
        if up.all():
            return True
    return False


def _frame(rows: _Rows, generation: str | None, columns: list[str]) -> pd.DataFrame:
    """The checked rows as the frame `read_human_scores` returns, built without copies of the text.

    The text columns stay ``object`` columns of the few distinct strings (pandas would otherwise
    make a string column of its own, a copy of every cell).
    """
    ids = np.frombuffer(rows.ids, dtype=np.int64)
    data: dict[str, pd.Series] = {
        "id": pd.Series(ids, copy=False),
        "score": pd.Series(np.frombuffer(rows.scores, dtype=np.int8).astype(np.int64), copy=False),
    }
    if rows.items is not None:  # another eval's ids (text; codes from 1) and scores (any number)
        data["id"] = pd.Series(np.asarray([*rows.items], dtype=object)[ids - 1], dtype=object)
        data["score"] = pd.Series(np.frombuffer(rows.scores, dtype=np.float64), copy=False)
    if "annotator" in columns:
        names = np.asarray(rows.names, dtype=object)[np.frombuffer(rows.who, dtype=np.int32)]
        data["annotator"] = pd.Series(names, dtype=object, copy=False)
    if "generation" in columns:
        # fill(), not np.full(), which makes a new string per row
        same = np.empty(len(rows.lines), dtype=object)
        same.fill(generation)
        data["generation"] = pd.Series(same, dtype=object, copy=False)
    return pd.DataFrame(data, copy=False)


def generation_key(scores: pd.DataFrame) -> str | None:
    """The key of the generation a human scores frame was drawn from, if it records one.

    Args:
        scores: As from `read_human_scores`.

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
        HumanScoresError: The record exists but is not a JSON object with a ``generation`` key
            (or is over `MAX_RECORD_BYTES`, or nests deeper than JSON can be read).
    """
    record = record_path(path)
    if not record.exists():
        return None
    return load_record(record)


def load_record(record: Path) -> dict[str, object]:
    """A generation record file, read within `MAX_RECORD_BYTES`.

    Raises:
        HumanScoresError: The file is not a regular file, is too large, unreadable, not JSON (or
            nested too deep to read), or not an object with a ``generation`` key.
    """
    check_regular_file(record, "generation record")
    size = record.stat().st_size
    if size > MAX_RECORD_BYTES:
        raise HumanScoresError(
            record,
            f"{size:,} bytes, not a generation record (one is a few hundred bytes, at most {MAX_RECORD_BYTES:,})",
        )
    try:
        data = json.loads(record.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise HumanScoresError(record, f"not a generation record (unreadable JSON: {error})") from None
    except RecursionError:
        raise HumanScoresError(record, "not a generation record (JSON nested too deep to read)") from None
    except OSError as error:
        raise HumanScoresError(
            record, f"generation record cannot be read ({error.strerror or error})"
        ) from None
    if not isinstance(data, dict) or not isinstance(data.get("generation"), str):
        raise HumanScoresError(record, "not a generation record (no 'generation' key)")
    return data


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
        quoted = ", ".join(shown(name) for name in unexpected[:5]) + (", …" if len(unexpected) > 5 else "")
        message = f"unexpected column(s) {quoted}; allowed: {_names(allowed)}"
        problems.append(Problem(None, line, None, message))
    repeated = sorted({name for name in columns if columns.count(name) > 1 and name in allowed})
    if repeated:
        problems.append(Problem(None, line, None, f"column(s) {_names(repeated)} appear more than once"))
    if problems:
        raise HumanScoresError(path, problems)
    return columns


def _bad(rule: str, cell: str) -> str:
    return f"{rule}, but it is empty" if cell == "" else f"{rule}, found {shown(cell)}"


def _names(names: tuple[str, ...] | list[str]) -> str:
    return ", ".join(repr(name) for name in names)
