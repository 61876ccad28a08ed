"""Every ``-T`` parameter of every VIVID task is documented where Inspect reads it: the ``@task`` docstring."""

from __future__ import annotations

import inspect
from collections.abc import Callable

import docstring_parser
import pytest
from inspect_ai import Task

from vivid_inspect.tasks import explain, topic, traits

TASKS: dict[str, Callable[..., Task]] = {"explain": explain, "topic": topic, "traits": traits}


@pytest.mark.parametrize("name", list(TASKS))
def test_each_task_parameter_has_its_description(name: str) -> None:
    function = inspect.unwrap(TASKS[name])
    parsed = docstring_parser.parse(function.__doc__ or "")
    documented = {param.arg_name: (param.description or "").strip() for param in parsed.params}
    parameters = list(inspect.signature(function).parameters)

    assert parameters, name
    assert {p: documented.get(p, "") for p in parameters if not documented.get(p)} == {}
    assert set(documented) == set(parameters), "a documented name that is no parameter"
