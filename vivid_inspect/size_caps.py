"""How large an input file may be: a cap for each kind, its default, and the variable that raises it.

A file over its cap is refused before it is read, in one line that names the file, its size, the
cap and the variable (a 2 GB file given by mistake must not take the machine's memory first), and
the reader stops at the cap too (a file that grows while it is read). Under the cap each reader
streams its file and keeps what it needs, so memory stays within a small multiple of the file's
size (``bench/input_size.py`` measures it). The caps, with their defaults:

- human scores files (``--human``, ``vivid annotate import``'s output): `HUMAN_SCORES`;
- annotation sheets (exported, filled, or an annotator's own): `SHEETS`;
- the VIVID data CSV (a path, a download, the download cache): `DATA`;
- an Inspect log, in either format (what the laboratory reads of one ``.eval`` once inflated, the
  size of a ``.json`` log): `LOGS`, enforced by `vivid_inspect.lab.bounded_zip`.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import BinaryIO

_SIZE = re.compile(r"(?P<number>[0-9]+)\s*(?P<unit>[kKmMgG]?)(?:i?[bB])?")
_UNITS = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30}


class SizeCapError(ValueError):
    """A cap variable whose value is not a size."""


@dataclass(frozen=True)
class SizeCap:
    """The most bytes one kind of input file may hold.

    Attributes:
        what: The kind of file, for messages (``human scores file``).
        default: The cap when `env` is not set, in bytes.
        env: The environment variable that sets another cap (bytes, or a number with K, M or G).
    """

    what: str
    default: int
    env: str

    def limit(self) -> int:
        """The cap in force.

        Raises:
            SizeCapError: `env` is set to something that is not a positive size.
        """
        value = os.environ.get(self.env, "").strip()
        if not value:
            return self.default
        match = _SIZE.fullmatch(value)
        size = int(match["number"]) * _UNITS[match["unit"].lower()] if match else 0
        if size <= 0:
            raise SizeCapError(
                f"{self.env}={value!r} is not a size: give a number of bytes (67108864) or one with K, M or G (64M)"
            )
        return size

    def over(self, size: int, limit: int) -> str:
        """The message for a file of ``size`` bytes over ``limit`` (one line, without the file's name)."""
        article = "an" if self.what[:1] in "aeiou" else "a"
        return (
            f"{_bytes(size)}, over the {_bytes(limit)} {article} {self.what} may hold; is this the right file? "
            f"(set {self.env} to read a larger one)"
        )


class Capped(io.RawIOBase):
    """A file read through, refused once more than ``limit`` bytes have come (it grew meanwhile).

    Args:
        handle: The open file.
        limit: The cap in force.
        refused: The error to raise, given the bytes read so far.
    """

    def __init__(self, handle: BinaryIO, limit: int, refused: Callable[[int], Exception]) -> None:
        self._handle, self._limit, self._refused, self._read = handle, limit, refused, 0

    def readable(self) -> bool:  # noqa: D102 - io.RawIOBase's
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]  # noqa: D102
        data = self._handle.read(len(buffer))
        buffer[: len(data)] = data
        self._read += len(data)
        if self._read > self._limit:
            raise self._refused(self._read)
        return len(data)


def _bytes(size: int) -> str:
    if size >= 2**20:
        return f"{size / 2**20:,.1f} MiB ({size:,} bytes)"
    return f"{size:,} bytes"


HUMAN_SCORES = SizeCap("human scores file", 32 * 2**20, "VIVID_MAX_HUMAN_BYTES")
"""32 MiB: about a million scores; the paper's 1,636 items by ten annotators take about 0.5 MiB."""
SHEETS = SizeCap("annotation sheet", 64 * 2**20, "VIVID_MAX_SHEET_BYTES")
"""64 MiB: every VIVID item with a 10,000-character explanation takes about 23 MiB."""
DATA = SizeCap("data file", 64 * 2**20, "VIVID_MAX_DATA_BYTES")
"""64 MiB: the VIVID release (1,636 rows) is well under 1 MiB."""
LOGS = SizeCap("log", 128 * 2**20, "VIVID_MAX_LOG_BYTES")
"""128 MiB: what one log may hold, inflated (``.eval``) or on disk (``.json``); a paper log's summaries take a few MiB."""
