"""Builds the topic and traits classification tasks (the paper's discriminative evaluation)."""

from __future__ import annotations

from inspect_ai import Task
from inspect_ai.model import GenerateConfig

from vivid_inspect.call_limits import GENERATION
from vivid_inspect.data import VividItem, load_vivid
from vivid_inspect.scorers.classification import topic_match, traits_match
from vivid_inspect.solvers.bounded_generate import bounded_generate
from vivid_inspect.solvers.classify import classify_prompt
from vivid_inspect.solvers.classify_prompts import DEMONSTRATIONS, MAX_SHOTS, ClassifyKind, topic_answer, traits_answer

# Greedy and short: the answer is a code. Reasoning models need more (`--max-tokens 2048`).
# Finite retry limits, which --max-retries / --timeout override (attempt_timeout: bounded_generate).
CLASSIFY_CONFIG = GenerateConfig(temperature=0.0, max_tokens=32).merge(GENERATION.retry_config())
# 2: demonstrations are matched by idiom key; lenient traits need codes 1-5 (README, Changelog).
TASK_VERSION = 2


def classification_task(kind: ClassifyKind, shots: int = 3, data: str | None = None) -> Task:
    """The topic or traits task on the chosen data.

    Args:
        kind: ``topic`` (one theme code 1-7) or ``traits`` (all applicable trait codes).
        shots: Number of fixed demonstrations, 0 to 5 (the paper uses 3).
        data: Data source (``sample``, ``hf``, URL or path); None means ``$VIVID_DATA``, else ``hf``.

    Returns:
        The Inspect task. Its metadata records the data source and the ids left out because their
        idiom is one of the demonstrations shown.
    """
    if kind not in ("topic", "traits"):
        raise ValueError(f"unknown classification task {kind!r}; expected 'topic' or 'traits'")
    # `-T shots=many` arrives as a string; say so rather than fail on the comparison below.
    if isinstance(shots, bool) or not isinstance(shots, int):
        raise ValueError(f"shots must be a whole number from 0 to {MAX_SHOTS}, got {shots!r}")
    if not 0 <= shots <= MAX_SHOTS:
        raise ValueError(f"shots must be between 0 and {MAX_SHOTS}, got {shots}")

    def gold(item: VividItem) -> str:
        return topic_answer(item.theme_id) if kind == "topic" else traits_answer(item.trait_ids)

    shown = [demo.idiom for demo in DEMONSTRATIONS[:shots]]
    loaded = load_vivid(data, exclude_idioms=shown, target=gold)
    return Task(
        dataset=loaded.dataset,
        solver=[classify_prompt(kind, shots), bounded_generate()],
        scorer=topic_match() if kind == "topic" else traits_match(),
        config=CLASSIFY_CONFIG,
        version=TASK_VERSION,
        metadata={"data": loaded.source, "shots": shots, "left_out": len(loaded.left_out), "left_out_ids": loaded.left_out},
    )
