"""Ctrl-C during an Inspect call: noticed from its logs, and said in one line with what was kept.

On Ctrl-C Inspect cancels the samples in flight, writes each log as ``cancelled`` (keeping its
finished samples) and returns as if the call had ended, with no exception. ``vivid run`` used to
go on to judge and report, ending with exit 1 and a raw ``CancelledError`` line, and ``vivid
audit`` reported a failed probe. So after each ``eval_set``, each judge phase and each audit the
caller looks for logs Inspect cancelled meanwhile and raises :class:`RunInterrupted`, a
:class:`KeyboardInterrupt` that says what was kept; the command prints it in one line and exits
130 (``vivid_inspect.lab.cli.main``).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from inspect_ai.log import read_eval_log, read_eval_log_sample_summaries

CANCELLED = "cancelled"
"""The status Inspect gives a log whose run was interrupted."""


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C, noticed from the logs Inspect cancelled.

    Args:
        phase: What was running (``generating runs[0]``, ``auditing aspect``).
        logs: The logs Inspect cancelled.
        kept: Finished samples those logs keep.
        unit: What a sample is to the reader (``sample``, ``judgement``).
    """

    def __init__(self, phase: str, logs: list[Path], kept: int, unit: str = "sample") -> None:
        super().__init__(phase)
        self.phase = phase
        self.logs = logs
        self.kept = kept
        self.unit = unit

    def describe(self) -> str:
        """``while generating runs[0]: 1 log interrupted, keeping 5 finished samples``."""
        count = len(self.logs)
        logs = f"{count} log{'s' if count != 1 else ''} interrupted"
        kept = f"{self.kept} finished {self.unit}{'s' if self.kept != 1 else ''}"
        return f"while {self.phase}: {logs}, keeping {kept}"


def cancelled_since(folder: Path, since: float) -> list[Path]:
    """Logs under ``folder`` written at or after ``since`` (``time.time()``) that Inspect cancelled.

    Args:
        folder: A folder of Inspect logs (searched recursively).
        since: When the call that may have been interrupted started.

    Returns:
        The cancelled logs, sorted; an unreadable log is not counted.
    """
    found = []
    for path in sorted(folder.rglob("*.eval")) if folder.is_dir() else []:
        with contextlib.suppress(OSError, ValueError):
            if (
                os.path.getmtime(path) >= since
                and read_eval_log(str(path), header_only=True).status == CANCELLED
            ):
                found.append(path)
    return found


def kept_samples(logs: list[Path]) -> int:
    """Finished samples in these logs: what a rerun does not ask for again."""
    kept = 0
    for path in logs:
        with contextlib.suppress(OSError, ValueError):
            kept += sum(1 for summary in read_eval_log_sample_summaries(str(path)) if summary.error is None)
    return kept


def raise_if_cancelled(folder: Path, since: float, phase: str, unit: str = "sample") -> None:
    """Raise :class:`RunInterrupted` when Inspect cancelled a log under ``folder`` since ``since``.

    Args:
        folder: Where the call wrote its logs.
        since: When the call started (``time.time()``).
        phase: What was running, for the message.
        unit: What a finished sample is to the reader (``sample``, ``judgement``).

    Raises:
        RunInterrupted: Such a log exists: the run was interrupted with Ctrl-C.
    """
    logs = cancelled_since(folder, since)
    if logs:
        raise RunInterrupted(phase, logs, kept_samples(logs), unit)
