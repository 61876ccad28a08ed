"""The LLM-as-a-judge scorer of the explanation task (paper §4.1).

One registered scorer, ``judge``, with four prompting strategies (``zero_shot``,
``demonstration``, ``cot``, ``aspect``; the paper's default is ``aspect``). Each strategy's results
get their own column, ``judge_<strategy>``, so one generation can be judged several ways in one
task, and ``inspect score LOG --scorer vivid_inspect/judge -S strategy=cot`` appends ``judge_cot``.

The judge model is resolved when a sample is scored, Inspect's way: a model bound to the
``grader`` role (``--model-role grader=...``) wins over the ``judge_model`` argument, which wins over
the paper's GPT-4.1.

Replies are read by the verdict grammar (:data:`~vivid_inspect.scorers.judge_prompts.VERDICT_GRAMMAR`).
Every text a score stores is sanitised first (a lone surrogate becomes U+FFFD), so one broken reply
costs only its own sample, never the log of the whole cell.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from inspect_ai.event import ModelEvent
from inspect_ai.log import transcript
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
from pydantic import BaseModel

from vivid_inspect.call_limits import JUDGE
from vivid_inspect.scorers.judge_metrics import RETRIES_KEY, judge_metrics
from vivid_inspect.scorers.judge_parse import (
    JUDGE_PARSER_VERSION,
    JudgeParse,
    parse_judge_score,
)
from vivid_inspect.scorers.judge_prompts import (
    ASPECT,
    COT,
    DEMONSTRATION,
    JUDGE_PROMPT_VERSION,
    RETRY_BARE,
    RETRY_COT,
    ZERO_SHOT,
    render_judge_prompt,
)
from vivid_inspect.text import has_lone_surrogate, nfc, sanitize, strip_reasoning

if TYPE_CHECKING:
    from inspect_ai._util.registry import RegistryInfo

DEFAULT_JUDGE_MODEL = "openai/gpt-4.1"
"""The paper's judge; used when neither the grader role nor ``judge_model`` names one."""

GRADER_ROLE = "grader"


@dataclass(frozen=True)
class JudgeStrategy:
    """How one prompting strategy asks the judge and what it lets the judge write.

    Attributes:
        name: Strategy name, also the suffix of the result column (``judge_<name>``).
        template: Judge prompt template from :mod:`vivid_inspect.scorers.judge_prompts`.
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
    "zero_shot": JudgeStrategy("zero_shot", ZERO_SHOT, reasoning=False, max_tokens=10),
    "demonstration": JudgeStrategy("demonstration", DEMONSTRATION, reasoning=False, max_tokens=10),
    "cot": JudgeStrategy("cot", COT, reasoning=True, max_tokens=1024),
    "aspect": JudgeStrategy("aspect", ASPECT, reasoning=False, max_tokens=10),
}


def get_strategy(name: str) -> JudgeStrategy:
    """Look up a judge strategy by name.

    Args:
        name: One of ``zero_shot``, ``demonstration``, ``cot``, ``aspect``.

    Returns:
        The strategy.

    Raises:
        ValueError: If the name is unknown.
    """
    try:
        return STRATEGIES[name]
    except KeyError:
        raise ValueError(f"unknown judge strategy {name!r}; expected one of {', '.join(STRATEGIES)}") from None


def parse_strategies(spec: str) -> list[str]:
    """Expand a strategy spec into strategy names.

    Args:
        spec: One name (``aspect``), ``all``, or a comma-separated list (``cot,aspect``).

    Returns:
        Strategy names in the given order without duplicates; ``all`` gives every strategy.

    Raises:
        ValueError: If the spec is empty or names an unknown strategy.
    """
    names = [part.strip() for part in spec.split(",") if part.strip()]
    if not names:
        raise ValueError(f"empty judge strategy spec {spec!r}; expected 'all' or some of {', '.join(STRATEGIES)}")
    if names == ["all"]:
        return list(STRATEGIES)
    for name in names:
        get_strategy(name)
    return list(dict.fromkeys(names))


class _StrategyScorer:
    """A scorer callable whose registry name is always ``judge_<strategy>``.

    Inspect names a result column after the scorer's registry name. Creating a scorer from the
    registry (``inspect score --scorer vivid_inspect/judge -S strategy=cot``) re-stamps the instance
    with the factory's name (``_instantiate_registry_object`` in ``inspect_ai/_util/registry.py``),
    which would put every strategy in one ``judge`` column. This object accepts Inspect's registry
    info (metrics, package prefix) but keeps its own last name segment, so the column says which
    strategy produced it wherever the scorer was created. ``test_judge_scorer.py`` pins this.
    """

    def __init__(self, strategy: str, score: Callable[[TaskState, Target], Awaitable[Score]]) -> None:
        self._name = f"judge_{strategy}"
        self._score = score
        self._info: RegistryInfo | None = None

    async def __call__(self, state: TaskState, target: Target) -> Score:
        return await self._score(state, target)

    @property
    def __registry_info__(self) -> RegistryInfo | None:
        return self._info

    @__registry_info__.setter
    def __registry_info__(self, info: RegistryInfo) -> None:
        prefix, _, _ = info.name.rpartition("/")
        name = f"{prefix}/{self._name}" if prefix else self._name
        self._info = info.model_copy(update={"name": name})


POISONED_REPLY = "reply holds invalid Unicode (a lone surrogate)"
"""Parse status of a reply that had to be sanitised: a damaged reply is not trusted with a score."""


def judge_config(strategy: JudgeStrategy, role_config: GenerateConfig) -> GenerateConfig:
    """The judge's generation config: strategy defaults < judge call limits < the role's own settings.

    A role's model does not inherit the task's config, and under ``inspect score`` there is no
    other config at all, so the judge carries its own limits (:data:`vivid_inspect.call_limits.JUDGE`).
    ``attempt_timeout`` is dropped when the merged config batches calls: cutting a batch's wait
    would resubmit the batch.

    Args:
        strategy: The judge strategy (temperature 0 and its ``max_tokens``).
        role_config: The config given with the ``grader`` role (``Model.config``); its settings win.

    Returns:
        The merged config.
    """
    merged = GenerateConfig(temperature=0.0, max_tokens=strategy.max_tokens).merge(JUDGE.config()).merge(role_config)
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


def _model_event(output: ModelOutput) -> ModelEvent | None:
    """The transcript's event of the call that returned ``output`` (matched by message id)."""
    message_id = output.message.id if output.choices else None
    if message_id is None:
        return None

    def produced(event: object) -> bool:
        return isinstance(event, ModelEvent) and bool(event.output.choices) and event.output.message.id == message_id

    try:
        found = transcript().history.find_last(produced)
    except RuntimeError:  # a bounded transcript whose history is gone; the call is the newest event
        return None
    return found if isinstance(found, ModelEvent) else None


def _sanitized(model: BaseModel) -> BaseModel:
    dumped = model.model_dump()
    clean = sanitize(dumped)
    return model if clean == dumped else type(model).model_validate(clean)


def _sanitize_event(event: ModelEvent) -> None:
    """Sanitise in place what the log will store of one judge call (its output and raw call)."""
    output = _sanitized(event.output)
    if output is not event.output:
        assert isinstance(output, ModelOutput)
        event.output = output
    if event.call is not None:
        event.call.request = sanitize(event.call.request)
        event.call.response = sanitize(event.call.response)


def _parse(reply: str, strategy: JudgeStrategy, stop_reason: str) -> JudgeParse:
    if has_lone_surrogate(reply):
        return JudgeParse(None, POISONED_REPLY)
    return parse_judge_score(reply, reasoning=strategy.reasoning, stop_reason=stop_reason)


@scorer(metrics=judge_metrics())
def judge(
    strategy: str = "aspect",
    judge_model: str | Model | None = None,
    retries: int = 1,
    cache: bool = True,
    repeat: int = 0,
) -> Scorer:
    """Grade a model's idiom explanation against the reference meaning with an LLM judge (0-5).

    Args:
        strategy: ``zero_shot``, ``demonstration``, ``cot`` or ``aspect`` (paper default).
        judge_model: Judge used when no model is bound to the ``grader`` role; default GPT-4.1.
        retries: How many times to ask again after an unreadable or out-of-range reply; the
            sample is unscored (never 0) when every reply is unreadable.
        cache: Cache judge replies with Inspect's cache (re-runs and rescoring are free).
        repeat: Which repeated judgement this is. 0 (the default) is the ordinary one; k > 0 caches
            its replies apart from every other repeat (:func:`cache_policy`), so that repeats are
            fresh calls (``inspect score ... -S repeat=2``).

    Returns:
        A scorer named ``judge_<strategy>``. Each Score carries ``answer`` (the explanation
        judged), ``explanation`` (the judge's raw reply) and metadata ``strategy``,
        ``judge_model``, ``parse_status``, ``retries``, ``judge_prompt``, ``judge_replies``,
        ``stop_reason``, ``repeat``, ``cached`` (whether the reply that produced the score came
        from Inspect's cache rather than a call), ``prompt_version`` and ``parser_version``. Every
        stored text is sanitised: lone surrogates become U+FFFD.

    Raises:
        ValueError: If the strategy is unknown, or ``retries`` or ``repeat`` is negative.
    """
    spec = get_strategy(strategy)
    if retries < 0:
        raise ValueError(f"retries must be 0 or more, got {retries}")
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 0:
        raise ValueError(f"repeat must be an integer 0 or more, got {repeat!r}")
    retry_turn = RETRY_COT if spec.reasoning else RETRY_BARE
    policy = cache_policy(cache, repeat)

    async def score(state: TaskState, target: Target) -> Score:
        # Resolved here, not at construction, so roles bound by eval() or `inspect score` apply.
        grader = get_model(role=GRADER_ROLE, default=judge_model or DEFAULT_JUDGE_MODEL)
        metadata: dict[str, Any] = {
            "strategy": spec.name,
            "judge_model": str(grader),
            "repeat": repeat,
            "prompt_version": JUDGE_PROMPT_VERSION,
            "parser_version": JUDGE_PARSER_VERSION,
        }

        idiom = state.metadata.get("idiom")
        if not idiom:
            raise ValueError(f"sample {state.sample_id} has no 'idiom' metadata; the judge needs the VIVID item")
        reference = state.metadata.get("meaning") or target.text
        candidate = sanitize(nfc(strip_reasoning(state.output.completion)).strip())
        if not candidate:
            # Nothing to judge (empty reply, or the model never left its <think> block).
            return Score(
                value=0,
                answer="",
                explanation="empty explanation: scored 0 without asking the judge",
                metadata=metadata
                | {"parse_status": "empty_answer", RETRIES_KEY: 0, "judge_prompt": None, "cached": False},
            )

        prompt = render_judge_prompt(spec.template, idiom=idiom, reference=reference, candidate=candidate)
        # Settings given explicitly with the role (--model-role grader="{model: ..., max_tokens: ...}") win.
        config = judge_config(spec, grader.config)
        messages: list[ChatMessage] = [ChatMessageUser(content=prompt)]
        replies: list[str] = []
        for attempt in range(retries + 1):
            output = await grader.generate(messages, config=config, cache=policy)
            event = _model_event(output)
            if event is not None:
                _sanitize_event(event)
            stop_reason = output.stop_reason
            parsed = _parse(output.completion, spec, stop_reason)
            reply = sanitize(output.completion)
            replies.append(reply)
            metadata |= {
                "parse_status": parsed.reason,
                RETRIES_KEY: attempt,
                "judge_prompt": prompt,
                "judge_replies": list(replies),
                "stop_reason": stop_reason,
                # Without the call's event we cannot show the reply was fresh: count it as cached,
                # so a self-consistency check never takes a replay for a new judgement.
                "cached": bool(policy) and (event is None or event.cache == "read"),
            }
            if parsed.score is not None:
                return Score(value=parsed.score, answer=candidate, explanation=reply, metadata=metadata)
            # The follow-up turn makes the retry a different request, so the cache cannot replay
            # the unreadable reply.
            messages = [
                *messages,
                ChatMessageAssistant(content=reply),
                ChatMessageUser(content=retry_turn.format(reason=parsed.reason)),
            ]
        return Score.unscored(reason="grader_failed", answer=candidate, explanation=replies[-1], metadata=metadata)

    return _StrategyScorer(spec.name, score)
