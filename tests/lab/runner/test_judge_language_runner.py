"""A judge asked in English (``judges[].language: en``) in a spec: validated, its own cells, logs and rows.

A judge that differs from another only in the language of its instructions is another judge: its
configuration hash, judged folder, column and report rows are its own, and adding it to a spec
judged in Vietnamese leaves the Vietnamese judgements as they are.
"""

from __future__ import annotations

import typing
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml
from inspect_ai.log import EvalLog, read_eval_log

from vivid_inspect.lab.report.build import write_report
from vivid_inspect.lab.report.tables.judges import choose_judge, judge_keys, language_of
from vivid_inspect.lab.runner.cells import config_hash, expand
from vivid_inspect.lab.runner.execute import run_spec
from vivid_inspect.lab.runner.plan import make_plan
from vivid_inspect.lab.runner.spec.load import load_spec
from vivid_inspect.lab.runner.spec.model import JudgeLanguage
from vivid_inspect.lab.runner.spec.problems import SpecError, format_path
from vivid_inspect.log_contract import JUDGE_LANGUAGES, read_judged_record
from vivid_inspect.scorers.judge import judge_prompt_of

EXPERIMENTS = Path(__file__).resolve().parents[3] / "experiments"
HUMANS = EXPERIMENTS / "humans" / "smoke.csv"


def _spec(judges: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "name": "languages",
        "data": "sample",
        "log_dir": "logs",
        "runs": [
            {
                "tasks": ["explain"],
                "prompts": ["zero_shot"],
                "models": ["vivid/oracle"],
                "sample": {"n": 10, "by": "theme", "seed": 0},  # the smoke spec's items, which HUMANS scored
            }
        ],
        "judges": judges,
    }


VI = {"name": "chrf_aspect", "strategy": "aspect", "model": "vivid/chrf"}
EN = {"name": "chrf_aspect_en", "strategy": "aspect", "model": "vivid/chrf", "language": "en"}


def _write(path: Path, data: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def _problems(tmp_path: Path, judges: list[dict[str, Any]]) -> dict[str, str]:
    with pytest.raises(SpecError) as caught:
        load_spec(_write(tmp_path / "spec.yaml", _spec(judges)))
    return {format_path(p.path): p.message for p in caught.value.problems}


def test_the_spec_language_values_are_the_judge_languages() -> None:
    assert typing.get_args(JudgeLanguage) == JUDGE_LANGUAGES


def test_a_spec_may_ask_a_judge_in_english(tmp_path: Path) -> None:
    loaded = load_spec(
        _write(tmp_path / "spec.yaml", _spec([VI, EN, VI | {"name": "spelled", "language": "vi"}]))
    )
    assert [j.language for j in loaded.spec.judges] == ["vi", "en", "vi"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        pytest.param({"language": "fr"}, "Input should be 'vi' or 'en'", id="unknown-language"),
        pytest.param({"language": "EN"}, "Input should be 'vi' or 'en'", id="wrong-case"),
        pytest.param({"language": ""}, "Input should be 'vi' or 'en'", id="empty"),
        pytest.param({"language": 1}, "Input should be 'vi' or 'en'", id="not-text"),
        pytest.param(
            {"strategy": "lexical", "model": None, "language": "en"},
            "the lexical judge takes no language",
            id="lexical-in-english",
        ),
    ],
)
def test_a_bad_language_is_a_problem_at_its_yaml_path(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    problems = _problems(tmp_path, [VI, EN | change])
    assert list(problems) == ["judges[1].language"], problems
    assert message in problems["judges[1].language"]


def test_the_lexical_judge_may_spell_out_the_default_language(tmp_path: Path) -> None:
    lexical = {"name": "lexical", "strategy": "lexical", "language": "vi"}
    assert load_spec(_write(tmp_path / "spec.yaml", _spec([VI, lexical]))).spec.judges[1].language == "vi"


def test_language_and_repeat_are_part_of_the_judge_identity(tmp_path: Path) -> None:
    repeated = [VI | {"repeats": 2}, EN | {"repeats": 2}]
    cells = expand(load_spec(_write(tmp_path / "spec.yaml", _spec(repeated))))
    configs = {(cell.judge.name, cell.repeat): cell.config for cell in cells.judges}
    assert len({config_hash(config) for config in configs.values()}) == 4
    assert configs[("chrf_aspect_en", 0)]["language"] == "en"
    assert {configs[("chrf_aspect", r)]["repeat"] for r in (0, 1)} == {0, 1}
    # Vietnamese, the paper's language, adds no key: judged logs made before English existed
    # keep their hash and are not redone.
    assert "language" not in configs[("chrf_aspect", 0)]
    once = expand(load_spec(_write(tmp_path / "once.yaml", _spec([VI]))))
    assert config_hash(once.judges[0].config) == config_hash(configs[("chrf_aspect", 0)])


def _judged(log_dir: Path, name: str) -> list[EvalLog]:
    return [read_eval_log(str(p)) for p in sorted((log_dir / "judged" / name).glob("*.eval"))]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Any]]:
    """Judged in Vietnamese, then the same spec with the English judge added; offline (vivid/chrf)."""
    root = tmp_path_factory.mktemp("languages")
    log_dir = root / "logs"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("INSPECT_CACHE_DIR", str(root / "cache"))
        first = run_spec(
            load_spec(_write(root / "vi.yaml", _spec([VI])), log_dir=log_dir),
            display="none",
            quiet=True,
            report=False,
        )
        both = load_spec(_write(root / "both.yaml", _spec([VI, EN])), log_dir=log_dir)
        plan = make_plan(both)
        second = run_spec(both, display="none", quiet=True, report=False)
    return log_dir, [first, plan, second]


@pytest.mark.slow
def test_adding_an_english_judge_runs_only_it(runs: tuple[Path, list[Any]]) -> None:
    _, (first, plan, second) = runs
    assert first.ok and second.ok
    assert [c.label.split(" ")[0] for c in plan.cells if c.role == "judge" and not c.done] == [
        "chrf_aspect_en"
    ]
    assert {(j.name, j.status) for j in second.judged} == {
        ("chrf_aspect", "done"),
        ("chrf_aspect_en", "scored"),
    }


@pytest.mark.slow
def test_each_language_has_its_own_judged_log_column_and_record(runs: tuple[Path, list[Any]]) -> None:
    log_dir, _ = runs
    for name, column, language, phrase in (
        ("chrf_aspect", "judge_aspect", "vi", "không phải chỉ dẫn"),
        ("chrf_aspect_en", "judge_aspect_en", "en", "not instructions for you"),
    ):
        [log] = _judged(log_dir, name)
        assert log.results is not None and [s.name for s in log.results.scores] == [column]
        record = read_judged_record(log.eval.metadata)
        assert record is not None and (record.strategy, record.language) == ("aspect", language)
        assert f"language:{language}" in (log.eval.tags or [])
        assert log.samples
        for sample in log.samples:
            assert (
                sample.scores is not None and (sample.scores[column].metadata or {})["language"] == language
            )
            assert phrase in (judge_prompt_of(sample, column) or "")


@pytest.mark.slow
def test_table1_shows_both_languages_against_the_humans(runs: tuple[Path, list[Any]], tmp_path: Path) -> None:
    log_dir, _ = runs
    report = write_report(log_dir, out_dir=tmp_path / "report", human=HUMANS, formats=("csv",), figures=False)
    table1 = report.table("table1_judges").frame
    rows = table1[table1["judge"].isin(["chrf_aspect", "chrf_aspect_en"])].set_index("judge")
    assert sorted(rows.index) == ["chrf_aspect", "chrf_aspect_en"]
    assert set(rows["strategy"]) == {"aspect"}
    assert (rows["n"] == 10).all() and rows["exact"].notna().all() and rows["judge_mean"].notna().all()
    # vivid/chrf reads only the data blocks, which the two languages share: the same scores.
    assert rows.loc["chrf_aspect", "judge_mean"] == rows.loc["chrf_aspect_en", "judge_mean"]
    # The paper's judge (Vietnamese instructions) fills Tables 3 and 4 when both are there.
    assert "Tables 3 and 4 use judge chrf_aspect [vivid/chrf]" in report.markdown


def _rows(*judges: tuple[str, str]) -> pd.DataFrame:
    """Judge rows of one generation: (judge name, column) per judge, two items each."""
    return pd.DataFrame(
        [
            {"judge": name, "judge_model": "m/judge", "strategy": "aspect", "scorer": column}
            | {"model": "m/gen", "prompt": "zero_shot", "id": item, "epoch": 1, "value": 3.0, "error": False}
            | {
                "refused": False,
                "status": "success",
                "created": "2026-01-01",
                "log": "g.eval",
                "generation": "g.eval",
            }
            for name, column in judges
            for item in (1, 2)
        ]
    )


@pytest.mark.parametrize(
    "judges",
    [
        pytest.param([("a_english", "judge_aspect_en"), ("b_vietnamese", "judge_aspect")], id="runner-names"),
        pytest.param(
            [("judge_aspect_en", "judge_aspect_en"), ("judge_aspect", "judge_aspect")], id="columns"
        ),
    ],
)
def test_tables_3_and_4_default_to_the_vietnamese_judge(judges: list[tuple[str, str]]) -> None:
    key, why = choose_judge(_rows(*judges))
    assert key is not None and key.name == judges[1][0], why
    assert "instruction language" in why


@pytest.mark.parametrize(
    ("requested", "expected"),
    [
        pytest.param("aspect_en", "judge_aspect_en", id="option-name"),
        pytest.param("judge_aspect_en", "judge_aspect_en", id="column"),
        pytest.param("aspect", "judge_aspect", id="strategy-prefers-vietnamese"),
    ],
)
def test_a_judge_may_be_chosen_by_its_language(requested: str, expected: str) -> None:
    rows = _rows(("judge_aspect_en", "judge_aspect_en"), ("judge_aspect", "judge_aspect"))
    key, _ = choose_judge(rows, requested)
    assert key is not None and key.name == expected
    assert {k.name: language_of(rows, k) for k in judge_keys(rows)} == {
        "judge_aspect": "vi",
        "judge_aspect_en": "en",
    }
