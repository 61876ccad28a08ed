"""The ``vivid`` commands a written file recommends, and whether each parses as written (issue 29.1).

A recommended command is a backticked span that starts with ``vivid ``. A span of command words only
(`` `vivid annotate export` ``) names a command and must name one that exists; any other span must
get through the CLI's argument parser unchanged. Nothing runs: parsing only.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import shlex
from collections.abc import Iterable
from pathlib import Path

from vivid_inspect.lab.cli.main import build_parser

_SPAN = re.compile(r"`(vivid [^`\n]+)`")


def recommended(text: str) -> list[str]:
    """Every backticked ``vivid ...`` span of ``text``, in order."""
    return _SPAN.findall(text)


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def problem(command: str) -> str | None:
    """Why ``command`` does not parse as written (argparse's message), or None when it does."""
    words = shlex.split(command)[1:]
    parser = build_parser()
    path = parser
    for i, word in enumerate(words):
        sub = _commands(path).get(word)
        if sub is None:
            break
        path = sub
        if i == len(words) - 1:
            return None  # the span names a command: it exists
    errors = io.StringIO()
    try:
        with contextlib.redirect_stderr(errors):
            parser.parse_args(words)
    except SystemExit as exit:
        return f"exit {exit.code}: {errors.getvalue().strip().splitlines()[-1:]}"
    return None


def failing(texts: Iterable[str | Path]) -> dict[str, str]:
    """The recommended commands of these texts (or files) that do not parse, with why."""
    found: dict[str, str] = {}
    for text in texts:
        body = text.read_text(encoding="utf-8") if isinstance(text, Path) else text
        for command in recommended(body):
            why = problem(command)
            if why is not None:
                found[command] = why
    return found


def vivid_only(texts: Iterable[str | Path]) -> list[str]:
    """The recommended commands of these texts that work on VIVID's logs only (docs/any-eval.md).

    Any ``vivid audit`` (its probes are VIVID's judge prompts), and ``vivid annotate`` with
    ``--generations`` (the pool across VIVID's generations) or ``--write-log`` (copies of VIVID's
    logs); ``vivid annotate serve`` and ``export`` serve another eval's items too.
    """
    found = []
    for text in texts:
        body = text.read_text(encoding="utf-8") if isinstance(text, Path) else text
        for command in recommended(body):
            words = command.split()
            if words[1] == "audit" or (
                words[1] == "annotate" and {"--generations", "--write-log"} & {*words}
            ):
                found.append(command)
    return found
