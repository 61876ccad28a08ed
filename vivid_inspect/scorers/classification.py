"""Exact-match scorers of the topic and traits tasks, with lenient parses kept for diagnostics."""

from __future__ import annotations

from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    Score,
    Scorer,
    Target,
    accuracy,
    grouped,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState

from vivid_inspect.scorers.answers import final_answer, lenient_topic, lenient_traits
from vivid_inspect.scorers.classification_metrics import (
    LENIENT_KEY,
    PREDICTED_TRAITS_KEY,
    lenient_accuracy,
    trait_prf,
    trait_set_agreement,
)
from vivid_inspect.solvers.classify_prompts import traits_answer
from vivid_inspect.text import nfc


def _per_theme() -> object:
    return grouped(accuracy(), "theme", all=False, name_template="theme/{group_name}")


@scorer(metrics=[accuracy(), stderr(), lenient_accuracy(), _per_theme()])
def topic_match() -> Scorer:
    """Strict exact match of the topic code (the paper's metric) plus a lenient parse.

    The value is CORRECT only when the final answer, stripped and NFC, equals the code. The lenient
    parse (first whole number 1-7) goes to ``metadata`` and feeds ``lenient_accuracy``.
    """

    async def score(state: TaskState, target: Target) -> Score:
        answer = final_answer(state.output.completion)
        gold = nfc(target.text.strip())
        parsed = lenient_topic(answer)
        return Score(
            value=CORRECT if answer == gold else INCORRECT,
            answer=answer,
            explanation=state.output.completion,
            metadata={"predicted": parsed, LENIENT_KEY: parsed is not None and str(parsed) == gold},
        )

    return score


@scorer(metrics=[accuracy(), stderr(), lenient_accuracy(), trait_prf(), trait_set_agreement(), _per_theme()])
def traits_match() -> Scorer:
    """Strict exact match of the ascending trait-code list (``""`` for none) plus a lenient parse.

    The lenient parse is the set of codes 1-5 in any order or spacing; it feeds
    ``lenient_accuracy`` and the per-trait precision/recall/F1, Jaccard and Hamming metrics.
    """

    async def score(state: TaskState, target: Target) -> Score:
        answer = final_answer(state.output.completion)
        gold = nfc(target.text.strip())
        parsed = lenient_traits(answer)
        return Score(
            value=CORRECT if answer == gold else INCORRECT,
            answer=answer,
            explanation=state.output.completion,
            metadata={PREDICTED_TRAITS_KEY: list(parsed), LENIENT_KEY: traits_answer(parsed) == gold},
        )

    return score
