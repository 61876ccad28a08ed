"""A command run prewarmed (tests/prewarmed.py) prints and exits exactly as the console script does."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests import prewarmed

BIN = Path(sys.executable).parent


@pytest.mark.slow
@pytest.mark.parametrize(
    "args",
    [
        pytest.param(("vivid", "validate", "missing.yaml"), id="vivid-exit-2"),
        # the vivid/* models are found through the package's entry point, which the preload left alone
        pytest.param(
            ("inspect", "eval", "vivid_inspect/explain", "--model", "vivid/oracel", "-M", "data=sample"),
            id="inspect-exit-1",
        ),
        pytest.param(("inspect", "eval", "--frobnicate"), id="inspect-usage-exit-2"),
    ],
)
def test_a_prewarmed_run_is_the_fresh_process_byte_for_byte(args: tuple[str, ...], tmp_path: Path) -> None:
    command = [str(BIN / args[0]), *args[1:]]
    env = {**os.environ, "COLUMNS": "97", "VIVID_CACHE_DIR": str(tmp_path / "cache")}

    fresh = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    forked = prewarmed.run(command, cwd=tmp_path, env=env, timeout=300)

    assert fresh.returncode != 0 and (fresh.stdout + fresh.stderr).strip()  # a case that says something
    assert (forked.returncode, forked.stdout, forked.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)


@pytest.mark.slow
def test_a_run_past_its_timeout_is_killed_and_the_next_run_works(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a free port: `inspect view` serves until it is stopped
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    serve = [str(BIN / "inspect"), "view", "start", "--log-dir", str(tmp_path), "--port", str(port)]
    started = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        prewarmed.run(serve, cwd=tmp_path, env=dict(os.environ), timeout=2)
    assert time.monotonic() - started < 30

    done = prewarmed.run(
        [str(BIN / "vivid"), "validate", "missing.yaml"], cwd=tmp_path, env=dict(os.environ), timeout=300
    )
    assert done.returncode == 2 and "missing.yaml" in done.stderr
