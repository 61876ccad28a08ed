"""The audit cards of the ``vivid audit`` logs in a report's folder: one table per audit.

The report reads no generation from an audit log (see
`vivid_inspect.lab.report.reading.log_files.not_generations`); it reads each audit's probe logs here,
from their headers and sample summaries within the same inflation cap as every other log, and
builds the audit's card with [`vivid_inspect.lab.audit.card.build_card`][vivid_inspect.lab.audit.card.build_card], the code ``vivid audit``
itself uses, with the default thresholds. Logs of one audit share the ``audit_id`` of their
`vivid_inspect.log_contract.AuditRecord`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from inspect_ai.log import EvalLog, EvalSampleSummary

from vivid_inspect.lab.audit.card import build_card
from vivid_inspect.lab.audit.logs import probe_scores
from vivid_inspect.lab.audit.probes import PROBES
from vivid_inspect.lab.bounded_zip import Budget, max_inflated
from vivid_inspect.lab.report.reading.log_files import read_header, read_summaries
from vivid_inspect.lab.report.reading.vivid import AuditRecord, read_audit_record
from vivid_inspect.lab.report.tables.render import Table

logger = logging.getLogger(__name__)

AUDIT_COLUMNS = (
    "probe",
    "comparison",
    "expectation",
    "n_items",
    "n_paired",
    "unscored",
    "comparison_unscored",
    "mean",
    "paired_mean",
    "comparison_mean",
    "shift",
    "ci_low",
    "ci_high",
    "rate_name",
    "rate",
    "n_control",
    "control_flips",
    "excess_flips",
    "excess_ci_low",
    "excess_ci_high",
    "flip_bound",
    "verdict",
    "reason",
)
"""Columns of an audit table: one row per probe, as in ``audit.csv``."""
_NAME = re.compile(r"[^A-Za-z0-9_-]+")
_TITLE = (
    "Judge audit {identity}: {verdict}: judge {judge} (strategy {strategy}, instructions in {language}) "
    "on {n_items} items of {data}"
)
_TITLE_PATTERN = re.compile(
    r"Judge audit (?P<identity>\S+): (?P<verdict>[A-Z]+): judge (?P<judge>.*) \(strategy (?P<strategy>[^,]*), "
)


def audited(table: Table) -> tuple[str, str, str] | None:
    """The judge model, strategy and overall verdict (``pass``, ``fail``, ...) of an audit table.

    Args:
        table: A table `audit_tables` made (any other gives None).

    Returns:
        ``(judge, strategy, verdict)``, or None for a table that is not an audit card.
    """
    found = _TITLE_PATTERN.match(table.title) if table.name.startswith("audit_") else None
    if found is None:
        return None
    return found["judge"], found["strategy"], found["verdict"].lower()


def audit_tables(
    root: Path, paths: Sequence[Path], *, max_inflated_bytes: int | None = None
) -> tuple[list[Table], list[str]]:
    """One card table per audit whose logs are in the folder.

    Args:
        root: The log folder.
        paths: Its audit logs (`vivid_inspect.lab.report.reading.logs.LogSet.audits`).
        max_inflated_bytes: Most bytes read from one ``.eval`` zip once inflated.

    Returns:
        The tables, by audit id, and one line per audit log or audit that gave no table, naming
        it and why (unreadable, no record, a probe's log incomplete, no probe scored).
    """
    limit = max_inflated_bytes if max_inflated_bytes is not None else max_inflated()
    by_audit: dict[str, list[tuple[str, EvalLog]]] = {}
    problems: list[str] = []
    for path in paths:
        rel = path.relative_to(root).as_posix()
        try:
            log = _with_summaries(path, Budget(limit))
        except Exception as error:  # noqa: BLE001 - a broken log is named, not fatal
            problems.append(f"{rel}: {type(error).__name__}: {error}")
            continue
        record = read_audit_record(log.eval.metadata)
        if record is None or not record.audit_id or not record.probe:
            problems.append(f"{rel}: tagged as an audit log but has no audit record (vivid_audit) to read")
        else:
            by_audit.setdefault(record.audit_id, []).append((rel, log))
    tables: list[Table] = []
    for index, (identity, logs) in enumerate(sorted(by_audit.items()), start=1):
        try:
            tables.append(_card_table(index, identity, _latest_per_probe(logs)))
        except ValueError as error:
            problems.append(f"audit {identity}: no card: {error}")
    return tables, problems


def _latest_per_probe(logs: list[tuple[str, EvalLog]]) -> list[tuple[str, EvalLog]]:
    """Each probe's most recent log (a probe run again replaces its earlier log).

    Raises:
        ValueError: A probe's most recent log did not complete: as ``vivid audit`` does, no card
            is built from part of the probes.
    """
    latest: dict[str, tuple[str, EvalLog]] = {}
    for rel, log in sorted(logs, key=lambda entry: (str(entry[1].eval.created), entry[0])):
        record = read_audit_record(log.eval.metadata)
        latest[str(record.probe if record else None)] = (rel, log)
    for probe, (rel, log) in latest.items():
        if log.status != "success":
            raise ValueError(
                f"the {probe} probe's log {rel} did not complete ({log.status}); run the audit again"
            )
    return list(latest.values())


def _with_summaries(path: Path, budget: Budget) -> EvalLog:
    """A log's header with its sample summaries in place of samples, each read within ``budget``.

    A summary holds the sample's id and scores, all that
    `vivid_inspect.lab.audit.logs.probe_scores` reads of a sample; full samples would inflate
    every judge call's events.
    """
    header = read_header(path, budget)
    summaries = [EvalSampleSummary.model_validate(s) for s in read_summaries(path, budget)]
    return header.model_copy(update={"samples": summaries})


def _card_table(index: int, identity: str, logs: list[tuple[str, EvalLog]]) -> Table:

    scores = probe_scores(log for _, log in logs)
    record = read_audit_record(logs[0][1].eval.metadata) or AuditRecord()
    card = build_card(
        scores,
        [probe for name, probe in PROBES.items() if name in scores],
        judge=str(record.judge),
        strategy=str(record.strategy),
        language=str(record.language or "vi"),
        data=str(record.data),
        seed=int(record.seed or 0),
        log_locations=sorted(rel for rel, _ in logs),
    )
    rows: list[dict[str, Any]] = card.rows()
    frame = pd.DataFrame([{column: row.get(column) for column in AUDIT_COLUMNS} for row in rows])
    title = _TITLE.format(
        identity=identity,
        verdict=card.verdict.upper(),
        judge=card.judge,
        strategy=card.strategy,
        language=card.language,
        n_items=card.n_items,
        data=card.data,
    )
    notes = (
        f"{card.count('pass')} pass, {card.count('fail')} fail, {card.count('inconclusive')} inconclusive, "
        "with the default thresholds (docs/audit.md); `vivid audit` prints the full card and takes others",
        "mean: the probe's mean over its scored items; paired_mean and comparison_mean: both over the items "
        "scored in both, so shift = paired_mean - comparison_mean, with its paired 95% interval (ci_low, ci_high); "
        "rate: share of decided items on which the expectation holds",
        "invariance probes: control_flips is how often the retest control changed its score on the same "
        "items (the judge's own noise), excess_flips the probe's flips beyond it with its interval, held "
        "to flip_bound",
        *card.notes,
        *(f"{r.probe}: {note}" for r in card.results for note in r.notes),
        f"logs: {', '.join(card.log_locations)}",
    )
    return Table(
        f"audit_{index}_{_NAME.sub('_', identity)[:40]}",
        title,
        frame.reindex(columns=list(AUDIT_COLUMNS)),
        decimals=3,
        notes=notes,
        counts=("n_items", "n_paired", "unscored", "comparison_unscored"),
    )
