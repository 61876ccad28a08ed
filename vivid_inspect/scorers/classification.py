"""Exact-match scorers of the topic and traits tasks, with lenient parses kept for diagnostics."""

from __future__ import annotations

from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    Metric,
    Score,
    Scorer,
    Target,
    accuracy,
    grouped,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState

from vivid_inspect.scorers.answers import LENIENT_PARSER_VERSION, final_answer, read_topic, read_traits
from vivid_inspect.scorers.classification_metrics import (
    LENIENT_KEY,
    PARSE_STATUS_KEY,
    PREDICTED_TRAITS_KEY,
    lenient_accuracy,
    trait_prf,
    trait_set_agreement,
    unreadable,
)
from vivid_inspect.solvers.classify_prompts import traits_answer
from vivid_inspect.text import nfc


def _per_theme() -> Metric:
    return grouped(accuracy(), "theme", all=False, name_template="theme/{group_name}")


@scorer(metrics=[accuracy(), stderr(), lenient_accuracy(), unreadable(), _per_theme()])
def topic_match() -> Scorer:
    """Strict exact match of the topic code (the paper's metric) plus a lenient parse.

    The value is CORRECT only when the final answer, stripped and NFC, equals the code. The lenient
    parse (`read_topic`: exactly one number 1-7 once a repeat
    of the prompt is set aside) goes to ``metadata`` and feeds ``lenient_accuracy``;
    ``parse_status`` is ``ok``, ``no_code``, ``echo``, ``several`` or ``out_of_range``, and
    ``parser_version`` is `LENIENT_PARSER_VERSION`.
    """

    async def score(state: TaskState, target: Target) -> Score:
        answer = final_answer(state.output.completion)
        gold = nfc(target.text.strip())
        reading = read_topic(answer)
        return Score(
            value=CORRECT if answer == gold else INCORRECT,
            answer=answer,
            explanation=state.output.completion,
            metadata={
                "predicted": reading.code,
                LENIENT_KEY: reading.code is not None and str(reading.code) == gold,
                PARSE_STATUS_KEY: reading.status,
                "parser_version": LENIENT_PARSER_VERSION,
            },
        )

    return score


@scorer(
    metrics=[
        accuracy(),
        stderr(),
        lenient_accuracy(),
        unreadable(),
        trait_prf(),
        trait_set_agreement(),
        _per_theme(),
    ]
)
def traits_match() -> Scorer:
    """Strict exact match of the ascending trait-code list (``""`` for none) plus a lenient parse.

    The lenient parse (`read_traits`) reads codes 1-5 in any
    order, spacing or decoration; an empty answer means "no traits". An answer with no code, or
    with a number that is not a code 1-5, a repeat of the prompt alone or alternatives (``hoặc``) is
    a parse failure: ``predicted_ids`` is None,
    ``parse_status`` says why, and it earns no lenient credit. The parse feeds
    ``lenient_accuracy``, ``unreadable`` and the per-trait precision/recall/F1, Jaccard and
    Hamming metrics.
    """

    async def score(state: TaskState, target: Target) -> Score:
        answer = final_answer(state.output.completion)
        gold = nfc(target.text.strip())
        reading = read_traits(answer)
        lenient = reading.codes is not None and traits_answer(reading.codes) == gold
        return Score(
            value=CORRECT if answer == gold else INCORRECT,
            answer=answer,
            explanation=state.output.completion,
            metadata={
                PREDICTED_TRAITS_KEY: list(reading.codes) if reading.codes is not None else None,
                LENIENT_KEY: lenient,
                PARSE_STATUS_KEY: reading.status,
                "parser_version": LENIENT_PARSER_VERSION,
            },
        )

    return score
