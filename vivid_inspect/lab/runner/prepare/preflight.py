"""Preflight of ``vivid run``: one cheap request per model endpoint before anything is generated.

Before generating, ``vivid run`` sends one request to each distinct endpoint that still has calls
to make, for generators and judges alike, and stops with every problem at its YAML path when one
fails. The request and what counts as a failure (no connection or answer, HTTP 401/403/404/5xx, a
model the endpoint does not list) are `vivid_inspect.endpoints`, the check the tasks make
when ``inspect eval`` builds them. The spec's ``retries: {timeout, attempt_timeout}`` (and a
judge's ``generate:``) shorten the wait when they are shorter than the check's own.

A spec whose cells are all done sends no request at all. Providers with no cheap request are
checked as far as they can be without loading a model: creating their model already proved
that the package is installed and the key is set. ``--no-preflight`` skips the check.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from inspect_ai.model import GenerateConfig, Model

from vivid_inspect.endpoints import OFFLINE_PROVIDERS, Probe, check_models, provider
from vivid_inspect.endpoints import probe_for as endpoint_probe
from vivid_inspect.lab.runner.cells import resolved_model, split_model_args
from vivid_inspect.lab.runner.plan import make_plan
from vivid_inspect.lab.runner.prepare.models import Models, generate_config, model_key
from vivid_inspect.lab.runner.spec.load import LoadedSpec
from vivid_inspect.lab.runner.spec.problems import PathPart, Problem, SetupError, format_path
from vivid_inspect.lab.runner.spec.yaml_source import with_lines

if TYPE_CHECKING:
    from vivid_inspect.lab.runner.plan import Plan


class PreflightError(SetupError):
    """Endpoints that failed their check; nothing has run."""

    what = ("model endpoint failed its check", "model endpoint checks failed")


@dataclass(frozen=True)
class Target:
    """A model of the spec whose calls are still to be made.

    Attributes:
        path: Its YAML path (``runs[0].models[1]``, ``judges[2]``).
        name: The model as the spec names it (``openai/gpt-4o``).
        model: The created model.
        base_url: ``model_args.base_url`` of the spec entry, if any.
    """

    path: tuple[PathPart, ...]
    name: str
    model: Model
    base_url: str | None = None


@dataclass
class Preflight:
    """The result of a passed check: what was asked, and notes on what could not be."""

    checked: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def probe_for(target: Target) -> Probe | str | None:
    """The request that checks a target's endpoint (`vivid_inspect.endpoints.probe_for`).

    Args:
        target: The model.

    Returns:
        The probe; a reason when the endpoint cannot be checked cheaply; None for providers
        that call no endpoint.
    """
    return endpoint_probe(target.name, target.model, target.base_url)


def targets(loaded: LoadedSpec, models: Models, plan: Plan) -> list[Target]:
    """The models of a spec whose cells still have calls to make, at their first YAML path.

    Args:
        loaded: The spec.
        models: Its created models.
        plan: Its plan (which cells are done).

    Returns:
        One target per distinct model; empty when every cell is done.
    """
    spec = loaded.spec
    waiting = {(cell.role, cell.model) for cell in plan.cells if not cell.done and cell.model}
    found: list[Target] = []
    seen: set[str] = set()
    for i, block in enumerate(spec.runs):
        for j, entry in enumerate(block.models):
            resolved = resolved_model(entry, loaded.data)
            key = model_key(resolved)
            if ("generation", entry.model) in waiting and key not in seen and key in models.generation:
                seen.add(key)
                base_url, _ = split_model_args(resolved.model_args)
                found.append(Target(("runs", i, "models", j), entry.model, models.generation[key], base_url))
    for i, judge in enumerate(spec.judges):
        # A judge is checked when its judge cells or an audit of it (which calls the same model) wait.
        calls = ("judge", judge.model) in waiting or ("audit", judge.model) in waiting
        if judge.model and calls and judge.name in models.judges:
            base_url = judge.model_args.get("base_url")
            found.append(Target(("judges", i), judge.model, models.judges[judge.name], base_url))
    return found


def check(
    found: Sequence[Target], source: str | None = None, config: GenerateConfig | None = None
) -> Preflight:
    """Check every target's endpoint with one request per distinct endpoint.

    Args:
        found: The models to check (`targets`).
        source: The spec file, for messages.
        config: The spec-wide generation options; a ``timeout`` or ``attempt_timeout`` there or
            in a model's own config shortens the wait (`vivid_inspect.endpoints.probe_timeout`).

    Returns:
        What was checked, with notes on what could not be.

    Raises:
        PreflightError: One problem per model whose endpoint failed, at its YAML path.
    """
    checked = check_models([(t.name, t.model, t.base_url) for t in found], config)
    result = Preflight(checked=checked.urls, notes=checked.notes)
    result.notes[:0] = [f"{format_path(found[i].path)}: {why}" for i, why in checked.unchecked.items()]
    problems = [
        Problem(found[i].path, f"{found[i].name}: {why}") for i, why in sorted(checked.problems.items())
    ]
    if problems:
        raise PreflightError(with_lines(source, problems) if source else problems, source)
    return result


def planned(plan: Plan) -> list[str]:
    """What ``vivid run`` would check before generating, for ``vivid plan`` (nothing is sent).

    Args:
        plan: The plan.

    Returns:
        Lines of text: the models whose endpoints would be asked, or why none would be.
    """
    waiting = sorted({(c.role, c.model) for c in plan.cells if not c.done and c.model})
    remote = [(role, name) for role, name in waiting if provider(name) not in OFFLINE_PROVIDERS]
    if not remote:
        return ["  none: no cell still to run calls a model endpoint"]
    lines = [f"  {name} ({role}): one request (a model listing) to its endpoint" for role, name in remote]
    lines.append(
        "  A refused connection, a DNS failure, no answer, HTTP 401/403/404/5xx or an unlisted model stops the run "
        "before anything is generated (exit 1); --no-preflight skips the check."
    )
    return lines


def run_preflight(loaded: LoadedSpec, models: Models) -> Preflight:
    """Check the endpoints of every model that still has calls to make; none when all is done.

    Args:
        loaded: The spec.
        models: Its created models.

    Returns:
        What was checked, with notes.

    Raises:
        PreflightError: An endpoint failed (nothing has run).
    """
    # imported here: the plan reads logs, which only a check needs

    found = targets(loaded, models, make_plan(loaded))
    return check(found, str(loaded.source), generate_config(loaded.spec, {})) if found else Preflight()
