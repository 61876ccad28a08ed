"""The declarative experiment runner behind ``vivid run | plan | validate SPEC.yaml``.

A spec (`spec`) names run blocks (tasks × prompts × models on chosen
items), judges, an optional panel and a human scores file. `load_spec` validates it and
reports every problem with its YAML path; `make_plan` lists its cells and the calls still
to make; `run_spec` generates with ``inspect_ai.eval_set``, judges the explanation logs
with ``inspect_ai.score``, aggregates the panel and builds the report, skipping finished work.

The names below are imported on first use, not with the package: importing a light submodule
(``runner.spec.problems``, ``runner.spec.model``) must not pull in Inspect, pandas and matplotlib, or
``vivid --help`` would take seconds.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vivid_inspect.lab.runner.execute import RunResult, run_spec
    from vivid_inspect.lab.runner.plan import Plan, make_plan
    from vivid_inspect.lab.runner.plan_text import render_plan
    from vivid_inspect.lab.runner.spec.load import LoadedSpec, load_spec
    from vivid_inspect.lab.runner.spec.problems import Problem, SpecError

_HOMES = {
    "LoadedSpec": "spec.load",
    "Plan": "plan",
    "Problem": "spec.problems",
    "RunResult": "execute",
    "SpecError": "spec.problems",
    "load_spec": "spec.load",
    "make_plan": "plan",
    "render_plan": "plan_text",
    "run_spec": "execute",
}

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


def __getattr__(name: str) -> Any:
    """Import a public name from its submodule when it is first asked for."""
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_HOMES[name]}"), name)
