"""What the runner knows about the project: its tasks, their parameters and their prompts.

The runner builds tasks through the same ``@task`` functions as ``inspect eval`` does, so a spec
cell and ``inspect eval vivid_inspect/explain -T ...`` produce the same task identity and log.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from inspect_ai import Task

from vivid_inspect.log_contract import NO_JUDGE
from vivid_inspect.solvers.classify_prompts import render_prompt as render_classify_prompt
from vivid_inspect.solvers.explain_prompts import EXPLAIN_STYLES, render_explain_prompt
from vivid_inspect.tasks import explain, topic, traits

TASKS: dict[str, Callable[..., Task]] = {"explain": explain, "topic": topic, "traits": traits}
"""The tasks a spec may name."""

JUDGED_TASKS: frozenset[str] = frozenset({"explain"})
"""Tasks whose outputs the spec's judges score; the others score themselves (exact match)."""

PROMPT_VALUES: dict[str, tuple[str, ...]] = {"explain": EXPLAIN_STYLES}
"""Allowed values of each task's ``prompt`` parameter."""

RUNNER_ARGS: dict[str, str] = {
    "data": "the data comes from the spec's top-level `data`",
    "prompt": "list prompts in the run's `prompts`",
    "judge": "judges are listed under `judges` and applied after generation",
    "judge_model": "judges are listed under `judges` and applied after generation",
    "judge_retries": "set `retries` on each judge",
}
"""Task parameters the runner sets itself, with what to write instead."""


@dataclass(frozen=True)
class Parameter:
    """One parameter of a task function."""

    name: str
    annotation: Any
    default: Any


def task_parameters(task: str) -> dict[str, Parameter]:
    """The parameters of a task function, with their resolved type annotations.

    Args:
        task: A key of `TASKS`.

    Returns:
        Parameters by name, in declaration order.
    """
    function = inspect.unwrap(TASKS[task])
    hints = typing.get_type_hints(function)
    return {
        name: Parameter(name, hints.get(name, Any), param.default)
        for name, param in inspect.signature(function).parameters.items()
    }


def task_args(task: str, prompt: str | None, extra: dict[str, Any], data: str | None) -> dict[str, Any]:
    """The arguments one generation cell passes to its task function.

    Args:
        task: Task name.
        prompt: Prompt value of the cell, None for the task default.
        extra: The run block's ``task_args``.
        data: The spec's data (already resolved against the spec folder).

    Returns:
        Keyword arguments, in a stable order (they become the log's ``task_args``).
    """
    args: dict[str, Any] = {}
    if prompt is not None:
        args["prompt"] = prompt
    args.update(extra)
    if task in JUDGED_TASKS:
        args["judge"] = NO_JUDGE
    if data is not None:
        args["data"] = data
    return args


def build_task(task: str, args: dict[str, Any]) -> Task:
    """Create the task of a cell through its registered ``@task`` function."""
    return TASKS[task](**args)


def render_task_prompt(task: str, args: dict[str, Any], idiom: str) -> str:
    """The prompt a task sends for one idiom, for token estimates.

    Args:
        task: Task name.
        args: The cell's task arguments (``prompt`` for explain, ``shots`` for topic and traits).
        idiom: The item's idiom.

    Returns:
        The rendered prompt text.
    """
    params = task_parameters(task)
    if task == "explain":
        return render_explain_prompt(args.get("prompt", params["prompt"].default), idiom)
    shots = args.get("shots", params["shots"].default)
    return render_classify_prompt(task, idiom, shots)  # type: ignore[arg-type]
