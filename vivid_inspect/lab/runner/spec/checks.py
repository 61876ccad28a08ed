"""Checks of a well-typed spec against the project: tasks, parameters, providers, judges, files.

Each check adds a `Problem` naming the YAML path of the bad value and carries on, so one
``vivid validate`` lists everything to fix. Nothing here loads data, builds a model or reads an
API key: validation works offline and without credentials.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

from inspect_ai.model import GenerateConfig
from pydantic import TypeAdapter, ValidationError

from vivid_inspect.baselines.answers import BASELINES
from vivid_inspect.baselines.model import GRADERS
from vivid_inspect.bounds import MAX_CELLS, finite_problem, shown
from vivid_inspect.inspect_private import model_providers
from vivid_inspect.judge_id import LEXICAL, UnknownJudge, parse_strategy
from vivid_inspect.lab.audit.probes import ENGLISH, PROBES
from vivid_inspect.lab.runner.catalog import (
    JUDGED_TASKS,
    PROMPT_VALUES,
    RUNNER_ARGS,
    TASKS,
    task_args,
    task_parameters,
)
from vivid_inspect.lab.runner.spec.human_check import check_human
from vivid_inspect.lab.runner.spec.model import (
    Audit,
    HumanScores,
    Judge,
    ModelEntry,
    Panel,
    RunBlock,
    Spec,
    option_number_problem,
)
from vivid_inspect.lab.runner.spec.problems import PathPart, Problem
from vivid_inspect.tasks import argument_problem

Path_ = tuple[PathPart, ...]

BUILTIN_DATA = ("sample", "hf")
# Judge keys that mean nothing to the lexical judge, with why, when they differ from the default.
_NOT_LEXICAL: dict[str, str] = {
    "model": "it calls no model",
    "model_args": "it calls no model",
    "generate": "it calls no model",
    "price": "it calls no model, so it costs nothing",
    "retries": "it reads no model reply, so there is nothing to retry",
    "repeats": "chrF is deterministic, so every repeat would give the same scores",
    "language": "it reads no instructions, so there is no language to choose",
}


def is_url(value: str) -> bool:
    """True for an http(s) URL, which a data spec downloads instead of reading a file."""
    return value.startswith(("http://", "https://"))


def vivid_model_names() -> tuple[str, ...]:
    """The ``vivid/*`` models the baselines' provider knows: its baselines and its graders."""
    return (*BASELINES, *GRADERS)


def _check_vivid_model(name: str, rest: str, path: Path_) -> list[Problem]:
    """An unknown ``vivid/*`` name, caught here rather than when ``vivid run`` builds it."""
    known = vivid_model_names()
    if rest in known:
        return []
    listed = ", ".join(f"vivid/{model}" for model in known)
    close = difflib.get_close_matches(rest.lower(), known, n=1, cutoff=0.5)
    hint = f" (did you mean vivid/{close[0]}?)" if close else ""
    return [Problem(path, f"unknown vivid model {name!r}{hint}; the vivid models are {listed}")]


def _check_judge_model(name: str, path: Path_) -> list[Problem]:
    """A ``vivid/*`` baseline as a judge: it answers the tasks, so every judge call would fail."""
    provider, _, rest = name.partition("/")
    if provider != "vivid" or rest in GRADERS:
        return []
    graders = ", ".join(f"vivid/{grader}" for grader in GRADERS)
    return [
        Problem(
            path,
            f"{name} cannot judge: it answers the tasks, not a judge prompt; the vivid judges: {graders}",
        )
    ]


def _check_model(name: str, path: Path_, providers: set[str]) -> list[Problem]:
    provider, _, rest = name.partition("/")
    if not rest:
        return [
            Problem(
                path, f"model {name!r} should be provider/model, e.g. openai/gpt-4o or vllm/Qwen/Qwen3-8B"
            )
        ]
    if provider not in providers:
        known = ", ".join(sorted(providers))
        close = difflib.get_close_matches(provider.lower(), sorted(providers), n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]}/{rest}?)" if close else ""
        return [Problem(path, f"unknown model provider {provider!r}{hint}; known providers: {known}")]
    if provider == "vivid":
        return _check_vivid_model(name, rest, path)
    if provider in ("openai-api", "openai-api-completions") and "/" not in rest:
        return [
            Problem(
                path,
                f"{provider} models are {provider}/<service>/<model> (the service names the "
                f"<SERVICE>_BASE_URL variable), got {name!r}",
            )
        ]
    return []


def _check_generate(config: dict[str, Any], path: Path_) -> list[Problem]:
    problems = []
    fields = GenerateConfig.model_fields
    for key, value in config.items():
        if key not in fields:
            problems.append(
                Problem(
                    (*path, key), f"unknown generation option; Inspect's options are: {', '.join(fields)}"
                )
            )
            continue
        try:
            annotation = fields[key].annotation
            TypeAdapter(Any if annotation is None else annotation).validate_python(value, strict=True)
        except ValidationError as error:
            problems.append(
                Problem((*path, key), f"invalid value {shown(value)}: {error.errors()[0]['msg']}")
            )
            continue
        bound = _generate_bound(key, value)
        if bound is not None:
            problems.append(Problem((*path, key), bound))
    return problems


def _generate_bound(key: str, value: Any) -> str | None:
    """A generation option's number past its bound or range, or a float that is not finite."""
    if isinstance(value, float) and finite_problem(key, value):
        return finite_problem(key, value)
    if isinstance(value, int | float | str) and not isinstance(value, bool):
        problem = option_number_problem(key, value)
        return f"{problem} (docs/experiments.md, Bounds)" if problem else None
    if isinstance(value, dict | list):  # logit_bias, extra_body: no number in it may be infinite
        values = value.values() if isinstance(value, dict) else value
        return next((p for v in values if (p := _generate_bound(key, v)) is not None), None)
    return None


def _check_model_args(args: dict[str, Any], path: Path_) -> list[Problem]:
    """Numbers in a model's provider arguments, held to the generation options' bounds.

    Providers read ``max_retries``, ``timeout`` and the like from here as well as from ``generate``:
    a 900-digit ``max_retries`` would otherwise pass ``vivid plan`` and retry without end.
    """
    return [
        Problem((*path, key), problem)
        for key, value in args.items()
        if (problem := _generate_bound(key, value)) is not None
    ]


def _check_task_args(tasks: list[str], args: dict[str, Any], path: Path_) -> list[Problem]:
    problems = []
    for key, value in args.items():
        if key in RUNNER_ARGS:
            problems.append(Problem((*path, key), f"set by the runner: {RUNNER_ARGS[key]}"))
            continue
        takers = [task for task in tasks if key in task_parameters(task)]
        for task in tasks:
            if task not in takers:
                accepted = [name for name in task_parameters(task) if name not in RUNNER_ARGS]
                takes = (
                    f"it takes: {', '.join(accepted)}" if accepted else "the runner sets all its parameters"
                )
                problems.append(Problem((*path, key), f"task {task!r} has no parameter {key!r}; {takes}"))
        if not takers:
            continue
        # the tasks' own check of `-T` values (vivid_inspect.tasks), so both refuse the same values
        problem = argument_problem(key, value)
        if problem is None:
            try:
                TypeAdapter(task_parameters(takers[0])[key].annotation).validate_python(value, strict=True)
            except ValidationError as error:
                problem = f"invalid value {shown(value)}: {error.errors()[0]['msg']}"
        if problem is not None:
            problems.append(Problem((*path, key), f"{' and '.join(takers)}: {problem}"))
    return problems


def _check_block_tasks(runs: list[tuple[int, RunBlock]], providers: set[str]) -> list[Problem]:
    problems: list[Problem] = []
    for i, block in runs:
        known = [task for task in block.tasks if task in TASKS]
        for j, task in enumerate(block.tasks):
            if task not in TASKS:
                problems.append(
                    Problem(
                        ("runs", i, "tasks", j), f"unknown task {task!r}; expected one of {', '.join(TASKS)}"
                    )
                )
            elif task in block.tasks[:j]:
                problems.append(Problem(("runs", i, "tasks", j), f"task {task!r} is listed twice"))
        if block.prompts is not None:
            for task in known:
                if "prompt" not in task_parameters(task):
                    problems.append(
                        Problem(
                            ("runs", i, "prompts"),
                            f"task {task!r} has no prompt parameter; put it in a run block of its own "
                            "(topic and traits take task_args.shots)",
                        )
                    )
            for k, prompt in enumerate(block.prompts):
                for task in known:
                    allowed = PROMPT_VALUES.get(task)
                    if allowed and prompt not in allowed:
                        problems.append(
                            Problem(
                                ("runs", i, "prompts", k),
                                f"unknown prompt {prompt!r} for {task}; expected one of {', '.join(allowed)}",
                            )
                        )
        problems += _check_task_args(known, block.task_args, ("runs", i, "task_args"))
        problems += _check_generate(block.generate, ("runs", i, "generate"))
        for j, model in enumerate(block.models):
            problems += _check_model(model.model, ("runs", i, "models", j, "model"), providers)
            problems += _check_model_args(model.model_args, ("runs", i, "models", j, "model_args"))
        given = [key for key in ("limit", "sample_ids", "sample") if getattr(block, key) is not None]
        if len(given) > 1:
            problems.append(
                Problem(
                    ("runs", i, given[1]), f"choose the items one way: {' and '.join(given)} are both given"
                )
            )
        if block.sample_ids is not None and len(set(block.sample_ids)) != len(block.sample_ids):
            problems.append(Problem(("runs", i, "sample_ids"), "sample ids repeat"))
    return problems


def _cell_key(task: str, args: dict[str, Any], model: ModelEntry) -> str:
    return repr((task, sorted(args.items()), model.model, sorted(model.model_args.items())))


def _check_duplicate_cells(runs: list[tuple[int, RunBlock]]) -> list[Problem]:
    # Two blocks producing the same (task, args, model) would fight over one log in eval_set.
    seen: dict[str, int] = {}
    problems = []
    for i, block in runs:
        for task in block.tasks:
            if task not in TASKS:
                continue
            prompts: list[str | None] = [*block.prompts] if block.prompts else [None]
            for prompt in prompts:
                args = task_args(task, prompt, block.task_args, None)
                for model in block.models:
                    key = _cell_key(task, args, model)
                    if key in seen and seen[key] != i:
                        problems.append(
                            Problem(
                                ("runs", i),
                                f"{task} {args} on {model.model} is already generated by "
                                f"runs[{seen[key]}]; a cell may appear in one run block only",
                            )
                        )
                    seen.setdefault(key, i)
    return problems


def _check_cell_count(runs: list[tuple[int, RunBlock]], judges: list[tuple[int, Judge]]) -> list[Problem]:
    """At most `MAX_CELLS` generation cells and as many judge cells.

    Counted, not built: a spec of many blocks, models and repeats would otherwise take ``vivid
    validate`` and ``vivid plan`` minutes of memory before saying anything.
    """
    generation = explained = 0
    for _, block in runs:
        per_task = len(block.prompts or [None]) * len(block.models)
        generation += len(block.tasks) * per_task
        explained += per_task if any(task in JUDGED_TASKS for task in block.tasks) else 0
    judged = explained * sum(judge.repeats for _, judge in judges)
    problems = []
    if generation > MAX_CELLS:
        message = f"{generation:,} generation cells (tasks x prompts x models); a spec may have at most {MAX_CELLS:,}"
        problems.append(Problem(("runs",), message))
    if judged > MAX_CELLS:
        message = (
            f"{judged:,} judge cells (explanation cells x every judge's repeats); a spec may have at most "
            f"{MAX_CELLS:,}"
        )
        problems.append(Problem(("judges",), message))
    return problems


def _check_lexical_judge(judge: Judge, path: Path_) -> list[Problem]:
    # A setting that would be silently ignored is refused, as an unknown key is.
    defaults = Judge(name="lexical", strategy=LEXICAL)  # the name is not compared (and may be malformed)
    return [
        Problem((*path, key), f"the {LEXICAL} judge takes no {key}: {why}; remove it")
        for key, why in _NOT_LEXICAL.items()
        if getattr(judge, key) != getattr(defaults, key)
    ]


def _check_judges(
    judges: list[tuple[int, Judge]], providers: set[str], explains: bool | None
) -> list[Problem]:
    problems: list[Problem] = []
    names: dict[str, int] = {}
    for i, judge in judges:
        if judge.name in names:
            problems.append(
                Problem(
                    ("judges", i, "name"),
                    f"judge name {judge.name!r} is already used by judges[{names[judge.name]}]",
                )
            )
        names.setdefault(judge.name, i)
        if judge.strategy == LEXICAL:
            problems += _check_lexical_judge(judge, ("judges", i))
            continue
        try:
            parse_strategy(judge.strategy, lexical=True)
        except UnknownJudge as error:
            problems.append(Problem(("judges", i, "strategy"), str(error)))
        else:
            if judge.model is None:
                problems.append(
                    Problem(
                        ("judges", i, "model"),
                        f"required key is missing: the {judge.strategy} strategy needs a judge model "
                        f"(provider/model); only {LEXICAL} needs none",
                    )
                )
        if judge.model is not None:
            problems += _check_model(judge.model, ("judges", i, "model"), providers) or _check_judge_model(
                judge.model, ("judges", i, "model")
            )
        problems += _check_generate(judge.generate, ("judges", i, "generate"))
        problems += _check_model_args(judge.model_args, ("judges", i, "model_args"))
    if names and explains is False:
        problems.append(
            Problem(
                ("judges",),
                f"no run block has a judged task ({', '.join(sorted(JUDGED_TASKS))}), so no judge would run",
            )
        )
    return problems


def _check_panel(panel: Panel | None, judges: set[str]) -> list[Problem]:
    if panel is None:
        return []
    problems = []
    if panel.name in judges:
        problems.append(
            Problem(("panel", "name"), f"{panel.name!r} is a judge's name; a panel needs a name of its own")
        )
    for i, member in enumerate(panel.members):
        if member not in judges:
            problems.append(
                Problem(
                    ("panel", "members", i),
                    f"no judge is named {member!r}; judges: {', '.join(sorted(judges)) or 'none'}",
                )
            )
        elif member in panel.members[:i]:
            problems.append(Problem(("panel", "members", i), f"judge {member!r} is listed twice"))
    return problems


def _check_audits(
    audits: list[tuple[int, Audit]], judges: dict[str, Judge], data: str | None
) -> list[Problem]:
    """Each audit names an LLM judge of the spec once, and known probes the data can derive."""
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    for i, audit in audits:
        judge = judges.get(audit.judge)
        if judge is None:
            listed = ", ".join(sorted(judges)) or "none"
            problems.append(
                Problem(("audits", i, "judge"), f"no judge is named {audit.judge!r}; judges: {listed}")
            )
        elif judge.strategy == LEXICAL:
            message = (
                f"{audit.judge!r} is the {LEXICAL} judge: it calls no model, so there is no judge to audit"
            )
            problems.append(Problem(("audits", i, "judge"), message))
        elif audit.judge in seen:
            message = f"judge {audit.judge!r} is already audited by audits[{seen[audit.judge]}]"
            problems.append(Problem(("audits", i, "judge"), message))
        seen.setdefault(audit.judge, i)
        for j, probe in enumerate(audit.probes or []):
            if probe not in PROBES:
                message = f"unknown probe {probe!r}; probes: {', '.join(PROBES)}"
                problems.append(Problem(("audits", i, "probes", j), message))
            elif probe in (audit.probes or [])[:j]:
                problems.append(Problem(("audits", i, "probes", j), f"probe {probe!r} is listed twice"))
        # Without `probes` the audit runs every probe the data allows (english left out, with a
        # line in its card, as `vivid audit` does); only english named on other data is refused.
        if data != "sample" and audit.probes is not None and ENGLISH in audit.probes:
            rest = ", ".join(name for name in audit.probes if name != ENGLISH)
            message = (
                f"the {ENGLISH} probe needs English meanings, shipped only with data: sample; "
                f"leave it out (probes: [{rest}]) or leave out probes to run every probe the data allows"
            )
            problems.append(Problem(("audits", i, "probes"), message))
    return problems


def _check_files(data: str | None, base_dir: Path) -> list[Problem]:
    problems = []
    if data is not None and data not in BUILTIN_DATA and not is_url(data) and not (base_dir / data).is_file():
        problems.append(
            Problem(
                ("data",),
                f"file not found: {base_dir / data} (data is sample, hf, an http(s) URL or a CSV "
                "path relative to the spec)",
            )
        )
    return problems


def check_parts(
    base_dir: Path,
    *,
    runs: list[tuple[int, RunBlock]],
    judges: list[tuple[int, Judge]],
    panel: Panel | None = None,
    data: str | None = None,
    human: HumanScores | list[HumanScores] | None = None,
    complete: bool = True,
    audits: list[tuple[int, Audit]] | None = None,
) -> list[Problem]:
    """Every problem that types alone cannot show, in the parts of a spec that are well typed.

    Checking parts, not only whole specs, lets one report list type errors in one judge beside
    an unknown task in a run block.

    Args:
        base_dir: The spec file's folder (relative paths start there).
        runs: The well-typed run blocks with their index in ``runs``.
        judges: The well-typed judges with their index in ``judges``.
        panel: The panel, if given and well typed.
        data: The spec's ``data``, if it is a string.
        human: The spec's ``human`` section, if well typed (see `vivid_inspect.lab.runner.spec.human_check`).
        complete: False when some run blocks or judges were left out for type errors; then
            checks that need all of them (no judged task, panel members) are skipped.
        audits: The well-typed audits with their index in ``audits``.

    Returns:
        The problems found, possibly none.
    """
    providers = model_providers()
    explains = any(task in JUDGED_TASKS for _, block in runs for task in block.tasks) if complete else None
    too_many = _check_cell_count(runs, judges)
    return [
        *too_many,
        *_check_block_tasks(runs, providers),
        *([] if too_many else _check_duplicate_cells(runs)),
        *_check_judges(judges, providers, explains),
        *(_check_panel(panel, {judge.name for _, judge in judges}) if complete else []),
        *(_check_audits(audits or [], {judge.name: judge for _, judge in judges}, data) if complete else []),
        *_check_files(data, base_dir),
        *check_human(human, runs, base_dir, complete),
    ]


def check_spec(spec: Spec, base_dir: Path) -> list[Problem]:
    """Every problem of a well-typed spec that its types alone cannot show.

    Args:
        spec: A spec that passed type validation.
        base_dir: The spec file's folder (relative paths start there).

    Returns:
        The problems found, possibly none.
    """
    return check_parts(
        base_dir,
        runs=list(enumerate(spec.runs)),
        judges=list(enumerate(spec.judges)),
        panel=spec.panel,
        data=spec.data,
        human=spec.human,
        audits=list(enumerate(spec.audits)),
    )
