"""Run every bench script and write ``bench/results.md`` and ``bench/results.json``.

Scripts run one after the other (never side by side: they measure the same two cores). Item 1's
wall time of our task with instant mocks is handed to item 2 as its CPU floor.

    python bench/run_all.py             # the full suite, about 12 minutes on 2 cores
    python bench/run_all.py --quick     # every script in --quick mode (smoke check, ~5 minutes)
    python bench/run_all.py --only overhead,cost
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from _common import BENCH_DIR, load_average, machine_info

SCRIPTS = ("overhead", "throughput", "call_economy", "report_scale", "cost")
RESULTS_MD = BENCH_DIR / "results.md"
RESULTS_JSON = BENCH_DIR / "results.json"
BUDGET_SECONDS = 15 * 60


def run_script(name: str, quick: bool, extra: Sequence[str], scratch: Path) -> dict[str, Any]:
    """Run one script; return its section (or a failure record) and its wall time."""
    out = scratch / f"{name}.json"
    command = [
        sys.executable,
        str(BENCH_DIR / f"{name}.py"),
        "--json",
        str(out),
        *(["--quick"] if quick else []),
        *extra,
    ]
    print(f"== {name}: {' '.join(command[1:])}", flush=True)
    started = time.monotonic()
    done = subprocess.run(command, text=True, capture_output=True)
    seconds = time.monotonic() - started
    sys.stdout.write(done.stdout)
    if out.is_file():
        section = json.loads(out.read_text(encoding="utf-8"))
    else:
        section = {"name": name, "title": name, "error": done.stderr[-3000:], "goals": [], "seconds": seconds}
        print(done.stderr[-3000:], file=sys.stderr)
    section["wall_seconds"] = seconds
    section["exit_code"] = done.returncode
    return section


def render(sections: list[dict[str, Any]], machine: dict[str, Any], total: float, quick: bool) -> str:
    """The results file: machine, versions, date, the goal summary, then each section."""
    from _common import Goal, Section

    lines = [
        "# vivid-inspect performance results",
        "",
        "Written by `python bench/run_all.py`"
        + (" --quick (smoke sizes, not the figures of record)" if quick else "")
        + f"; the whole suite took {total / 60:.1f} min (budget {BUDGET_SECONDS // 60} min). "
        "Commands and method: [bench/README.md](README.md).",
        "",
        "| | |",
        "| --- | --- |",
        *[f"| {key} | {value} |" for key, value in machine.items()],
        "",
        "## Goals",
        "",
        "| item | goal | measured | status |",
        "| --- | --- | --- | --- |",
    ]
    marks = {"met": "met", "missed": "**missed**", "info": "—"}
    for section in sections:
        for goal in section.get("goals", []):
            lines.append(
                f"| {section['title'].split('.')[0]} | {goal['goal']} | {goal['measured']} | {marks[goal['status']]} |"
            )
        if "error" in section:
            lines.append(
                f"| {section['name']} | script ran | failed (exit {section['exit_code']}) | **missed** |"
            )
    lines.append("")
    for section in sections:
        if "error" in section:
            lines += [f"## {section['name']}: failed", "", "```", section["error"].strip(), "```", ""]
            continue
        fields = {key: section[key] for key in Section.__dataclass_fields__ if key in section}
        fields["goals"] = [Goal(**goal) for goal in section.get("goals", [])]
        fields["extra_tables"] = [tuple(table) for table in section.get("extra_tables", [])]
        lines.append(Section(**fields).markdown())
    return "\n".join(lines).rstrip() + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the suite and write the results files."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="every script in --quick mode")
    parser.add_argument("--only", default=",".join(SCRIPTS), help=f"comma list of {', '.join(SCRIPTS)}")
    parser.add_argument(
        "--out", type=Path, default=None, help="results folder (default bench/; --quick: a temp folder)"
    )
    args = parser.parse_args(argv)
    chosen = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = sorted(set(chosen) - set(SCRIPTS))
    if unknown:
        parser.error(f"unknown script(s) {', '.join(unknown)}; choose from {', '.join(SCRIPTS)}")
    # A smoke check must not overwrite the figures of record.
    out_dir = args.out or (Path(tempfile.mkdtemp(prefix="vivid-bench-results-")) if args.quick else BENCH_DIR)
    machine = machine_info()
    machine["load average at start"] = load_average()
    started = time.monotonic()
    sections: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="vivid-bench-run-") as scratch_dir:
        scratch = Path(scratch_dir)
        for name in chosen:
            extra: list[str] = []
            overhead = next((s.get("figures", {}) for s in sections if s["name"] == "overhead"), {})
            if name == "throughput" and overhead.get("ours_wall_s"):
                extra = ["--cpu-floor-per-item", f"{overhead['ours_wall_s'] / overhead['items']:.5f}"]
            sections.append(run_script(name, args.quick, extra, scratch))
    total = time.monotonic() - started
    machine["load average at end"] = load_average()
    out_dir.mkdir(parents=True, exist_ok=True)
    previous = out_dir / RESULTS_JSON.name
    if set(chosen) != set(SCRIPTS) and previous.is_file():
        # A partial rerun replaces its own sections and keeps the others of the last full run.
        old = json.loads(previous.read_text(encoding="utf-8"))
        fresh = {s["name"]: s for s in sections}
        sections = [fresh.pop(s["name"], s) for s in old.get("sections", [])] + list(fresh.values())
        machine["note"] = (
            f"sections {', '.join(chosen)} rerun on {machine['date']}; the others are from {old['machine']['date']}"
        )
        machine["date"] = old["machine"]["date"]
        total = sum(float(s.get("wall_seconds", 0)) for s in sections)
    markdown = out_dir / RESULTS_MD.name
    markdown.write_text(render(sections, machine, total, args.quick), encoding="utf-8")
    payload = {"machine": machine, "quick": args.quick, "total_seconds": total, "sections": sections}
    (out_dir / RESULTS_JSON.name).write_text(
        json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    missed = [g["goal"] for s in sections for g in s.get("goals", []) if g["status"] == "missed"]
    failed = [s["name"] for s in sections if "error" in s]
    print(
        f"\nwrote {markdown} and {out_dir / RESULTS_JSON.name} in {total / 60:.1f} min; "
        f"{len(missed)} goal(s) missed, {len(failed)} script(s) failed"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
