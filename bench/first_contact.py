"""First contact: how long plain ``inspect eval`` takes to say why it cannot work.

Each case is the real ``inspect eval`` CLI in a fresh process, with Inspect's real defaults, run
several times; the script prints the median wall time to the message (the process exits right
after printing it), the median CPU time of the child (user + system, which other load on a shared
machine disturbs less), the lines printed and the exit code. The floor is ``inspect eval`` of a
task argument Inspect refuses on its own before anything runs (``-T judge=vibes``): starting
Inspect and loading the task module, which no message can come sooner than.

    python bench/first_contact.py                # 3 runs of each case
    python bench/first_contact.py --repeats 5
    python bench/first_contact.py --unchecked    # also each endpoint case with VIVID_PREFLIGHT=0 (one run: minutes)

Cases: a judge endpoint on a closed port, an HTTP error answer (401, a wrong key; 404, a base URL
without /v1), the default judge with no ``OPENAI_API_KEY``, a misspelt ``vivid/*`` model, a
baseline without ``-M data``, and a closed port for the model under test. The endpoints are on
127.0.0.1 (FakeOpenAIServer in this process, a port nothing listens on); nothing leaves the
machine. ``--unchecked`` measures what the same endpoint cases cost with the task-start check off
(calls retried until their limits), the behaviour before the check.
"""

from __future__ import annotations

import argparse
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from vivid_inspect.testing.openai_server import FakeOpenAIServer

REPO_DIR = Path(__file__).resolve().parents[1]
KEY = "fake-key"
PAID_API_KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "AZUREAI_OPENAI_API_KEY")
GOAL_SECONDS = 20.0

ORACLE = ["--model", "vivid/oracle", "-M", "data=sample"]
EXPLAIN = ["vivid_inspect/explain", "-T", "data=sample", "--limit", "2"]
GRADER = ["--model-role", "grader=openai-api/fake/judge"]


@dataclass(frozen=True)
class Case:
    name: str
    args: list[str]
    env: dict[str, str]
    endpoint: bool = False  # an endpoint shape: --unchecked runs it with the check off
    goal: bool = False  # under GOAL_SECONDS: a closed port or an HTTP error answer


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def cases(fake: FakeOpenAIServer) -> list[Case]:
    closed = f"http://127.0.0.1:{closed_port()}/v1"
    return [
        Case("floor: a task argument refused (-T judge=vibes)", [*EXPLAIN, *ORACLE, "-T", "judge=vibes"], {}),
        Case("judge on a closed port", [*EXPLAIN, *ORACLE, *GRADER], {"FAKE_BASE_URL": closed}, True, True),
        Case(
            "judge answers HTTP 401 (wrong key)",
            [*EXPLAIN, *ORACLE, *GRADER],
            {"FAKE_API_KEY": "wrong"},
            True,
            True,
        ),
        Case(
            "judge answers HTTP 404 (base URL without /v1)",
            [*EXPLAIN, *ORACLE, *GRADER],
            {"FAKE_BASE_URL": fake.base_url.removesuffix("/v1")},
            True,
            True,
        ),
        Case(
            "model under test on a closed port",
            ["vivid_inspect/topic", "-T", "data=sample", "--model", "openai-api/fake/gen"],
            {"FAKE_BASE_URL": closed},
            True,
            True,
        ),
        Case("default judge, no OPENAI_API_KEY", [*EXPLAIN, *ORACLE], {}),
        Case("typo: --model vivid/oracel", [*EXPLAIN, "--model", "vivid/oracel", "-M", "data=sample"], {}),
        Case(
            "vivid/oracle without -M data",
            ["vivid_inspect/topic", "-T", "data=sample", "--model", "vivid/oracle"],
            {},
        ),
    ]


def run_once(
    case: Case, fake: FakeOpenAIServer, folder: Path, checked: bool
) -> tuple[float, float, int, int]:
    """Wall and CPU seconds, lines printed and exit code of one ``inspect eval``."""
    env = {
        key: value for key, value in os.environ.items() if key not in PAID_API_KEYS and key != "VIVID_DATA"
    }
    env.update(
        {
            "COLUMNS": "200",
            "FAKE_API_KEY": KEY,
            "FAKE_BASE_URL": fake.base_url,
            "HF_ENDPOINT": f"http://127.0.0.1:{closed_port()}",  # no network: the release cannot be fetched
            "VIVID_CACHE_DIR": str(folder / "cache"),
            "INSPECT_CACHE_DIR": str(folder / "inspect-cache"),
            **case.env,
        }
    )
    if not checked:
        env["VIVID_PREFLIGHT"] = "0"
    inspect = Path(sys.executable).with_name("inspect")
    command = [str(inspect), "eval", *case.args, "--log-dir", str(folder / "logs")]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        command, cwd=folder, env=env, capture_output=True, text=True, timeout=900, check=False
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    lines = sum(1 for line in (done.stdout + done.stderr).splitlines() if line.strip())
    return wall, cpu, lines, done.returncode


def measure(case: Case, fake: FakeOpenAIServer, repeats: int, checked: bool = True) -> dict[str, float | int]:
    runs = []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as folder:
            runs.append(run_once(case, fake, Path(folder), checked))
    if fake.model_counts and checked:
        raise SystemExit(f"{case.name}: a generation reached the server ({fake.model_counts})")
    return {
        "wall": statistics.median(run[0] for run in runs),
        "cpu": statistics.median(run[1] for run in runs),
        "lines": max(run[2] for run in runs),
        "exit": max(run[3] for run in runs),
    }


def main() -> int:
    """Measure and print the tables."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=3, help="runs of each case (default 3)")
    parser.add_argument(
        "--unchecked",
        action="store_true",
        help="also the endpoint cases with VIVID_PREFLIGHT=0 (one run each)",
    )
    args = parser.parse_args()

    with FakeOpenAIServer(api_key=KEY) as fake:
        load_before = os.getloadavg()[0]
        rows = [(case, measure(case, fake, args.repeats)) for case in cases(fake)]
        unchecked = (
            [(case, measure(case, fake, 1, checked=False)) for case in cases(fake) if case.endpoint]
            if args.unchecked
            else []
        )
        load_after = os.getloadavg()[0]

    print(
        f"median of {args.repeats} fresh runs of `inspect eval`; load average {load_before:.1f} before, "
        f"{load_after:.1f} after, {os.cpu_count()} cores"
    )
    print("| case | wall to the message (s) | CPU (s) | lines printed | exit |")
    print("| --- | --- | --- | --- | --- |")
    for case, row in rows:
        print(f"| {case.name} | {row['wall']:.1f} | {row['cpu']:.1f} | {row['lines']} | {row['exit']} |")
    met = all(row["wall"] < GOAL_SECONDS for case, row in rows if case.goal)
    print(
        f"\ngoal: under {GOAL_SECONDS:g} s for a closed port or an HTTP error answer: {'met' if met else 'missed'}"
    )
    if unchecked:
        print("\nthe same endpoint cases with the check off (VIVID_PREFLIGHT=0), one run each:")
        print("| case | wall (s) | CPU (s) | lines printed | exit |")
        print("| --- | --- | --- | --- | --- |")
        for case, row in unchecked:
            print(f"| {case.name} | {row['wall']:.1f} | {row['cpu']:.1f} | {row['lines']} | {row['exit']} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
