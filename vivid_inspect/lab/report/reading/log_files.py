"""Which files in a folder are VIVID logs, and their headers and sample summaries, read within a cap.

Only log headers and sample summaries are read (never full samples). A header is read with
Inspect's public reader (``read_eval_log(header_only=True)``) once the members it inflates have
been inflated within the cap of `vivid_inspect.lab.bounded_zip` (which members:
`vivid_inspect.inspect_private`), so a decompression bomb is refused before Inspect reads it;
a ``.json`` log over the same cap is refused by its size before anything reads it. The summaries
are read here (`read_summaries`), so that a repeated key or a sample held twice is seen.
"""

from __future__ import annotations

import codecs
import contextlib
import json
import math
import os
import re
import sys
import time
import zipfile
from collections.abc import Iterable, Iterator
from functools import partial
from pathlib import Path
from typing import IO, Any

from inspect_ai.log import EvalLog, read_eval_log

from vivid_inspect.inspect_private import eval_header_members, eval_summary_members
from vivid_inspect.lab.bounded_zip import Budget, check_members, check_size, max_inflated, read_members
from vivid_inspect.log_contract import SANITY_TAG, is_audit_log, short_task
from vivid_inspect.text import unique_keys

CLASSIFICATION_TASKS = ("topic", "traits")
VIVID_TASKS = ("explain", *CLASSIFICATION_TASKS)
"""The tasks whose logs a report reads."""
_PACKAGE = "vivid_inspect"

AUDIT = "audit"
SANITY = "sanity"
NOT_GENERATIONS = {
    AUDIT: "an audit log of `vivid audit` (the audited judge's scores of made-up probe answers)",
    SANITY: "a sanity log of the former `vivid sanity` (a judge's scores of the oracle's and the literal baseline's answers)",
}
"""The logs a folder may hold that are judged, but hold no model's generations, with what each is."""

MAX_EPOCH = 100_000
"""Largest epoch a log may hold: far beyond any real run, and every count stays an int64."""
MAX_ID_CHARS = 1_000
"""Longest sample id (as text) a log may hold; an integer id must fit an int64."""
_INT64 = 2**63


class LogContentError(ValueError):
    """A log whose content Inspect could not have written (a crafted or damaged log): it is skipped."""


# Inspect's own rule for .json log names (an ISO timestamp first); .eval files are always logs.
_INT_DIGITS = 4300
"""Python's default ``sys.get_int_max_str_digits()``, for an interpreter that turned the limit off."""
_JSON_LOG_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}[:-]\d{2}[:-]\d{2}.*\.json$")


def find_log_files(
    log_dir: str | os.PathLike[str], *, exclude: Iterable[str | os.PathLike[str]] = ()
) -> list[Path]:
    """Every Inspect log file under a folder, recursively, in sorted order.

    Args:
        log_dir: The folder.
        exclude: Folders to leave out (the report's own output folder).

    Returns:
        ``.eval`` files and ``.json`` files named the way Inspect names logs, sorted by path.

    Raises:
        ValueError: If ``log_dir`` is not a folder.
    """
    root = Path(log_dir)
    if root.exists() and not root.is_dir():
        raise ValueError(f"log folder {str(root)!r} is a file, not a folder")
    if not root.is_dir():
        raise ValueError(f"log folder {str(root)!r} does not exist")
    excluded = {Path(p).resolve() for p in exclude}
    found: list[Path] = []
    for path in root.rglob("*"):
        if not path.is_file() or excluded & set(path.resolve().parents):
            continue
        if path.suffix == ".eval" or _JSON_LOG_NAME.match(path.name):
            found.append(path)
    return sorted(found, key=lambda p: p.relative_to(root).as_posix())


def is_vivid_log(header: EvalLog) -> bool:
    """Whether a log is one of VIVID's tasks (``vivid_inspect/explain``, ``tasks.py@topic``, ...).

    A task run by registry name is ``vivid_inspect/<task>``; run from the file
    (``inspect eval vivid_inspect/tasks.py@topic``) it is ``<task>`` with ``task_file`` in this
    package.
    """
    spec = header.eval
    ours = {f"{_PACKAGE}/{task}" for task in VIVID_TASKS}
    if spec.task in ours or spec.task_registry_name in ours:
        return True
    task_file = Path(spec.task_file) if spec.task_file else None
    return (
        short_task(spec.task) in VIVID_TASKS
        and task_file is not None
        and task_file.parent.name == _PACKAGE
        and task_file.name == "tasks.py"
    )


def not_generations(header: EvalLog) -> str | None:
    """Whether a log holds judged candidates that no model under test wrote, and which tool wrote it.

    ``vivid audit`` (and ``vivid sanity``, its literal probe) and the former ``vivid sanity`` judge
    made-up answers (probe candidates; the oracle's and the literal baseline's); read as generations they would add a model to Tables 3 and 4, a
    judge to the reliability tables, a candidate generation for the human scores and for
    ``vivid annotate export``.

    Args:
        header: A log header.

    Returns:
        `AUDIT` (tagged or recorded as an audit log, whatever its task), `SANITY`
        (tagged by the former ``vivid sanity``), or None for any other log.
    """
    tags, metadata = header.eval.tags, header.eval.metadata
    if is_audit_log(tags, metadata):
        return AUDIT
    if SANITY_TAG in (tags or []):
        return SANITY
    return None


def read_header(path: Path, budget: Budget, written: list[tuple[float, int]] | None = None) -> EvalLog:
    """A log's header (no samples), its members inflated within ``budget`` first (a ``.json`` log: its size).

    Args:
        path: The log.
        budget: Bytes left to inflate from it.
        written: Where to put when the file was written (`_written`), read from the same
            open zip.

    Raises:
        vivid_inspect.lab.bounded_zip.InflationError: The header inflates past the cap, or a
            ``.json`` log is larger than the cap.
    """
    if path.suffix == ".eval":
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            if written is not None:
                written.append(_written(path, archive))
        # inflated once within the cap, so that Inspect's own (uncapped) read is known to fit; the
        # header itself is parsed too, as Inspect would keep the last of a repeated key unseen
        first, *others = eval_header_members(names) or [""]
        for name, data in read_members(path, [first] if first else [], budget):
            _loads(data, name)
        check_members(path, others, budget)
    else:
        check_size(path, budget)
        check_number_lengths(path)
        if written is not None:
            written.append(_written(path, None))
    return read_eval_log(str(path), header_only=True)


def check_number_lengths(path: Path, chunk: int = 1 << 20) -> None:
    """Refuse a ``.json`` log holding a number longer than Python will parse as an integer.

    Inspect's ``.json`` header reader crashed the whole process (a segmentation fault, no message)
    on such a number; Python's own parser refuses it past ``sys.get_int_max_str_digits()``. Read in
    chunks, the end of each carried into the next; digits inside a text are not a number.

    Raises:
        ValueError: A run of digits longer than that limit, with its length.
    """
    limit = sys.get_int_max_str_digits() or _INT_DIGITS
    # A number where JSON puts a value (after a colon, a comma or a bracket), not digits in a text.
    too_long = re.compile(rb"[:,\[][ \t\r\n]*-?[0-9]{%d,}" % (limit + 1))
    carried = b""
    with path.open("rb") as handle:
        while block := handle.read(chunk):
            text = carried + block
            if too_long.search(text) is not None:
                raise ValueError(
                    f"holds a number of more than {limit:,} digits, which no log of Inspect's has"
                )
            carried = text[-(limit + 64) :]


def read_summaries(
    path: Path, budget: Budget | None = None, repeated: list[str] | None = None
) -> list[dict[str, Any]]:
    """A log's sample summaries as plain dicts (``id``, ``epoch``, ``metadata``, ``scores``, ``error``).

    Read as JSON here, not by Inspect's reader: Inspect keeps the last of a repeated key and of two
    summaries of one sample without a word, so a crafted log could replace a score unseen. An
    ``.eval``'s summary members (`vivid_inspect.inspect_private.eval_summary_members`, the
    rows Inspect's reader returns) are inflated within the cap; a ``.json`` log is refused by its
    size, then streamed one sample at a time (its samples hold every event: read whole, a log took
    19 times its size in memory).

    Args:
        path: An ``.eval`` or ``.json`` log.
        budget: Bytes left to inflate from this log; default a fresh `max_inflated`.
        repeated: Where to add one line per sample the log holds more than once (its ids and
            epoch); the last is kept, Inspect's rule for a sample run again.

    Returns:
        One dict per (sample, epoch); for a sample held twice, the last.

    Raises:
        vivid_inspect.lab.bounded_zip.InflationError: The summaries inflate past the cap.
        LogContentError: A repeated key, or a summary Inspect could not have written.
    """
    budget = budget if budget is not None else Budget(max_inflated())
    if path.suffix != ".eval":
        check_size(path, budget)
        return _dedupe(json_samples(path), repeated)
    # Importing inspect_ai.log registered zstd with zipfile; .eval members use it.
    with zipfile.ZipFile(path) as archive:
        names = set(archive.namelist())
    rows: list[Any] = []
    for name, data in read_members(path, eval_summary_members(names), budget):
        content = _loads(data, name)
        if not isinstance(content, list):
            raise LogContentError(f"{name} is a {type(content).__name__}, not a list of sample summaries")
        rows.extend(content)
    return _dedupe(rows, repeated)


_CHUNK = 1 << 20
_SUMMARY_KEYS = ("id", "epoch", "input", "target", "metadata", "scores", "error")
"""What a summary keeps of a ``.json`` log's sample (its events and messages are left behind)."""


def _repeated(key: str) -> LogContentError:
    return LogContentError(f"the key {shown(key)} is repeated in one object (which value counts?)")


_DECODER = json.JSONDecoder(object_pairs_hook=partial(unique_keys, refuse=_repeated))


def _loads(data: bytes, name: str) -> Any:
    try:
        return _DECODER.decode(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise LogContentError(f"{name} is not JSON ({type(error).__name__}: {str(error)[:80]})") from None


class _Stream:
    """A window of a ``.json`` log's text, refilled as values are decoded from it, one at a time."""

    def __init__(self, handle: IO[bytes], name: str) -> None:
        self._handle, self._name = handle, name
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self._text, self._at, self._ended = "", 0, False

    def _more(self) -> bool:
        if self._ended:
            return False
        # read as much as is held, at least 1 MiB: a value larger than a chunk is decoded again
        # at most twice as often as it doubles
        data = self._handle.read(max(_CHUNK, len(self._text) - self._at))
        self._ended = not data
        self._text = self._text[self._at :] + self._decoder.decode(data, final=self._ended)
        self._at = 0
        return True

    def peek(self) -> str:
        """The next character that is not white space ('' at the end)."""
        while True:
            while self._at < len(self._text) and self._text[self._at] in " \t\r\n":
                self._at += 1
            if self._at < len(self._text) or not self._more():
                return self._text[self._at : self._at + 1]

    def take(self, expected: str) -> str:
        found = self.peek()
        if not found or found not in expected:
            raise LogContentError(
                f"{self._name} is not a log: {expected!r} expected, {found or 'the end'!r} found"
            )
        self._at += 1
        return found

    def value(self) -> Any:
        self.peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self._text, self._at)
            except json.JSONDecodeError as error:
                if not self._more():
                    raise LogContentError(f"{self._name} is not JSON ({str(error)[:80]})") from None
                continue
            except RecursionError:
                raise LogContentError(f"{self._name} nests too deeply to be a log") from None
            # a number may go on past the window's end
            if end < len(self._text) or not self._more():
                self._at = end
                return value


def json_samples(path: Path, keep: tuple[str, ...] = _SUMMARY_KEYS) -> Iterator[dict[str, Any]]:
    """The fields ``keep`` of each sample of a ``.json`` log, decoded one sample at a time.

    Args:
        path: The log; its size is checked against the cap by the caller.
        keep: The fields of a sample to keep (default: what a sample summary holds).

    Raises:
        LogContentError: The file is not a log's JSON, or repeats a key.
    """
    with path.open("rb") as handle:
        stream = _Stream(handle, path.name)
        stream.take("{")
        keys: set[str] = set()
        while stream.peek() != "}":
            key = stream.value()
            if key in keys:
                raise LogContentError(f"the key {shown(key)} is repeated in the log (which value counts?)")
            keys.add(key)
            stream.take(":")
            if key == "samples" and stream.peek() == "[":
                stream.take("[")
                while stream.peek() != "]":
                    sample = stream.value()
                    yield (
                        {k: sample[k] for k in keep if k in sample} if isinstance(sample, dict) else sample
                    )
                    if stream.take(",]") == "]":
                        break
                else:
                    stream.take("]")
            elif (value := stream.value()) is not None and key == "samples":
                raise LogContentError(f"samples is a {type(value).__name__}, not a list of samples")
            if stream.take(",}") == "}":
                return


def _dedupe(summaries: Iterable[Any], repeated: list[str] | None = None) -> list[dict[str, Any]]:
    by_key: dict[tuple[str, int], dict[str, Any]] = {}
    ids: dict[tuple[str, int], list[Any]] = {}
    for summary in summaries:
        key = _checked(summary)
        by_key[key] = summary
        ids.setdefault(key, []).append(summary["id"])
    if repeated is not None:
        for (_, epoch), held in ids.items():
            if len(held) > 1:
                listed = ", ".join(shown(i) for i in held)
                repeated.append(
                    f"sample {shown(held[0])} epoch {epoch} is held {len(held)} times (ids {listed})"
                )
    return list(by_key.values())


def _checked(summary: Any) -> tuple[str, int]:
    """A summary's id (as text) and epoch, or `LogContentError` naming what is wrong."""
    if not isinstance(summary, dict):
        raise LogContentError(f"a sample summary is a {type(summary).__name__}, not an object")
    sample_id, epoch = summary.get("id"), summary.get("epoch", 1)
    check_id(sample_id, "sample id")
    if epoch is None:
        epoch = 1
    if isinstance(epoch, bool) or not isinstance(epoch, int) or not 1 <= epoch <= MAX_EPOCH:
        raise LogContentError(
            f"sample {shown(sample_id)}: epoch {shown(epoch)} is not a whole number from 1 to {MAX_EPOCH:,}"
        )
    for field in ("scores", "metadata"):
        if not isinstance(summary.get(field) or {}, dict):
            raise LogContentError(
                f"sample {shown(sample_id)}: {field} is a {type(summary[field]).__name__}, not an object"
            )
    for name, score in (summary.get("scores") or {}).items():
        if score is not None and not isinstance(score, dict):
            raise LogContentError(
                f"sample {shown(sample_id)}: score {shown(name)} is a {type(score).__name__}, not a score"
            )
        if score is not None and not isinstance(score.get("metadata") or {}, dict):
            raise LogContentError(
                f"sample {shown(sample_id)}: score {shown(name)}'s metadata is not an object"
            )
    return str(sample_id), epoch


def check_id(sample_id: Any, what: str) -> None:
    """Refuse an id Inspect could not have written: not a whole number or a string, out of int64, empty or long.

    Raises:
        LogContentError: Naming ``what`` (``sample id``, ``header sample id``) and the id.
    """
    if isinstance(sample_id, bool) or not isinstance(sample_id, int | str):
        raise LogContentError(f"{what} {shown(sample_id)} is neither a whole number nor a string")
    if isinstance(sample_id, int) and not -_INT64 <= sample_id < _INT64:
        raise LogContentError(f"{what} {shown(sample_id)} is too large a number for a sample id")
    if isinstance(sample_id, str) and not 0 < len(sample_id) <= MAX_ID_CHARS:
        raise LogContentError(
            f"{what} {shown(sample_id)} is empty or longer than {MAX_ID_CHARS:,} characters"
        )


def shown(value: Any, limit: int = 40) -> str:
    """A value quoted in a message, cut short (a crafted number may have thousands of digits)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**limit:
        return f"an integer of more than {limit} digits"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _written(path: Path, archive: zipfile.ZipFile | None) -> tuple[float, int]:
    """When a log file was written, to order copies of one judgement (the latest wins).

    Returns:
        For an ``.eval`` (its open ``archive``), the time its ``header.json`` member was written
        (kept inside the zip, so a copied folder keeps the order), then the file's modification
        time in nanoseconds (the zip's time has a 2-second resolution); for a ``.json`` log (no
        archive), its modification time twice.
    """
    stat = path.stat()
    written = float(math.floor(stat.st_mtime))
    # A running log has no header.json yet: its modification time orders it.
    if archive is not None:
        with contextlib.suppress(KeyError, OverflowError, ValueError):
            written = time.mktime((*archive.getinfo("header.json").date_time, 0, 0, -1))
    return written, stat.st_mtime_ns
