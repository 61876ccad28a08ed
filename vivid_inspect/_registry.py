"""Inspect entry point: importing this module registers every VIVID task, scorer and model."""

# ruff: noqa: F401
# The judge scorers (vivid_inspect/judge_<strategy>[_<language>]) and the `judge` alias register
# when their module is imported: one loop over the judges (scorers.judge.JUDGE_SCORERS).
import vivid_inspect.scorers.judge
from vivid_inspect.baselines.provider import vivid
from vivid_inspect.scorers.lexical import lexical
from vivid_inspect.tasks import explain, topic, traits
