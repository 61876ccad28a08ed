"""The LLM-as-a-judge scorers of the explanation task (paper §4.1).

One scorer per judge ([`JudgeId`][vivid_inspect.judge_id.JudgeId]: four prompting strategies,
``zero_shot``, ``demonstration``, ``cot`` and ``aspect``, the paper's default, each with Vietnamese or
English instructions), built by one builder and registered by one loop under the judge's column
name: ``judge_cot``, ``judge_cot_en``, ... Inspect names a result column after its scorer, so each
judge gets its own column and one generation can be judged several ways in one task: ``inspect
score LOG --scorer vivid_inspect/judge_cot`` appends ``judge_cot``. `judge_scorer` picks one
by strategy and language in Python. ``judge`` is the registered alias that takes them as arguments
(``--scorer vivid_inspect/judge -S strategy=cot [-S language=en]``, the form the README has always
shown); it too writes ``judge_cot`` (``judge_cot_en``). Vietnamese and English judgements of one
generation sit side by side and are never merged.

The judge model is resolved when a sample is scored, Inspect's way: a model bound to the
``grader`` role (``--model-role grader=...``) wins over the ``judge_model`` argument, which wins over
the paper's GPT-4.1.

Replies are read by the verdict grammar (`VERDICT_GRAMMAR`).
Every text a score stores is sanitised first (a lone surrogate becomes U+FFFD), so one broken reply
costs only its own sample, never the log of the whole cell. The judge prompt itself is not copied
into the score: Inspect's model event of the judge call (the sample's transcript) holds it, and
`judge_prompt_of` reads it back from there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from inspect_ai.event import ModelEvent, SpanBeginEvent
from inspect_ai.log import EvalSample, resolve_sample_attachments
from inspect_ai.model import (
    CachePolicy,
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelOutput,
    get_model,
)
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState
from inspect_ai.util import RegistryInfo, registry_info

from vivid_inspect.bounds import MAX_JUDGE_RETRIES, MAX_REPEATS, count_problem
from vivid_inspect.call_errors import UnreadableReply, is_call_failure, named_failure
from vivid_inspect.call_limits import JUDGE
from vivid_inspect.inspect_private import PrerequisiteError, active_generate_config
from vivid_inspect.judge_id import DEFAULT_LANGUAGE, DEFAULT_STRATEGY, JudgeId, llm_judges, parse_strategy
from vivid_inspect.log_contract import GRADER_ROLE, is_item_sample, sample_idiom, sample_meaning
from vivid_inspect.reply_retries import NO_CHOICES, has_no_choices, retry_cache, retry_unreadable
from vivid_inspect.scorers.judge_metrics import RETRIES_KEY, judge_metrics
from vivid_inspect.scorers.judge_parse import JUDGE_PARSER_VERSION, JudgeParse, parse_judge_score
from vivid_inspect.scorers.judge_prompts import (
    JUDGE_PROMPT_VERSION,
    TEMPLATES,
    judge_template,
    render_judge_prompt,
    retry_turn,
)
from vivid_inspect.scorers.verdict_text import defuse_reasoning_tags
from vivid_inspect.stored_calls import model_event_of, sanitize_event
from vivid_inspect.text import has_lone_surrogate, nfc, sanitize, strip_reasoning

DEFAULT_JUDGE_MODEL = "openai/gpt-4.1"
"""The paper's judge; used when neither the grader role nor ``judge_model`` names one."""


class ScorerOptionError(PrerequisiteError):
    """A judge scorer's count option (``-S retries``, ``-S repeat``) outside its bound.

    Inspect prints its message alone, as one line. Not a `ValueError` on purpose: Inspect's
    scorer loader reads a ``ValueError`` from a scorer as "couldn't be loaded" and hides its
    message. ``str(error)`` is the message.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.args = (message,)

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class JudgeStrategy:
    """How one prompting strategy asks the judge and what it lets the judge write.

    Attributes:
        name: Strategy name, also the suffix of the result column (``judge_<name>``).
        template: Judge prompt template from `vivid_inspect.scorers.judge_prompts`, with
            Vietnamese instructions (`judge_template`
            gives each language's).
        reasoning: True when the judge reasons before a final ``Điểm: N`` line.
        max_tokens: Generation budget of the judge.
    """

    name: str
    template: str
    reasoning: bool
    max_tokens: int


# Bare-score strategies get the paper's budget (temperature 0, 10 tokens: enough for "Điểm: 4");
# CoT needs room to reason before its score line.
STRATEGIES: dict[str, JudgeStrategy] = {
    name: JudgeStrategy(name, template, reasoning=name == "cot", max_tokens=1024 if name == "cot" else 10)
    for name, template in TEMPLATES.items()
}


def get_strategy(name: str) -> JudgeStrategy:
    """The settings of an LLM judge strategy, by name.

    Raises:
        UnknownJudge: If the name is not one of ``zero_shot``, ``demonstration``, ``cot``, ``aspect``.
    """
    return STRATEGIES[parse_strategy(name)]


POISONED_REPLY = "reply holds invalid Unicode (a lone surrogate)"
"""Parse status of a reply that had to be sanitised: a damaged reply is not trusted with a score."""


def judge_config(
    strategy: JudgeStrategy, role_config: GenerateConfig, run_config: GenerateConfig | None = None
) -> GenerateConfig:
    """The judge's config: strategy defaults < judge call limits < the run's limits < the role's settings.

    A role's model does not inherit the task's config, and under ``inspect score`` there is no
    other config at all, so the judge carries its own limits (`vivid_inspect.call_limits.JUDGE`).
    The run's own call limits (``inspect eval --max-retries``, ``--timeout``, ``--attempt-timeout``,
    or the task's, which equal the judge's) come above them, so a flag the user gave is honoured by
    the judge too. ``attempt_timeout`` is dropped when the merged config batches calls: cutting a
    batch's wait would resubmit the batch.

    Args:
        strategy: The judge strategy (temperature 0 and its ``max_tokens``).
        role_config: The config given with the ``grader`` role (``Model.config``); its settings win.
        run_config: The run's generation options (Inspect's active config), or None.

    Returns:
        The merged config.
    """
    run = run_config or GenerateConfig()
    run_limits = GenerateConfig(
        max_retries=run.max_retries, timeout=run.timeout, attempt_timeout=run.attempt_timeout
    )
    merged = (
        GenerateConfig(temperature=0.0, max_tokens=strategy.max_tokens)
        .merge(JUDGE.config())
        .merge(run_limits)
        .merge(role_config)
    )
    if merged.batch:
        merged = merged.model_copy(update={"attempt_timeout": None})
    return merged


def cache_policy(cache: bool, repeat: int) -> CachePolicy | bool:
    """Inspect cache policy of a judge call.

    Replies depend only on the prompt (temperature 0), so epochs share them. Repeat 0 keeps the key
    the judge has always had, so existing caches stay valid; repeat k > 0 adds the scope
    ``repeat=k``, so each repeat's replies are cached apart: a redone repeat reuses its own replies
    and never another repeat's.

    Args:
        cache: Whether to cache at all.
        repeat: The repeat number (0 for the ordinary judgement).

    Returns:
        The policy, or False when caching is off.
    """
    if not cache:
        return False
    if repeat == 0:
        return CachePolicy(per_epoch=False)
    return CachePolicy(per_epoch=False, scopes={"repeat": str(repeat)})


def run_caches() -> bool:
    """Whether the run caches model calls: its ``cache`` option, and True when it sets none.

    ``inspect eval --cache`` sets it; the explain task sets False (Inspect's default made
    explicit), so that its judge, which judges fresh explanations, caches only when they are
    cached too. ``inspect score`` and ``vivid run``'s judge phase set none: they judge the fixed
    explanations of a log, where a cached reply can be replayed.
    """
    return active_generate_config().cache is not False


def judge_prompt_of(sample: EvalSample, column: str) -> str | None:
    """The prompt the judge of one result column was sent, read from a sample's transcript.

    Scores do not copy the prompt: the judge call's model event holds it, under the span Inspect
    opens for each scorer (named after its column). When a column was scored more than once (a
    rescored log), the last scoring counts.

    Args:
        sample: A sample of an eval log (read with its events, as ``read_eval_log`` does by default).
        column: The judge's result column, e.g. ``judge_aspect``.

    Returns:
        The prompt (the first message of the judge's first call), or None when the column made no
        judge call (an empty explanation is scored 0 without one) or the events were not kept.
    """
    # Inspect stores long texts of events as attachments and shared messages in a pool.
    events = resolve_sample_attachments(sample, "core").events
    spans: set[str] = set()
    prompt: str | None = None
    for event in events:
        if isinstance(event, SpanBeginEvent):
            if event.type == "scorer" and event.name == column:
                spans, prompt = {event.id}, None
            elif event.parent_id in spans:
                spans.add(event.id)
        elif isinstance(event, ModelEvent) and event.span_id in spans and prompt is None and event.input:
            prompt = event.input[0].text
    return prompt


def _parse(reply: str, strategy: JudgeStrategy, stop_reason: str) -> JudgeParse:
    if has_lone_surrogate(reply):
        return JudgeParse(None, POISONED_REPLY)
    return parse_judge_score(reply, reasoning=strategy.reasoning, stop_reason=stop_reason)


def _build(
    ident: JudgeId, judge_model: str | Model | None, retries: int, cache: bool | None, repeat: int
) -> Scorer:
    """The one builder behind every judge scorer: ask the judge with its strategy's prompt, read its verdict.

    Each Score carries ``answer`` (the explanation judged), ``explanation`` (the judge's raw reply)
    and metadata ``strategy``, ``language``, ``judge_model``, ``parse_status``, ``retries``, ``judge_replies``
    (every reply in order, only after a retry: a single reply is ``explanation`` alone),
    ``stop_reason``, ``repeat``, ``cached`` (whether the reply that produced the score came from
    Inspect's cache rather than a call), ``prompt_version`` and ``parser_version``. Every stored
    text is sanitised: lone surrogates become U+FFFD. The prompt is in the judge call's model event
    (`judge_prompt_of`), not copied into the score. ``cache`` None follows the run
    (`run_caches`), read when a sample is scored.

    Raises:
        ScorerOptionError: ``retries`` is not 0 to 10 or ``repeat`` not 0 to 19 (vivid_inspect.bounds).
    """
    spec = get_strategy(ident.strategy)
    language = ident.language or DEFAULT_LANGUAGE
    template = judge_template(spec.name, language)
    for name, value, high in (("retries", retries, MAX_JUDGE_RETRIES), ("repeat", repeat, MAX_REPEATS - 1)):
        problem = count_problem(name, value, 0, high)
        if problem is not None:
            raise ScorerOptionError(f"{ident.column}: {problem}")
    retry = retry_turn(spec.reasoning, language)
    caching = cache_policy(True, repeat)
    configs: dict[int, GenerateConfig] = {}
    role_configs: list[GenerateConfig] = []

    async def score(state: TaskState, target: Target) -> Score:
        # Resolved here, not at construction, so roles bound by eval() or `inspect score` apply.
        grader = get_model(role=GRADER_ROLE, default=judge_model or DEFAULT_JUDGE_MODEL)
        policy = caching if (run_caches() if cache is None else cache) else False
        metadata: dict[str, Any] = {
            "strategy": spec.name,
            "language": language,
            "judge_model": str(grader),
            "repeat": repeat,
            "prompt_version": JUDGE_PROMPT_VERSION,
            "parser_version": JUDGE_PARSER_VERSION,
        }

        idiom = sample_idiom(state.input, state.metadata) if is_item_sample(state.metadata) else ""
        if not idiom.strip():
            raise ValueError(
                f"sample {state.sample_id} has no VIVID idiom: the judge reads the input of a VIVID "
                "sample (one with 'theme' metadata) or metadata 'idiom'"
            )
        reference = sample_meaning(target.text, state.metadata)
        # No line of it may read as a <think> tag once the parser's normalisation has run (a
        # </thi\u200bnk> the judge quotes would otherwise end the judge's "reasoning" early).
        candidate = defuse_reasoning_tags(sanitize(nfc(strip_reasoning(state.output.completion)).strip()))
        if not candidate:
            # Nothing to judge (empty reply, or the model never left its <think> block).
            return Score(
                value=0,
                answer="",
                explanation="empty explanation: scored 0 without asking the judge",
                metadata=metadata | {"parse_status": "empty_answer", RETRIES_KEY: 0, "cached": False},
            )

        prompt = render_judge_prompt(template, idiom=idiom, reference=reference, candidate=candidate)
        # Settings given explicitly with the role (--model-role grader="{model: ..., max_tokens: ...}") win.
        config = configs.get(id(grader.config))
        if config is None:
            # Merged once per role config, not per sample (pydantic merges cost ~0.3 ms); the
            # dict's key object is kept alive in `role_configs`, so its id is never reused.
            config = configs[id(grader.config)] = judge_config(spec, grader.config, active_generate_config())
            role_configs.append(grader.config)
        messages: list[ChatMessage] = [ChatMessageUser(content=prompt)]
        replies: list[str] = []

        async def ask(scope: int) -> ModelOutput:
            output = await grader.generate(messages, config=config, cache=retry_cache(policy, scope) or False)
            if has_no_choices(output):
                # Inspect cached it, as any reply: the next attempt asks under another key.
                raise UnreadableReply(NO_CHOICES, cached=bool(policy))
            return output

        for attempt in range(retries + 1):
            try:
                # An unreadable 200 (not UTF-8, not whole JSON, no choices) is a failed call,
                # retried within the judge's own limits.
                output = await retry_unreadable(
                    ask, model=grader, max_retries=config.max_retries, timeout=config.timeout
                )
            except Exception as error:
                # As for generation: name the judge, its URL and the provider's reason, not
                # tenacity's RetryError[<Future ...>].
                if not is_call_failure(error):
                    raise
                raise named_failure(grader, error) from error
            event = model_event_of(output)
            if event is not None:
                sanitize_event(event)
            stop_reason = output.stop_reason
            parsed = _parse(output.completion, spec, stop_reason)
            reply = sanitize(output.completion)
            replies.append(reply)
            metadata |= {
                "parse_status": parsed.reason,
                RETRIES_KEY: attempt,
                "stop_reason": stop_reason,
                # Without the call's event we cannot show the reply was fresh: count it as cached,
                # so a self-consistency check never takes a replay for a new judgement.
                "cached": bool(policy) and (event is None or event.cache == "read"),
            }
            if attempt:
                # The last reply is the score's explanation: the list is kept only when there are several.
                metadata["judge_replies"] = list(replies)
            if parsed.score is not None:
                return Score(value=parsed.score, answer=candidate, explanation=reply, metadata=metadata)
            # The follow-up turn makes the retry a different request, so the cache cannot replay
            # the unreadable reply.
            messages = [
                *messages,
                ChatMessageAssistant(content=reply),
                ChatMessageUser(content=retry.format(reason=parsed.reason)),
            ]
        return Score.unscored(
            reason="grader_failed", answer=candidate, explanation=replies[-1], metadata=metadata
        )

    return score


def _registered(ident: JudgeId) -> Callable[..., Scorer]:
    """The registered scorer of one judge, named after its column (Inspect's public ``scorer(name=...)``)."""

    def factory(
        judge_model: str | Model | None = None, retries: int = 1, cache: bool | None = True, repeat: int = 0
    ) -> Scorer:
        return _build(ident, judge_model, retries, cache, repeat)

    english = "" if ident.language == DEFAULT_LANGUAGE else " with English instructions"
    factory.__name__ = factory.__qualname__ = ident.column
    factory.__doc__ = f"""Judge an explanation 0-5 with the {ident.strategy} strategy{english} (column ``{ident.column}``).

    Args:
        judge_model: Judge used when no model is bound to the ``grader`` role; default GPT-4.1.
        retries: Further asks after an unreadable, cut-off or out-of-range reply (then unscored, never 0).
        cache: Cache judge replies with Inspect's cache; None: as the run does (`run_caches`).
        repeat: Which repeated judgement this is (0: the ordinary one); see `cache_policy`.

    Returns:
        The scorer.
    """
    return scorer(metrics=judge_metrics(), name=ident.column)(factory)


JUDGE_SCORERS: dict[JudgeId, Callable[..., Scorer]] = {ident: _registered(ident) for ident in llm_judges()}
"""The registered scorer of every LLM judge (``vivid_inspect/judge_cot_en``), by its identity."""


def judge_scorer(
    strategy: str = DEFAULT_STRATEGY,
    judge_model: str | Model | None = None,
    retries: int = 1,
    cache: bool | None = True,
    repeat: int = 0,
    language: str = DEFAULT_LANGUAGE,
) -> Scorer:
    """The registered judge scorer of a strategy and language (``judge_scorer("cot", language="en")``).

    Args:
        strategy: ``zero_shot``, ``demonstration``, ``cot`` or ``aspect`` (paper default).
        judge_model: Judge used when no model is bound to the ``grader`` role; default GPT-4.1.
        retries: Further asks after an unreadable or out-of-range reply (then unscored, never 0).
        cache: Cache judge replies with Inspect's cache (re-runs and rescoring are free); None: as
            the run does (`run_caches`).
        repeat: Which repeated judgement this is (0: the ordinary one); see `cache_policy`.
        language: Language of the judge's instructions: ``vi`` (the paper's) or ``en``.

    Returns:
        The scorer, named after the judge's column (``judge_cot``, ``judge_cot_en``).

    Raises:
        UnknownJudge: If the strategy or the language is unknown.
        ScorerOptionError: ``retries`` is not 0 to 10 or ``repeat`` not 0 to 19 (vivid_inspect.bounds).
    """
    factory = JUDGE_SCORERS[JudgeId.llm(strategy, language)]
    return factory(judge_model=judge_model, retries=retries, cache=cache, repeat=repeat)


class _Renamed:
    """The ``judge`` alias's scorer, keeping the name of the judge scorer it delegates to.

    Inspect stamps a scorer made from the registry with its factory's name (so ``--scorer
    vivid_inspect/judge`` would write a ``judge`` column whatever the strategy) and has no public
    way to name the result after an argument; this object accepts the stamp's metrics and
    metadata but keeps the judge's name, so the alias writes the judge's own column.
    """

    def __init__(self, inner: Scorer) -> None:
        self._inner, self._info = inner, registry_info(inner)

    async def __call__(self, state: TaskState, target: Target) -> Score | None:
        return await self._inner(state, target)

    @property
    def __registry_info__(self) -> RegistryInfo:
        return self._info

    @__registry_info__.setter
    def __registry_info__(self, info: RegistryInfo) -> None:
        self._info = info.model_copy(update={"name": self._info.name})


@scorer(metrics=judge_metrics())
def judge(
    strategy: str = DEFAULT_STRATEGY,
    judge_model: str | Model | None = None,
    retries: int = 1,
    cache: bool | None = True,
    repeat: int = 0,
    language: str = DEFAULT_LANGUAGE,
) -> Scorer:
    """Judge an explanation 0-5 with the judge named by ``-S strategy=cot [-S language=en]``.

    The alias of the judge scorers for ``inspect score --scorer vivid_inspect/judge -S
    strategy=cot``: its column is that judge's (``judge_cot``, ``judge_cot_en``). In Python,
    prefer `judge_scorer`. Arguments as `judge_scorer`'s; ``-S repeat=2`` makes a
    fresh repeated judgement (`cache_policy`).

    Returns:
        A scorer named after the judge's column.

    Raises:
        UnknownJudge: If the strategy or the language is unknown.
        ScorerOptionError: ``retries`` is not 0 to 10 or ``repeat`` not 0 to 19 (vivid_inspect.bounds).
    """
    return _Renamed(
        judge_scorer(
            strategy, judge_model=judge_model, retries=retries, cache=cache, repeat=repeat, language=language
        )
    )
