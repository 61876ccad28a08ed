"""A log folder as one tidy frame: a row per (log, sample, epoch, scorer), read from summaries only.

Only log headers and sample summaries are read (never full samples): a summary holds the score
values, small score metadata (``judge_model``, ``strategy``, ``parse_status``, ``lenient_correct``)
and small sample metadata (``theme``, ``traits``), which is all the tables need. The summaries are
read with Inspect's public readers (``read_eval_log(header_only=True)``,
``read_eval_log_sample_summaries``), once the members they inflate have been inflated within the
cap below (which members: :mod:`vivid_inspect.inspect_private`). Reading the summaries as plain
JSON was 1.5-3x faster, but the public route keeps ``vivid report`` within its 30 s / 2 GiB goal
on the paper's 37 logs (bench/results.md, "Reading logs: public readers against our own").

Judges: a scorer of an explanation log named ``judge_*`` (or ``lexical``) is a judge. A log the
runner wrote by judging a generation again carries eval metadata ``vivid_judge`` = ``{name,
strategy, model, generation_log}``; there only the scorer of that judge counts (any other judge
columns are copies from the generation log, which is read on its own). Elsewhere the judge's name
is the scorer's name and its model the score metadata ``judge_model``.

Hostile folders: only logs of VIVID's own tasks are read (another task's log would add its rows to
the counts and usage tables); every other file is listed in ``skipped`` with the reason, on one
line. What a report inflates from one ``.eval`` zip is capped (see
:mod:`vivid_inspect.bounded_zip`), so a decompression bomb is skipped, not read.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from inspect_ai.log import EvalLog, read_eval_log, read_eval_log_sample_summaries
from inspect_ai.model import ModelConfig, ModelUsage
from inspect_ai.scorer import value_to_float

from vivid_inspect.bounded_zip import (
    Budget,
    check_members,
    max_inflated,
)
from vivid_inspect.generation_key import Generation, generation_of
from vivid_inspect.inspect_private import eval_header_members, eval_summary_members
from vivid_inspect.log_contract import (
    GRADER_ROLE,
    LEXICAL,
    JudgedRecord,
    is_judge_column,
    judge_column,
    read_judged_record,
    short_task,
    strategy_of_column,
)
from vivid_inspect.redact import redact

logger = logging.getLogger(__name__)


CLASSIFICATION_TASKS = ("topic", "traits")
VIVID_TASKS = ("explain", *CLASSIFICATION_TASKS)
"""The tasks whose logs a report reads."""
_PACKAGE = "vivid_inspect"
_SKIPPED_LIMIT = 300

# Inspect's own rule for .json log names (an ISO timestamp first); .eval files are always logs.
_JSON_LOG_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}[:-]\d{2}[:-]\d{2}.*\.json$")
_to_float = value_to_float()

SCORE_COLUMNS: tuple[str, ...] = (
    "log",
    "generation",
    "task",
    "model",
    "prompt",
    "shots",
    "status",
    "created",
    "id",
    "epoch",
    "theme",
    "traits",
    "scorer",
    "judge",
    "judge_model",
    "strategy",
    "value",
    "unscored",
    "error",
    "parse_status",
    "retried",
    "lenient",
    "eval_id",
    "repeat",
    "cached",
    "judge_temperature",
    "prompt_version",
    "parser_version",
)
"""Columns of :attr:`LogSet.scores`. ``eval_id`` is shared by a log and its rescored copies; for a
judge, ``repeat`` (which repeated judgement, from 0), ``cached`` (1.0 when the reply came from
Inspect's cache) and ``judge_temperature`` are NaN when the log does not record them."""


@dataclass(frozen=True)
class LogRef:
    """What the report needs from one log header.

    Attributes:
        path: The log file.
        rel: Its path relative to the log folder (POSIX), used as its name in the report.
        task: Task name without the package prefix (``explain``, ``topic``, ``traits``, ...).
        model: The model under test (``log.eval.model``).
        prompt: Explanation prompt style (``zero_shot``/``few_shot``); None for other tasks.
        shots: Demonstrations of a classification task; None for other tasks.
        status: ``success``, ``started``, ``error`` or ``cancelled``.
        created: When the eval was created (ISO string), to order repeated runs.
        vivid_judge: The runner's judged record (eval metadata ``vivid_judge``), when this log is a
            judged copy.
        generation: Key of the generation the samples come from (``rel`` of the generation log).
        judge_model_role: Model bound to the ``grader`` role, when the header names one.
        model_usage: Token usage per model (``log.stats.model_usage``).
        role_usage: Token usage per model role (``log.stats.role_usage``).
        epochs: Epochs the task ran.
        eval_id: Inspect's eval id (a rescored copy keeps its source's).
        identity: What identifies the generation's content (explanation logs only; a judged copy
            has its generation's), with its key; see :mod:`vivid_inspect.generation_key`.
        left_out: Ids the task left out because their idiom is a demonstration of its prompt
            (task metadata ``left_out_ids``).
    """

    path: Path
    rel: str
    task: str
    model: str
    prompt: str | None
    shots: int | None
    status: str
    created: str
    vivid_judge: JudgedRecord | None
    generation: str
    judge_model_role: str | None
    model_usage: dict[str, ModelUsage] = field(default_factory=dict)
    role_usage: dict[str, ModelUsage] = field(default_factory=dict)
    epochs: int = 1
    eval_id: str = ""
    identity: Generation | None = None
    left_out: tuple[int, ...] = ()

    @property
    def complete(self) -> bool:
        """Whether the eval finished successfully (every sample ran)."""
        return self.status == "success"


@dataclass(frozen=True)
class LogSet:
    """Every log under a folder and their scores.

    Attributes:
        root: The log folder.
        logs: One entry per log read, sorted by relative path.
        scores: One row per (log, sample, epoch, scorer); see :data:`SCORE_COLUMNS`.
        skipped: Files that look like logs but were not read (unreadable, too large once inflated,
            or logs of another task), each ``path: reason`` on one line.
    """

    root: Path
    logs: tuple[LogRef, ...]
    scores: pd.DataFrame
    skipped: tuple[str, ...] = ()


def find_log_files(
    log_dir: str | os.PathLike[str], *, exclude: Iterable[str | os.PathLike[str]] = ()
) -> list[Path]:
    """Every Inspect log file under a folder, recursively, in sorted order.

    Args:
        log_dir: The folder.
        exclude: Folders to leave out (the report's own output folder).

    Returns:
        ``.eval`` files and ``.json`` files named the way Inspect names logs, sorted by path.

    Raises:
        ValueError: If ``log_dir`` is not a folder.
    """
    root = Path(log_dir)
    if root.exists() and not root.is_dir():
        raise ValueError(f"log folder {str(root)!r} is a file, not a folder")
    if not root.is_dir():
        raise ValueError(f"log folder {str(root)!r} does not exist")
    excluded = {Path(p).resolve() for p in exclude}
    found: list[Path] = []
    for path in root.rglob("*"):
        if not path.is_file() or excluded & set(path.resolve().parents):
            continue
        if path.suffix == ".eval" or _JSON_LOG_NAME.match(path.name):
            found.append(path)
    return sorted(found, key=lambda p: p.relative_to(root).as_posix())


def read_logs(
    log_dir: str | os.PathLike[str],
    *,
    exclude: Iterable[str | os.PathLike[str]] = (),
    max_inflated_bytes: int | None = None,
) -> LogSet:
    """Read every VIVID log's header and sample summaries into one tidy frame.

    Args:
        log_dir: Folder searched recursively for logs.
        exclude: Folders to leave out.
        max_inflated_bytes: Most bytes read from one ``.eval`` zip once inflated; default
            :func:`vivid_inspect.bounded_zip.max_inflated`.

    Returns:
        The logs and their scores. Files that fail to read, inflate past the cap or are logs of
        another task are listed in ``skipped`` (``vivid report`` warns about each on stderr).

    Raises:
        ValueError: If ``log_dir`` is not a folder.
    """
    root = Path(log_dir)
    limit = max_inflated_bytes if max_inflated_bytes is not None else max_inflated()
    headers: list[tuple[Path, EvalLog, Budget]] = []
    skipped: list[str] = []

    def skip(rel: str, reason: str) -> None:
        entry = one_line(f"{rel}: {reason}")
        logger.debug("skipped %s", entry)  # the CLI warns on stderr; the report lists it
        skipped.append(entry)

    for path in find_log_files(root, exclude=exclude):
        rel = path.relative_to(root).as_posix()
        budget = Budget(limit)
        try:
            header = _read_header(path, budget)
        except Exception as error:  # noqa: BLE001 - a broken file is reported, not fatal
            skip(rel, f"{type(error).__name__}: {error}")
            continue
        if not is_vivid_log(header):
            skip(rel, f"not a log of a VIVID task (task {header.eval.task!r})")
            continue
        headers.append((path, header, budget))
    generation_keys = _generation_resolver(root, [p for p, _, _ in headers])
    refs: list[LogRef] = []
    rows: list[dict[str, Any]] = []
    for path, header, budget in headers:
        ref = _log_ref(root, path, header, generation_keys)
        try:
            summaries = read_summaries(path, budget)
        except Exception as error:  # noqa: BLE001
            skip(ref.rel, f"{type(error).__name__}: {error}")
            continue
        refs.append(ref)
        rows.extend(_score_rows(ref, header, summaries))
    scores = pd.DataFrame(rows, columns=list(SCORE_COLUMNS))
    scores = scores.astype(
        {"value": "float64", "lenient": "float64", "epoch": "int64", "repeat": "float64", "cached": "float64"}
    )
    return LogSet(root=root, logs=tuple(refs), scores=scores, skipped=tuple(skipped))


def one_line(text: str, limit: int = _SKIPPED_LIMIT) -> str:
    """``text`` redacted, its lines joined with `` | `` and cut to ``limit`` characters.

    A validation error spans many lines; as one entry of a markdown list it must stay one line.
    """
    joined = " | ".join(part.strip() for part in redact(text).splitlines() if part.strip())
    return joined if len(joined) <= limit else joined[: limit - 1] + "…"


def is_vivid_log(header: EvalLog) -> bool:
    """Whether a log is one of VIVID's tasks (``vivid_inspect/explain``, ``tasks.py@topic``, ...).

    A task run by registry name is ``vivid_inspect/<task>``; run from the file
    (``inspect eval vivid_inspect/tasks.py@topic``) it is ``<task>`` with ``task_file`` in this
    package.
    """
    spec = header.eval
    ours = {f"{_PACKAGE}/{task}" for task in VIVID_TASKS}
    if spec.task in ours or spec.task_registry_name in ours:
        return True
    task_file = Path(spec.task_file) if spec.task_file else None
    return (
        short_task(spec.task) in VIVID_TASKS
        and task_file is not None
        and task_file.parent.name == _PACKAGE
        and task_file.name == "tasks.py"
    )


def _read_header(path: Path, budget: Budget) -> EvalLog:
    if path.suffix == ".eval":
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
        # inflated once within the cap, so that Inspect's own (uncapped) read is known to fit
        check_members(path, eval_header_members(names), budget)
    return read_eval_log(str(path), header_only=True)


def read_summaries(path: Path, budget: Budget | None = None) -> list[dict[str, Any]]:
    """A log's sample summaries as plain dicts (``id``, ``epoch``, ``metadata``, ``scores``, ``error``).

    Args:
        path: An ``.eval`` or ``.json`` log.
        budget: Bytes left to inflate from this log; default a fresh :func:`max_inflated`.

    Returns:
        One dict per (sample, epoch); for a re-run sample, its last attempt (Inspect's rule).

    Raises:
        vivid_inspect.bounded_zip.InflationError: The summaries inflate past the cap.
    """
    if path.suffix != ".eval":
        return _dedupe(json.loads(path.read_bytes()).get("samples") or [])
    budget = budget if budget is not None else Budget(max_inflated())
    # Importing inspect_ai.log registered zstd with zipfile; .eval members use it.
    with zipfile.ZipFile(path) as archive:
        names = set(archive.namelist())
    # Inflated once within the cap (summaries.json, or a running log's journal of flushes), so that
    # Inspect's own (uncapped) read of the same members is known to fit.
    check_members(path, eval_summary_members(names), budget)
    summaries = read_eval_log_sample_summaries(str(path))
    return _dedupe([summary.model_dump(mode="json", exclude_none=True) for summary in summaries])


def _dedupe(summaries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_key: dict[tuple[str, int], dict[str, Any]] = {}
    for summary in summaries:
        by_key[(str(summary.get("id")), int(summary.get("epoch") or 1))] = summary
    return list(by_key.values())


def is_judge_scorer(name: str) -> bool:
    """Whether a scorer column of an explanation log is an LLM judge (or the lexical baseline)."""
    return is_judge_column(name)


def role_models(role: ModelConfig | list[ModelConfig] | None) -> str | None:
    """The model(s) a log binds to one role, comma-separated; None when it binds none.

    Inspect's ``EvalSpec.model_roles`` maps a role to one model config or to a list of them.
    """
    configs = role if isinstance(role, list) else [] if role is None else [role]
    return ", ".join(config.model for config in configs) or None


def _log_ref(root: Path, path: Path, header: EvalLog, generation_keys: dict[str, str]) -> LogRef:
    spec = header.eval
    task = short_task(spec.task)
    args = spec.task_args or {}
    metadata = spec.metadata or {}
    vivid_judge = read_judged_record(metadata)
    rel = path.relative_to(root).as_posix()
    generation = rel
    if vivid_judge and vivid_judge.generation_log:
        generation = _resolve_generation(root, vivid_judge.generation_log, generation_keys)
    prompt = args.get("prompt", metadata.get("prompt")) if task == "explain" else None
    shots = args.get("shots", metadata.get("shots")) if task in CLASSIFICATION_TASKS else None
    grader = (spec.model_roles or {}).get(GRADER_ROLE)
    stats = header.stats
    return LogRef(
        path=path,
        rel=rel,
        task=task,
        model=spec.model,
        prompt=str(prompt) if prompt is not None else ("zero_shot" if task == "explain" else None),
        shots=int(shots) if shots is not None else (3 if task in CLASSIFICATION_TASKS else None),
        status=header.status,
        created=str(spec.created),
        vivid_judge=vivid_judge,
        generation=generation,
        judge_model_role=role_models(grader),
        model_usage=dict(stats.model_usage) if stats else {},
        role_usage=dict(stats.role_usage) if stats else {},
        epochs=int(spec.config.epochs or 1),
        eval_id=str(spec.eval_id),
        identity=generation_of(header, generation) if task == "explain" else None,
        left_out=tuple(int(i) for i in metadata.get("left_out_ids") or ()),
    )


def _generation_resolver(root: Path, paths: list[Path]) -> dict[str, str]:
    """Map each log's absolute path, relative path and file name to its key (relative path)."""
    keys: dict[str, str] = {}
    names: dict[str, list[str]] = {}
    for path in paths:
        rel = path.relative_to(root).as_posix()
        keys[os.path.normcase(str(path.resolve()))] = rel
        keys[rel] = rel
        names.setdefault(path.name, []).append(rel)
    for name, rels in names.items():
        if len(rels) == 1:
            keys.setdefault(f"name:{name}", rels[0])
    return keys


def _resolve_generation(root: Path, given: str, keys: dict[str, str]) -> str:
    """The key of the generation log a judged log names, however the runner wrote its path."""
    location = given.removeprefix("file://")
    candidates = (
        [Path(location)] if Path(location).is_absolute() else [root / location, Path.cwd() / location]
    )
    for candidate in candidates:
        key = keys.get(os.path.normcase(str(candidate.resolve())))
        if key:
            return key
    # The folder may have been moved since: fall back to the file name when it is unique.
    return keys.get(f"name:{Path(location).name}", location)


def _designated_scorer(ref: LogRef, names: list[str]) -> list[str]:
    """The judge scorers to read from one explanation log."""
    judges = [name for name in names if is_judge_scorer(name)]
    if ref.vivid_judge is None or not judges:
        return judges
    strategy = ref.vivid_judge.strategy or ""
    for wanted in (judge_column(strategy), strategy, ref.vivid_judge.name or ""):
        if wanted in judges:
            return [wanted]
    # The judge the runner added is the last column appended to the log.
    return [judges[-1]]


def _score_rows(ref: LogRef, header: EvalLog, summaries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    scorer_names = [s.name for s in (header.results.scores if header.results else [])]
    if not scorer_names:
        scorer_names = [s.name for s in header.eval.scorers or []]
    if not scorer_names:
        scorer_names = sorted({k for s in summaries for k in (s.get("scores") or {})})
    if ref.task == "explain":
        wanted = _designated_scorer(ref, scorer_names)
    else:
        wanted = [name for name in scorer_names if not is_judge_scorer(name)]
    judge_models = _judge_models(ref, summaries, wanted)
    rows: list[dict[str, Any]] = []
    for summary in summaries:
        metadata = summary.get("metadata") or {}
        traits = metadata.get("traits")
        base = {
            "log": ref.rel,
            "generation": ref.generation,
            "task": ref.task,
            "model": ref.model,
            "prompt": ref.prompt,
            "shots": ref.shots,
            "status": ref.status,
            "created": ref.created,
            "id": summary.get("id"),
            "epoch": int(summary.get("epoch") or 1),
            "theme": metadata.get("theme"),
            "traits": tuple(traits) if isinstance(traits, list | tuple) else (),
            "eval_id": ref.eval_id,
        }
        for name in wanted:
            score = (summary.get("scores") or {}).get(name)
            rows.append(base | _score_fields(ref, name, score, judge_models.get(name)))
    return rows


def _judge_models(ref: LogRef, summaries: list[dict[str, Any]], wanted: list[str]) -> dict[str, str | None]:
    models: dict[str, str | None] = {}
    for name in wanted:
        if not is_judge_scorer(name):
            continue
        if name == LEXICAL and (ref.vivid_judge is None or ref.vivid_judge.strategy == LEXICAL):
            # chrF calls no model. Its score metadata names the metric, which the runner does not
            # record: keying on it would make the one judge two (after `inspect score` and `vivid run`).
            models[name] = None
            continue
        if ref.vivid_judge is not None:
            # The runner names the judge's model; a panel has none (it calls no model).
            models[name] = ref.vivid_judge.model or None
            continue
        seen = sorted(
            {
                str(model)
                for s in summaries
                if (
                    model := (((s.get("scores") or {}).get(name) or {}).get("metadata") or {}).get(
                        "judge_model"
                    )
                )
            }
        )
        models[name] = ", ".join(seen) if seen else ref.judge_model_role
    return models


def _score_fields(ref: LogRef, name: str, score: Any, judge_model: str | None) -> dict[str, Any]:
    judge = is_judge_scorer(name) and ref.task == "explain"
    metadata = (score.get("metadata") or {}) if score is not None else {}
    if judge:
        judge_name = (ref.vivid_judge.name or name) if ref.vivid_judge else name
        recorded = ref.vivid_judge.strategy if ref.vivid_judge else None
        strategy = recorded or metadata.get("strategy") or strategy_of_column(name)
    else:
        judge_name, strategy = None, None
    value = _numeric(score.get("value")) if score is not None else math.nan
    lenient = metadata.get("lenient_correct")
    return {
        "scorer": name,
        "judge": judge_name,
        "judge_model": judge_model if judge else None,
        "strategy": str(strategy) if strategy else None,
        "value": value,
        "unscored": score is not None and math.isnan(value),
        "error": score is None,
        "parse_status": metadata.get("parse_status"),
        "retried": bool(metadata.get("retries") or 0),
        "lenient": float(bool(lenient)) if isinstance(lenient, bool) else math.nan,
        **(_repeat_fields(ref, metadata) if judge else {"repeat": math.nan, "cached": math.nan}),
    }


def _repeat_fields(ref: LogRef, metadata: dict[str, Any]) -> dict[str, Any]:
    """Which repeated judgement a score is and whether its reply was a cache replay (NaN: unrecorded)."""
    record = ref.vivid_judge or JudgedRecord()
    repeat = metadata.get("repeat", record.repeat)
    cached = metadata.get("cached")
    temperature = record.temperature
    return {
        "repeat": float(repeat) if isinstance(repeat, int) and not isinstance(repeat, bool) else math.nan,
        "cached": float(cached) if isinstance(cached, bool) else math.nan,
        "judge_temperature": temperature if isinstance(temperature, int | float | list) else None,
        # The judge prompt and parser versions the score was made with (None: not recorded).
        **{key: _version(metadata.get(key)) for key in ("prompt_version", "parser_version")},
    }


def _version(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _numeric(value: Any) -> float:
    if value is None:
        return math.nan
    if isinstance(value, float):
        return value
    if isinstance(value, int | bool | str):
        return float(_to_float(value))
    return math.nan
