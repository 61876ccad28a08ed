"""Read members of an ``.eval`` zip with a cap on how far they inflate.

A 1 MB ``.eval`` whose ``summaries.json`` inflates to 1 GiB would take a report to gigabytes of
memory. The size a zip declares for a member can lie, and Inspect's own reader decompresses the
whole compressed stream whatever the declared size says, so the cap is enforced here on the bytes
actually produced: the compressed range named by the central directory is decompressed in chunks
and reading stops one chunk past the cap.

Shared by the report (which reads summaries, and sample events for usage), the annotation
export (samples) and the runner's log scrubbing (which rewrites members), so it sits beside all
of them rather than inside any. Every read of a log member in the report goes through here.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, cast

import zstandard

from vivid_inspect.size_caps import LOGS, SizeCapError

MAX_INFLATED_ENV = LOGS.env
"""Environment variable that overrides the bytes one log may hold (128 MiB: its members a report reads,
together, once inflated; a ``.json`` log's size), in bytes or a number with K, M or G."""
_CHUNK = 1 << 20
_LOCAL_HEADER = struct.Struct("<4sHHHHHIIIHH")
_ZSTD = 93


class InflationError(ValueError):
    """A log member inflates past the cap (a decompression bomb, or a log far too large)."""


def max_inflated(*, strict: bool = False) -> int:
    """The cap in force (`vivid_inspect.size_caps.LOGS`): `MAX_INFLATED_ENV` when set, else the default.

    Args:
        strict: Refuse a value that is not a size (``vivid report`` says so before it reads a log);
            otherwise the default holds, so that a mistyped value never stops a run's scrubbing.

    Raises:
        vivid_inspect.size_caps.SizeCapError: With ``strict``, the variable is not a size.
    """
    try:
        return LOGS.limit()
    except SizeCapError:
        if strict:
            raise
        return LOGS.default


class _Range(io.RawIOBase):
    """A read-only view of ``length`` bytes of an open file from its current position."""

    def __init__(self, handle: io.BufferedReader, length: int) -> None:
        self._handle = handle
        self._left = length

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        if self._left <= 0:
            return 0
        data = self._handle.read(min(len(buffer), self._left))
        buffer[: len(data)] = data
        self._left -= len(data)
        return len(data)


class Budget:
    """Bytes left to inflate from one log, shared by every member read from it.

    Args:
        limit: The cap, in bytes.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.left = limit
        self.counted: set[Path] = set()

    def take(self, name: str, size: int) -> None:
        """Count ``size`` more inflated bytes of member ``name``.

        Raises:
            InflationError: The log's members together pass the cap.
        """
        self.left -= size
        if self.left < 0:
            raise InflationError(
                f"{name} inflates past {self.limit:,} bytes, the most a report reads from one log "
                f"(a decompression bomb? raise {MAX_INFLATED_ENV} for a genuinely larger log)"
            )


def _chunks(handle: io.BufferedReader, info: zipfile.ZipInfo) -> io.RawIOBase:
    handle.seek(info.header_offset)
    header = handle.read(_LOCAL_HEADER.size)
    if len(header) < _LOCAL_HEADER.size or header[:4] != b"PK\x03\x04":
        raise zipfile.BadZipFile(f"{info.filename}: bad local file header")
    name_length, extra_length = _LOCAL_HEADER.unpack(header)[-2:]
    handle.seek(info.header_offset + _LOCAL_HEADER.size + name_length + extra_length)
    return _Range(handle, info.compress_size)


def _inflate(raw: io.RawIOBase, method: int, name: str, budget: Budget, keep: bool) -> bytes:
    out = io.BytesIO() if keep else None

    def emit(data: bytes) -> None:
        budget.take(name, len(data))
        if out is not None:
            out.write(data)

    if method == zipfile.ZIP_STORED:
        while data := raw.read(_CHUNK):
            emit(data)
    elif method == zipfile.ZIP_DEFLATED:
        inflater = zlib.decompressobj(-15)
        while compressed := raw.read(_CHUNK):
            data = inflater.decompress(compressed, _CHUNK)
            emit(data)
            # max_length bounds each step, so a tiny input cannot inflate in one call
            while inflater.unconsumed_tail:
                emit(inflater.decompress(inflater.unconsumed_tail, _CHUNK))
        emit(inflater.flush())
    elif method == _ZSTD:
        reader = zstandard.ZstdDecompressor().stream_reader(cast(IO[bytes], raw), read_across_frames=True)
        while data := reader.read(_CHUNK):
            emit(data)
    else:
        raise zipfile.BadZipFile(f"{name}: unsupported compression method {method}")
    return out.getvalue() if out is not None else b""


def read_member(path: Path, name: str, budget: Budget) -> bytes:
    """One member of a zip, inflated within ``budget``.

    Args:
        path: The zip file.
        name: The member (the last of that name, as ``ZipFile.open`` resolves it).
        budget: Inflated bytes left for this log; reduced by the member's size.

    Returns:
        The member's content.

    Raises:
        InflationError: The member inflates past what is left of the budget.
        KeyError: No such member.
    """
    with zipfile.ZipFile(path) as archive, path.open("rb") as handle:
        info = archive.getinfo(name)
        return _inflate(_chunks(handle, info), info.compress_type, name, budget, keep=True)


def read_members(path: Path, names: list[str], budget: Budget) -> Iterator[tuple[str, bytes]]:
    """The members ``names`` of a zip in that order, one at a time, inflated within one ``budget``.

    The zip's directory is read once (not once per member, as `read_member` would).

    Raises:
        InflationError: The members together inflate past the budget.
        KeyError: No such member.
    """
    with zipfile.ZipFile(path) as archive, path.open("rb") as handle:
        for name in names:
            info = archive.getinfo(name)
            yield name, _inflate(_chunks(handle, info), info.compress_type, name, budget, keep=True)


def check_size(path: Path, budget: Budget) -> None:
    """Count a plain (``.json``) log's whole size against ``budget`` once, before any of it is read.

    A ``.json`` log is read as it is on disk, so its size is what it costs: a file over the cap is
    refused by its size alone (its header, its summaries and its samples are each read within the
    same count, however many readers ask).

    Raises:
        InflationError: The file is larger than what is left of the budget.
    """
    if path in budget.counted:
        return
    budget.counted.add(path)
    size = path.stat().st_size
    if size > budget.left:
        raise InflationError(
            f"{path.name} is {size:,} bytes, over the {budget.limit:,} bytes a report reads from one log "
            f"(set {MAX_INFLATED_ENV} to read a larger one)"
        )
    budget.take(path.name, size)


def check_members(path: Path, names: list[str], budget: Budget) -> None:
    """Inflate ``names`` without keeping them, to prove they fit in ``budget`` before Inspect reads them.

    Raises:
        InflationError: Together they inflate past the budget.
    """
    with zipfile.ZipFile(path) as archive, path.open("rb") as handle:
        for name in names:
            info = archive.getinfo(name)
            _inflate(_chunks(handle, info), info.compress_type, name, budget, keep=False)


def iter_members(path: Path, limit: int) -> Iterator[tuple[zipfile.ZipInfo, bytes]]:
    """Every member of a zip in order, each inflated within ``limit`` bytes of its own.

    One member is held at a time, so memory stays near the largest member.

    Raises:
        InflationError: A member inflates past ``limit``.
    """
    with zipfile.ZipFile(path) as archive, path.open("rb") as handle:
        for info in archive.infolist():
            data = _inflate(
                _chunks(handle, info), info.compress_type, info.filename, Budget(limit), keep=True
            )
            yield info, data
