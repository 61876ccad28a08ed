"""A lexical "judge": chrF between the candidate explanation and the reference meaning.

The paper argues (§2.3, §4.1) that surface-overlap metrics fail on figurative language. Shipping
one lets users test that claim on their own human scores: the ``lexical`` scorer reports chrF raw
(0-100) and binned to the judges' 0-5 scale, so it enters the same agreement report as the LLM
judges. chrF works on characters, which suits Vietnamese, whose words are space-separated syllables.

Character overlap also counts spelling conventions as differences: ``hòa`` (old tone-mark
placement) and ``hoà`` (new) share no character trigram around the tone mark. By default both
sides are therefore brought to the new placement first (``tone_marks="unify"``); ``"keep"``
compares them after NFC only. Each score records which in ``metadata["normalisation"]``.
"""

from __future__ import annotations

import bisect
from typing import Literal

import numpy as np
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, Value, metric, scorer
from inspect_ai.solver import TaskState
from sacrebleu.metrics import CHRF

from vivid_inspect.data.normalise import unify_tone_marks
from vivid_inspect.log_contract import sample_meaning
from vivid_inspect.scorers.judge_metrics import judge_metrics
from vivid_inspect.text import nfc, strip_reasoning

CHRF_KEY = "chrf"

CHRF_CUTS: tuple[float, ...] = (20.0, 30.0, 40.0, 55.0, 70.0)
"""chrF values at which the binned score steps up: below 20 is 0, [20, 30) is 1, … 70 and above is 5.

Chosen on the bundled sample so that a word-for-word literal paraphrase of the idiom (which shares
almost no characters with a figurative meaning) lands at 0-1, a faithful paraphrase in other
words at about 3, and the reference itself at 5. They are not calibrated against human scores.
"""

_CHRF = CHRF()

ToneMarks = Literal["unify", "keep"]
NORMALISATION: dict[ToneMarks, str] = {"unify": "nfc+tone_marks", "keep": "nfc"}
"""What each ``tone_marks`` option records as the score's ``normalisation``."""


def _normalise(text: str, tone_marks: ToneMarks) -> str:
    if tone_marks not in NORMALISATION:
        raise ValueError(f"tone_marks must be 'unify' or 'keep', got {tone_marks!r}")
    return (unify_tone_marks(text) if tone_marks == "unify" else nfc(text)).strip()


def chrf(candidate: str, reference: str, *, tone_marks: ToneMarks = "unify") -> float:
    """Sentence-level chrF (sacrebleu defaults: character 6-grams, beta 2), 0 to 100.

    Args:
        candidate: The explanation to score.
        reference: The reference meaning.
        tone_marks: ``unify`` (default) puts old-style tone marks (``hòa``, ``thủy``) in the new
            place on both sides before comparing; ``keep`` compares after NFC only.

    Returns:
        The chrF value.
    """
    return float(
        _CHRF.sentence_score(_normalise(candidate, tone_marks), [_normalise(reference, tone_marks)]).score
    )


def bin_chrf(value: float) -> int:
    """Map a chrF value to the 0-5 judge scale with `CHRF_CUTS`."""
    return bisect.bisect_right(CHRF_CUTS, value)


@metric
def mean_chrf() -> Metric:
    """Mean raw chrF (0-100) over scored samples."""

    def compute(scores: list[SampleScore]) -> Value:
        values = [(s.score.metadata or {}).get(CHRF_KEY) for s in scores]
        kept = [float(v) for v in values if v is not None]
        return float(np.mean(kept)) if kept else float("nan")

    return compute


@scorer(metrics=[*judge_metrics(), mean_chrf()])
def lexical(tone_marks: ToneMarks = "unify") -> Scorer:
    """Score an explanation by its chrF overlap with the reference meaning, binned to 0-5.

    Args:
        tone_marks: ``unify`` (default) compares both sides with tone marks in the new place, so
            ``hòa`` and ``hoà`` count as the same spelling; ``keep`` compares them after NFC only.

    Returns:
        A scorer whose value is the binned score (comparable with the LLM judges) and whose
        metadata keeps the raw ``chrf``, the ``strategy`` (``lexical``) and the ``normalisation``
        used (``nfc+tone_marks`` or ``nfc``).

    Raises:
        ValueError: ``tone_marks`` is neither ``unify`` nor ``keep``.
    """
    normalisation = NORMALISATION.get(tone_marks)
    if normalisation is None:
        raise ValueError(f"tone_marks must be 'unify' or 'keep', got {tone_marks!r}")

    async def score(state: TaskState, target: Target) -> Score:
        candidate = nfc(strip_reasoning(state.output.completion)).strip()
        reference = sample_meaning(target.text, state.metadata)
        raw = chrf(candidate, reference, tone_marks=tone_marks) if candidate else 0.0
        return Score(
            value=bin_chrf(raw),
            answer=candidate,
            explanation=f"chrF {raw:.1f} -> {bin_chrf(raw)} (cut points {', '.join(map(str, CHRF_CUTS))})",
            metadata={
                CHRF_KEY: round(raw, 4),
                "strategy": "lexical",
                "judge_model": "chrF (sacrebleu)",
                "normalisation": normalisation,
            },
        )

    return score
