"""What the report keeps of one log header: task, model, prompt, judge record, and its generation.

A log the runner wrote by judging a generation again carries eval metadata ``vivid_judge`` (a
:class:`vivid_inspect.log_contract.JudgedRecord`) naming its generation log; the generation key
of such a log is that generation log's path relative to the folder, however the runner wrote it
(absolute, relative, or from a folder since moved).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from inspect_ai.log import EvalLog
from inspect_ai.model import ModelConfig, ModelUsage

from vivid_inspect.generation_key import Generation, generation_of
from vivid_inspect.log_contract import (
    GRADER_ROLE,
    JudgedRecord,
    LeakageRecord,
    read_judged_record,
    read_leakage_record,
    short_task,
)
from vivid_inspect.report.log_files import CLASSIFICATION_TASKS


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
        leakage: Every item the task left out, for either reason, with what it resembles (task
            metadata ``leakage``; from the ids alone for an older log).
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
    leakage: LeakageRecord = field(default_factory=LeakageRecord)

    @property
    def complete(self) -> bool:
        """Whether the eval finished successfully (every sample ran)."""
        return self.status == "success"


def role_models(role: ModelConfig | list[ModelConfig] | None) -> str | None:
    """The model(s) a log binds to one role, comma-separated; None when it binds none.

    Inspect's ``EvalSpec.model_roles`` maps a role to one model config or to a list of them.
    """
    configs = role if isinstance(role, list) else [] if role is None else [role]
    return ", ".join(config.model for config in configs) or None


def log_ref(root: Path, path: Path, header: EvalLog, generation_keys: dict[str, str]) -> LogRef:
    """What the report keeps of one log's header.

    Args:
        root: The log folder.
        path: The log file, under ``root``.
        header: Its header.
        generation_keys: Every log of the folder by path and name (:func:`generation_resolver`).

    Returns:
        The log's reference, its generation resolved to a key of ``generation_keys`` when found.
    """
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
        leakage=read_leakage_record(metadata),
    )


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
