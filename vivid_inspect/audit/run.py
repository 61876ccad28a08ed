"""``run_audit``: derive every probe's candidates, judge them (one Inspect log per probe), build the card.

The items are the ``explain`` task's (the same left-out demonstrations and judge examples, the
same ids and metadata), drawn with the seed as ``vivid sanity`` draws them. Every probe is a task
(:mod:`vivid_inspect.audit.task`) run under the ``none/none`` model in one ``eval`` with the
judge bound to the ``grader`` role: items × probes judge calls, plus one ``translator`` call per
item when the ``english`` probe has no shipped translation. The judge's replies are cached by
Inspect (the prompts are deterministic), so a re-run makes no call.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vivid_inspect.audit.probes import (
    ENGLISH,
    PROBE_VERSION,
    PROBES,
    Candidate,
    MissingTranslationError,
    derive,
    english_meanings,
    exclusion_notes,
    parse_probes,
)
from vivid_inspect.languages import DEFAULT_LANGUAGE, check_language
from vivid_inspect.sanity import choose_ids

if TYPE_CHECKING:
    from inspect_ai.model import Model
    from inspect_ai.util import DisplayType

    from vivid_inspect.audit.card import AuditCard
    from vivid_inspect.audit.verdicts import Thresholds
    from vivid_inspect.data import VividItem

DEFAULT_LIMIT = None
"""Items per audit by default: every item (the bundled sample's 46 make 497 judge calls: 46 × 11, less its
9 Literal items in the literal probe)."""


class AuditError(RuntimeError):
    """A probe's log did not complete (the judge or the translator failed); there is no card."""


@dataclass(frozen=True)
class AuditItems:
    """What an audit judges: its items, every probe's candidates, and where they came from.

    Attributes:
        source: The data's printable source.
        items: The audited items, in sample-id order.
        probes: The probes, in card order.
        candidates: Probe -> item id -> candidate; an item left out of a probe has none there.
        notes: Departures from a derivation rule (a wrong meaning from another theme, items left
            out of a probe, a probe no item can make).
        translated: Whether the ``translator`` role writes the English candidates.
        excluded: Probe -> item id -> why the item is left out of that probe (a one-word meaning
            has no partial answer, a Literal item no literal probe; see
            :class:`~vivid_inspect.audit.probes.Derivation`).
    """

    source: str
    items: tuple[VividItem, ...]
    probes: tuple[str, ...]
    candidates: dict[str, dict[int, Candidate]]
    notes: tuple[str, ...]
    translated: bool
    excluded: dict[str, dict[int, str]] = field(default_factory=dict)


def prepare_items(
    *,
    data: str | None,
    limit: int | None,
    seed: int,
    probes: Sequence[str] | str | None,
    translator: object | None,
) -> AuditItems:
    """Load the items and derive every probe's candidates, without calling any model.

    Args:
        data: Data source (``sample``, ``hf``, a path or URL; None: ``$VIVID_DATA``, else ``hf``).
        limit: Items to draw with ``seed`` (None: all).
        seed: Seed of the draw and of every derivation.
        probes: Probes to run (see :func:`~vivid_inspect.audit.probes.parse_probes`).
        translator: The translator model (or its name), or None.

    Returns:
        The items and candidates.

    Raises:
        ValueError: Unknown probe, limit below 1, data that cannot be read.
        MissingTranslationError: ``english`` is wanted, the data has no shipped translation and
            no translator is given.
    """
    from vivid_inspect.data import load_items, load_vivid
    from vivid_inspect.data.leakage import judge_example_idioms
    from vivid_inspect.solvers.explain_prompts import EXPLAIN_DEMONSTRATIONS

    names = parse_probes(probes)
    loaded = load_vivid(
        data,
        exclude_idioms=[idiom for idiom, _ in EXPLAIN_DEMONSTRATIONS],
        exclude_judge_examples=judge_example_idioms(),
    )
    kept = {sample.id for sample in loaded.dataset}
    _, all_items = load_items(data)
    pool = [item for item in all_items if item.id in kept]
    ids = set(choose_ids([item.id for item in pool], limit, seed))
    items = tuple(item for item in pool if item.id in ids)
    english: dict[int, str] | None = None
    translated = False
    if ENGLISH in names:
        if translator is not None:
            translated = True
        else:
            english = english_meanings(items)
            if english is None:
                rest = ",".join(name for name in names if name != ENGLISH)
                raise MissingTranslationError(
                    f"the english probe needs English meanings: only the bundled sample ships them, not "
                    f"{loaded.source}; name a model to translate with (--translator MODEL, one call per "
                    f"item, cached) or leave the probe out (--probes {rest})"
                )
    candidates: dict[str, dict[int, Candidate]] = {name: {} for name in names}
    excluded: dict[str, dict[int, str]] = {name: {} for name in names}
    for item in items:
        derivation = derive(item, pool, seed=seed, probes=names, english=english)
        for name, candidate in derivation.candidates.items():
            candidates[name][item.id] = candidate
        for name, reason in derivation.excluded.items():
            excluded[name][item.id] = reason
    # A probe no audited item can make (every meaning one word long) is not run: the card omits it.
    empty = [name for name in names if not candidates[name]]
    names = [name for name in names if candidates[name]]
    other_theme = [item_id for item_id, candidate in candidates.get("wrong", {}).items() if candidate.note]
    notes: tuple[str, ...] = (
        (
            f"{len(other_theme)} item(s) have no other item of their theme: their wrong meaning (and the "
            f"authority and injected probes built on it) comes from another theme: ids {other_theme}",
        )
        if other_theme
        else ()
    )
    notes += exclusion_notes(excluded)
    if empty:
        notes += (f"not run, no audited item can make its candidate: {', '.join(empty)}",)
    candidates = {name: candidates[name] for name in names}
    excluded = {name: ids for name, ids in excluded.items() if ids}
    return AuditItems(loaded.source, items, tuple(names), candidates, notes, translated, excluded)


def audit_id(
    judge: str, strategy: str, language: str, prepared: AuditItems, seed: int, translator: str | None
) -> str:
    """The id every probe log of one audit shares: a hash of what decides its scores."""
    payload = {
        "judge": judge,
        "strategy": strategy,
        "language": language,
        "data": prepared.source,
        "items": [item.id for item in prepared.items],
        "seed": seed,
        "probe_version": PROBE_VERSION,
        "translator": translator,
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode("utf-8")).hexdigest()[:16]


def _model(model: str | Model, model_args: Mapping[str, Any] | None, what: str) -> Model:
    from inspect_ai.model import Model, get_model

    if isinstance(model, Model):
        if model_args:
            raise ValueError(
                f"model_args {sorted(model_args)} apply to a {what} given by name, not to a Model"
            )
        return model
    return get_model(model, **dict(model_args or {}))


def run_audit(
    judge: str | Model,
    *,
    strategy: str = "aspect",
    language: str = DEFAULT_LANGUAGE,
    data: str | None = "sample",
    limit: int | None = DEFAULT_LIMIT,
    seed: int = 0,
    probes: Sequence[str] | str | None = None,
    model_args: Mapping[str, Any] | None = None,
    translator: str | Model | None = None,
    thresholds: Thresholds | None = None,
    log_dir: str | None = None,
    out_dir: str | Path | None = None,
    display: DisplayType | None = None,
) -> AuditCard:
    """Audit a judge with every probe and return its card.

    Args:
        judge: The judge: a model name (``openai/gpt-4.1``, ``vivid/chrf``) or a Model.
        strategy: Judge prompting strategy: ``zero_shot``, ``demonstration``, ``cot`` or ``aspect``.
        language: Language of the judge's instructions, ``vi`` or ``en``.
        data: Data source of the items (``sample``, ``hf``, a path or URL).
        limit: How many items to draw with ``seed``; None audits every item.
        seed: Seed of the item draw and of every derivation.
        probes: Probes to run (default all; the probes they compare with are added).
        model_args: Arguments for building the judge from its name (``{"base_url": ...}``).
        translator: Model that translates the reference for the ``english`` probe when the data
            ships no translation (only the bundled sample does).
        thresholds: Verdict thresholds (default: the documented ones).
        log_dir: Where Inspect writes the probe logs; default ``$INSPECT_LOG_DIR``, else ``./logs``.
        out_dir: When given, the card's ``audit.md``, ``audit.csv`` and ``audit_shifts.png`` go there.
        display: Inspect display type (``none`` for silence).

    Returns:
        The card: one result per probe, each with its verdict.

    Raises:
        ValueError: An unknown strategy, language or probe, a limit below 1, model arguments with
            a Model, data that cannot be read, or ``english`` without translations or translator.
        AuditError: A probe's log did not complete, so there is no card.
    """
    from inspect_ai import eval

    from vivid_inspect.audit.card import build_card
    from vivid_inspect.audit.logs import probe_scores
    from vivid_inspect.audit.task import TRANSLATOR_ROLE, probe_task
    from vivid_inspect.audit.verdicts import Thresholds
    from vivid_inspect.log_contract import GRADER_ROLE, AuditRecord
    from vivid_inspect.scorers.judge import get_strategy

    get_strategy(strategy)
    check_language(language)
    prepared = prepare_items(data=data, limit=limit, seed=seed, probes=probes, translator=translator)
    judge_model = _model(judge, model_args, "judge")
    roles = {GRADER_ROLE: judge_model}
    translator_name: str | None = None
    if prepared.translated and translator is not None:
        roles[TRANSLATOR_ROLE] = _model(translator, None, "translator")
        translator_name = str(roles[TRANSLATOR_ROLE])
    identity = audit_id(str(judge_model), strategy, language, prepared, seed, translator_name)
    tasks = [
        probe_task(
            name,
            prepared.items,
            prepared.candidates[name],
            record=AuditRecord(
                audit_id=identity,
                probe=name,
                comparison=PROBES[name].comparison,
                expectation=PROBES[name].expectation,
                judge=str(judge_model),
                strategy=strategy,
                language=language,
                data=prepared.source,
                seed=seed,
                probe_version=PROBE_VERSION,
            ),
            data_source=prepared.source,
        )
        for name in prepared.probes
    ]
    # One task at a time: within a task the judge already gets every item at once (up to its
    # max_connections), and on a small machine parallel tasks measured slower (25 s against 18 s
    # for vivid/chrf on the bundled sample).
    logs = eval(tasks, model="none/none", model_roles=roles, log_dir=log_dir, display=display)
    by_probe = {log.eval.task.removeprefix("audit_"): log for log in logs}
    for name in prepared.probes:
        log = by_probe.get(name)
        if log is None or log.status != "success":
            error = log.error.message if log is not None and log.error is not None else "no log"
            where = f" (log: {log.location})" if log is not None else ""
            raise AuditError(
                f"the audit's {name} probe judged by {judge_model} did not complete: {error}{where}"
            )
    card = build_card(
        probe_scores(logs),
        [PROBES[name] for name in prepared.probes],
        judge=str(judge_model),
        strategy=strategy,
        language=language,
        data=prepared.source,
        thresholds=thresholds or Thresholds(),
        seed=seed,
        log_locations=[by_probe[name].location for name in prepared.probes],
    )
    if prepared.notes:
        card = replace(card, notes=(*card.notes, *prepared.notes))
    if out_dir is not None:
        card.write(Path(out_dir))
    return card
