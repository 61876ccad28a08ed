"""Ctrl-C during an Inspect call: noticed from its logs, and said in one line with what was kept.

On Ctrl-C Inspect cancels the samples in flight, writes each log as ``cancelled`` (keeping its
finished samples) and returns as if the call had ended, with no exception. ``vivid run`` used to
go on to judge and report, ending with exit 1 and a raw ``CancelledError`` line, and ``vivid
audit`` reported a failed probe. So after each ``eval_set``, each judge phase and each audit the
caller looks for logs Inspect cancelled meanwhile and raises `RunInterrupted`, a
`KeyboardInterrupt` that says what was kept; the command prints it in one line and exits
130 (``vivid_inspect.lab.cli.main``).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

CANCELLED = "cancelled"
"""The status Inspect gives a log whose run was interrupted."""

INCOMPLETE = "INCOMPLETE"
"""The file that marks a folder being written, or left half-written by an interrupted write."""

INCOMPLETE_TEXT = (
    "vivid report was interrupted while writing this folder: its files may mix that report with an "
    "earlier one. A report that finishes here removes this file.\n"
)


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
    from inspect_ai.log import read_eval_log  # here: `vivid --help` imports this module

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
    from inspect_ai.log import read_eval_log_sample_summaries

    kept = 0
    for path in logs:
        with contextlib.suppress(OSError, ValueError):
            kept += sum(1 for summary in read_eval_log_sample_summaries(str(path)) if summary.error is None)
    return kept


def raise_if_cancelled(folder: Path, since: float, phase: str, unit: str = "sample") -> None:
    """Raise `RunInterrupted` when Inspect cancelled a log under ``folder`` since ``since``.

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


class ReportInterrupted(KeyboardInterrupt):
    """Ctrl-C while `vivid report` rewrote its folder, which stays marked incomplete.

    Args:
        folder: The folder, holding `INCOMPLETE`.
    """

    def __init__(self, folder: Path) -> None:
        super().__init__(str(folder))
        self.folder = folder

    def describe(self) -> str:
        """``while writing report/: report/INCOMPLETE marks its files as a mix ...``."""
        return (
            f"while writing {self.folder}: {self.folder / INCOMPLETE} marks its files as a mix of this "
            "report and an earlier one until a report finishes there"
        )


def marked_incomplete(folder: Path) -> bool:
    """Whether ``folder`` holds the mark of a write that has not finished (or was interrupted)."""
    return (folder / INCOMPLETE).is_file()


@contextlib.contextmanager
def dropped_interrupts() -> Iterator[list[KeyboardInterrupt]]:
    """Keep the Ctrl-C that Python drops: one that lands in a weakref callback or a ``__del__``.

    Python prints such an interrupt as an ignored exception, with its traceback, and goes on, so
    a command finished and exited 0 (matplotlib and pandas run many such callbacks while a report
    is written). Within this block it is kept, silently, for the caller to raise.

    Yields:
        The interrupts dropped so far (empty while there were none).
    """
    dropped: list[KeyboardInterrupt] = []
    previous = sys.unraisablehook

    def hook(unraisable: Any) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            dropped.append(unraisable.exc_value)
        else:
            previous(unraisable)

    sys.unraisablehook = hook
    try:
        yield dropped
    finally:
        sys.unraisablehook = previous


@contextlib.contextmanager
def rewriting_report(folder: Path) -> Iterator[Callable[[], None]]:
    """Rewrite the files of ``folder``, marked incomplete until the block ends without Ctrl-C.

    A rename cannot replace a non-empty folder atomically, so the mark is written before the
    first file and removed after the last. A Ctrl-C that Python drops in a callback
    (`dropped_interrupts`) is raised by the check this yields, which the caller runs
    between files (and which runs once more before the mark is removed).

    Args:
        folder: The folder (it must exist).

    Yields:
        The check: raises `ReportInterrupted` when a Ctrl-C was dropped meanwhile.

    Raises:
        ReportInterrupted: Ctrl-C within the block; the mark stays.
    """
    with dropped_interrupts() as dropped:

        def check() -> None:
            if dropped:
                raise ReportInterrupted(folder)

        try:
            (folder / INCOMPLETE).write_text(INCOMPLETE_TEXT, encoding="utf-8")
            yield check
            check()
        except KeyboardInterrupt as interrupt:
            if isinstance(interrupt, ReportInterrupted):
                raise
            raise ReportInterrupted(folder) from None
    (folder / INCOMPLETE).unlink(missing_ok=True)
