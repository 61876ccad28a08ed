"""One process at a time holds a folder: an OS file lock whose file names its holder.

The lock is `filelock.FileLock` (``flock`` on Unix, ``LockFileEx`` on Windows): the kernel
releases it when its process ends, however it ends, so a lock file left by a killed process never
blocks; only a live holder does. The lock file stays in place (filelock keeps its inode, so a
contender never locks a file the holder has just removed) and holds the holder's description as
JSON (pid, host, since when, and what the caller adds, such as a port), written once the lock is
taken and read by a contender for its message.

A process may take the same folder more than once (the lock is re-entered, from any thread): what
it excludes is another process; a lock taken with ``reentrant=False`` excludes this process's other
holds too. ``vivid annotate serve`` holds its annotation folder with it, ``vivid run`` its log folder
(`vivid_inspect.lab.runner.lock`, which also waits with ``--wait``).
"""

from __future__ import annotations

import datetime
import json
import os
import socket
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

_KNOWN = ("pid", "host", "started")


@dataclass(frozen=True)
class Holder:
    """Who holds a folder, as its lock file says (what it does not say is None or left out).

    Attributes:
        pid: The holding process.
        host: The machine it runs on.
        started: When it took the lock (ISO 8601, UTC).
        details: What the holder added (``port``, ``command``...), in the order written.
    """

    pid: int | None
    host: str | None
    started: str | None
    details: tuple[tuple[str, str], ...] = ()

    def detail(self, key: str) -> str | None:
        """What the holder wrote under ``key`` beside pid, host and time (None if nothing)."""
        return dict(self.details).get(key)

    def describe(self) -> str:
        """``pid 123 on host h, port 8765, since 2026-...`` leaving out what is unknown."""
        parts = [f"pid {self.pid}" if self.pid is not None else "an unknown process"]
        if self.host:
            parts[0] += f" on host {self.host}"
        parts += [f"{key} {value}" for key, value in self.details]
        if self.started:
            parts.append(f"since {self.started}")
        return ", ".join(parts)


class FolderBusy(RuntimeError):
    """Another live process holds the folder.

    Args:
        folder: The folder.
        holder: Who holds it.
        message: The whole message (the caller knows what the folder is and what to do).
    """

    def __init__(self, folder: Path, holder: Holder, message: str) -> None:
        self.folder = folder
        self.holder = holder
        super().__init__(message)


def read_holder(path: Path) -> Holder:
    """The holder a lock file names; an unreadable or foreign file names an unknown process."""
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        data = {}
    data = data if isinstance(data, dict) else {}
    pid = data.get("pid")
    details = tuple(
        (str(key), str(value))
        for key, value in data.items()
        if key not in _KNOWN and isinstance(value, str | int) and not isinstance(value, bool)
    )
    return Holder(
        pid=pid if isinstance(pid, int) and not isinstance(pid, bool) else None,
        host=str(data["host"]) if data.get("host") else None,
        started=str(data["started"]) if data.get("started") else None,
        details=details,
    )


class HeldFolder:
    """A folder held by this process; `release` (or the end of a ``with``) lets it go.

    Args:
        path: The lock file.
        lock: The acquired lock.
        info: What the lock file says of this holder.
    """

    def __init__(self, path: Path, lock: FileLock, info: dict[str, Any]) -> None:
        self.path = path
        self._lock = lock
        self._info = info

    def update(self, **details: str | int | None) -> None:
        """Add to (or change) what the lock file says of this holder, e.g. the port once bound."""
        self._info |= {key: value for key, value in details.items() if value is not None}
        _write_info(self.path, self._info)

    def release(self) -> None:
        """Let the folder go (once per `hold`; the last release unlocks it)."""
        if self._lock.is_locked:
            self._lock.release()

    def __enter__(self) -> HeldFolder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def hold(
    folder: Path,
    lock_name: str,
    busy: str,
    *,
    wait: bool = False,
    on_wait: Callable[[Holder], object] | None = None,
    reentrant: bool = True,
    describe: Callable[[Holder], str] = Holder.describe,
    **details: str | int | None,
) -> HeldFolder:
    """Take a folder for this process, or fail at once naming the live holder (or wait for it).

    Args:
        folder: The folder (it must exist).
        lock_name: The lock file's name inside it.
        busy: The message when another process holds it; ``{folder}`` and ``{holder}`` are filled in.
        wait: Wait for a live holder to let go instead of raising `FolderBusy`.
        on_wait: Called with the holder once, before waiting.
        reentrant: Whether this process may take the folder again while it holds it (False: a
            second hold in this process is refused like another process's).
        describe: How ``{holder}`` reads in ``busy``.
        **details: What the lock file says of this holder beside pid, host and time (None is left out).

    Returns:
        The held folder.

    Raises:
        FolderBusy: Another live process holds the folder.
        OSError: The lock file cannot be created or locked (a read-only folder, a folder by that name).
    """
    path = folder / lock_name
    # One instance per lock file, shared by every thread: this process re-enters its own lock.
    # Separate instances hold separate flocks, which exclude each other within one process too.
    lock = FileLock(path, timeout=0, thread_local=False, is_singleton=reentrant)
    first = not lock.is_locked
    try:
        lock.acquire()
    except Timeout:
        holder = read_holder(path)
        if not wait:
            raise FolderBusy(folder, holder, busy.format(folder=folder, holder=describe(holder))) from None
        if on_wait is not None:
            on_wait(holder)
        lock.acquire(timeout=-1)
    info: dict[str, Any] = {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "started": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    } | {key: value for key, value in details.items() if value is not None}
    if first:
        try:
            _write_info(path, info)
        except OSError:
            lock.release()
            raise
    else:
        info = _read_info(path) or info
    return HeldFolder(path, lock, info)


def _read_info(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def _write_info(path: Path, info: Mapping[str, Any]) -> None:
    # Written in place (never replaced: the lock is on this inode), whole before it is cut to length,
    # so a contender reading at the same moment never finds the file empty.
    data = (json.dumps(dict(info), ensure_ascii=False) + "\n").encode("utf-8")
    handle = os.open(path, os.O_WRONLY)
    try:
        os.write(handle, data)
        os.ftruncate(handle, len(data))
    finally:
        os.close(handle)
