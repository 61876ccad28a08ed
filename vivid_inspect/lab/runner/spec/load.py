"""Load a spec file: YAML, then types, then project checks; every problem reported at once."""

from __future__ import annotations

import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from vivid_inspect.bounds import shown
from vivid_inspect.lab.runner.spec.checks import BUILTIN_DATA, check_parts, check_spec, is_url
from vivid_inspect.lab.runner.spec.credentials import scan_credentials, under, without_values
from vivid_inspect.lab.runner.spec.model import (
    Audit,
    HumanScores,
    Judge,
    Panel,
    RunBlock,
    Spec,
    field_names,
    human_entries,
    human_shorthand,
)
from vivid_inspect.lab.runner.spec.problems import PathPart, Problem, SpecError
from vivid_inspect.lab.runner.spec.yaml_source import read_yaml
from vivid_inspect.redact import redact


@dataclass(frozen=True)
class LoadedSpec:
    """A valid spec with its paths resolved.

    Attributes:
        spec: The validated spec.
        source: The spec file.
        log_dir: Where logs go (absolute).
        data: The data spec to give tasks and ``vivid/*`` models: ``sample``, ``hf``, a URL, an
            absolute path, or None for ``$VIVID_DATA``/``hf``.
        human: The (first) human scores file (absolute), if any.
        human_generation: Its ``generation``: the generation the humans scored.
        humans: Every human scores file (absolute) with its ``generation``, in the spec's order.
        notes: One line per placeholder written under a credential's name, which passed as not
            a secret (``file:line: path: ...``), for the commands to print.
    """

    spec: Spec
    source: Path
    log_dir: Path
    data: str | None
    human: Path | None
    human_generation: str | None = None
    humans: tuple[tuple[Path, str | None], ...] = ()
    notes: tuple[str, ...] = ()


def _model_class(annotation: Any) -> type[BaseModel] | None:
    """The pydantic model inside ``Annotated[...]``, ``X | None`` or ``list[X]``, if any."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _model_class(arg)
        if found is not None:
            return found
    return None


def _section(loc: tuple[PathPart, ...]) -> type[BaseModel] | None:
    """The spec section (pydantic model) that holds the last key of ``loc``."""
    current: type[BaseModel] | None = Spec
    for part in loc[:-1]:
        if isinstance(part, int) or current is None:
            continue
        field = current.model_fields.get(part)
        current = _model_class(field.annotation) if field is not None else None
    return current


def _message(error: ErrorDetails) -> str:
    loc = tuple(error["loc"])
    kind = error["type"]
    if kind == "extra_forbidden":
        section = _section(loc)
        allowed = f"; expected one of: {', '.join(field_names(section))}" if section else ""
        return f"unknown key{allowed}"
    if kind == "missing":
        return "required key is missing"
    if kind == "model_type" and "models" in loc:
        return "expected a model name (provider/model) or a mapping with a 'model' key"
    if kind == "model_type":
        return "expected a mapping"
    if kind in ("less_than_equal", "less_than"):
        bound = (error.get("ctx") or {}).get("le", (error.get("ctx") or {}).get("lt"))
        return (
            f"must be at most {bound}, got {shown(error['input'])}: every count in a spec has an upper "
            "bound (docs/experiments.md, Bounds)"
        )
    if kind == "too_long":
        limit = (error.get("ctx") or {}).get("max_length")
        return f"at most {limit} entries, got more: every list in a spec has an upper bound (docs/experiments.md, Bounds)"
    if kind == "finite_number":
        return f"must be a finite number, got {error['input']}"
    if kind == "string_pattern_mismatch":
        return (
            f"{error['input']!r} is not a valid name: use letters, digits, '_', '.' and '-' "
            "(names become folder names)"
        )
    message = error["msg"].removeprefix("Value error, ")
    return (
        f"{message} (got {error['input']!r})"
        if kind.endswith("_type") or kind.startswith("string_")
        else message
    )


# ``human`` is one entry or a list of them: pydantic reports each branch of the union under a tag.
_HUMAN_BRANCHES = {"HumanScores": False, "list[HumanScores]": True}


def _type_problems(error: ValidationError, raw: Any = None) -> list[Problem]:
    problems = []
    given_list = isinstance(raw.get("human"), list) if isinstance(raw, dict) else False
    for e in error.errors():
        loc = tuple(e["loc"])
        if loc[:1] == ("human",) and len(loc) > 1 and loc[1] in _HUMAN_BRANCHES:
            if _HUMAN_BRANCHES[str(loc[1])] != given_list:
                continue  # the branch the value's shape does not take says nothing about it
            loc = (loc[0], *loc[2:])
            e = {**e, "loc": loc}
        problems.append(Problem(loc, _message(e)))
    return problems


def _valid(model: type[BaseModel], raw: Any) -> Any:
    if isinstance(raw, dict):
        # unknown keys are reported already; checking the rest finds the part's other problems
        raw = {key: value for key, value in raw.items() if key in model.model_fields}
    try:
        return model.model_validate(raw)
    except ValidationError:
        return None


# Stand-ins for a required field whose value has a type error, so that the rest of its part is
# still checked in the same pass: the first value passes validation, the second replaces it
# afterwards with one that no check reads as a setting (no tasks, no models, no strategy).
_STAND_INS: dict[type[BaseModel], dict[str, tuple[Any, Any]]] = {
    RunBlock: {"tasks": (["explain"], []), "models": (["vivid/oracle"], [])},
    Judge: {"name": ("judge", ""), "strategy": ("lexical", "")},
    Panel: {"name": ("panel", ""), "members": (["a", "b"], []), "aggregate": ("mean", "mean")},
}


@dataclass(frozen=True)
class _Salvaged:
    """A spec part checked field by field.

    Attributes:
        part: The part with its badly typed fields left out (defaults) or stood in for; None when
            it is not a mapping.
        bad: Its fields with type errors, which pydantic has reported already.
    """

    part: Any
    bad: frozenset[str]


def _salvage(model: type[BaseModel], raw: Any) -> _Salvaged:
    if not isinstance(raw, dict):
        return _Salvaged(None, frozenset())
    known = {key: value for key, value in raw.items() if key in model.model_fields}
    try:
        return _Salvaged(model.model_validate(known), frozenset())
    except ValidationError as error:
        bad = frozenset(str(e["loc"][0]) for e in error.errors() if e["loc"])
    stand_ins = _STAND_INS.get(model, {})
    kept = {key: value for key, value in known.items() if key not in bad}
    neutral: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        if field.is_required() and name not in kept:
            if name not in stand_ins:
                return _Salvaged(None, bad)
            kept[name], neutral[name] = stand_ins[name]
    if "name" in neutral and isinstance(raw.get("name"), str):
        # a name that breaks the naming rule still names its judge for the panel's checks
        neutral["name"] = raw["name"]
    try:
        part = model.model_validate(kept)
    except ValidationError:
        return _Salvaged(None, bad)
    return _Salvaged(part.model_copy(update=neutral), bad)


def _part_problems(raw: dict[str, Any], base_dir: Path) -> list[Problem]:
    """Project checks of a spec that has type errors, in the same pass as those errors.

    Each run block, judge and the panel is checked without its badly typed fields, so that an
    unknown task or panel member is reported beside a wrong type in the same block; problems
    under a field with a type error are left out (the type error says what is wrong there).
    """
    raw_runs: list[Any] = raw["runs"] if isinstance(raw.get("runs"), list) else []
    raw_judges: list[Any] = raw["judges"] if isinstance(raw.get("judges"), list) else []
    salvaged: dict[tuple[PathPart, ...], _Salvaged] = {}
    salvaged.update({("runs", i): _salvage(RunBlock, item) for i, item in enumerate(raw_runs)})
    salvaged.update({("judges", i): _salvage(Judge, item) for i, item in enumerate(raw_judges)})
    if raw.get("panel") is not None:
        salvaged[("panel",)] = _salvage(Panel, raw["panel"])
    parts = {where: s.part for where, s in salvaged.items() if s.part is not None}
    runs = [(int(where[1]), part) for where, part in parts.items() if where[0] == "runs"]
    judges = [(int(where[1]), part) for where, part in parts.items() if where[0] == "judges"]
    panel = parts.get(("panel",))
    # The checks across parts (a judged task somewhere, panel members) need every block's tasks
    # and every judge's name.
    complete = (
        len(runs) == len(raw_runs)
        and len(judges) == len(raw_judges)
        and all(block.tasks for _, block in runs)
        and all(judge.name for _, judge in judges)
    )
    bad = [(*where, name) for where, s in salvaged.items() for name in s.bad]
    raw_audits: list[Any] = raw["audits"] if isinstance(raw.get("audits"), list) else []
    audits = [(i, audit) for i, item in enumerate(raw_audits) if (audit := _valid(Audit, item)) is not None]
    problems = check_parts(
        base_dir,
        runs=runs,
        judges=judges,
        panel=panel,
        data=raw.get("data") if isinstance(raw.get("data"), str) else None,
        human=_valid_human(raw.get("human")),
        complete=complete,
        audits=audits,
    )
    return [p for p in problems if not any(p.path[: len(b)] == b for b in bad)]


def _valid_human(raw: Any) -> HumanScores | list[HumanScores] | None:
    """The well-typed human scores entries of a spec with type errors (a bad entry is reported already)."""
    if raw is None:
        return None
    given = human_shorthand(raw)
    if isinstance(given, list):
        return [entry for item in given if (entry := _valid(HumanScores, item)) is not None]
    return _valid(HumanScores, given)


def _resolve_data(data: str | None, base_dir: Path) -> str | None:
    if data is None or data in BUILTIN_DATA or is_url(data):
        return data
    return str((base_dir / data).resolve())


def _log_dir_problem(log_dir: Path) -> Problem | None:
    """A log folder that cannot be one: it, or a folder on its way, is an existing file."""
    for candidate in (log_dir, *log_dir.parents):
        if candidate.exists():
            if candidate.is_dir():
                return None
            what = "is a file" if candidate == log_dir else f"is inside {candidate}, which is a file"
            return Problem(("log_dir",), f"{log_dir} {what}, not a folder; log_dir names the folder of logs")
    return None


def load_spec(path: str | Path, *, log_dir: str | Path | None = None) -> LoadedSpec:
    """Read and validate a spec file.

    Args:
        path: The YAML spec.
        log_dir: Use this log folder instead of the spec's ``log_dir`` (relative to the current
            folder, as a command-line option is).

    Returns:
        The spec with resolved paths.

    Raises:
        SpecError: The spec has problems; the message lists each with its YAML path and line.
    """
    source = read_yaml(path)
    base_dir = source.path.resolve().parent
    try:
        spec = Spec.model_validate(source.data)
    except ValidationError as error:
        problems = _type_problems(error, source.data)
        seen = {(p.path, p.message) for p in problems}
        problems += [p for p in _part_problems(source.data, base_dir) if (p.path, p.message) not in seen]
    else:
        problems = check_spec(spec, base_dir)
    # Credentials anywhere, whatever the types, in the same pass (one message per place). A
    # credential's own problem replaces any other at or below its place (a type error would quote
    # the value), and no other message may quote a refused value either.
    scan = scan_credentials(source.data, str(source.path))
    refused = {p.path for p in scan.problems}
    problems = [
        *scan.problems,
        *(
            Problem(p.path, without_values(redact(p.message), scan.values), p.line)
            for p in problems
            if not under(p.path, refused)
        ),
    ]
    # a --log-dir option is relative to the current folder, the spec's log_dir to the spec
    raw_log_dir = source.data.get("log_dir")
    resolved_log_dir = (
        Path(log_dir).resolve()
        if log_dir is not None
        else (base_dir / raw_log_dir).resolve()
        if isinstance(raw_log_dir, str)
        else None
    )
    bad_log_dir = _log_dir_problem(resolved_log_dir) if resolved_log_dir is not None else None
    if bad_log_dir is not None:
        problems = [*problems, bad_log_dir]
    if problems:
        located = [Problem(p.path, p.message, p.line or source.line(p.path)) for p in problems]
        raise SpecError(located, str(path))
    humans = tuple(
        ((base_dir / entry.file).resolve(), entry.generation) for _, entry in human_entries(spec.human)
    )
    return LoadedSpec(
        spec=spec,
        source=source.path.resolve(),
        log_dir=resolved_log_dir if resolved_log_dir is not None else (base_dir / spec.log_dir).resolve(),
        data=_resolve_data(spec.data, base_dir),
        human=humans[0][0] if humans else None,
        human_generation=humans[0][1] if humans else None,
        humans=humans,
        notes=tuple(Problem(n.path, n.message, source.line(n.path)).render(str(path)) for n in scan.notes),
    )
