"""Files written whole or not at all: a temporary file beside the target, renamed over it.

Every file the project replaces (judged logs, scrubbed logs, sheets, human scores files, audit
cards, the data cache) goes through `replacing` or `write_atomic`: the content goes to a
hidden temporary file in the target's folder (``.NAME.<random>.tmp``, which no reader of the folder
takes for a log or a sheet), and only a complete file is renamed over the target (``os.replace``,
atomic on one file system). A failure or Ctrl-C at any point leaves the old file whole (or no file)
and removes the temporary one. The new file gets the old one's permissions, or those a plain write
would give (the umask applies).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def replacing(path: Path, *, fsync: bool = True) -> Iterator[Path]:
    """A temporary path beside ``path`` to write; renamed over ``path`` when the block ends cleanly.

    Args:
        path: The file to write (its folder must exist).
        fsync: Flush the content to disk before the rename, so a power cut cannot leave an empty
            file under the name; False where the file can be made again (a log a rerun rewrites).

    Yields:
        The temporary file (created empty), for the caller to write whole.

    Raises:
        OSError: The temporary file cannot be created, written or renamed (``path`` is unchanged).
    """
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    # 0o666 lets the umask decide, as for any file opened for writing (mkstemp would give 0o600)
    os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    try:
        yield temporary
        if fsync:
            handle = os.open(temporary, os.O_RDONLY)
            try:
                os.fsync(handle)
            finally:
                os.close(handle)
        with contextlib.suppress(FileNotFoundError):  # a new file: the umask's permissions stay
            os.chmod(temporary, stat.S_IMODE(path.stat().st_mode))
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def write_atomic(path: Path, data: str | bytes, *, encoding: str = "utf-8", fsync: bool = True) -> None:
    """Write ``data`` to ``path`` whole or not at all.

    Characters that cannot be encoded (a lone surrogate from a model's reply) become ``?``.

    Args:
        path: The file to write (its folder must exist).
        data: Its content: text, or bytes written as they are (an image).
        encoding: ``utf-8`` or ``utf-8-sig`` (with the byte-order mark spreadsheets want).
        fsync: See `replacing`.

    Raises:
        OSError: The file cannot be written (``path`` is unchanged).
    """
    content = data if isinstance(data, bytes) else data.encode(encoding, errors="replace")
    with replacing(path, fsync=fsync) as temporary:
        temporary.write_bytes(content)
