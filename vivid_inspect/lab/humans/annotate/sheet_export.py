"""Export a blind annotation sheet: a theme-stratified sample of one generation's explanations.

Import (`vivid_inspect.lab.humans.sheet_import`) turns the filled sheets into a human scores file
(``id, score, annotator, generation``).

A sheet shows what an annotator needs and nothing that reveals who wrote the explanation or what
a judge thought: ``id`` (the sample id), ``idiom``, ``reference_meaning``, ``explanation``, the
empty columns ``score`` (0-5) and ``annotator``, and ``generation``, the opaque key of the
generation the sheet was drawn from (`vivid_inspect.generation_key`). A log of another eval
gives ``input``, ``target`` and ``output`` in place of the three texts, every item drawn
uniformly (no themes), and the judge's scale in the record (`.items`). The rest (model,
prompt, data, log, eval id, sample ids) goes to a record beside the sheet,
``SHEET.csv.generation.json``, which annotators need not see; import reads it back to check the
ids and carries the key into the human scores file, so that ``vivid report`` compares the humans
with the generation they scored.

Sheets are UTF-8 with a byte-order mark so spreadsheet programs open the Vietnamese text
correctly. Every text cell that a spreadsheet would evaluate as a formula is written with a
leading ``'`` (`vivid_inspect.lab.humans.sheet_files.neutralise`); import reads only ids, scores,
annotators and the generation key, so this never changes what is scored.
"""

from __future__ import annotations

import csv
import io
import json
import os
import zipfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from inspect_ai.log import EvalLog, EvalSample, read_eval_log_sample, read_eval_log_samples_by_id

from vivid_inspect.atomic_write import write_atomic
from vivid_inspect.generation_key import Generation, candidate_list, choose, generation_of, matches
from vivid_inspect.lab.bounded_zip import Budget, InflationError, check_members, max_inflated
from vivid_inspect.lab.humans.annotate.items import ANY_COLUMNS, TEXT_COLUMNS, Item, sheet_text
from vivid_inspect.lab.humans.binding import id_order
from vivid_inspect.lab.humans.scores_file import SCALE_KEY, record_path
from vivid_inspect.lab.humans.sheet_files import check_output
from vivid_inspect.lab.humans.sheet_lock import not_served
from vivid_inspect.lab.report.reading.judged import Scale, scale_of
from vivid_inspect.lab.report.reading.log_files import (
    NOT_GENERATIONS,
    is_vivid_log,
    not_generations,
    read_header,
)
from vivid_inspect.lab.report.reading.logs import LogSet, generations_in, read_logs, read_summaries
from vivid_inspect.log_contract import sample_idiom, sample_meaning, short_task
from vivid_inspect.taxonomy import THEME_NAMES
from vivid_inspect.text import nfc, strip_reasoning

SHEET_COLUMNS: tuple[str, ...] = ("id", *TEXT_COLUMNS, "score", "annotator", "generation")
"""A VIVID sheet's header, as `vivid_inspect.lab.humans.annotate.items.sheet_text` writes it."""
DEFAULT_N = 200


def find_generation(
    source: str | os.PathLike[str], generation: str | None = None
) -> tuple[Path, Generation, Scale | None]:
    """The generation log to sample from: a log file, or one generation in a folder.

    Args:
        source: A log file or a folder of logs.
        generation: A selector choosing among several generations: the generation key, the
            model, the prompt, part of the log path, or several of these separated by spaces
            (see `vivid_inspect.generation_key.matches`).

    Returns:
        The log file, its generation and, for another eval's, its judge's scale (None: VIVID's
        0-5; see `judge_scale`). A judged copy (eval metadata ``vivid_judge``) stands in
        for its generation only when the generation log itself is not in the folder; files that
        are not readable logs, and audit and sanity logs (judged made-up answers), are left
        out, as the report leaves them out.

    Raises:
        ValueError: Not an explanation log or another eval's (or an audit or sanity log), no
            generation in the folder, or several and ``generation`` does not pick one (the message
            lists them by key, model, prompt, log).
    """
    path = Path(source)
    if path.is_file():
        header = log_header(path)
        if header is None:
            raise ValueError(f"{path}: not a readable Inspect log")
        kind = not_generations(header)
        if kind is not None:
            raise ValueError(f"{path}: is {NOT_GENERATIONS[kind]}, not a generation of explanations")
        if not is_vivid_log(header):
            return _in_folder(path.parent, generation, path)
        if short_task(header.eval.task) != "explain":
            raise ValueError(f"{path}: is a {short_task(header.eval.task)} log, not an explanation log")
        found = generation_of(header, path.as_posix())
        if generation and not matches(found, generation):
            raise ValueError(
                f"--generation {generation!r} does not name this log"
                + candidate_list([found], "--generation")
            )
        return path, found, None
    return _in_folder(path, generation)


def _in_folder(
    folder: Path, generation: str | None, only: Path | None = None
) -> tuple[Path, Generation, Scale | None]:
    """`find_generation` in a folder (of the log ``only`` when given), by the report's own reading."""
    logset = read_logs(folder)
    candidates = {
        found: folder / found.log
        for found in generations_in(logset, any_eval=True)
        if only is None or (folder / found.log).resolve() == only.resolve()
    }
    if generation:
        chosen = choose(list(candidates), generation, option="--generation")
    elif len(candidates) != 1:
        raise ValueError(
            f"expected one generation under {str(folder)!r}, found {len(candidates)}"
            + candidate_list(list(candidates), "--generation")
        )
    else:
        chosen = next(iter(candidates))
    generic = any(ref.generic and ref.rel == chosen.log for ref in logset.logs)
    return candidates[chosen], chosen, judge_scale(logset, chosen.key) if generic else None


def judge_scale(logset: LogSet, key: str) -> Scale:
    """The scale annotators score another eval's generation on: its judges' declared one, else the range seen.

    Every judge declaring the same scale gives it; otherwise the range of every judge's scores
    seen (`vivid_inspect.lab.report.reading.judged.scale_of`, not declared).
    """
    scores = logset.scores
    rows = scores[(scores["generation"] == key) & scores["judge"].notna()]
    return scale_of(rows if len(set(rows["scale"])) == 1 else rows.drop(columns="scale"))


def log_header(log: Path) -> EvalLog | None:
    """A log's header (read within the log cap), or None for a file that is not a readable log."""
    try:
        return read_header(log, Budget(max_inflated()))
    except Exception:  # noqa: BLE001 - any unreadable file is skipped the same way
        return None


_SAMPLE_FIELDS_LEFT_OUT = {"events", "messages", "store"}


def _read_samples(log: Path, ids: list[Any]) -> list[EvalSample]:
    """The first-epoch samples of ``ids``, their members inflated within the log cap first.

    Raises:
        ValueError: A sample's member inflates past the cap, or a summary's sample is missing or
            unreadable (a damaged or hand-edited log): the message names the log and the sample.
    """
    budget = Budget(max_inflated())
    try:
        if log.suffix == ".eval":
            with zipfile.ZipFile(log) as archive:
                members = [name for name in archive.namelist() if name.startswith("samples/")]
            check_members(log, members, budget)
        else:
            budget.take(log.name, log.stat().st_size)
    except InflationError as error:
        raise ValueError(f"{log}: {error}") from None
    try:
        return read_eval_log_samples_by_id(
            str(log),
            [(item, 1) for item in ids],
            resolve_attachments=True,
            exclude_fields=_SAMPLE_FIELDS_LEFT_OUT,
        )
    except Exception as error:  # noqa: BLE001 - which sample, and why, is found below
        failure = error
    # One at a time, to name the sample (only on this error path: the batch read is faster).
    for item in ids:
        try:
            read_eval_log_sample(
                str(log), id=item, epoch=1, resolve_attachments=True, exclude_fields=_SAMPLE_FIELDS_LEFT_OUT
            )
        except Exception as error:  # noqa: BLE001 - every way a sample cannot be read is said the same way
            why = (
                "has no sample in the log"
                if isinstance(error, IndexError)
                else f"cannot be read ({_first_line(error)})"
            )
            raise ValueError(
                f"{log}: sample {item} (epoch 1) is listed in the log's summaries but {why}; the log is "
                "damaged or edited by hand: export from a complete copy of it"
            ) from None
    raise ValueError(f"{log}: the samples cannot be read ({_first_line(failure)})")


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0][:120]}" if text else type(error).__name__


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
    for item, theme in sorted(themes.items(), key=lambda kv: id_order(str(kv[0]))):
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
        source: A generation log, or a folder of logs (see `find_generation`).
        out: The CSV sheet to write.
        n: Number of items.
        seed: Seed of the sample.
        generation: Selector choosing the generation inside a folder (see `find_generation`).
        force: Replace an existing sheet and record (an input is never replaced).

    Returns:
        The sheet as written (text cells as in the file).

    Raises:
        ValueError: No single generation, ``n`` not positive, or ``out`` (or its record) is an
            input or exists without ``force``.
        vivid_inspect.lab.folder_lock.FolderBusy: ``out`` is in an annotation folder that a running
            ``vivid annotate serve`` holds (that server alone writes there).
    """
    with not_served(Path(out)):
        return _export(source, Path(out), n=n, seed=seed, generation=generation, force=force)


def _export(
    source: str | os.PathLike[str], out: Path, *, n: int, seed: int, generation: str | None, force: bool
) -> pd.DataFrame:
    inputs = [Path(source)]
    check_output(out, inputs, force=force)
    check_output(record_path(out), inputs, force=force)
    log, described, scale = find_generation(source, generation)
    check_output(out, [log], force=force)
    check_output(record_path(out), [log], force=force)
    summaries = [s for s in read_summaries(log) if int(s.get("epoch") or 1) == 1 and not s.get("error")]
    # Another eval's items have no themes: one stratum, a uniform draw.
    themes = {
        s["id"]: str((s.get("metadata") or {}).get("theme") or "") if scale is None else "" for s in summaries
    }
    samples = {s.id: s for s in _read_samples(log, sorted(themes, key=lambda item: id_order(str(item))))}
    outputs = {item: nfc(strip_reasoning(s.output.completion)).strip() for item, s in samples.items()}
    # VIVID's empty explanation is scored 0 without a judge; another eval's judge scores every output.
    candidates = {item: theme for item, theme in themes.items() if outputs.get(item) or scale is not None}
    items = [
        _item(samples[item], outputs[item], scale is None) for item in stratified_ids(candidates, n, seed)
    ]
    text = sheet_text(
        TEXT_COLUMNS if scale is None else ANY_COLUMNS, ((i.id, i, "", "") for i in items), described.key
    )
    header, *cells = csv.reader(io.StringIO(text))
    sheet = pd.DataFrame(cells, columns=header).assign(id=[item.id for item in items])
    record = described.record() | {
        "log": str(log.resolve()),
        "sheet": out.name,
        "sheet_ids": list(sheet["id"]),
        "seed": seed,
    }
    if scale is not None:
        record[SCALE_KEY] = asdict(scale)
    write_atomic(record_path(out), json.dumps(record, ensure_ascii=False, indent=1) + "\n")
    write_atomic(out, text, encoding="utf-8-sig")
    return sheet


def _item(sample: EvalSample, output: str, vivid: bool) -> Item:
    """A sample as shown: VIVID's idiom and reference meaning, or another eval's input and target."""
    if vivid:
        given, target = (
            sample_idiom(sample.input, sample.metadata),
            sample_meaning(sample.target, sample.metadata),
        )
    else:
        given, target = _text(sample.input), _text(sample.target)
    return Item(sample.id, nfc(given), nfc(target).strip(), output)


def _text(value: str | list[Any]) -> str:
    """An input or target as text: a list of chat messages as ``role: text`` paragraphs, of targets one a line."""
    if isinstance(value, str):
        return value
    return "\n".join(
        part if isinstance(part, str) else f"{part.role}: {part.text}\n" for part in value
    ).strip()
