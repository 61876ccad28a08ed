"""The declarative experiment runner behind ``vivid run | plan | validate SPEC.yaml``.

A spec (:mod:`~vivid_inspect.runner.spec`) names run blocks (tasks × prompts × models on chosen
items), judges, an optional panel and a human scores file. :func:`load_spec` validates it and
reports every problem with its YAML path; :func:`make_plan` lists its cells and the calls still
to make; :func:`run_spec` generates with ``inspect_ai.eval_set``, judges the explanation logs
with ``inspect_ai.score``, aggregates the panel and builds the report, skipping finished work.
"""

from vivid_inspect.runner.execute import RunResult, run_spec
from vivid_inspect.runner.load import LoadedSpec, load_spec
from vivid_inspect.runner.plan import Plan, make_plan
from vivid_inspect.runner.plan_text import render_plan
from vivid_inspect.runner.problems import Problem, SpecError

__all__ = [
    "LoadedSpec",
    "Plan",
    "Problem",
    "RunResult",
    "SpecError",
    "load_spec",
    "make_plan",
    "render_plan",
    "run_spec",
]
