"""``vivid audit --from LOG_DIR``: self-preference of the judges in a run folder.

``vivid audit``'s parser (`vivid_inspect.lab.cli.audit`) calls `handle_from` when
``--from`` is given. Exit codes: 0 no judge is flagged, 1 a judge favours its own family beyond its
interval, 2 bad input (a bad ``--seed``, no such folder, no generation logs, a bad ``--family``) or
a design that cannot separate self-preference from leniency and scale (fewer than two generators
or three judges, a generator no item of which every judge scored, own-family cells the others
cannot link, scores too uniform to fit a judge's scale), with what to add.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from vivid_inspect.text import printable

# The commands' work is imported inside their handlers, not here: `vivid --help` imports every
# command's module and must stay under a second (tests/lab/cli/test_cli_startup.py, bench/cli_startup.py).

EXIT_BAD_INPUT = 2


def handle_from(args: argparse.Namespace) -> int:
    """Estimate self-preference from ``args.from_dir``, print the card and write its files.

    Args:
        args: ``from_dir`` (the log folder), ``family`` (``MODEL=FAMILY`` strings or None),
            ``seed`` (checked like ``vivid audit``'s, but unused: the estimate draws nothing at
            random) and ``out`` (output folder; default the log folder).

    Returns:
        The card's exit code (0 or 1), or 2 on bad input, with the reason on stderr.
    """
    from vivid_inspect.lab.audit.family import FamilyError, parse_family_args
    from vivid_inspect.lab.audit.verdicts import seed_problem
    from vivid_inspect.lab.self_preference.card import SelfPreferenceError
    from vivid_inspect.lab.self_preference.run import run_self_preference

    seed = getattr(args, "seed", None)
    out = getattr(args, "out", None)
    try:
        # vivid audit's one seed rule, before any log is read, though --from draws nothing with it.
        if seed is not None and (problem := seed_problem(seed)) is not None:
            raise SelfPreferenceError(problem)
        families = parse_family_args(getattr(args, "family", None))
        card = run_self_preference(args.from_dir, families=families, out_dir=Path(out) if out else None)
    except (FamilyError, SelfPreferenceError) as error:
        for line in str(error).splitlines():
            print(f"vivid audit --from: {line}", file=sys.stderr)
        return EXIT_BAD_INPUT
    sys.stdout.write(printable(card.markdown(), lines=True))  # judge names from the logs, escaped
    written = ", ".join(path.name for path in card.files)
    folder = card.files[0].parent if card.files else None
    print(f"vivid audit --from: wrote {written} to {folder}", file=sys.stderr)
    return card.exit_code
