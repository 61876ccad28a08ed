"""Start and stop ``python -m vivid_inspect.testing`` as a user does, for the tests that need it.

Used by ``tests/test_local_recipe.py`` and ``tests/test_doc_commands.py``.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
STARTUP_SECONDS = 120  # importing Inspect on a loaded 2-core machine takes tens of seconds
_EXPORT = re.compile(r"^export (?P<assignments>.+)$")


@dataclass
class ServerProcess:
    """A running test server: its process, the variables it printed, and what it said on stderr."""

    process: subprocess.Popen[str]
    env: dict[str, str]
    stderr: list[str]
    reader: threading.Thread

    @property
    def base_url(self) -> str:
        return next(value for name, value in self.env.items() if name.endswith("_BASE_URL"))

    def interrupt(self, timeout: float = 60.0) -> tuple[int, str]:
        """Ctrl-C: SIGINT, then the exit code and everything it wrote to stderr."""
        self.process.send_signal(signal.SIGINT)
        code = self.process.wait(timeout=timeout)
        self.reader.join(timeout=timeout)
        return code, "".join(self.stderr)


def _drain(stream: object, into: list[str]) -> None:
    for line in iter(stream.readline, ""):  # type: ignore[attr-defined]
        into.append(line)


def start_server(args: Sequence[str] = ("--port", "0"), cwd: Path = REPO) -> ServerProcess:
    """Start the server and wait for the ``export ...`` line it prints once it listens.

    Args:
        args: Its command-line arguments.
        cwd: Its working folder.

    Returns:
        The running server; call ``interrupt()`` (or ``process.kill()``) when done.
    """
    process = subprocess.Popen(
        [sys.executable, "-m", "vivid_inspect.testing", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stdout is not None and process.stderr is not None
    stderr: list[str] = []
    reader = threading.Thread(target=_drain, args=(process.stderr, stderr), daemon=True)
    reader.start()
    first: list[str] = []
    waiter = threading.Thread(target=lambda: first.append(process.stdout.readline()), daemon=True)  # type: ignore[union-attr]
    waiter.start()
    waiter.join(STARTUP_SECONDS)
    found = _EXPORT.match(first[0].strip()) if first else None
    if found is None:
        process.kill()
        process.wait()
        reader.join(10)
        raise AssertionError(
            f"the test server printed no export line: {first!r}, stderr: {''.join(stderr)!r}"
        )
    env = dict(assignment.split("=", 1) for assignment in shlex.split(found["assignments"]))
    return ServerProcess(process, env, stderr, reader)
