"""First contact: how long ``vivid --help`` and ``vivid validate`` take, against importing Inspect.

Each command runs in a fresh process, several times; the script prints the median wall time and
the median CPU time (user + system of the child, which other load on a shared machine disturbs
less). The floor is ``python -c "import inspect_ai"``: ``vivid validate`` must import Inspect (it
checks model names against Inspect's registry) and our task modules (it checks task parameters),
so it can approach that floor but not go below it. ``vivid --help`` imports neither.

    python bench/cli_startup.py               # 7 runs of each
    python bench/cli_startup.py --repeats 3
    python bench/cli_startup.py --spec experiments/smoke.yaml
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO_DIR = Path(__file__).resolve().parents[1]
DEFAULT_SPEC = REPO_DIR / "experiments" / "offline.yaml"


def _vivid() -> str:
    found = Path(sys.executable).with_name("vivid")
    return str(found) if found.exists() else (shutil.which("vivid") or "vivid")


def measure(command: list[str], repeats: int) -> tuple[float, float]:
    """Median wall and CPU seconds of ``repeats`` fresh runs of ``command`` (which must exit 0)."""
    walls: list[float] = []
    cpus: list[float] = []
    for _ in range(repeats):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(command, cwd=REPO_DIR, capture_output=True, text=True, check=False)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(command)} exited {done.returncode}:\n{done.stderr}")
    return statistics.median(walls), statistics.median(cpus)


def main() -> int:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=7, help="runs of each command (default 7)")
    parser.add_argument("--spec", type=Path, default=DEFAULT_SPEC, help="spec for `vivid validate`")
    args = parser.parse_args()

    vivid = _vivid()
    commands = {
        "python -c pass (interpreter floor)": [sys.executable, "-c", "pass"],
        "vivid --help": [vivid, "--help"],
        'python -c "import inspect_ai" (validate floor)': [sys.executable, "-c", "import inspect_ai"],
        f"vivid validate {args.spec.name}": [vivid, "validate", str(args.spec)],
    }
    load_before = os.getloadavg()[0]
    rows = [(name, *measure(command, args.repeats)) for name, command in commands.items()]
    load_after = os.getloadavg()[0]

    print(
        f"median of {args.repeats} fresh runs; load average {load_before:.1f} before, {load_after:.1f} after"
    )
    print("| command | wall (s) | CPU (s) |")
    print("| --- | --- | --- |")
    for name, wall, cpu in rows:
        print(f"| `{name}` | {wall:.2f} | {cpu:.2f} |")
    floor = rows[2]
    validate = rows[3]
    print(
        f"\nvalidate / import inspect_ai: wall {validate[1] / floor[1]:.2f} ×, CPU {validate[2] / floor[2]:.2f} ×"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
