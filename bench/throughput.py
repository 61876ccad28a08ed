"""Item 2 — latency-bound throughput through Inspect's real OpenAI-compatible provider.

The ``explain`` task with the aspect judge calls ``openai-api/fake/gen`` and, as the grader role,
``openai-api/fake/judge``: Inspect's own ``openai-api`` provider speaking HTTP to FakeOpenAIServer
(``vivid_inspect/testing/openai_server.py``), which runs in a separate process and sleeps a fixed
time before each reply (1 s per generation, 0.3 s per judgement by default). At ``max_connections``
C (and Inspect's default ``max_samples`` = C) each sample makes its two calls one after the other,
so the latency-bound ideal is::

    ideal = N × (latency_gen + latency_judge) / C

unless the harness cannot go that fast even with instant replies: then the ideal is that CPU floor
(the wall time of item 1, ``bench/overhead.py``, for the same items with instant mock models).
Efficiency = ideal / measured wall time. A zero-latency run over HTTP is also measured: it is the
floor of the HTTP path, and its excess over the mock floor is what the provider's HTTP client adds.

    python bench/throughput.py                          # 800 items, C = 32 and 64, and the HTTP floor
    python bench/throughput.py --quick                  # 160 items
    python bench/throughput.py --cpu-floor-per-item 0.045  # item 1's floor per item, when measured
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from _common import Section, ServerProcess, cpu_seconds, emit, finish, peak_rss_mib, run_worker, scratch_env
from synthetic import FULL_ROWS, write_synthetic

GOAL_EFFICIENCY = 0.90
DEFAULT_ITEMS = 800
CONNECTIONS = (32, 64)
GEN_LATENCY = 1.0
JUDGE_LATENCY = 0.3


def worker(data: Path, root: Path, connections: int) -> dict[str, Any]:
    """Run the explain task with the aspect judge against the fake server; return its figures."""
    from inspect_ai import eval

    import vivid_inspect.tasks  # noqa: F401  (imports before the clock starts)
    from vivid_inspect.tasks import explain

    started, cpu_started = time.monotonic(), cpu_seconds()
    (log,) = eval(
        explain(data=str(data), judge="aspect"),
        model="openai-api/fake/gen",
        model_roles={"grader": "openai-api/fake/judge"},
        log_dir=str(root / "logs"),
        display="none",
        log_level="warning",
        max_connections=connections,
        max_retries=2,
        timeout=60,
        fail_on_error=False,
    )
    scores = (log.results.scores if log.results else []) or []
    return {
        "status": log.status,
        "completed": log.results.completed_samples if log.results else 0,
        "scored": scores[0].scored_samples if scores else 0,
        "wall_s": time.monotonic() - started,
        "cpu_s": cpu_seconds() - cpu_started,
        "peak_rss_mib": peak_rss_mib(),
    }


def mock_floor(data: Path, scratch: Path) -> float:
    """Item 1's measurement of our task with instant mock models (the CPU floor), run once here."""
    root = scratch / "floor"
    result = run_worker(
        Path(__file__).with_name("overhead.py"),
        ["--worker", "ours", "--data", str(data), "--root", str(root)],
        env=scratch_env(root),
    )
    return float(result["wall_s"])


def measure(items: int, connections: Sequence[int], cpu_floor: float | None, http_floor: bool) -> Section:
    """Run each connection setting against the server with latency; compare with the ideal."""
    section = Section(
        "throughput",
        "2. Latency-bound throughput through the openai-api provider",
        f"{items:,} items × (1 generation + 1 aspect judgement); latency {GEN_LATENCY:g} s per generation, "
        f"{JUDGE_LATENCY:g} s per judgement; server in its own process",
    )
    latency = {"gen": GEN_LATENCY, "judge": JUDGE_LATENCY}
    with tempfile.TemporaryDirectory(prefix="vivid-bench-throughput-") as scratch_dir:
        scratch = Path(scratch_dir)
        data = write_synthetic(scratch / "vivid_synthetic.csv", items)
        floor_source = "item 1's time per item × items"
        if cpu_floor is None:
            cpu_floor, floor_source = mock_floor(data, scratch), "instant mock models, measured here"
        with ServerProcess(latency=latency) as server:
            settings: list[tuple[str, int, dict[str, float]]] = []
            if http_floor:
                settings.append(("HTTP, no latency", max(connections), {"gen": 0.0, "judge": 0.0}))
            settings += [(f"max_connections {c}", c, latency) for c in connections]
            for label, conns, lat in settings:
                server.set_latency(lat)
                server.reset()
                root = scratch / f"c{conns}-{lat['gen']:g}"
                args = ["--worker", "--data", str(data), "--root", str(root), "--connections", str(conns)]
                result = run_worker(Path(__file__), args, env={**scratch_env(root), **server.env()})
                stats = server.stats()
                wall = float(result["wall_s"])
                latency_ideal = items * (lat["gen"] + lat["judge"]) / conns
                ideal = max(latency_ideal, cpu_floor)
                row = {
                    "setting": label,
                    "samples": result["completed"],
                    "calls (gen / judge)": f"{stats['model_counts'].get('gen', 0)} / {stats['model_counts'].get('judge', 0)}",
                    "errors": stats["errors"],
                    "peak in flight": stats["peak_in_flight"],
                    "latency ideal s": latency_ideal,
                    "ideal s": ideal,
                    "wall s": wall,
                    "efficiency": ideal / wall,
                    "CPU s / wall s": result["cpu_s"] / wall,
                    "peak RSS MiB": result["peak_rss_mib"],
                }
                section.rows.append(row)
                section.figures[label] = {**row, **result, "server": stats}
    section.figures["cpu_floor_s"] = cpu_floor
    section.notes.append(
        f"CPU floor: {cpu_floor:.1f} s ({floor_source}) — the same task and items with instant mock models; "
        "ideal = max(latency ideal, CPU floor)."
    )
    http = next((r for r in section.rows if not r["setting"].startswith("max_connections")), None)
    for row in section.rows:
        if http is not None:
            row["efficiency vs HTTP floor"] = max(row["latency ideal s"], http["wall s"]) / row["wall s"]
    for row in section.rows:
        if row["setting"].startswith("max_connections"):
            section.goal(
                f"{row['setting']}: ≥ {GOAL_EFFICIENCY:.0%} of ideal",
                f"{row['efficiency']:.0%} ({row['wall s']:.1f} s vs ideal {row['ideal s']:.1f} s)",
                row["efficiency"] >= GOAL_EFFICIENCY,
            )
            if http is not None:
                section.goal(
                    f"{row['setting']}: against the HTTP floor (same provider, no latency)",
                    f"{row['efficiency vs HTTP floor']:.0%} (floor {http['wall s']:.1f} s)",
                    None,
                )
        else:
            section.notes.append(
                f"HTTP floor (no latency, max_connections {max(connections)}): {row['wall s']:.1f} s, "
                f"{row['wall s'] - cpu_floor:+.1f} s over the mock floor: the cost of the openai-api provider's "
                "HTTP client path (OpenAI SDK, httpx, response parsing) on this CPU."
            )
    return section


def main(argv: Sequence[str] | None = None) -> int:
    """Run the throughput measurement, or one worker when ``--worker`` is given."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="160 items (smoke check)")
    parser.add_argument(
        "--items",
        type=int,
        default=None,
        help=f"items (default {DEFAULT_ITEMS}; the full data is {FULL_ROWS})",
    )
    parser.add_argument(
        "--connections", default=",".join(map(str, CONNECTIONS)), help="comma list (default 32,64)"
    )
    parser.add_argument(
        "--cpu-floor-per-item",
        type=float,
        default=None,
        help="item 1's wall time per item of our task with mocks, s (default: measure it here)",
    )
    parser.add_argument(
        "--no-http-floor", action="store_true", help="skip the run with no latency (the HTTP path's floor)"
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the section as JSON here")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--data", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--root", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        emit(worker(args.data, args.root, int(args.connections)))
        return 0
    started = time.monotonic()
    items = args.items or (160 if args.quick else DEFAULT_ITEMS)
    connections = [int(c) for c in args.connections.split(",")]
    floor = args.cpu_floor_per_item * items if args.cpu_floor_per_item else None
    return finish(measure(items, connections, floor, not args.no_http_floor), started, args.json)


if __name__ == "__main__":
    sys.exit(main())
