"""The explain task's own judge caches exactly when the run caches; rescoring always caches.

Without Inspect's ``cache`` option (``inspect eval --cache``) the explanations of a rerun are new
samples (temperature 0.7), so the cache of the judge inside ``inspect eval ... explain`` could only
be written, never read, and writing it cost ~1.9 ms per item (one cache file per judge call). So
the task's judge follows the run: cached when the run caches (a rerun then replays generations and
judgements alike), not cached otherwise. Rescoring a log (``inspect score``, ``vivid run``'s judge
phase) judges fixed explanations and keeps the cache: scoring the same log again is free.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval, score
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import CachePolicy, Model
from inspect_ai.scorer import Score

from tests.scripted import scripted_model
from vivid_inspect.data import load_vivid
from vivid_inspect.scorers.judge import judge, judge_scorer
from vivid_inspect.tasks import EXPLAIN_CONFIG, explain

ITEMS = 3
EXPLANATION = "Khuyên người ta phải biết ơn người đã giúp mình."


def _ids() -> list[int]:
    return [int(str(sample.id)) for sample in load_vivid("sample").dataset][:ITEMS]


def _models() -> tuple[Model, list[str], Model, list[str]]:
    generated: list[str] = []
    judged: list[str] = []
    return (
        scripted_model(lambda prompt: EXPLANATION, generated),
        generated,
        scripted_model(lambda prompt: "Điểm: 4", judged),  # readable for every strategy
        judged,
    )


def _generate(
    tmp_path: Path, generator: Model, grader: Model, judge_spec: str = "aspect", **run: object
) -> EvalLog:
    (log,) = eval(
        explain(data="sample", judge=judge_spec),
        model=generator,
        model_roles={"grader": grader},
        sample_id=_ids(),
        log_dir=str(tmp_path / "logs"),
        display="none",
        **run,  # type: ignore[arg-type]
    )
    assert log.status == "success", log.error
    return log


def _cached(log: EvalLog, column: str = "judge_aspect") -> set[bool]:
    scores: list[Score] = [sample.scores[column] for sample in log.samples or [] if sample.scores]
    assert len(scores) == ITEMS
    return {bool((s.metadata or {})["cached"]) for s in scores}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("run", "replayed"),
    [
        pytest.param({}, False, id="no-cache-option"),
        pytest.param({"cache": False}, False, id="cache-false"),
        pytest.param({"cache": True}, True, id="cache-true"),
        pytest.param({"cache": CachePolicy(expiry="1D")}, True, id="cache-policy-1D"),
    ],
)
@pytest.mark.parametrize("judge_spec", ["aspect", "cot,aspect", "aspect_en"])
def test_the_explain_tasks_judge_caches_exactly_when_the_run_caches(
    tmp_path: Path, run: dict[str, object], replayed: bool, judge_spec: str
) -> None:
    generator, generated, grader, judged = _models()
    columns = [f"judge_{name}" for name in judge_spec.split(",")]
    calls = ITEMS * len(columns)
    for rerun in (False, True):
        log = _generate(tmp_path, generator, grader, judge_spec, **run)
        for column in columns:
            assert _cached(log, column) == {rerun and replayed}
    # A rerun replays the judge only where it replays the explanations it judges.
    assert (len(generated), len(judged)) == ((ITEMS, calls) if replayed else (2 * ITEMS, 2 * calls))


def test_the_explain_task_turns_caching_off_explicitly() -> None:
    # The judge reads the run's `cache`: False here, True/a policy under `--cache`, unset (None)
    # under `inspect score`, which judges fixed explanations and so caches.
    assert EXPLAIN_CONFIG.cache is False


@pytest.mark.parametrize(
    "rescorer",
    [
        pytest.param("judge", id="scorer-vivid_inspect/judge"),
        pytest.param("judge_aspect", id="scorer-vivid_inspect/judge_aspect"),
    ],
)
def test_rescoring_an_explain_log_caches_its_judgements(tmp_path: Path, rescorer: str) -> None:
    generator, _, grader, judged = _models()
    log = read_eval_log(_generate(tmp_path, generator, grader).location)
    assert len(judged) == ITEMS
    for time, (calls, cached) in enumerate([(2 * ITEMS, False), (2 * ITEMS, True)]):
        scorers = [judge(strategy="aspect") if rescorer == "judge" else judge_scorer("aspect")]
        rescored = score(log, scorers, model_roles={"grader": grader}, action="overwrite", display="none")
        assert len(judged) == calls, time  # the first rescoring asks; the second is replayed
        assert _cached(rescored) == {cached}
