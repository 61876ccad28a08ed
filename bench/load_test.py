"""Load test: the explain task with all four LLM judges against a local server with latency.

Each item costs five chat calls (one generation, four judge strategies), all through Inspect's real
``openai-api`` provider over HTTP to FakeOpenAIServer on 127.0.0.1, so nothing leaves the machine
and nothing is paid. The run must end with every item scored by every judge, no sample error and
no deadlock (a watchdog stops the server at ``--deadline``, which turns a hang into errors).

    python bench/load_test.py                      # 300 items x 5 calls, a few minutes on 2 cores
    python bench/load_test.py --full               # the full size: 1,636 items x 5 calls
    python bench/load_test.py --items 50 --faults 0.2

Prints wall time, calls, errors, the peak number of requests in flight at the server and the peak
resident memory of this process; exits 1 when anything is missing or errored.
"""

from __future__ import annotations

import argparse
import csv
import os
import resource
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai import eval
from inspect_ai.log import read_eval_log
from inspect_ai.model import get_model

from vivid_inspect.data import COLUMNS
from vivid_inspect.scorers.judge import STRATEGIES
from vivid_inspect.solvers.markers import last_item
from vivid_inspect.tasks import explain
from vivid_inspect.testing.faults import fail_fraction
from vivid_inspect.testing.openai_server import FakeOpenAIServer, RequestRecord

FULL_ITEMS = 1636
DEFAULT_ITEMS = 300
CALLS_PER_ITEM = 1 + len(STRATEGIES)


@dataclass(frozen=True)
class LoadResult:
    """What one load run did.

    Attributes:
        items: Items in the data set.
        wall_seconds: Time of the eval call.
        calls: Chat requests the server received (faulted ones included).
        faults: Requests the server failed on purpose.
        sample_errors: Samples that ended in an error.
        unscored: Judge scores missing or unreadable, over all samples and strategies.
        peak_in_flight: Most requests the server was handling at once.
        peak_rss_mb: Peak resident memory of this process, in MiB.
        deadline_hit: Whether the watchdog had to stop the server.
    """

    items: int
    wall_seconds: float
    calls: int
    faults: int
    sample_errors: int
    unscored: int
    peak_in_flight: int
    peak_rss_mb: float
    deadline_hit: bool

    @property
    def ok(self) -> bool:
        """Every item generated and scored by every judge, nothing errored, no deadline hit."""
        return not (self.sample_errors or self.unscored or self.deadline_hit)

    def summary(self) -> str:
        """One line per figure, for the console."""
        rate = self.calls / self.wall_seconds if self.wall_seconds else 0.0
        return "\n".join(
            [
                f"items            {self.items} x {CALLS_PER_ITEM} calls",
                f"wall time        {self.wall_seconds:.1f} s ({rate:.0f} calls/s)",
                f"calls            {self.calls} ({self.faults} faulted on purpose)",
                f"sample errors    {self.sample_errors}",
                f"unscored         {self.unscored}",
                f"peak in flight   {self.peak_in_flight}",
                f"peak RSS         {self.peak_rss_mb:.0f} MiB",
                f"deadline hit     {self.deadline_hit}",
                f"result           {'OK' if self.ok else 'FAILED'}",
            ]
        )


def write_items(path: Path, count: int) -> Path:
    """Write a VIVID-format CSV of ``count`` distinct synthetic items."""
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(COLUMNS)
        for n in range(1, count + 1):
            traits = [f"{float(n % (code + 1) == 0):.1f}" for code in range(1, 6)]
            writer.writerow(
                [
                    f"Câu thử số {n}",
                    f"Nghĩa chuẩn của câu thử số {n}, có dấu phẩy.",
                    *traits,
                    f"{n % 7 + 1:.1f}",
                ]
            )
    return path


def respond(model: str, messages: list[dict[str, Any]]) -> str:
    """Generator: an explanation naming the item; judges: a valid verdict for their format."""
    prompt = str(messages[-1].get("content", ""))
    if model == "gen":
        found = last_item(prompt)
        return f"Lời giải thích cho {found[0] if found else '?'}."
    return "So với nghĩa chuẩn, đúng ý chính.\nĐiểm: 4" if "Điểm: N" in prompt else "4"


def peak_in_flight(records: Sequence[RequestRecord]) -> int:
    """The most requests whose handling overlapped in time."""
    events = sorted([(r.started, 1) for r in records] + [(r.finished, -1) for r in records])
    peak = current = 0
    for _, step in events:
        current += step
        peak = max(peak, current)
    return peak


def run_load(
    items: int,
    *,
    connections: int = 64,
    latency: dict[str, float] | None = None,
    faults: float = 0.0,
    deadline: float = 900.0,
    work_dir: Path | None = None,
) -> LoadResult:
    """Run the explain task with every judge on ``items`` synthetic items against a local server.

    Args:
        items: Number of items (five calls each).
        connections: ``max_connections`` and ``max_samples`` of the run.
        latency: Seconds per reply, per model (``gen``, ``judge``).
        faults: Share of requests failed with transient faults (429 with Retry-After, 500, 503, drop).
        deadline: Seconds after which the watchdog stops the server.
        work_dir: Folder for the data, logs and cache; a temporary one when None.

    Returns:
        The figures of the run.
    """
    previous_cache = os.environ.get("INSPECT_CACHE_DIR")
    deadline_hit = threading.Event()
    with tempfile.TemporaryDirectory(prefix="vivid-load-") as scratch:
        root = work_dir or Path(scratch)
        root.mkdir(parents=True, exist_ok=True)
        data = write_items(root / "items.csv", items)
        # judge replies are cached by default: keep the cache with this run, not the user's
        os.environ["INSPECT_CACHE_DIR"] = str(root / "cache")
        kinds: list[Any] = ["rate_limit", "server_error", "unavailable", "drop"]
        plan = fail_fraction(faults, kinds=kinds, retry_after=0.5) if faults else None
        server = FakeOpenAIServer(
            responder=respond, latency=latency or {"gen": 1.0, "judge": 0.3}, faults=plan
        )

        def stop_the_server() -> None:
            deadline_hit.set()
            server.stop()

        watchdog = threading.Timer(deadline, stop_the_server)
        watchdog.daemon = True
        try:
            with server:
                models = {
                    name: get_model(
                        f"openai-api/fake/{name}",
                        base_url=server.base_url,
                        api_key="fake-key",
                        memoize=False,
                        max_retries=4,
                    )
                    for name in ("gen", "judge")
                }
                watchdog.start()
                started = time.monotonic()
                (log,) = eval(
                    explain(data=str(data), judge="all"),
                    model=models["gen"],
                    model_roles={"grader": models["judge"]},
                    log_dir=str(root / "logs"),
                    display="none",
                    max_connections=connections,
                    max_samples=connections,
                    max_retries=3,
                    timeout=120,
                    fail_on_error=False,
                )
                wall = time.monotonic() - started
                watchdog.cancel()
                records = server.log
            samples = read_eval_log(log.location).samples or []
        finally:
            watchdog.cancel()
            if previous_cache is None:
                os.environ.pop("INSPECT_CACHE_DIR", None)
            else:
                os.environ["INSPECT_CACHE_DIR"] = previous_cache
    errors = sum(sample.error is not None for sample in samples)
    unscored = sum(
        1
        for sample in samples
        if sample.error is None
        for strategy in STRATEGIES
        if (score := (sample.scores or {}).get(f"judge_{strategy}")) is None or score.value != 4
    ) + (items - len(samples)) * len(STRATEGIES)
    return LoadResult(
        items=items,
        wall_seconds=wall,
        calls=len(records),
        faults=sum(r.fault is not None for r in records),
        sample_errors=errors + (items - len(samples)),
        unscored=unscored,
        peak_in_flight=peak_in_flight(records),
        peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        deadline_hit=deadline_hit.is_set(),
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the load test from the command line; exit 0 when every item is scored."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--items", type=int, default=DEFAULT_ITEMS, help=f"items to run (default {DEFAULT_ITEMS})"
    )
    parser.add_argument("--full", action="store_true", help=f"run the full size, {FULL_ITEMS} items")
    parser.add_argument("--connections", type=int, default=64, help="concurrent connections (default 64)")
    parser.add_argument(
        "--gen-latency", type=float, default=1.0, help="seconds per generation reply (default 1.0)"
    )
    parser.add_argument(
        "--judge-latency", type=float, default=0.3, help="seconds per judge reply (default 0.3)"
    )
    parser.add_argument(
        "--faults", type=float, default=0.0, help="share of requests failed transiently (default 0)"
    )
    parser.add_argument("--deadline", type=float, default=1800.0, help="watchdog in seconds (default 1800)")
    args = parser.parse_args(argv)
    items = FULL_ITEMS if args.full else args.items
    result = run_load(
        items,
        connections=args.connections,
        latency={"gen": args.gen_latency, "judge": args.judge_latency},
        faults=args.faults,
        deadline=args.deadline,
    )
    print(result.summary())
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
