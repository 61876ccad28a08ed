"""Entry point of the ``vivid`` console script.

Each command lives in its own module with a ``register(subparsers)`` function that adds its
parser and sets ``handler`` (a function of the parsed arguments returning the exit code);
``vivid sanity``, a short form of ``vivid audit``, is registered by the audit's module.

``vivid --help`` registers every command, so a command module and its ``register`` import
nothing heavy (no Inspect, pandas, scikit-learn, scipy or matplotlib): handlers import what they
need when they run (``tests/lab/cli/test_cli_startup.py``, ``bench/cli_startup.py``).
"""

from __future__ import annotations

import argparse
import shlex
import sys
import textwrap
from collections.abc import Sequence

from vivid_inspect.lab.cli import annotate, audit, data, redact, report, run
from vivid_inspect.lab.cli.run import EXIT_INTERRUPTED, interrupted_line
from vivid_inspect.lab.interrupt import dropped_interrupts

COMMANDS = (
    run.register,
    report.register,
    audit.register_sanity,
    audit.register,
    annotate.register,
    data.register,
    redact.register,
)
"""The functions that add commands, in help order."""

AGAIN = {
    "audit": "runs it again, replaying the judge replies Inspect cached: only the calls in flight are made again",
}
"""What running a command again after Ctrl-C does, where it is more than starting again."""


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Wraps help at spaces only: a line broken after a hyphen (self- then preference) misreads as a word."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, str]]:
    """(name, one-line help) of the commands ``parser`` holds, in the order they were added."""
    found: list[tuple[str, str]] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
            found += [(name, helps.get(name, "")) for name in action.choices]
    return found


def _nested_listing(parser: argparse.ArgumentParser) -> str:
    """The epilog of ``vivid --help``: every command's subcommands with their purposes.

    Read from the registered parsers, so a subcommand added later is listed without anyone
    remembering to (argparse itself shows one level only).
    """
    rows: list[tuple[str, str]] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, command in action.choices.items():
                rows += [(f"{name} {sub}", purpose) for sub, purpose in _subcommands(command)]
    width = max((len(path) for path, _ in rows), default=0)
    lines = ["subcommands:"]
    for path, purpose in rows:
        wrapped = textwrap.wrap(purpose, 78 - width - 4, break_on_hyphens=False) or [""]
        lines.append(f"  {path.ljust(width)}  {wrapped[0]}")
        lines += [f"  {'':{width}}  {more}" for more in wrapped[1:]]
    footer = "`vivid COMMAND --help` (or `vivid COMMAND SUBCOMMAND --help`) describes a command's options."
    return "\n".join([*lines, "", *textwrap.wrap(footer, 78)])


def build_parser() -> argparse.ArgumentParser:
    """The ``vivid`` argument parser with every command registered."""
    parser = argparse.ArgumentParser(
        prog="vivid",
        description="Run VIVID experiments declared in a YAML spec on Inspect AI.",
        formatter_class=_HelpFormatter,
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command(subparsers)
    parser.epilog = _nested_listing(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``vivid`` command.

    Args:
        argv: Arguments without the program name; None reads ``sys.argv``.

    Returns:
        The exit code: 0 success, 1 incomplete or failed work, 2 a bad spec or bad arguments
        (nothing ran), 130 interrupted.
    """
    args = build_parser().parse_args(argv)
    try:
        with dropped_interrupts() as dropped:
            code = int(args.handler(args))
        if dropped:  # Python printed nothing of it here, and the command went on: it was interrupted
            raise dropped[0]
        return code
    except KeyboardInterrupt as interrupt:
        # Ctrl-C in a command with no handling of its own (vivid run has its own line)
        words = list(sys.argv[1:] if argv is None else argv)
        again = AGAIN.get(args.command, "starts it again")
        line = interrupted_line(f"vivid {args.command}", interrupt, shlex.join(["vivid", *words]), again)
        print(f"\n{line}", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    raise SystemExit(main())
