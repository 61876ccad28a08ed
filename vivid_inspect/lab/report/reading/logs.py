"""A log folder as one tidy frame: a row per (log, sample, epoch, scorer), read from summaries only.

Only log headers and sample summaries are read (never full samples): a summary holds the score
values, small score metadata (``judge_model``, ``strategy``, ``parse_status``, ``lenient_correct``)
and small sample metadata (``theme``, ``traits``), which is all the tables need. Headers are read
with Inspect's public reader; the summaries are the members Inspect's summary reader reads,
inflated within a cap and parsed by the report itself (`vivid_inspect.lab.report.reading.log_files`),
so that a repeated key or a sample held twice is seen rather than silently resolved
(bench/results.md, "Reading logs: public readers against our own", has the cost of each route).

What is kept of each header: `vivid_inspect.lab.report.reading.log_refs`; how a log's summaries become
rows, and which scorer is which judge: `vivid_inspect.lab.report.reading.score_rows`; which file is read
where several hold one judgement (judged copies, reruns): `vivid_inspect.lab.report.reading.counted_once`.
A log whose header or summaries hold what Inspect could not have written (an epoch of 10^30, an id
that is not an id, a repeated key, ids that are not its data's) is skipped with the reason, never
fatal; a sample held twice, or one its run did not plan, is named in ``counted_once``.

Logs of VIVID's own tasks are read by VIVID's adapter, any other task's by the generic one
(`vivid_inspect.lab.report.reading.any_eval`); a file that is not read is listed in ``skipped`` with the
reason, on one line. What a report inflates from one ``.eval`` zip, and the size of a ``.json`` log, are capped
(see `vivid_inspect.lab.bounded_zip`), so a decompression bomb or a huge file is skipped,
not read.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd
from inspect_ai.log import EvalLog

from vivid_inspect.generation_key import Generation
from vivid_inspect.lab.bounded_zip import Budget, max_inflated
from vivid_inspect.lab.report.reading.any_eval import generic_ref
from vivid_inspect.lab.report.reading.counted_once import counted_once
from vivid_inspect.lab.report.reading.log_files import (
    AUDIT,
    SANITY,
    LogContentError,
    find_log_files,
    is_vivid_log,
    not_generations,
    read_header,
    read_summaries,
)
from vivid_inspect.lab.report.reading.log_refs import LogRef, generation_resolver, log_ref
from vivid_inspect.lab.report.reading.score_rows import SCORE_COLUMNS, RefusedValues, run_items, score_rows
from vivid_inspect.redact import redact

__all__ = [
    "SCORE_COLUMNS",
    "LogRef",
    "LogSet",
    "find_log_files",
    "is_vivid_log",
    "one_line",
    "read_logs",
    "read_summaries",
]

logger = logging.getLogger(__name__)

_SKIPPED_LIMIT = 300


@dataclass(frozen=True)
class LogSet:
    """Every log under a folder and their scores.

    Attributes:
        root: The log folder.
        logs: One entry per log read, sorted by relative path.
        scores: One row per (log, sample, epoch, scorer); see `SCORE_COLUMNS`.
        skipped: Files that look like logs but were not read (unreadable, too large once inflated,
            or holding no score), each ``path: reason`` on one line.
        audits: Logs of ``vivid audit``, set aside: they hold no generations (their scores are
            read by the audit tables alone).
        sanity: Logs of ``vivid sanity``, set aside: they hold no generations.
        runs: The rows of every run of each generation, one file per judgement and run (the
            human scores may be drawn from a run that ``scores`` does not read); None: as
            ``scores``.
        counted_once: Which file was read where several held one judgement
            (`vivid_inspect.lab.report.reading.counted_once`), which sample a log held twice (the
            last is read) and which samples a log's run did not plan (not read:
            `vivid_inspect.lab.report.reading.score_rows.run_items`), one line each.
        refused: Values no judge or scorer could give, each naming its log and sample; their
            rows count as ``refused``, never in a mean.
    """

    root: Path
    logs: tuple[LogRef, ...]
    scores: pd.DataFrame
    skipped: tuple[str, ...] = ()
    audits: tuple[Path, ...] = ()
    sanity: tuple[Path, ...] = ()
    runs: pd.DataFrame | None = None
    counted_once: tuple[str, ...] = ()
    refused: tuple[str, ...] = ()

    @property
    def run_scores(self) -> pd.DataFrame:
        """Every run's rows (`runs`, or `scores` when not given)."""
        return self.runs if self.runs is not None else self.scores


def read_logs(
    log_dir: str | os.PathLike[str],
    *,
    exclude: Iterable[str | os.PathLike[str]] = (),
    max_inflated_bytes: int | None = None,
) -> LogSet:
    """Read every log's header and sample summaries into one tidy frame (VIVID's and any Inspect task's).

    Args:
        log_dir: Folder searched recursively for logs.
        exclude: Folders to leave out.
        max_inflated_bytes: Most bytes read from one ``.eval`` zip once inflated (and the largest
            ``.json`` log); default
            `vivid_inspect.lab.bounded_zip.max_inflated`.

    Returns:
        The logs and their scores. Files that fail to read, inflate past the cap or hold no score
        to read are listed in ``skipped`` (``vivid report`` warns about each on stderr).
        Audit and sanity logs are set aside in ``audits`` and ``sanity``: their samples are
        judged made-up answers, not a model's generations (see
        `vivid_inspect.lab.report.reading.log_files.not_generations`).

    Raises:
        ValueError: If ``log_dir`` is not a folder, or ``VIVID_MAX_LOG_BYTES`` is not a size.
    """
    root = Path(log_dir)
    limit = max_inflated_bytes if max_inflated_bytes is not None else max_inflated(strict=True)
    headers: list[tuple[Path, EvalLog, Budget, tuple[float, int], bool]] = []
    skipped: list[str] = []
    set_aside: dict[str, list[Path]] = {}

    def skip(rel: str, reason: str) -> None:
        entry = one_line(f"{rel}: {reason}")
        logger.debug("skipped %s", entry)  # the CLI warns on stderr; the report lists it
        skipped.append(entry)

    for path in find_log_files(root, exclude=exclude):
        rel = path.relative_to(root).as_posix()
        budget = Budget(limit)
        written: list[tuple[float, int]] = []
        try:
            header = read_header(path, budget, written)
        except Exception as error:  # noqa: BLE001 - a broken file is reported, not fatal
            skip(rel, _reason(error, path))
            continue
        kind = not_generations(header)
        if kind is not None:  # before the task check: an audit's probe tasks are not VIVID's own
            set_aside.setdefault(kind, []).append(path)
            continue
        generic = not is_vivid_log(header)  # another task's log: read by the generic adapter
        headers.append((path, header, budget, written[0] if written else (0.0, 0), generic))
    generation_keys = generation_resolver(root, [p for p, *_ in headers])
    refs: list[LogRef] = []
    rows: list[dict[str, Any]] = []
    refused = RefusedValues()
    notes: list[str] = []
    for path, header, budget, when, generic in headers:
        rel = path.relative_to(root).as_posix()
        mine = RefusedValues()
        repeated: list[str] = []
        try:
            ref = log_ref(root, path, header, generation_keys, when)
            held = read_summaries(path, budget, repeated)
            ref = generic_ref(ref, header, held) if generic else ref
            summaries, strangers = run_items(ref, held)
            found = score_rows(ref, header, summaries, mine)
        except Exception as error:  # noqa: BLE001 - a crafted log is skipped with its reason, never fatal
            skip(rel, _reason(error, path))
            continue
        refs.append(ref)
        rows.extend(found)
        refused.extend(mine)
        notes.extend(
            one_line(f"counted once: {rel} holds a sample twice, the last read: {held}") for held in repeated
        )
        notes.extend(
            one_line(f"not counted: {rel} holds samples its run did not plan: {what}") for what in strangers
        )
    scores = pd.DataFrame(rows, columns=list(SCORE_COLUMNS))
    scores = scores.astype(
        {
            "value": "float64",
            "lenient": "float64",
            "epoch": "int64",
            "repeat": "float64",
            "cached": "float64",
            "refused": "bool",
        }
    )
    once = counted_once(scores)
    return LogSet(
        root=root,
        logs=tuple(refs),
        scores=once.scores,
        skipped=tuple(skipped),
        audits=tuple(set_aside.get(AUDIT, ())),
        sanity=tuple(set_aside.get(SANITY, ())),
        runs=once.runs,
        counted_once=(*notes, *once.notes),
        refused=tuple(refused),
    )


def _reason(error: BaseException, path: Path) -> str:
    """Why a file was not read: the error, and what caused it.

    Inspect's "Unable to read log file" names only the file, which the line names already.
    """
    if isinstance(error, LogContentError):  # its message says what is wrong, in the report's words
        return str(error)
    text = f"{type(error).__name__}: {str(error).replace(str(path), path.name)}"
    cause = error.__cause__
    return f"{text} ({type(cause).__name__}: {cause})" if cause is not None else text


def one_line(text: str, limit: int = _SKIPPED_LIMIT) -> str:
    """``text`` redacted, its lines joined with `` | `` and cut to ``limit`` characters.

    A validation error spans many lines; as one entry of a markdown list it must stay one line.
    """
    joined = " | ".join(part.strip() for part in redact(text).splitlines() if part.strip())
    return joined if len(joined) <= limit else joined[: limit - 1] + "…"


def generations_in(logset: LogSet, *, any_eval: bool = False) -> list[Generation]:
    """Every run of every explanation generation of a log folder, one entry each.

    Args:
        logset: The logs read.
        any_eval: Also every generation of another eval than VIVID's (the report binds human
            scores to them as to VIVID's).

    Returns:
        One generation per run (`Generation.eval_id` is the run), its ``log`` the run's
        generation log when the folder holds it (the earliest written of the run's logs that are
        not the runner's judged copies), else a judged copy; sorted by log.
    """
    found: dict[tuple[str, str], Generation] = {}
    # A log the runner did not write as a judged copy first, the earliest written of them (the
    # generation log, not a copy `inspect score --output-file` made of it), then by name.
    for ref in sorted(logset.logs, key=lambda ref: (ref.rel != ref.generation_log, ref.written, ref.rel)):
        if ref.identity is not None and (ref.task == "explain" or (any_eval and ref.generic)):
            found.setdefault((ref.identity.key, ref.run), replace(ref.identity, eval_id=ref.run, log=ref.rel))
    return sorted(found.values(), key=lambda g: g.log)
