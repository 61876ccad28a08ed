"""Credentials never live in a spec: refused where written, and read from the environment at call time.

Everything in a spec is copied into ``spec.resolved.yaml``, ``eval-set.json`` and every log
header, so a secret written there would be written everywhere. `scan_credentials` walks the
whole parsed YAML (mappings and lists at any depth, every string) and refuses:

- a key that names a credential (`vivid_inspect.redact.credential_name`: ``api_key``,
  ``token_value``, ``private_key``, ``client_secret``, ``password``, ``auth``, ``bearer``,
  ``Authorization``, ``X-API-Key``, ``Cookie``, ``key`` in a query, ...), unless its value is a
  placeholder or an environment reference; a credential-ish key (``cache_key``, ``session_id``)
  whose value looks random;
- a value shaped like a key or token (`vivid_inspect.redact.KEY_SHAPES`: ``sk-``,
  ``sk-ant-``, ``AIza``, ``AKIA``/``ASIA``, ``ghp_``/``gho_``/``github_pat_``, ``xox?-``,
  ``hf_``, JWTs, PEM private keys) anywhere in a string, and a ``Bearer``/``Basic`` credential;
- a URL with user information (``https://user:key@host``, ``https://TOKEN@host``) or with a
  credential in its query string (``?key=``, ``api_key=``, ``token=``, ``sig=``);
- by shape, whatever its name (`vivid_inspect.redact.secret_shaped`): a key-shaped query
  value, fragment or path segment of any URL (Azure Functions' ``?code=``), and a key-shaped
  value in a query, header or environment mapping (``default_query: {code: ...}``). Its
  exemptions keep names and paths working: words joined by ``-``, ``_`` or ``.``, and
  hexadecimal ids in paths (a Hugging Face snapshot folder, so a llama.cpp model id that is a
  cache path is never touched: model names are not URLs and are never judged by shape).

A placeholder is never refused (one rule with redaction,
`vivid_inspect.redact.placeholder_reason`: a value under 16 characters, a known
placeholder such as ``ollama`` or ``EMPTY``, or a value that occurs in the spec's own model
names, service names or paths); `scan_credentials` says in one line where it let one pass.
No message quotes a refused value.

A gateway that needs a header gets it from the environment instead: the header's value is
``"${env:NAME}"``. That placeholder is what the spec, the logs and ``eval-set.json`` hold; the
HTTP transport of the model's client (`env_header_client`) puts the variable's value in
the request as it is sent, after Inspect's own request hooks, so nothing that records a request
sees it. Provider error bodies that echo it are redacted (`vivid_inspect.redact` learns the
variable's name through `vivid_inspect.redact.add_secret_names`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

import httpx

from vivid_inspect.lab.runner.spec.problems import PathPart, Problem
from vivid_inspect.redact import (
    REDACTED,
    PublicText,
    add_secret_names,
    credential_name,
    key_shapes,
    looks_random,
    name_parts,
    placeholder_reason,
    placeholder_variables,
    secret_shaped,
)

ENV_REFERENCE = re.compile(r"^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$")
"""A header value that names an environment variable: ``${env:MY_GATEWAY_KEY}``."""

_AUTH_SCHEME = re.compile(r"(?i)^(bearer|basic|token)\s+(\S+)$")
_BEARER_IN_TEXT = re.compile(r"(?i)\bbearer\s+([A-Za-z0-9._~+/=-]{4,})")
_URL = re.compile(r"(?i)\b[a-z][a-z0-9+.-]*://[^\s\"'<>]+")
_HINT = (
    "credentials are never written in a spec (it is copied into spec.resolved.yaml, "
    "eval-set.json and every log): put the value in an environment variable and write "
    '"${env:NAME}" as the header value (a key sent in a query string can go in a header too, '
    'e.g. x-goog-api-key: "${env:GOOGLE_API_KEY}"), or use the provider\'s own variable '
    "(e.g. OPENAI_API_KEY)"
)


# Mappings whose values are sent or exported under names this check cannot know (Azure Functions'
# `code`): default_query, extra_query, params, default_headers, extra_headers, env, environment,
# extra_body. Every value and every name at any depth below one is judged by its shape.
_VALUE_MAPPINGS = (["query"], ["params"], ["headers"], ["env"], ["environment"], ["variables"], ["body"])
# user:password@host without a scheme: `//user:KEY@host`, or `user:KEY@host` followed by a port or
# a path (so that `mailto:first.last@example.org` and prose are not taken for one)
_BARE_USERINFO = re.compile(
    r"(?<![A-Za-z0-9+.-])(?://[^\s/@:\"'<>]+:([^\s@/\"'<>]+)@"
    r"|(?!mailto:)[A-Za-z0-9._~%!$&'()*+,;=-]+:([^\s@/\"'<>]+)@[A-Za-z0-9.-]+(?::[0-9]+|/))"
)


def _value_mapping(path: tuple[PathPart, ...]) -> str | None:
    """The nearest mapping above the leaf of ``path`` whose values are judged by shape."""
    for part in reversed(path[:-1]):
        if isinstance(part, str) and name_parts(part)[-1:] in _VALUE_MAPPINGS:
            return part
    return None


# Where a ${env:NAME} value is resolved: the header mappings the model's HTTP client sends.
_HEADER_MAPPINGS = (("model_args", "default_headers"), ("generate", "extra_headers"))
_NOT_A_HEADER = (
    '"${env:NAME}" is resolved only as a header value (model_args.default_headers or '
    "generate.extra_headers); anywhere else it would be sent as it is written: send the key as a "
    "header, or use the provider's own variable (e.g. OPENAI_API_KEY)"
)


def _is_header(path: tuple[PathPart, ...]) -> bool:
    return len(path) >= 3 and tuple(path[-3:-1]) in _HEADER_MAPPINGS


@dataclass(frozen=True)
class CredentialScan:
    """What `scan_credentials` found in a spec.

    Attributes:
        problems: One per place that holds a credential (never quoting it).
        notes: One per placeholder let through under a credential's name (rendered as one line).
        values: The refused values, to be kept out of every other message about the spec.
    """

    problems: list[Problem]
    notes: list[Problem]
    values: frozenset[str]


def _walk(data: Any, path: tuple[PathPart, ...]) -> Iterator[tuple[tuple[PathPart, ...], Any, Any]]:
    """Every (path, key, value) of mappings and lists below ``data``; the key is None in lists."""
    if isinstance(data, Mapping):
        for key, value in data.items():
            yield (*path, str(key)), key, value
            yield from _walk(value, (*path, str(key)))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield (*path, index), None, value
            yield from _walk(value, (*path, index))


def _model_names(data: Any) -> list[tuple[tuple[PathPart, ...], str]]:
    """Every model name of a spec with its YAML path."""
    names: list[tuple[tuple[PathPart, ...], str]] = []
    runs = data.get("runs") if isinstance(data, Mapping) else None
    for i, block in enumerate(runs if isinstance(runs, list) else []):
        models = block.get("models") if isinstance(block, Mapping) else None
        for j, entry in enumerate(models if isinstance(models, list) else []):
            if isinstance(entry, Mapping) and isinstance(entry.get("model"), str):
                names.append((("runs", i, "models", j, "model"), entry["model"]))
            elif isinstance(entry, str):
                names.append((("runs", i, "models", j), entry))
    judges = data.get("judges") if isinstance(data, Mapping) else None
    for i, judge in enumerate(judges if isinstance(judges, list) else []):
        if isinstance(judge, Mapping) and isinstance(judge.get("model"), str):
            names.append((("judges", i, "model"), judge["model"]))
    return names


def _texts_at(data: Any) -> list[tuple[tuple[PathPart, ...], str]]:
    """The spec's own model names, their parts and its paths, each with where it is written."""
    texts: list[tuple[tuple[PathPart, ...], str]] = []
    for path, name in _model_names(data):
        texts += [(path, name), *((path, part) for part in name.split("/"))]
    if isinstance(data, Mapping):
        human = data.get("human")
        human_at: tuple[PathPart, ...] = ("human", "file") if isinstance(human, Mapping) else ("human",)
        human_file = human.get("file") if isinstance(human, Mapping) else human
        for path, value in (
            (("log_dir",), data.get("log_dir")),
            (("data",), data.get("data")),
            (human_at, human_file),
        ):
            if isinstance(value, str):
                texts.append((path, _without_credentials(value)))
    return [(path, text) for path, text in texts if text]


def spec_texts(data: Any, source: str | None = None) -> list[str]:
    """The spec's own model names, service names and paths: what a placeholder may be part of.

    Args:
        data: The spec as parsed from YAML.
        source: The spec file's path.

    Returns:
        Every model name, each name's parts (the service of ``openai-api/<service>/<model>``),
        ``log_dir``, ``data``, the human scores file and the spec file.
    """
    return [text for _, text in _texts_at(data)] + ([source] if source else [])


def _without_credentials(path: str) -> str:
    """A path, or a URL without its user information and query (which may hold the very key)."""
    if "://" not in path:
        return path
    try:
        parts = urlsplit(path)
    except ValueError:
        return ""
    return f"{parts.scheme}://{parts.hostname or ''}{parts.path}"


class _Elsewhere(PublicText):
    """The spec's texts written anywhere but at one place: a value is never its own placeholder."""

    def __init__(self, everything: PublicText, own: list[str]) -> None:
        self.joined = everything.joined
        self._own = [text.casefold() for text in own]

    def holds(self, folded: str) -> bool:
        return self.joined.count(folded) > sum(text.count(folded) for text in self._own)


def _url_problem(url: str, public: PublicText) -> str | None:
    try:
        parts = urlsplit(url.strip())
        query = parse_qsl(parts.query, keep_blank_values=True)
    except ValueError:
        return None
    # as written too: parse_qsl reads "+" as a space, which splits a base64 key in two
    for item in re.split("[&;]", parts.query):
        name, _, value = item.partition("=")
        if any(
            secret_shaped(text, query=True, name=name) and placeholder_reason(unquote(text), public) is None
            for text in (name, value)
            if text
        ):
            return "a URL whose query string holds a key-shaped name or value"
    if "@" in parts.netloc:
        user, _, password = parts.netloc.rpartition("@")[0].partition(":")
        secret = password or user
        if secret and placeholder_reason(secret, public) is None:
            return "a URL with user:password@ (or a token@) carries a credential"
    for name, value in query:
        kind = credential_name(name)
        if placeholder_reason(value, public) is not None or ENV_REFERENCE.match(value):
            continue
        if (
            kind == "credential"
            or (kind and looks_random(value))
            or secret_shaped(value, query=True, name=name)
        ):
            return f"a URL whose query parameter {name!r} carries a credential"
    if parts.fragment and placeholder_reason(parts.fragment, public) is None:
        fragment = [value for _, value in parse_qsl(parts.fragment, keep_blank_values=True)]
        if any(secret_shaped(value, query=True) for value in [parts.fragment, *fragment]):
            return "a URL whose fragment (#...) holds a key-shaped value"
    for segment in parts.path.split("/"):
        if secret_shaped(segment) and placeholder_reason(segment, public) is None:
            return "a URL with a key-shaped path segment"
    return None


def _value_problem(value: str, public: PublicText) -> tuple[str, list[str]] | None:
    """What credential a string holds, and the parts of it to keep out of messages."""
    shapes = key_shapes(value, public)
    if shapes:
        return f"the value holds {shapes[0][0]}", [found for _, found in shapes]
    scheme = _AUTH_SCHEME.match(value.strip())
    if scheme and placeholder_reason(scheme.group(2), public) is None:
        return f"the value is a {scheme.group(1).capitalize()} credential", [scheme.group(2)]
    for bearer in _BEARER_IN_TEXT.finditer(value):
        if placeholder_reason(bearer.group(1), public) is None:
            return "the value holds a bearer token", [bearer.group(1)]
    for url in _URL.findall(value):
        reason = _url_problem(url, public)
        if reason is not None:
            return reason, [url]
    for found in _BARE_USERINFO.finditer(value):
        password = found.group(1) or found.group(2)
        if placeholder_reason(password, public) is None:
            return "a URL-like user:password@host carries a credential", [password]
    return None


def _shaped(text: str, name: Any, public: PublicText) -> bool:
    """Whether a name or value in a query, header, environment or body mapping is key-shaped."""
    return (
        secret_shaped(text, query=True, name=name if isinstance(name, str) else None)
        and placeholder_reason(unquote(text), public) is None
    )


def _named_value(value: Any) -> str | None:
    """The text of a scalar under a credential's name (None for null and booleans)."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return str(value)
    return value if isinstance(value, str) else None


def scan_credentials(data: Any, source: str | None = None) -> CredentialScan:
    """Credentials written anywhere in a parsed spec, and placeholders let through.

    Args:
        data: The spec as parsed from YAML (any shape: this runs before type checks).
        source: The spec file, whose path is one of the texts a placeholder may be part of.

    Returns:
        The problems (one per place), the notes on placeholders and the refused values.
    """
    texts = _texts_at(data)
    everything = PublicText([*(text for _, text in texts), *([source] if source else [])])
    by_path: dict[tuple[PathPart, ...], list[str]] = {}
    for where, written in texts:
        by_path.setdefault(where, []).append(written)
    problems: list[Problem] = []
    notes: list[Problem] = []
    values: set[str] = set()
    refused: set[tuple[PathPart, ...]] = set()
    for path, key, value in _walk(data, ()):
        if under(path, refused):
            continue  # inside a value refused already: one problem per place
        # a value is compared with the spec's texts written elsewhere, never with itself
        public = _Elsewhere(everything, by_path.get(path, []))
        mapping = _value_mapping(path)
        if mapping is not None and isinstance(key, str) and _shaped(key, None, public):
            # the problem is at the mapping: its path would quote the name
            problems.append(Problem(path[:-1], f"a name in {mapping} is shaped like a key; {_HINT}"))
            values.add(key)
            refused.add(path[:-1])
            continue
        if isinstance(value, str) and ENV_REFERENCE.match(value.strip()):
            if not _is_header(path):
                problems.append(Problem(path, _NOT_A_HEADER))
            continue
        kind = credential_name(key) if isinstance(key, str) else None
        if kind == "credential":
            text = _named_value(value)
            if isinstance(value, Mapping | list):
                problems.append(Problem(path, f"{key!r} names a credential; {_HINT}"))
                refused.add(path)
                continue
            if text is not None:
                scheme = _AUTH_SCHEME.match(text.strip())
                secret = scheme.group(2) if scheme else text
                reason = placeholder_reason(secret, public)
                if reason is None:
                    shapes = key_shapes(text, public)
                    holds = f" and the value holds {shapes[0][0]}" if shapes else ""
                    problems.append(Problem(path, f"{key!r} names a credential{holds}; {_HINT}"))
                    values.update({text, secret})
                    refused.add(path)
                    continue
                notes.append(Problem(path, f"a placeholder ({reason}), not treated as a secret"))
                continue
        if not isinstance(value, str):
            continue
        if kind == "credential-ish" and looks_random(value) and placeholder_reason(value, public) is None:
            problems.append(
                Problem(path, f"{key!r} looks like a credential's name and its value looks random; {_HINT}")
            )
            values.add(value)
            refused.add(path)
            continue
        if mapping is not None and _shaped(value, key, public):
            problems.append(
                Problem(path, f"the value in {mapping} is shaped like a key, whatever its name; {_HINT}")
            )
            values.add(value)
            refused.add(path)
            continue
        found = _value_problem(value, public)
        if found is not None:
            reason, secrets = found
            problems.append(Problem(path, f"{reason}; {_HINT}"))
            values.update(secrets)
            refused.add(path)
    return CredentialScan(problems, notes, frozenset(v for v in values if v))


def under(path: tuple[PathPart, ...], places: set[tuple[PathPart, ...]]) -> bool:
    """Whether ``path`` is one of ``places`` or inside one (a look-up per level, not per place)."""
    return any(path[:depth] in places for depth in range(len(path) + 1))


# Providers that name their variables after the service in the model name, not the provider.
_SERVICE_PROVIDERS = ("openai-api", "openai-api-completions")


def spec_variables(data: Any) -> tuple[set[str], set[str]]:
    """The environment variables a spec's models read: name prefixes and exact names.

    Args:
        data: The spec as parsed from YAML (or a typed spec dumped to plain data).

    Returns:
        Prefixes (``OPENAI``, ``LLAMACPP`` for ``openai-api/llamacpp/...``) whose ``<PREFIX>_*``
        variables a model may read, and the variables its ``${env:NAME}`` values name.
    """
    prefixes = set()
    for _, name in _model_names(data):
        provider, _, rest = name.partition("/")
        service = rest.partition("/")[0] if provider in _SERVICE_PROVIDERS else provider
        if service:
            prefixes.add(service.upper().replace("-", "_"))
    named = {
        match.group(1)
        for _, _, value in _walk(data, ())
        if isinstance(value, str) and (match := ENV_REFERENCE.match(value.strip()))
    }
    return prefixes, named


def placeholder_line(data: Any, environ: Mapping[str, str] | None = None) -> str | None:
    """One line naming the credential variables the spec's models read that hold placeholders.

    Such a variable (``LLAMACPP_API_KEY=llamacpp`` for a local server) is neither redacted nor
    hidden (`vivid_inspect.redact.placeholder_reason`); the line says so, without the value.

    Args:
        data: The spec as plain data.
        environ: The environment; default ``os.environ``.

    Returns:
        The line, or None when no such variable is set.
    """
    prefixes, named = spec_variables(data)
    found = {
        name: reason
        for name, reason in placeholder_variables(environ).items()
        if name in named or any(name.startswith(f"{prefix}_") for prefix in prefixes)
    }
    if not found:
        return None
    listed = ", ".join(f"{name} ({reason})" for name, reason in sorted(found.items()))
    return f"{listed}: a placeholder, not treated as a secret (not redacted from logs or output)"


def without_values(message: str, values: frozenset[str]) -> str:
    """``message`` with each of ``values`` (refused credentials) replaced by ``[REDACTED]``."""
    for value in sorted(values, key=len, reverse=True):
        message = message.replace(value, REDACTED)
    return message


def env_references(headers: Mapping[str, Any] | None) -> dict[str, str]:
    """Header name -> environment variable, for header values that are ``${env:NAME}``."""
    found = {}
    for name, value in (headers or {}).items():
        match = ENV_REFERENCE.match(value.strip()) if isinstance(value, str) else None
        if match:
            found[str(name)] = match.group(1)
    return found


class MissingVariable(ValueError):
    """A header names an environment variable that is not set."""


class _EnvHeaderTransport(httpx.AsyncBaseTransport):
    """Puts environment values into ``${env:NAME}`` header values as each request is sent."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self._inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        for name, value in list(request.headers.items()):
            match = ENV_REFERENCE.match(value.strip())
            if match:
                secret = os.environ.get(match.group(1))
                if secret is None:
                    raise MissingVariable(f"header {name}: environment variable {match.group(1)} is not set")
                request.headers[name] = secret
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


def env_header_client(variables: list[str]) -> httpx.AsyncClient:
    """An HTTP client for a provider SDK that resolves ``${env:NAME}`` header values when sending.

    Args:
        variables: The variables the model's headers name; each must be set now, and their
            values are redacted from every message from now on.

    Returns:
        The client, for the provider's ``http_client`` model argument.

    Raises:
        MissingVariable: A variable is not set.
    """
    missing = [name for name in variables if name not in os.environ]
    if missing:
        raise MissingVariable(f"environment variable(s) not set: {', '.join(missing)}")
    add_secret_names(variables)
    return httpx.AsyncClient(
        transport=_EnvHeaderTransport(httpx.AsyncHTTPTransport()),
        follow_redirects=True,
        timeout=httpx.Timeout(600.0, connect=10.0),
    )
