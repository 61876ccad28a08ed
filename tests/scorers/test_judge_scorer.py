"""The judge scorer end to end through Inspect, with scripted mockllm solver and judge models."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pytest
from inspect_ai import Task, eval, score
from inspect_ai._eval.score import resolve_scorers
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalLog
from inspect_ai.model import (
    CachePolicy,
    ChatMessage,
    GenerateConfig,
    Model,
    ModelOutput,
    ModelUsage,
    StopReason,
    get_model,
)
from inspect_ai.scorer import SampleScore, Score
from inspect_ai.solver import generate
from inspect_ai.util import registry_create, registry_info

import vivid_inspect.scorers.judge as judge_module
from vivid_inspect.call_limits import JUDGE
from vivid_inspect.judge_id import LLM_STRATEGIES, JudgeId
from vivid_inspect.scorers.explain_judges import explain_scorers, judge_names
from vivid_inspect.scorers.judge import (
    JUDGE_SCORERS,
    STRATEGIES,
    ScorerOptionError,
    cache_policy,
    judge,
    judge_config,
    judge_prompt_of,
    judge_scorer,
)
from vivid_inspect.scorers.judge_metrics import correctness, retried, trait_mean
from vivid_inspect.scorers.judge_parse import JUDGE_PARSER_VERSION
from vivid_inspect.scorers.judge_prompts import JUDGE_PROMPT_VERSION
from vivid_inspect.solvers.explain import explain_prompt

GOOD = "Nói mãi mà người nghe chẳng tiếp thu, lời khuyên trôi tuột đi."


def _output(text: str, stop_reason: StopReason = "stop") -> ModelOutput:
    output = ModelOutput.from_content(model="mockllm", content=text, stop_reason=stop_reason)
    output.usage = ModelUsage(input_tokens=10, output_tokens=len(text), total_tokens=10 + len(text))
    return output


class Scripted:
    """A mockllm model whose replies come from a function of the prompt; counts its calls."""

    def __init__(
        self,
        name: str,
        reply: Callable[[list[ChatMessage], GenerateConfig], str | ModelOutput],
        config: GenerateConfig | None = None,
    ) -> None:
        self.calls: list[tuple[list[ChatMessage], GenerateConfig]] = []
        self._reply = reply
        self.model: Model = get_model(
            f"mockllm/{name}", custom_outputs=self._generate, memoize=False, config=config or GenerateConfig()
        )

    def _generate(
        self, messages: list[ChatMessage], tools: object, tool_choice: object, config: GenerateConfig
    ) -> ModelOutput:
        self.calls.append((list(messages), config))
        reply = self._reply(messages, config)
        return reply if isinstance(reply, ModelOutput) else _output(reply)


def _solver_model(answer: str = GOOD) -> Scripted:
    return Scripted("solver", lambda messages, config: answer)


def _judge_reply(messages: list[ChatMessage], config: GenerateConfig) -> str:
    """Answer in the format the template asks for: reasoning + 'Điểm: N' for CoT, else bare."""
    prompt = messages[0].text
    if "suy luận từng bước" in prompt:
        return "1. Nghĩa cốt lõi: lời khuyên vô ích.\n2. Lời giải thích khớp.\nĐiểm: 4"
    if "Tiêu chí 4" in prompt:
        return "5"
    if "Ví dụ chấm mẫu" in prompt:
        return "3"
    return "2"


EXPECTED = {"cot": 4, "aspect": 5, "demonstration": 3, "zero_shot": 2}


IDIOMS = ("Nước đổ đầu vịt", "Nước đổ lá khoai", "Nói như nước đổ đầu vịt")


def _sample(id: int, theme: str = "Criticism", traits: tuple[str, ...] = ("Pragmatic nuance",)) -> Sample:
    # Distinct idioms, so no two samples send the judge the same (cacheable) prompt.
    return Sample(
        id=id,
        input=IDIOMS[id - 1],
        target="Khuyên bảo mãi mà người nghe chẳng tiếp thu.",
        metadata={
            "idiom": IDIOMS[id - 1],
            "meaning": "Khuyên bảo mãi mà người nghe chẳng tiếp thu.",
            "theme": theme,
            "theme_id": 3,
            "traits": list(traits),
            "trait_ids": [5],
        },
    )


def _task(*scorers: object, samples: int = 2) -> Task:
    return Task(
        dataset=MemoryDataset([_sample(i + 1) for i in range(samples)]),
        solver=[explain_prompt("zero_shot"), generate()],
        scorer=list(scorers),
    )


def _run(task: Task, solver: Scripted, tmp_path: Path, **kwargs: object) -> EvalLog:
    [log] = eval(task, model=solver.model, log_dir=str(tmp_path / "logs"), display="none", **kwargs)
    assert log.status == "success", log.error
    return log


@pytest.fixture(autouse=True)
def _isolated_inspect(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECT_LOG_DIR", str(tmp_path / "logs"))
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))


@pytest.mark.slow
def test_every_strategy_judges_the_same_generation_in_its_own_column(tmp_path: Path) -> None:
    solver, grader = _solver_model(), Scripted("grader", _judge_reply)
    strategies = LLM_STRATEGIES
    log = _run(
        _task(*[judge(strategy=s) for s in strategies]),
        solver,
        tmp_path,
        model_roles={"grader": grader.model},
    )

    assert len(solver.calls) == 2  # one generation per sample, judged four ways
    assert len(grader.calls) == 2 * len(strategies)
    assert log.results is not None
    assert [s.name for s in log.results.scores] == [f"judge_{s}" for s in strategies]
    for result in log.results.scores:
        strategy = result.name.removeprefix("judge_")
        assert result.metrics["mean"].value == EXPECTED[strategy]
    for config in (c for _, c in grader.calls):
        assert config.temperature == 0.0
    assert sorted({c.max_tokens for _, c in grader.calls}) == [10, 1024]

    assert log.samples is not None
    first = log.samples[0].scores
    assert first is not None
    cot = first["judge_cot"]
    assert cot.value == 4
    assert cot.answer == GOOD
    assert cot.explanation is not None and cot.explanation.endswith("Điểm: 4")
    assert cot.metadata is not None
    assert cot.metadata["strategy"] == "cot"
    assert cot.metadata["judge_model"] == "mockllm/grader"
    assert (cot.metadata["parse_status"], cot.metadata["retries"]) == ("ok", 0)
    # The prompt is kept once, in the judge call's model event, not copied into the score.
    assert "judge_prompt" not in cot.metadata
    prompts = {s: judge_prompt_of(log.samples[0], f"judge_{s}") for s in strategies}
    assert all(prompt is not None and GOOD in prompt for prompt in prompts.values())
    assert len(set(prompts.values())) == len(strategies)  # each column finds its own strategy's prompt
    assert "suy luận từng bước" in (prompts["cot"] or "") and "Tiêu chí 4" in (prompts["aspect"] or "")


def test_unreadable_reply_is_retried_then_unscored(tmp_path: Path) -> None:
    grader = Scripted("grader", lambda messages, config: "Lời giải thích này khá ổn.")
    log = _run(
        _task(judge(strategy="aspect", retries=2)),
        _solver_model(),
        tmp_path,
        model_roles={"grader": grader.model},
    )

    assert len(grader.calls) == 2 * 3  # first try + two retries, per sample
    # Each retry is a longer conversation (unreadable reply + follow-up), never the cached request.
    assert sorted(len(messages) for messages, _ in grader.calls) == [1, 1, 3, 3, 5, 5]
    assert log.results is not None
    [result] = log.results.scores
    assert (result.scored_samples, result.unscored_samples) == (0, 2)
    assert log.samples is not None and log.samples[0].scores is not None
    unscored = log.samples[0].scores["judge_aspect"]
    assert isinstance(unscored.value, float) and math.isnan(unscored.value)
    assert unscored.reason == "grader_failed"
    assert unscored.metadata is not None
    assert unscored.metadata["parse_status"] == "no score found"
    assert unscored.metadata["retries"] == 2


def test_out_of_range_reply_is_retried_and_the_retry_counts(tmp_path: Path) -> None:
    grader = Scripted("grader", lambda messages, config: "7" if len(messages) == 1 else "3")
    log = _run(
        _task(judge(strategy="zero_shot")), _solver_model(), tmp_path, model_roles={"grader": grader.model}
    )

    assert len(grader.calls) == 4
    follow_ups = [messages[-1].text for messages, _ in grader.calls if len(messages) == 3]
    assert len(follow_ups) == 2 and all("out of range" in text for text in follow_ups)
    assert log.results is not None
    metrics = log.results.scores[0].metrics
    assert (metrics["mean"].value, metrics["retried"].value) == (3.0, 2.0)


def test_judge_replies_are_cached_between_runs(tmp_path: Path) -> None:
    grader = Scripted("grader", _judge_reply)
    for _ in range(2):
        _run(_task(judge(strategy="aspect")), _solver_model(), tmp_path, model_roles={"grader": grader.model})
    assert len(grader.calls) == 2  # the second run is answered from Inspect's cache


def test_empty_explanation_scores_zero_without_asking_the_judge(tmp_path: Path) -> None:
    grader = Scripted("grader", _judge_reply)
    solver = _solver_model("<think>Câu này nghĩa là gì nhỉ, để xem")  # ran out of tokens thinking
    log = _run(_task(judge(strategy="aspect")), solver, tmp_path, model_roles={"grader": grader.model})

    assert grader.calls == []
    assert log.samples is not None and log.samples[0].scores is not None
    empty = log.samples[0].scores["judge_aspect"]
    assert empty.value == 0
    assert empty.metadata is not None and empty.metadata["parse_status"] == "empty_answer"


@pytest.mark.parametrize(
    ("bind_role", "pass_judge_model", "expected_judge"),
    [
        pytest.param(True, True, "role", id="role-beats-judge_model"),
        pytest.param(False, True, "param", id="judge_model-beats-default"),
        pytest.param(False, False, "default", id="default-when-nothing-given"),
    ],
)
def test_judge_model_precedence(
    bind_role: bool,
    pass_judge_model: bool,
    expected_judge: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    judges = {name: Scripted(name, lambda messages, config: "4") for name in ("role", "param", "default")}
    # The real default is GPT-4.1; swap in a mock so the fallback is observable offline.
    monkeypatch.setattr(judge_module, "DEFAULT_JUDGE_MODEL", judges["default"].model)
    scorer = judge(strategy="aspect", judge_model=judges["param"].model if pass_judge_model else None)
    roles = {"grader": judges["role"].model} if bind_role else None
    log = _run(_task(scorer, samples=1), _solver_model(), tmp_path, model_roles=roles)

    assert {name: len(j.calls) for name, j in judges.items()} == {
        name: (1 if name == expected_judge else 0) for name in judges
    }
    assert log.samples is not None and log.samples[0].scores is not None
    metadata = log.samples[0].scores["judge_aspect"].metadata
    assert metadata is not None and metadata["judge_model"] == f"mockllm/{expected_judge}"


@pytest.mark.slow
def test_rescoring_a_log_with_another_strategy_never_calls_the_solver(tmp_path: Path) -> None:
    solver, grader = _solver_model(), Scripted("grader", _judge_reply)
    log = _run(_task(judge(strategy="aspect")), solver, tmp_path, model_roles={"grader": grader.model})
    assert len(solver.calls) == 2

    rescored = score(
        log,
        scorers=[judge(strategy="cot")],
        model_roles={"grader": grader.model},
        action="append",
        display="none",
    )

    assert len(solver.calls) == 2
    assert rescored.results is not None
    assert [s.name for s in rescored.results.scores] == ["judge_aspect", "judge_cot"]
    assert rescored.results.scores[1].metrics["mean"].value == 4.0


STRATEGY_IDS = [pytest.param(strategy, id=strategy) for strategy in STRATEGIES]


@pytest.mark.parametrize("strategy", STRATEGY_IDS)
def test_judge_alias_through_the_registry_writes_the_strategy_column(strategy: str, tmp_path: Path) -> None:
    # What `inspect score LOG --scorer vivid_inspect/judge -S strategy=cot` does (inspect_ai's CLI
    # calls this resolve_scorers): create the alias from the registry by its name, which stamps
    # the factory's name on what it returns, then score the log with it.
    solver, grader = _solver_model(), Scripted("grader", _judge_reply)
    log = _run(
        _task(judge_scorer("zero_shot" if strategy != "zero_shot" else "aspect")),
        solver,
        tmp_path,
        model_roles={"grader": grader.model},
    )
    [first] = [s.name for s in log.results.scores]  # type: ignore[union-attr]
    [created] = resolve_scorers(log, "vivid_inspect/judge", {"strategy": strategy})
    assert registry_info(created).name == f"vivid_inspect/judge_{strategy}"

    rescored = score(
        log, scorers=[created], model_roles={"grader": grader.model}, action="append", display="none"
    )

    assert rescored.results is not None
    assert [s.name for s in rescored.results.scores] == [first, f"judge_{strategy}"]
    assert rescored.results.scores[1].params == {"strategy": strategy}
    assert rescored.results.scores[1].metrics["mean"].value == EXPECTED[strategy]


@pytest.mark.parametrize("strategy", STRATEGY_IDS)
def test_each_strategy_is_a_registered_scorer_named_after_its_column(strategy: str, tmp_path: Path) -> None:
    # `inspect score LOG --scorer vivid_inspect/judge_cot`: Inspect's own @scorer names the column.
    created = registry_create("scorer", f"vivid_inspect/judge_{strategy}", repeat=1)
    assert registry_info(created).name == f"vivid_inspect/judge_{strategy}"
    assert registry_info(judge_scorer(strategy)) == registry_info(JUDGE_SCORERS[JudgeId.llm(strategy)]())
    grader = Scripted("grader", _judge_reply)
    generated = _run(_task(), _solver_model(), tmp_path)

    judged = score(generated, scorers=[created], model_roles={"grader": grader.model}, display="none")

    assert judged.results is not None
    [result] = judged.results.scores
    assert (result.name, result.params, result.metrics["mean"].value) == (
        f"judge_{strategy}",
        {"repeat": 1},
        EXPECTED[strategy],
    )
    assert {(s.metadata or {})["repeat"] for s in _judged(judged, f"judge_{strategy}")} == {1}


@pytest.mark.parametrize(
    "bad",
    [
        pytest.param(lambda: judge(strategy="geval"), id="unknown-strategy"),
        pytest.param(lambda: judge(retries=-1), id="negative-retries"),
        pytest.param(lambda: judge(repeat=-1), id="negative-repeat"),
        pytest.param(lambda: judge(repeat=1.5), id="fractional-repeat"),  # type: ignore[arg-type]
        pytest.param(lambda: judge(repeat="2"), id="text-repeat"),  # type: ignore[arg-type]
    ],
)
def test_bad_options_raise(bad: Callable[[], object]) -> None:
    # a bad count is a ScorerOptionError (Inspect's scorer loader would hide a ValueError's message)
    with pytest.raises((ValueError, ScorerOptionError)):
        bad()


def _scored(value: float, theme: str, traits: list[str], retries: int = 0) -> SampleScore:
    return SampleScore(
        score=Score(value=value, metadata={"retries": retries}),
        sample_id=f"{theme}-{value}",
        sample_metadata={"theme": theme, "traits": traits},
    )


HAND_MADE = [
    _scored(5, "Love", ["Literal", "Folk knowledge"]),
    _scored(1, "Love", ["Folk knowledge"], retries=1),
    _scored(3, "Criticism", ["Pragmatic nuance", "Folk knowledge"]),
    _scored(0, "Criticism", []),
]


def test_correctness_and_retried_on_hand_made_scores() -> None:
    assert correctness()(HAND_MADE) == pytest.approx(9 / 4 / 5)
    assert retried()(HAND_MADE) == 1.0


def test_trait_mean_counts_an_item_toward_each_of_its_traits() -> None:
    assert trait_mean()(HAND_MADE) == {
        "trait/Literal": 5.0,
        "trait/Folk knowledge": 3.0,  # (5 + 1 + 3) / 3
        "trait/Pragmatic nuance": 3.0,
    }


def test_trait_mean_rejects_unknown_trait() -> None:
    with pytest.raises(ValueError, match="Sarcasm"):
        trait_mean()([_scored(2, "Love", ["Sarcasm"])])


def test_theme_and_trait_metrics_in_the_log(tmp_path: Path) -> None:
    answers = {"Love": "5", "Criticism": "2"}
    grader = Scripted(
        "grader", lambda messages, config: answers["Love" if "Yêu nhau" in messages[0].text else "Criticism"]
    )

    def sample(id: int, idiom: str, theme: str, traits: list[str]) -> Sample:
        return Sample(
            id=id,
            input=idiom,
            target="nghĩa",
            metadata={
                "idiom": idiom,
                "meaning": "nghĩa",
                "theme": theme,
                "theme_id": 0,
                "traits": traits,
                "trait_ids": [],
            },
        )

    task = Task(
        dataset=MemoryDataset(
            [
                sample(1, "Yêu nhau mấy núi cũng trèo", "Love", ["Literal"]),
                sample(2, "Đầu voi đuôi chuột", "Criticism", ["Literal", "Pragmatic nuance"]),
                sample(3, "Ếch ngồi đáy giếng", "Criticism", []),
            ]
        ),
        solver=[explain_prompt("zero_shot"), generate()],
        scorer=judge(strategy="aspect"),
    )
    log = _run(task, _solver_model(), tmp_path, model_roles={"grader": grader.model})

    assert log.results is not None
    values = {name: m.value for name, m in log.results.scores[0].metrics.items()}
    assert values == pytest.approx(
        {
            "mean": 3.0,
            "stderr": 1.0,  # sample std of (5, 2, 2) is sqrt(3); / sqrt(3)
            "correctness": 0.6,
            "theme/Love": 5.0,
            "theme/Criticism": 2.0,
            "trait/Literal": 3.5,
            "trait/Pragmatic nuance": 2.0,
            "retried": 0.0,
        }
    )


# -- chain-of-thought replies cut off at the token budget ---------------------------------------------

COT_REPLY = "1. Nghĩa cốt lõi: lời khuyên vô ích.\n2. Lời giải thích khớp.\nĐiểm: 4"


@pytest.mark.parametrize("stop_reason", ["max_tokens", "model_length"])
def test_cut_off_cot_reply_is_retried_then_unscored(stop_reason: StopReason, tmp_path: Path) -> None:
    # Cut inside the rubric, where the old parser read "5" with status ok.
    cut = "1. Nghĩa cốt lõi: lời khuyên vô ích.\n3. Theo thang điểm: 5 là khớp hoàn toàn, 4 là"
    grader = Scripted("grader", lambda messages, config: _output(cut, stop_reason))
    log = _run(
        _task(judge(strategy="cot"), samples=1),
        _solver_model(),
        tmp_path,
        model_roles={"grader": grader.model},
    )

    assert len(grader.calls) == 2
    assert "cut off" in grader.calls[1][0][-1].text  # the retry turn says why
    assert log.samples is not None and log.samples[0].scores is not None
    unscored = log.samples[0].scores["judge_cot"]
    assert math.isnan(unscored.as_float())
    assert unscored.metadata is not None
    assert (
        unscored.metadata["parse_status"]
        == f"reply cut off (stop reason {stop_reason}) before its score line"
    )
    assert unscored.metadata["stop_reason"] == stop_reason


def test_cut_off_cot_reply_with_a_score_line_is_not_trusted(tmp_path: Path) -> None:
    # Even a final "Điểm: 5" does not count when the judge stopped at its budget: the retry decides.
    def reply(messages: list[ChatMessage], config: GenerateConfig) -> ModelOutput:
        first = len(messages) == 1
        return _output(COT_REPLY[:-1] + "5" if first else COT_REPLY, "max_tokens" if first else "stop")

    grader = Scripted("grader", reply)
    log = _run(
        _task(judge(strategy="cot"), samples=1),
        _solver_model(),
        tmp_path,
        model_roles={"grader": grader.model},
    )

    assert len(grader.calls) == 2
    assert log.samples is not None and log.samples[0].scores is not None
    scored = log.samples[0].scores["judge_cot"]
    assert scored.value == 4
    assert scored.metadata is not None and scored.metadata["retries"] == 1


# -- repeats: each repeat's replies cached apart, and each score says whether it was cached --------


def _counting_judge() -> Scripted:
    """A judge whose every real call answers the next score 0, 1, 2, ... (mod 6)."""
    counter = iter(range(1_000_000))
    return Scripted("grader", lambda messages, config: str(next(counter) % 6))


def _judged(log: EvalLog, column: str = "judge_aspect") -> list[Score]:
    assert log.samples is not None
    scores = [sample.scores[column] for sample in log.samples if sample.scores]
    assert len(scores) == len(log.samples)
    return scores


def test_repeats_are_fresh_calls_cached_apart_and_say_whether_they_were_cached(tmp_path: Path) -> None:
    solver, grader = _solver_model(), _counting_judge()
    generated = _run(_task(), solver, tmp_path)
    seen: dict[int, list[float]] = {}
    for repeat, calls_after, cached in [
        (0, 2, False),
        (0, 2, True),
        (1, 4, False),
        (2, 6, False),
        (1, 6, True),
    ]:
        judged = score(
            generated,
            [judge(strategy="aspect", repeat=repeat)],
            model_roles={"grader": grader.model},
            display="none",
        )
        assert len(grader.calls) == calls_after, repeat
        scores = _judged(judged)
        assert {(s.metadata or {})["repeat"] for s in scores} == {repeat}
        assert {(s.metadata or {})["cached"] for s in scores} == {cached}
        values = [s.as_float() for s in scores]
        # a redone repeat gets its own replies back, never another repeat's
        assert seen.setdefault(repeat, values) == values
    assert seen[0] != seen[1] != seen[2]


def test_cache_off_is_never_cached(tmp_path: Path) -> None:
    grader = _counting_judge()
    for _ in range(2):
        log = _run(
            _task(judge(strategy="aspect", cache=False)),
            _solver_model(),
            tmp_path,
            model_roles={"grader": grader.model},
        )
        assert {(s.metadata or {})["cached"] for s in _judged(log)} == {False}
    assert len(grader.calls) == 4


def test_repeat_zero_keeps_the_cache_key_existing_caches_were_written_with() -> None:
    from inspect_ai.model._cache import (
        _cache_key_config,  # the config part of Inspect's key
    )

    assert cache_policy(True, 0) == CachePolicy(per_epoch=False)
    assert cache_policy(True, 2) == CachePolicy(per_epoch=False, scopes={"repeat": "2"})
    assert cache_policy(False, 3) is False
    # the judge's call limits are runtime knobs that Inspect keeps out of the key
    for strategy in STRATEGIES.values():
        before = GenerateConfig(temperature=0.0, max_tokens=strategy.max_tokens)
        assert _cache_key_config(judge_config(strategy, GenerateConfig())) == _cache_key_config(before)


def test_inspect_score_accepts_repeat_as_a_scorer_argument(tmp_path: Path) -> None:
    # What `inspect score LOG --scorer vivid_inspect/judge -S strategy=cot -S repeat=2` does.
    solver, grader = _solver_model(), Scripted("grader", _judge_reply)
    log = _run(_task(judge(strategy="aspect")), solver, tmp_path, model_roles={"grader": grader.model})
    [created] = resolve_scorers(log, "vivid_inspect/judge", {"strategy": "cot", "repeat": 2})
    rescored = score(
        log, scorers=[created], model_roles={"grader": grader.model}, action="append", display="none"
    )

    assert rescored.results is not None
    assert rescored.results.scores[1].params == {"strategy": "cot", "repeat": 2}
    assert {(s.metadata or {})["repeat"] for s in _judged(rescored, "judge_cot")} == {2}


def test_scores_record_prompt_and_parser_versions(tmp_path: Path) -> None:
    grader = Scripted("grader", _judge_reply)
    log = _run(
        _task(judge(strategy="aspect"), samples=1),
        _solver_model(),
        tmp_path,
        model_roles={"grader": grader.model},
    )
    empty = _run(
        _task(judge(strategy="cot"), samples=1),
        _solver_model(""),
        tmp_path,
        model_roles={"grader": grader.model},
    )
    for metadata in [(s.metadata or {}) for s in _judged(log) + _judged(empty, "judge_cot")]:
        assert (metadata["prompt_version"], metadata["parser_version"]) == (
            JUDGE_PROMPT_VERSION,
            JUDGE_PARSER_VERSION,
        )
        assert metadata["repeat"] == 0


# -- the judge's call limits ---------------------------------------------------------------------------

LIMITS = {
    "max_retries": JUDGE.max_retries,
    "timeout": JUDGE.timeout,
    "attempt_timeout": JUDGE.attempt_timeout,
}


def _limits(config: GenerateConfig) -> dict[str, object]:
    return {name: getattr(config, name) for name in LIMITS}


@pytest.mark.parametrize(
    ("role_config", "expected"),
    [
        pytest.param(GenerateConfig(), LIMITS | {"max_tokens": 10, "temperature": 0.0}, id="defaults"),
        pytest.param(
            GenerateConfig(max_retries=1, attempt_timeout=7, max_tokens=4096, temperature=0.7),
            LIMITS | {"max_retries": 1, "attempt_timeout": 7, "max_tokens": 4096, "temperature": 0.7},
            id="role-settings-win",
        ),
        pytest.param(
            GenerateConfig(batch=True), LIMITS | {"attempt_timeout": None}, id="batch-drops-attempt-timeout"
        ),
        pytest.param(
            GenerateConfig(batch=True, attempt_timeout=30),
            LIMITS | {"attempt_timeout": None},
            id="batch-even-if-role-set-it",
        ),
        pytest.param(GenerateConfig(batch=False), LIMITS, id="batch-off-keeps-it"),
    ],
)
def test_judge_config_layers(role_config: GenerateConfig, expected: dict[str, object]) -> None:
    config = judge_config(STRATEGIES["aspect"], role_config)
    assert {name: getattr(config, name) for name in expected} == expected


@pytest.mark.parametrize(
    ("run", "expected"),
    [
        pytest.param({"max_retries": 0}, LIMITS | {"max_retries": 0}, id="max-retries-0"),
        pytest.param({"timeout": 20}, LIMITS | {"timeout": 20}, id="timeout"),
        pytest.param({"attempt_timeout": 9}, LIMITS | {"attempt_timeout": 9}, id="attempt-timeout"),
        pytest.param(
            {"max_retries": 1, "timeout": 30, "attempt_timeout": 5},
            {"max_retries": 1, "timeout": 30, "attempt_timeout": 5},
            id="all-three",
        ),
    ],
)
def test_the_judge_honours_the_runs_own_call_limits(
    tmp_path: Path, run: dict[str, int], expected: dict[str, object]
) -> None:
    # `inspect eval ... --max-retries 0` must not leave the judge retrying 3 times on a dead endpoint.
    grader = Scripted("grader", _judge_reply)
    _run(
        _task(judge(strategy="aspect"), samples=2),
        _solver_model(),
        tmp_path,
        model_roles={"grader": grader.model},
        **run,
    )
    assert grader.calls and {tuple(_limits(config).items()) for _, config in grader.calls} == {
        tuple(expected.items())
    }


def test_a_roles_own_limits_beat_the_runs(tmp_path: Path) -> None:
    grader = Scripted("grader", _judge_reply, config=GenerateConfig(max_retries=2))
    _run(
        _task(judge(strategy="aspect"), samples=1),
        _solver_model(),
        tmp_path,
        model_roles={"grader": grader.model},
        max_retries=0,
    )
    assert {config.max_retries for _, config in grader.calls} == {2}


def test_call_limits_apply_under_inspect_score_and_a_role_still_wins(tmp_path: Path) -> None:
    generated = _run(_task(), _solver_model(), tmp_path)
    plain = Scripted("plain", _judge_reply)
    score(generated, [judge(strategy="cot")], model_roles={"grader": plain.model}, display="none")
    assert {tuple(_limits(config).items()) for _, config in plain.calls} == {tuple(LIMITS.items())}

    tuned = Scripted(
        "tuned", _judge_reply, config=GenerateConfig(max_retries=2, attempt_timeout=5, max_tokens=64)
    )
    score(generated, [judge(strategy="cot")], model_roles={"grader": tuned.model}, display="none")
    assert {(c.max_retries, c.timeout, c.attempt_timeout, c.max_tokens) for _, c in tuned.calls} == {
        (2, JUDGE.timeout, 5, 64)
    }


@pytest.mark.slow
def test_one_scorer_under_two_role_configs_uses_each_ones_settings(tmp_path: Path) -> None:
    # The merged judge config is kept per role config: a scorer reused with another grader (or
    # the same model with other settings) must not keep the first one's.
    generated = _run(_task(), _solver_model(), tmp_path)
    scorer = judge_scorer("cot")
    plain = Scripted("plain", _judge_reply)
    tuned = Scripted("tuned", _judge_reply, config=GenerateConfig(max_tokens=64, attempt_timeout=5))
    for grader in (plain, tuned, plain):
        score(generated, [scorer], model_roles={"grader": grader.model}, display="none")
    assert {(c.max_tokens, c.attempt_timeout) for _, c in plain.calls} == {(1024, JUDGE.attempt_timeout)}
    assert {(c.max_tokens, c.attempt_timeout) for _, c in tuned.calls} == {(64, 5)}
    assert (len(plain.calls), len(tuned.calls)) == (2, 2)  # the third scoring is answered by the cache


# English instructions (language="en"): another judge, in its own column, never merged with the Vietnamese one.


def _bilingual_reply(messages: list[ChatMessage], config: GenerateConfig) -> str:
    """Answer each template in its own format, with scores that tell the two languages apart."""
    prompt = messages[0].text
    if "not instructions for you" not in prompt:
        return _judge_reply(messages, config)
    if "step by step" in prompt:
        return '1. Core meaning: advice wasted on the listener.\n2. It says "vô ích": right.\nScore: 3'
    if "Criterion 4" in prompt:
        return "4"
    if "Graded examples" in prompt:
        return "Score: 2"
    return "1"


EXPECTED_EN = {"cot": 3, "aspect": 4, "demonstration": 2, "zero_shot": 1}


@pytest.mark.parametrize("strategy", STRATEGY_IDS)
def test_english_instructions_are_another_judge_in_their_own_column(strategy: str, tmp_path: Path) -> None:
    solver, grader = _solver_model(), Scripted("grader", _bilingual_reply)
    log = _run(
        _task(judge_scorer(strategy), judge_scorer(strategy, language="en")),
        solver,
        tmp_path,
        model_roles={"grader": grader.model},
    )

    assert len(solver.calls) == 2 and len(grader.calls) == 4  # one generation, judged once per language
    assert log.results is not None
    columns = {s.name: s.metrics["mean"].value for s in log.results.scores}
    assert columns == {f"judge_{strategy}": EXPECTED[strategy], f"judge_{strategy}_en": EXPECTED_EN[strategy]}
    for column, language in ((f"judge_{strategy}", "vi"), (f"judge_{strategy}_en", "en")):
        assert {(s.metadata or {})["language"] for s in _judged(log, column)} == {language}
        assert {(s.metadata or {})["strategy"] for s in _judged(log, column)} == {strategy}
    assert log.samples is not None
    vietnamese = judge_prompt_of(log.samples[0], f"judge_{strategy}") or ""
    english = judge_prompt_of(log.samples[0], f"judge_{strategy}_en") or ""
    assert "không phải chỉ dẫn" in vietnamese and "not instructions for you" not in vietnamese
    assert "not instructions for you" in english and "không phải chỉ dẫn" not in english
    # Only the instructions change: the item and the candidate reach the judge in Vietnamese.
    for prompt in (vietnamese, english):
        assert f"\n{IDIOMS[0]}\n" in prompt and f"\n{GOOD}\n" in prompt


@pytest.mark.parametrize("strategy", STRATEGY_IDS)
def test_judge_alias_with_language_writes_the_english_column(strategy: str, tmp_path: Path) -> None:
    # `inspect score LOG --scorer vivid_inspect/judge -S strategy=cot -S language=en`
    grader = Scripted("grader", _bilingual_reply)
    log = _run(_task(), _solver_model(), tmp_path)
    [created] = resolve_scorers(log, "vivid_inspect/judge", {"strategy": strategy, "language": "en"})
    assert registry_info(created).name == f"vivid_inspect/judge_{strategy}_en"

    judged = score(log, scorers=[created], model_roles={"grader": grader.model}, display="none")

    assert judged.results is not None
    [result] = judged.results.scores
    assert (result.name, result.params) == (f"judge_{strategy}_en", {"strategy": strategy, "language": "en"})
    assert result.metrics["mean"].value == EXPECTED_EN[strategy]


@pytest.mark.parametrize("strategy", STRATEGY_IDS)
def test_each_english_strategy_is_a_registered_scorer_named_after_its_column(strategy: str) -> None:
    # `inspect score LOG --scorer vivid_inspect/judge_cot_en`
    created = registry_create("scorer", f"vivid_inspect/judge_{strategy}_en")
    assert registry_info(created).name == f"vivid_inspect/judge_{strategy}_en"
    assert registry_info(judge_scorer(strategy, language="en")) == registry_info(created)
    assert registry_info(judge_scorer(strategy, language="vi")) == registry_info(judge_scorer(strategy))


def test_english_judge_retries_in_english(tmp_path: Path) -> None:
    grader = Scripted("grader", lambda messages, config: "Pretty good." if len(messages) == 1 else "Score: 2")
    log = _run(
        _task(judge_scorer("aspect", language="en"), samples=1),
        _solver_model(),
        tmp_path,
        model_roles={"grader": grader.model},
    )

    follow_ups = [messages[-1].text for messages, _ in grader.calls if len(messages) == 3]
    assert len(follow_ups) == 1
    assert follow_ups[0].startswith("The previous reply could not be read as a score (no score found)")
    [scored] = _judged(log, "judge_aspect_en")
    assert scored.value == 2 and (scored.metadata or {})["retries"] == 1


@pytest.mark.parametrize(
    "bad",
    [
        pytest.param(lambda: judge(strategy="aspect", language="fr"), id="alias-unknown"),
        pytest.param(lambda: judge(strategy="cot", language="EN"), id="alias-wrong-case"),
        pytest.param(lambda: judge_scorer("cot", language=""), id="empty"),
        pytest.param(lambda: judge_scorer("aspect", language=None), id="none"),  # type: ignore[arg-type]
        pytest.param(lambda: JUDGE_SCORERS[JudgeId("aspect", "en")](repeat=-1), id="english-negative-repeat"),
    ],
)
def test_bad_language_raises_naming_the_allowed_values(bad: Callable[[], object]) -> None:
    # a bad count is a ScorerOptionError (Inspect's scorer loader would hide a ValueError's message)
    with pytest.raises((ValueError, ScorerOptionError), match="expected one of vi, en|repeat must be"):
        bad()


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        pytest.param("aspect_en", ["aspect_en"], id="one-english"),
        pytest.param("aspect,aspect_en", ["aspect", "aspect_en"], id="both-languages"),
        pytest.param(
            "all_en", ["zero_shot_en", "demonstration_en", "cot_en", "aspect_en"], id="all-english-strategies"
        ),
        pytest.param("lexical,cot_en", ["lexical", "cot_en"], id="lexical-has-no-language"),
    ],
)
def test_explain_judge_option_names_the_language(spec: str, expected: list[str]) -> None:
    assert judge_names(spec) == expected
    columns = [registry_info(s).name.removeprefix("vivid_inspect/") for s in explain_scorers(spec)]
    judges = [name if name == "lexical" else f"judge_{name}" for name in expected]
    assert columns == judges + [f"unscored_{name}" for name in expected if name != "lexical"]


@pytest.mark.parametrize("spec", ["aspect_fr", "lexical_en", "all_vi", "aspect_vi", "en"])
def test_explain_judge_option_rejects_unknown_languages(spec: str) -> None:
    with pytest.raises(ValueError, match="unknown judge .*all_en"):
        judge_names(spec)
