"""Keep credentials out of everything we store or print.

Provider error bodies can echo the request's ``Authorization`` header, and a file passed by
mistake (an ``.env`` given as human scores) can hold keys. Every error, traceback and message
that the project writes to a log, a report or the terminal goes through :func:`redact` first,
and a file that fails to parse is quoted only as a short, redacted :func:`excerpt`.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping

REDACTED = "[REDACTED]"

# Environment variables whose values are credentials.
_SECRET_NAME = re.compile(r"(?:_KEY|_TOKEN|_SECRET|_PASSWORD|_CREDENTIALS?)$", re.IGNORECASE)
# Further variables named by a spec's ``${env:NAME}`` headers, whatever their names.
_EXTRA_NAMES: set[str] = set()
# Shorter values are too likely to occur in ordinary text ("1", "true").
_MIN_SECRET_LENGTH = 6
_BEARER = re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9._~+/=-]{4,}")
_KEY_LIKE = re.compile(r"\bsk-[A-Za-z0-9_-]{8,}")
_EXCERPT_LIMIT = 60


def secret_values(environ: Mapping[str, str] | None = None) -> list[str]:
    """The values of credential-like environment variables, longest first.

    Args:
        environ: The environment to read; default ``os.environ``.

    Returns:
        Values long enough to redact without mangling ordinary text, and each as it appears
        escaped inside a JSON string.
    """
    env = os.environ if environ is None else environ
    values = {
        value
        for name, value in env.items()
        if (_SECRET_NAME.search(name) or name in _EXTRA_NAMES) and len(value) >= _MIN_SECRET_LENGTH
    }
    # as a JSON string holds it too (a log member), where quotes and backslashes are escaped
    values |= {json.dumps(value, ensure_ascii=False)[1:-1] for value in values}
    return sorted(values, key=len, reverse=True)


def add_secret_names(names: Iterable[str]) -> None:
    """Treat these environment variables as credentials too (a spec's ``${env:NAME}`` headers).

    Args:
        names: Variable names, whatever their form.
    """
    _EXTRA_NAMES.update(names)


def redact(text: str, environ: Mapping[str, str] | None = None) -> str:
    """Replace credentials in ``text`` with ``[REDACTED]``.

    Removes the values of the environment's ``*_KEY``/``*_TOKEN``/``*_SECRET``/``*_PASSWORD``/
    ``*_CREDENTIALS`` variables and of those given to :func:`add_secret_names`, bearer tokens and
    ``sk-…`` keys.

    Args:
        text: Any message.
        environ: The environment whose secrets to remove; default ``os.environ``.

    Returns:
        The text with every credential replaced.
    """
    for value in secret_values(environ):
        text = text.replace(value, REDACTED)
    text = _BEARER.sub(lambda match: f"{match.group(1)} {REDACTED}", text)
    return _KEY_LIKE.sub(REDACTED, text)


def excerpt(text: str, limit: int = _EXCERPT_LIMIT) -> str:
    """A short, redacted, single-line quotation of ``text`` for an error message.

    Args:
        text: The content that failed to parse.
        limit: Most characters kept.

    Returns:
        The first line, redacted, cut to ``limit`` characters with ``…`` when longer.
    """
    line = redact(text.splitlines()[0] if text else "")
    return line if len(line) <= limit else line[:limit] + "…"
