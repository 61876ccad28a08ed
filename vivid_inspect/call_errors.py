"""Say why a model call failed: the provider's status, its message and the URL called.

A call that ran out of retries reaches the user as tenacity's
``RetryError[<Future … raised APIConnectionError>]``, sometimes inside an exception group,
which names neither the endpoint nor the reason. `describe_failure` unwraps those layers
and reads what the provider SDK (OpenAI, Anthropic and others built on httpx) recorded, duck-typed
so that no SDK has to be imported. Everything it returns is redacted.
"""

from __future__ import annotations

import os
import re
import socket
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from vivid_inspect.redact import redact

_MAX_MESSAGE = 300
_ERRNO = re.compile(r"\[Errno -?\d+\]\s*")
_REPR = re.compile(r"^(?P<name>\w+)\((?P<quote>['\"])(?P<text>.*)(?P=quote)\)$", re.DOTALL)


def _group_members(error: BaseException) -> list[BaseException]:
    # an exception group (builtin from Python 3.11, the backport before), duck-typed
    members = getattr(error, "exceptions", None)
    if isinstance(members, (list, tuple)):
        return [member for member in members if isinstance(member, BaseException)]
    return []


def innermost(error: BaseException) -> BaseException:
    """The error under retry wrappers and exception groups (the first leaf of a group).

    Args:
        error: What a call raised.

    Returns:
        The provider's own exception where there is one, else ``error``.
    """
    seen: set[int] = set()
    while id(error) not in seen:
        seen.add(id(error))
        group = _group_members(error)
        if group:
            error = group[0]
            continue
        last_attempt = getattr(error, "last_attempt", None)  # tenacity.RetryError
        inner = last_attempt.exception() if last_attempt is not None and last_attempt.failed else None
        if isinstance(inner, BaseException):
            error = inner
            continue
        break
    return error


def attempts_of(error: BaseException) -> int | None:
    """How many attempts a retry wrapper made before giving up, when ``error`` is one."""
    for layer in _layers(error):
        last_attempt = getattr(layer, "last_attempt", None)
        number = getattr(last_attempt, "attempt_number", None)
        if isinstance(number, int):
            return number
    return None


def _layers(error: BaseException) -> list[BaseException]:
    layers: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in layers:
        layers.append(current)
        group = _group_members(current)
        if group:
            current = group[0]
        else:
            last_attempt = getattr(current, "last_attempt", None)
            inner = last_attempt.exception() if last_attempt is not None and last_attempt.failed else None
            current = inner if isinstance(inner, BaseException) else None
    return layers


def public_url(url: Any) -> str:
    """A URL without credentials or query string (where some providers put a key)."""
    parts = urlsplit(str(url))
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


def request_url(error: BaseException) -> str | None:
    """The URL of the request that failed, when the exception records it."""
    try:
        request = getattr(error, "request", None)  # httpx raises if the request was never set
    except RuntimeError:
        return None
    url = getattr(request, "url", None)
    return public_url(url) if url is not None else None


_SDK_PREFIX = re.compile(r"^Error code: \d+ - ")
# How servers say a prompt does not fit the model's context (llama.cpp, vLLM, OpenAI).
_CONTEXT_OVERFLOW = re.compile(r"context size|context length|context_length|context window", re.IGNORECASE)
CONTEXT_HINT = "serve the model with a larger context (llama.cpp -c, vLLM --max-model-len)"
"""Appended to a context-overflow error, whose fix is on the server's side."""


def _body_message(error: BaseException) -> str | None:
    body = getattr(error, "body", None)
    if not isinstance(body, dict):
        return None
    inner = body.get("error", body)
    message = inner.get("message") if isinstance(inner, dict) else None
    if not isinstance(message, str) or not message:
        return None
    # llama.cpp says how long the prompt was and how large the context is
    sizes = {key: inner.get(key) for key in ("n_prompt_tokens", "n_ctx")}
    if all(isinstance(value, int) for value in sizes.values()):
        message += f" (prompt {sizes['n_prompt_tokens']} tokens, context {sizes['n_ctx']})"
    return message


def _provider_message(error: BaseException) -> str:
    # Inspect's ModelGenerateError puts the whole request before the provider's reason in its
    # text; the SDK's error underneath (or its provider_message) holds the server's own words.
    seen: set[int] = set()
    layer: BaseException | None = error
    while layer is not None and id(layer) not in seen:
        seen.add(id(layer))
        found = _body_message(layer)
        if found:
            return found
        layer = layer.__cause__
    for name in ("provider_message", "message"):
        message = getattr(error, name, None)
        if isinstance(message, str) and message:
            return _SDK_PREFIX.sub("", message)
    return str(error)


def _root_cause(error: BaseException) -> str | None:
    # "Connection error." hides the reason: the errors underneath say refused, DNS failure, ...
    cause, seen = error.__cause__ or error.__context__, set()
    found = None
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        code = getattr(cause, "errno", None)
        if isinstance(cause, socket.gaierror):
            found = f"DNS lookup failed: {_ERRNO.sub('', str(cause))}"
        elif isinstance(cause, OSError) and isinstance(code, int) and code > 0:
            found = os.strerror(code)
        elif str(cause).strip():
            found = _ERRNO.sub("", str(cause).strip())
        cause = cause.__cause__ or cause.__context__
    return found


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_MESSAGE else text[: _MAX_MESSAGE - 1] + "…"


def describe_failure(error: BaseException, endpoint: str | None = None) -> str:
    """One line on why a model call failed, for an error message or a log.

    ``HTTP 401 from http://host/v1/chat/completions: Incorrect API key provided`` or
    ``no connection to http://127.0.0.1:9/v1/chat/completions (Connection refused)``, followed by
    the number of attempts when a retry wrapper gave up.

    Args:
        error: What the call raised (a ``RetryError``, an exception group, a provider error, ...).
        endpoint: The model's base URL, named when the error does not record the request's.

    Returns:
        The description, redacted.
    """
    inner = innermost(error)
    url = request_url(inner) or (public_url(endpoint) if endpoint else None)
    where = f" {url}" if url else ""
    status = getattr(inner, "status_code", None)
    name = type(inner).__name__
    if isinstance(inner, UnreadableReply):
        text = f"unreadable reply from{where or ' the provider'}: {inner}"
    elif isinstance(status, int):
        text = f"HTTP {status} from{where or ' the provider'}: {_provider_message(inner)}"
    elif "Timeout" in name:
        text = f"{name} calling{where or ' the provider'}: {str(inner).rstrip('.')}"
    elif "Connection" in name or "Connect" in name:
        reason = _root_cause(inner) or str(inner)
        text = f"no connection to{where or ' the provider'} ({reason})"
    else:
        text = f"{name}: {inner}" + (f" ({url})" if url else "")
    text = _clip(text)
    if isinstance(status, int) and _CONTEXT_OVERFLOW.search(text):
        text += f" — {CONTEXT_HINT}"  # after the clip: the server's reason is cut, never the fix
    attempts = attempts_of(error)
    if attempts is not None:
        text += f"; gave up after {attempts} attempt{'s' if attempts != 1 else ''}"
    return redact(text)


class ModelCallError(RuntimeError):
    """A model call that failed after its retries; the message names the model and endpoint."""


class UnreadableReply(Exception):
    """A 200 reply that could not be read as a completion; its message says why, never the body.

    Raised and retried by `vivid_inspect.reply_retries.retry_unreadable`; a call whose
    retries ran out is described as ``unreadable reply from <url>: HTTP 200 with <why>``.

    Args:
        why: What was wrong (``no choices (...)``, ``a body that is not UTF-8 (...)``).
        cached: Whether Inspect cached the reply (so the next attempt needs another cache key).
    """

    def __init__(self, why: str, *, cached: bool = False) -> None:
        super().__init__(f"HTTP 200 with {why}")
        self.cached = cached


def endpoint_of(model: Any) -> str | None:
    """The base URL a model calls, when its provider has one (without credentials)."""
    api = getattr(model, "api", None)
    client = getattr(api, "client", None)
    url = getattr(client, "base_url", None) or getattr(api, "base_url", None)
    return public_url(url) if url else None


def named_failure(model: Any, error: BaseException) -> ModelCallError:
    """The error to raise for a failed call of ``model``: ``<model>: <why, with the URL>``.

    Args:
        model: The model called (its ``str`` names it).
        error: What the call raised; `is_call_failure` should hold for it.

    Returns:
        A `ModelCallError` to raise ``from error``.
    """
    return ModelCallError(f"{model}: {describe_failure(error, endpoint_of(model))}")


def is_call_failure(error: BaseException) -> bool:
    """Whether ``error`` is a failed model call (retries exhausted, or a provider/HTTP error)."""
    inner = innermost(error)
    return (
        attempts_of(error) is not None
        or request_url(inner) is not None
        or isinstance(getattr(inner, "status_code", None), int)
        or type(inner).__name__ in ("AttemptTimeoutError", "StreamIdleTimeoutError")
    )


def call_failure_message(error: BaseException) -> str:
    """``error`` as one redacted line: `describe_failure` for a failed call, else its type and text."""
    if is_call_failure(error):
        return describe_failure(error)
    return redact(_clip(f"{type(error).__name__}: {error}"))


def first_sample_error(log: Path) -> str | None:
    """The first sample error of an Inspect log (one line, redacted), read from its summaries.

    Args:
        log: An ``.eval`` log.

    Returns:
        The error, or None when no sample errored or the log cannot be read.
    """
    # Imported here: `vivid --help` imports this module, and Inspect's log reader is heavy.
    from inspect_ai.log import read_eval_log_sample_summaries

    try:
        summaries = read_eval_log_sample_summaries(str(log))
    except Exception:  # noqa: BLE001 - a reason is a courtesy; the status is reported anyway
        return None
    errors = (summary.error for summary in summaries if summary.error)
    first = next(errors, None)
    return readable_error(first) if first else None


def readable_error(message: str) -> str:
    """An error as Inspect records it (the exception's repr), as one redacted line.

    ``ModelCallError('openai/gpt-4o: HTTP 500 from …')`` reads as
    ``ModelCallError: openai/gpt-4o: HTTP 500 from …``; anything else keeps its first line.

    Args:
        message: A sample's or log's error message (``EvalError.message``).

    Returns:
        The line.
    """
    wrapped = _REPR.match(message.strip())
    text = f"{wrapped['name']}: {wrapped['text']}" if wrapped else (message.strip().splitlines() or [""])[0]
    return redact(_clip(text))
