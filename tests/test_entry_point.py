"""After install, Inspect finds the tasks by package name from any folder, and by file path.

The ``inspect`` commands run prewarmed (tests/prewarmed.py): Inspect's command line is imported
before the fork, the package is not, so Inspect finds the tasks and scorers through the package's
entry point as a fresh process does.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

from tests import prewarmed

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_cli_eval_from_another_folder_by_package_name_and_by_file_path(tmp_path: Path) -> None:
    log_dir = tmp_path / "logs"
    inspect = Path(sys.executable).with_name("inspect")
    by_package = "vivid_inspect/topic"
    by_file = str(REPO / "vivid_inspect" / "tasks.py") + "@traits"
    # One subprocess for both references: starting Inspect is the slow part of this test.
    result = prewarmed.run(
        [
            str(inspect),
            "eval",
            by_package,
            by_file,
            "--model",
            "vivid/oracle",
            "-M",
            "data=sample",
            "-T",
            "data=sample",
            "--limit",
            "5",
            "--log-dir",
            str(log_dir),
            "--display",
            "none",
        ],
        cwd=tmp_path,
        env=dict(os.environ),
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    # `inspect eval` exits 0 even when a task errors: each log's status is the verdict.
    logs = [read_eval_log(info) for info in list_eval_logs(str(log_dir))]
    assert sorted(log.eval.task.split("/")[-1] for log in logs) == ["topic", "traits"]
    for log in logs:
        assert log.status == "success", log.error
        assert log.results is not None and log.results.total_samples == 5
        assert log.results.scores[0].metrics["accuracy"].value == 1.0


def _generated_log(folder: Path) -> Path:
    from inspect_ai import eval as inspect_eval

    from vivid_inspect.tasks import explain

    (log,) = inspect_eval(
        explain(data="sample", judge="none"),
        model="vivid/literal",
        model_args={"data": "sample"},
        limit=3,
        log_dir=str(folder),
        display="none",
    )
    assert log.status == "success", log.error
    return Path(log.location)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("scorer_args", "column", "params"),
    [
        pytest.param(
            ["vivid_inspect/judge", "-S", "strategy=cot", "-S", "repeat=2"],
            "judge_cot",
            {"strategy": "cot", "repeat": 2},
            id="alias-with-strategy-and-repeat",
        ),
        pytest.param(
            ["vivid_inspect/judge_demonstration", "-S", "repeat=1"],
            "judge_demonstration",
            {"repeat": 1},
            id="strategy-scorer",
        ),
        pytest.param(
            ["vivid_inspect/judge", "-S", "strategy=cot", "-S", "language=en", "-S", "repeat=0"],
            "judge_cot_en",
            {"strategy": "cot", "language": "en", "repeat": 0},
            id="alias-in-english",
        ),
        pytest.param(
            ["vivid_inspect/judge_aspect_en", "-S", "repeat=1"],
            "judge_aspect_en",
            {"repeat": 1},
            id="english-strategy-scorer",
        ),
    ],
)
def test_cli_inspect_score_by_package_name_writes_the_strategy_column(
    tmp_path: Path, scorer_args: list[str], column: str, params: dict[str, object]
) -> None:
    # docs/judges.md's `inspect score LOG --scorer vivid_inspect/judge -S strategy=cot`, in a process
    # of its own that finds the scorer through the package's entry point; vivid/chrf judges offline.
    log = _generated_log(tmp_path / "logs")
    out = tmp_path / "judged.eval"
    inspect = Path(sys.executable).with_name("inspect")
    result = prewarmed.run(
        [
            str(inspect),
            "score",
            str(log),
            "--scorer",
            *scorer_args,
            "--model-role",
            "grader=vivid/chrf",
            "--output-file",
            str(out),
            "--display",
            "none",
        ],
        cwd=tmp_path,
        env=dict(os.environ),
        timeout=300,
    )
    assert result.returncode == 0, result.stderr

    judged = read_eval_log(str(out))
    assert judged.results is not None
    assert [(s.name, s.params) for s in judged.results.scores] == [(column, params)]
    scores = [(sample.scores or {})[column] for sample in judged.samples or []]
    assert len(scores) == 3 and all(s.metadata and s.metadata["repeat"] == params["repeat"] for s in scores)
