"""Diagnostics for the classification tasks beside the paper's strict accuracy.

Strict exact match under-counts (the paper says so), so these metrics read what the scorer
parsed leniently from each answer (``Score.metadata``) and the gold codes (sample metadata).
"""

from __future__ import annotations

import warnings

import numpy as np
from inspect_ai.scorer import Metric, SampleScore, Value, metric

from vivid_inspect.taxonomy import TRAIT_BY_CODE, TRAIT_NAMES

LENIENT_KEY = "lenient_correct"
PREDICTED_TRAITS_KEY = "predicted_ids"


@metric
def lenient_accuracy() -> Metric:
    """Share of answers that are right after lenient parsing (decorations forgiven)."""

    def compute(scores: list[SampleScore]) -> Value:
        flags = [bool((s.score.metadata or {}).get(LENIENT_KEY, False)) for s in scores]
        return float(np.mean(flags)) if flags else float("nan")

    return compute


def _trait_matrices(scores: list[SampleScore]) -> tuple[np.ndarray, np.ndarray]:
    codes = list(TRAIT_BY_CODE)
    gold = np.zeros((len(scores), len(codes)), dtype=int)
    pred = np.zeros((len(scores), len(codes)), dtype=int)
    for row, sample_score in enumerate(scores):
        gold_ids = (sample_score.sample_metadata or {}).get("trait_ids", [])
        pred_ids = (sample_score.score.metadata or {}).get(PREDICTED_TRAITS_KEY, [])
        for column, code in enumerate(codes):
            gold[row, column] = code in gold_ids
            pred[row, column] = code in pred_ids
    return gold, pred


@metric
def trait_prf() -> Metric:
    """Micro and macro precision, recall and F1 over the five traits, plus F1 per trait.

    Computed with scikit-learn on the leniently parsed trait sets; a trait that is never gold and
    never predicted contributes 0 (scikit-learn's ``zero_division=0``).
    """

    def compute(scores: list[SampleScore]) -> Value:
        # Imported here: scikit-learn takes seconds to import, and every `inspect eval` and `vivid`
        # command imports this module through the task registry.
        from sklearn.exceptions import UndefinedMetricWarning
        from sklearn.metrics import precision_recall_fscore_support

        if not scores:
            return {}
        gold, pred = _trait_matrices(scores)
        result: dict[str, float] = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            for average in ("micro", "macro"):
                p, r, f, _ = precision_recall_fscore_support(gold, pred, average=average, zero_division=0)
                result.update({f"{average}_precision": float(p), f"{average}_recall": float(r), f"{average}_f1": float(f)})
            _, _, per_trait, _ = precision_recall_fscore_support(gold, pred, average=None, zero_division=0)
        for name, value in zip(TRAIT_NAMES, per_trait):
            result[f"f1/{name}"] = float(value)
        return result

    return compute


@metric
def trait_set_agreement() -> Metric:
    """Per-item Jaccard similarity of predicted and gold trait sets, and Hamming accuracy.

    Two empty sets count as a perfect match (Jaccard 1): "no trait" is a real answer here.
    """

    def compute(scores: list[SampleScore]) -> Value:
        from sklearn.exceptions import UndefinedMetricWarning
        from sklearn.metrics import hamming_loss, jaccard_score

        if not scores:
            return {}
        gold, pred = _trait_matrices(scores)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            jaccard = jaccard_score(gold, pred, average="samples", zero_division=1.0)
        return {"jaccard": float(jaccard), "hamming_accuracy": float(1.0 - hamming_loss(gold, pred))}

    return compute
