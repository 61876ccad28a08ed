"""What the report keeps of one log header: task, model, prompt, judge record, and its generation.

Every log of a VIVID task holds one *generation* (`vivid_inspect.generation_key.Generation`):
the task, its version, the model, the prompt (or number of demonstrations), the data and the
sample ids, hashed into the generation key that keys every row of the report. A log and its
judged copies (``inspect score --output-file``, ``vivid run``'s judge phase) describe the same
generation and the same *run* of it (Inspect's eval id, which a copy keeps); a rerun of the same
generation is another run of the same key.

A log the runner wrote by judging a generation again carries eval metadata ``vivid_judge`` (a
`vivid_inspect.log_contract.JudgedRecord`) naming its generation log; ``generation_log`` is
that log's path relative to the folder, however the runner wrote it (absolute, relative, or from
a folder since moved).

A header with numbers Inspect could not have written (an epoch count of 10^30, a shots value that
is not a whole number, left-out ids that are not ids) raises
`vivid_inspect.lab.report.reading.log_files.LogContentError`: the log is skipped with that reason.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalLog
from inspect_ai.model import ModelConfig, ModelUsage

from vivid_inspect.generation_key import ITEMS_KEY, Generation, generation_of
from vivid_inspect.lab.report.reading.log_files import (
    CLASSIFICATION_TASKS,
    MAX_EPOCH,
    LogContentError,
    check_id,
)
from vivid_inspect.log_contract import (
    GRADER_ROLE,
    JudgedRecord,
    LeakageRecord,
    read_judged_record,
    read_leakage_record,
    short_task,
)

MAX_COUNT = 10_000_000
"""Largest shots value, item count or left-out id a header may hold (far beyond any real one)."""
MAX_TOKENS = 10**15
"""Most tokens (or calls) one usage record may count: far beyond any run, and sums stay int64."""
_TOKEN_FIELDS = (
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "input_tokens_cache_write",
    "input_tokens_cache_read",
    "reasoning_tokens",
)


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
        generation_log: The generation log the samples come from (``rel`` of that log when it is
            in the folder; this log's own ``rel`` when it is one).
        judge_model_role: Model bound to the ``grader`` role, when the header names one.
        model_usage: Token usage per model (``log.stats.model_usage``).
        role_usage: Token usage per model role (``log.stats.role_usage``).
        epochs: Epochs the task ran.
        eval_id: Inspect's eval id (a rescored copy keeps its source's).
        identity: The generation the log holds (a judged copy has its generation's), with its key;
            see `vivid_inspect.generation_key`.
        left_out: Ids the task left out because their idiom is a demonstration of its prompt
            (task metadata ``left_out_ids``).
        leakage: Every item the task left out, for either reason, with what it resembles (task
            metadata ``leakage``; from the ids alone for an older log).
        run: Which run of the generation the samples come from: the generation's eval id (a
            judged copy keeps it, or records it as ``generation_eval_id``), else its log.
        written: When the file was written (its zip's ``header.json`` time, then its modification
            time), to order copies of one judgement.
        data_items: Items the data file held, before any was left out (task metadata
            ``data_items``; for an older log, the kept items plus those left out).
        kept_items: Items the task kept (``dataset.samples``): a run of every one has as many
            planned sample ids.
        generic: A log of a task that is not VIVID's, read by the generic adapter
            (`vivid_inspect.lab.report.reading.any_eval`).
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
    generation_log: str
    judge_model_role: str | None
    model_usage: dict[str, ModelUsage] = field(default_factory=dict)
    role_usage: dict[str, ModelUsage] = field(default_factory=dict)
    epochs: int = 1
    eval_id: str = ""
    identity: Generation | None = None
    left_out: tuple[int, ...] = ()
    leakage: LeakageRecord = field(default_factory=LeakageRecord)
    run: str = ""
    written: tuple[float, int] = (0.0, 0)
    data_items: int | None = None
    kept_items: int | None = None
    generic: bool = False

    @property
    def complete(self) -> bool:
        """Whether the eval finished successfully (every sample ran)."""
        return self.status == "success"

    @property
    def key(self) -> str:
        """The generation key (``""`` for a log of no VIVID generation)."""
        return self.identity.key if self.identity is not None else ""

    @property
    def data_label(self) -> str:
        """The data's short name and digest (`vivid_inspect.generation_key.Generation.data_label`)."""
        return self.identity.data_label if self.identity is not None else ""

    @property
    def full_run(self) -> bool:
        """Whether the run planned every item the task kept (no ``--limit``, no ``--sample-id``)."""
        planned = len(self.identity.sample_ids) if self.identity is not None else 0
        return self.kept_items is not None and planned == self.kept_items


def role_models(role: ModelConfig | list[ModelConfig] | None) -> str | None:
    """The model(s) a log binds to one role, comma-separated; None when it binds none.

    Inspect's ``EvalSpec.model_roles`` maps a role to one model config or to a list of them.
    """
    configs = role if isinstance(role, list) else [] if role is None else [role]
    return ", ".join(config.model for config in configs) or None


def log_ref(
    root: Path,
    path: Path,
    header: EvalLog,
    generation_keys: dict[str, str],
    written: tuple[float, int] = (0.0, 0),
) -> LogRef:
    """What the report keeps of one log's header.

    Args:
        root: The log folder.
        path: The log file, under ``root``.
        header: Its header.
        generation_keys: Every log of the folder by path and name (`generation_resolver`).
        written: When the file was written (see `LogRef.written`).

    Returns:
        The log's reference, its generation log resolved to a key of ``generation_keys`` when found.

    Raises:
        LogContentError: The header holds a number Inspect could not have written.
    """
    spec = header.eval
    task = short_task(spec.task)
    args = spec.task_args or {}
    metadata = spec.metadata or {}
    vivid_judge = read_judged_record(metadata)
    rel = path.relative_to(root).as_posix()
    generation_log = rel
    if vivid_judge and vivid_judge.generation_log:
        generation_log = _resolve_generation(root, vivid_judge.generation_log, generation_keys)
    prompt = args.get("prompt", metadata.get("prompt")) if task == "explain" else None
    shots = args.get("shots", metadata.get("shots")) if task in CLASSIFICATION_TASKS else None
    grader = (spec.model_roles or {}).get(GRADER_ROLE)
    stats = header.stats
    epochs = _whole(spec.config.epochs if spec.config.epochs is not None else 1, "epochs", 1, MAX_EPOCH)
    left_out = _ids(metadata.get("left_out_ids"), "left_out_ids")
    identity = generation_of(header, generation_log) if task in ("explain", *CLASSIFICATION_TASKS) else None
    if identity is not None:
        for sample_id in identity.sample_ids:
            check_id(sample_id, "header sample id")
    kept = spec.dataset.samples
    for role, usage in (stats.model_usage | stats.role_usage).items() if stats else ():
        _check_usage(usage, f"header stats usage of {role!r}")
    for scorer, record in ((vivid_judge.usage if vivid_judge else None) or {}).items():
        _check_record(record, f"judged record usage of {scorer!r}")
    return LogRef(
        path=path,
        rel=rel,
        task=task,
        model=spec.model,
        prompt=str(prompt) if prompt is not None else ("zero_shot" if task == "explain" else None),
        shots=_whole(shots, "shots", 0, MAX_COUNT)
        if shots is not None
        else (3 if task in CLASSIFICATION_TASKS else None),
        status=header.status,
        created=str(spec.created),
        vivid_judge=vivid_judge,
        generation_log=generation_log,
        judge_model_role=role_models(grader),
        model_usage=dict(stats.model_usage) if stats else {},
        role_usage=dict(stats.role_usage) if stats else {},
        epochs=epochs,
        eval_id=str(spec.eval_id),
        identity=identity,
        left_out=left_out,
        run=(vivid_judge.generation_eval_id if vivid_judge else None) or str(spec.eval_id) or generation_log,
        written=written,
        data_items=_data_items(metadata, kept, left_out),
        kept_items=_whole(kept, "dataset.samples", 0, MAX_COUNT) if kept is not None else None,
        leakage=read_leakage_record(metadata),
    )


def _whole(value: Any, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise LogContentError(f"header {what} {value!r:.40} is not a whole number from {low} to {high:,}")
    return value


def _ids(value: Any, what: str) -> tuple[int, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise LogContentError(f"header metadata {what} is a {type(value).__name__}, not a list of ids")
    return tuple(_whole(item, f"metadata {what} entry", -MAX_COUNT, MAX_COUNT) for item in value)


def _check_usage(usage: ModelUsage, where: str) -> None:
    """Token counts a provider could report, and a finite cost."""
    for name in _TOKEN_FIELDS:
        value = getattr(usage, name)
        if value is not None:
            _whole(value, f"{where} {name}", 0, MAX_TOKENS)
    cost = usage.total_cost
    if cost is not None and not (isinstance(cost, int | float) and math.isfinite(cost) and cost >= 0):
        raise LogContentError(f"header {where} total_cost {cost!r:.40} is not a finite amount")


def _check_record(record: Any, where: str) -> None:
    """A judged record's usage entry: calls and cached calls, and the usage they summed."""
    if not isinstance(record, dict):
        raise LogContentError(f"header {where} is not a mapping")
    for name in ("calls", "cached_calls"):
        _whole(record.get(name), f"{where} {name}", 0, MAX_TOKENS)
    usage = record.get("usage")
    if usage:
        try:
            _check_usage(ModelUsage.model_validate(usage), where)
        except ValueError as error:
            if isinstance(error, LogContentError):
                raise
            raise LogContentError(f"header {where} is not a token usage ({type(error).__name__})") from None


def _data_items(metadata: dict[str, Any], kept: int | None, left_out: tuple[int, ...]) -> int | None:
    """The items of the data file: recorded by the task, or (an older log) kept plus left out."""
    recorded = metadata.get(ITEMS_KEY)
    if recorded is not None:
        return _whole(recorded, f"metadata {ITEMS_KEY}", 0, MAX_COUNT)
    if kept is None:
        return None
    others = _ids(metadata.get("judge_examples_left_out_ids"), "judge_examples_left_out_ids")
    return kept + len(left_out) + len(others)


def generation_resolver(root: Path, paths: list[Path]) -> dict[str, str]:
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


__all__ = ["MAX_COUNT", "LogRef", "generation_resolver", "log_ref", "role_models"]
