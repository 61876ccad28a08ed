"""A spec's ``audits:``: each listed judge audited with ``vivid audit``'s probes, after the judge phase.

An audit of judge ``NAME`` writes its probe logs to ``<log_dir>/audits/NAME/`` and its card
(``audit.md``, ``audit.csv``, ``audit_shifts.png``) to ``<log_dir>/audits/NAME/card/``, with the
judge model the judge phase used (its model arguments and generation options), its strategy and
its language; the report then shows the card beside the tables (`vivid_inspect.lab.report.cards.audit_tables`).

Like every other step of a run, an audit already complete is not run again: when the folder holds
a complete log of every probe with the audit's id (the judge's model, model arguments and
generation settings, strategy, language, retries, data, items, seed, probe version), the card is rebuilt from those logs and no model is called. A failed audit (a
judge call that failed after its retries) leaves the run incomplete; a judge that fails a probe
is a finding, not a failure of the run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import Model

from vivid_inspect.lab.audit.card import AuditCard, build_card
from vivid_inspect.lab.audit.logs import probe_scores
from vivid_inspect.lab.audit.probes import PROBES
from vivid_inspect.lab.audit.run import (
    AuditError,
    AuditItems,
    audit_id,
    model_identity,
    prepare_items,
    run_audit,
)
from vivid_inspect.lab.runner.cells import resolved_judge, split_model_args
from vivid_inspect.lab.runner.prepare.models import generate_config
from vivid_inspect.lab.runner.progress import Progress
from vivid_inspect.lab.runner.spec.load import LoadedSpec
from vivid_inspect.lab.runner.spec.model import Audit, Judge
from vivid_inspect.log_contract import read_audit_record
from vivid_inspect.redact import redact

AUDITS_DIR = "audits"
"""Folder of the audits under the log folder, one subfolder per audited judge."""
CARD_DIR = "card"
"""Subfolder of an audit's folder holding its card files."""


@dataclass(frozen=True)
class AuditResult:
    """The outcome of one audit of a spec.

    Attributes:
        judge: The audited judge's name in the spec.
        folder: Its probe logs' folder.
        card: The card; None when the audit failed.
        reused: True when the card was rebuilt from complete logs already in the folder.
        error: Why the audit failed (one line, redacted).
    """

    judge: str
    folder: Path
    card: AuditCard | None = None
    reused: bool = False
    error: str | None = None

    @property
    def ok(self) -> bool:
        """Whether the audit has a card."""
        return self.card is not None


def run_audits(loaded: LoadedSpec, judges: dict[str, Model], progress: Progress) -> list[AuditResult]:
    """Run (or reuse) every audit the spec lists, in order.

    Args:
        loaded: The spec.
        judges: The judge models by judge name, as the judge phase used them.
        progress: Where each audit's verdict, or why it failed, is noted.

    Returns:
        One result per ``audits:`` entry.
    """
    by_name = {judge.name: judge for judge in loaded.spec.judges}
    results = []
    for entry in loaded.spec.audits:
        result = _audit(loaded, entry, by_name[entry.judge], judges[entry.judge])
        if result.card is not None:
            card = result.card
            counts = ", ".join(f"{card.count(v)} {v}" for v in ("pass", "fail", "inconclusive"))
            how = " (from its logs)" if result.reused else ""
            where = result.folder / CARD_DIR / "audit.md"
            progress.note(f"audit of {entry.judge}: {card.verdict.upper()} ({counts}){how}; card: {where}")
        else:
            progress.error(f"audit of {entry.judge} failed: {result.error}")
        results.append(result)
    return results


def _audit(loaded: LoadedSpec, entry: Audit, judge: Judge, model: Model) -> AuditResult:

    folder = loaded.log_dir / AUDITS_DIR / judge.name
    try:
        prepared = prepare_items(
            data=loaded.data, limit=entry.limit, seed=entry.seed, probes=entry.probes, translator=None
        )
        identity = judge_identity(loaded, judge)
        card = _from_logs(folder, prepared, judge, identity, entry.seed)
        reused = card is not None
        if card is None:
            # The judge phase's own retries, so the audit asks as often as `vivid plan` counts;
            # no preflight: vivid run's own has checked the judge's endpoint.
            card = run_audit(
                model,
                strategy=judge.strategy,
                language=judge.language,
                data=loaded.data,
                limit=entry.limit,
                seed=entry.seed,
                probes=entry.probes,
                log_dir=str(folder),
                display="none",
                retries=judge.retries,
                preflight=False,
                judge_identity=identity,
            )
        card.write(folder / CARD_DIR)
    except (AuditError, ValueError, OSError) as error:
        message = " ".join(redact(f"{type(error).__name__}: {error}").split())
        return AuditResult(judge.name, folder, error=message)
    return AuditResult(judge.name, folder, card=card, reused=reused)


def judge_identity(loaded: LoadedSpec, judge: Judge) -> dict[str, Any]:
    """The judge's model identity as the spec describes it (the audit id's judge part).

    Built from the spec, not from the created model, so that ``vivid plan`` (which creates no
    model) and ``vivid run`` agree on whether an audit is done.
    """
    resolved = resolved_judge(judge, loaded.data)
    base_url, args = split_model_args(resolved.model_args)
    return model_identity(
        str(judge.model),
        base_url=base_url,
        model_args=args,
        config=generate_config(loaded.spec, judge.generate),
    )


def _from_logs(
    folder: Path, prepared: AuditItems, judge: Judge, identity: Mapping[str, Any], seed: int
) -> AuditCard | None:
    """The card of complete logs of every probe of this audit already in ``folder``; None if any is missing."""
    audit = audit_id(identity, judge.strategy, judge.language, prepared, seed, None, judge.retries)
    found = _complete_logs(folder, audit)
    if not set(prepared.probes) <= set(found):
        return None
    logs = [found[name] for name in prepared.probes]
    card = build_card(
        probe_scores(logs),
        [PROBES[name] for name in prepared.probes],
        judge=str(identity["name"]),
        strategy=judge.strategy,
        language=judge.language,
        data=prepared.source,
        seed=seed,
        log_locations=[log.location for log in logs],
    )
    return card if not prepared.notes else _with_notes(card, prepared.notes)


def _complete_logs(folder: Path, identity: str) -> dict[str, EvalLog]:
    """The latest complete log of each probe of audit ``identity`` in ``folder``, with its samples."""
    return {probe: read_eval_log(str(path)) for probe, path in complete_paths(folder, identity).items()}


def complete_paths(folder: Path, identity: str) -> dict[str, Path]:
    """The latest complete log of each probe of audit ``identity`` in ``folder`` (headers only read)."""
    latest: dict[str, tuple[str, Path]] = {}
    for path in sorted(folder.glob("*.eval")) if folder.is_dir() else []:
        try:
            header = read_eval_log(str(path), header_only=True)
        except Exception:  # noqa: BLE001 - an unreadable log is not reused; the audit runs again
            continue
        record = read_audit_record(header.eval.metadata)
        if record is None or record.audit_id != identity or not record.probe or header.status != "success":
            continue
        created = str(header.eval.created)
        if record.probe not in latest or created >= latest[record.probe][0]:
            latest[record.probe] = (created, path)
    return {probe: path for probe, (_, path) in latest.items()}


def _with_notes(card: AuditCard, notes: tuple[str, ...]) -> AuditCard:

    return replace(card, notes=(*card.notes, *notes))
