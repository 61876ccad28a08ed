"""The task-start check: the models a task will call can be called, before anything is generated.

``inspect eval`` exits 0 on a failed task, and a judge without a key or a dead endpoint used to
fail only once samples ran: a traceback after 16 s, or 427 lines after a minute of retries. When
Inspect builds a VIVID task from its name (``inspect eval vivid_inspect/explain``, ``inspect
eval-set``, ``eval("vivid_inspect/topic")``) it has already created the model under test and the
models bound to roles; the task's function then checks, reading only:

- for the explain task with an LLM judge, the judge its scorers will resolve (the ``grader``
  role, else ``-T judge_model``, else the paper's GPT-4.1): its provider is known and its key is
  set (the default is created once to see, with ``memoize=False``, and dropped), and it grades;
- the endpoint of the model under test and of that judge: the request ``vivid run``'s preflight
  sends (`vivid_inspect.endpoints`), once per endpoint;
- that a ``vivid/*`` baseline has every item of the task's data (``-M data=`` beside ``-T data=``).

A problem raises `TaskStartError`, which Inspect prints as its message alone (no
traceback) and which ends ``inspect eval`` with exit 1 before any sample runs. An Inspect hook
could not do this: hooks' exceptions are logged and swallowed. Nothing is bound: the judge is
still resolved by its scorer (``get_model(role="grader", default=...)``) when a sample is scored.

Python code that calls a task function itself (a test, a notebook, ``vivid run``, whose own
preflight makes the same check) is not checked: the check runs only when Inspect's own task
loader is building the task (`built_by_inspect`).
``VIVID_PREFLIGHT=0`` skips it everywhere (for an endpoint that serves no ``GET /models``).
"""

from __future__ import annotations

import difflib
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from inspect_ai.dataset import Dataset
from inspect_ai.model import Model, get_model, model_roles

from vivid_inspect.baselines.model import BaselineModel, closest
from vivid_inspect.endpoints import Probe, ask_each, probe_for, probe_timeout, provider, unlisted
from vivid_inspect.inspect_private import (
    PlainError,
    TaskArgumentError,
    active_generate_config,
    active_model,
    built_by_inspect,
    inspect_task_args,
    model_providers,
)
from vivid_inspect.log_contract import GRADER_ROLE, sample_idiom
from vivid_inspect.scorers.judge import DEFAULT_JUDGE_MODEL
from vivid_inspect.text import unmarked

PREFLIGHT_ENV = "VIVID_PREFLIGHT"
"""``VIVID_PREFLIGHT=0`` skips the check."""

_OFF = frozenset({"0", "false", "no", "off"})
_SKIP = f"({PREFLIGHT_ENV}=0 skips this check.)"
_CHOOSE_JUDGE = (
    "choose the judge: --model-role grader=MODEL (offline: vivid/chrf), or -T judge=none to generate only"
)


class TaskStartError(PlainError, RuntimeError):
    """A model the task would call cannot be called; nothing was generated."""


@dataclass(frozen=True)
class _Called:
    """A model the task will call, as the user named it."""

    model: Model
    who: str  # "the model openai/gpt-4o (--model)"
    fix: str


def evaluated_model() -> Model | None:
    """The model Inspect is evaluating while it builds this task from its name; None when not checked.

    None when Python code calls the task function itself rather than Inspect building the task
    from its name, or when ``VIVID_PREFLIGHT=0``.
    """
    if os.environ.get(PREFLIGHT_ENV, "").strip().lower() in _OFF or not built_by_inspect():
        return None
    return active_model()


def _plain(error: BaseException) -> str:
    # Inspect's prerequisite messages carry rich markup ("[bold]OPENAI_API_KEY[/bold]").
    text = unmarked(str(getattr(error, "message", None) or error))
    return text.removeprefix("ERROR: ").removeprefix("Unable to initialise OpenAI client ")


def _wrong_generator(model: Model) -> tuple[str, str] | None:
    api = model.api
    if isinstance(api, BaselineModel) and api.is_grader:
        return (
            f"the model {model} (--model) grades judge prompts and cannot answer the task",
            f"Use --model vivid/oracle or vivid/literal (with -M data=...), and --model-role grader={model} to judge.",
        )
    return None


def _judge(judge_model: str | Model | None) -> tuple[Model | None, str, str | None]:
    """The judge the explain task's scorers will resolve, where it comes from, and why it cannot be made."""
    bound = model_roles().get(GRADER_ROLE)
    grader = bound[0] if isinstance(bound, list) else bound
    if grader is not None:
        return grader, f"the judge {grader} (--model-role grader)", None
    if isinstance(judge_model, Model):
        return judge_model, f"the judge {judge_model} (judge_model)", None
    name = judge_model or DEFAULT_JUDGE_MODEL
    who = f"the judge {name} ({'-T judge_model' if judge_model else 'the default: no --model-role grader given'})"
    try:
        # Created only to see that it can be (provider known, key set) and to find its endpoint;
        # the scorer creates its own when a sample is scored.
        return get_model(name, memoize=False), who, None
    except Exception as error:  # noqa: BLE001 - every provider has its own error for a missing key
        providers = model_providers()
        kind = provider(name)
        hint = "" if kind in providers else closest(kind, sorted(providers)).removeprefix("; ").capitalize()
        return None, who, " ".join([_plain(error), hint]).strip()


def check_models(task: str, *, judge: bool = False, judge_model: str | Model | None = None) -> None:
    """Check the models the task will call, when Inspect builds it for ``inspect eval``.

    Args:
        task: The task's name, put before the message.
        judge: Whether the task calls an LLM judge (``explain`` with a judge other than
            ``none`` or ``lexical``).
        judge_model: The task's ``judge_model`` argument.

    Raises:
        TaskStartError: A model cannot be created, is the wrong kind of vivid model, or its
            endpoint failed the check (one line per model, then the fix).
    """
    generator = evaluated_model()
    if generator is None:
        return
    problems: list[tuple[str, str]] = []
    wrong = _wrong_generator(generator)
    if wrong:
        problems.append(wrong)
    called = [_Called(generator, f"the model {generator} (--model)", "Fix the model's server, URL or key.")]
    if judge:
        grader, who, reason = _judge(judge_model)
        if grader is None:
            problems.append(
                (
                    f"{who} cannot be created: {reason}",
                    f"Set its key or install its package, or {_CHOOSE_JUDGE}.",
                )
            )
        elif isinstance(grader.api, BaselineModel) and not grader.api.is_grader:
            problems.append(
                (
                    f"{who} answers tasks and cannot grade.",
                    "The offline judge is --model-role grader=vivid/chrf.",
                )
            )
        else:
            called.append(_Called(grader, who, f"Fix the judge's server, URL or key, or {_CHOOSE_JUDGE}."))
    problems += _endpoint_problems(called)
    if problems:
        raise TaskStartError(_message(task, problems))


def _endpoint_problems(called: Iterable[_Called]) -> list[tuple[str, str]]:
    active = active_generate_config()
    probes: list[tuple[_Called, Probe]] = []
    for each in called:
        probe = probe_for(str(each.model), each.model, each.model.api.base_url)
        if isinstance(probe, Probe):
            probes.append((each, probe))
    outcomes = ask_each(
        # The eval's model roles (one dict per eval) scope the reuse: the tasks of one eval ask
        # each endpoint once, the next eval asks again.
        [(probe, probe_timeout(active, each.model.config)) for each, probe in probes],
        scope=model_roles(),
    )
    problems = []
    doubtful = False
    for each, probe in probes:
        outcome = outcomes[probe]
        not_listed = None if outcome.problem else unlisted(each.model, outcome, probe)
        reason = outcome.problem or not_listed
        if reason:
            problems.append((f"{each.who} failed its endpoint check: {reason}", each.fix))
            doubtful = doubtful or outcome.doubtful or not_listed is not None
    if doubtful:  # a server may serve chat calls without listing models (or listing this one)
        problems.append(("", _SKIP))
    return problems


def _message(task: str, problems: list[tuple[str, str]]) -> str:
    """One line per problem, then one line of fixes: at most three lines for the two models."""
    lines = [f"{task}: {line.rstrip('.')}." for line, _ in problems if line]
    fixes = " ".join(dict.fromkeys(fix for _, fix in problems))
    return "\n".join([*lines, f"Nothing was generated. {fixes}"])


def _closest_name(name: str, names: Sequence[str]) -> str | None:
    """The known name a mistyped one was meant to be: a close spelling, else one it starts or ends."""
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.8)
    # judge_strategy, judge_name, num_shots: a known name with a word added
    inside = [known for known in names if name.startswith(known) or name.endswith(known)]
    inside = inside or [known for known in names if len(name) > 3 and known.startswith(name)]
    near = difflib.get_close_matches(name, names, n=1)
    found = close or [max(inside, key=len)] if inside else close or near
    return found[0] if found else None


def check_names(task: str, parameters: Mapping[str, Sequence[str]]) -> None:
    """Refuse a ``-T`` name the task does not take, when Inspect builds it from its name.

    Inspect drops such a name with one warning and runs the task with its default: ``-T
    judg=cot`` would run the paper's judge. A name no VIVID task takes is refused; one that only
    another VIVID task takes is refused too, unless Inspect gives the same ``-T`` to several tasks
    (``inspect eval vivid_inspect/tasks.py``), where it gets one note on stderr instead.

    Args:
        task: The task's name, a key of ``parameters``.
        parameters: Every VIVID task's parameter names.

    Raises:
        TaskArgumentError: One line per unknown name, with the closest name, then what the task takes.
    """
    request = inspect_task_args()
    if request is None:
        return
    given, several = request
    own = parameters[task]
    every = sorted({name for names in parameters.values() for name in names})
    problems = []
    for name in given:
        if name in own:
            continue
        takers = [other for other, names in parameters.items() if name in names]
        if takers and several:
            note = f"{task}: note: -T {name} is a parameter of {' and '.join(takers)} only; {task} runs without it"
            print(note, file=sys.stderr)
            continue
        close = _closest_name(name, own) or _closest_name(name, every)
        why = (
            f"a parameter of {' and '.join(takers)}" if takers else f"did you mean {close}?" if close else ""
        )
        line = f"-T {name} is not a parameter of {'any VIVID task' if several else task}" + (
            f" ({why})" if why else ""
        )
        problems.append((line, f"{task} takes: {', '.join(own)}."))
    if problems:
        raise TaskArgumentError(_message(task, problems))


def check_answerable(task: str, dataset: Dataset, data: str | None) -> None:
    """Check that a ``vivid/*`` baseline under test has every item of the task's data.

    A baseline answers from its own data (``-M data=``); an item it lacks would fail its sample.

    Args:
        task: The task's name.
        dataset: The task's samples.
        data: The task's ``data`` argument, for the fix.

    Raises:
        TaskStartError: Some items are not in the baseline's data.
    """
    model = evaluated_model()
    api = model.api if model is not None else None
    if not isinstance(api, BaselineModel):
        return
    missing = api.missing(sample_idiom(sample.input, sample.metadata) for sample in dataset)
    if not missing:
        return
    same = f"-M data={data}" if data else "the same -M data=... as -T data=..."
    raise TaskStartError(
        f"{task}: the model {model} (--model) answers from {api.source}, which lacks {len(missing)} of the "
        f"task's {len(dataset)} items (first: {missing[0]!r}).\n"
        f"Nothing was generated. Give the model the task's data: {same}."
    )
