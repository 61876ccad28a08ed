"""``vivid annotate export|import``: blind human annotation sheets for validating the judges."""

from __future__ import annotations

import argparse
import sys
from typing import Any

EXIT_OK = 0
EXIT_BAD_INPUT = 2


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``annotate`` command with its ``export`` and ``import`` subcommands.

    Args:
        subparsers: The ``vivid`` parser's subparsers (from ``add_subparsers``).

    Returns:
        The command's parser; each subcommand sets ``handler``.
    """
    from vivid_inspect.report.annotate import DEFAULT_N

    parser = subparsers.add_parser(
        "annotate",
        help="export blind annotation sheets of generated explanations; import filled ones",
        description="Human scores for Table 1: export a sheet, have it filled (score 0-5), import it.",
    )
    commands = parser.add_subparsers(dest="annotate_command", required=True, metavar="SUBCOMMAND")

    export = commands.add_parser(
        "export",
        help="write a theme-stratified sample of explanations as a CSV sheet (no model or judge names)",
    )
    export.add_argument("source", metavar="LOG", help="a generation log, or a folder holding exactly one")
    export.add_argument("--out", required=True, metavar="SHEET.csv", help="the sheet to write")
    export.add_argument("-n", "--n", type=int, default=DEFAULT_N, help=f"number of items (default {DEFAULT_N})")
    export.add_argument("--seed", type=int, default=0, help="seed of the sample (default 0)")
    export.add_argument("--generation", metavar="SUBSTRING", help="choose the generation log inside a folder")
    export.set_defaults(handler=run_export)

    imported = commands.add_parser(
        "import", help="check filled sheets and write the human scores file (id, score, annotator)"
    )
    imported.add_argument("sheets", nargs="+", metavar="SHEET.csv", help="filled sheets")
    imported.add_argument("--out", required=True, metavar="HUMAN.csv", help="the human scores file to write")
    imported.add_argument(
        "--annotator", metavar="NAME", help="annotator of rows with an empty annotator cell (default: the sheet's file name)"
    )
    imported.set_defaults(handler=run_import)
    return parser


def run_export(args: argparse.Namespace) -> int:
    """Write the sheet; 2 when the log cannot be chosen or ``--n`` is not positive."""
    from vivid_inspect.report.annotate import export_sheet

    try:
        sheet = export_sheet(args.source, args.out, n=args.n, seed=args.seed, generation=args.generation)
    except ValueError as error:
        print(f"vivid annotate export: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(f"vivid annotate export: wrote {len(sheet)} item(s) to {args.out}", file=sys.stderr)
    return EXIT_OK


def run_import(args: argparse.Namespace) -> int:
    """Check the sheets and write the scores; 2 (with every problem listed) when a sheet is not ready."""
    from vivid_inspect.report.annotate import import_sheets

    try:
        scores = import_sheets(args.sheets, args.out, annotator=args.annotator)
    except ValueError as error:
        print(f"vivid annotate import: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    annotators = scores["annotator"].nunique() if "annotator" in scores.columns else 1
    print(
        f"vivid annotate import: wrote {len(scores)} score(s) by {annotators} annotator(s) to {args.out}",
        file=sys.stderr,
    )
    return EXIT_OK
