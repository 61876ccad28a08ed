"""The LLM-as-a-judge scorer of the explanation task (paper §4.1).

One registered scorer, ``judge``, with four prompting strategies (``zero_shot``,
``demonstration``, ``cot``, ``aspect``; the paper's default is ``aspect``). Each strategy's results
get their own column, ``judge_<strategy>``, so one generation can be judged several ways in one
task, and ``inspect score LOG --scorer vivid_inspect/judge -S strategy=cot`` appends ``judge_cot``.

The judge model is resolved when a sample is scored, Inspect's way: a model bound to the
``grader`` role (``--model-role grader=...``) wins over the ``judge_model`` argument, which wins over
the paper's GPT-4.1.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from inspect_ai.model import (
    CachePolicy,
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageUser,
    GenerateConfig,
    Model,
    get_model,
)
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from vivid_inspect.scorers.judge_metrics import RETRIES_KEY, judge_metrics
from vivid_inspect.scorers.judge_parse import parse_judge_score
from vivid_inspect.scorers.judge_prompts import (
    ASPECT,
    COT,
    DEMONSTRATION,
    RETRY_BARE,
    RETRY_COT,
    ZERO_SHOT,
    render_judge_prompt,
)
from vivid_inspect.text import nfc, strip_reasoning

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


@scorer(metrics=judge_metrics())
def judge(
    strategy: str = "aspect",
    judge_model: str | Model | None = None,
    retries: int = 1,
    cache: bool = True,
) -> Scorer:
    """Grade a model's idiom explanation against the reference meaning with an LLM judge (0-5).

    Args:
        strategy: ``zero_shot``, ``demonstration``, ``cot`` or ``aspect`` (paper default).
        judge_model: Judge used when no model is bound to the ``grader`` role; default GPT-4.1.
        retries: How many times to ask again after an unreadable or out-of-range reply; the
            sample is unscored (never 0) when every reply is unreadable.
        cache: Cache judge replies with Inspect's cache (re-runs and rescoring are free).

    Returns:
        A scorer named ``judge_<strategy>``. Each Score carries ``answer`` (the explanation
        judged), ``explanation`` (the judge's raw reply) and metadata ``strategy``,
        ``judge_model``, ``parse_status``, ``retries``, ``judge_prompt`` and ``judge_replies``.

    Raises:
        ValueError: If the strategy is unknown or ``retries`` is negative.
    """
    spec = get_strategy(strategy)
    if retries < 0:
        raise ValueError(f"retries must be 0 or more, got {retries}")
    retry_turn = RETRY_COT if spec.reasoning else RETRY_BARE
    # Replies depend only on the prompt (temperature 0), so epochs can share them.
    cache_policy: CachePolicy | bool = CachePolicy(per_epoch=False) if cache else False

    async def score(state: TaskState, target: Target) -> Score:
        # Resolved here, not at construction, so roles bound by eval() or `inspect score` apply.
        grader = get_model(role=GRADER_ROLE, default=judge_model or DEFAULT_JUDGE_MODEL)
        metadata: dict[str, Any] = {"strategy": spec.name, "judge_model": str(grader)}

        idiom = state.metadata.get("idiom")
        if not idiom:
            raise ValueError(f"sample {state.sample_id} has no 'idiom' metadata; the judge needs the VIVID item")
        reference = state.metadata.get("meaning") or target.text
        candidate = nfc(strip_reasoning(state.output.completion)).strip()
        if not candidate:
            # Nothing to judge (empty reply, or the model never left its <think> block).
            return Score(
                value=0,
                answer="",
                explanation="empty explanation: scored 0 without asking the judge",
                metadata=metadata | {"parse_status": "empty_answer", RETRIES_KEY: 0, "judge_prompt": None},
            )

        prompt = render_judge_prompt(spec.template, idiom=idiom, reference=reference, candidate=candidate)
        # A role's model does not inherit the task's generate config, so set the judge's own;
        # settings given explicitly with the role (--model-role grader="{model: ..., max_tokens: ...}")
        # still win.
        config = GenerateConfig(temperature=0.0, max_tokens=spec.max_tokens).merge(grader.config)
        messages: list[ChatMessage] = [ChatMessageUser(content=prompt)]
        replies: list[str] = []
        for attempt in range(retries + 1):
            output = await grader.generate(messages, config=config, cache=cache_policy)
            replies.append(output.completion)
            parsed = parse_judge_score(output.completion)
            metadata |= {"parse_status": parsed.reason, RETRIES_KEY: attempt, "judge_prompt": prompt}
            metadata["judge_replies"] = list(replies)
            if parsed.score is not None:
                return Score(value=parsed.score, answer=candidate, explanation=output.completion, metadata=metadata)
            # The follow-up turn makes the retry a different request, so the cache cannot replay
            # the unreadable reply.
            messages = [
                *messages,
                ChatMessageAssistant(content=output.completion),
                ChatMessageUser(content=retry_turn.format(reason=parsed.reason)),
            ]
        return Score.unscored(reason="grader_failed", answer=candidate, explanation=replies[-1], metadata=metadata)

    return _StrategyScorer(spec.name, score)
