"""``vivid annotate export|import|serve``: blind human annotation sheets, and a page to score them."""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import Any

# The commands' work is imported inside their handlers, not here: `vivid --help` imports every
# command's module and must stay under a second (tests/lab/cli/test_cli_startup.py, bench/cli_startup.py);
# `vivid annotate serve` pulls in uvicorn, Starlette and pandas.

EXIT_OK = 0
EXIT_BAD_INPUT = 2
EXIT_BUSY = 75  # sysexits' EX_TEMPFAIL, as `vivid run` on a held log folder: a server holds the folder


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``annotate`` command with its ``export`` and ``import`` subcommands.

    Args:
        subparsers: The ``vivid`` parser's subparsers (from ``add_subparsers``).

    Returns:
        The command's parser; each subcommand sets ``handler``.
    """
    parser = subparsers.add_parser(
        "annotate",
        help="human scores: export blind sheets of explanations and import filled ones, or score them in the browser (serve)",
        description=(
            "Human scores for Table 1: export a sheet, have it filled (score 0-5, or on another eval's judge's scale), "
            "import it; or score in the browser (serve)."
        ),
    )
    commands = parser.add_subparsers(dest="annotate_command", required=True, metavar="SUBCOMMAND")

    export = commands.add_parser(
        "export",
        help="write a theme-stratified sample of explanations (another eval's: outputs) as a CSV sheet (no model or judge names)",
    )
    export.add_argument("source", metavar="LOG", help="a generation log, or a folder of logs")
    export.add_argument(
        "--out",
        required=True,
        metavar="SHEET.csv",
        help="the sheet to write (its record goes to SHEET.csv.generation.json)",
    )
    # The default stays in report.annotate (DEFAULT_N), which imports pandas and Inspect: not
    # imported here, where `vivid --help` registers every command. tests/lab/cli/test_cli_startup.py
    # checks that this help text states it.
    export.add_argument("-n", "--n", type=int, help="number of items (default 200)")
    export.add_argument("--seed", type=int, default=0, help="seed of the sample (default 0)")
    export.add_argument(
        "--generation",
        metavar="SELECTOR",
        help='the generation inside a folder: its key, model, prompt or part of its log path, or several (e.g. "vivid/literal zero_shot")',
    )
    export.add_argument(
        "--force", action="store_true", help="replace an existing sheet (an input is never replaced)"
    )
    export.set_defaults(handler=run_export)

    imported = commands.add_parser(
        "import", help="check filled sheets and write the human scores file (id, score, annotator)"
    )
    imported.add_argument("sheets", nargs="+", metavar="SHEET.csv", help="filled sheets")
    imported.add_argument("--out", required=True, metavar="HUMAN.csv", help="the human scores file to write")
    imported.add_argument(
        "--annotator",
        metavar="NAME",
        help="annotator of rows with an empty annotator cell (default: the sheet's file name)",
    )
    imported.add_argument(
        "--force", action="store_true", help="replace an existing scores file (an input is never replaced)"
    )
    imported.set_defaults(handler=run_import)

    served = commands.add_parser(
        "serve",
        help="score explanations (or another eval's outputs) in the browser: one item per screen, resumable, one URL per annotator",
        description="A local web page for scoring; every score is saved as given, in sheets `import` reads.",
    )
    served.add_argument(
        "source", metavar="SOURCE", help="a sheet written by `export`, a generation log, or a folder of logs"
    )
    served.add_argument(
        "--annotators",
        metavar="NAME[,NAME...]",
        help="annotator names, comma-separated (not needed with --plan)",
    )
    served.add_argument(
        "--overlap",
        type=int,
        default=0,
        metavar="K",
        help="items every annotator scores, for agreement (default 0)",
    )
    served.add_argument(
        "--port", type=int, default=8765, metavar="N", help="port (default 8765; 0 picks a free one)"
    )
    served.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1, this machine only)"
    )
    served.add_argument(
        "--out-dir",
        metavar="DIR",
        help="the annotation folder (default: SOURCE's name + .annotation, beside it)",
    )
    served.add_argument("-n", "--n", type=int, help="items to draw from a log, as `export` (default 200)")
    served.add_argument(
        "--seed", type=int, default=0, help="seed of the draw and of each annotator's order (default 0)"
    )
    served.add_argument(
        "--generation", metavar="SELECTOR", help="the generation inside a folder, as `export --generation`"
    )
    served.add_argument(
        "--generations",
        metavar="all|SELECTOR[,SELECTOR...]",
        help=(
            "draw one blind queue across several generations of a folder (all explanation generations, or these): "
            "a first batch of 20 per generation, then the rest of -n by Neyman allocation (restart when the first "
            "batch is scored); one human scores file per generation"
        ),
    )
    served.add_argument(
        "--plan",
        action="store_true",
        help="with --generations: print how many labels each generation gets next and the expected widths, and exit",
    )
    served.add_argument(
        "--judge",
        metavar="NAME[@MODEL]",
        help="with --generations: the judge whose scores the allocation measures the spread against (default: the report's)",
    )
    served.add_argument(
        "--write-log",
        action="store_true",
        help="also keep copies of the generation's logs with human score columns (human_NAME, human) for `inspect view`",
    )
    served.set_defaults(handler=run_serve)
    return parser


def run_export(args: argparse.Namespace) -> int:
    """Write the sheet; 2 when the log cannot be chosen, ``--n`` is not positive or ``--out`` is taken.

    75 when ``--out`` is in an annotation folder a running server holds.
    """
    from vivid_inspect.lab.folder_lock import FolderBusy
    from vivid_inspect.lab.humans.annotate.sheet_export import DEFAULT_N, export_sheet
    from vivid_inspect.lab.humans.scores_file import record_path

    n = DEFAULT_N if args.n is None else args.n
    try:
        sheet = export_sheet(
            args.source, args.out, n=n, seed=args.seed, generation=args.generation, force=args.force
        )
    except (FolderBusy, ValueError, OSError) as error:
        return _refused("export", error, args.out, "written")
    key = sheet["generation"].iloc[0] if len(sheet) else "-"
    print(
        f"vivid annotate export: wrote {len(sheet)} item(s) of generation {key} to {args.out} "
        f"(record: {record_path(args.out)})",
        file=sys.stderr,
    )
    return EXIT_OK


def run_import(args: argparse.Namespace) -> int:
    """Check the sheets and write the scores; 2 (with every problem listed) when a sheet is not ready.

    75 when ``--out`` is in an annotation folder a running server holds.
    """
    from vivid_inspect.lab.folder_lock import FolderBusy
    from vivid_inspect.lab.humans.sheet_import import import_sheets

    try:
        scores = import_sheets(args.sheets, args.out, annotator=args.annotator, force=args.force)
    except (FolderBusy, ValueError, OSError) as error:
        return _refused("import", error, args.out, "written")
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


def run_serve(args: argparse.Namespace) -> int:
    """Serve until interrupted; 2 when the source, names, overlap or port cannot be used.

    75 when another ``vivid annotate serve`` holds the annotation folder (it is named).
    """
    from vivid_inspect.lab.folder_lock import FolderBusy
    from vivid_inspect.lab.humans.annotate.serve import announce, bind, serve
    from vivid_inspect.lab.humans.annotate.sheet_export import DEFAULT_N

    if args.plan or args.generations is not None:
        if args.generations is None:
            return _serve_usage("--plan plans labels across generations; give --generations")
        if args.write_log or args.generation:
            return _serve_usage(
                "--generations draws from several generations; --generation and --write-log are for one"
            )
    if args.plan:
        return _print_plan(args)
    if args.annotators is None:
        return _serve_usage("--annotators is required (names, comma-separated)")
    names = [name.strip() for name in args.annotators.split(",")]
    try:
        workspace = _open(args, names, DEFAULT_N)
    except (FolderBusy, ValueError, OSError) as error:
        where = getattr(error, "filename", None) or args.out_dir or "the annotation folder"
        return _refused("serve", error, where, "started")
    try:
        try:
            sock = bind(args.host, args.port)
        except OSError as error:
            return _serve_usage(
                f"cannot listen on {args.host}:{args.port} ({error.strerror}); choose another --port"
            )
        port = sock.getsockname()[1]
        if workspace.held is not None:
            workspace.held.update(address=args.host, port=port)
        announce(workspace, args.host, port)
        with contextlib.suppress(KeyboardInterrupt):  # Ctrl+C is how an annotation session ends
            serve(workspace, sock)
        return EXIT_OK
    finally:
        workspace.close()


def _serve_usage(message: str) -> int:
    """Print why ``vivid annotate serve`` cannot start (a bad option or source); return 2."""
    print(f"vivid annotate serve: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def _refused(command: str, error: Exception, where: object, nothing: str) -> int:
    """Print why the command stopped before ``nothing`` happened; 75 for a held folder, else 2."""
    from vivid_inspect.lab.folder_lock import FolderBusy

    if isinstance(error, FolderBusy):
        message, code = f"{error}. Nothing was {nothing}.", EXIT_BUSY
    elif isinstance(error, OSError):
        message, code = f"cannot write {where} ({error.strerror or error})", EXIT_BAD_INPUT
    else:
        message, code = str(error), EXIT_BAD_INPUT
    print(f"vivid annotate {command}: {message}", file=sys.stderr)
    return code


def _open(args: argparse.Namespace, names: list[str], default_n: int) -> Any:
    """The workspace to serve: one generation's, or a round of a pool across generations."""
    n = default_n if args.n is None else args.n
    if args.generations is not None:
        from vivid_inspect.lab.humans.annotate.pool import open_pool

        return open_pool(
            args.source,
            names,
            generations=args.generations,
            overlap=args.overlap,
            n=n,
            seed=args.seed,
            folder=args.out_dir,
            judge=args.judge,
        )
    from vivid_inspect.lab.humans.annotate.opening import open_workspace

    return open_workspace(
        args.source,
        names,
        overlap=args.overlap,
        n=n,
        seed=args.seed,
        generation=args.generation,
        folder=args.out_dir,
        write_log=args.write_log,
    )


def _print_plan(args: argparse.Namespace) -> int:
    """``--plan``: the next round's labels per generation and expected widths; writes nothing."""
    from vivid_inspect.lab.humans.annotate.pool import plan_pool
    from vivid_inspect.lab.humans.annotate.sheet_export import DEFAULT_N

    try:
        planned = plan_pool(
            args.source,
            generations=args.generations,
            n=DEFAULT_N if args.n is None else args.n,
            seed=args.seed,
            folder=args.out_dir,
            judge=args.judge,
        )
    except ValueError as error:
        return _serve_usage(str(error))
    print("\n".join(planned.lines()))
    return EXIT_OK
