"""Inspect entry point: importing this module registers every VIVID task, scorer and model."""

# ruff: noqa: F401
from vivid_inspect.baselines.provider import vivid
from vivid_inspect.scorers.judge import judge, judge_aspect, judge_cot, judge_demonstration, judge_zero_shot
from vivid_inspect.scorers.lexical import lexical
from vivid_inspect.tasks import explain, topic, traits
