"""A ``vivid/*`` baseline named as a judge is a spec problem at its YAML line (issue 29 section 4).

``vivid/oracle`` and ``vivid/literal`` answer the tasks, not a judge prompt: a spec naming one as
a judge passed ``vivid validate``, and ``vivid run`` then failed every judge cell with
BaselineModelError and advised a rerun that failed identically. Only the graders may judge.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from vivid_inspect.baselines.answers import BASELINES
from vivid_inspect.baselines.model import GRADERS
from vivid_inspect.judge_id import LLM_STRATEGIES
from vivid_inspect.lab.cli.main import main
from vivid_inspect.lab.runner.spec.load import load_spec
from vivid_inspect.lab.runner.spec.problems import SpecError, format_path

GRADER_LIST = ", ".join(f"vivid/{grader}" for grader in GRADERS)


def _write(tmp_path: Path, judge: str, strategy: str) -> Path:
    path = tmp_path / "spec.yaml"
    spec = {
        "name": "baseline-judge",
        "data": "sample",
        "log_dir": str(tmp_path / "logs"),
        "runs": [{"tasks": ["explain"], "models": ["vivid/oracle"], "limit": 2}],
        "judges": [
            {"name": "fine", "strategy": "aspect", "model": f"vivid/{GRADERS[0]}"},
            {"name": "wrong", "strategy": strategy, "model": judge},
        ],
    }
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return path


@pytest.mark.parametrize("strategy", LLM_STRATEGIES)
@pytest.mark.parametrize("baseline", BASELINES)
def test_a_baseline_cannot_judge(tmp_path: Path, baseline: str, strategy: str) -> None:
    path = _write(tmp_path, f"vivid/{baseline}", strategy)
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    [problem] = caught.value.problems
    assert format_path(problem.path) == "judges[1].model"
    assert problem.message == (
        f"vivid/{baseline} cannot judge: it answers the tasks, not a judge prompt; the vivid judges: {GRADER_LIST}"
    )
    lines = path.read_text().splitlines()
    assert problem.line is not None and lines[problem.line - 1].strip() == f"model: vivid/{baseline}"
    assert "wrong" in lines[problem.line - 3]  # the judge's own line, not the generator's


@pytest.mark.parametrize("strategy", LLM_STRATEGIES)
@pytest.mark.parametrize("grader", GRADERS)
def test_a_grader_still_judges(tmp_path: Path, grader: str, strategy: str) -> None:
    assert load_spec(_write(tmp_path, f"vivid/{grader}", strategy)).spec.judges[1].model == f"vivid/{grader}"


@pytest.mark.parametrize("command", ["validate", "plan", "run"])
def test_every_command_refuses_it_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    path = _write(tmp_path, f"vivid/{BASELINES[0]}", "aspect")
    assert main([command, str(path)]) == 2
    err = capsys.readouterr().err
    assert f"judges[1].model: vivid/{BASELINES[0]} cannot judge" in err and GRADER_LIST in err
    assert not (tmp_path / "logs").exists()
