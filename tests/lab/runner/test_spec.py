"""Spec validation: every problem reported with its YAML path, exit code 2, nothing run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from vivid_inspect.lab.cli.main import main
from vivid_inspect.lab.runner.judging.panel import aggregate
from vivid_inspect.lab.runner.prepare.sampling import allocate, stratified_sample
from vivid_inspect.lab.runner.spec.load import load_spec
from vivid_inspect.lab.runner.spec.problems import SpecError, format_path

EXPERIMENTS = Path(__file__).resolve().parents[3] / "experiments"
SHIPPED = sorted(EXPERIMENTS.glob("*.yaml"))


def _good() -> dict[str, Any]:
    """A small valid spec, as data, that each case breaks in one place."""
    return {
        "name": "case",
        "data": "sample",
        "log_dir": "logs",
        "runs": [
            {"tasks": ["explain"], "prompts": ["zero_shot"], "models": ["vivid/oracle"], "limit": 3},
            {"tasks": ["topic", "traits"], "task_args": {"shots": 3}, "models": ["vivid/literal"]},
        ],
        "judges": [
            {"name": "a", "strategy": "aspect", "model": "vivid/chrf"},
            {"name": "b", "strategy": "cot", "model": "vivid/chrf"},
            {"name": "c", "strategy": "zero_shot", "model": "openai/gpt-4.1"},
            {"name": "d", "strategy": "lexical"},
        ],
        "panel": {"name": "p", "members": ["a", "b"], "aggregate": "mean"},
    }


def _write(tmp_path: Path, data: dict[str, Any] | str) -> Path:
    path = tmp_path / "spec.yaml"
    path.write_text(
        data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False), encoding="utf-8"
    )
    return path


def _problems(tmp_path: Path, data: dict[str, Any] | str) -> dict[str, str]:
    with pytest.raises(SpecError) as caught:
        load_spec(_write(tmp_path, data))
    return {format_path(p.path): p.message for p in caught.value.problems}


@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
def test_shipped_specs_are_valid(path: Path) -> None:
    loaded = load_spec(path)
    assert loaded.spec.name == path.stem


def test_experiments_ship_the_five_specs() -> None:
    assert {p.stem for p in SHIPPED} >= {
        "smoke",
        "offline",
        "paper_generative",
        "paper_discriminative",
        "judge_ablation",
        "open_judges",
    }


def test_open_judges_differs_from_judge_ablation_only_in_judges() -> None:
    closed = yaml.safe_load((EXPERIMENTS / "judge_ablation.yaml").read_text(encoding="utf-8"))
    open_ = yaml.safe_load((EXPERIMENTS / "open_judges.yaml").read_text(encoding="utf-8"))
    judge_keys = {"judges", "panel", "name", "description"}
    assert {k: v for k, v in closed.items() if k not in judge_keys} == {
        k: v for k, v in open_.items() if k not in judge_keys
    }
    assert closed["judges"] != open_["judges"]
    assert {j["strategy"] for j in open_["judges"]} >= {"zero_shot", "demonstration", "cot", "aspect"}


def test_the_good_case_is_valid(tmp_path: Path) -> None:
    assert load_spec(_write(tmp_path, _good())).spec.name == "case"


def _set(data: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    target: Any = data
    for part in path[:-1]:
        target = target[part]
    if value is _DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return data


_DELETE = object()

CASES = [
    pytest.param(("colour",), "red", "colour", "unknown key", id="unknown-top-level-key"),
    pytest.param(
        ("judges", 1, "colour"),
        "red",
        "judges[1].colour",
        "unknown key; expected one of: name, strategy",
        id="unknown-judge-key",
    ),
    pytest.param(
        ("judges", 2, "strategy"),
        "vibes",
        "judges[2].strategy",
        "unknown judge strategy 'vibes'; expected one of zero_shot, demonstration, cot, aspect, lexical",
        id="unknown-strategy",
    ),
    pytest.param(
        ("judges", 0, "model"),
        _DELETE,
        "judges[0].model",
        "required key is missing: the aspect strategy needs a judge model",
        id="missing-judge-model",
    ),
    pytest.param(
        ("judges", 3, "model"),
        "vivid/chrf",
        "judges[3].model",
        "the lexical judge takes no model: it calls no model",
        id="lexical-judge-with-model",
    ),
    pytest.param(
        ("judges", 3, "model_args"),
        {"base_url": "http://localhost:8000/v1"},
        "judges[3].model_args",
        "the lexical judge takes no model_args",
        id="lexical-judge-with-model-args",
    ),
    pytest.param(
        ("judges", 3, "generate"),
        {"max_tokens": 5},
        "judges[3].generate",
        "the lexical judge takes no generate",
        id="lexical-judge-with-generate",
    ),
    pytest.param(
        ("judges", 3, "price"),
        {"input": 1.0, "output": 2.0},
        "judges[3].price",
        "the lexical judge takes no price",
        id="lexical-judge-with-price",
    ),
    pytest.param(
        ("judges", 3, "retries"),
        3,
        "judges[3].retries",
        "the lexical judge takes no retries: it reads no model reply",
        id="lexical-judge-with-retries",
    ),
    pytest.param(
        ("judges", 3, "repeats"),
        3,
        "judges[3].repeats",
        "the lexical judge takes no repeats: chrF is deterministic",
        id="lexical-judge-with-repeats",
    ),
    pytest.param(
        ("judges", 0, "repeats"), 0, "judges[0].repeats", "greater than or equal to 1", id="zero-repeats"
    ),
    pytest.param(("judges", 0, "repeats"), "3", "judges[0].repeats", "valid integer", id="string-repeats"),
    pytest.param(
        ("judges", 0, "repeats"), 2.5, "judges[0].repeats", "valid integer", id="fractional-repeats"
    ),
    pytest.param(
        ("judges", 1, "name"), "a", "judges[1].name", "already used by judges[0]", id="duplicate-judge-name"
    ),
    pytest.param(("judges", 0, "retries"), "2", "judges[0].retries", "valid integer", id="string-for-int"),
    pytest.param(
        ("judges", 0, "model_args"),
        {"api_key": "a-key-long-enough-to-be-real"},
        "judges[0].model_args.api_key",
        "environment",
        id="api-key-in-spec",
    ),
    pytest.param(
        ("judges", 0, "model"),
        "nosuch/model",
        "judges[0].model",
        "unknown model provider 'nosuch'",
        id="unknown-judge-provider",
    ),
    pytest.param(
        ("judges", 0, "generate"),
        {"max_tokenz": 5},
        "judges[0].generate.max_tokenz",
        "unknown generation option",
        id="unknown-generate-option",
    ),
    pytest.param(
        ("judges", 0, "generate"),
        {"temperature": "hot"},
        "judges[0].generate.temperature",
        "invalid value",
        id="bad-generate-value",
    ),
    pytest.param(
        ("runs", 0, "tasks"),
        ["explain", "topiq"],
        "runs[0].tasks[1]",
        "unknown task 'topiq'",
        id="unknown-task",
    ),
    pytest.param(
        ("runs", 0, "models"),
        ["gpt-4o"],
        "runs[0].models[0].model",
        "should be provider/model",
        id="model-without-provider",
    ),
    pytest.param(
        ("runs", 0, "models"),
        [{"model": "vivid/oracle", "colour": 1}],
        "runs[0].models[0].colour",
        "unknown key",
        id="unknown-model-key",
    ),
    pytest.param(
        ("runs", 0, "prompts"),
        ["three_shot"],
        "runs[0].prompts[0]",
        "unknown prompt 'three_shot'",
        id="unknown-prompt",
    ),
    pytest.param(
        ("runs", 1, "prompts"),
        ["zero_shot"],
        "runs[1].prompts",
        "has no prompt parameter",
        id="prompt-for-classification",
    ),
    pytest.param(
        ("runs", 1, "task_args"),
        {"shots": 3, "temperature": 1},
        "runs[1].task_args.temperature",
        "has no parameter 'temperature'",
        id="task-arg-not-accepted",
    ),
    pytest.param(
        ("runs", 1, "task_args"),
        {"shots": "3"},
        "runs[1].task_args.shots",
        "shots must be a whole number from 0 to 5, got '3'",
        id="task-arg-wrong-type",
    ),
    pytest.param(
        ("runs", 0, "task_args"),
        {"judge": "cot"},
        "runs[0].task_args.judge",
        "set by the runner",
        id="task-arg-set-by-runner",
    ),
    pytest.param(
        ("runs", 0, "sample"), {"n": 5}, "runs[0].sample", "choose the items one way", id="two-selections"
    ),
    pytest.param(("runs", 0, "limit"), 0, "runs[0].limit", "greater than or equal to 1", id="zero-limit"),
    pytest.param(
        ("panel", "members"),
        ["a", "z"],
        "panel.members[1]",
        "no judge is named 'z'",
        id="unknown-panel-member",
    ),
    pytest.param(
        ("panel", "aggregate"),
        "mode",
        "panel.aggregate",
        "'mean', 'median' or 'majority'",
        id="unknown-aggregate",
    ),
    pytest.param(("human",), "missing.csv", "human", "file not found", id="missing-human-file"),
    pytest.param(("data",), "missing.csv", "data", "file not found", id="missing-data-file"),
    pytest.param(("batch",), "maybe", "batch", "expected true, false or a batch size", id="bad-batch"),
    pytest.param(("name",), "two words", "name", "not a valid name", id="bad-name"),
]


@pytest.mark.parametrize(("path", "value", "where", "message"), CASES)
def test_a_bad_value_is_reported_at_its_yaml_path(
    tmp_path: Path, path: tuple[Any, ...], value: Any, where: str, message: str
) -> None:
    problems = _problems(tmp_path, _set(_good(), path, value))
    assert where in problems, problems
    assert message in problems[where]


def test_a_lexical_judge_gets_one_problem_per_key_and_nothing_else(tmp_path: Path) -> None:
    data = _good()
    data["judges"][3] |= {
        "model": "vivid/chrf",
        "retries": 0,
        "model_args": {"base_url": "http://localhost:8000/v1"},
    }
    problems = _problems(tmp_path, data)
    assert sorted(problems) == ["judges[3].model", "judges[3].model_args", "judges[3].retries"], problems


@pytest.mark.parametrize(
    "change",
    [
        pytest.param({"retries": 1}, id="default-retries-written-out"),
        pytest.param({"model": None}, id="null-model"),
    ],
)
def test_a_lexical_judge_may_spell_out_defaults(tmp_path: Path, change: dict[str, Any]) -> None:
    data = _good()
    data["judges"][3] |= change
    assert load_spec(_write(tmp_path, data)).spec.judges[3].strategy == "lexical"


def test_a_panel_may_include_the_lexical_judge(tmp_path: Path) -> None:
    data = _set(_good(), ("panel", "members"), ["a", "d"])
    assert load_spec(_write(tmp_path, data)).spec.panel.members == ["a", "d"]


def test_a_cell_in_two_run_blocks_is_refused(tmp_path: Path) -> None:
    data = _good()
    data["runs"].append({"tasks": ["explain"], "prompts": ["zero_shot"], "models": ["vivid/oracle"]})
    assert "already generated by runs[0]" in _problems(tmp_path, data)["runs[2]"]


def test_a_human_scores_file_is_checked_before_anything_runs(tmp_path: Path) -> None:
    (tmp_path / "humans.csv").write_text("id,score\n1,9\n", encoding="utf-8")
    problem = _problems(tmp_path, _good() | {"human": "humans.csv"})["human"]
    assert "data row 1 (line 2), column 'score'" in problem


def test_run_refuses_data_it_cannot_use_with_exit_code_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header = "Idiom_Proverb,Meaning," + ",".join(f"Linguistic_Complexity_Taxonomy_{n}" for n in range(1, 6))
    (tmp_path / "items.csv").write_text(
        f"{header},Semantic_Theme\nNước đổ đầu vịt,Nói mãi,0,0,0,0,1,9\n", encoding="utf-8"
    )
    spec = _write(tmp_path, _good() | {"data": "items.csv"})
    assert main(["run", str(spec), "--display", "none"]) == 2
    assert "Semantic_Theme" in capsys.readouterr().err
    assert not (tmp_path / "logs").exists()


def test_judges_without_explanations_are_refused(tmp_path: Path) -> None:
    data = _good()
    del data["runs"][0]
    assert "no judge would run" in _problems(tmp_path, data)["judges"]


def test_every_problem_is_reported_at_once_with_its_line(tmp_path: Path) -> None:
    text = """\
name: case
log_dir: logs
runs:
  - tasks: [explain, topiq]
    models: [vivid/oracle]
judges:
  - {name: a, strategy: vibes, model: vivid/chrf}
  - {name: b, strategy: aspect, model: vivid/chrf, colour: red}
extra: 1
"""
    with pytest.raises(SpecError) as caught:
        load_spec(_write(tmp_path, text))
    found = {(format_path(p.path), p.line) for p in caught.value.problems}
    assert found == {
        ("runs[0].tasks[1]", 4),
        ("judges[0].strategy", 7),
        ("judges[1].colour", 8),
        ("extra", 9),
    }
    assert str(caught.value).count("\n") == 4  # a header line and one line per problem


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        pytest.param(
            "name: a\nname: b\nlog_dir: l\nruns: []\n",
            "name",
            "duplicate key (first given on line 1)",
            id="duplicate-key",
        ),
        pytest.param("name: [unclosed\n", "(spec)", "not valid YAML", id="invalid-yaml"),
        pytest.param("- just\n- a list\n", "(spec)", "a spec is a YAML mapping", id="not-a-mapping"),
    ],
)
def test_yaml_level_problems(tmp_path: Path, text: str, where: str, message: str) -> None:
    assert message in _problems(tmp_path, text)[where]


@pytest.mark.parametrize("key", ["tokenizer", "max_num_batched_tokens", "tensor_parallel_size", "base_url"])
def test_ordinary_model_args_are_not_taken_for_keys(tmp_path: Path, key: str) -> None:
    data = _good()
    data["judges"][2]["model_args"] = {key: "x"}
    load_spec(_write(tmp_path, data))


@pytest.mark.parametrize("command", ["validate", "plan", "run"])
def test_cli_refuses_a_bad_spec_with_exit_code_2_and_runs_nothing(
    tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _set(_good(), ("judges", 2, "strategy"), "vibes")
    data["runs"][0]["tasks"] = ["explain", "topiq"]
    spec = _write(tmp_path, data)
    assert main([command, str(spec)]) == 2
    err = capsys.readouterr().err
    assert "judges[2].strategy: unknown judge strategy 'vibes'" in err
    assert "runs[0].tasks[1]: unknown task 'topiq'" in err
    assert not (tmp_path / "logs").exists()


def test_cli_validate_accepts_a_good_spec(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(_write(tmp_path, _good()))]) == 0
    assert "valid" in capsys.readouterr().out


def test_plan_of_the_judge_ablation_counts_its_calls(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["plan", str(EXPERIMENTS / "judge_ablation.yaml"), "--log-dir", str(tmp_path / "logs")]) == 0
    out = capsys.readouterr().out
    rows = {
        line.split()[0]: line.split()
        for line in out.splitlines()
        if line.strip().startswith(("openai/", "total"))
    }
    assert rows["openai/gpt-4o"][1:3] == ["generation", "200"]
    assert rows["openai/gpt-4.1"][1:4] == ["judge", "800", "1,600"]  # 4 strategies x 200; with one retry each
    assert rows["total"][1] == "1,000"
    assert "$" in rows["total"][-1]


# --- stratified samples -------------------------------------------------------------------------


PAPER_THEMES = {
    "Criticism": 471,
    "Life Lessons": 399,
    "Work and Nature": 272,
    "Other": 172,
    "Society": 155,
    "Love": 115,
    "Virtues": 51,
}


@pytest.mark.parametrize(
    ("sizes", "n", "expected"),
    [
        pytest.param(
            PAPER_THEMES,
            200,
            {
                "Criticism": 58,
                "Life Lessons": 49,
                "Work and Nature": 33,
                "Other": 21,
                "Society": 19,
                "Love": 14,
                "Virtues": 6,
            },
            id="paper-200",
        ),
        pytest.param(PAPER_THEMES, 7, dict.fromkeys(PAPER_THEMES, 1), id="one-per-theme-at-7"),
        pytest.param({"a": 100, "b": 1, "c": 1}, 3, {"a": 1, "b": 1, "c": 1}, id="tiny-themes-kept"),
        pytest.param({"a": 100, "b": 1, "c": 1}, 2, {"a": 2, "b": 0, "c": 0}, id="fewer-than-themes"),
    ],
)
def test_allocation_is_proportional_with_one_per_theme(
    sizes: dict[str, int], n: int, expected: dict[str, int]
) -> None:
    assert allocate(sizes, n) == expected


def test_stratified_sample_is_deterministic_and_seeded() -> None:
    items = [(i, f"theme{i % 7}") for i in range(1, 101)]
    first = stratified_sample(items, 20, seed=0)
    assert first == stratified_sample(items, 20, seed=0)
    assert first != stratified_sample(items, 20, seed=1)
    assert len(first) == len(set(first)) == 20
    assert {i % 7 for i in first} == set(range(7))
    assert stratified_sample(items, 500, seed=0) == list(range(1, 101))


# --- panel aggregates ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "how", "expected"),
    [
        pytest.param([3, 4, 5], "mean", 4.0, id="mean"),
        pytest.param([2, 5], "median", 3.5, id="median-even"),
        pytest.param([1, 4, 5], "median", 4.0, id="median-odd"),
        pytest.param([4, 4, 1], "majority", 4.0, id="majority"),
        pytest.param([5, 2], "majority", 2.0, id="majority-tie-goes-low"),
        pytest.param([], "mean", None, id="no-member-scored"),
    ],
)
def test_panel_aggregate(values: list[float], how: Any, expected: float | None) -> None:
    assert aggregate(values, how) == expected
