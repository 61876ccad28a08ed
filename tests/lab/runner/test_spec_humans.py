"""A spec's ``human:`` as a list: one human scores file per generation the humans scored."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from vivid_inspect.lab.runner.spec.load import load_spec
from vivid_inspect.lab.runner.spec.problems import SpecError, format_path


def _spec(human: Any) -> dict[str, Any]:
    return {
        "name": "humans",
        "data": "sample",
        "log_dir": "logs",
        "runs": [
            {
                "tasks": ["explain"],
                "prompts": ["zero_shot", "few_shot"],
                "models": ["vivid/oracle", "vivid/literal"],
            }
        ],
        "judges": [{"name": "a", "strategy": "aspect", "model": "vivid/chrf"}],
        "human": human,
    }


def _write(tmp_path: Path, data: dict[str, Any]) -> Path:
    for name in ("lan.csv", "minh.csv"):
        (tmp_path / name).write_text("id,score,annotator\n1,4,lan\n2,5,lan\n", encoding="utf-8")
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def _problems(tmp_path: Path, data: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(SpecError) as caught:
        load_spec(_write(tmp_path, data))
    return {format_path(p.path): p.message for p in caught.value.problems}


def test_a_list_of_human_files_each_with_its_generation(tmp_path: Path) -> None:
    human = [
        {"file": "lan.csv", "generation": "vivid/oracle zero_shot"},
        {"file": "minh.csv", "generation": "vivid/literal few_shot"},
    ]
    loaded = load_spec(_write(tmp_path, _spec(human)))
    assert loaded.humans == (
        ((tmp_path / "lan.csv").resolve(), "vivid/oracle zero_shot"),
        ((tmp_path / "minh.csv").resolve(), "vivid/literal few_shot"),
    )
    assert (loaded.human, loaded.human_generation) == loaded.humans[0]


def test_one_entry_is_still_one_file(tmp_path: Path) -> None:
    loaded = load_spec(_write(tmp_path, _spec({"file": "lan.csv", "generation": "vivid/oracle zero_shot"})))
    assert loaded.humans == (((tmp_path / "lan.csv").resolve(), "vivid/oracle zero_shot"),)
    assert load_spec(_write(tmp_path, _spec(None) | {"human": None})).humans == ()


def test_each_entry_is_checked_at_its_own_path(tmp_path: Path) -> None:
    human = [
        {"file": "lan.csv", "generation": "vivid/oracle zero_shot"},
        "missing.csv",
        {"file": "minh.csv", "generation": "gpt-4o zero_shot"},
        {"file": "lan.csv", "generation": "vivid/literal zero_shot"},
    ]
    problems = _problems(tmp_path, _spec(human))
    assert "file not found" in problems["human[1]"]
    assert "names none of the spec's explanation generations" in problems["human[2].generation"]
    assert "listed twice" in problems["human[3]"]
    assert not any(path == "human[0]" or path.startswith("human[0].") for path in problems)


def test_an_entry_without_generation_is_ambiguous_when_the_spec_makes_several(tmp_path: Path) -> None:
    problems = _problems(tmp_path, _spec(["lan.csv"]))
    assert "ambiguous" in problems["human[0]"] and "names no generation" in problems["human[0]"]


def test_a_badly_typed_entry_is_named(tmp_path: Path) -> None:
    problems = _problems(
        tmp_path, _spec([{"file": "lan.csv", "generation": "vivid/oracle zero_shot"}, {"files": "x"}])
    )
    assert any(path.startswith("human") for path in problems)


def test_the_runner_reports_with_every_file_and_its_generation(tmp_path: Path, monkeypatch) -> None:
    """`vivid run` builds its report with each listed file bound by its own selector."""
    from vivid_inspect.lab.runner import execute

    human = [
        {"file": "lan.csv", "generation": "vivid/oracle zero_shot"},
        {"file": "minh.csv", "generation": "vivid/literal few_shot"},
    ]
    loaded = load_spec(_write(tmp_path, _spec(human)))
    seen: dict[str, Any] = {}
    monkeypatch.setattr(execute, "write_report", lambda *args, **options: seen.update(options))
    execute._report(loaded, progress=None)  # type: ignore[arg-type]
    assert seen["human"] == [(tmp_path / "lan.csv").resolve(), (tmp_path / "minh.csv").resolve()]
    assert seen["human_generation"] == ["vivid/oracle zero_shot", "vivid/literal few_shot"]
