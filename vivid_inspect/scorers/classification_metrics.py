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
PARSE_STATUS_KEY = "parse_status"
_READABLE = ("ok", "empty")


@metric
def lenient_accuracy() -> Metric:
    """Share of answers that are right after lenient parsing (decorations forgiven)."""

    def compute(scores: list[SampleScore]) -> Value:
        flags = [bool((s.score.metadata or {}).get(LENIENT_KEY, False)) for s in scores]
        return float(np.mean(flags)) if flags else float("nan")

    return compute


@metric
def unreadable() -> Metric:
    """Share of answers the lenient parse could not read (``parse_status`` other than ok/empty)."""

    def compute(scores: list[SampleScore]) -> Value:
        flags = [(s.score.metadata or {}).get(PARSE_STATUS_KEY, "ok") not in _READABLE for s in scores]
        return float(np.mean(flags)) if flags else float("nan")

    return compute


def _trait_matrices(scores: list[SampleScore]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gold and predicted item × trait matrices, and which answers were readable.

    An unreadable answer (``predicted_ids`` None) predicts no trait, so it adds false negatives
    and never a true positive.
    """
    codes = list(TRAIT_BY_CODE)
    gold = np.zeros((len(scores), len(codes)), dtype=int)
    pred = np.zeros((len(scores), len(codes)), dtype=int)
    readable = np.ones(len(scores), dtype=bool)
    for row, sample_score in enumerate(scores):
        gold_ids = (sample_score.sample_metadata or {}).get("trait_ids", [])
        pred_ids = (sample_score.score.metadata or {}).get(PREDICTED_TRAITS_KEY, [])
        if pred_ids is None:
            readable[row], pred_ids = False, []
        for column, code in enumerate(codes):
            gold[row, column] = code in gold_ids
            pred[row, column] = code in pred_ids
    return gold, pred, readable


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
        gold, pred, _ = _trait_matrices(scores)
        result: dict[str, float] = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            for average in ("micro", "macro"):
                p, r, f, _ = precision_recall_fscore_support(gold, pred, average=average, zero_division=0)
                result.update(
                    {
                        f"{average}_precision": float(p),
                        f"{average}_recall": float(r),
                        f"{average}_f1": float(f),
                    }
                )
            _, _, per_trait, _ = precision_recall_fscore_support(gold, pred, average=None, zero_division=0)
        for name, value in zip(TRAIT_NAMES, per_trait, strict=True):
            result[f"f1/{name}"] = float(value)
        return result

    return compute


@metric
def trait_set_agreement() -> Metric:
    """Per-item Jaccard similarity of predicted and gold trait sets, and Hamming accuracy.

    Two empty sets count as a perfect match (Jaccard 1): "no trait" is a real answer here. An
    unreadable answer scores 0 on both: nothing it says can be compared with the gold set.
    """

    def compute(scores: list[SampleScore]) -> Value:
        if not scores:
            return {}
        gold, pred, readable = _trait_matrices(scores)
        union = (gold | pred).sum(axis=1)
        both = (gold & pred).sum(axis=1)
        jaccard = np.where(union == 0, 1.0, both / np.maximum(union, 1))
        hamming = (gold == pred).mean(axis=1)
        return {
            "jaccard": float(np.mean(np.where(readable, jaccard, 0.0))),
            "hamming_accuracy": float(np.mean(np.where(readable, hamming, 0.0))),
        }

    return compute
