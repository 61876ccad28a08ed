"""The experiment spec: what ``vivid run SPEC.yaml`` runs, as strict pydantic models.

Every model forbids unknown keys and coerces nothing (``"3"`` is not an int), so a typo or a
wrong type is a reported problem, never a silently ignored setting. Checks that need more than
one field or knowledge of the project (task parameters, providers, files) live in
`vivid_inspect.lab.runner.spec.checks`.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, PlainValidator

from vivid_inspect.bounds import (
    GENERATE_BOUNDS,
    GENERATE_INT_BOUND,
    MAX_BATCH,
    MAX_CALL_RETRIES,
    MAX_CONNECTIONS,
    MAX_ENTRIES,
    MAX_EPOCHS,
    MAX_ITEM_ID,
    MAX_ITEMS,
    MAX_JUDGE_CELLS,
    MAX_JUDGE_RETRIES,
    MAX_PRICE,
    MAX_REPEATS,
    MAX_RETRY_WAIT,
    MAX_RUN_ATTEMPTS,
    MAX_SAMPLES,
    MAX_SEED,
    MAX_TASKS,
    MAX_TIMEOUT,
    count_problem,
    shown,
)
from vivid_inspect.call_limits import GENERATION, RUN_ATTEMPT_WAIT, RUN_ATTEMPTS
from vivid_inspect.judge_id import Language

Name = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", max_length=80)]
"""A name that is also safe as a folder name: letters, digits, ``_ . -``."""


def _family(value: str) -> str:
    # Its own message: the generic pattern message speaks of folder names.
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}", value):
        raise ValueError(
            f"{value!r} is not a family: use up to 40 letters, digits, '_', '.' and '-' (e.g. openai, qwen)"
        )
    return value


Family = Annotated[str, AfterValidator(_family)]
"""Who made a model (``openai``, ``qwen``, ...), for ``vivid audit --from``'s self-preference check."""

Aggregate = Literal["mean", "median", "majority"]

JudgeLanguage = Language
"""Language of an LLM judge's instructions (`vivid_inspect.judge_id.Language`); the data stays Vietnamese."""


GENERATE_RANGES: dict[str, tuple[float, float]] = {
    "temperature": (0, 2),
    "top_p": (0, 1),
    "frequency_penalty": (-2, 2),
    "presence_penalty": (-2, 2),
    "repetition_penalty": (0, 10),
    "min_p": (0, 1),
}
"""Generation options that are fractions, lowest and highest, in ``generate:`` and ``model_args``
(the whole-number ones: `vivid_inspect.bounds.GENERATE_BOUNDS`)."""


def option_number_problem(key: str, value: Any) -> str | None:
    """What is wrong with a number given to a model or generation option, or None.

    A value under a name of `vivid_inspect.bounds.GENERATE_BOUNDS` must be a whole number in its
    bounds (``max_retries: 1.5`` would pass and fail ``vivid run``), and so must a string of
    digits there (a provider may parse it); one under a name of `GENERATE_RANGES` must be a
    number in its range; any other integer must fit in 64 bits.

    Args:
        key: The option's name.
        value: Its value (anything: only numbers and digit strings are judged).

    Returns:
        The problem, or None.
    """
    low, high = GENERATE_BOUNDS.get(key, GENERATE_INT_BOUND)
    if isinstance(value, str) and key in GENERATE_BOUNDS and re.fullmatch(r"\s*[+-]?[0-9]+\s*", value):
        digits = len(value.strip().lstrip("+-"))
        if digits > 20:  # past any 64-bit bound, and int() of it would be slow
            return f"{key} must be between {low} and {high}, got a string of {digits:,} digits"
        return count_problem(key, int(value), low, high)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if key in GENERATE_RANGES:
        least, most = GENERATE_RANGES[key]
        return None if least <= value <= most else f"{key} must be from {least} to {most}, got {shown(value)}"
    if key in GENERATE_BOUNDS or isinstance(value, int):
        return count_problem(key, value, low, high)
    return None


class _Strict(BaseModel):
    # No .inf or .nan anywhere: a price or a wait must be a number (bounds: vivid_inspect.bounds).
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)


Entries = Field(min_length=1, max_length=MAX_ENTRIES)


class Price(_Strict):
    """Price of a model in US dollars per million tokens, for ``vivid plan``'s cost estimate."""

    input: Annotated[float, Field(ge=0, le=MAX_PRICE)]
    output: Annotated[float, Field(ge=0, le=MAX_PRICE)]


def _batch(value: Any) -> bool | int | None:
    # One message for the union, instead of one per branch that failed.
    if value is None or isinstance(value, bool) or (isinstance(value, int) and 1 <= value <= MAX_BATCH):
        return value
    raise ValueError(
        f"expected true, false or a batch size (a whole number from 1 to {MAX_BATCH:,}), got {shown(value)}"
    )


Batch = Annotated[bool | int | None, PlainValidator(_batch)]
"""Provider batch mode: ``true``, or the number of requests per batch."""


def _model_shorthand(value: Any) -> Any:
    # `- openai/gpt-4o` is shorthand for `- model: openai/gpt-4o`
    return {"model": value} if isinstance(value, str) else value


class ModelEntry(_Strict):
    """A model to generate with: ``provider/name`` plus its model arguments.

    ``model_args`` go to the provider (``base_url`` of a running server, vLLM launch options,
    ``data`` of the ``vivid/*`` baselines). API keys never go here: providers read them from
    the environment. ``family`` declares who made the model, when its name does not say
    (``vivid audit --from`` infers it from the name otherwise); it changes no score.
    """

    model: str
    model_args: dict[str, Any] = Field(default_factory=dict)
    price: Price | None = None
    family: Family | None = None


ModelItem = Annotated[ModelEntry, BeforeValidator(_model_shorthand)]


class StratifiedSample(_Strict):
    """``n`` items drawn per theme in proportion to its size (at least one per theme), seeded."""

    n: Annotated[int, Field(ge=1, le=MAX_ITEMS)]
    by: Literal["theme"] = "theme"
    seed: Annotated[int, Field(ge=0, le=MAX_SEED)] = 0


class RunBlock(_Strict):
    """One matrix of generation cells: every task × prompt × model, on the same items.

    Attributes:
        tasks: VIVID tasks (``explain``, ``topic``, ``traits``).
        models: Models to generate with.
        prompts: Values of the tasks' ``prompt`` parameter to cross with (explain:
            ``zero_shot``/``few_shot``); omitted means the task default.
        task_args: Further task parameters, given to every task of the block.
        generate: Inspect generation options (``temperature``, ``max_tokens``, ...); they
            override the task's own defaults.
        limit: First ``limit`` items only.
        sample_ids: These items only.
        sample: A stratified random sample of items.
        epochs: How many times each item is generated.
    """

    name: Name | None = None
    tasks: Annotated[list[str], Entries]
    models: Annotated[list[ModelItem], Entries]
    prompts: Annotated[list[str], Entries] | None = None
    task_args: dict[str, Any] = Field(default_factory=dict)
    generate: dict[str, Any] = Field(default_factory=dict)
    limit: Annotated[int, Field(ge=1, le=MAX_ITEMS)] | None = None
    sample_ids: (
        Annotated[
            list[Annotated[int, Field(ge=1, le=MAX_ITEM_ID)]], Field(min_length=1, max_length=MAX_ITEMS)
        ]
        | None
    ) = None
    sample: StratifiedSample | None = None
    epochs: Annotated[int, Field(ge=1, le=MAX_EPOCHS)] = 1


class Judge(_Strict):
    """A judge applied to every explanation: an LLM strategy and its model, or the lexical judge.

    Attributes:
        name: Unique name; its judged logs go to ``<log_dir>/judged/<name>/``.
        strategy: ``zero_shot``, ``demonstration``, ``cot`` or ``aspect`` (an LLM judge), or
            ``lexical`` (chrF against the reference, no model).
        model: The judge model, ``provider/name``; required by the LLM strategies, refused by
            ``lexical`` (checked in `vivid_inspect.lab.runner.spec.checks`, one message per problem).
        model_args: Provider arguments, e.g. ``base_url`` of a vLLM or OpenAI-compatible server.
        generate: Generation options of the judge (e.g. ``max_tokens`` for a reasoning judge).
        retries: How many times the judge is asked again after an unreadable reply.
        repeats: Fresh judgements per item (for self-consistency), each in its own judged log
            and cached apart from the others; the first is the one every table uses. They run at
            the judge's temperature: its own 0 unless ``generate`` sets another.
        price: For the cost estimate.
        language: Language of the judge's instructions: ``vi`` (the paper's, the default) or ``en``
            (the same rubric in English; another judge, with its own column and judged logs).
            Refused by ``lexical``, which reads no instructions.
        family: Who made the judge model (``openai``, ``qwen``, ...), when its name does not say;
            read by ``vivid audit --from`` to check self-preference. It changes no score.
    """

    name: Name
    strategy: str
    model: str | None = None
    model_args: dict[str, Any] = Field(default_factory=dict)
    generate: dict[str, Any] = Field(default_factory=dict)
    retries: Annotated[int, Field(ge=0, le=MAX_JUDGE_RETRIES)] = 1
    repeats: Annotated[int, Field(ge=1, le=MAX_REPEATS)] = 1
    price: Price | None = None
    language: JudgeLanguage = "vi"
    family: Family | None = None


class Panel(_Strict):
    """One extra score per item that aggregates several judges' scores; each keeps its own."""

    name: Name
    members: Annotated[list[str], Field(min_length=2, max_length=MAX_ENTRIES)]
    aggregate: Aggregate


class Concurrency(_Strict):
    """How much runs at once. ``max_connections`` is per model (Inspect's setting)."""

    max_connections: Annotated[int, Field(ge=1, le=MAX_CONNECTIONS)] | None = None
    max_tasks: Annotated[int, Field(ge=1, le=MAX_TASKS)] | None = None
    max_samples: Annotated[int, Field(ge=1, le=MAX_SAMPLES)] | None = None
    judge_cells: Annotated[int, Field(ge=1, le=MAX_JUDGE_CELLS)] = 4


class Retries(_Strict):
    """What is retried, and how often. The defaults are `vivid_inspect.call_limits`'s table.

    Every limit is finite: Inspect alone would retry a call that always fails, or wait on a server
    that stalls, for ever, and a run must end in a clear, resumable failure.

    Attributes:
        attempts: Times a failed generation task is run again, for its failed samples only
            (Inspect ``retry_attempts``; Inspect's own default of 10 is not used).
        wait: Seconds before such a retry, doubling each time (Inspect ``retry_wait``).
        on_error: Times a sample that errored is run again (Inspect ``retry_on_error``).
        max_retries: Times one model call is retried by Inspect after an API error (on top of the
            provider SDK's own retries).
        timeout: Seconds after the start of a model call past which Inspect starts no further
            attempt of it (checked when an attempt fails: it does not cut an attempt short).
        attempt_timeout: Seconds one attempt of a model call may take before it is abandoned (and
            retried): bounds a server that stalls or trickles its reply. Not applied to batch
            calls (``batch:``), where abandoning the wait would submit the request again.
    """

    attempts: Annotated[int, Field(ge=0, le=MAX_RUN_ATTEMPTS)] = RUN_ATTEMPTS
    wait: Annotated[float, Field(ge=0, le=MAX_RETRY_WAIT)] = RUN_ATTEMPT_WAIT
    on_error: Annotated[int, Field(ge=0, le=MAX_RUN_ATTEMPTS)] | None = None
    max_retries: Annotated[int, Field(ge=0, le=MAX_CALL_RETRIES)] = GENERATION.max_retries
    timeout: Annotated[int, Field(ge=1, le=MAX_TIMEOUT)] = GENERATION.timeout
    attempt_timeout: Annotated[int, Field(ge=1, le=MAX_TIMEOUT)] = GENERATION.attempt_timeout


def human_shorthand(value: Any) -> Any:
    """``human: FILE`` is shorthand for ``human: {file: FILE}``, also for each entry of a list."""
    if isinstance(value, list):
        return [{"file": item} if isinstance(item, str) else item for item in value]
    return {"file": value} if isinstance(value, str) else value


class HumanScores(_Strict):
    """Human scores of one explanation generation, and which generation they scored.

    ``human:`` takes one entry or a list of them, one per generation the humans scored: each is
    bound to its generation as a single one is (Table 1 uses the first; the corrected means, the
    alternative annotator test and the judge card use every one).

    Attributes:
        file: The human scores CSV (``id,score[,annotator][,generation]``).
        generation: The generation the humans scored, by model and prompt
            (``"vivid/literal zero_shot"``). Needed when the spec makes several explanation
            generations and the file names none (a file from ``vivid annotate import`` does).
    """

    file: str
    generation: str | None = None


def human_entries(
    human: HumanScores | list[HumanScores] | None,
) -> list[tuple[tuple[str | int, ...], HumanScores]]:
    """Each human scores entry of a spec with its YAML path: ``("human",)`` alone, ``("human", i)`` in a list."""
    if human is None:
        return []
    if isinstance(human, list):
        return [(("human", index), entry) for index, entry in enumerate(human)]
    return [(("human",), human)]


class Audit(_Strict):
    """A ``vivid audit`` of one of the spec's judges, run after the judges (see README, "Audit a judge").

    Attributes:
        judge: The name of an LLM judge of the spec: its model, strategy, language and model
            arguments are audited.
        probes: The probes to run (default every probe; the probes they compare with are added).
        limit: Items to draw (default ``vivid audit``'s); every item when it exceeds the data.
        seed: Seed of the item draw and of every derivation.
    """

    judge: str
    probes: Annotated[list[str], Entries] | None = None
    limit: Annotated[int, Field(ge=1, le=MAX_ITEMS)] | None = None
    # numpy's generators (the audit's bootstrap) take seeds from 0 to 2**32 - 1 only.
    seed: Annotated[int, Field(ge=0, le=MAX_SEED)] = 0


class Spec(_Strict):
    """A whole experiment: generations, judges, an optional panel, human scores, settings.

    Relative paths (``log_dir``, ``human``, a ``data`` file) are relative to the spec file.
    """

    name: Name
    description: str | None = None
    data: str | None = None
    log_dir: str
    runs: Annotated[list[RunBlock], Entries]
    judges: list[Judge] = Field(default_factory=list, max_length=MAX_ENTRIES)
    panel: Panel | None = None
    audits: list[Audit] = Field(default_factory=list, max_length=MAX_ENTRIES)
    human: Annotated[HumanScores | list[HumanScores], BeforeValidator(human_shorthand)] | None = None
    concurrency: Concurrency = Field(default_factory=Concurrency)
    batch: Batch = None
    retries: Retries = Field(default_factory=Retries)


def field_names(model: type[BaseModel]) -> list[str]:
    """The keys a spec section accepts, for 'unknown key' messages."""
    return list(model.model_fields)
