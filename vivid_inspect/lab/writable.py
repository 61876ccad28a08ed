"""Whether a folder can be written, asked before a command starts work it could not keep.

``vivid run`` on a read-only log folder, ``vivid report`` with a read-only output folder and
``vivid redact`` on a read-only folder each stopped with a traceback from the first write (the
run's lock file, a figure, the scrub marker). Each now asks first, with a real write (a file
created and removed: permission bits say nothing of a read-only mount, and root ignores them),
and stops with one line naming the folder, having changed nothing.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


class FolderNotWritable(OSError):
    """A folder in which no file can be created.

    Args:
        folder: The folder asked about.
        reason: Why, as the operating system says it (``Read-only file system``).
    """

    def __init__(self, folder: Path, reason: str) -> None:
        super().__init__(f"cannot write to {folder}: {reason}")
        self.folder = folder
        self.reason = reason


def _existing(folder: Path) -> Path:
    """The folder, or its nearest ancestor that exists (where it would be created)."""
    for candidate in (folder, *folder.parents):
        if candidate.exists():
            return candidate
    return folder


def check_writable(folder: Path) -> None:
    """Raise unless a file can be created in ``folder`` (or where ``folder`` would be created).

    Nothing is left behind: the probe file is removed, and a missing folder is not created.

    Args:
        folder: The folder a command will write to.

    Raises:
        FolderNotWritable: It, or the folder it would be created in, is read-only, is not a
            folder, or cannot be entered.
    """
    target = _existing(folder.absolute())
    if not target.is_dir():
        raise FolderNotWritable(folder, f"{target} is a file, not a folder")
    try:
        handle, probe = tempfile.mkstemp(dir=target, prefix=".vivid-write-check-")
    except OSError as error:
        raise FolderNotWritable(folder, error.strerror or str(error)) from None
    os.close(handle)
    Path(probe).unlink(missing_ok=True)
