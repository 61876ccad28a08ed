"""Build a costly read-only folder once per test session, even when pytest-xdist runs several workers.

A session-scoped fixture runs once per worker; the modules that read the same folder are often
on different workers. `once_per_session` builds the folder under the session's shared temporary
folder while holding a file lock: the first worker to ask builds it, the others wait for it (no
longer than building it themselves would take) and read the same files.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from filelock import FileLock

from tests.conftest import PAID_API_KEYS


def once_per_session(
    tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]
) -> Path:
    """The folder ``name``, made by ``build(folder)`` in one worker of this session.

    Args:
        tmp_path_factory: pytest's session temporary-folder factory.
        name: The folder's name, one per kind of folder.
        build: Fills the (empty, existing) folder; must raise if it cannot.

    Returns:
        The built folder, to be read and not changed (copy it to change it).
    """
    base = tmp_path_factory.getbasetemp()
    # Under xdist each worker's base is <session>/popen-gwN: their parent is the session's own.
    # Without xdist, the parent is shared by every session of the user, so the base itself is used.
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder, done = root / f"shared-{name}", root / f"shared-{name}.done"
    with FileLock(str(root / f"shared-{name}.lock")):
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)  # a build that failed part-way
            folder.mkdir()
            # Session fixtures run before conftest's per-test removal of paid keys: drop them here too.
            with pytest.MonkeyPatch.context() as patch:
                for key in PAID_API_KEYS:
                    patch.delenv(key, raising=False)
                build(folder)
            done.touch()
    return folder
