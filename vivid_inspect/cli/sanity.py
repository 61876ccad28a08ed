"""``vivid sanity JUDGE``: the judge sanity check on the command line.

Exit codes: 0 the judge passed, 1 it failed (or the run could not finish, so it did not pass),
2 bad arguments or set-up (unknown option value, unknown model, missing API key, unreadable data).
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from typing import Any

import yaml
from rich.text import Text

from vivid_inspect.bounds import MAX_ITEMS
from vivid_inspect.sanity import (
    DEFAULT_LIMIT,
    DEFAULT_MAX_UNSCORED,
    DEFAULT_MIN_GAP,
    DEFAULT_MIN_SHARE,
    SanityError,
    run_sanity,
)
from vivid_inspect.scorers.judge_parse import MAX_SCORE
from vivid_inspect.scorers.judge_prompts import TEMPLATES

EXIT_PASS, EXIT_FAIL, EXIT_USAGE = 0, 1, 2

_EPILOG = """examples:
  vivid sanity vivid/chrf                                   # offline grader, no API key
  vivid sanity openai/gpt-4.1 --limit 40
  vivid sanity openai-api/local/qwen3 -M base_url=http://localhost:8000/v1 --strategy cot
exit codes: 0 pass, 1 fail (or the run did not finish), 2 bad arguments or set-up"""


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


def _bounded(kind: str, low: float, high: float) -> Any:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{kind} {text!r} is not a number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{kind} {text} is outside {low:g} to {high:g}")
        return value

    return parse


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"limit {text!r} is not a whole number") from None
    if not 1 <= value <= MAX_ITEMS:
        raise argparse.ArgumentTypeError(f"limit {value} must be between 1 and {MAX_ITEMS}")
    return value


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``sanity`` subcommand; its ``handler(args)`` runs it, returning the exit code.

    Args:
        subparsers: The object returned by ``ArgumentParser.add_subparsers()``.

    Returns:
        The subcommand's parser.
    """
    parser = subparsers.add_parser(
        "sanity",
        help="check a judge before trusting it: oracle vs literal explanations",
        description=textwrap.fill(
            "Run JUDGE on two offline explainers of the same items: vivid/oracle (the reference meaning, "
            "a perfect answer) and vivid/literal (a word-for-word paraphrase, a wrong answer for a "
            "figurative idiom). The judge passes when the oracle's mean score is at least --min-gap "
            "points higher, the oracle scores strictly higher on at least --min-share of the items, "
            "and no more than --max-unscored of its verdicts are unreadable. Prints a markdown report.",
            width=88,
        ),
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("judge", metavar="JUDGE", help="judge model, e.g. openai/gpt-4.1 or vivid/chrf")
    parser.add_argument(
        # The strategy names from the prompts module: the scorer module would import Inspect.
        "--strategy",
        choices=list(TEMPLATES),
        default="aspect",
        help="judge prompting strategy (default: aspect)",
    )
    parser.add_argument(
        "--data",
        default="sample",
        help="sample (default, bundled, offline), hf, a CSV path or an http(s) URL",
    )
    parser.add_argument(
        "--limit", type=_positive_int, default=DEFAULT_LIMIT, help=f"items to run (default: {DEFAULT_LIMIT})"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the item draw (default: 0)")
    parser.add_argument(
        "--min-gap",
        type=_bounded("min-gap", 0, MAX_SCORE),
        default=DEFAULT_MIN_GAP,
        help=f"least oracle-minus-literal mean gap, 0-{MAX_SCORE} (default: {DEFAULT_MIN_GAP})",
    )
    parser.add_argument(
        "--min-share",
        type=_bounded("min-share", 0, 1),
        default=DEFAULT_MIN_SHARE,
        help=f"least share of items where the oracle scores higher, 0-1 (default: {DEFAULT_MIN_SHARE})",
    )
    parser.add_argument(
        "--max-unscored",
        type=_bounded("max-unscored", 0, 1),
        default=DEFAULT_MAX_UNSCORED,
        help=f"largest share of unreadable judge verdicts, 0-1 (default: {DEFAULT_MAX_UNSCORED})",
    )
    parser.add_argument(
        "--log-dir", default=None, help="where to write the logs (default: $INSPECT_LOG_DIR, else ./logs)"
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
    parser.set_defaults(handler=run)
    return parser


def _plain(error: BaseException) -> str:
    # Inspect's set-up errors carry rich markup ("[bold]OPENAI_API_KEY[/bold]"); other messages
    # may hold brackets that are not markup ("ids [17]"), so only those are rendered.
    from vivid_inspect.inspect_private import PrerequisiteError

    if not isinstance(error, PrerequisiteError):
        return str(error)
    # Their text spans several lines with an empty one between; the CLIs print one line.
    try:
        return " ".join(Text.from_markup(str(error)).plain.split())
    except Exception:
        return " ".join(str(error).split())


def run(args: argparse.Namespace) -> int:
    """Run the sanity check named by parsed arguments, print the report, return the exit code."""
    from vivid_inspect.inspect_private import PrerequisiteError

    try:
        result = run_sanity(
            args.judge,
            strategy=args.strategy,
            data=args.data,
            limit=args.limit,
            seed=args.seed,
            min_gap=args.min_gap,
            min_share=args.min_share,
            max_unscored=args.max_unscored,
            model_args=dict(args.model_args),
            log_dir=args.log_dir,
        )
    except (ValueError, PrerequisiteError) as exc:
        print(f"vivid sanity: {_plain(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except SanityError as exc:
        print(f"vivid sanity: FAIL: {exc}", file=sys.stderr)
        return EXIT_FAIL
    # A blank line first: Inspect's task display may leave the cursor at the end of its last line.
    print()
    print(result.markdown())
    return EXIT_PASS if result.passed else EXIT_FAIL
