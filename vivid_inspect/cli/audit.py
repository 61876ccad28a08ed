"""``vivid audit JUDGE``: audit a judge with metamorphic probes; ``vivid audit --from LOG_DIR``: self-preference.

Exit codes: 0 no probe failed (an inconclusive probe is reported, not failed), 1 a probe failed
or the run did not finish, 2 bad arguments or set-up (a message, never a traceback).
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path
from typing import Any

from vivid_inspect.cli.sanity import _plain, _positive_int, model_arg
from vivid_inspect.scorers.judge_prompts import TEMPLATES

EXIT_PASS, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
DEFAULT_OUT = "audit"
"""Folder of audit.md, audit.csv and audit_shifts.png when --out is not given."""
PROBE_NAMES = "reference, spelling, partial, padding, wrong, literal, authority, injected_vi, injected_en, english, hedge"

_EPILOG = """examples:
  vivid audit vivid/chrf --data sample                      # offline grader, no API key
  vivid audit openai/gpt-4.1 --limit 40 --plan              # calls, tokens and cost; no call made
  vivid audit openai/gpt-4.1 --limit 40 --probes padding,injected_vi,injected_en
  vivid audit openai-api/local/qwen3 -M base_url=http://localhost:8000/v1 --data hf --translator openai/gpt-4.1-mini
  vivid audit --from logs/paper_table3 --family openai-api/local/qwen3=qwen
exit codes: 0 no probe failed, 1 a probe failed (or the run did not finish), 2 bad arguments or set-up"""


def _price(text: str) -> tuple[float, float]:
    parts = text.split(",")
    try:
        values = tuple(float(part) for part in parts)
    except ValueError:
        values = ()
    if len(values) != 2 or any(value < 0 for value in values):
        raise argparse.ArgumentTypeError(
            f"price {text!r} is not INPUT,OUTPUT (US dollars per million tokens, e.g. 2,8)"
        )
    return values[0], values[1]


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
            "Judge made-up candidates of known quality for each item with JUDGE: the reference, a "
            "respelling, a partial answer, the partial answer padded with filler, a wrong meaning of "
            "the same theme, a literal restatement, the wrong meaning after an appeal to authority or "
            "followed by an injected verdict (Vietnamese, English), the reference in English, and a "
            "hedge. Each probe has an expectation (see docs/audit.md); the card reports every probe's "
            "shift with a bootstrap interval, its robustness or sensitivity rate and a verdict, and "
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
    parser.add_argument(
        "--strategy",
        choices=list(TEMPLATES),
        default="aspect",
        help="judge prompting strategy (default: aspect)",
    )
    parser.add_argument(
        "--language",
        choices=["vi", "en"],
        default="vi",
        help="language of the judge's instructions (default: vi)",
    )
    parser.add_argument(
        "--data",
        default="sample",
        help="sample (default, bundled, offline), hf, a CSV path or an http(s) URL",
    )
    parser.add_argument(
        "--limit", type=_positive_int, default=None, help="items to audit, drawn with --seed (default: all)"
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the item draw, the derivations and the bootstrap (default: 0)",
    )
    parser.add_argument(
        "-M",
        "--model-arg",
        dest="model_args",
        type=model_arg,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="argument for the judge model, repeatable, e.g. -M base_url=http://localhost:8000/v1",
    )
    parser.add_argument(
        "--probes",
        default=None,
        metavar="A,B",
        help=f"probes to run (default: all: {PROBE_NAMES}); the probes they compare with are added",
    )
    parser.add_argument(
        "--translator",
        default=None,
        metavar="MODEL",
        help="model that translates the references for the english probe, one call per item, cached "
        "(needed for data other than the bundled sample, which ships translations)",
    )
    parser.add_argument(
        "--threshold",
        dest="thresholds",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override a verdict threshold, repeatable, e.g. --threshold min_rate=0.8 (docs/audit.md lists them)",
    )
    parser.add_argument("--plan", action="store_true", help="print calls, tokens and cost; call nothing")
    parser.add_argument(
        "--price",
        type=_price,
        default=None,
        metavar="IN,OUT",
        help="the judge's price for --plan, US dollars per million input,output tokens (e.g. 2,8)",
    )
    parser.add_argument(
        "--out",
        default=None,
        metavar="DIR",
        help=f"folder of the card's files (default: ./{DEFAULT_OUT}; with --from, LOG_DIR)",
    )
    parser.add_argument(
        "--log-dir",
        default=None,
        help="where to write the probe logs (default: $INSPECT_LOG_DIR, else ./logs)",
    )
    parser.add_argument(
        "--from",
        dest="from_dir",
        default=None,
        metavar="LOG_DIR",
        help="instead of JUDGE: estimate each judge's self-preference from a vivid run folder",
    )
    parser.add_argument(
        "--family",
        dest="family",
        action="append",
        default=None,
        metavar="MODEL=FAMILY",
        help="with --from: declare a model's family, repeatable (default: inferred from its name)",
    )
    parser.set_defaults(handler=run)
    return parser


def _usage(message: str) -> int:
    for line in message.splitlines() or [message]:
        print(f"vivid audit: {line}", file=sys.stderr)
    return EXIT_USAGE


def run(args: argparse.Namespace) -> int:
    """Run the audit named by parsed arguments, print the card, return the exit code."""
    if args.judge and args.from_dir:
        return _usage("give JUDGE (audit one judge) or --from LOG_DIR (self-preference), not both")
    if not args.judge and not args.from_dir:
        return _usage(
            "name the judge to audit (vivid audit JUDGE) or a run folder (vivid audit --from LOG_DIR)"
        )
    if args.from_dir:
        from vivid_inspect.cli.audit_from import handle_from

        return handle_from(args)
    if args.plan:
        return _plan(args)
    return _audit(args)


def _plan(args: argparse.Namespace) -> int:
    from vivid_inspect.audit.plan import Price, make_audit_plan

    try:
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


def _audit(args: argparse.Namespace) -> int:
    from vivid_inspect.audit.run import AuditError, run_audit
    from vivid_inspect.audit.verdicts import Thresholds
    from vivid_inspect.inspect_private import PrerequisiteError

    try:
        thresholds = Thresholds().with_overrides(args.thresholds)
    except ValueError as exc:
        return _usage(str(exc))
    out = Path(args.out or DEFAULT_OUT)
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
        )
    except (ValueError, PrerequisiteError) as exc:
        return _usage(_plain(exc))
    except AuditError as exc:
        print(f"vivid audit: FAIL: {exc}", file=sys.stderr)
        return EXIT_FAIL
    # A blank line first: Inspect's task display may leave the cursor at the end of its last line.
    print()
    print(card.markdown())
    print(f"Written to {out}: audit.md, audit.csv, audit_shifts.png")
    return card.exit_code
