"""A progress line every few seconds, with or without a terminal.

A live status line or bar draws nothing under a pipe, ``nohup`` or a CI log, so a long cell or
audit used to print nothing for minutes. ``vivid run`` and ``vivid audit`` therefore also print
one plain line every `DEFAULT_SECONDS` while they work; ``$VIVID_PROGRESS_SECONDS`` sets
another interval (``0`` turns the lines off).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

PROGRESS_SECONDS_ENV = "VIVID_PROGRESS_SECONDS"
"""Environment variable: seconds between two progress lines (``0``: none)."""

DEFAULT_SECONDS = 15.0
"""Seconds between two progress lines when ``$VIVID_PROGRESS_SECONDS`` is unset or not a number."""


def interval() -> float:
    """Seconds between two progress lines: ``$VIVID_PROGRESS_SECONDS``, else `DEFAULT_SECONDS`."""
    try:
        seconds = float(os.environ.get(PROGRESS_SECONDS_ENV, DEFAULT_SECONDS))
    except ValueError:
        return DEFAULT_SECONDS
    return seconds if seconds == seconds else DEFAULT_SECONDS  # NaN: the default


def rate_text(calls: int, started: float) -> str:
    """``2m05s elapsed · 1.1 calls/s``: time since ``started`` (``time.monotonic()``) and the call rate."""
    elapsed = max(time.monotonic() - started, 1e-9)
    minutes, seconds = divmod(int(elapsed), 60)
    shown = f"{minutes}m{seconds:02d}s" if minutes else f"{seconds}s"
    return f"{shown} elapsed · {calls / elapsed:.1f} calls/s"


@contextmanager
def ticking(say: Callable[[], None], seconds: float | None = None) -> Iterator[None]:
    """Call ``say`` every ``seconds`` from a background thread while the block runs.

    Args:
        say: Prints one progress line.
        seconds: The interval; None reads `interval`; 0 or less prints nothing.
    """
    seconds = interval() if seconds is None else seconds
    if seconds <= 0:
        yield
        return
    stop = threading.Event()

    def loop() -> None:
        while not stop.wait(seconds):
            # the counters grow on the run's thread; one read mid-insert skips a line, not the rest
            with contextlib.suppress(RuntimeError):
                say()

    thread = threading.Thread(target=loop, name="vivid-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
