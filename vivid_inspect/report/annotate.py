"""Human annotation sheets: export a blind sample of explanations, import the filled sheets.

The export draws a theme-stratified sample of generated explanations; the import turns the filled
sheets into a human scores file (``id, score, annotator, generation``).

A sheet shows what an annotator needs and nothing that reveals who wrote the explanation or what
a judge thought: ``id`` (the sample id), ``idiom``, ``reference_meaning``, ``explanation``, the
empty columns ``score`` (0-5) and ``annotator``, and ``generation``, the opaque key of the
generation the sheet was drawn from (:mod:`vivid_inspect.generation_key`). The rest (model,
prompt, data, log, eval id, sample ids) goes to a record beside the sheet,
``SHEET.csv.generation.json``, which annotators need not see; import reads it back to check the
ids and carries the key into the human scores file, so that ``vivid report`` compares the humans
with the generation they scored.

Sheets are UTF-8 with a byte-order mark so spreadsheet programs open the Vietnamese text
correctly. Every text cell that a spreadsheet would evaluate as a formula is written with a
leading ``'`` (:func:`vivid_inspect.report.sheet_files.neutralise`); import reads only ids, scores,
annotators and the generation key, so this never changes what is scored.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from inspect_ai.log import EvalLog, read_eval_log, read_eval_log_samples_by_id

from vivid_inspect.generation_key import (
    Generation,
    candidate_list,
    choose,
    generation_of,
    matches,
)
from vivid_inspect.inputs.human_scores import (
    RECORD_SUFFIX,
    HumanScoresError,
    Problem,
    read_generation_record,
    read_human_scores,
    read_records,
    record_path,
    whole_number,
)
from vivid_inspect.log_contract import short_task
from vivid_inspect.redact import excerpt
from vivid_inspect.report.binding import generations_in
from vivid_inspect.report.logs import read_logs, read_summaries
from vivid_inspect.report.sheet_files import check_output, cut, neutralise, write_atomic
from vivid_inspect.taxonomy import THEME_NAMES
from vivid_inspect.text import nfc, strip_reasoning

SHEET_COLUMNS: tuple[str, ...] = (
    "id",
    "idiom",
    "reference_meaning",
    "explanation",
    "score",
    "annotator",
    "generation",
)
HUMAN_COLUMNS: tuple[str, ...] = ("id", "score", "annotator")
DEFAULT_N = 200
_TEXT_COLUMNS = ("idiom", "reference_meaning", "explanation")


def find_generation(source: str | os.PathLike[str], generation: str | None = None) -> tuple[Path, Generation]:
    """The generation log to sample from: a log file, or one explanation generation in a folder.

    Args:
        source: A log file or a folder of logs.
        generation: A selector choosing among several generations: the generation key, the
            model, the prompt, part of the log path, or several of these separated by spaces
            (see :func:`vivid_inspect.generation_key.matches`).

    Returns:
        The log file and its generation. A judged copy (eval metadata ``vivid_judge``) stands in
        for its generation only when the generation log itself is not in the folder; files that
        are not readable VIVID logs are left out, as the report leaves them out.

    Raises:
        ValueError: Not an explanation log, no explanation log in the folder, or several and
            ``generation`` does not pick one (the message lists them by key, model, prompt, log).
    """
    path = Path(source)
    if path.is_file():
        header = _header(path)
        if header is None:
            raise ValueError(f"{path}: not a readable Inspect log")
        if short_task(header.eval.task) != "explain":
            raise ValueError(f"{path}: is a {short_task(header.eval.task)} log, not an explanation log")
        found = generation_of(header, path.as_posix())
        if generation and not matches(found, generation):
            raise ValueError(
                f"--generation {generation!r} does not name this log"
                + candidate_list([found], "--generation")
            )
        return path, found
    # The report's own reading (size-capped, VIVID logs only), so both see the same generations.
    logset = read_logs(path)
    files: dict[str, Path] = {}
    for ref in sorted(logset.logs, key=lambda ref: ref.rel != ref.generation):  # a generation log first
        if ref.identity is not None:
            files.setdefault(ref.generation, ref.path)
    candidates = {found: files[rel] for rel, found in generations_in(logset).items()}
    if generation:
        chosen = choose(list(candidates), generation, option="--generation")
        return candidates[chosen], chosen
    if len(candidates) != 1:
        raise ValueError(
            f"expected one explanation generation under {str(path)!r}, found {len(candidates)}"
            + candidate_list(list(candidates), "--generation")
        )
    chosen = next(iter(candidates))
    return candidates[chosen], chosen


def _header(log: Path) -> EvalLog | None:
    """A log's header, or None for a file that is not a readable log (it is not a candidate)."""
    try:
        return read_eval_log(str(log), header_only=True)
    except Exception:  # noqa: BLE001 - any unreadable file is skipped the same way
        return None


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
    by_remainder = sorted(
        names, key=lambda name: (-(quotas[name] - counts[name]), order.get(name, len(order)), name)
    )
    for name in by_remainder[: n - sum(counts.values())]:
        counts[name] += 1
    chosen: list[Any] = []
    for name in names:
        pool = strata[name]
        picks = (
            rng.choice(len(pool), size=counts[name], replace=False)
            if counts[name]
            else np.empty(0, dtype=int)
        )
        chosen.extend(pool[int(i)] for i in sorted(picks))
    return [chosen[int(i)] for i in rng.permutation(len(chosen))]


def export_sheet(
    source: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    n: int = DEFAULT_N,
    seed: int = 0,
    generation: str | None = None,
    force: bool = False,
) -> pd.DataFrame:
    """Write a blind annotation sheet of ``n`` explanations stratified by theme, and its record.

    Items of the first epoch with a non-empty explanation are candidates (an empty one is
    scored 0 without a judge and needs no annotator). Text cells are cut to what a spreadsheet
    cell holds and neutralised as formulas; the sheet and its record
    (``out.generation.json``) are each written whole or not at all.

    Args:
        source: A generation log, or a folder of logs (see :func:`find_generation`).
        out: The CSV sheet to write.
        n: Number of items.
        seed: Seed of the sample.
        generation: Selector choosing the generation inside a folder (see :func:`find_generation`).
        force: Replace an existing sheet and record (an input is never replaced).

    Returns:
        The sheet as written (text cells as in the file).

    Raises:
        ValueError: No single generation, ``n`` not positive, or ``out`` (or its record) is an
            input or exists without ``force``.
    """
    out = Path(out)
    inputs = [Path(source)]
    check_output(out, inputs, force=force)
    check_output(record_path(out), inputs, force=force)
    log, described = find_generation(source, generation)
    check_output(out, [log], force=force)
    check_output(record_path(out), [log], force=force)
    summaries = [s for s in read_summaries(log) if int(s.get("epoch") or 1) == 1 and not s.get("error")]
    themes = {s["id"]: str((s.get("metadata") or {}).get("theme") or "") for s in summaries}
    samples = read_eval_log_samples_by_id(
        str(log),
        [(item, 1) for item in sorted(themes, key=_id_key)],
        resolve_attachments=True,
        exclude_fields={"events", "messages", "store"},
    )
    explanations = {s.id: nfc(strip_reasoning(s.output.completion)).strip() for s in samples}
    meta = {s.id: s.metadata for s in samples}
    candidates = {item: theme for item, theme in themes.items() if explanations.get(item)}
    texts = {
        item: {
            "idiom": nfc(str(meta[item].get("idiom", ""))),
            "reference_meaning": nfc(str(meta[item].get("meaning", ""))).strip(),
            "explanation": explanations[item],
        }
        for item in candidates
    }
    rows = [
        {"id": item, **{column: neutralise(cut(texts[item][column])) for column in _TEXT_COLUMNS}}
        | {"score": "", "annotator": "", "generation": described.key}
        for item in stratified_ids(candidates, n, seed)
    ]
    sheet = pd.DataFrame(rows, columns=list(SHEET_COLUMNS))
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(SHEET_COLUMNS)
    writer.writerows(sheet.itertuples(index=False, name=None))
    record = described.record() | {
        "log": str(log.resolve()),
        "sheet": out.name,
        "sheet_ids": list(sheet["id"]),
        "seed": seed,
    }
    write_atomic(record_path(out), json.dumps(record, ensure_ascii=False, indent=1) + "\n")
    write_atomic(out, buffer.getvalue(), encoding="utf-8-sig")
    return sheet


def import_sheets(
    sheets: Sequence[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    *,
    annotator: str | None = None,
    force: bool = False,
) -> pd.DataFrame:
    """Check filled sheets and write them as one human scores file (``id, score, annotator[, generation]``).

    Every problem in every sheet is reported at once: a row without a score, a score that is not
    a whole number 0-5, an id that is not an integer or not a sample of the sheet's generation,
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
        :func:`vivid_inspect.inputs.human_scores.read_human_scores`.

    Raises:
        ValueError: No sheet given, any problem in any sheet (the message lists them all), or
            ``out`` is an input or exists without ``force``.
    """
    if not sheets:
        raise ValueError("no sheet given; expected one or more filled annotation sheets")
    out = Path(out)
    inputs = [path for sheet in map(Path, sheets) for path in (sheet, record_path(sheet))]
    check_output(out, inputs, force=force)
    records: list[tuple[int, int, str]] = []
    seen: dict[tuple[int, str], str] = {}
    errors: list[str] = []
    bound: dict[Path, dict[str, Any] | None] = {}
    for sheet in map(Path, sheets):
        try:
            rows, bound[sheet] = _check_sheet(sheet, annotator or sheet.stem, seen)
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
    records.sort(key=lambda r: (r[2], r[0]))
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow((*HUMAN_COLUMNS, "generation") if record else HUMAN_COLUMNS)
    writer.writerows((*row, record["generation"]) if record else row for row in records)
    if record is not None:
        kept = {key: value for key, value in record.items() if key not in ("sheet", "sheet_ids", "seed")}
        kept["sheets"] = [str(sheet) for sheet in bound]
        write_atomic(record_path(out), json.dumps(kept, ensure_ascii=False, indent=1) + "\n")
    write_atomic(out, buffer.getvalue())
    return read_human_scores(out)


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
            data = json.loads(other.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            continue
        if isinstance(data, dict) and data.get("generation") == key:
            return data
    message = (
        f"no record of generation {key!r}: looked for {record_path(path).name} and any *{RECORD_SUFFIX} in "
        f"{path.parent}; keep the record `vivid annotate export` wrote beside the sheet in the sheet's folder"
    )
    raise HumanScoresError(path, [Problem(1, line, "generation", message)])


def _check_sheet(
    path: Path, default_annotator: str, seen: dict[tuple[int, str], str]
) -> tuple[list[tuple[int, int, str]], dict[str, Any] | None]:
    records = read_records(path, "sheet", "expected the exported header with filled scores")
    header_line, header = records[0]
    columns = [nfc(name).strip() for name in header]
    missing = [name for name in ("id", "score") if name not in columns]
    if missing:
        raise HumanScoresError(
            path, [Problem(None, header_line, None, f"missing column(s) {', '.join(map(repr, missing))}")]
        )
    record, samples = _generation_of_sheet(path, columns, records)
    problems: list[Problem] = []
    rows: list[tuple[int, int, str]] = []
    for row, (line, cells_list) in enumerate(records[1:], start=1):
        cells = {
            name: (cells_list[i].strip() if i < len(cells_list) else "") for i, name in enumerate(columns)
        }
        found: list[Problem] = []
        item = whole_number(cells["id"])
        if item is None:
            found.append(Problem(row, line, "id", f"id must be an integer, found {_shown(cells['id'])}"))
        elif samples is not None and str(item) not in samples:
            message = f"id {item} is not a sample of generation {record['generation']!r} (the sheet's; {len(samples)} samples)"  # type: ignore[index]
            found.append(Problem(row, line, "id", message))
        score = whole_number(cells["score"])
        if cells["score"] == "":
            found.append(Problem(row, line, "score", "not scored yet (empty score)"))
        elif score is None or not 0 <= score <= 5:
            found.append(
                Problem(
                    row,
                    line,
                    "score",
                    f"score must be a whole number from 0 to 5, found {_shown(cells['score'])}",
                )
            )
        who = nfc(cells.get("annotator", "")) or default_annotator
        if item is not None:
            where = f"{path.name} data row {row}"
            if (item, who) in seen:
                found.append(
                    Problem(
                        row, line, "id", f"id {item} scored again by {who!r} (first in {seen[(item, who)]})"
                    )
                )
            else:
                seen[(item, who)] = where
        problems.extend(found)
        if not found:
            rows.append((int(item), int(score), who))  # type: ignore[arg-type]
    if problems:
        raise HumanScoresError(path, problems)
    if not rows:
        raise HumanScoresError(path, "no data rows below the header")
    return rows, record


def _generation_of_sheet(
    path: Path, columns: list[str], records: list[tuple[int, list[str]]]
) -> tuple[dict[str, Any] | None, set[str] | None]:
    """The record of the generation a sheet was drawn from and its sample ids; None without a key."""
    if "generation" not in columns:
        return None, None
    index = columns.index("generation")
    keys: dict[str, tuple[int, int]] = {}
    problems: list[Problem] = []
    for row, (line, cells) in enumerate(records[1:], start=1):
        key = cells[index].strip() if index < len(cells) else ""
        if not key:
            problems.append(
                Problem(row, line, "generation", "generation key is empty; keep the exported column as it is")
            )
        else:
            keys.setdefault(key, (row, line))
    if len(keys) > 1:
        (first, (row, line)), *others = keys.items()
        listed = ", ".join(f"{_shown(key)} (data row {where[0]})" for key, where in others)
        problems.append(
            Problem(
                None, records[0][0], "generation", f"rows name several generations: {first!r} and {listed}"
            )
        )
    if problems:
        raise HumanScoresError(path, problems)
    if not keys:
        return None, None
    key, (_, line) = next(iter(keys.items()))
    record = _sheet_record(path, key, line)
    return record, {str(item) for item in record.get("sample_ids") or []}


def _shown(cell: str) -> str:
    return repr(excerpt(cell, 40))


def _id_key(item: Any) -> tuple[int, Any]:
    return (0, item) if isinstance(item, int) else (1, str(item))
