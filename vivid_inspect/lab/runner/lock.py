"""One ``vivid run`` per log folder at a time.

Two runs on one folder would both see the same cells missing, make every paid call twice and
trip over each other's files. A run holds ``<log_dir>/.vivid-run.lock`` with
`vivid_inspect.lab.folder_lock` (an OS file lock the kernel releases when its process ends, however
it ends, so only a live holder blocks) while it works; the file names the holder (pid, host, start
time, spec) for the message a second run prints. A second run exits at once naming the holder, or,
with ``wait``, waits for it. The lock is not re-entered: a second run in the same process is refused
too. A run that ends removes its lock file (and the folder, if it created it and left it empty, so
a run refused before its first write leaves nothing behind).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from vivid_inspect.lab.folder_lock import FolderBusy, Holder, hold

LOCK_FILE = ".vivid-run.lock"
_BUSY = (
    "the log folder {folder} is in use by another vivid run: {holder}. Wait for it to finish (or pass "
    "--wait to queue behind it), or give this run another log_dir."
)


def describe(holder: Holder) -> str:
    """``pid 123 on host h since 2026-...Z (spec x.yaml)``, leaving out what is unknown."""
    parts = [f"pid {holder.pid}" if holder.pid is not None else "an unknown process"]
    if holder.host:
        parts.append(f"on host {holder.host}")
    if holder.started:
        parts.append(f"since {holder.started}")
    if spec := holder.detail("spec"):
        parts.append(f"(spec {spec})")
    return " ".join(parts)


@contextmanager
def log_folder_lock(
    folder: Path,
    *,
    spec: str | None = None,
    wait: bool = False,
    on_wait: Callable[[Holder], object] | None = None,
) -> Iterator[None]:
    """Hold the log folder for one run.

    Args:
        folder: The log folder (created if missing).
        spec: The spec file, named in the lock for a second run's message.
        wait: Wait for a live holder to finish instead of raising `FolderBusy`.
        on_wait: Called with the `Holder` once, before waiting.

    Raises:
        FolderBusy: Another live run holds the folder and ``wait`` is False.
    """
    created = not folder.exists()
    path = folder / LOCK_FILE
    while True:
        created = created or not folder.exists()
        folder.mkdir(parents=True, exist_ok=True)
        try:
            held = hold(
                folder,
                LOCK_FILE,
                _BUSY,
                wait=wait,
                on_wait=on_wait,
                reentrant=False,
                describe=describe,
                spec=spec,
            )
        except FolderBusy:
            _remove_if_empty(folder, created)
            raise
        except FileNotFoundError:
            if not wait:
                raise
            # the holder waited for removed the folder it had created and left empty: take it anew
            on_wait = None
            continue
        break
    try:
        yield
    finally:
        # Unlinked while still held: filelock refuses an inode unlinked under a waiter (it retries
        # on the file that is there now), so a waiter never holds a removed file. Windows keeps an
        # open file: there it stays, as filelock leaves it.
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)
        held.release()
        _remove_if_empty(folder, created)


def _remove_if_empty(folder: Path, created: bool) -> None:
    if created:
        with contextlib.suppress(OSError):  # not empty: the run wrote something
            folder.rmdir()
