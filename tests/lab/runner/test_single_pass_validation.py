"""Spec validation reports every problem in one pass: type errors and project checks together.

A wrong type in one field of a run block, judge or panel must not hide an unknown task, prompt,
provider, strategy or panel member elsewhere in the same part.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from vivid_inspect.lab.cli.main import main
from vivid_inspect.lab.runner.spec.load import load_spec
from vivid_inspect.lab.runner.spec.problems import SpecError, format_path

MANY_PROBLEMS: dict[str, Any] = {
    "name": "bad spec!",
    "data": "missing.csv",
    "log_dir": 3,
    "colour": "red",
    "runs": [
        {
            "tasks": ["explain", "summarise"],
            "prompts": ["zero_shot", "weird"],
            "models": ["vivid/oracle", "nosuchprovider/x"],
            "limit": "3",
        },
        {"tasks": ["topic"], "models": "vivid/oracle", "task_args": {"shots": 3, "colour": 1}},
    ],
    "judges": [
        {"name": "a", "strategy": "vibes", "model": "openai/gpt-4.1"},
        {"name": "b", "strategy": "lexical", "model": "openai/gpt-4.1"},
        {"name": "a", "strategy": "aspect", "retries": "twice"},
    ],
    "panel": {"name": "p", "members": ["a", "ghost"], "aggregate": "average"},
    "concurrency": {"max_connections": 0},
}
"""Type errors (marked T) and project problems (P), in every section, in one spec."""

EXPECTED = {
    "name": "not a valid name",  # T
    "data": "file not found",  # P
    "log_dir": "valid string",  # T
    "colour": "unknown key",  # T
    "runs[0].tasks[1]": "unknown task 'summarise'",  # P beside a T in the same block
    "runs[0].prompts[1]": "unknown prompt 'weird'",  # P
    "runs[0].models[1].model": "unknown model provider 'nosuchprovider'",  # P
    "runs[0].limit": "valid integer",  # T
    "runs[1].models": "valid list",  # T
    "runs[1].task_args.colour": "has no parameter 'colour'",  # P beside a T in the same block
    "judges[0].strategy": "unknown judge strategy 'vibes'",  # P
    "judges[1].model": "the lexical judge takes no model",  # P
    "judges[2].retries": "valid integer",  # T
    "judges[2].model": "needs a judge model",  # P beside a T in the same judge
    "judges[2].name": "already used by judges[0]",  # P
    "panel.members[1]": "no judge is named 'ghost'",  # P beside a T in the panel
    "panel.aggregate": "'mean', 'median' or 'majority'",  # T
    "concurrency.max_connections": "greater than or equal to 1",  # T
}


def _write(tmp_path: Path, data: dict[str, Any]) -> Path:
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def test_every_problem_of_a_spec_is_reported_in_one_pass(tmp_path: Path) -> None:
    with pytest.raises(SpecError) as caught:
        load_spec(_write(tmp_path, MANY_PROBLEMS))
    found = {format_path(p.path): p.message for p in caught.value.problems}
    assert set(found) == set(EXPECTED), sorted(found)
    for path, fragment in EXPECTED.items():
        assert fragment in found[path], (path, found[path])


def test_validate_prints_them_all_with_lines_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", str(_write(tmp_path, MANY_PROBLEMS))]) == 2
    err = capsys.readouterr().err
    assert f"{len(EXPECTED)} problems" in err
    assert "spec.yaml:24: panel.members[1]" in err or "panel.members[1]" in err
    assert "Traceback" not in err


def _good() -> dict[str, Any]:
    return {
        "name": "case",
        "data": "sample",
        "log_dir": "logs",
        "runs": [{"tasks": ["explain"], "prompts": ["zero_shot"], "models": ["vivid/oracle"]}],
        "judges": [
            {"name": "a", "strategy": "aspect", "model": "vivid/chrf"},
            {"name": "b", "strategy": "lexical"},
        ],
        "panel": {"name": "p", "members": ["a", "b"], "aggregate": "mean"},
    }


def _with(changes: dict[str, Any]) -> dict[str, Any]:
    spec = _good()
    for dotted, value in changes.items():
        target: Any = spec
        *parents, last = dotted.split(".")
        for key in parents:
            target = target[int(key)] if key.isdigit() else target[key]
        target[int(last) if last.isdigit() else last] = value
    return spec


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        pytest.param(
            {"runs.0.epochs": "2", "runs.0.tasks": ["explain", "essay"]},
            {"runs[0].epochs", "runs[0].tasks[1]"},
            id="run-block-type-error-and-unknown-task",
        ),
        pytest.param(
            {"runs.0.tasks": "explain", "runs.0.models": ["vivid/oracle", "nope/x"]},
            {"runs[0].tasks", "runs[0].models[1].model"},
            id="run-block-tasks-not-a-list-and-unknown-provider",
        ),
        pytest.param(
            {"judges.0.strategy": 5, "judges.0.model": "nope/x"},
            {"judges[0].strategy", "judges[0].model"},
            id="judge-strategy-wrong-type-and-unknown-provider",
        ),
        pytest.param(
            {"judges.1.name": "bad name!", "panel.members": ["a", "bad name!", "ghost"]},
            {"judges[1].name", "panel.members[2]"},
            id="badly-named-judge-still-counts-as-a-panel-member",
        ),
        pytest.param(
            {"panel.aggregate": "vote", "panel.members": ["a", "ghost"]},
            {"panel.aggregate", "panel.members[1]"},
            id="panel-bad-aggregate-and-unknown-member",
        ),
        pytest.param(
            {"panel.name": 7, "panel.members": ["a", "a"]},
            {"panel.name", "panel.members[1]"},
            id="panel-bad-name-and-repeated-member",
        ),
    ],
)
def test_a_type_error_does_not_hide_a_project_problem_in_the_same_part(
    tmp_path: Path, changes: dict[str, Any], expected: set[str]
) -> None:
    with pytest.raises(SpecError) as caught:
        load_spec(_write(tmp_path, _with(changes)))
    assert {format_path(p.path) for p in caught.value.problems} == expected
