"""A scaled-down ``bench/load_test.py``: many concurrent calls end with every item scored.

The full load (1,636 items x 5 calls at 64 connections) is ``python bench/load_test.py --full``;
this runs the same code on 24 items at 12 connections with latency and 10% transient faults, so
CI checks that the run neither loses a sample nor deadlocks (the watchdog would stop the server
and turn a hang into errors) and that the connections are used side by side.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.load_test import CALLS_PER_ITEM, run_load

ITEMS = 24
CONNECTIONS = 12


@pytest.mark.slow
def test_scaled_down_load_scores_everything_without_deadlock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "outer-cache"))
    result = run_load(
        ITEMS,
        connections=CONNECTIONS,
        latency={"gen": 0.5, "judge": 0.05},  # long enough for requests to overlap on a busy CPU
        faults=0.1,
        deadline=60,
        work_dir=tmp_path / "load",
    )

    assert result.ok, result.summary()
    assert (result.sample_errors, result.unscored, result.deadline_hit) == (0, 0, False)
    assert result.faults > 0
    assert result.calls == ITEMS * CALLS_PER_ITEM + result.faults
    # concurrency is used but never exceeded
    assert CONNECTIONS // 2 <= result.peak_in_flight <= CONNECTIONS
    assert result.peak_rss_mb > 0
