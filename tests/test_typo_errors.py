"""A bad task argument or unusable data ends `inspect eval` with one clear message, no traceback.

One case of each kind (a bad value, a mistyped name in the file forms, unreadable data, data that
cannot be downloaded) runs the real ``inspect eval`` CLI, as a user would, each in a process of its
own forked from one that has already imported Inspect's command line (``tests/prewarmed.py``): they
run together and each case then checks its own output. The other
cases take the same path in this process: Inspect's own ``-T`` parser, ``eval`` of the same target,
and the same error type (a `PrerequisiteError`, which the CLI prints alone), checked for the same
message, about 1.5 s of start-up less each.
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai._cli.util import parse_cli_config

from tests import prewarmed
from vivid_inspect.data import VividDataError
from vivid_inspect.inspect_private import (
    PrerequisiteError,
    TaskArgumentError,
    TaskDataError,
)
from vivid_inspect.tasks import explain, topic

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "data"
TASKS_FILE = str(Path(__file__).resolve().parents[1] / "vivid_inspect" / "tasks.py")
MAX_LINES = 30


@dataclass(frozen=True)
class Case:
    task: str
    args: tuple[str, ...]
    expected: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()
    target: str = ""  # what `inspect eval` is given, when not vivid_inspect/<task>


CASES: dict[str, Case] = {
    "bad-judge": Case(
        "explain", ("judge=vibes", "data=sample"), ("explain: unknown judge 'vibes'", "aspect")
    ),
    "bad-judge-in-list": Case(
        "explain", ("judge=aspect,vibes", "data=sample"), ("explain: unknown judge 'vibes'",)
    ),
    "bad-prompt": Case("explain", ("prompt=bad", "data=sample"), ("unknown prompt style 'bad'", "few_shot")),
    "negative-judge-retries": Case(
        "explain",
        ("judge_retries=-1", "data=sample"),
        ("explain: judge_retries must be between 0 and 10, got -1",),
    ),
    "huge-judge-retries": Case(
        "explain",
        (f"judge_retries={10**30}", "data=sample"),
        ("explain: judge_retries must be between 0 and 10, got a number of about 31 digits",),
    ),
    "huge-shots": Case(
        "topic",
        (f"shots={10**30}", "data=sample"),
        ("topic: shots must be between 0 and 5, got a number of about 31 digits",),
    ),
    "shots-too-many": Case(
        "topic", ("shots=9", "data=sample"), ("topic: shots must be between 0 and 5, got 9",)
    ),
    "shots-not-a-number": Case(
        "traits",
        ("shots=many", "data=sample"),
        ("traits: shots must be a whole number from 0 to 5, got 'many'",),
    ),
    "mistyped-name": Case(
        "explain",
        ("judge_strategy=aspect", "data=sample"),
        (
            "explain: -T judge_strategy is not a parameter of explain (did you mean judge?)",
            "explain takes: prompt",
        ),
    ),
    "mistyped-name-in-file-form": Case(
        "explain",
        ("judg=cot", "data=sample"),
        ("-T judg is not a parameter of explain (did you mean judge?)",),
        target=f"{TASKS_FILE}@explain",
    ),
    "name-no-task-takes-in-whole-file": Case(
        "topic",
        ("judge=cot", "shot=2", "data=sample"),
        (
            "-T shot is not a parameter of any VIVID task (did you mean shots?)",
            "note: -T judge is a parameter of explain",
        ),
        target=TASKS_FILE,
    ),
    "mistyped-judge-value": Case(
        "explain",
        ("judge=aspekt", "data=sample"),
        ("explain: unknown judge 'aspekt' (did you mean aspect?)",),
    ),
    "threshold-out-of-range": Case(
        "traits",
        ("leakage_threshold=0.1", "data=sample"),
        ("traits: leakage_threshold must be a number from 0.6 to 1",),
    ),
    "threshold-nan": Case(
        "topic",
        ("leakage_threshold=.nan", "data=sample"),
        ("topic: leakage_threshold must be a number", "got nan"),
    ),
    "threshold-huge": Case(
        "explain",
        (f"leakage_threshold={10**400}", "data=sample"),
        ("explain: leakage_threshold must be a number", "got a number of about 401 digits"),
    ),
    "missing-data-file": Case(
        "explain", ("data=/nonexistent.csv",), ("/nonexistent.csv: no such data file", "-T data=sample")
    ),
    "folder-as-data": Case("topic", ("data={tmp}",), ("{tmp}: is a folder, not a data file",)),
    "bad-data-rows": Case(
        "topic",
        (f"data={FIXTURES / 'bad_rows.csv'}",),
        ("bad_rows.csv: 5 problem(s)", "row 3 (line 4), column Semantic_Theme"),
    ),
    "hf-offline": Case(
        "explain",
        (),
        ("could not download http://127.0.0.1:9/", "Connection refused", "-T data=sample"),
        env=(("HF_ENDPOINT", "http://127.0.0.1:9"), ("VIVID_CACHE_DIR", "{tmp}/cache")),
    ),
}


# The cases run as `inspect eval` subprocesses: one of each kind of error and target.
BY_THE_CLI = (
    "bad-judge",
    "mistyped-name-in-file-form",
    "name-no-task-takes-in-whole-file",
    "missing-data-file",
    "hf-offline",
)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, str, Path]]:
    inspect = Path(sys.executable).with_name("inspect")
    commands = {}
    for name in BY_THE_CLI:
        case = CASES[name]
        tmp = tmp_path_factory.mktemp(name)
        env = {**os.environ, "COLUMNS": "1000", **{k: v.format(tmp=tmp) for k, v in case.env}}
        env.pop("VIVID_DATA", None)
        # Inspect reads a task file by a path relative to the folder it runs in
        target = os.path.relpath(case.target, tmp) if case.target else f"vivid_inspect/{case.task}"
        command = [str(inspect), "eval", target, "--model", "mockllm/model"]
        for arg in case.args:
            command += ["-T", arg.format(tmp=tmp)]
        command += ["--log-dir", str(tmp / "logs")]
        commands[name] = (command, tmp, env)

    def run(name: str) -> tuple[int, str, Path]:
        command, tmp, env = commands[name]
        done = prewarmed.run(command, cwd=tmp, env=env, timeout=240, merge_stderr=True)
        return done.returncode, done.stdout, tmp

    with ThreadPoolExecutor(len(commands)) as pool:
        return dict(zip(commands, pool.map(run, commands), strict=True))


@pytest.mark.slow
@pytest.mark.parametrize("name", BY_THE_CLI)
def test_bad_argument_prints_one_clear_message(outputs: dict[str, tuple[int, str, Path]], name: str) -> None:
    returncode, out, tmp = outputs[name]
    assert returncode != 0, out
    assert "Traceback" not in out
    assert "ExceptionGroup" not in out
    assert len(out.strip().splitlines()) < MAX_LINES, out
    for expected in CASES[name].expected:
        assert expected.format(tmp=tmp) in out, out


@pytest.mark.parametrize("name", [name for name in CASES if name not in BY_THE_CLI])
def test_bad_argument_stops_the_eval_with_one_clear_message(name: str, tmp_path: Path) -> None:
    case = CASES[name]
    assert not case.env  # a case that needs its own environment runs by the CLI
    task_args = parse_cli_config([arg.format(tmp=tmp_path) for arg in case.args], None)  # as `-T` reads them
    target = case.target or f"vivid_inspect/{case.task}"
    with pytest.raises(PrerequisiteError) as caught:  # the CLI prints its message alone
        eval(
            target, model="mockllm/model", task_args=task_args, log_dir=str(tmp_path / "logs"), display="none"
        )
    message = str(caught.value)
    assert "Traceback" not in message and "ExceptionGroup" not in message
    assert len(message.strip().splitlines()) < MAX_LINES, message
    for expected in case.expected:
        assert expected.format(tmp=tmp_path) in message, message
    assert not (tmp_path / "logs").exists() or not list((tmp_path / "logs").iterdir())


@pytest.mark.parametrize(
    ("build", "error"),
    [
        pytest.param(lambda: explain(judge="vibes", data="sample"), TaskArgumentError, id="bad-judge"),
        pytest.param(lambda: topic(shots=-1, data="sample"), TaskArgumentError, id="bad-shots"),
        pytest.param(lambda: topic(data="/nonexistent.csv"), TaskDataError, id="missing-data"),
    ],
)
def test_in_python_the_errors_keep_their_usual_types(build, error) -> None:  # type: ignore[no-untyped-def]
    # Callers that build tasks in Python (vivid run, notebooks) still catch ValueError and
    # VividDataError; Inspect sees a PrerequisiteError and prints its message alone.
    with pytest.raises(error) as caught:
        build()
    assert isinstance(caught.value, ValueError)
    assert isinstance(caught.value, PrerequisiteError)
    assert isinstance(caught.value, VividDataError) == (error is TaskDataError)
    assert str(caught.value).startswith(("explain: ", "topic: "))


def test_judge_comma_list_from_the_command_line_is_accepted() -> None:
    # `-T judge=aspect,lexical` reaches the task as a list, not a string.
    task = explain(judge=["aspect", "lexical"], data="sample")  # type: ignore[arg-type]
    assert task.metadata is not None and task.metadata["judge_strategies"] == ["aspect", "lexical"]
