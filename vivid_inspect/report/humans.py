"""Human annotation files: 0-5 scores of model explanations, to validate the LLM judge against.

A file is a CSV with a header and the columns ``id`` (the sample id, an integer), ``score`` (a
whole number 0-5) and, optionally, ``annotator``. UTF-8 with or without a byte-order mark, LF or
CRLF line ends. Every problem in the file is reported at once, each naming the data row (1-based,
not counting the header), the file line and the column, so an annotator can fix them in one pass.
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Hashable
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from vivid_inspect.report.agreement import Agreement, agreement
from vivid_inspect.text import nfc

REQUIRED_COLUMNS: tuple[str, ...] = ("id", "score")
OPTIONAL_COLUMNS: tuple[str, ...] = ("annotator",)

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
            listed = "\n".join(f"  - {problem}" for problem in problems)
            message = f"{path}: {len(problems)} problem(s) in human scores file:\n{listed}"
        super().__init__(message)


def read_human_scores(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read and validate a human scores CSV.

    Args:
        path: The CSV file.

    Returns:
        One row per data row, in file order: ``id`` (int64), ``score`` (int64) and, when the
        file has it, ``annotator`` (str, NFC).

    Raises:
        HumanScoresError: The file is missing, unreadable, has the wrong columns, or rows with an
            id that is not an integer, a score that is not a whole number 0-5, an empty annotator,
            or the same (id, annotator) twice. The message names the file and every bad row.
    """
    path = Path(path)
    records = read_records(path, "human scores file", "expected a header 'id,score[,annotator]'")
    header_line, header = records[0]
    columns = _check_header(path, header_line, header)
    problems: list[Problem] = []
    parsed: dict[str, list[object]] = {column: [] for column in columns}
    seen: dict[tuple[int, str | None], tuple[int, int]] = {}
    for row, (line, record) in enumerate(records[1:], start=1):
        if len(record) != len(columns):
            message = f"expected {len(columns)} fields ({','.join(columns)}), found {len(record)}"
            problems.append(Problem(row, line, None, message))
            continue
        cells = dict(zip(columns, (cell.strip() for cell in record), strict=True))
        row_problems: list[Problem] = []
        sample_id = _whole(cells["id"])
        if sample_id is None:
            row_problems.append(Problem(row, line, "id", _bad("id must be an integer", cells["id"])))
        score = _whole(cells["score"])
        if score is None or not 0 <= score <= 5:
            message = _bad("score must be a whole number from 0 to 5", cells["score"])
            row_problems.append(Problem(row, line, "score", message))
        annotator = nfc(cells["annotator"]) if "annotator" in cells else None
        if annotator == "":
            row_problems.append(Problem(row, line, "annotator", "annotator is empty"))
        if sample_id is not None and annotator != "":
            key = (sample_id, annotator)
            if key in seen:
                first_row, first_line = seen[key]
                who = f" by annotator {annotator!r}" if annotator is not None else ""
                message = f"id {sample_id} scored{who} again (first in data row {first_row}, line {first_line})"
                row_problems.append(Problem(row, line, "id", message))
            else:
                seen[key] = (row, line)
        problems.extend(row_problems)
        if not row_problems:
            values = {"id": sample_id, "score": score, "annotator": annotator}
            for column in columns:
                parsed[column].append(values[column])
    if problems:
        raise HumanScoresError(path, problems)
    if len(records) == 1:
        raise HumanScoresError(path, "no data rows below the header")
    frame = pd.DataFrame(
        {"id": pd.Series(parsed["id"], dtype="int64"), "score": pd.Series(parsed["score"], dtype="int64")}
    )
    if "annotator" in parsed:
        frame["annotator"] = pd.Series(parsed["annotator"], dtype=object)
    return frame


def human_means(df: pd.DataFrame) -> dict[int, float]:
    """Per-item human score: the mean over annotators, to compare with a judge.

    Args:
        df: Columns ``id`` and ``score`` (as from ``read_human_scores``).

    Returns:
        Item id to mean score, in ascending id order.

    Raises:
        ValueError: ``id`` or ``score`` is missing.
    """
    _require(df, REQUIRED_COLUMNS)
    means = df.groupby("id", sort=True)["score"].mean()
    return {int(sample_id): float(mean) for sample_id, mean in means.items()}


def human_ceiling(annotations: pd.DataFrame, *, n_boot: int = 1000, seed: int = 0) -> Agreement | None:
    """Human-human agreement: the ceiling a judge can be expected to reach.

    Compares the first two annotators by sorted name on the items both scored, with the same
    statistics as a judge: the second annotator takes the judge's place (confusion-matrix columns,
    ``judge_mean``), the first the human's (rows, ``human_mean``).

    Args:
        annotations: Columns ``id``, ``score`` and ``annotator`` (as from ``read_human_scores``).
        n_boot: Bootstrap resamples for the intervals; 0 skips them.
        seed: Seed of ``numpy.random.default_rng`` for the resamples.

    Returns:
        The agreement, or ``None`` when there is no ``annotator`` column, fewer than two
        annotators, or no item that the two both scored.

    Raises:
        ValueError: ``id`` or ``score`` is missing, an annotator scored an item twice, or a score
            is not a number from 0 to 5.
    """
    _require(annotations, REQUIRED_COLUMNS)
    if "annotator" not in annotations.columns:
        return None
    names = sorted(annotations["annotator"].dropna().astype(str).unique())
    if len(names) < 2:
        return None
    first, second = names[:2]
    scores = {name: _scores_of(annotations, name) for name in (first, second)}
    if not set(scores[first]) & set(scores[second]):
        return None
    notes = [f"annotator {second!r} is in the judge's place (columns), annotator {first!r} in the human's (rows)"]
    if len(names) > 2:
        notes.append(f"annotators {', '.join(map(repr, names[2:]))} left out: only the first two by name are compared")
    result = agreement(scores[second], scores[first], n_boot=n_boot, seed=seed)
    return replace(result, notes=(*notes, *result.notes))


def read_records(path: Path, what: str, empty_hint: str) -> list[tuple[int, list[str]]]:
    """The CSV records of a UTF-8 file (BOM allowed), each with the line it starts on.

    Args:
        path: The file.
        what: What the file is, for messages (``human scores file``, ``sheet``).
        empty_hint: Said after "the file is empty; " when it has no records.

    Raises:
        HumanScoresError: The file is missing, not UTF-8, or empty.
    """
    if not path.is_file():
        raise HumanScoresError(path, f"{what} not found")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as error:
        raise HumanScoresError(path, f"not UTF-8 text ({error.reason} at byte {error.start})") from error
    records = _records(text)
    if not records:
        raise HumanScoresError(path, f"the file is empty; {empty_hint}")
    return records


def _records(text: str) -> list[tuple[int, list[str]]]:
    """Non-blank CSV records with the file line each starts on (a quoted field may span lines)."""
    reader = csv.reader(io.StringIO(text, newline=""))
    records: list[tuple[int, list[str]]] = []
    line = 1
    for record in reader:
        if any(cell.strip() for cell in record):
            records.append((line, record))
        line = reader.line_num + 1
    return records


def _check_header(path: Path, line: int, header: list[str]) -> list[str]:
    columns = [nfc(name).strip() for name in header]
    allowed = (*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS)
    problems: list[Problem] = []
    missing = [name for name in REQUIRED_COLUMNS if name not in columns]
    if missing:
        problems.append(Problem(None, line, None, f"missing column(s) {_names(missing)}; allowed: {_names(allowed)}"))
    unexpected = [name for name in columns if name not in allowed]
    if unexpected:
        message = f"unexpected column(s) {_names(unexpected)}; allowed: {_names(allowed)}"
        problems.append(Problem(None, line, None, message))
    repeated = sorted({name for name in columns if columns.count(name) > 1})
    if repeated:
        problems.append(Problem(None, line, None, f"column(s) {_names(repeated)} appear more than once"))
    if problems:
        raise HumanScoresError(path, problems)
    return columns


def _whole(cell: str) -> int | None:
    match = _WHOLE.fullmatch(cell)
    return int(match["value"]) if match else None


def _bad(rule: str, cell: str) -> str:
    return f"{rule}, but it is empty" if cell == "" else f"{rule}, found {cell!r}"


def _names(names: tuple[str, ...] | list[str]) -> str:
    return ", ".join(repr(name) for name in names)


def _require(df: pd.DataFrame, columns: tuple[str, ...]) -> None:
    missing = [column for column in columns if column not in df.columns]
    if missing:
        raise ValueError(f"human scores lack column(s) {_names(missing)}; have {_names(list(map(str, df.columns)))}")


def _scores_of(annotations: pd.DataFrame, name: str) -> dict[Hashable, float]:
    rows = annotations[annotations["annotator"].astype(str) == name]
    repeated = rows["id"][rows["id"].duplicated()]
    if not repeated.empty:
        raise ValueError(f"annotator {name!r} scored id {repeated.tolist()[0]!r} more than once")
    return dict(zip(rows["id"].tolist(), rows["score"].tolist(), strict=True))
