"""``vivid report LOG_DIR``: the paper's tables, judge-reliability tables and figures from Inspect logs."""

from __future__ import annotations

import argparse
import sys
from typing import Any

# The commands' work is imported inside their handlers, not here: `vivid --help` imports every
# command's module and must stay under a second (tests/lab/cli/test_cli_startup.py, bench/cli_startup.py).

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``report`` command.

    Args:
        subparsers: The ``vivid`` parser's subparsers (from ``add_subparsers``).

    Returns:
        The command's parser; its ``handler`` default runs the command.
    """
    parser = subparsers.add_parser(
        "report",
        help="tables (paper Tables 1, 3, 4, 5), judge reliability and figures from a folder of logs",
        description=(
            "Read every Inspect log under LOG_DIR (recursively), print the report as markdown and write "
            "it to --out: report.md, one CSV/LaTeX file per table, PNG figures. The same logs give "
            "byte-identical files."
        ),
    )
    parser.add_argument(
        "log_dir", metavar="LOG_DIR", help="folder of .eval/.json logs (searched recursively)"
    )
    parser.add_argument(
        "--human",
        metavar="FILE",
        action="append",
        help=(
            "human scores CSV (id, score[, annotator][, generation]); repeat it for each generation the humans "
            "scored: Table 1 compares with the first, Tables 3 and 4 gain corrected means for each"
        ),
    )
    parser.add_argument("--out", metavar="DIR", help="output folder (default: LOG_DIR/report)")
    parser.add_argument(
        "--format",
        default="md,csv",
        metavar="md,csv,tex",
        help="files to write, comma-separated (default: md,csv)",
    )
    parser.add_argument(
        "--judge",
        metavar="NAME[@MODEL]",
        help="judge for Tables 3 and 4 (default: the aspect-based judge, or the only judge)",
    )
    parser.add_argument(
        "--human-generation",
        metavar="SELECTOR",
        action="append",
        help=(
            "the generation the human scores belong to, when their file names none and several are judged: "
            'its key, model, prompt or part of its log path, or several (e.g. "vivid/literal zero_shot"); '
            "with several --human files, one per file in the same order"
        ),
    )
    parser.add_argument(
        "--alt-test-epsilon",
        default="expert",
        metavar="EPS",
        help=(
            "the alternative annotator test's handicap of the annotators: a number from 0 to 1, or expert (0.2), "
            "skilled (0.15), crowd (0.1); default expert"
        ),
    )
    parser.add_argument(
        "--group",
        metavar="KEY",
        action="append",
        default=[],
        help="a sample metadata key to group by: the judge mean per label, as Tables 3 and 4 per theme and trait (repeatable)",
    )
    parser.add_argument("--no-figures", action="store_true", help="do not draw the PNG figures")
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Build and write the report; print its markdown on stdout and the files written on stderr.

    Returns:
        0 on success; 1 when a file could not be written midway; 2 when an input is unusable (no
        such folder, a bad human file, an unknown format or judge, human scores whose generation is
        not in the folder or cannot be told, a group key no sample has, an output folder that cannot
        be written).
    """
    from pathlib import Path

    from vivid_inspect.lab.writable import FolderNotWritable, check_writable

    out = Path(args.out) if args.out else Path(args.log_dir) / "report"
    try:
        if Path(args.log_dir).is_dir():  # a missing LOG_DIR is the report's own message
            check_writable(out)
    except FolderNotWritable as error:
        where = "--out" if args.out else "LOG_DIR/report"
        print(
            f"vivid report: cannot write the report to {error.folder} ({where}): {error.reason}. "
            "Nothing was written; give a writable folder with --out.",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    from vivid_inspect.lab.interrupt import INCOMPLETE, marked_incomplete
    from vivid_inspect.lab.report.build import write_report  # heavy: imported once the folder is known good

    if marked_incomplete(out):
        print(
            f"vivid report: {out} is marked incomplete ({INCOMPLETE}): a report was interrupted there and "
            "left files of two reports; this one rewrites them",
            file=sys.stderr,
        )

    try:
        report = write_report(
            args.log_dir,
            out_dir=args.out,
            human=args.human,
            formats=args.format,
            judge=args.judge,
            human_generation=args.human_generation,
            figures=not args.no_figures,
            epsilon=args.alt_test_epsilon,
            groups=args.group,
        )
    except ValueError as error:  # HumanScoresError is a ValueError
        print(f"vivid report: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as error:  # a write that failed midway: the disk filled, the folder went away
        print(
            f"vivid report: cannot write {error.filename or out}: {error.strerror or error}. "
            "The logs are untouched; rerun when it can be written.",
            file=sys.stderr,
        )
        return EXIT_FAILED
    from vivid_inspect.text import printable

    sys.stdout.write(printable(report.markdown, lines=True))  # names from the logs, escaped
    for skipped in report.skipped:  # the warning; the markdown lists them too
        print(f"vivid report: skipped {skipped}", file=sys.stderr)
    folder = report.files[0].parent if report.files else None
    print(f"vivid report: wrote {len(report.files)} file(s) to {folder}", file=sys.stderr)
    return EXIT_OK
