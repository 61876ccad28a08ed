"""Redact credentials from what a run writes and prints, where Inspect writes them first.

Inspect stores a provider's error message as it is: in the sample's error and traceback, in the
transcript's model and logger events and in retry warnings. A provider (or gateway) whose error
body echoes the request's ``Authorization`` header so puts the key into the log. ``vivid run``
therefore:

- rewrites, after each phase and at the end, every log and JSON file of its log folder written
  since the last scrub whose text holds a credential (`scrub_folder`); the ``.eval`` zip
  members are JSON, and ``[REDACTED]`` keeps them valid JSON;
- redacts every log record's message (`redacted_logging`) and everything written to
  stdout and stderr while it runs (`redacted_output`), which covers Inspect's console
  display of errors and tracebacks.

What counts as a credential is `vivid_inspect.redact.redact`'s rule, and a placeholder is
never one: ``vivid run`` registers its spec's model names, service names and paths, and
``vivid redact`` those its logs record (`log_texts`), so that a key set to one of them is
left where it occurs.
"""

from __future__ import annotations

import json
import logging
import sys
import traceback
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

# Imported for its effect: Inspect registers zstd (the compression of its .eval members) with zipfile.
import inspect_ai.log  # noqa: F401
import yaml

from vivid_inspect.atomic_write import replacing, write_atomic
from vivid_inspect.inspect_private import eval_header_members
from vivid_inspect.lab.bounded_zip import Budget, InflationError, iter_members, max_inflated, read_member
from vivid_inspect.lab.runner.spec.credentials import spec_texts
from vivid_inspect.redact import redact

logger = logging.getLogger(__name__)

MARKER = ".vivid-scrubbed"
"""File in the log folder whose modification time is that of the last scrub."""
_SUFFIXES = (".eval", ".json", ".yaml", ".txt", ".md", ".csv", ".log")


def _redact_bytes(data: bytes) -> bytes | None:
    """The redacted bytes, or None when nothing needed redacting (or it is not UTF-8 text)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    cleaned = redact(text)
    return cleaned.encode("utf-8") if cleaned != text else None


def _scrub_zip(path: Path) -> bool:
    limit = max_member_bytes()
    # a first pass finds whether anything needs redacting, one member at a time
    if not any(_redact_bytes(data) is not None for _, data in iter_members(path, limit)):
        return False
    with replacing(path, fsync=False) as temporary, zipfile.ZipFile(temporary, "w") as archive:
        for info, data in iter_members(path, limit):
            cleaned = _redact_bytes(data)
            archive.writestr(info, cleaned if cleaned is not None else data, compress_type=info.compress_type)
    return True


def max_member_bytes() -> int:
    """Largest zip member a scrub inflates: twice a report's cap (256 MiB by default)."""
    return 2 * max_inflated()


def _scrub_text_file(path: Path) -> bool:
    new = _redact_bytes(path.read_bytes())
    if new is None:
        return False
    write_atomic(path, new, fsync=False)
    return True


def scrub_file(path: Path) -> bool:
    """Redact one file in place (a ``.eval`` zip member by member). True if it changed."""
    if path.suffix == ".eval" and zipfile.is_zipfile(path):
        return _scrub_zip(path)
    return _scrub_text_file(path)


def scrub_folder(
    folder: Path, *, everything: bool = False, failed: list[tuple[Path, str]] | None = None
) -> list[Path]:
    """Redact every log and text file under ``folder`` written since the last scrub.

    A file that cannot be read or rewritten is left as it is, with a warning (and added to
    ``failed``); the original is replaced only once its redacted copy is complete.

    Args:
        folder: A log folder.
        everything: Scrub every file, not only those newer than the last scrub.
        failed: When given, each file that could not be checked or rewritten, with why.

    Returns:
        The files rewritten.
    """
    if not folder.is_dir():
        return []
    marker = folder / MARKER
    since = marker.stat().st_mtime if marker.exists() and not everything else None
    files = [
        p for p in folder.rglob("*") if p.suffix in _SUFFIXES and not p.name.startswith(".") and p.is_file()
    ]
    if not files:
        return []  # a run that wrote nothing leaves nothing behind, not even the marker
    try:
        # touched before reading, so that a file written while scrubbing is scrubbed next time
        marker.touch()
    except OSError as error:  # a read-only folder: its files cannot be rewritten either, said below
        logger.warning("vivid: could not mark %s as checked for credentials: %s", folder, error.strerror)
    changed = []
    for path in files:
        try:
            if since is not None and path.stat().st_mtime < since:
                continue
            if scrub_file(path):
                changed.append(path)
        except (OSError, zipfile.BadZipFile, InflationError) as error:
            # a log being written, broken, read-only, or a decompression bomb: left as it is, said aloud
            logger.warning("vivid: could not check %s for credentials: %s", path, redact(str(error)))
            if failed is not None:
                failed.append((path, redact(str(error))))
    return changed


def _header_models(path: Path) -> list[str]:
    with zipfile.ZipFile(path) as archive:
        members = eval_header_members(archive.namelist())
    if not members:
        return []
    data = json.loads(read_member(path, members[0], Budget(max_inflated())))
    header = data.get("eval") if isinstance(data, dict) else None
    if not isinstance(header, dict):
        return []
    roles = header.get("model_roles")
    roles = roles if isinstance(roles, dict) else {}
    names = [header.get("model"), *(role.get("model") for role in roles.values() if isinstance(role, dict))]
    return [name for name in names if isinstance(name, str)]


def log_texts(folder: Path) -> list[str]:
    """The model names, service names and paths the logs and resolved specs under ``folder`` record.

    What ``vivid redact`` treats as the spec's own texts when it has no spec: a key that occurs in
    one of them is a placeholder (`vivid_inspect.redact.placeholder_reason`).

    Args:
        folder: A log folder.

    Returns:
        The texts; a log or spec that cannot be read adds none.
    """
    texts = [str(folder.resolve())]
    for path in sorted(folder.rglob("*.eval")):
        try:
            names = _header_models(path)
        except (OSError, ValueError, KeyError, zipfile.BadZipFile):
            continue  # InflationError is a ValueError; such a log is reported by the scrub itself
        texts += [*names, *(part for name in names for part in name.split("/"))]
    for path in sorted(folder.rglob("spec.resolved.yaml")):
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            continue
        if isinstance(data, dict):
            texts += spec_texts(data.get("spec"))
    return texts


class _RedactingRecord(logging.LogRecord):
    def getMessage(self) -> str:
        return redact(super().getMessage())


@contextmanager
def redacted_logging() -> Iterator[None]:
    """Redact the message of every log record created in the block (handlers see it redacted)."""
    previous = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        if type(record) is logging.LogRecord:
            record.__class__ = _RedactingRecord
        if record.exc_info and record.exc_info[1] is not None:
            # formatters use exc_text when it is set instead of formatting the traceback again
            record.exc_text = redact("".join(traceback.format_exception(*record.exc_info)).rstrip("\n"))
        return record

    logging.setLogRecordFactory(factory)
    try:
        yield
    finally:
        logging.setLogRecordFactory(previous)


class _RedactingStream:
    """A text stream that redacts each write, delegating everything else to the real stream."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(redact(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextmanager
def redacted_output() -> Iterator[None]:
    """Redact what is written to ``sys.stdout`` and ``sys.stderr`` in the block."""
    previous = sys.stdout, sys.stderr
    sys.stdout = _RedactingStream(sys.stdout)
    sys.stderr = _RedactingStream(sys.stderr)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = previous
