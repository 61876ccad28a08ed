"""Human annotation sheets: export a blind, theme-stratified sample of generated explanations and
import the filled sheets as a human scores file (``id, score, annotator``).

A sheet shows what an annotator needs and nothing that reveals who wrote the explanation or what
a judge thought: ``id`` (the sample id), ``idiom``, ``reference_meaning``, ``explanation``, and the
empty columns ``score`` (0-5) and ``annotator``. Sheets are UTF-8 with a byte-order mark so
spreadsheet programs open the Vietnamese text correctly.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from inspect_ai.log import read_eval_log, read_eval_log_samples_by_id

from vivid_inspect.report.humans import (
    HumanScoresError,
    Problem,
    read_human_scores,
    read_records,
)
from vivid_inspect.report.logs import (
    VIVID_JUDGE_KEY,
    find_log_files,
    read_summaries,
    short_task,
)
from vivid_inspect.taxonomy import THEME_NAMES
from vivid_inspect.text import nfc, strip_reasoning

SHEET_COLUMNS: tuple[str, ...] = ("id", "idiom", "reference_meaning", "explanation", "score", "annotator")
HUMAN_COLUMNS: tuple[str, ...] = ("id", "score", "annotator")
DEFAULT_N = 200


def find_generation(source: str | os.PathLike[str], generation: str | None = None) -> Path:
    """The generation log to sample from: a log file, or the one explanation generation in a folder.

    Args:
        source: A log file or a folder of logs.
        generation: Substring of the log's path to choose among several generations.

    Returns:
        The log file. A judged copy (eval metadata ``vivid_judge``) stands in for its
        generation only when the generation log itself is not in the folder.

    Raises:
        ValueError: No explanation log, or several and ``generation`` does not pick one.
    """
    path = Path(source)
    if path.is_file():
        return path
    generations: list[Path] = []
    copies: dict[str, Path] = {}
    for log in find_log_files(path):
        header = read_eval_log(str(log), header_only=True)
        if short_task(header.eval.task) != "explain":
            continue
        judged = (header.eval.metadata or {}).get(VIVID_JUDGE_KEY)
        if isinstance(judged, dict):
            copies.setdefault(Path(str(judged.get("generation_log", log))).name, log)
        else:
            generations.append(log)
    names = {log.name for log in generations}
    candidates = generations + [copy for name, copy in sorted(copies.items()) if name not in names]
    if generation:
        candidates = [log for log in candidates if generation in log.relative_to(path).as_posix()]
    if len(candidates) != 1:
        listed = ", ".join(log.relative_to(path).as_posix() for log in candidates) or "(none)"
        hint = " (choose one with --generation SUBSTRING)" if len(candidates) > 1 else ""
        raise ValueError(f"expected one explanation generation log under {str(path)!r}, found {len(candidates)}{hint}: {listed}")
    return candidates[0]


def stratified_ids(themes: dict[Any, str], n: int, seed: int = 0) -> list[Any]:
    """Choose ``n`` ids, allocated to themes in proportion to their size (largest remainder).

    Args:
        themes: Theme of each candidate id.
        n: How many to choose; all of them when ``n`` is at least the number of ids.
        seed: Seed of ``numpy.random.default_rng``.

    Returns:
        The chosen ids in a seeded random order (so the sheet's order says nothing of theme).

    Raises:
        ValueError: If ``n`` is not positive.
    """
    if n <= 0:
        raise ValueError(f"n must be a positive number of items, got {n}")
    rng = np.random.default_rng(seed)
    order = {name: i for i, name in enumerate(THEME_NAMES)}
    strata: dict[str, list[Any]] = {}
    for item, theme in sorted(themes.items(), key=lambda kv: _id_key(kv[0])):
        strata.setdefault(str(theme), []).append(item)
    names = sorted(strata, key=lambda t: (order.get(t, len(order)), t))
    total = sum(len(v) for v in strata.values())
    n = min(n, total)
    quotas = {name: n * len(strata[name]) / total for name in names}
    counts = {name: int(quotas[name]) for name in names}
    by_remainder = sorted(names, key=lambda name: (-(quotas[name] - counts[name]), order.get(name, len(order)), name))
    for name in by_remainder[: n - sum(counts.values())]:
        counts[name] += 1
    chosen: list[Any] = []
    for name in names:
        pool = strata[name]
        picks = rng.choice(len(pool), size=counts[name], replace=False) if counts[name] else []
        chosen.extend(pool[int(i)] for i in sorted(picks))
    return [chosen[int(i)] for i in rng.permutation(len(chosen))]


def export_sheet(
    source: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    n: int = DEFAULT_N,
    seed: int = 0,
    generation: str | None = None,
) -> pd.DataFrame:
    """Write a blind annotation sheet of ``n`` explanations stratified by theme.

    Items of the first epoch with a non-empty explanation are candidates (an empty one is
    scored 0 without a judge and needs no annotator).

    Args:
        source: A generation log, or a folder with exactly one (see :func:`find_generation`).
        out: The CSV sheet to write.
        n: Number of items.
        seed: Seed of the sample.
        generation: Substring choosing the generation log inside a folder.

    Returns:
        The sheet as written.

    Raises:
        ValueError: No single generation log, or ``n`` not positive.
    """
    log = find_generation(source, generation)
    summaries = [s for s in read_summaries(log) if int(s.get("epoch") or 1) == 1 and not s.get("error")]
    themes = {s["id"]: str((s.get("metadata") or {}).get("theme") or "") for s in summaries}
    samples = read_eval_log_samples_by_id(
        str(log), [(item, 1) for item in sorted(themes, key=_id_key)], resolve_attachments=True, exclude_fields={"events", "messages", "store"}
    )
    explanations = {s.id: nfc(strip_reasoning(s.output.completion)).strip() for s in samples}
    meta = {s.id: s.metadata for s in samples}
    candidates = {item: theme for item, theme in themes.items() if explanations.get(item)}
    rows = [
        {
            "id": item,
            "idiom": nfc(str(meta[item].get("idiom", ""))),
            "reference_meaning": nfc(str(meta[item].get("meaning", ""))).strip(),
            "explanation": explanations[item],
            "score": "",
            "annotator": "",
        }
        for item in stratified_ids(candidates, n, seed)
    ]
    sheet = pd.DataFrame(rows, columns=list(SHEET_COLUMNS))
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(SHEET_COLUMNS)
    writer.writerows(sheet.itertuples(index=False, name=None))
    Path(out).write_text(buffer.getvalue(), encoding="utf-8-sig", newline="")
    return sheet


def import_sheets(
    sheets: Sequence[str | os.PathLike[str]], out: str | os.PathLike[str], *, annotator: str | None = None
) -> pd.DataFrame:
    """Check filled sheets and write them as one human scores file (``id, score, annotator``).

    Every problem in every sheet is reported at once: a row without a score, a score that is not
    a whole number 0-5, an id that is not an integer, the same id scored twice by one annotator.

    Args:
        sheets: Filled sheets (columns ``id`` and ``score`` required; ``annotator`` and the
            sheet's text columns optional).
        out: The human scores CSV to write.
        annotator: Annotator of rows whose ``annotator`` cell is empty; default the sheet's
            file name without extension.

    Returns:
        The scores as written (sorted by annotator, then id), as read back by
        :func:`vivid_inspect.report.humans.read_human_scores`.

    Raises:
        ValueError: No sheet given, or any problem in any sheet (the message lists them all).
    """
    if not sheets:
        raise ValueError("no sheet given; expected one or more filled annotation sheets")
    records: list[tuple[int, int, str]] = []
    seen: dict[tuple[int, str], str] = {}
    errors: list[str] = []
    for sheet in map(Path, sheets):
        try:
            rows = _check_sheet(sheet, annotator or sheet.stem, seen)
        except HumanScoresError as error:
            errors.append(str(error))
        else:
            records.extend(rows)
    if errors:
        raise ValueError("\n".join(errors))
    records.sort(key=lambda r: (r[2], r[0]))
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(HUMAN_COLUMNS)
    writer.writerows(records)
    Path(out).write_text(buffer.getvalue(), encoding="utf-8", newline="")
    return read_human_scores(out)


def _check_sheet(path: Path, default_annotator: str, seen: dict[tuple[int, str], str]) -> list[tuple[int, int, str]]:
    records = read_records(path, "sheet", "expected the exported header with filled scores")
    header_line, header = records[0]
    columns = [nfc(name).strip() for name in header]
    missing = [name for name in ("id", "score") if name not in columns]
    if missing:
        raise HumanScoresError(path, [Problem(None, header_line, None, f"missing column(s) {', '.join(map(repr, missing))}")])
    problems: list[Problem] = []
    rows: list[tuple[int, int, str]] = []
    for row, (line, record) in enumerate(records[1:], start=1):
        cells = {name: (record[i].strip() if i < len(record) else "") for i, name in enumerate(columns)}
        found: list[Problem] = []
        item = _whole(cells["id"])
        if item is None:
            found.append(Problem(row, line, "id", f"id must be an integer, found {cells['id']!r}"))
        score = _whole(cells["score"])
        if cells["score"] == "":
            found.append(Problem(row, line, "score", "not scored yet (empty score)"))
        elif score is None or not 0 <= score <= 5:
            found.append(Problem(row, line, "score", f"score must be a whole number from 0 to 5, found {cells['score']!r}"))
        who = nfc(cells.get("annotator", "")) or default_annotator
        if item is not None:
            where = f"{path.name} data row {row}"
            if (item, who) in seen:
                found.append(Problem(row, line, "id", f"id {item} scored again by {who!r} (first in {seen[(item, who)]})"))
            else:
                seen[(item, who)] = where
        problems.extend(found)
        if not found:
            rows.append((int(item), int(score), who))  # type: ignore[arg-type]
    if problems:
        raise HumanScoresError(path, problems)
    if not rows:
        raise HumanScoresError(path, "no data rows below the header")
    return rows


def _id_key(item: Any) -> tuple[int, Any]:
    return (0, item) if isinstance(item, int) else (1, str(item))


def _whole(cell: str) -> int | None:
    try:
        number = float(cell)
    except ValueError:
        return None
    return int(number) if number.is_integer() else None
