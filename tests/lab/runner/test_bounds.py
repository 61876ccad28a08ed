"""Every count in a spec and in the tasks' and scorers' options has an upper bound, checked first.

``repeats: 10**100`` made ``vivid validate`` and ``vivid plan`` run for ever, ``epochs: 10**100``
passed them and then grew ``vivid run`` by 200 MB/s; ``retries`` had no bound at all. Here each
count is tried one past its bound and at a huge value (refused at its YAML path, fast, nothing
written) and at its bound (accepted), and the ``-T``/``-S`` options end ``inspect eval`` and
``inspect score`` with one clear line.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
import yaml

from vivid_inspect import bounds
from vivid_inspect.data.leakage import THRESHOLD_RANGE
from vivid_inspect.lab.cli.main import main
from vivid_inspect.lab.runner.spec.load import load_spec
from vivid_inspect.lab.runner.spec.problems import SpecError, format_path
from vivid_inspect.solvers.classify_prompts import MAX_SHOTS


def good() -> dict[str, Any]:
    return {
        "name": "bounds",
        "data": "sample",
        "log_dir": "logs",
        "runs": [
            {"tasks": ["explain"], "models": ["vivid/oracle"], "limit": 3},
            {"tasks": ["topic"], "models": ["vivid/literal"], "task_args": {"shots": 3}},
        ],
        "judges": [
            {"name": "a", "strategy": "aspect", "model": "vivid/chrf"},
            {"name": "lex", "strategy": "lexical"},
        ],
        "audits": [{"judge": "a", "probes": ["wrong"]}],
    }


def _put(data: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    bases: dict[tuple[Any, ...], Any] = {
        ("runs", 0, "sample"): {"n": 5},
        ("runs", 0, "sample_ids"): [1, 2],
        ("judges", 0, "price"): {"input": 1.0, "output": 1.0},
    }
    for base, default in bases.items():
        if path[: len(base)] == base and len(path) > len(base):
            data["runs" if base[0] == "runs" else "judges"][0].setdefault(base[2], default)
    if path[:3] in (("runs", 0, "sample"), ("runs", 0, "sample_ids")):
        del data["runs"][0]["limit"]  # one way of choosing items
    target: Any = data
    for part in path[:-1]:
        if isinstance(target, dict) and part not in target:
            target[part] = {}
        target = target[part]
    target[path[-1]] = value
    return data


# (YAML path, its upper bound)
COUNTS: list[tuple[tuple[Any, ...], int | float]] = [
    (("runs", 0, "limit"), bounds.MAX_ITEMS),
    (("runs", 0, "epochs"), bounds.MAX_EPOCHS),
    (("runs", 0, "sample", "n"), bounds.MAX_ITEMS),
    (("runs", 0, "sample", "seed"), bounds.MAX_SEED),
    (("runs", 0, "sample_ids", 0), bounds.MAX_ITEM_ID),
    (("runs", 0, "generate", "max_tokens"), bounds.MAX_OUTPUT_TOKENS),
    (("runs", 0, "generate", "num_choices"), 100),
    (("runs", 0, "generate", "max_connections"), bounds.MAX_CONNECTIONS),
    (("runs", 0, "generate", "max_retries"), bounds.MAX_CALL_RETRIES),
    (("runs", 0, "generate", "seed"), 2**63 - 1),
    (("runs", 1, "task_args", "shots"), MAX_SHOTS),
    (("judges", 0, "retries"), bounds.MAX_JUDGE_RETRIES),
    (("judges", 0, "repeats"), bounds.MAX_REPEATS),
    (("judges", 0, "generate", "max_tokens"), bounds.MAX_OUTPUT_TOKENS),
    (("judges", 0, "generate", "timeout"), bounds.MAX_TIMEOUT),
    (("judges", 0, "price", "input"), bounds.MAX_PRICE),
    (("concurrency", "max_connections"), bounds.MAX_CONNECTIONS),
    (("concurrency", "max_tasks"), bounds.MAX_TASKS),
    (("concurrency", "max_samples"), bounds.MAX_SAMPLES),
    (("concurrency", "judge_cells"), bounds.MAX_JUDGE_CELLS),
    (("retries", "attempts"), bounds.MAX_RUN_ATTEMPTS),
    (("retries", "on_error"), bounds.MAX_RUN_ATTEMPTS),
    (("retries", "wait"), bounds.MAX_RETRY_WAIT),
    (("retries", "max_retries"), bounds.MAX_CALL_RETRIES),
    (("retries", "timeout"), bounds.MAX_TIMEOUT),
    (("retries", "attempt_timeout"), bounds.MAX_TIMEOUT),
    (("batch",), bounds.MAX_BATCH),
    (("audits", 0, "limit"), bounds.MAX_ITEMS),
    (("audits", 0, "seed"), bounds.MAX_SEED),
]


def _value(bound: int | float, over: Any) -> Any:
    if over == "next":
        return bound + 1 if isinstance(bound, int) else bound * 2
    # a float past 1e308 is infinite, refused as such (test_a_number_that_is_not_finite_is_refused)
    return over if isinstance(bound, int) else float(min(over, 10**300))


def _problems(tmp_path: Path, data: dict[str, Any]) -> dict[str, str]:
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        load_spec(spec)
    return {format_path(p.path): p.message for p in caught.value.problems}


@pytest.mark.parametrize("over", ["next", 10**100, 10**4000], ids=["one-past", "googol", "4000-digits"])
@pytest.mark.parametrize(("path", "bound"), COUNTS, ids=[format_path(p) for p, _ in COUNTS])
def test_a_count_past_its_bound_is_a_problem_at_its_path(
    tmp_path: Path, path: tuple[Any, ...], bound: int | float, over: Any
) -> None:
    started = time.monotonic()
    problems = _problems(tmp_path, _put(good(), path, _value(bound, over)))
    assert time.monotonic() - started < 10
    where = format_path(path)
    assert where in problems, problems
    if over == 10**4000 and isinstance(
        bound, int
    ):  # too long to read as a number at all: refused from the YAML text
        assert "a number of 4,001 characters" in problems[where]
    else:
        assert str(bound).replace(".0", "") in problems[where].replace(",", "").replace(".0", "")
    assert len(problems[where]) < 400  # a huge number is described, not printed


@pytest.mark.parametrize(("path", "bound"), COUNTS, ids=[format_path(p) for p, _ in COUNTS])
def test_a_count_at_its_bound_is_accepted(tmp_path: Path, path: tuple[Any, ...], bound: int | float) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(_put(good(), path, bound), sort_keys=False), encoding="utf-8")
    assert load_spec(spec).spec.name == "bounds"


@pytest.mark.parametrize(
    "path",
    [
        ("judges", 0, "price", "output"),
        ("retries", "wait"),
        ("runs", 0, "generate", "temperature"),
        ("judges", 0, "generate", "top_p"),
    ],
    ids=format_path,
)
@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan], ids=["inf", "-inf", "nan"])
def test_a_number_that_is_not_finite_is_refused(tmp_path: Path, path: tuple[Any, ...], value: float) -> None:
    assert format_path(path) in _problems(tmp_path, _put(good(), path, value))


@pytest.mark.parametrize(
    ("path", "entry"),
    [
        (("runs", 0, "models"), lambda i: f"openai/model-{i}"),
        (("judges",), lambda i: {"name": f"j{i}", "strategy": "lexical"}),
        (("runs", 0, "prompts"), lambda i: "zero_shot"),
        (("audits", 0, "probes"), lambda i: "wrong"),
    ],
    ids=["models", "judges", "prompts", "probes"],
)
def test_a_list_past_its_bound_is_a_problem(tmp_path: Path, path: tuple[Any, ...], entry: Any) -> None:
    data = _put(good(), path, [entry(i) for i in range(bounds.MAX_ENTRIES + 1)])
    problems = _problems(tmp_path, data)
    assert any(where.startswith(format_path(path)) and "at most" in m for where, m in problems.items()), (
        problems
    )


@pytest.mark.slow
def test_too_many_cells_are_counted_not_built(tmp_path: Path) -> None:
    # 34 blocks of 100 models and 3 tasks: 10,200 generation cells; 100 judges of 20 repeats
    data = good()
    data["runs"] = [
        {"tasks": ["explain", "topic", "traits"], "models": [f"openai/m{b}-{i}" for i in range(100)]}
        for b in range(34)
    ]
    data["judges"] = [
        {"name": f"j{i}", "strategy": "aspect", "model": "vivid/chrf", "repeats": 20} for i in range(100)
    ]
    data["audits"] = []
    tracemalloc.start()
    started = time.monotonic()
    try:
        problems = _problems(tmp_path, data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.monotonic() - started < 30
    assert (
        "10,200 generation cells" in problems["runs"] and f"at most {bounds.MAX_CELLS:,}" in problems["runs"]
    )
    assert "6,800,000 judge cells" in problems["judges"]
    assert peak < 500 * 2**20


def test_a_number_too_long_to_read_is_a_problem_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "spec.yaml"
    text = yaml.safe_dump(good(), sort_keys=False).replace("limit: 3", "limit: " + "9" * 5000)
    spec.write_text(text, encoding="utf-8")
    assert main(["validate", str(spec)]) == 2
    err = capsys.readouterr().err
    assert "runs[0].limit: a number of 5,000 characters" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("command", "path"),
    [
        ("validate", ("judges", 0, "repeats")),
        ("plan", ("judges", 0, "repeats")),
        ("run", ("runs", 0, "epochs")),
    ],
)
def test_the_commands_stop_at_once_on_a_huge_count(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    path: tuple[Any, ...],
) -> None:
    # main([...]) in this process returns the exit code the console script exits with.
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(_put(good(), path, 10**100), sort_keys=False), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    started = time.monotonic()
    code = main([command, str(spec)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"{format_path(path)}: must be at most" in err and "Traceback" not in err
    assert time.monotonic() - started < 60
    assert sorted(p.name for p in tmp_path.iterdir()) == ["spec.yaml"]


# -- the tasks' -T and the scorers' -S options ----------------------------------------------------


SCORER_OPTIONS = {
    "S-retries": (
        ["--scorer", "vivid_inspect/judge", "-S", "retries=11"],
        "judge_aspect: retries must be between 0 and 10, got 11",
    ),
    "S-repeat-huge": (
        ["--scorer", "vivid_inspect/judge_cot", "-S", f"repeat={10**40}"],
        "judge_cot: repeat must be between 0 and 19, got a number of about 41 digits",
    ),
    "S-negative-retries": (
        ["--scorer", "vivid_inspect/judge_aspect_en", "-S", "retries=-1"],
        "judge_aspect_en: retries must be between 0 and 10, got -1",
    ),
}


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, str]]:
    """``inspect score`` of a small explain log with each bad option, the processes run side by side."""
    from inspect_ai import eval

    from vivid_inspect.tasks import explain

    folder = tmp_path_factory.mktemp("score")
    (log,) = eval(
        explain(data="sample", judge="none"),
        model="vivid/oracle",
        model_args={"data": "sample"},
        limit=1,
        log_dir=str(folder),
        display="none",
    )
    inspect = str(Path(sys.executable).with_name("inspect"))
    running = {
        name: subprocess.Popen(
            [
                inspect,
                "score",
                log.location,
                *argv,
                "--model-role",
                "grader=vivid/chrf",
                "--action",
                "append",
                "--overwrite",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            cwd=folder,
            env={**os.environ, "COLUMNS": "1000"},
        )
        for name, (argv, _) in SCORER_OPTIONS.items()
    }
    return {name: (p.wait(timeout=240), p.stdout.read() if p.stdout else "") for name, p in running.items()}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SCORER_OPTIONS))
def test_a_scorer_count_past_its_bound_is_one_clear_line(
    scored: dict[str, tuple[int, str]], name: str
) -> None:
    code, out = scored[name]
    assert code != 0, out
    expected = SCORER_OPTIONS[name][1]
    assert expected in out and "Traceback" not in out and "couldn't be loaded" not in out, out
    assert len(out.strip().splitlines()) < 10, out


DOCS = Path(__file__).resolve().parents[3] / "docs"


def _rows(page: str) -> dict[str, str]:
    """First cell -> last cell of every table row of a docs page."""
    rows = {}
    for line in (DOCS / page).read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) >= 3:
            rows[cells[0]] = cells[-1]
    return rows


@pytest.mark.parametrize(
    ("page", "row", "bound"),
    [
        ("experiments.md", "`runs[].limit`", bounds.MAX_ITEMS),
        ("experiments.md", "`runs[].sample.n`", bounds.MAX_ITEMS),
        ("experiments.md", "`runs[].sample.seed`", bounds.MAX_SEED),
        ("experiments.md", "`runs[].sample_ids[]` (an id)", bounds.MAX_ITEM_ID),
        ("experiments.md", "`runs[].epochs`", bounds.MAX_EPOCHS),
        ("experiments.md", "`runs[].task_args.shots`", MAX_SHOTS),
        ("experiments.md", "`runs[].task_args.leakage_threshold` (a similarity)", int(THRESHOLD_RANGE[1])),
        ("experiments.md", "`judges[].retries`", bounds.MAX_JUDGE_RETRIES),
        ("experiments.md", "`judges[].repeats`", bounds.MAX_REPEATS),
        ("experiments.md", "`price.input`, `price.output` (USD per million tokens)", int(bounds.MAX_PRICE)),
        ("experiments.md", "`concurrency.max_connections`", bounds.MAX_CONNECTIONS),
        ("experiments.md", "`concurrency.max_tasks`", bounds.MAX_TASKS),
        ("experiments.md", "`concurrency.max_samples`", bounds.MAX_SAMPLES),
        ("experiments.md", "`concurrency.judge_cells`", bounds.MAX_JUDGE_CELLS),
        ("experiments.md", "`retries.attempts`, `retries.on_error`", bounds.MAX_RUN_ATTEMPTS),
        ("experiments.md", "`retries.wait` (seconds)", bounds.MAX_RETRY_WAIT),
        ("experiments.md", "`retries.max_retries`", bounds.MAX_CALL_RETRIES),
        ("experiments.md", "`retries.timeout`, `retries.attempt_timeout` (seconds)", bounds.MAX_TIMEOUT),
        ("experiments.md", "`batch` (requests per batch)", bounds.MAX_BATCH),
        ("experiments.md", "`audits[].limit`", bounds.MAX_ITEMS),
        ("experiments.md", "`audits[].seed`", bounds.MAX_SEED),
        (
            "experiments.md",
            "generation cells of a spec (tasks × prompts × models, summed over run blocks)",
            bounds.MAX_CELLS,
        ),
        (
            "experiments.md",
            "judge cells of a spec (explanation cells × every judge's repeats)",
            bounds.MAX_CELLS,
        ),
        (
            "experiments.md",
            "`generate.max_tokens`, `generate.reasoning_tokens`",
            bounds.GENERATE_BOUNDS["max_tokens"][1],
        ),
        (
            "experiments.md",
            "`generate.num_choices`, `generate.best_of`",
            bounds.GENERATE_BOUNDS["num_choices"][1],
        ),
        (
            "experiments.md",
            "`generate.top_logprobs`, `generate.prompt_logprobs`",
            bounds.GENERATE_BOUNDS["top_logprobs"][1],
        ),
        (
            "experiments.md",
            "`runs`, `judges`, `audits`, `panel.members`, `audits[].probes` (entries)",
            bounds.MAX_ENTRIES,
        ),
        ("tasks.md", "`-T shots`", MAX_SHOTS),
        ("tasks.md", "`-T judge_retries`", bounds.MAX_JUDGE_RETRIES),
        ("tasks.md", "`-S retries`", bounds.MAX_JUDGE_RETRIES),
        ("tasks.md", "`-S repeat`", bounds.MAX_REPEATS - 1),
    ],
)
def test_the_docs_list_every_bound_as_the_code_has_it(page: str, row: str, bound: int) -> None:
    assert _rows(page).get(row) == f"{bound:,}", f"{page}: {row}"


# -- task_args: the tasks' own check of -T, run by validate (issue 30.6) ------------------------------

HUGE = 10**900
BAD_TASK_ARGS: list[tuple[str, Any]] = [
    *[
        ("shots", value)
        for value in (-1, 6, HUGE, -HUGE, 2.0, True, False, "3", None, [3], {"n": 3}, math.nan, math.inf)
    ],
    *[
        ("leakage_threshold", value)
        for value in (
            0.1,
            0.59,
            1.0001,
            1e300,
            -1e300,
            math.nan,
            math.inf,
            -math.inf,
            HUGE,
            2,
            0,
            True,
            "0.8",
            "1e300",
            None,
            [0.8],
        )
    ],
]


@pytest.mark.parametrize(
    ("key", "value"), BAD_TASK_ARGS, ids=[f"{k}={str(v)[:12]}" for k, v in BAD_TASK_ARGS]
)
def test_every_bad_task_arg_is_one_problem_at_its_key(tmp_path: Path, key: str, value: Any) -> None:
    problems = _problems(tmp_path, _put(good(), ("runs", 1, "task_args", key), value))
    where = f"runs[1].task_args.{key}"
    assert list(problems) == [where], problems
    assert problems[where].startswith(f"topic: {key} must be") and len(problems[where]) < 300, problems


@pytest.mark.parametrize(
    ("key", "value"), [("shots", 0), ("shots", 5), ("leakage_threshold", 0.6), ("leakage_threshold", 1)]
)
def test_a_task_arg_at_its_bound_is_accepted(tmp_path: Path, key: str, value: Any) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(_put(good(), ("runs", 1, "task_args", key), value)), encoding="utf-8")
    assert load_spec(spec).spec.runs[1].task_args[key] == value


@pytest.mark.parametrize("command", ["validate", "plan", "run"])
def test_the_commands_refuse_an_out_of_range_task_arg_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        yaml.safe_dump(_put(good(), ("runs", 1, "task_args", "leakage_threshold"), 0.1)), encoding="utf-8"
    )
    assert main([command, str(spec)]) == 2
    err = capsys.readouterr().err
    assert (
        "runs[1].task_args.leakage_threshold: topic: leakage_threshold must be a number from 0.6 to 1" in err
    )
    assert "Traceback" not in err and len(err.splitlines()) == 3, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["spec.yaml"]


# -- numbers in model_args (issue 30.10) -----------------------------------------------------------


def _with_model_args(where: str, args: dict[str, Any]) -> dict[str, Any]:
    data = good()
    if where == "runs":
        data["runs"][0]["models"] = [{"model": "vivid/oracle", "model_args": args}]
    else:
        data["judges"][0]["model_args"] = args
    return data


MODEL_ARGS: list[tuple[dict[str, Any], str]] = [
    ({"max_retries": HUGE}, "max_retries must be between 0 and 20, got a number of about 901 digits"),
    ({"max_retries": 21}, "max_retries must be between 0 and 20, got 21"),
    ({"max_retries": -1}, "max_retries must be between 0 and 20, got -1"),
    ({"timeout": 10**30}, "timeout must be between 1 and 86400"),
    ({"max_connections": 0}, "max_connections must be between 1 and 1000"),
    ({"retry_budget": 2**64}, "retry_budget must be between"),
    ({"client_options": {"max_retries": HUGE}}, "client_options must be between"),
    ({"sizes": [1, HUGE]}, "sizes must be between"),
    ({"temperature_floor": math.inf}, "temperature_floor must be a finite number, got inf"),
    ({"scale": math.nan}, "scale must be a finite number, got nan"),
    # whole numbers where Inspect wants them, digit strings, and the fractions' ranges
    ({"max_retries": 1.5}, "max_retries must be a whole number from 0 to 20, got 1.5"),
    ({"max_connections": 2.0}, "max_connections must be a whole number from 1 to 1000"),
    ({"timeout": 0.5}, "timeout must be a whole number from 1 to 86400"),
    (
        {"max_connections": "9" * 900},
        "max_connections must be between 1 and 1000, got a string of 900 digits",
    ),
    ({"max_retries": "21"}, "max_retries must be between 0 and 20, got 21"),
    ({"temperature": 1e300}, "temperature must be from 0 to 2, got 1e+300"),
    ({"temperature": -5}, "temperature must be from 0 to 2, got -5"),
    ({"top_p": 1.5}, "top_p must be from 0 to 1, got 1.5"),
    ({"presence_penalty": -3}, "presence_penalty must be from -2 to 2"),
]


@pytest.mark.parametrize("where", ["runs", "judges"])
@pytest.mark.parametrize(
    ("args", "message"), MODEL_ARGS, ids=[next(iter(a)) + str(i) for i, (a, _) in enumerate(MODEL_ARGS)]
)
def test_a_number_in_model_args_is_held_to_its_bound(
    tmp_path: Path, where: str, args: dict[str, Any], message: str
) -> None:
    problems = _problems(tmp_path, _with_model_args(where, args))
    path = "runs[0].models[0].model_args" if where == "runs" else "judges[0].model_args"
    key = f"{path}.{next(iter(args))}"
    assert key in problems and message in problems[key], problems
    assert len(problems[key]) < 300


@pytest.mark.parametrize("where", ["runs", "judges"])
def test_ordinary_model_args_pass(tmp_path: Path, where: str) -> None:
    args = {
        "max_retries": 20,
        "timeout": 600,
        "base_url": "http://localhost:8000/v1",
        "data": "sample",
        "ratio": 0.5,
        "temperature": 0.7,
        "top_p": 1,
        "max_connections": "8",
        "project_id": "1234567890123456789012345",  # digits under a name that is no option
    }
    data = _with_model_args(where, args if where == "judges" else {"data": "sample"})
    if where == "judges":
        data["judges"][0]["model"] = "openai/gpt-4o"
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(data), encoding="utf-8")
    assert load_spec(spec).spec.name == "bounds"


GENERATE_OUT_OF_RANGE: list[Any] = [
    pytest.param("temperature", -5, "temperature must be from 0 to 2, got -5", id="temperature-negative"),
    pytest.param("temperature", 2.5, "temperature must be from 0 to 2, got 2.5", id="temperature-high"),
    pytest.param("top_p", 1e300, "top_p must be from 0 to 1, got 1e+300", id="top_p-huge"),
    pytest.param("top_p", -0.1, "top_p must be from 0 to 1", id="top_p-negative"),
    pytest.param("frequency_penalty", 3, "frequency_penalty must be from -2 to 2", id="frequency_penalty"),
    pytest.param("top_k", -2, "top_k must be between -1 and 1000000", id="top_k-below-disabled"),
]


@pytest.mark.parametrize("where", [("runs", 0, "generate"), ("judges", 0, "generate")], ids=format_path)
@pytest.mark.parametrize(("key", "value", "message"), GENERATE_OUT_OF_RANGE)
def test_a_generation_option_outside_its_range_is_refused(
    tmp_path: Path, where: tuple[Any, ...], key: str, value: Any, message: str
) -> None:
    problems = _problems(tmp_path, _put(good(), (*where, key), value))
    assert message in problems.get(format_path((*where, key)), ""), problems


@pytest.mark.parametrize(
    ("key", "value"),
    [("temperature", 0), ("temperature", 2), ("top_p", 0.95), ("top_k", -1), ("presence_penalty", -2.0)],
)
def test_a_generation_option_at_its_range_passes(tmp_path: Path, key: str, value: Any) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(_put(good(), ("runs", 0, "generate", key), value)), encoding="utf-8")
    assert load_spec(spec).spec.name == "bounds"
