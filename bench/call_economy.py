"""Item 3 — call economy, counted at the server: ``vivid run`` makes only the calls it needs.

A judge-ablation spec (N items of the synthetic file, one generator, the four judge strategies)
runs through ``vivid run`` (the real CLI, in its own process) against FakeOpenAIServer, which
counts every chat request per model. Then:

1. first run: exactly N generation calls and 4N judge calls;
2. rerun of the finished spec: 0 calls, and the whole command (report included) under 10 s;
3. the spec with a fifth judge (another judge model): exactly N calls, all to the new judge;
4. rerun of that: 0 calls.

    python bench/call_economy.py            # N = 100
    python bench/call_economy.py --quick    # N = 20
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml
from _common import Section, ServerProcess, finish, scratch_env
from synthetic import write_synthetic

STRATEGIES = ("zero_shot", "demonstration", "cot", "aspect")
RERUN_GOAL_S = 10.0


def ablation_spec(data: Path, log_dir: Path, items: int, fifth_judge: bool) -> dict[str, Any]:
    """The judge ablation as a spec dict: N items, one generator, four judges (five with ``fifth_judge``)."""
    judges = [{"name": f"fake_{s}", "strategy": s, "model": "openai-api/fake/judge"} for s in STRATEGIES]
    if fifth_judge:
        judges.append({"name": "fake_b_aspect", "strategy": "aspect", "model": "openai-api/fake/judge-b"})
    return {
        "name": "bench_call_economy",
        "description": "Judge ablation against the local fake server (bench/call_economy.py).",
        "data": str(data),
        "log_dir": str(log_dir),
        "runs": [
            {
                "name": "fake_zero_shot",
                "tasks": ["explain"],
                "prompts": ["zero_shot"],
                "models": ["openai-api/fake/gen"],
                "sample": {"n": items, "by": "theme", "seed": 0},
            }
        ],
        "judges": judges,
        "concurrency": {"max_connections": 64},
    }


def vivid(command: str, spec: Path, env: dict[str, str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Run ``vivid COMMAND SPEC`` as a user would (a fresh process); return wall time and the result."""
    started = time.monotonic()
    args = [sys.executable, "-m", "vivid_inspect.lab.cli.main", command, str(spec)]
    if command == "run":
        args += ["--display", "none"]
    done = subprocess.run(args, capture_output=True, text=True, env={**os.environ, **env}, timeout=900)
    return time.monotonic() - started, done


def measure(items: int) -> Section:
    """Run the four steps and check the counts the server saw."""
    section = Section(
        "call_economy",
        "3. Call economy, counted at the server",
        f"judge ablation: {items} items × 4 strategies through `vivid run` (CLI process) against the fake server",
    )
    with tempfile.TemporaryDirectory(prefix="vivid-bench-economy-") as scratch_dir:
        scratch = Path(scratch_dir)
        data = write_synthetic(scratch / "vivid_synthetic.csv")
        spec = scratch / "ablation.yaml"
        with ServerProcess(latency=0.0) as server:
            env = {**scratch_env(scratch), **server.env()}
            steps = [
                ("first run", False, {"gen": items, "judge": 4 * items}),
                ("rerun, nothing changed", False, {}),
                ("fifth judge added", True, {"judge-b": items}),
                ("rerun with five judges", True, {}),
            ]
            for label, fifth, expected in steps:
                spec.write_text(
                    yaml.safe_dump(ablation_spec(data, scratch / "logs", items, fifth), sort_keys=False)
                )
                server.reset()
                wall, done = vivid("run", spec, env)
                stats = server.stats()
                counts = {model: n for model, n in stats["model_counts"].items() if n}
                ok = done.returncode == 0 and counts == expected
                section.rows.append(
                    {
                        "step": label,
                        "exit": done.returncode,
                        "calls at the server": ", ".join(f"{m} {n}" for m, n in sorted(counts.items()))
                        or "0",
                        "expected": ", ".join(f"{m} {n}" for m, n in sorted(expected.items())) or "0",
                        "repeated prompts": stats["repeated_prompts"],
                        "wall s": wall,
                    }
                )
                section.figures[label] = {"wall_s": wall, "exit": done.returncode, **stats}
                if done.returncode != 0:
                    section.notes.append(
                        f"`vivid run` ({label}) exited {done.returncode}: {done.stderr.strip()[-600:]}"
                    )
                goal = f"{label}: exactly " + (
                    ", ".join(f"{n} {m} calls" for m, n in expected.items()) or "0 calls"
                )
                section.goal(goal, ", ".join(f"{n} {m}" for m, n in counts.items()) or "0 calls", ok)
                if not expected:
                    section.goal(f"{label}: under {RERUN_GOAL_S:.0f} s", f"{wall:.1f} s", wall < RERUN_GOAL_S)
    section.notes.append(
        "Counts are the chat requests the server received (faulted or not), so a retry or a duplicate "
        "call would show; `repeated prompts` counts prompts the server saw more than once in a step."
    )
    section.notes.append(
        "Each step is the whole `vivid run` command in a fresh process: start-up, plan, report included."
    )
    return section


def main(argv: Sequence[str] | None = None) -> int:
    """Run the call-economy checks."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="20 items (smoke check)")
    parser.add_argument("--items", type=int, default=None, help="items (default 100)")
    parser.add_argument("--json", type=Path, default=None, help="also write the section as JSON here")
    args = parser.parse_args(argv)
    started = time.monotonic()
    items = args.items or (20 if args.quick else 100)
    return finish(measure(items), started, args.json)


if __name__ == "__main__":
    sys.exit(main())
