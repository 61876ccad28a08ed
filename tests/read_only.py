"""A folder that is really read-only for a subprocess, whoever runs the tests.

Permission bits stop an ordinary user but not root, who writes through them. As root the folder
is instead bind-mounted read-only onto itself inside a private mount namespace of the child
(``unshare -m``; the tests' own view of the folder is unchanged and nothing leaks to the host);
as another user its permission bits are taken away for the duration and given back. Only when
neither can work (root without a mount namespace) does a test skip, saying why.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

# $0 is the folder, "$@" the command: bind the folder onto itself, make that mount read-only, run.
_READ_ONLY_MOUNT = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"'


def _namespace_works(folder: Path) -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        [
            "unshare",
            "-m",
            "sh",
            "-c",
            _READ_ONLY_MOUNT,
            str(folder),
            "sh",
            "-c",
            'touch "$0/.probe"',
            str(folder),
        ],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    (folder / ".probe").unlink(missing_ok=True)
    return probe.returncode != 0 and "Read-only file system" in probe.stderr


@contextmanager
def read_only(folder: Path) -> Iterator[list[str]]:
    """Make ``folder`` (and everything under it) read-only for commands run with the prefix yielded.

    Args:
        folder: An existing folder.

    Yields:
        The words to put before a command (empty when permission bits do the work).
    """
    if os.geteuid() == 0:
        if not _namespace_works(folder):
            pytest.skip("running as root without a mount namespace: no way to make a folder read-only")
        yield ["unshare", "-m", "sh", "-c", _READ_ONLY_MOUNT, str(folder)]
        return
    modes = {path: path.stat().st_mode for path in (folder, *folder.rglob("*"))}
    for path, mode in sorted(modes.items(), key=lambda item: len(item[0].parts), reverse=True):
        path.chmod(stat.S_IMODE(mode) & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    try:
        yield []
    finally:
        for path, mode in sorted(modes.items(), key=lambda item: len(item[0].parts)):
            path.chmod(stat.S_IMODE(mode))
