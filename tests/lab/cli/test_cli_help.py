"""``vivid --help`` names every command and every subcommand with its one-line purpose.

The parser tree is walked, so a subcommand added later (``vivid annotate <new>``) must show up in
the top-level help without anyone remembering to list it.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re

import pytest

from vivid_inspect.lab.cli.main import build_parser, main


def _help() -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as exit:
        main(["--help"])
    assert exit.value.code == 0
    return out.getvalue()


def _commands(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """(command path, help) for every command under ``parser``, nested ones included."""
    found: list[tuple[str, str]] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
            for name, sub in action.choices.items():
                found.append((" ".join((*prefix, name)), helps.get(name, "")))
                found += _commands(sub, (*prefix, name))
    return found


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def test_the_tree_has_nested_commands() -> None:
    paths = [path for path, _ in _commands(build_parser())]
    assert {"annotate export", "annotate import", "annotate serve", "data check"} <= set(paths)


@pytest.mark.parametrize(
    ("path", "purpose"), [pytest.param(path, purpose, id=path) for path, purpose in _commands(build_parser())]
)
def test_vivid_help_lists_every_command_with_its_purpose(path: str, purpose: str) -> None:
    assert purpose, f"`vivid {path}` has no one-line help"
    text = _flat(_help())
    assert f"{path} {_flat(purpose)}" in text, f"`vivid --help` does not list `{path}` with its purpose"


def test_the_annotate_line_names_serve_beside_export_and_import() -> None:
    line = dict(_commands(build_parser()))["annotate"]
    for word in ("export", "import", "serve"):
        assert word in line, line


def test_vivid_help_says_where_options_are_described() -> None:
    assert "vivid COMMAND --help" in _flat(_help())
