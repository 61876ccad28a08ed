"""One ``vivid run`` per log folder at a time.

Two runs on one folder would both see the same cells missing, make every paid call twice and
trip over each other's files. A run holds an exclusive lock on ``<log_dir>/.vivid-run.lock``
while it works; the file also names the holder (pid, host, start time, spec) for the message a
second run prints. The lock is an OS file lock (``flock``), which the kernel releases when its
process ends however it ends, so a lock file left by a killed run never blocks: only a live
holder does. A second run exits at once naming the holder, or, with ``wait``, waits for it.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import socket
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

LOCK_FILE = ".vivid-run.lock"

if sys.platform != "win32":
    import fcntl
else:  # pragma: no cover - no flock on Windows: runs are not serialised there
    fcntl = None


@dataclass(frozen=True)
class Holder:
    """Who holds a log folder, as its lock file says."""

    pid: int | None
    host: str | None
    started: str | None
    spec: str | None

    def describe(self) -> str:
        """``pid 123 on host h since 2026-...Z (spec x.yaml)``, leaving out what is unknown."""
        parts = [f"pid {self.pid}" if self.pid is not None else "an unknown process"]
        if self.host:
            parts.append(f"on host {self.host}")
        if self.started:
            parts.append(f"since {self.started}")
        if self.spec:
            parts.append(f"(spec {self.spec})")
        return " ".join(parts)


class FolderBusy(RuntimeError):
    """Another live ``vivid run`` holds the log folder.

    Args:
        folder: The log folder.
        holder: Who holds it.
    """

    def __init__(self, folder: Path, holder: Holder) -> None:
        self.folder = folder
        self.holder = holder
        super().__init__(
            f"the log folder {folder} is in use by another vivid run: {holder.describe()}. "
            "Wait for it to finish (or pass --wait to queue behind it), or give this run "
            "another log_dir."
        )


def read_holder(path: Path) -> Holder:
    """The holder a lock file names (fields it lacks are None)."""
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    data = data if isinstance(data, dict) else {}
    pid = data.get("pid")
    return Holder(
        pid=pid if isinstance(pid, int) else None,
        host=str(data["host"]) if data.get("host") else None,
        started=str(data["started"]) if data.get("started") else None,
        spec=str(data["spec"]) if data.get("spec") else None,
    )


def _open_locked(path: Path, *, wait: bool) -> IO[str] | None:
    """Open ``path`` and lock it; None if another process holds it and ``wait`` is False."""
    assert fcntl is not None
    while True:
        # the holder waited for removes the folder on release if it created it and left it empty
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = path.open("a+", encoding="utf-8")
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            handle.close()
            return None
        # The holder we waited for may have removed the file as it released it; a lock on the
        # removed file would not exclude the next run, so lock the file that is there now.
        try:
            same = os.stat(path).st_ino == os.fstat(handle.fileno()).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return handle
        handle.close()


@contextmanager
def log_folder_lock(
    folder: Path, *, spec: str | None = None, wait: bool = False, on_wait: Any = None
) -> Iterator[None]:
    """Hold the log folder for one run.

    Args:
        folder: The log folder (created if missing; removed again on release if this run
            created it and left it empty).
        spec: The spec file, named in the lock for a second run's message.
        wait: Wait for a live holder to finish instead of raising :class:`FolderBusy`.
        on_wait: Called with the :class:`Holder` once, before waiting.

    Raises:
        FolderBusy: Another live run holds the folder and ``wait`` is False.
    """
    if fcntl is None:  # pragma: no cover
        yield
        return
    created = not folder.exists()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOCK_FILE
    handle = _open_locked(path, wait=False)
    if handle is None:
        holder = read_holder(path)
        if not wait:
            _remove_if_empty(folder, created)
            raise FolderBusy(folder, holder)
        if on_wait is not None:
            on_wait(holder)
        handle = _open_locked(path, wait=True)
        assert handle is not None
    try:
        handle.seek(0)
        handle.truncate()
        started = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        info = {"pid": os.getpid(), "host": socket.gethostname(), "started": started, "spec": spec}
        handle.write(json.dumps(info) + "\n")
        handle.flush()
        yield
    finally:
        # unlink while still holding the lock: a waiter then finds the file gone and retries
        path.unlink(missing_ok=True)
        handle.close()
        _remove_if_empty(folder, created)


def _remove_if_empty(folder: Path, created: bool) -> None:
    if created:
        with contextlib.suppress(OSError):  # not empty: the run wrote something
            folder.rmdir()
