"""A lexical "judge": chrF between the candidate explanation and the reference meaning.

The paper argues (§2.3, §4.1) that surface-overlap metrics fail on figurative language. Shipping
one lets users test that claim on their own human scores: the ``lexical`` scorer reports chrF raw
(0-100) and binned to the judges' 0-5 scale, so it enters the same agreement report as the LLM
judges. chrF works on characters, which suits Vietnamese, whose words are space-separated syllables.
"""

from __future__ import annotations

import bisect

import numpy as np
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, Value, metric, scorer
from inspect_ai.solver import TaskState
from sacrebleu.metrics import CHRF

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


def chrf(candidate: str, reference: str) -> float:
    """Sentence-level chrF (sacrebleu defaults: character 6-grams, beta 2), 0 to 100, on NFC text."""
    return float(_CHRF.sentence_score(nfc(candidate).strip(), [nfc(reference).strip()]).score)


def bin_chrf(value: float) -> int:
    """Map a chrF value to the 0-5 judge scale with :data:`CHRF_CUTS`."""
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
def lexical() -> Scorer:
    """Score an explanation by its chrF overlap with the reference meaning, binned to 0-5.

    Returns:
        A scorer whose value is the binned score (comparable with the LLM judges) and whose
        metadata keeps the raw ``chrf`` and the ``strategy`` (``lexical``).
    """

    async def score(state: TaskState, target: Target) -> Score:
        candidate = nfc(strip_reasoning(state.output.completion)).strip()
        reference = state.metadata.get("meaning") or target.text
        raw = chrf(candidate, reference) if candidate else 0.0
        return Score(
            value=bin_chrf(raw),
            answer=candidate,
            explanation=f"chrF {raw:.1f} -> {bin_chrf(raw)} (cut points {', '.join(map(str, CHRF_CUTS))})",
            metadata={CHRF_KEY: round(raw, 4), "strategy": "lexical", "judge_model": "chrF (sacrebleu)"},
        )

    return score
