"""The one module that imports Inspect's private (``inspect_ai._…``) names.

Inspect has no public API for a few things the project needs. Each use lives here, with the
reason, so that an Inspect upgrade that moves one breaks this module alone.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

# Private: the function through which Inspect builds a task from its registered name or file
# (`inspect eval vivid_inspect/explain`, `eval("vivid_inspect/topic")`, eval_set and eval-retry by
# name). The task-start check runs only when it is on the call stack: Python code that calls a task
# function itself (a notebook, `vivid run`) is not checked. Inspect's active model alone cannot
# tell: eval_set sets it in the caller's context and leaves it there after it returns.
from inspect_ai._eval.loader import create_file_tasks, load_tasks
from inspect_ai._eval.registry import task_create

# Private: the async backend Inspect runs on (INSPECT_ASYNC_BACKEND, asyncio or trio). The runner's
# judge phase starts its own event loop around score_async and must use the same backend, or
# Inspect's trio-aware code runs on the wrong one. No public accessor exists.
from inspect_ai._util._async import configured_async_backend

# Private: makes sure installed packages' entry points (their model providers) are registered, so
# that listing providers below sees them; Inspect does this lazily, only when it resolves a model.
from inspect_ai._util.entrypoints import ensure_entry_points

# Private: Inspect's CLI prints a PrerequisiteError's message alone (no traceback) and exits
# non-zero, both from `inspect eval` and from a task that `eval()` builds. No public error type
# gets that treatment, and a plain ValueError from a task prints a 270-line exception group.
from inspect_ai._util.error import PrerequisiteError

# Private: Inspect's registry is the only list of model providers (built-in and
# from installed packages); `vivid validate` checks a spec's model names against it offline.
from inspect_ai._util.registry import registry_find, registry_unqualified_name
from inspect_ai.model import Model, ModelConfig

# Private: the eval's generation options (task config, then --batch, --attempt-timeout, ...) as a
# model call in the current sample will see them. No public API gives them to a solver, and
# without them a user's own attempt_timeout, or batch mode, cannot be told from "not set".
from inspect_ai.model._generate_config import active_generate_config

# Private: the model Inspect is evaluating, which it sets before it builds a task from its name; the
# task-start check (vivid_inspect.task_start) checks that model. `get_model()` without arguments is
# no substitute: with no model being evaluated it falls back to INSPECT_EVAL_MODEL or raises.
from inspect_ai.model._model import active_model

# Private: how Inspect records a model role in a log header (EvalSpec.model_roles), with model
# arguments redacted the way Inspect redacts them. score_async does not record the roles it was
# given, so the runner sets them on a judged log itself and must write what `inspect eval` writes.
from inspect_ai.model._model_config import model_roles_to_model_roles_config
from rich.markup import escape

from vivid_inspect.data.csv_format import VividDataError

__all__ = [
    "PlainError",
    "PrerequisiteError",
    "TaskArgumentError",
    "TaskDataError",
    "active_generate_config",
    "active_model",
    "built_by_inspect",
    "configured_async_backend",
    "eval_header_members",
    "eval_summary_members",
    "model_providers",
    "model_roles_config",
    "task_errors",
]


def model_providers() -> set[str]:
    """Names of every registered Inspect model provider, including those of installed packages.

    Returns:
        Provider names as a model name starts with them (``openai``, ``mockllm``, ``vivid``, ...).
    """
    ensure_entry_points()
    return {registry_unqualified_name(api) for api in registry_find(lambda info: info.type == "modelapi")}


def built_by_inspect() -> bool:
    """Whether Inspect is building the calling task from its name (not Python code calling it).

    Returns:
        True when Inspect's ``task_create`` is on the call stack.
    """
    frame = inspect.currentframe()
    while frame is not None:
        if frame.f_code is task_create.__code__:
            return True
        frame = frame.f_back
    return False


def inspect_task_args() -> tuple[dict[str, object], bool] | None:
    """The ``-T`` arguments Inspect is building the calling task with, before it drops unknown names.

    Inspect's ``task_create`` gives a task only the names its signature has and merely logs a
    warning for the others, so the task reads them from that call's frame.

    Returns:
        The arguments as given and whether Inspect gives them to several tasks (a whole file,
        several task specs, a folder); None when Python code calls the task function itself.
    """
    given: dict[str, object] | None = None
    several = False
    frame = inspect.currentframe()
    while frame is not None:
        code, local = frame.f_code, frame.f_locals
        if code is task_create.__code__ and given is None:
            given = dict(local.get("kwargs") or {})
        elif code is create_file_tasks.__code__:
            several = several or len(local.get("task_specs") or ()) > 1
        elif code is load_tasks.__code__:
            several = several or len(local.get("task_specs") or ()) != 1
        frame = frame.f_back
    return None if given is None else (given, several)


def model_roles_config(roles: dict[str, Model]) -> dict[str, ModelConfig | list[ModelConfig]]:
    """Model roles as a log header records them (``log.eval.model_roles``).

    Args:
        roles: Role name to model.

    Returns:
        Role name to the model's config (name, generate config, base URL, redacted arguments).
    """
    return model_roles_to_model_roles_config(dict(roles)) or {}


class PlainError(PrerequisiteError):
    """An error Inspect prints as its message alone: no traceback, exit 1.

    Raised while Inspect creates a model or builds a task, before anything is generated. ``str(error)``
    is the plain message; Inspect prints ``.message``, the same text with rich markup escaped.
    """

    def __init__(self, message: str) -> None:
        # Inspect prints `.message` as rich markup; data, paths, URLs and servers' messages may hold
        # brackets ("ids [17]", "[https://status.example]") that rich would read as tags and drop,
        # so they are escaped there and kept plain in `args`.
        super().__init__(escape(message))
        self.args = (message,)

    def __str__(self) -> str:
        return str(self.args[0])


class TaskArgumentError(PlainError, ValueError):
    """A task argument that cannot be used: Inspect prints the message alone, no traceback.

    Still a `ValueError`, so callers that build tasks in Python catch it as before.
    ``str(error)`` is the plain message.
    """


class TaskDataError(TaskArgumentError, VividDataError):
    """A data source that cannot be read or holds invalid rows (also a `VividDataError`)."""


@contextmanager
def task_errors(task: str) -> Iterator[None]:
    """Turn a task's bad-argument and data errors into errors Inspect reports in one message.

    Args:
        task: The task's name, put before each message.

    Raises:
        TaskDataError: The body raised a `VividDataError`.
        TaskArgumentError: The body raised another `ValueError` (an unknown option).
    """
    try:
        yield
    except PlainError:  # already a message of its own (TaskArgumentError, the task-start check)
        raise
    except VividDataError as error:
        raise TaskDataError(f"{task}: {error}") from error
    except ValueError as error:
        raise TaskArgumentError(f"{task}: {error}") from error


# Private format, not a private import: the member names inside an `.eval` zip. The report reads
# logs with Inspect's public readers (read_eval_log(header_only=True),
# read_eval_log_sample_summaries), which inflate without a cap; it first inflates the members they
# will read within its cap (vivid_inspect.lab.bounded_zip), so a decompression bomb is skipped. No public
# API names those members (bench/results.md, "Reading logs: public readers against our own").
_JOURNAL = "_journal/"
_JOURNAL_SUMMARIES = "_journal/summaries/"


def eval_header_members(names: Iterable[str]) -> list[str]:
    """The members of an ``.eval`` zip that Inspect reads for the log's header.

    Args:
        names: Every member name of the zip.

    Returns:
        ``header.json`` of a finished log, or the journal's start of a log still running; then
        ``reductions.json`` when present.
    """
    present = set(names)
    members = (
        ["header.json"]
        if "header.json" in present
        else sorted(n for n in present if n.startswith(_JOURNAL) and not n.startswith(_JOURNAL_SUMMARIES))
    )
    return [*members, *(["reductions.json"] if "reductions.json" in present else [])]


def eval_summary_members(names: Iterable[str]) -> list[str]:
    """The members of an ``.eval`` zip holding its sample summaries, each a JSON list, in order.

    Args:
        names: Every member name of the zip.

    Returns:
        ``summaries.json`` of a finished log; for a log still running, one journal file per flush,
        in flush order (``2.json`` before ``10.json``); empty when there are none.
    """
    present = set(names)
    if "summaries.json" in present:
        return ["summaries.json"]
    journal = [n for n in present if n.startswith(_JOURNAL_SUMMARIES) and n.endswith(".json")]
    return sorted(journal, key=lambda n: int(n.rsplit("/", 1)[-1].removesuffix(".json")))
