"""``run_audit``: derive every probe's candidates, judge them (one Inspect log per probe), build the card.

The items are the ``explain`` task's (the same left-out demonstrations and judge examples, the
same ids and metadata), drawn with the seed (`choose_ids`). Every probe is a task
(`vivid_inspect.lab.audit.task`) run under the ``none/none`` model in one ``eval`` with the
judge bound to the ``grader`` role: items × probes judge calls, plus one ``translator`` call per
item when the ``english`` probe has no shipped translation. The judge's replies are cached by
Inspect (the prompts are deterministic), so a re-run makes no call.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import httpx
from inspect_ai import eval
from inspect_ai.model import GenerateConfig, Model, get_model
from inspect_ai.util import DisplayType

from vivid_inspect.baselines.answers import BASELINES
from vivid_inspect.baselines.model import GRADERS
from vivid_inspect.call_errors import readable_error
from vivid_inspect.data import VividItem, load_items, load_vivid
from vivid_inspect.endpoints import check_models
from vivid_inspect.judge_id import DEFAULT_LANGUAGE, check_language
from vivid_inspect.lab.audit.card import AuditCard, build_card
from vivid_inspect.lab.audit.logs import probe_scores
from vivid_inspect.lab.audit.probes import (
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
from vivid_inspect.lab.audit.task import TRANSLATOR_ROLE, probe_task
from vivid_inspect.lab.audit.verdicts import Thresholds, check_seed
from vivid_inspect.lab.interrupt import raise_if_cancelled
from vivid_inspect.log_contract import GRADER_ROLE, AuditRecord
from vivid_inspect.redact import redact
from vivid_inspect.scorers.judge import get_strategy
from vivid_inspect.scorers.judge_prompts import judge_example_idioms
from vivid_inspect.solvers.explain_prompts import EXPLAIN_DEMONSTRATIONS

DEFAULT_LIMIT = None
"""Items per audit by default: every item (the bundled sample's 46 make 543 judge calls: 46 × 12, less its
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
            `Derivation`).
        left_out: One line per probe left out of a default audit because the data cannot make it
            (``english`` on data without shipped translations and without a translator), saying
            how to add it; also in ``notes``.
    """

    source: str
    items: tuple[VividItem, ...]
    probes: tuple[str, ...]
    candidates: dict[str, dict[int, Candidate]]
    notes: tuple[str, ...]
    translated: bool
    excluded: dict[str, dict[int, str]] = field(default_factory=dict)
    left_out: tuple[str, ...] = ()


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
        probes: Probes to run (see `parse_probes`); None runs
            every probe the data allows: without a translator, ``english`` only on the bundled
            sample, whose English meanings ship (elsewhere it is left out, with a line in
            ``left_out`` saying how to add it).
        translator: The translator model (or its name), or None.

    Returns:
        The items and candidates.

    Raises:
        ValueError: Unknown probe, limit below 1, a seed that is not a whole number 0 or more,
            data that cannot be read.
        MissingTranslationError: ``english`` is named in ``probes``, the data has no shipped
            translation and no translator is given.
    """
    check_seed(seed)
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
    left_out: tuple[str, ...] = ()
    if ENGLISH in names:
        if translator is not None:
            translated = True
        else:
            english = english_meanings(items)
            if english is None and probes is None:
                # The default is every probe the data allows: say what was left out and how to add it.
                left_out = (
                    f"english left out: only the bundled sample ships English meanings, not {loaded.source}; "
                    "add it with --translator MODEL (one call per item, cached), or choose the probes "
                    "with --probes A,B",
                )
                names = parse_probes([name for name in names if name != ENGLISH])
            elif english is None:
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
    notes += left_out
    candidates = {name: candidates[name] for name in names}
    excluded = {name: ids for name, ids in excluded.items() if ids}
    return AuditItems(loaded.source, items, tuple(names), candidates, notes, translated, excluded, left_out)


# Model arguments that carry credentials: a new key must not re-run an audit, nor enter its id.
_CREDENTIAL_ARG = re.compile(r"key|token|secret|password|credential|auth|header", re.IGNORECASE)
# Generation settings that change how calls are sent, not what the judge replies.
_TRANSPORT = frozenset({"max_connections", "max_retries", "timeout", "attempt_timeout", "batch"})


def model_identity(
    name: str,
    *,
    base_url: str | None = None,
    model_args: Mapping[str, Any] | None = None,
    config: GenerateConfig | None = None,
) -> dict[str, Any]:
    """What of a model decides its replies: name, base URL, model arguments, generation settings.

    Credentials (``api_key``, tokens, headers) are left out and the rest is redacted, so the
    identity can be hashed and shown; so are the settings of how calls are sent (connections,
    retries, timeouts, batching).

    Args:
        name: The model's name.
        base_url: Its base URL, as given.
        model_args: Its model arguments, as given.
        config: Its generation settings.

    Returns:
        A JSON-ready dictionary.
    """
    args = {
        # A value JSON cannot show (a client, a callable) is named by its type: its repr holds an
        # address that differs in every process and would make every run a new audit.
        key: redact(json.dumps(value, sort_keys=True, default=lambda value: type(value).__name__))
        for key, value in sorted((model_args or {}).items())
        if not _CREDENTIAL_ARG.search(key)
    }
    generate = config.model_dump(mode="json", exclude_none=True) if config is not None else {}
    return {
        "name": name,
        "base_url": redact(base_url) if base_url else None,
        "model_args": args,
        "generate": {key: value for key, value in generate.items() if key not in _TRANSPORT},
    }


def identity_of(model: Model | str) -> dict[str, Any]:
    """`model_identity` of a built model (or of a bare name)."""
    if isinstance(model, str):
        return model_identity(model)
    return model_identity(
        str(model), base_url=model.api.base_url, model_args=model.model_args, config=model.config
    )


def audit_id(
    judge: Mapping[str, Any],
    strategy: str,
    language: str,
    prepared: AuditItems,
    seed: int,
    translator: Model | str | None,
    retries: int = 1,
) -> str:
    """The id every probe log of one audit shares: a hash of what decides its scores.

    Anything that can change a judge's score is in it (the judge model with its arguments and
    generation settings, strategy, language, retries, data, items, seed, probe version, the
    translator), so a change makes a new audit instead of reusing the old logs.

    Args:
        judge: The judge's `model_identity`.
        strategy: The judge strategy.
        language: The language of the judge's instructions.
        prepared: The items and candidates.
        seed: The seed.
        translator: The translator, if the english probe uses one.
        retries: The judge's retries.

    Returns:
        16 hex digits.
    """
    payload = {
        "judge": dict(judge),
        "strategy": strategy,
        "language": language,
        "retries": retries,
        "data": prepared.source,
        "items": [item.id for item in prepared.items],
        "seed": seed,
        "probe_version": PROBE_VERSION,
        "translator": None if translator is None else identity_of(translator),
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode("utf-8")).hexdigest()[:16]


def check_retries(retries: object) -> int:
    """The judge's retries, when a whole number 0 or more.

    Raises:
        ValueError: Another value, named.
    """
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise ValueError(f"retries {retries!r} must be a whole number 0 or more")
    return retries


def choose_ids(ids: Sequence[int | str], limit: int | None, seed: int) -> list[int | str]:
    """The items an audit uses.

    Args:
        ids: Sample ids of the data set.
        limit: How many to draw; None, or at least ``len(ids)``, keeps them all.
        seed: Seed of the draw, so a re-run uses the same items.

    Returns:
        The drawn ids in ascending order (all ids, in their order, when none are left out).

    Raises:
        ValueError: If ``limit`` is below 1.
    """
    if limit is not None and limit < 1:
        raise ValueError(f"limit must be 1 or more, got {limit}")
    if limit is None or limit >= len(ids):
        return list(ids)
    return sorted(
        random.Random(seed).sample(list(ids), limit), key=lambda value: (isinstance(value, str), value)
    )


def check_judge_args(name: str, model_args: Mapping[str, Any]) -> None:
    """Refuse ``-M`` arguments a judge would ignore: an offline ``vivid/*`` judge takes none.

    Raises:
        ValueError: One line naming the keys and the model.
    """
    if name.split("/", 1)[0] == "vivid" and model_args:
        # vivid/chrf grades from the prompt alone (its `data` argument is read only by the
        # baselines, as generators): as a judge every argument would be silently ignored.
        raise ValueError(
            f"-M {', '.join(sorted(model_args))}: {name} takes no model argument as a judge (it takes "
            "only the model argument 'data', as a generator)"
        )


_UNEXPECTED_ARGUMENT = re.compile(r"unexpected keyword argument '([^']+)'")


def model_from_name(name: str, model_args: Mapping[str, Any] | None) -> Model:
    """Build a model from its name and ``-M`` arguments; an argument it does not take is a ValueError.

    Args:
        name: The model's name (``openai-api/local/qwen3``).
        model_args: Its ``-M`` arguments.

    Returns:
        The model.

    Raises:
        ValueError: A model argument the provider (or its client) does not take, named with the
            model; or what Inspect raises for an unknown model.
    """
    args = dict(model_args or {})
    check_judge_args(name, args)
    try:
        return get_model(name, **args)
    except TypeError as error:
        # Inspect passes unknown model arguments on to the provider's client constructor.
        unknown = _UNEXPECTED_ARGUMENT.search(str(error))
        if unknown is None:
            raise
        raise ValueError(f"-M {unknown.group(1)}: not a model argument of {name}") from None


def _model(model: str | Model, model_args: Mapping[str, Any] | None, what: str) -> Model:

    if isinstance(model, Model):
        if model_args:
            raise ValueError(
                f"model_args {sorted(model_args)} apply to a {what} given by name, not to a Model"
            )
        return model
    return model_from_name(model, model_args)


def check_roles(judge: Model | str, translator: Model | str | None) -> None:
    """Refuse, before any call, a judge or translator that fails on every call by construction.

    The ``vivid`` models answer from the data (or, for the chrF grader, from a judge prompt):
    as a translator, or as a judge other than a grader, every call would fail after the run started.
    """
    name = str(judge)
    # An unknown vivid/* name is left to the provider, whose message lists the models it has.
    if name == "none/none" or name in {f"vivid/{baseline}" for baseline in BASELINES}:
        raise ValueError(
            f"{name} cannot judge: of the offline models only {', '.join(f'vivid/{g}' for g in GRADERS)} reads a judge prompt"
        )
    if translator is not None and str(translator).split("/", 1)[0] in ("vivid", "none"):
        raise ValueError(
            f"--translator {translator}: an offline vivid model cannot translate; name a chat model"
        )


def check_endpoints(models: Mapping[str, Model]) -> None:
    """Send one cheap request to each model's endpoint, as ``vivid run``'s preflight does.

    Args:
        models: The models by role (``judge``, ``translator``).

    Raises:
        ValueError: One line per role whose endpoint failed, naming the model, the URL and the cause.
    """
    named = [(role, model) for role, model in models.items()]
    try:
        checked = check_models([(str(model), model, model.api.base_url) for _, model in named])
    except httpx.HTTPError as error:  # a URL httpx cannot even send to
        raise ValueError(f"{', '.join(str(m) for m in models.values())}: {redact(str(error))}") from None
    if checked.problems:
        raise ValueError(
            "; ".join(f"{named[i][0]} {named[i][1]}: {why}" for i, why in sorted(checked.problems.items()))
        )


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
    retries: int = 1,
    preflight: bool = True,
    judge_identity: Mapping[str, Any] | None = None,
    progress: bool = False,
    on_prepared: Callable[[AuditItems], None] | None = None,
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
        retries: The judge's further asks after an unreadable reply (as the judge scorer's).
        preflight: Send one cheap request to each endpoint first, as ``vivid run`` does
            (``vivid run``'s audits skip it: its own preflight has run).
        judge_identity: The judge's `model_identity` as its spec describes it (so that
            ``vivid plan`` can tell a done audit without building the model); default: the
            built judge's.
        progress: Show one progress bar for the whole audit on an interactive standard error
            (`vivid_inspect.lab.audit.progress`) and turn Inspect's own display off, whatever
            ``display`` says (``vivid audit`` does; its panels would bury the card).
        on_prepared: Called with the items and candidates once they are derived, before any
            model is built or called (``vivid audit`` prints the probes left out).

    Returns:
        The card: one result per probe, each with its verdict.

    Raises:
        ValueError: Bad input or set-up, before any judge call: an unknown strategy, language or
            probe, a limit below 1, a negative seed or retries, a model argument the model does
            not take (or any with a Model), an offline model as translator or a non-grader one as
            judge, an endpoint that failed its request, data that cannot be read, or ``english``
            without translations or translator.
        AuditError: A probe's log did not complete, so there is no card.
        RunInterrupted: Ctrl-C: Inspect cancelled the probes' logs (their finished judgements are
            kept in Inspect's cache, so a rerun replays them).
    """
    get_strategy(strategy)
    check_language(language)
    check_retries(retries)
    check_roles(judge, translator)
    prepared = prepare_items(data=data, limit=limit, seed=seed, probes=probes, translator=translator)
    if on_prepared is not None:
        on_prepared(prepared)
    judge_model = _model(judge, model_args, "judge")
    roles = {GRADER_ROLE: judge_model}
    translator_model: Model | None = None
    if prepared.translated and translator is not None:
        translator_model = roles[TRANSLATOR_ROLE] = _model(translator, None, "translator")
    if preflight:
        check_endpoints(
            {"judge": judge_model} | ({"translator": translator_model} if translator_model else {})
        )
    identity = audit_id(
        judge_identity or identity_of(judge_model),
        strategy,
        language,
        prepared,
        seed,
        translator_model,
        retries,
    )
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
            retries=retries,
        )
        for name in prepared.probes
    ]
    # One task at a time: within a task the judge already gets every item at once (up to its
    # max_connections), and on a small machine parallel tasks measured slower (25 s against 18 s
    # for vivid/chrf on the bundled sample).
    started = time.time()
    if progress:
        # Imported here, once Inspect has started (the models exist): a hook registered before
        # Inspect's start-up makes it print a "hooks enabled" banner above the card.
        from vivid_inspect.lab.audit.progress import showing

        total = sum(len(prepared.candidates[name]) for name in prepared.probes)
        label = f"judging {len(prepared.probes)} probes with {judge_model}"
        with showing(total, label):
            logs = eval(tasks, model="none/none", model_roles=roles, log_dir=log_dir, display="none")
    else:
        logs = eval(tasks, model="none/none", model_roles=roles, log_dir=log_dir, display=display)
    # Ctrl-C: Inspect cancels the probes' logs and returns instead of raising; a rerun replays the
    # judge replies Inspect cached
    folder = Path(log_dir or os.environ.get("INSPECT_LOG_DIR") or "logs")
    raise_if_cancelled(folder, started, f"auditing {judge_model}", unit="judgement")
    by_probe = {log.eval.task.removeprefix("audit_"): log for log in logs}
    for name in prepared.probes:
        log = by_probe.get(name)
        if log is None or log.status != "success":
            error = (
                readable_error(log.error.message) if log is not None and log.error is not None else "no log"
            )
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
