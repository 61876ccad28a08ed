"""``vivid data check`` (the code order) and ``vivid data leakage`` (what the tasks leave out).

``check``: is the code order in taxonomy.py the one the data's prevalences support? ``leakage``:
which items the tasks leave out as idioms they show with their answers, or near-duplicates of them.

Exit codes of check: 0 the best-fitting assignment is taxonomy.py's (or the source is too small to
tell), 1 it differs, 2 the data cannot be read. Of leakage: 0 listed, 2 the data cannot be read or
the threshold is out of range.
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Any

# The commands' work is imported inside their handlers, not here: `vivid --help` imports every
# command's module and must stay under a second (tests/lab/cli/test_cli_startup.py, bench/cli_startup.py).

EXIT_AGREES, EXIT_DIFFERS, EXIT_BAD_DATA = 0, 1, 2

_EPILOG = """examples:
  vivid data check --data sample                 # the bundled 47 rows: too few to tell
  vivid data check --data ~/VIVID_Dataset.csv    # the real file: settles the code order
  vivid data check                               # $VIVID_DATA, else the pinned hf release
exit codes: 0 taxonomy.py fits best (or too few rows to tell), 1 another order fits better,
2 the data cannot be read"""


_LEAKAGE_EPILOG = """examples:
  vivid data leakage --data sample                   # the bundled rows: one few-shot idiom
  vivid data leakage --data ~/VIVID_Dataset.csv --closest 10
  vivid data leakage --threshold 0.9                 # what -T leakage_threshold=0.9 would leave out
exit codes: 0 listed, 2 the data cannot be read or the threshold is out of range"""


def register(subparsers: Any) -> None:
    """Add ``vivid data`` and its ``check`` and ``leakage`` commands."""
    data = subparsers.add_parser(
        "data",
        help="check the data against the paper (vivid data check); list what the tasks leave out (vivid data leakage)",
        description="Commands about the VIVID data set.",
    )
    commands = data.add_subparsers(dest="data_command", required=True, metavar="COMMAND")
    check = commands.add_parser(
        "check",
        help="compare each code's prevalence with the paper and find the code order that fits best",
        description=(
            "Load the data, print the share of rows carrying each trait and theme code beside the "
            "paper's figures, and the assignment of names to codes that best fits those figures. "
            "Exits 1 when that assignment differs from vivid_inspect/taxonomy.py."
        ),
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    leakage = commands.add_parser(
        "leakage",
        help="list the items the tasks leave out as shown idioms or near-duplicates, with their pairs",
        description=(
            "Compare every idiom of the data with every idiom a task shows with its answer (the topic "
            "and traits demonstrations, the explain few-shot demonstrations, the judges' graded "
            "examples) and list each item the tasks leave out: its id, the similarity, the idiom it "
            "resembles and which tasks show that idiom. The same comparison the tasks make when they "
            "load the data (vivid_inspect/data/leakage.py; docs/tasks.md, 'What is left out and why')."
        ),
        epilog=_LEAKAGE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    for command in (check, leakage):
        command.add_argument(
            "--data",
            metavar="SOURCE",
            help="sample, hf, an http(s) URL or a CSV path (default: $VIVID_DATA, else hf)",
        )
    check.add_argument(
        "--duplicates", action="store_true", help="also list every row that repeats an earlier idiom"
    )
    check.set_defaults(handler=run_check)
    leakage.add_argument(
        "--threshold",
        metavar="T",
        help="similarity from which an item is left out, 0.6 to 1 (default: the tasks' 0.75)",
    )
    leakage.add_argument(
        "--closest",
        type=int,
        default=0,
        metavar="N",
        help="also list the N most similar pairs below the threshold (to judge a threshold)",
    )
    leakage.set_defaults(handler=run_leakage)


def run_check(args: argparse.Namespace) -> int:
    """Run ``vivid data check`` and return its exit code."""
    from vivid_inspect.data import VividDataError, find_duplicates, load_items
    from vivid_inspect.data.prevalence import MIN_ROWS, fit_map
    from vivid_inspect.data.prevalence import logger as prevalence_logger

    # The load's own one-line warning about the code order would only repeat what follows.
    level = prevalence_logger.level
    prevalence_logger.setLevel(logging.ERROR)
    try:
        source, items = load_items(args.data)
    except VividDataError as error:
        print(f"vivid data check: the data cannot be used:\n{error}", file=sys.stderr)
        return EXIT_BAD_DATA
    finally:
        prevalence_logger.setLevel(level)

    print(f"{source}: {len(items):,} rows")
    duplicates = find_duplicates(list(items))
    print(f"Rows repeating an earlier idiom: {len(duplicates):,}")
    if args.duplicates:
        for duplicate in duplicates:
            print(f"  - {duplicate.describe()}")

    enough = len(items) >= MIN_ROWS
    fits = [fit_map(items, "traits"), fit_map(items, "themes")]
    for fit in fits:
        print()
        print(_table(fit, with_best=enough))
    print()
    if not enough:
        print(
            f"Too few rows to tell: {len(items):,} rows, the check needs at least {MIN_ROWS:,} (the real file "
            "has 1,636). The shares above are shown for information only."
        )
        return EXIT_AGREES
    verdicts = [_verdict(fit) for fit in fits]
    print("\n".join(verdicts))
    if all(fit.agrees for fit in fits):
        return EXIT_AGREES
    print(
        "\nTo adopt the best-fitting order, reorder THEMES/TRAITS in vivid_inspect/taxonomy.py (one line "
        "each: code, name, Vietnamese label) and rerun this check; results already computed keep the "
        "old names."
    )
    return EXIT_DIFFERS


def _table(fit: Any, *, with_best: bool) -> str:
    title = (
        "Traits (share of rows with the column set to 1)"
        if fit.kind == "traits"
        else "Themes (share of rows)"
    )
    header = f"  {'code':<5}{'column':<36}{'data':>7}   {'taxonomy.py name':<22}{'paper':>7}"
    if with_best:
        header += f"   {'best fit':<22}{'paper':>7}{'diff':>7}"
    lines = [title, header]
    for code in fit.codes:
        line = (
            f"  {code.code:<5}{code.column:<36}{code.observed:>6.1f}%   {code.mapped:<22}"
            f"{fit.paper[code.mapped]:>6.1f}%"
        )
        if with_best:
            marker = "" if code.best == code.mapped else "  <- differs"
            gap = round(fit.gap(code.best, code), 1) or 0.0  # never print "-0.0"
            line += f"   {code.best:<22}{fit.paper[code.best]:>6.1f}%{gap:>+7.1f}{marker}"
        lines.append(line)
    return "\n".join(lines)


def _verdict(fit: Any) -> str:
    from vivid_inspect.data.prevalence import UNLIKE_PAPER

    unlike = (
        f" No assignment fits well (largest gap {fit.largest_gap:.1f} points): this file does not look like "
        "the paper's data, so it says little about the code order."
        if fit.largest_gap > UNLIKE_PAPER
        else ""
    )
    if fit.agrees:
        return (
            f"{fit.kind}: the best-fitting assignment is the one in vivid_inspect/taxonomy.py "
            f"(largest gap {fit.largest_gap:.1f} points).{unlike}"
        )
    moved = ", ".join(
        f"code {code.code} fits {code.best!r} (taxonomy.py: {code.mapped!r})" for code in fit.differing
    )
    return f"{fit.kind}: the best-fitting assignment DIFFERS from vivid_inspect/taxonomy.py: {moved}.{unlike}"


def _shown_where() -> list[tuple[Any, str]]:
    """Every idiom a task shows with its answer, and which tasks show it (demonstrations first)."""
    from vivid_inspect.data.leakage import shown_idioms
    from vivid_inspect.scorers.judge_prompts import judge_example_idioms
    from vivid_inspect.solvers.classify_prompts import DEMONSTRATIONS
    from vivid_inspect.solvers.explain_prompts import EXPLAIN_DEMONSTRATIONS

    where: dict[str, str] = {}
    for number, demo in enumerate(DEMONSTRATIONS, 1):
        where[demo.idiom] = f"topic and traits demonstration {number} (shots >= {number})"
    for idiom, _ in EXPLAIN_DEMONSTRATIONS:
        where.setdefault(idiom, "explain few-shot demonstration (every prompt)")
    for idiom in judge_example_idioms():
        where.setdefault(idiom, "explain judge example (every prompt)")
    shown = shown_idioms(
        [demo.idiom for demo in DEMONSTRATIONS] + [idiom for idiom, _ in EXPLAIN_DEMONSTRATIONS],
        judge_example_idioms(),
    )
    return [(one, where[one.idiom]) for one in shown]


def run_leakage(args: argparse.Namespace) -> int:
    """Run ``vivid data leakage`` and return its exit code."""
    from vivid_inspect.data import VividDataError, load_items
    from vivid_inspect.data.leakage import NEAR_DUPLICATE_THRESHOLD, check_threshold, resemblance, similarity

    try:
        threshold = check_threshold(
            NEAR_DUPLICATE_THRESHOLD if args.threshold is None else _number(args.threshold)
        )
    except ValueError as error:
        print(f"vivid data leakage: --threshold: {error}", file=sys.stderr)
        return EXIT_BAD_DATA
    try:
        source, items = load_items(args.data)
    except VividDataError as error:
        print(f"vivid data leakage: the data cannot be used:\n{error}", file=sys.stderr)
        return EXIT_BAD_DATA

    shown = _shown_where()
    print(
        f"{source}: {len(items):,} rows; {len(shown)} idioms shown with their answers, "
        f"similarity >= {threshold:g} leaves an item out"
    )
    # The tasks' own rule picks what is left out (the closest shown idiom, a demonstration on a tie).
    where = {one.idiom: told for one, told in shown}
    listed = [one for one, _ in shown]
    left_out = [(item, resemblance(item.idiom, listed, threshold)) for item in items]
    kept = [item for item, close in left_out if close is None]
    print(f"Left out: {len(items) - len(kept):,} of {len(items):,} rows")
    for item, close in left_out:
        if close is not None:
            print(_pair_line(close.similarity, item, close.resembles, where[close.resembles]))
    if args.closest > 0:
        nearest = [
            max((similarity(item.idiom, one), -rank, one) for rank, one in enumerate(where)) + (item,)
            for item in kept
        ]
        below = sorted((pair for pair in nearest if pair[0] > 0), key=lambda pair: (-pair[0], pair[3].id))
        print(f"\nClosest below the threshold ({min(len(below), args.closest)}):")
        for score, _, one, item in below[: args.closest]:
            print(_pair_line(score, item, one, where[one]))
    return EXIT_AGREES


def _number(text: str) -> object:
    try:
        return float(text)
    except ValueError:
        return text


def _pair_line(score: float, item: Any, shown: str, where: str) -> str:
    return f"  id {item.id}  {score:.3f}  «{item.idiom}» ~ «{shown}»: {where}"
