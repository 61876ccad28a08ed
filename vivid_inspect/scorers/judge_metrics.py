"""Metrics of every judge scorer: the paper's mean score and correctness, per theme and per trait.

On unscored samples: ``Score.unscored()`` is a NaN value, and Inspect 0.3.285 drops NaN scores
*before* any metric runs (``scorer_for_metrics`` in ``_eval/task/results.py``), so no metric can
count them. Inspect counts them itself in the same place and writes the number to
``EvalScore.unscored_samples`` (beside ``scored_samples``) of each judge column in the log; that is
the authoritative unscored count and we do not duplicate it with a metric that would always read 0.
What a metric *can* see is how many scored samples needed a retry before the judge gave a readable
score (`retried`), a measure of the judge's format compliance.

So that a plain ``inspect eval`` prints the unscored share too (a judge that cannot score shows
``mean nan`` and nothing else), the explain task gives each LLM judge a companion column
``unscored_<judge>`` (`unscored_companion`): 1 for a sample its judge left unscored, 0 for one
it scored, whose metric ``unscored`` is that share. The name keeps it out of the ``judge_*``
columns that every reader takes for judges; ``vivid run``'s judged logs do not have it.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    Value,
    grouped,
    mean,
    metric,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState

from vivid_inspect.scorers.judge_parse import MAX_SCORE
from vivid_inspect.taxonomy import TRAIT_NAMES

RETRIES_KEY = "retries"
"""Score metadata key holding how many times the judge was asked again."""


@metric
def correctness() -> Metric:
    """Mean judge score divided by the top score (5): the paper's "correctness" in [0, 1]."""

    def compute(scores: list[SampleScore]) -> Value:
        if not scores:
            return float("nan")
        return float(np.mean([s.score.as_float() for s in scores]) / MAX_SCORE)

    return compute


@metric
def trait_mean() -> Metric:
    """Mean judge score per complexity trait, keyed ``trait/<English name>``.

    An item counts toward each of its traits (the paper's Table 4), so the per-trait means do not
    partition the data set. Traits no scored item carries are left out.

    Raises:
        ValueError: If a sample lists a trait name that is not in the taxonomy.
    """

    def compute(scores: list[SampleScore]) -> Value:
        per_trait: dict[str, list[float]] = {name: [] for name in TRAIT_NAMES}
        for sample_score in scores:
            for name in (sample_score.sample_metadata or {}).get("traits", []):
                if name not in per_trait:
                    raise ValueError(
                        f"sample {sample_score.sample_id} has unknown trait {name!r}; "
                        f"expected one of {', '.join(TRAIT_NAMES)}"
                    )
                per_trait[name].append(sample_score.score.as_float())
        return {f"trait/{name}": float(np.mean(values)) for name, values in per_trait.items() if values}

    return compute


@metric
def retried() -> Metric:
    """Number of scored samples whose judge needed at least one retry to give a readable score."""

    def compute(scores: list[SampleScore]) -> Value:
        return float(sum(1 for s in scores if (s.score.metadata or {}).get(RETRIES_KEY, 0) > 0))

    return compute


def judge_metrics() -> list[Metric]:
    """The metrics attached to every judge scorer.

    Returns:
        ``mean``, ``stderr``, ``correctness``, the per-theme means (``theme/<name>``), the
        per-trait means (``trait/<name>``) and ``retried``.
    """
    return [
        mean(),
        stderr(),
        correctness(),
        grouped(mean(), "theme", all=False, name_template="theme/{group_name}"),
        trait_mean(),
        retried(),
    ]


UNSCORED_PREFIX = "unscored_"
"""Prefix of a judge's companion column: ``unscored_aspect`` for ``judge_aspect``."""


@metric
def unscored() -> Metric:
    """Share of the samples that the judge of a companion column left unscored (NaN with none)."""

    def compute(scores: list[SampleScore]) -> Value:
        return float(np.mean([s.score.as_float() for s in scores])) if scores else float("nan")

    return compute


_COMPANIONS: dict[str, Callable[[], Scorer]] = {}


def unscored_companion(column: str) -> Scorer:
    """The companion of a judge's column: 1 when the judge left a sample unscored, else 0.

    It reads the judge's score of the same sample, so it must come after that judge in the task's
    scorers; a sample the judge did not score at all (it errored) gets no companion score either.

    Args:
        column: The judge's column, ``judge_aspect``.

    Returns:
        The scorer, whose column is ``unscored_aspect`` and whose metric is `unscored`.
    """
    name = UNSCORED_PREFIX + column.removeprefix("judge_")
    if name not in _COMPANIONS:

        def factory() -> Scorer:
            async def score(state: TaskState, target: Target) -> Score | None:
                judged = (state.scores or {}).get(column)
                if judged is None:
                    return None
                missing = isinstance(judged.value, float) and math.isnan(judged.value)
                return Score(value=float(missing), explanation=f"{column} {'un' if missing else ''}scored")

            return score

        factory.__name__ = factory.__qualname__ = name
        factory.__doc__ = (
            f"""1 when ``{column}`` left the sample unscored, else 0 (metric: the unscored share)."""
        )
        _COMPANIONS[name] = scorer(metrics=[unscored()], name=name)(factory)
    return _COMPANIONS[name]()
