"""Preflight of ``vivid run``: one cheap request per model endpoint before anything is generated.

A dead endpoint, a wrong key or a misspelt model name would otherwise surface only after every
call of a cell has used its retries. Before generating, ``vivid run`` sends one request to each
distinct endpoint that still has calls to make (a model listing, ``GET {base_url}/models``),
for generators and judges alike, and stops with every problem at its YAML path when one fails:

- no connection (refused, DNS failure, no answer within :data:`CONNECT_TIMEOUT`);
- HTTP 401/403 (a wrong, revoked or missing key) and 404 (no such route: a wrong ``base_url``);
- a model the endpoint does not list (OpenAI-compatible servers).

A spec whose cells are all done sends no request at all. Providers with no cheap request are
checked as far as they can be without loading a model: creating their model already proved
that the package is installed and the key is set. ``--no-preflight`` skips the check.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import httpx
from inspect_ai.model import Model

from vivid_inspect.call_errors import describe_failure, public_url
from vivid_inspect.runner.cells import resolved_model, split_model_args
from vivid_inspect.runner.prepare.models import Models, model_key
from vivid_inspect.runner.spec.load import LoadedSpec
from vivid_inspect.runner.spec.problems import PathPart, Problem, SetupError, format_path

if TYPE_CHECKING:
    from vivid_inspect.runner.plan import Plan

CONNECT_TIMEOUT = 5.0
"""Seconds to open a connection to an endpoint."""

READ_TIMEOUT = 15.0
"""Seconds for the listing to arrive."""

OFFLINE_PROVIDERS = frozenset({"mockllm", "vivid", "none"})
"""Providers that call no endpoint: nothing to check."""

LOCAL_PROVIDERS = frozenset({"hf", "vllm", "sglang", "transformer_lens", "llama-cpp-python"})
"""Providers that can run the model in this process or start its server: without a
``base_url`` there is no endpoint to ask before Inspect loads the model."""

ANTHROPIC_VERSION = "2023-06-01"
_ENV_REFERENCE = re.compile(r"^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$")


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


@dataclass(frozen=True)
class Probe:
    """The one request that checks an endpoint."""

    url: str
    headers: tuple[tuple[str, str], ...]
    lists_models: bool  # whether a model missing from the listing cannot be called


@dataclass
class Outcome:
    """What an endpoint's request found."""

    problem: str | None = None
    listed: set[str] | None = None
    note: str | None = None


@dataclass
class Preflight:
    """The result of a passed check: what was asked, and notes on what could not be."""

    checked: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def provider(name: str) -> str:
    """The provider part of ``provider/model``."""
    return name.split("/", 1)[0]


def _from_env(value: str) -> str:
    # A spec's header value `${env:NAME}` is read from the environment when a request is sent
    # (runner/spec/credentials.py does it for the model's own client); the probe does the same.
    match = _ENV_REFERENCE.match(value.strip())
    return os.environ.get(match.group(1), value) if match else value


def _sent_name(model: Model) -> str:
    # openai-api/<service>/<model> sends the model without its service prefix
    api = model.api
    service_name = getattr(api, "service_model_name", None)
    return str(service_name() if callable(service_name) else api.model_name)


def probe_for(target: Target) -> Probe | str | None:
    """The request that checks a target's endpoint.

    Args:
        target: The model.

    Returns:
        The probe; a reason when the endpoint cannot be checked cheaply; None for providers
        that call no endpoint.
    """
    kind = provider(target.name)
    if kind in OFFLINE_PROVIDERS:
        return None
    api = target.model.api
    client: Any = getattr(api, "client", None)  # the provider SDK's client, duck-typed
    client_class = type(client).__name__
    if client_class == "AsyncOpenAI":
        headers = {k: _from_env(v) for k, v in client.default_headers.items() if isinstance(v, str)}
        if client.api_key:
            headers["Authorization"] = f"Bearer {client.api_key}"
        url = str(client.base_url).rstrip("/") + "/models"
        return Probe(url, tuple(sorted(headers.items())), lists_models=True)
    if client_class == "AsyncAnthropic":
        headers = {"anthropic-version": ANTHROPIC_VERSION}
        if client.api_key:
            headers["x-api-key"] = client.api_key
        url = str(client.base_url).rstrip("/") + "/v1/models"
        # aliases such as claude-sonnet-4-0 are callable but not listed: check the key only
        return Probe(url, tuple(sorted(headers.items())), lists_models=False)
    base_url = target.base_url or (os.environ.get("VLLM_BASE_URL") if kind == "vllm" else None)
    if kind in ("vllm", "sglang") and base_url:
        headers = {"Authorization": f"Bearer {api.api_key}"} if api.api_key else {}
        return Probe(base_url.rstrip("/") + "/models", tuple(sorted(headers.items())), lists_models=True)
    if kind in LOCAL_PROVIDERS:
        return f"{target.name}: not checked (the model runs on this machine, and is loaded only when the run starts)"
    return f"{target.name}: not checked (no cheap request for provider {kind!r}); the model was created"


def _listed(body: object) -> set[str] | None:
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, list):
        return None
    return {str(item["id"]) for item in data if isinstance(item, dict) and "id" in item}


def _message(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text.strip()[:200]
    inner = body.get("error", body) if isinstance(body, dict) else body
    message = inner.get("message") if isinstance(inner, dict) else None
    return str(message or inner)[:200]


def ask(client: httpx.Client, probe: Probe) -> Outcome:
    """Send one probe and judge the answer.

    Args:
        client: The HTTP client (short timeouts).
        probe: The request.

    Returns:
        A problem for a failure that would fail every call, else the models listed (if any)
        and a note when the answer was unexpected but not conclusive.
    """
    url = public_url(probe.url)
    try:
        response = client.get(probe.url, headers=dict(probe.headers))
    except httpx.TimeoutException:
        return Outcome(problem=f"no answer from {url} within {READ_TIMEOUT:g} s")
    except httpx.HTTPError as error:
        return Outcome(problem=describe_failure(error, url))
    status = response.status_code
    if status in (401, 403):
        return Outcome(
            problem=f"HTTP {status} from {url}: {_message(response)} (check the API key in the environment)"
        )
    if status == 404:
        return Outcome(
            problem=f"HTTP 404 from {url}: {_message(response)} (is base_url right? It usually ends in /v1)"
        )
    if status >= 400:
        return Outcome(
            note=f"{url} answered HTTP {status} ({_message(response)}); the run will retry its calls"
        )
    try:
        body = response.json()
    except ValueError:
        return Outcome()
    return Outcome(listed=_listed(body) if probe.lists_models else None)


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


def check(found: Sequence[Target], source: str | None = None) -> Preflight:
    """Check every target's endpoint with one request per distinct endpoint.

    Args:
        found: The models to check (:func:`targets`).
        source: The spec file, for messages.

    Returns:
        What was checked, with notes on what could not be.

    Raises:
        PreflightError: One problem per model whose endpoint failed, at its YAML path.
    """
    result = Preflight()
    probes: dict[Probe, list[Target]] = {}
    for target in found:
        probe = probe_for(target)
        if isinstance(probe, Probe):
            probes.setdefault(probe, []).append(target)
        elif probe is not None:
            result.notes.append(f"{format_path(target.path)}: {probe}")
    problems: list[Problem] = []
    timeout = httpx.Timeout(READ_TIMEOUT, connect=CONNECT_TIMEOUT)
    with httpx.Client(timeout=timeout, follow_redirects=True) as client:
        for probe, group in probes.items():
            outcome = ask(client, probe)
            result.checked.append(public_url(probe.url))
            if outcome.note:
                result.notes.append(outcome.note)
            problems += _problems(group, outcome, probe)
    if problems:
        raise PreflightError(problems, source)
    return result


def _problems(group: Iterable[Target], outcome: Outcome, probe: Probe) -> list[Problem]:
    problems = []
    for target in group:
        if outcome.problem:
            problems.append(Problem(target.path, f"{target.name}: {outcome.problem}"))
            continue
        name = _sent_name(target.model)
        if outcome.listed is not None and name not in outcome.listed:
            shown = ", ".join(sorted(outcome.listed)[:8]) or "none"
            more = f" and {len(outcome.listed) - 8} more" if len(outcome.listed) > 8 else ""
            problems.append(
                Problem(
                    target.path,
                    f"{target.name}: model {name!r} not found: {public_url(probe.url)} lists {shown}{more}",
                )
            )
    return problems


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
        "  A refused connection, a DNS failure, HTTP 401/403/404 or an unlisted model stops the run "
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
    from vivid_inspect.runner.plan import make_plan

    found = targets(loaded, models, make_plan(loaded))
    return check(found, str(loaded.source)) if found else Preflight()
