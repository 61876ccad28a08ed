"""Credentials never live in a spec: refused where written, and read from the environment at call time.

Everything in a spec is copied into ``spec.resolved.yaml``, ``eval-set.json`` and every log
header, so a secret written there would be written everywhere. :func:`secret_problems` walks the
whole parsed YAML and refuses:

- a key that names a credential (``api_key``, ``token``, ``password``, ``secret``), and a header
  name that carries one (``Authorization``, ``Proxy-Authorization``, ``X-API-Key``, ``api-key``,
  ``Cookie``, ...), unless its value is an environment reference;
- a value that looks like a key (``sk-…``, ``hf_…``) or a bearer token;
- a URL with user information (``https://user:key@host``).

A gateway that needs a header gets it from the environment instead: the header's value is
``"${env:NAME}"``. That placeholder is what the spec, the logs and ``eval-set.json`` hold; the
HTTP transport of the model's client (:func:`env_header_client`) puts the variable's value in
the request as it is sent, after Inspect's own request hooks, so nothing that records a request
sees it. Provider error bodies that echo it are redacted (:mod:`vivid_inspect.redact` learns the
variable's name through :func:`vivid_inspect.redact.add_secret_names`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import urlsplit

import httpx

from vivid_inspect.redact import add_secret_names
from vivid_inspect.runner.spec.problems import PathPart, Problem

ENV_REFERENCE = re.compile(r"^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$")
"""A header value that names an environment variable: ``${env:MY_GATEWAY_KEY}``."""

# Normalised (lower case, '_' as '-') names of keys and headers that carry credentials.
_CREDENTIAL_NAME = re.compile(
    r"^(proxy-)?authorization$|^(set-)?cookie$|(^|-)api-?key$|(^|-)(access-|auth-|session-|bearer-)?token$"
    r"|(^|-)secret(-key)?$|(^|-)password$|(^|-)passwd$|(^|-)credentials?$|subscription-key$|(^|-)auth$"
)
# A key anywhere in a value; a bearer or basic credential as a whole header value.
_KEY_IN_TEXT = re.compile(r"\b(sk|hf|gsk|xai)[-_][A-Za-z0-9_-]{12,}")
_AUTH_VALUE = re.compile(r"^(?i:bearer|basic)\s+\S{4,}$")
_HINT = (
    "credentials are never written in a spec (it is copied into spec.resolved.yaml, "
    "eval-set.json and every log): put the value in an environment variable and write "
    '"${env:NAME}" as the header value, or use the provider\'s own variable (e.g. OPENAI_API_KEY)'
)


def _normal(name: str) -> str:
    return name.strip().lower().replace("_", "-")


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


def _has_userinfo(value: str) -> bool:
    if "://" not in value or "@" not in value:
        return False
    try:
        parts = urlsplit(value.strip())
    except ValueError:
        return False
    return bool(parts.scheme and parts.netloc and "@" in parts.netloc)


def secret_problems(data: Any) -> list[Problem]:
    """Credentials written anywhere in a parsed spec, one problem per place.

    Args:
        data: The spec as parsed from YAML (any shape: this runs before type checks).

    Returns:
        A problem at each YAML path that holds, or is named like, a credential.
    """
    problems: list[Problem] = []
    for path, key, value in _walk(data, ()):
        reference = isinstance(value, str) and ENV_REFERENCE.match(value.strip())
        if isinstance(key, str) and _CREDENTIAL_NAME.search(_normal(key)) and not reference:
            problems.append(Problem(path, f"{key!r} names a credential; {_HINT}"))
            continue
        if not isinstance(value, str) or reference:
            continue
        if _KEY_IN_TEXT.search(value) or _AUTH_VALUE.match(value.strip()):
            problems.append(Problem(path, f"the value looks like a key or token; {_HINT}"))
        elif _has_userinfo(value):
            problems.append(Problem(path, f"a URL with user:password@ carries a credential; {_HINT}"))
    return problems


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
