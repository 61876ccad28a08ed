"""An unknown ``vivid/*`` model is a spec problem at its YAML line, with the closest name.

``vivid validate`` said "valid" for ``vivid/literall``, and ``vivid run`` caught it about 10 s
later when it built the model. The known names come from the baselines' own registry.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from vivid_inspect.baselines.answers import BASELINES
from vivid_inspect.baselines.model import GRADERS
from vivid_inspect.lab.cli.main import main
from vivid_inspect.lab.runner.spec.checks import vivid_model_names
from vivid_inspect.lab.runner.spec.load import load_spec
from vivid_inspect.lab.runner.spec.problems import SpecError, format_path


def spec(generator: Any = "vivid/oracle", judge: str = "vivid/chrf") -> dict[str, Any]:
    return {
        "name": "names",
        "data": "sample",
        "log_dir": "logs",
        "runs": [{"tasks": ["explain"], "models": [generator], "limit": 2}],
        "judges": [{"name": "a", "strategy": "aspect", "model": judge}],
    }


def test_the_known_names_are_the_registrys() -> None:
    assert vivid_model_names() == (*BASELINES, *GRADERS)
    assert set(vivid_model_names()) >= {"oracle", "literal", "chrf"}


@pytest.mark.parametrize(
    ("name", "closest"),
    [
        ("vivid/literall", "literal"),
        ("vivid/oracel", "oracle"),
        ("vivid/orcale", "oracle"),
        ("vivid/Oracle", "oracle"),
        ("vivid/LITERAL", "literal"),
        ("vivid/chfr", "chrf"),
        ("vivid/literal/", "literal"),
        ("vivid/oracle-v2", "oracle"),
        ("vivid/gpt-4o", None),
    ],
)
@pytest.mark.parametrize(
    ("where", "make"),
    [
        ("runs[0].models[0]", lambda name: spec(generator=name)),
        ("runs[0].models[0].model", lambda name: spec(generator={"model": name})),
        ("judges[0].model", lambda name: spec(judge=name)),
    ],
    ids=["shorthand", "mapping", "judge"],
)
def test_an_unknown_vivid_model_is_a_problem_with_the_closest_name(
    tmp_path: Path, name: str, closest: str | None, where: str, make: Any
) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(make(name), sort_keys=False), encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    problems = {format_path(p.path): p for p in caught.value.problems}
    where = where if where in problems else f"{where}.model"
    problem = problems[where]
    assert f"unknown vivid model {name!r}" in problem.message
    assert "vivid/oracle, vivid/literal, vivid/chrf" in problem.message
    if closest is None:
        assert "did you mean" not in problem.message
    else:
        assert f"(did you mean vivid/{closest}?)" in problem.message
    assert problem.line is not None


@pytest.mark.parametrize("name", [f"vivid/{model}" for model in (*BASELINES, *GRADERS)])
def test_every_known_vivid_model_passes(tmp_path: Path, name: str) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(spec(generator=name), sort_keys=False), encoding="utf-8")
    assert load_spec(path).spec.runs[0].models[0].model == name


def test_validate_exits_2_at_once_naming_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(spec(generator="vivid/literall"), sort_keys=False), encoding="utf-8")
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if "vivid/literall" in text)
    started = time.monotonic()
    assert main(["validate", str(path)]) == 2
    assert time.monotonic() - started < 5
    err = capsys.readouterr().err
    assert (
        f"{path}:{line}: runs[0].models[0].model: unknown vivid model 'vivid/literall' (did you mean vivid/literal?)"
        in err
    )
