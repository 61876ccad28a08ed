"""``vivid run``, ``vivid plan`` and ``vivid validate``: the declarative experiment runner."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vivid_inspect.lab.runner.bundled import resolve_spec, unknown_name_hint
from vivid_inspect.lab.runner.spec.problems import SetupError, SpecError
from vivid_inspect.lab.unscored import UNSCORED_SHARE_LIMIT

if TYPE_CHECKING:
    from vivid_inspect.lab.runner.spec.load import LoadedSpec

# The data layer and the spec loader import Inspect: they are imported by the commands that use
# them, so that `vivid --help` (which registers every command) starts in a fraction of a second.

EXIT_OK = 0
EXIT_INCOMPLETE = 1
EXIT_UNSCORED = 1  # a judge left more than --unscored-limit of a cell's explanations unscored
EXIT_BAD_SPEC = 2
EXIT_INTERRUPTED = 130
EXIT_BUSY = 75  # sysexits' EX_TEMPFAIL: another run holds the log folder; try again later

DISPLAYS = ("compact", "full", "rich", "plain", "log", "none")  # eval_set refuses "conversation"


def _nothing_run(message: object, code: int) -> int:
    """Print why the command stopped before running anything, and return its exit code."""
    print(message, file=sys.stderr)
    print("Nothing was run.", file=sys.stderr)
    return code


def _load(args: argparse.Namespace) -> LoadedSpec | int:
    from vivid_inspect.lab.runner.spec.load import load_spec

    hint = unknown_name_hint(args.spec)
    if hint is not None:
        return _nothing_run(f"{args.spec}: {hint}", EXIT_BAD_SPEC)
    spec, log_dir = resolve_spec(args.spec, args.log_dir)
    try:
        loaded = load_spec(spec, log_dir=log_dir)
    except SpecError as error:
        return _nothing_run(error, EXIT_BAD_SPEC)
    for note in loaded.notes:  # placeholders written under a credential's name
        print(f"note: {note}", file=sys.stderr)
    return loaded


def _validate(args: argparse.Namespace) -> int:
    loaded = _load(args)
    if isinstance(loaded, int):
        return loaded
    from vivid_inspect.lab.runner.cells import expand
    from vivid_inspect.lab.runner.prepare.data_message import data_readiness

    # Read as `vivid run` reads it: data that is not VIVID data is refused as run refuses it (2); a
    # source that cannot be reached now (offline, `hf` not yet cached) leaves the spec valid, so that
    # specs of remote data validate offline, but says that run would stop until it can be read.
    unreadable = data_readiness(loaded)
    if unreadable is not None and not unreadable[0]:
        print(
            f"vivid validate: the data cannot be used, so vivid run would stop:\n{unreadable[1]}",
            file=sys.stderr,
        )
        return EXIT_BAD_SPEC
    cells = expand(loaded)
    print(
        f"{args.spec}: valid — {len(cells.generations)} generation, {len(cells.judges)} judge and "
        f"{len(cells.panels)} panel cells; logs in {loaded.log_dir}"
    )
    if unreadable is not None:
        print(
            "vivid validate: valid, but its data cannot be read now, so vivid run would stop before any "
            f"call (exit 2) until it can:\n{unreadable[1]}",
            file=sys.stderr,
        )
    return EXIT_OK


def _plan(args: argparse.Namespace) -> int:
    loaded = _load(args)
    if isinstance(loaded, int):
        return loaded
    from vivid_inspect.lab.runner.plan import make_plan
    from vivid_inspect.lab.runner.plan_text import render_plan

    try:
        print(render_plan(make_plan(loaded)))
    except SpecError as error:
        print(error, file=sys.stderr)
        return EXIT_BAD_SPEC
    return EXIT_OK


def _run(args: argparse.Namespace) -> int:
    loaded = _load(args)
    if isinstance(loaded, int):
        return loaded
    from vivid_inspect.data import VividDataError
    from vivid_inspect.lab.folder_lock import FolderBusy
    from vivid_inspect.lab.runner.execute import run_spec
    from vivid_inspect.lab.writable import FolderNotWritable

    try:
        result = run_spec(
            loaded,
            display=args.display,
            report=not args.no_report,
            preflight=not args.no_preflight,
            wait=args.wait,
            unscored_limit=args.unscored_limit,
        )
    except SetupError as error:
        return _nothing_run(error, EXIT_INCOMPLETE)
    except SpecError as error:
        return _nothing_run(error, EXIT_BAD_SPEC)
    except VividDataError as error:
        from vivid_inspect.lab.runner.prepare.data_message import spec_data_message

        message = spec_data_message(loaded, error)
        print(f"vivid run: the data cannot be used, nothing was run:\n{message}", file=sys.stderr)
        return EXIT_BAD_SPEC
    except FolderBusy as error:
        return _nothing_run(f"vivid run: {error}", EXIT_BUSY)
    except FolderNotWritable as error:
        print(
            f"vivid run: cannot write to the log folder {error.folder}: {error.reason}. Nothing was run "
            "and nothing in it changed; give a writable folder (log_dir, or --log-dir).",
            file=sys.stderr,
        )
        return EXIT_BAD_SPEC
    except KeyboardInterrupt as interrupt:
        print(f"\n{interrupted_line('vivid run', interrupt, f'vivid run {args.spec}')}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except OSError as error:  # a write that failed mid-run: the disk filled, the folder went away
        where = error.filename or loaded.log_dir
        print(
            f"vivid run: cannot write {where}: {error.strerror or error}. Finished work is kept; "
            f"`vivid run {args.spec}` resumes once it can be written.",
            file=sys.stderr,
        )
        return EXIT_INCOMPLETE
    _say_where(loaded, result.report_files)
    for line in result.unscored:
        print(f"vivid run: {line}", file=sys.stderr)
    if result.unscored:
        print(
            "vivid run: every log is kept, but a mean over the few explanations such a judge scored "
            "measures little; use an instruction-tuned judge or a larger context (docs/experiments.md).",
            file=sys.stderr,
        )
    if not result.ok:
        for message in result.progress.messages:
            print(f"  {message}", file=sys.stderr)
        print(
            f"vivid run: some cells (or audits) are incomplete; rerun `vivid run {args.spec}` to resume them.",
            file=sys.stderr,
        )
        return EXIT_INCOMPLETE
    return EXIT_UNSCORED if result.unscored else EXIT_OK


def _share(text: str) -> float:
    """``--unscored-limit``'s value: a share from 0 to 1."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a share from 0 to 1 (e.g. 0.2 for 20 %)")
    return value


RESUMES = "resumes, repeating only the calls that were in flight"


def interrupted_line(command: str, interrupt: KeyboardInterrupt, resume: str, again: str = RESUMES) -> str:
    """The one line a command prints on Ctrl-C: what was kept, and how to go on.

    Args:
        command: ``vivid run``, ``vivid audit``.
        interrupt: The interrupt; a `RunInterrupted` says which
            phase it stopped and how many finished samples its logs keep.
        resume: The command to run next.
        again: What that command does.

    Returns:
        ``vivid run: interrupted while generating runs[0]: 1 log interrupted, keeping 5 finished
        samples. Finished work is kept; `vivid run spec.yaml` resumes, repeating only the calls
        that were in flight.``
    """
    describe = getattr(interrupt, "describe", None)
    what = f" {describe()}" if callable(describe) else ""
    return f"{command}: interrupted{what}. Finished work is kept; `{resume}` {again}."


def _say_where(loaded: LoadedSpec, files: list[Path]) -> None:
    """Where the report, its files and the logs went: the last lines a run prints."""
    if files:
        folder = files[0].parent
        # Counted by kind, not listed: the list ran to 330 characters, past any terminal's width.
        kinds = {".csv": "tables (.csv)", ".png": "figures (.png)", ".tex": "LaTeX tables (.tex)"}
        counts = {label: sum(1 for path in files if path.suffix == suffix) for suffix, label in kinds.items()}
        extra = ", ".join(f"{n} {label}" for label, n in counts.items() if n)
        pages = " and ".join(path.name for path in files if path.suffix == ".md" and path.parent == folder)
        print(
            f"vivid run: report in {folder}: {pages or 'no markdown'}{'; ' + extra if extra else ''}",
            file=sys.stderr,
        )
    print(f"vivid run: logs in {loaded.log_dir}", file=sys.stderr)
    print(f"vivid run: browse them with `inspect view --log-dir {loaded.log_dir}`", file=sys.stderr)


def _add_common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "spec",
        help="the experiment spec (YAML), or the name of a bundled one (offline: the demo, from any folder)",
    )
    parser.add_argument(
        "--log-dir", help="use this log folder instead of the spec's log_dir (relative to the current folder)"
    )


def register(subparsers: Any) -> None:
    """Add the ``run``, ``plan`` and ``validate`` commands.

    Args:
        subparsers: The object ``ArgumentParser.add_subparsers()`` returned.
    """
    run = subparsers.add_parser(
        "run",
        help="run a spec, or resume it: only missing generations, judgements and panels are made",
        description="Generate with eval_set, judge every explanation log with every judge, "
        "aggregate the panel, save the resolved spec and a package freeze beside the logs, and "
        "build the report. A rerun does only what is missing.",
    )
    _add_common(run)
    run.add_argument(
        "--display",
        choices=DISPLAYS,
        default="compact",
        help="compact (default): vivid's progress lines and errors only; full, rich, plain or log: "
        "Inspect's display of each generation task; none: no progress at all",
    )
    run.add_argument("--no-report", action="store_true", help="skip the report step")
    run.add_argument(
        "--wait",
        action="store_true",
        help="if another vivid run is using the log folder, wait for it to finish instead of exiting (75)",
    )
    run.add_argument(
        "--no-preflight",
        action="store_true",
        help="skip the check that sends one request to each model endpoint before anything runs",
    )
    run.add_argument(
        "--unscored-limit",
        type=_share,
        default=UNSCORED_SHARE_LIMIT,
        metavar="SHARE",
        help="exit 1 when a judge leaves more than this share of a cell's explanations unscored "
        "(default 0.2: 20 %%)",
    )
    run.set_defaults(handler=_run)

    plan = subparsers.add_parser(
        "plan",
        help="dry run: every cell, the calls still to make per model, tokens and cost",
        description="Show every generation, judge and panel cell and whether it is done; the calls a "
        "run would make per model with estimated tokens and, when the spec gives prices, cost.",
    )
    _add_common(plan)
    plan.set_defaults(handler=_plan)

    validate = subparsers.add_parser(
        "validate",
        help="check a spec; every problem is reported with its YAML path (exit code 2)",
        description="Check a spec without running anything or reading API keys.",
    )
    _add_common(validate)
    validate.set_defaults(handler=_validate)
