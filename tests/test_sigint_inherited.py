"""The suite runs with Ctrl-C as in a terminal even when started in the background (conftest.py)."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CHILD = "import signal; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"


def test_the_tests_and_the_processes_they_start_take_ctrl_c() -> None:
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    child = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, check=True)
    assert child.stdout.strip() == "True"


@pytest.mark.slow
def test_a_run_started_with_ctrl_c_ignored_restores_it() -> None:
    # what `python -m pytest &` in a script starts with: SIGINT ignored, inherited by every child
    this = f"{Path(__file__).relative_to(REPO)}::test_the_tests_and_the_processes_they_start_take_ctrl_c"
    started_ignoring = (
        "import signal, sys, pytest; signal.signal(signal.SIGINT, signal.SIG_IGN); "
        f"sys.exit(pytest.main(['-q', '-n', '0', '-p', 'no:cacheprovider', {this!r}]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", started_ignoring], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-3000:]
