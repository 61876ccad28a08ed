"""Coverage, false-positive rate and power of every interval and test the tool prints, by simulation.

Each section plants known values (a kappa, a mean, a bias, a self-preference, ...), draws data from
them many times, runs the project's own statistics on each draw (the functions the report and the
audit call, never a copy) and counts how often the printed interval holds the planted value, how
often a test flags when nothing is planted, and how often it flags what is.

    python bench/coverage.py                 # every section, full repetitions
    python bench/coverage.py --quick         # every section, few repetitions (a smoke check, < 1 min)
    python bench/coverage.py --only kappa,means --reps 2000
    python bench/coverage.py --markdown bench/coverage.md   # also write the tables to a file

A section is a module ``bench/coverage_<name>.py`` listed in :data:`SECTIONS`, with
``run(reps: int, quick: bool, seed: int) -> list[CoverageTable]``. Results are pasted into
``bench/results.md`` by hand, with the date and the commit.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from coverage_common import CoverageTable, header_lines  # noqa: E402

SECTIONS: dict[str, str] = {
    # name: what it shows (the module is coverage_<name>.py)
    "means": "the mean and paired mean-difference intervals of 0-5 scores (Tables 1, 3, 4, judge differences)",
    "kappa": "Cohen's kappa intervals, unweighted and quadratic (Table 1, judge pairs)",
    "raters": "the mean per-annotator kappa interval (Table 1's kappa_per_annotator)",
    "consistency": "the self-consistency kappa interval (judge_consistency)",
    "differences": "the paired kappa-difference interval of two judges (judge_differences)",
    "ppi": "the corrected (prediction-powered) means, human-only means and judge bias (Tables 3, 4, judge card)",
    "allocation": "labels spread over generations by the residual spread, against equal allocation (annotate serve --plan)",
    "alt_test": "the alternative annotator test's pass rate by judge quality, annotators and shared items (judge card)",
    "audit": "vivid audit: a noisy judge's false failures, planted biases caught, coverage of shifts and rates",
    "leakage": "near-duplicates of shown idioms: recall by variant shape, false flags on unrelated idioms",
    "selfpref": "vivid audit --from: false flags, power and interval coverage of the self-preference estimate",
}


def main(argv: list[str] | None = None) -> int:
    """Run the chosen sections and print their tables as markdown."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few repetitions: a smoke check")
    parser.add_argument("--reps", type=int, default=None, help="repetitions per planted value")
    parser.add_argument("--only", default="", help="comma-separated section names")
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--markdown", type=Path, default=None, help="also write the tables here")
    args = parser.parse_args(argv)
    chosen = [name for name in args.only.split(",") if name] or list(SECTIONS)
    unknown = [name for name in chosen if name not in SECTIONS]
    if unknown:
        parser.error(f"unknown section(s) {', '.join(unknown)}; have {', '.join(SECTIONS) or 'none'}")
    out: list[str] = header_lines(args.quick)
    for name in chosen:
        module = importlib.import_module(f"coverage_{name}")
        reps = args.reps if args.reps is not None else (module.QUICK_REPS if args.quick else module.REPS)
        start = time.perf_counter()
        tables: list[CoverageTable] = module.run(reps=reps, quick=args.quick, seed=args.seed)
        seconds = time.perf_counter() - start
        section = [f"## {name}: {SECTIONS[name]} ({reps} repetitions, {seconds:.0f} s)", ""]
        for table in tables:
            section.extend(table.markdown())
        print("\n".join(section), flush=True)
        out.extend(section)
    if args.markdown is not None:
        args.markdown.write_text("\n".join(out) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
