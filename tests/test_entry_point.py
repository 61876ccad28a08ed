"""After install, Inspect finds the tasks by package name from any folder, and by file path."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "task_ref",
    [
        pytest.param("vivid_inspect/topic", id="by-package-name"),
        pytest.param(str(REPO / "vivid_inspect" / "tasks.py") + "@traits", id="by-file-path"),
    ],
)
def test_cli_eval_from_another_folder_succeeds(task_ref: str, tmp_path: Path) -> None:
    log_dir = tmp_path / "logs"
    inspect = Path(sys.executable).with_name("inspect")
    result = subprocess.run(
        [str(inspect), "eval", task_ref, "--model", "vivid/oracle", "-M", "data=sample",
         "-T", "data=sample", "--limit", "5", "--log-dir", str(log_dir), "--display", "none"],
        cwd=tmp_path, capture_output=True, text=True, timeout=240,
    )
    assert result.returncode == 0, result.stderr
    # `inspect eval` exits 0 even when the task errors: the log's status is the verdict.
    [info] = list_eval_logs(str(log_dir))
    log = read_eval_log(info)
    assert log.status == "success", log.error
    assert log.results is not None and log.results.total_samples == 5
    assert log.results.scores[0].metrics["accuracy"].value == 1.0
