"""What the runner writes into a log and the report reads back: names, columns and the judged record.

The runner and the report agree on the log format here and nowhere else (neither imports the
other's internals):

- a judge's result column is ``judge_<strategy>`` (`JudgeId`, parsed and printed in
  [`vivid_inspect.judge_id`][vivid_inspect.judge_id]), ``judge_<strategy>_en`` for
  a judge given English instructions (`JUDGE_LANGUAGES`); the lexical baseline's is ``lexical``
  and a panel's ``judge_panel``;
- the judge model is bound to the ``grader`` model role (`GRADER_ROLE`);
- a log the runner wrote by judging a generation log again carries eval metadata
  ``vivid_judge`` (`VIVID_JUDGE_KEY`), a `JudgedRecord`;
- a log's task is named by its short name (`short_task`), whatever path or package
  prefix Inspect recorded;
- a sample's idiom is its input and, where the target is the reference meaning (the explanation
  task), its meaning is the target: each is stored once. Sample metadata holds ``meaning`` only
  where the target is something else (a label of the classification tasks), and the taxonomy
  (``theme``, ``theme_id``, ``traits``, ``trait_ids``). Read them with `sample_idiom` and
  `sample_meaning`, which also read logs written when the metadata repeated both;
- a log written by ``vivid audit`` (one per probe) carries the tag `AUDIT_TAG` and eval
  metadata ``vivid_audit`` (`VIVID_AUDIT_KEY`), an `AuditRecord`: it judges a probe's
  made-up candidates, never a model's generations, so the report, Table 3 and annotation sheets
  must not read it as a generation (`is_audit_log`);
- a generation log's task metadata ``leakage`` (`LEAKAGE_KEY`, a `LeakageRecord`) lists
  each item the task left out because its idiom is, or is a near-duplicate of, one shown with its
  answer, with the idiom it resembles and their similarity (`read_leakage_record`).

Every field of `JudgedRecord` has a default, so a judged log written before a field existed
still reads.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any, TypeVar

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
_R = TypeVar("_R", bound=BaseModel)

VIVID_JUDGE_KEY = "vivid_judge"
"""Eval metadata key holding the `JudgedRecord` of a judged log."""
GRADER_ROLE = "grader"
"""The model role an LLM judge calls (``--model-role grader=...``)."""
USAGE_KEY = "usage"
"""Field of the record holding ``{scorer name: {"usage", "calls", "cached_calls"}}``."""
NO_JUDGE = "none"
"""``explain(judge=...)`` value of a generation-only log: no scorer; judged logs score it afterwards."""
SPEC_FILE = "spec.resolved.yaml"
"""The resolved spec ``vivid run`` writes beside its logs (``vivid/<spec name>/spec.resolved.yaml``)."""


def is_judge_column(name: str) -> bool:
    """Whether a scorer column of an explanation log is a judge (LLM, panel, or the lexical baseline).

    Wider than `JudgeId.read_column`: any ``judge_*`` column counts, so a judge scorer of
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
        config_hash: Hash of `config`; a judged log with another hash is redone.
        config: Everything that changes the judge's scores.
        skipped_errored_samples: Samples left out because their generation errored.
        usage: The judge's model calls per scorer column, summed once when the log was written
            (see `vivid_inspect.lab.usage_events`); None for logs written before it was recorded.
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
    return _record(metadata, VIVID_JUDGE_KEY, JudgedRecord)


def _record(metadata: dict[str, Any] | None, key: str, model: type[_R]) -> _R | None:
    """The record under ``key`` of a log's eval metadata; None when absent or malformed (logged)."""
    value = (metadata or {}).get(key)
    if not isinstance(value, dict):
        return None
    try:
        return model.model_validate(value)
    except ValidationError as error:
        logger.info("ignoring a malformed %s record: %s", key, error)
        return None


AUDIT_TAG = "vivid-audit"
"""Eval tag of every log ``vivid audit`` writes (one log per probe)."""
SANITY_TAG = "vivid-sanity"
"""Eval tag of the logs the former ``vivid sanity`` wrote (before it became the audit's literal probe):
a folder may still hold them, and they are judged made-up answers too."""
VIVID_AUDIT_KEY = "vivid_audit"
"""Eval metadata key holding the `AuditRecord` of an audit log."""


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
    return _record(metadata, VIVID_AUDIT_KEY, AuditRecord)


def is_audit_log(tags: list[str] | None, metadata: dict[str, Any] | None) -> bool:
    """Whether a log was written by ``vivid audit`` (by its tag or its record), so holds no generations.

    Args:
        tags: ``log.eval.tags``.
        metadata: ``log.eval.metadata``.

    Returns:
        True for an audit log.
    """
    return AUDIT_TAG in (tags or []) or VIVID_AUDIT_KEY in (metadata or {})


LEAKAGE_KEY = "leakage"
"""Task metadata of ``explain``, ``topic`` and ``traits`` (task version 3 on): what was left out and why."""


class LeftOutEntry(BaseModel):
    """One item a task left out because its idiom is, or nearly is, one shown with its answer.

    Attributes:
        id: The item's sample id.
        idiom: Its idiom.
        resembles: The idiom shown (a demonstration or a judge's graded example); empty in a record
            read from a log older than task version 3, which kept the ids only.
        shown_as: ``demonstration`` or ``judge_example``.
        similarity: Their similarity (1.0: the same idiom); None when the log did not record it.
    """

    model_config = ConfigDict(extra="ignore")

    id: int
    idiom: str = ""
    resembles: str = ""
    shown_as: str = "demonstration"
    similarity: float | None = None

    def describe(self) -> str:
        """``id 12 «Ăn cháo đái bát» ~ demonstration «Ăn cháo đá bát» (0.750)``, or ``id 12`` alone."""
        if not self.resembles:
            return f"id {self.id}"
        close = "" if self.similarity is None else f" ({self.similarity:.3f})"
        return f"id {self.id} «{self.idiom}» ~ {self.shown_as.replace('_', ' ')} «{self.resembles}»{close}"


class LeakageRecord(BaseModel):
    """Task metadata ``leakage``: the threshold and every item left out, in data order.

    Attributes:
        threshold: The similarity from which an item was left out; None for an older log.
        left_out: One entry per item left out, for both reasons.
    """

    model_config = ConfigDict(extra="ignore")

    threshold: float | None = None
    left_out: list[LeftOutEntry] = []

    @property
    def ids(self) -> tuple[int, ...]:
        """The ids left out, in data order."""
        return tuple(entry.id for entry in self.left_out)

    def why(self, ids: Iterable[object]) -> list[str]:
        """Why each of ``ids`` was left out, one line each, for the ids this record holds.

        For a message that compares two generations: the ids an older generation scored and this
        one does not, explained (``id 12 «Ăn cháo đái bát» ~ demonstration «Ăn cháo đá bát» (0.750)``).

        Args:
            ids: Sample ids (ints, or their strings, as Inspect may record them).

        Returns:
            One description per id the record holds, in data order.
        """
        wanted = {str(i) for i in ids}
        return [entry.describe() for entry in self.left_out if str(entry.id) in wanted]


def read_leakage_record(metadata: dict[str, Any] | None) -> LeakageRecord:
    """What a generation log's task left out and why, from its eval metadata.

    A log of task version 3 or later carries `LEAKAGE_KEY`; an older one only
    ``left_out_ids`` and ``judge_examples_left_out_ids``, which become entries without a
    resemblance. A record that does not fit is read from those ids the same way.

    Args:
        metadata: ``log.eval.metadata``.

    Returns:
        The record (empty when nothing was left out).
    """
    record = _record(metadata, LEAKAGE_KEY, LeakageRecord)
    if record is not None:
        return record
    metadata = metadata or {}
    entries = []
    for key, shown_as in (
        ("left_out_ids", "demonstration"),
        ("judge_examples_left_out_ids", "judge_example"),
    ):
        ids = metadata.get(key)
        if isinstance(ids, list):
            entries += [LeftOutEntry(id=int(i), shown_as=shown_as) for i in ids if isinstance(i, int)]
    return LeakageRecord(left_out=sorted(entries, key=lambda entry: entry.id))
