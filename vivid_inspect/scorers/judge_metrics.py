"""Metrics of every judge scorer: the paper's mean score and correctness, per theme and per trait.

On unscored samples: ``Score.unscored()`` is a NaN value, and Inspect 0.3.285 drops NaN scores
*before* any metric runs (``scorer_for_metrics`` in ``_eval/task/results.py``), so no metric can
count them. Inspect counts them itself in the same place and writes the number to
``EvalScore.unscored_samples`` (beside ``scored_samples``) of each judge column in the log; that is
the authoritative unscored count and we do not duplicate it with a metric that would always read 0.
What a metric *can* see is how many scored samples needed a retry before the judge gave a readable
score (:func:`retried`), a measure of the judge's format compliance.
"""

from __future__ import annotations

import numpy as np
from inspect_ai.scorer import Metric, SampleScore, Value, grouped, mean, metric, stderr

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
