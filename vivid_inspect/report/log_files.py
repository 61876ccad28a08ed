"""Which files in a folder are VIVID logs, and their headers and sample summaries, read within a cap.

Only log headers and sample summaries are read (never full samples), with Inspect's public readers
(``read_eval_log(header_only=True)``, ``read_eval_log_sample_summaries``), once the members they
inflate have been inflated within the cap of :mod:`vivid_inspect.bounded_zip` (which members:
:mod:`vivid_inspect.inspect_private`), so a decompression bomb is refused before Inspect reads it.
"""

from __future__ import annotations

import json
import os
import re
import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalLog, read_eval_log, read_eval_log_sample_summaries

from vivid_inspect.bounded_zip import Budget, check_members, max_inflated
from vivid_inspect.inspect_private import eval_header_members, eval_summary_members
from vivid_inspect.log_contract import SANITY_TAG, is_audit_log, short_task

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

# Inspect's own rule for .json log names (an ISO timestamp first); .eval files are always logs.
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
        :data:`AUDIT` (tagged or recorded as an audit log, whatever its task), :data:`SANITY`
        (tagged by the former ``vivid sanity``), or None for any other log.
    """
    tags, metadata = header.eval.tags, header.eval.metadata
    if is_audit_log(tags, metadata):
        return AUDIT
    if SANITY_TAG in (tags or []):
        return SANITY
    return None


def read_header(path: Path, budget: Budget) -> EvalLog:
    """A log's header (no samples), its members inflated within ``budget`` first.

    Raises:
        vivid_inspect.bounded_zip.InflationError: The header inflates past the cap.
    """
    if path.suffix == ".eval":
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
        # inflated once within the cap, so that Inspect's own (uncapped) read is known to fit
        check_members(path, eval_header_members(names), budget)
    return read_eval_log(str(path), header_only=True)


def read_summaries(path: Path, budget: Budget | None = None) -> list[dict[str, Any]]:
    """A log's sample summaries as plain dicts (``id``, ``epoch``, ``metadata``, ``scores``, ``error``).

    Args:
        path: An ``.eval`` or ``.json`` log.
        budget: Bytes left to inflate from this log; default a fresh :func:`max_inflated`.

    Returns:
        One dict per (sample, epoch); for a re-run sample, its last attempt (Inspect's rule).

    Raises:
        vivid_inspect.bounded_zip.InflationError: The summaries inflate past the cap.
    """
    if path.suffix != ".eval":
        return _dedupe(json.loads(path.read_bytes()).get("samples") or [])
    budget = budget if budget is not None else Budget(max_inflated())
    # Importing inspect_ai.log registered zstd with zipfile; .eval members use it.
    with zipfile.ZipFile(path) as archive:
        names = set(archive.namelist())
    # Inflated once within the cap (summaries.json, or a running log's journal of flushes), so that
    # Inspect's own (uncapped) read of the same members is known to fit.
    check_members(path, eval_summary_members(names), budget)
    summaries = read_eval_log_sample_summaries(str(path))
    return _dedupe([summary.model_dump(mode="json", exclude_none=True) for summary in summaries])


def _dedupe(summaries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_key: dict[tuple[str, int], dict[str, Any]] = {}
    for summary in summaries:
        by_key[(str(summary.get("id")), int(summary.get("epoch") or 1))] = summary
    return list(by_key.values())
