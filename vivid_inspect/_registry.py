"""Inspect entry point: importing this module registers every VIVID task, scorer and model."""

# ruff: noqa: F401
from vivid_inspect.baselines.provider import vivid
from vivid_inspect.scorers.judge import (
    judge,
    judge_aspect,
    judge_aspect_en,
    judge_cot,
    judge_cot_en,
    judge_demonstration,
    judge_demonstration_en,
    judge_zero_shot,
    judge_zero_shot_en,
)
from vivid_inspect.scorers.lexical import lexical
from vivid_inspect.tasks import explain, topic, traits
