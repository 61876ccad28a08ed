"""``vivid audit JUDGE``: audit a judge with metamorphic probes; ``vivid audit --from LOG_DIR``: self-preference.

``vivid sanity JUDGE`` is a short form of ``vivid audit JUDGE --probes literal --limit 40``: does
the judge tell the reference meaning from a literal reading (with the control and the reference
it is compared with), with the audit's endpoint check, progress bar and card.

Exit codes: 0 no probe failed (an inconclusive probe is reported, not failed), 1 a probe failed
or the run did not finish, 2 bad arguments or set-up (a message, never a traceback), 3 no probe
failed but some are inconclusive because the judge's replies were unreadable (more than
``max_unscored`` of a probe's items unscored).
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

import yaml

from vivid_inspect.bounds import MAX_ITEMS
from vivid_inspect.judge_id import DEFAULT_LANGUAGE, DEFAULT_STRATEGY, JUDGE_LANGUAGES, LLM_STRATEGIES
from vivid_inspect.lab.output_root import DEFAULT_OUTPUT_DIR, OUTPUT_ENV, output_dir
from vivid_inspect.text import printable, unmarked

# The commands' work is imported inside their handlers, not here: `vivid --help` imports every
# command's module and must stay under a second (tests/lab/cli/test_cli_startup.py, bench/cli_startup.py).

EXIT_PASS, EXIT_FAIL, EXIT_USAGE, EXIT_UNREADABLE = 0, 1, 2, 3
DEFAULT_OUT = "audit"
"""Folder of audit.md, audit.csv and audit_shifts.png under the output root when --out is not given."""
SANITY_PROBES = "literal"
"""What ``vivid sanity`` runs: the literal probe, with the reference it is compared with and the control."""
SANITY_LIMIT = 40
"""Items of ``vivid sanity`` by default: about 100 judge calls, cheap for any API judge."""
SANITY_OUT = "sanity"
"""Folder of ``vivid sanity``'s card under the output root when --out is not given (a full audit's: audit)."""
LOGS = "logs"
"""The probe logs' folder inside ``<output root>/audit`` (``/sanity``) when --log-dir is not given."""
_GONE = {"min_gap": "--min-gap", "min_share": "--min-share", "max_unscored": "--max-unscored"}
"""Options of the former ``vivid sanity``, refused with what replaces them."""
PROBE_NAMES = (
    "retest (the control), reference, spelling, partial, padding, wrong, literal, authority, injected_vi, "
    "injected_en, english, hedge"
)

_EPILOG = """examples:
  vivid audit vivid/chrf --data sample                      # offline grader, no API key
  vivid audit openai/gpt-4.1 --limit 40 --plan              # calls, tokens and cost; no call made
  vivid audit openai/gpt-4.1 --limit 40 --probes padding,injected_vi,injected_en
  vivid audit openai-api/local/qwen3 -M base_url=http://localhost:8000/v1 --data hf --translator openai/gpt-4.1-mini
  vivid audit --from logs/paper_table3 --family openai-api/local/qwen3=qwen
exit codes: 0 no probe failed, 1 a probe failed (or the run did not finish), 2 bad arguments or set-up"""


def model_arg(text: str) -> tuple[str, Any]:
    """Parse one ``-M key=value`` as Inspect does: ``-`` in the key becomes ``_``, the value is YAML.

    Raises:
        argparse.ArgumentTypeError: If there is no ``=`` or the key is empty.
    """
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(
            f"model argument {text!r} is not key=value (e.g. base_url=http://...)"
        )
    try:
        value = yaml.safe_load(raw)
    except yaml.YAMLError:
        value = raw
    return key.strip().replace("-", "_"), raw if value is None else value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"limit {text!r} is not a whole number") from None
    if not 1 <= value <= MAX_ITEMS:
        raise argparse.ArgumentTypeError(f"limit {value} must be between 1 and {MAX_ITEMS}")
    return value


def _plain(error: BaseException) -> str:
    # Inspect's set-up errors carry rich markup ("[bold]OPENAI_API_KEY[/bold]"); other messages
    # may hold brackets that are not markup ("ids [17]"), so only those are rendered.
    from vivid_inspect.inspect_private import PrerequisiteError

    # Their text spans several lines with an empty one between; the CLIs print one line.
    return unmarked(str(error)) if isinstance(error, PrerequisiteError) else str(error)


def _price(text: str) -> tuple[float, float]:
    parts = text.split(",")
    try:
        values = tuple(float(part) for part in parts)
    except ValueError:
        values = ()
    # float() reads "nan" and "inf": a price must be a real amount of dollars.
    if len(values) != 2 or any(not math.isfinite(value) or value < 0 for value in values):
        raise argparse.ArgumentTypeError(
            f"price {text!r} is not INPUT,OUTPUT (US dollars per million tokens, each a number 0 or "
            "more, e.g. 2,8)"
        )
    return values[0], values[1]


def _seed(text: str) -> int:
    # The audit's one seed rule (numpy's generators take a whole number, 0 or more), applied here so
    # that a bad seed is refused before any judge call.
    from vivid_inspect.lab.audit.verdicts import seed_problem

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seed {text!r} is not a whole number") from None
    problem = seed_problem(value, "seed")
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return value


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``audit`` subcommand; its ``handler(args)`` runs it, returning the exit code.

    Args:
        subparsers: The object returned by ``ArgumentParser.add_subparsers()``.

    Returns:
        The subcommand's parser.
    """
    parser = subparsers.add_parser(
        "audit",
        help="audit a judge's biases with metamorphic probes (or self-preference, --from)",
        description=textwrap.fill(
            "Judge made-up candidates of known quality for each item with JUDGE: the reference, the "
            "reference again (the control: the judge's test-retest noise), a respelling, a partial answer, the partial answer padded with filler, a wrong meaning of "
            "the same theme, a literal restatement, the wrong meaning after an appeal to authority or "
            "followed by an injected verdict (Vietnamese, English), the reference in English, and a "
            "hedge. Each probe has an expectation (see docs/audit.md); the card reports every probe's "
            "shift with its interval, its flips beyond the control's or its sensitivity rate and a "
            "verdict, and "
            "is written to --out as audit.md, audit.csv and audit_shifts.png. One Inspect log per "
            "probe (inspect view). With --from LOG_DIR instead of JUDGE: the self-preference of the "
            "judges in a vivid run folder.",
            width=88,
        ),
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "judge", metavar="JUDGE", nargs="?", help="judge model, e.g. openai/gpt-4.1 or vivid/chrf"
    )
    # Defaults of the JUDGE mode are filled in by run(): None tells an option given with --from.
    _judge_options(parser, limit=None, seed_note="; --from draws nothing")
    parser.add_argument(
        "--probes",
        metavar="A,B",
        help=f"probes to run (default: every probe the data allows: {PROBE_NAMES}; english needs the "
        "bundled sample or --translator); the probes they compare with, and the control, are added",
    )
    parser.add_argument(
        "--translator",
        metavar="MODEL",
        help="model that translates the references for the english probe, one call per item, cached "
        "(without it, english runs only on the bundled sample, which ships translations)",
    )
    _threshold_option(parser)
    parser.add_argument("--plan", action="store_true", help="print calls, tokens and cost; call nothing")
    parser.add_argument(
        "--price",
        type=_price,
        metavar="IN,OUT",
        help="the judge's price for --plan, US dollars per million input,output tokens (e.g. 2,8)",
    )
    _folder_options(parser, DEFAULT_OUT, "; with --from, LOG_DIR")
    parser.add_argument(
        "--from",
        dest="from_dir",
        metavar="LOG_DIR",
        help="instead of JUDGE: estimate each judge's self-preference from a vivid run folder (at least "
        "three judges and two generators scoring the same items; each judge's leniency and scale are "
        "fitted, see docs/audit.md)",
    )
    parser.add_argument(
        "--family",
        action="append",
        metavar="MODEL=FAMILY",
        help="with --from: declare a model's family, repeatable (default: inferred from its name)",
    )
    parser.set_defaults(handler=run)
    return parser


def register_sanity(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``sanity``, the short form of ``audit JUDGE --probes literal --limit 40``.

    Args:
        subparsers: The object returned by ``ArgumentParser.add_subparsers()``.

    Returns:
        The subcommand's parser.
    """
    parser = subparsers.add_parser(
        "sanity",
        help="check a judge before trusting it: the reference vs a literal reading (a short audit)",
        description=textwrap.fill(
            "Check JUDGE before trusting it: the audit's literal probe (vivid audit JUDGE --probes "
            f"literal --limit {SANITY_LIMIT}). The judge scores the reference meaning of each item (a "
            "perfect answer), the reference again (the control: its own noise) and vivid/literal's "
            "word-for-word restatement of the idiom (a wrong answer for a figurative idiom). It "
            "passes (exit 0) when both probes pass: the reference scored high, the literal reading at "
            "most 1 (docs/audit.md); a probe that fails or is inconclusive is exit 1, inconclusive from unreadable replies 3. "
            "The endpoint is checked first; the card is printed and written to --out.",
            width=88,
        ),
        epilog=_SANITY_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("judge", metavar="JUDGE", help="judge model, e.g. openai/gpt-4.1 or vivid/chrf")
    _judge_options(parser, limit=SANITY_LIMIT)
    _threshold_option(parser)
    _folder_options(parser, SANITY_OUT)
    for dest, flag in _GONE.items():
        parser.add_argument(flag, dest=dest, help=argparse.SUPPRESS)
    parser.set_defaults(handler=run_sanity, probes=SANITY_PROBES, translator=None)
    return parser


_SANITY_EPILOG = """examples:
  vivid sanity vivid/chrf                                   # offline grader, no API key
  vivid sanity openai/gpt-4.1 --limit 20
  vivid sanity openai-api/local/qwen3 -M base_url=http://localhost:8000/v1 --strategy cot
exit codes: 0 pass, 1 fail or inconclusive (or the run did not finish), 2 bad arguments or set-up"""


def _judge_options(parser: argparse.ArgumentParser, *, limit: int | None, seed_note: str = "") -> None:
    """The options of a judge audit that ``vivid sanity`` shares: strategy, language, data, items, -M."""
    parser.add_argument(
        "--strategy", choices=list(LLM_STRATEGIES), help="judge prompting strategy (default: aspect)"
    )
    parser.add_argument(
        "--language", choices=list(JUDGE_LANGUAGES), help="language of the judge's instructions (default: vi)"
    )
    parser.add_argument("--data", help="sample (default, bundled, offline), hf, a CSV path or an http(s) URL")
    parser.add_argument(
        "--limit",
        type=_positive_int,
        default=limit,
        help=f"items to audit, drawn with --seed (default: {limit or 'all'})",
    )
    parser.add_argument(
        "--seed",
        type=_seed,
        default=0,
        help=f"seed of the item draw, the derivations and the bootstrap (default: 0{seed_note})",
    )
    parser.add_argument(
        "-M",
        "--model-arg",
        dest="model_args",
        type=model_arg,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="argument for the judge model, repeatable, e.g. -M base_url=http://localhost:8000/v1 "
        "(none for vivid/chrf)",
    )


def _threshold_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--threshold",
        dest="thresholds",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override a verdict threshold, repeatable, e.g. --threshold min_rate=0.8 (docs/audit.md lists them)",
    )


def _folder_options(parser: argparse.ArgumentParser, name: str, note: str = "") -> None:
    where = f"${OUTPUT_ENV}/{name}, else ./{DEFAULT_OUTPUT_DIR}/{name}"
    parser.add_argument("--out", metavar="DIR", help=f"folder of the card's files (default: {where}{note})")
    parser.add_argument(
        "--log-dir",
        help=f"where to write the probe logs (default: ${OUTPUT_ENV}/{name}/{LOGS}, else "
        f"./{DEFAULT_OUTPUT_DIR}/{name}/{LOGS}; not ./logs, plain inspect eval's)",
    )


def fill_defaults(args: argparse.Namespace, name: str) -> None:
    """Fill in the JUDGE mode's options not given: strategy, language, data, and the two folders.

    ``--out`` is ``<output root>/NAME`` and ``--log-dir`` ``<output root>/NAME/logs``. The logs'
    default does not follow ``--out``: a card written elsewhere keeps its logs under the root, and
    an unusable ``--out`` is one problem, not two.

    Args:
        args: The parsed arguments of ``vivid audit JUDGE`` or ``vivid sanity``; changed in place.
        name: The card's folder under the output root (`vivid_inspect.lab.output_root`).
    """
    args.strategy = args.strategy or DEFAULT_STRATEGY
    args.language = args.language or DEFAULT_LANGUAGE
    args.data = args.data or "sample"
    args.out = args.out or str(output_dir(name))
    args.log_dir = args.log_dir or str(output_dir(name) / LOGS)


def _usage(message: str, command: str = "audit") -> int:
    for line in message.splitlines() or [message]:
        if line.strip():
            print(f"vivid {command}: {line}", file=sys.stderr)
    return EXIT_USAGE


def run_sanity(args: argparse.Namespace) -> int:
    """Run ``vivid sanity`` (the audit's literal probe) from parsed arguments; return the exit code."""
    gone = [_GONE[dest] for dest in _GONE if getattr(args, dest) is not None]
    if gone:
        return _usage(
            f"{', '.join(gone)}: gone, vivid sanity is now the audit's literal probe, whose verdicts have "
            "their own bounds: --threshold high_floor=... (the reference), ceiling=... (the literal "
            "reading), max_unscored=... (docs/audit.md lists them)",
            "sanity",
        )
    fill_defaults(args, SANITY_OUT)
    return _audit(args, "sanity")


# Options of the JUDGE mode that --from does not read, by their argparse destination.
_JUDGE_ONLY = {
    "plan": "--plan",
    "probes": "--probes",
    "thresholds": "--threshold",
    "limit": "--limit",
    "data": "--data",
    "strategy": "--strategy",
    "language": "--language",
    "translator": "--translator",
    "model_args": "-M",
    "price": "--price",
    "log_dir": "--log-dir",
}


def _unused_options(args: argparse.Namespace) -> list[str]:
    """Options given that the chosen mode would ignore: each is a mistake worth a message."""
    if args.from_dir:
        given = [flag for dest, flag in _JUDGE_ONLY.items() if getattr(args, dest) not in (None, False, [])]
        return [
            f"{flag} does not apply with --from (it audits the judges already in LOG_DIR)" for flag in given
        ]
    unused = []
    if args.family is not None:
        unused.append("--family applies only with --from LOG_DIR")
    if args.price is not None and not args.plan:
        unused.append("--price applies only with --plan")
    return unused


def _writable_folder(path: str, option: str) -> str | None:
    """Why ``path`` cannot hold files (one line naming the option and the path); None when it can.

    Nothing is created: the nearest folder that exists must be a folder where a file can be
    written (one is written and removed), so that an existing file, a path under a file or a
    read-only place is refused before any call.
    """
    if "://" in path:  # a remote log folder (s3://...): Inspect checks it itself
        return None
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        return f"{option} {path}: is a file, not a folder"
    existing = next(parent for parent in (folder, *folder.absolute().parents) if parent.exists())
    if not existing.is_dir():
        return f"{option} {path}: {existing} is a file, not a folder"
    try:
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as error:
        return f"{option} {path}: cannot write in {existing} ({error.strerror or type(error).__name__})"
    return None


def run(args: argparse.Namespace) -> int:
    """Run the audit named by parsed arguments, print the card, return the exit code."""
    if args.judge and args.from_dir:
        return _usage("give JUDGE (audit one judge) or --from LOG_DIR (self-preference), not both")
    if not args.judge and not args.from_dir:
        return _usage(
            "name the judge to audit (vivid audit JUDGE) or a run folder (vivid audit --from LOG_DIR)"
        )
    unused = _unused_options(args)
    if unused:
        return _usage("\n".join(unused))
    if args.from_dir:
        from vivid_inspect.lab.cli.audit_from import handle_from

        return handle_from(args)
    fill_defaults(args, DEFAULT_OUT)
    if args.plan:
        return _plan(args)
    return _audit(args)


def _plan(args: argparse.Namespace) -> int:
    from vivid_inspect.lab.audit.plan import Price, make_audit_plan
    from vivid_inspect.lab.audit.run import check_judge_args, check_roles
    from vivid_inspect.lab.audit.verdicts import Thresholds

    try:
        # Checked as a run checks them: a plan of an audit that would be refused is no plan.
        Thresholds().with_overrides(args.thresholds)
        check_judge_args(args.judge, dict(args.model_args))
        check_roles(args.judge, args.translator)
        plan = make_audit_plan(
            args.judge,
            strategy=args.strategy,
            language=args.language,
            data=args.data,
            limit=args.limit,
            seed=args.seed,
            probes=args.probes,
            translator=args.translator,
            price=Price(*args.price) if args.price else None,
        )
    except ValueError as exc:
        return _usage(str(exc))
    print(plan.text())
    return EXIT_PASS


def _say_left_out(prepared: Any) -> None:
    """Print, before any call, one line per probe the data cannot make (``english`` without translations)."""
    for line in prepared.left_out:
        print(f"vivid audit: {line}", file=sys.stderr)


def _audit(args: argparse.Namespace, command: str = "audit") -> int:
    from vivid_inspect.inspect_private import PrerequisiteError
    from vivid_inspect.lab.audit.run import AuditError, run_audit
    from vivid_inspect.lab.audit.verdicts import Thresholds, share_text, unreadable_probes

    try:
        thresholds = Thresholds().with_overrides(args.thresholds)
    except ValueError as exc:
        return _usage(str(exc), command)
    out = Path(args.out or DEFAULT_OUT)
    log_dir = args.log_dir  # fill_defaults gave it a default under the output root
    problems = [
        problem
        for problem in (_writable_folder(str(out), "--out"), _writable_folder(log_dir, "--log-dir"))
        if problem
    ]
    if problems:
        return _usage("\n".join(problems), command)
    try:
        card = run_audit(
            args.judge,
            strategy=args.strategy,
            language=args.language,
            data=args.data,
            limit=args.limit,
            seed=args.seed,
            probes=args.probes,
            model_args=dict(args.model_args),
            translator=args.translator,
            thresholds=thresholds,
            log_dir=args.log_dir,
            out_dir=out,
            progress=True,
            on_prepared=_say_left_out,
        )
    except (ValueError, PrerequisiteError) as exc:
        return _usage(_plain(exc), command)
    except OSError as exc:
        # Writing the card (the folder was checked, but a disk can fill or a folder go away).
        where = f" {exc.filename}" if exc.filename else ""
        return _usage(f"cannot write{where}: {exc.strerror or exc}", command)
    except AuditError as exc:
        print(f"vivid {command}: FAIL: {exc}", file=sys.stderr)
        return EXIT_FAIL
    print(printable(card.markdown(), lines=True))
    print(f"Written to {out}: audit.md, audit.csv, audit_shifts.png")
    unreadable = unreadable_probes(card.results, card.thresholds)
    if card.passed and unreadable:
        print(
            f"vivid {command}: INCONCLUSIVE because the judge's replies were unreadable: more than "
            f"{share_text(card.thresholds.max_unscored)} of the items unscored in {len(unreadable)} of "
            f"{len(card.results)} probes ({', '.join(unreadable)}); the card's logs show the replies. A judge "
            "must be an instruction-tuned model that can follow the score format.",
            file=sys.stderr,
        )
        return EXIT_UNREADABLE
    if command == "sanity" and card.passed and card.verdict != "pass":
        # A check to pass before trusting a judge: not shown sound is not a pass (an unreadable judge
        # leaves every probe inconclusive).
        print(
            "vivid sanity: not passed: an inconclusive probe is not a pass; more items (--limit) may decide",
            file=sys.stderr,
        )
        return EXIT_FAIL
    return card.exit_code
