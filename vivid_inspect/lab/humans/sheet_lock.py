"""One writer of an annotation folder at a time: the ``vivid annotate serve`` that holds it.

A server keeps every annotator's scores in memory and rewrites their sheet and the human scores
file at each score; a second server on the same folder (another port, another process) would keep
its own memory and each save would wipe the other's scores. So a server holds its annotation
folder (`vivid_inspect.lab.folder_lock`, the lock file ``.vivid-annotate.lock``) for as long as
it runs: a second server exits at once naming the first (pid, host, port, since when), and any
other writer of the folder's sheets and scores files (``vivid annotate import --out`` or
``vivid annotate export --out`` into it) is refused while the server runs. A lock left by a killed
server is taken over.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from vivid_inspect.lab.folder_lock import HeldFolder, hold

LOCK_FILE = ".vivid-annotate.lock"
SERVED = (
    "the annotation folder {folder} is in use by another `vivid annotate serve`: {holder}. Two servers "
    "on one folder would each keep their own scores and overwrite the other's: stop that one first "
    "(Ctrl+C where it runs), or give this one another --out-dir"
)
_WRITER_REFUSED = (
    "{out}: the annotation folder {{folder}} is held by a running `vivid annotate serve` ({{holder}}); "
    "while it runs only that server writes its files: stop it first, or write --out elsewhere"
)


def hold_annotation_folder(folder: Path) -> HeldFolder:
    """Hold an annotation folder for a server, or fail naming the server that holds it.

    Args:
        folder: The annotation folder (it must exist).

    Returns:
        The held folder; add the port with ``update(port=...)`` once it is bound.

    Raises:
        vivid_inspect.lab.folder_lock.FolderBusy: Another live server holds the folder.
        OSError: The lock file cannot be written (a read-only folder).
    """
    return hold(folder, LOCK_FILE, SERVED)


@contextmanager
def not_served(out: Path) -> Iterator[None]:
    """Write ``out`` only if no server holds its folder, and keep any from starting meanwhile.

    A folder where no server ever ran (no lock file) is not locked: nothing is left behind in an
    ordinary folder.

    Args:
        out: The sheet or scores file about to be written.

    Raises:
        vivid_inspect.lab.folder_lock.FolderBusy: A live server holds ``out``'s folder.
    """
    folder = out.parent
    if not (folder / LOCK_FILE).is_file():
        yield
        return
    with hold(folder, LOCK_FILE, _WRITER_REFUSED.format(out=out)):
        yield
