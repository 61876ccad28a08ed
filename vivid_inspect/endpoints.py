"""Does a model's endpoint answer? One cheap request, the check shared by the tasks and ``vivid run``.

A dead endpoint, a wrong key or a misspelt model name would otherwise surface only after every
call has used its retries (about a minute per sample against a closed port). One request to the
endpoint (a model listing, ``GET {base_url}/models``) finds each of these in seconds:

- no connection (refused, DNS failure, nothing within `CONNECT_TIMEOUT`) or no answer
  within `READ_TIMEOUT`;
- HTTP 401/403 (a wrong, revoked or missing key), 404 (no such route: a wrong ``base_url``) and
  5xx (a failing server);
- a model the endpoint does not list (OpenAI-compatible servers).

``vivid run``'s preflight (`vivid_inspect.lab.runner.prepare.preflight`) asks each endpoint of a
spec once; the tasks ask the endpoints of the models they will call when ``inspect eval`` builds
them (`vivid_inspect.task_start`). The request is never retried and waits no longer than the
user's ``timeout`` or ``attempt_timeout`` when one is shorter than ours, so a flag such as
``--timeout 5`` or ``--max-retries 0`` is never outdone by the check.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
from inspect_ai.model import GenerateConfig, Model

from vivid_inspect.call_errors import describe_failure, public_url
from vivid_inspect.redact import redact

CONNECT_TIMEOUT = 5.0
"""Seconds to open a connection to an endpoint."""

READ_TIMEOUT = 15.0
"""Seconds for the listing to arrive."""

RECENT = 30.0
"""Seconds an endpoint that answered is not asked again within one scope (the task-start check's:
one eval, whose tasks are built within seconds of each other; one request per endpoint is enough)."""

OFFLINE_PROVIDERS = frozenset({"mockllm", "vivid", "none"})
"""Providers that call no endpoint: nothing to check."""

LOCAL_PROVIDERS = frozenset({"hf", "vllm", "sglang", "transformer_lens", "llama-cpp-python"})
"""Providers that can run the model in this process or start its server: without a
``base_url`` there is no endpoint to ask before Inspect loads the model."""

ANTHROPIC_VERSION = "2023-06-01"
_ENV_REFERENCE = re.compile(r"^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$")
_MAX_MESSAGE = 200


@dataclass(frozen=True)
class Probe:
    """The one request that checks an endpoint."""

    url: str
    headers: tuple[tuple[str, str], ...]
    lists_models: bool  # whether a model missing from the listing cannot be called


@dataclass
class Outcome:
    """What an endpoint's request found.

    Attributes:
        problem: Why every call to the endpoint would fail; None when it answered.
        listed: The models it lists (OpenAI-compatible listings), if it lists them.
        note: An answer that was unexpected but not conclusive (a 429, another 4xx).
        doubtful: Whether the problem may lie with the check rather than the calls: a server that
            serves chat but no model listing (404), or lists slowly (no answer in time).
    """

    problem: str | None = None
    listed: set[str] | None = None
    note: str | None = None
    doubtful: bool = False


def provider(name: str) -> str:
    """The provider part of ``provider/model``."""
    return name.split("/", 1)[0]


def _from_env(value: str) -> str:
    # A spec's header value `${env:NAME}` is read from the environment when a request is sent
    # (runner/spec/credentials.py does it for the model's own client); the probe does the same.
    match = _ENV_REFERENCE.match(value.strip())
    return os.environ.get(match.group(1), value) if match else value


def sent_name(model: Model) -> str:
    """The model name a provider sends (``openai-api/<service>/<model>`` sends ``<model>``)."""
    api = model.api
    service_name = getattr(api, "service_model_name", None)
    return str(service_name() if callable(service_name) else api.model_name)


def probe_for(name: str, model: Model, base_url: str | None = None) -> Probe | str | None:
    """The request that checks a model's endpoint.

    Args:
        name: The model as the user named it (``openai/gpt-4o``).
        model: The created model.
        base_url: The base URL given with the model, if any (``vllm`` and ``sglang`` servers).

    Returns:
        The probe; a reason when the endpoint cannot be checked cheaply; None for providers
        that call no endpoint.
    """
    kind = provider(name)
    if kind in OFFLINE_PROVIDERS:
        return None
    api = model.api
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
    base_url = base_url or (os.environ.get("VLLM_BASE_URL") if kind == "vllm" else None)
    if kind in ("vllm", "sglang") and base_url:
        headers = {"Authorization": f"Bearer {api.api_key}"} if api.api_key else {}
        return Probe(base_url.rstrip("/") + "/models", tuple(sorted(headers.items())), lists_models=True)
    if kind in LOCAL_PROVIDERS:
        return f"{name}: not checked (the model runs on this machine, and is loaded only when the run starts)"
    return f"{name}: not checked (no cheap request for provider {kind!r}); the model was created"


def probe_timeout(*configs: GenerateConfig | None) -> float:
    """Seconds the probe may wait for its answer: `READ_TIMEOUT`, or less when asked.

    Args:
        configs: The generation options of the calls the probe stands for (the command line's,
            a role's or a spec's); the shortest ``timeout`` or ``attempt_timeout`` among them wins
            when it is shorter than `READ_TIMEOUT`.

    Returns:
        The seconds, above zero.
    """
    limits = [
        float(value)
        for config in configs
        if config is not None
        for value in (config.timeout, config.attempt_timeout)
        if value is not None and value > 0
    ]
    return min([READ_TIMEOUT, *limits])


def _listed(body: object) -> set[str] | None:
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, list):
        return None
    return {str(item["id"]) for item in data if isinstance(item, dict) and "id" in item}


def _message(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return redact(" ".join(response.text.split())[:_MAX_MESSAGE])
    inner = body.get("error", body) if isinstance(body, dict) else body
    message = inner.get("message") if isinstance(inner, dict) else None
    return redact(" ".join(str(message or inner).split())[:_MAX_MESSAGE])


def ask(client: httpx.Client, probe: Probe, wait: float = READ_TIMEOUT) -> Outcome:
    """Send one probe and judge the answer.

    Args:
        client: The HTTP client.
        probe: The request.
        wait: Seconds for the answer (`probe_timeout`); the connection gets at most
            `CONNECT_TIMEOUT` of them.

    Returns:
        A problem for a failure that would fail every call, else the models listed (if any)
        and a note when the answer was unexpected but not conclusive.
    """
    try:
        url = public_url(probe.url)
    except ValueError as error:  # urlsplit refuses it ("Invalid IPv6 URL")
        return Outcome(problem=f"cannot send a request to {redact(probe.url)}: {error}")
    connect = min(CONNECT_TIMEOUT, wait)
    try:
        response = client.get(
            probe.url, headers=dict(probe.headers), timeout=httpx.Timeout(wait, connect=connect)
        )
    except httpx.ConnectTimeout:
        return Outcome(problem=f"no connection to {url} within {connect:g} s")
    except httpx.TimeoutException:
        return Outcome(problem=f"no answer from {url} within {wait:g} s", doubtful=True)
    except httpx.HTTPError as error:
        return Outcome(problem=describe_failure(error, url))
    except httpx.InvalidURL as error:  # a URL httpx cannot even send to
        return Outcome(problem=f"cannot send a request to {url}: {redact(str(error))}")
    status = response.status_code
    if status in (401, 403):
        return Outcome(
            problem=f"HTTP {status} from {url}: {_message(response)} (check the API key in the environment)"
        )
    if status == 404:
        return Outcome(
            problem=f"HTTP 404 from {url}: {_message(response)} (is base_url right? It usually ends in /v1)",
            doubtful=True,
        )
    if status >= 500:
        return Outcome(problem=f"HTTP {status} from {url}: {_message(response)} (the server is failing)")
    if status >= 400:
        return Outcome(note=f"{url} answered HTTP {status} ({_message(response)}); the calls will be retried")
    try:
        body = response.json()
    except ValueError:
        return Outcome()
    return Outcome(listed=_listed(body) if probe.lists_models else None)


def unlisted(model: Model, outcome: Outcome, probe: Probe) -> str | None:
    """Why a model cannot be called at an endpoint that answered: its name is not in the listing.

    Args:
        model: The model.
        outcome: The endpoint's answer.
        probe: The request that got it.

    Returns:
        The problem, or None when the model is listed or the endpoint lists nothing.
    """
    name = sent_name(model)
    if outcome.listed is None or name in outcome.listed:
        return None
    shown = ", ".join(sorted(outcome.listed)[:8]) or "none"
    more = f" and {len(outcome.listed) - 8} more" if len(outcome.listed) > 8 else ""
    return f"model {name!r} not found: {public_url(probe.url)} lists {shown}{more}"


_answered: dict[Probe, tuple[float, object, Outcome]] = {}


def ask_each(probes: Iterable[tuple[Probe, float]], *, scope: object | None = None) -> dict[Probe, Outcome]:
    """Ask each distinct endpoint once.

    Args:
        probes: Each probe with the seconds it may wait; a probe given twice is sent once, with
            the shorter wait.
        scope: Reuse the answer of an endpoint that answered in this same scope (an object
            compared by identity: the task-start check passes the eval's model roles, so the tasks
            of one eval share their requests and the next eval asks afresh), less than
            `RECENT` seconds ago. None (``vivid run``) always asks. A failure is never reused.

    Returns:
        Each probe's outcome.
    """
    waits: dict[Probe, float] = {}
    for probe, wait in probes:
        waits[probe] = min(wait, waits.get(probe, wait))
    outcomes: dict[Probe, Outcome] = {}
    now = time.monotonic()
    with httpx.Client(follow_redirects=True) as client:
        for probe, wait in waits.items():
            recent = _answered.get(probe) if scope is not None else None
            if recent is not None and recent[1] is scope and now - recent[0] < RECENT:
                outcomes[probe] = recent[2]
                continue
            outcome = outcomes[probe] = ask(client, probe, wait)
            if scope is None:
                continue
            if outcome.problem is None:
                _answered[probe] = (time.monotonic(), scope, outcome)
            else:
                _answered.pop(probe, None)
    return outcomes


@dataclass
class Checked:
    """What `check_models` found, by the index of each model in the list it was given.

    Attributes:
        problems: Why each failing model's calls would fail.
        unchecked: Why a model could not be checked cheaply (its provider has no cheap request).
        urls: The endpoints asked (credentials left out), in order.
        notes: Answers that were unexpected but not conclusive.
    """

    problems: dict[int, str] = field(default_factory=dict)
    unchecked: dict[int, str] = field(default_factory=dict)
    urls: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def check_models(
    models: Sequence[tuple[str, Model, str | None]], config: GenerateConfig | None = None
) -> Checked:
    """One request per distinct endpoint of some models (``vivid run``'s preflight, ``vivid audit``'s).

    Args:
        models: Each model's name, the created model and its ``base_url`` argument, if any.
        config: Run-wide generation options; a shorter ``timeout`` there or in a model's own config
            shortens the wait (`probe_timeout`).

    Returns:
        The problems found, by index into ``models``.
    """
    checked = Checked()
    probes: dict[Probe, list[int]] = {}
    for index, (name, model, base_url) in enumerate(models):
        probe = probe_for(name, model, base_url)
        if isinstance(probe, Probe):
            probes.setdefault(probe, []).append(index)
        elif probe is not None:
            checked.unchecked[index] = probe
    outcomes = ask_each(
        (probe, probe_timeout(config, models[index][1].config))
        for probe, group in probes.items()
        for index in group
    )
    for probe, group in probes.items():
        outcome = outcomes[probe]
        checked.urls.append(public_url(probe.url))
        if outcome.note:
            checked.notes.append(outcome.note)
        for index in group:
            reason = outcome.problem or unlisted(models[index][1], outcome, probe)
            if reason:
                checked.problems[index] = reason
    return checked
