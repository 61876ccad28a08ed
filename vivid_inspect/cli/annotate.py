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
    export.add_argument("source", metavar="LOG", help="a generation log, or a folder of logs")
    export.add_argument(
        "--out", required=True, metavar="SHEET.csv", help="the sheet to write (its record goes to SHEET.csv.generation.json)"
    )
    # The default stays in report.annotate (DEFAULT_N), which imports pandas and Inspect: not
    # imported here, where `vivid --help` registers every command. tests/test_cli_startup.py
    # checks that this help text states it.
    export.add_argument("-n", "--n", type=int, default=None, help="number of items (default 200)")
    export.add_argument("--seed", type=int, default=0, help="seed of the sample (default 0)")
    export.add_argument(
        "--generation",
        metavar="SELECTOR",
        help='the generation inside a folder: its key, model, prompt or part of its log path, or several (e.g. "vivid/literal zero_shot")',
    )
    export.add_argument("--force", action="store_true", help="replace an existing sheet (an input is never replaced)")
    export.set_defaults(handler=run_export)

    imported = commands.add_parser(
        "import", help="check filled sheets and write the human scores file (id, score, annotator)"
    )
    imported.add_argument("sheets", nargs="+", metavar="SHEET.csv", help="filled sheets")
    imported.add_argument("--out", required=True, metavar="HUMAN.csv", help="the human scores file to write")
    imported.add_argument(
        "--annotator", metavar="NAME", help="annotator of rows with an empty annotator cell (default: the sheet's file name)"
    )
    imported.add_argument("--force", action="store_true", help="replace an existing scores file (an input is never replaced)")
    imported.set_defaults(handler=run_import)
    return parser


def run_export(args: argparse.Namespace) -> int:
    """Write the sheet; 2 when the log cannot be chosen, ``--n`` is not positive or ``--out`` is taken."""
    from vivid_inspect.report.annotate import DEFAULT_N, export_sheet
    from vivid_inspect.report.humans import record_path

    n = DEFAULT_N if args.n is None else args.n
    try:
        sheet = export_sheet(args.source, args.out, n=n, seed=args.seed, generation=args.generation, force=args.force)
    except ValueError as error:
        print(f"vivid annotate export: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    key = sheet["generation"].iloc[0] if len(sheet) else "-"
    print(
        f"vivid annotate export: wrote {len(sheet)} item(s) of generation {key} to {args.out} "
        f"(record: {record_path(args.out)})",
        file=sys.stderr,
    )
    return EXIT_OK


def run_import(args: argparse.Namespace) -> int:
    """Check the sheets and write the scores; 2 (with every problem listed) when a sheet is not ready."""
    from vivid_inspect.report.annotate import import_sheets

    try:
        scores = import_sheets(args.sheets, args.out, annotator=args.annotator, force=args.force)
    except ValueError as error:
        print(f"vivid annotate import: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    annotators = scores["annotator"].nunique() if "annotator" in scores.columns else 1
    bound = (
        f" of generation {scores['generation'].iloc[0]}"
        if "generation" in scores.columns
        else " (the sheets name no generation: `vivid report` asks which one when a folder holds several)"
    )
    print(
        f"vivid annotate import: wrote {len(scores)} score(s) by {annotators} annotator(s){bound} to {args.out}",
        file=sys.stderr,
    )
    return EXIT_OK
