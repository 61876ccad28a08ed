"""What the runner writes into a log and the report reads back: names, columns and the judged record.

The runner and the report agree on the log format here and nowhere else (neither imports the
other's internals):

- a judge's result column is ``judge_<strategy>`` (:class:`JudgeId`, parsed and printed in
  :mod:`vivid_inspect.judge_id`), ``judge_<strategy>_en`` for
  a judge given English instructions (:data:`JUDGE_LANGUAGES`); the lexical baseline's is ``lexical``
  and a panel's ``judge_panel``;
- the judge model is bound to the ``grader`` model role (:data:`GRADER_ROLE`);
- a log the runner wrote by judging a generation log again carries eval metadata
  ``vivid_judge`` (:data:`VIVID_JUDGE_KEY`), a :class:`JudgedRecord`;
- a log's task is named by its short name (:func:`short_task`), whatever path or package
  prefix Inspect recorded;
- a sample's idiom is its input and, where the target is the reference meaning (the explanation
  task), its meaning is the target: each is stored once. Sample metadata holds ``meaning`` only
  where the target is something else (a label of the classification tasks), and the taxonomy
  (``theme``, ``theme_id``, ``traits``, ``trait_ids``). Read them with :func:`sample_idiom` and
  :func:`sample_meaning`, which also read logs written when the metadata repeated both;
- a log written by ``vivid audit`` (one per probe) carries the tag :data:`AUDIT_TAG` and eval
  metadata ``vivid_audit`` (:data:`VIVID_AUDIT_KEY`), an :class:`AuditRecord`: it judges a probe's
  made-up candidates, never a model's generations, so the report, Table 3 and annotation sheets
  must not read it as a generation (:func:`is_audit_log`).

Every field of :class:`JudgedRecord` has a default, so a judged log written before a field existed
still reads.
"""

from __future__ import annotations

import logging
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

# A judge's identity (strategy, language, column) lives in a module without pydantic, so `vivid --help`
# can read it; it is part of this contract and re-exported here.
from vivid_inspect.judge_id import DEFAULT_LANGUAGE as DEFAULT_LANGUAGE
from vivid_inspect.judge_id import JUDGE_LANGUAGES as JUDGE_LANGUAGES
from vivid_inspect.judge_id import JUDGE_PREFIX as JUDGE_PREFIX
from vivid_inspect.judge_id import LEXICAL as LEXICAL
from vivid_inspect.judge_id import PANEL_STRATEGY as PANEL_STRATEGY
from vivid_inspect.judge_id import JudgeId as JudgeId
from vivid_inspect.judge_id import check_language as check_language

# Likewise the rule for where a sample keeps its item's texts: the data layer writes by it.
from vivid_inspect.sample_texts import IDIOM_KEY as IDIOM_KEY
from vivid_inspect.sample_texts import MEANING_KEY as MEANING_KEY
from vivid_inspect.sample_texts import THEME_KEY as THEME_KEY
from vivid_inspect.sample_texts import is_item_sample as is_item_sample
from vivid_inspect.sample_texts import sample_idiom as sample_idiom
from vivid_inspect.sample_texts import sample_meaning as sample_meaning

logger = logging.getLogger(__name__)

VIVID_JUDGE_KEY = "vivid_judge"
"""Eval metadata key holding the :class:`JudgedRecord` of a judged log."""
GRADER_ROLE = "grader"
"""The model role an LLM judge calls (``--model-role grader=...``)."""
USAGE_KEY = "usage"
"""Field of the record holding ``{scorer name: {"usage", "calls", "cached_calls"}}``."""
NO_JUDGE = "none"
"""``explain(judge=...)`` value of a generation-only log: no scorer; judged logs score it afterwards."""
SPEC_FILE = "spec.resolved.yaml"
"""The resolved spec ``vivid run`` writes beside its logs (``vivid/<spec name>/spec.resolved.yaml``)."""


def judge_column(strategy: str, language: str | None = None) -> str:
    """The result column a judge writes (:attr:`JudgeId.column` of :meth:`JudgeId.of`): ``judge_cot_en``.

    Raises:
        ValueError: If the strategy or language is unknown, or a language is given to a judge that
            reads no instructions.
    """
    return JudgeId.of(strategy, language).column


def is_judge_column(name: str) -> bool:
    """Whether a scorer column of an explanation log is a judge (LLM, panel, or the lexical baseline).

    Wider than :meth:`JudgeId.read_column`: any ``judge_*`` column counts, so a judge scorer of
    another package is read as a judge too.
    """
    return name.startswith(JUDGE_PREFIX) or name == LEXICAL


def short_task(task: str) -> str:
    """A task's short name: ``vivid_inspect/explain`` -> ``explain``; ``tasks.py@topic`` -> ``topic``."""
    return task.replace("@", "/").rsplit("/", 1)[-1]


class JudgedRecord(BaseModel):
    """The ``vivid_judge`` eval metadata of a judged log: which judge (or panel) made its scores.

    Attributes:
        name: The spec's judge (or panel) name.
        strategy: The judge strategy (``aspect``, ``lexical``, ``panel``, ...).
        model: The judge model; None for the lexical judge and panels, which call none.
        repeat: Which of the judge's repeated judgements this is, from 0 (None: unrecorded).
        language: The language of the judge's instructions (``vi``, ``en``); None for the lexical
            judge and panels, which read none, and for logs written before it was recorded (``vi``).
        temperature: The temperature the judge's calls ran at, read from their model events;
            a list when calls differed, None when no call was made or it was not recorded.
        generation_log: The judged generation log, relative to the spec's log folder (POSIX).
        generation_eval_id: The generation log's eval id when judged.
        config_hash: Hash of :attr:`config`; a judged log with another hash is redone.
        config: Everything that changes the judge's scores.
        skipped_errored_samples: Samples left out because their generation errored.
        usage: The judge's model calls per scorer column, summed once when the log was written
            (see :mod:`vivid_inspect.usage_events`); None for logs written before it was recorded.
        members: A panel's member judges, in panel order.
        aggregate: A panel's aggregate (``mean``, ``median`` or ``majority``).
    """

    # Unknown fields are kept: a newer runner's record still reads, and round-trips, here.
    model_config = ConfigDict(extra="allow", frozen=True)

    name: str | None = None
    strategy: str | None = None
    model: str | None = None
    repeat: int | None = None
    language: str | None = None
    temperature: float | list[float] | None = None
    generation_log: str | None = None
    generation_eval_id: str | None = None
    config_hash: str | None = None
    config: dict[str, Any] | None = None
    skipped_errored_samples: int = 0
    usage: dict[str, dict[str, Any]] | None = None
    members: list[str] | None = None
    aggregate: str | None = None

    def metadata(self) -> dict[str, Any]:
        """The record as eval metadata: ``{VIVID_JUDGE_KEY: {...}}`` (unset fields left out)."""
        return {VIVID_JUDGE_KEY: self.model_dump(mode="json", exclude_unset=True)}


def recorded_column(record: JudgedRecord) -> str | None:
    """The result column the judge of a judged log writes (``judge_aspect_en``), from its record.

    Args:
        record: The judged record; a record without a language is ``vi`` (written before English).

    Returns:
        The column; None when the recorded strategy and language name none.
    """
    try:
        return JudgeId.of(record.strategy, record.language).column
    except ValueError:
        return None


def read_judged_record(metadata: dict[str, Any] | None) -> JudgedRecord | None:
    """The judged record in a log's eval metadata.

    Args:
        metadata: ``log.eval.metadata``.

    Returns:
        The record; None when the log carries none, or one that does not fit the contract (such a
        log is read as a plain log, and the reason is logged).
    """
    value = (metadata or {}).get(VIVID_JUDGE_KEY)
    if not isinstance(value, dict):
        return None
    try:
        return JudgedRecord.model_validate(value)
    except ValidationError as error:
        logger.info("ignoring a malformed %s record: %s", VIVID_JUDGE_KEY, error)
        return None


AUDIT_TAG = "vivid-audit"
"""Eval tag of every log ``vivid audit`` writes (one log per probe)."""
VIVID_AUDIT_KEY = "vivid_audit"
"""Eval metadata key holding the :class:`AuditRecord` of an audit log."""


class AuditRecord(BaseModel):
    """The ``vivid_audit`` eval metadata of an audit log: which probe of which judge's audit it holds.

    Attributes:
        audit_id: Identifies one audit (judge, strategy, language, data, items, seed, probe
            version); every probe log of that audit shares it.
        probe: The probe whose candidates the log's samples hold (``reference``, ``padding``, ...).
        comparison: The probe this one is compared with (``reference``, ``partial``, ``wrong``),
            None for the base and for probes judged on an absolute scale.
        expectation: What a sound judge does on this probe (``high``, ``same``, ``not_higher``,
            ``lower``, ``at_most_1``, ``within_1``).
        judge: The audited judge model.
        strategy: The judge strategy.
        language: The judge prompt's language (``vi`` or ``en``).
        data: The data source of the items.
        seed: Seed of the item draw and of every seeded derivation.
        probe_version: Version of the probe derivations; a change re-runs the audit.
    """

    model_config = ConfigDict(extra="allow", frozen=True)

    audit_id: str | None = None
    probe: str | None = None
    comparison: str | None = None
    expectation: str | None = None
    judge: str | None = None
    strategy: str | None = None
    language: str | None = None
    data: str | None = None
    seed: int | None = None
    probe_version: int | None = None

    def metadata(self) -> dict[str, Any]:
        """The record as eval metadata: ``{VIVID_AUDIT_KEY: {...}}`` (unset fields left out)."""
        return {VIVID_AUDIT_KEY: self.model_dump(mode="json", exclude_unset=True)}


def read_audit_record(metadata: dict[str, Any] | None) -> AuditRecord | None:
    """The audit record in a log's eval metadata; None when there is none or it is malformed."""
    value = (metadata or {}).get(VIVID_AUDIT_KEY)
    if not isinstance(value, dict):
        return None
    try:
        return AuditRecord.model_validate(value)
    except ValidationError as error:
        logger.info("ignoring a malformed %s record: %s", VIVID_AUDIT_KEY, error)
        return None


def is_audit_log(tags: list[str] | None, metadata: dict[str, Any] | None) -> bool:
    """Whether a log was written by ``vivid audit`` (by its tag or its record), so holds no generations.

    Args:
        tags: ``log.eval.tags``.
        metadata: ``log.eval.metadata``.

    Returns:
        True for an audit log.
    """
    return AUDIT_TAG in (tags or []) or VIVID_AUDIT_KEY in (metadata or {})
