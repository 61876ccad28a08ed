"""After install, Inspect finds the tasks by package name from any folder, and by file path."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from inspect_ai.log import list_eval_logs, read_eval_log

REPO = Path(__file__).resolve().parents[1]


def test_cli_eval_from_another_folder_by_package_name_and_by_file_path(tmp_path: Path) -> None:
    log_dir = tmp_path / "logs"
    inspect = Path(sys.executable).with_name("inspect")
    by_package = "vivid_inspect/topic"
    by_file = str(REPO / "vivid_inspect" / "tasks.py") + "@traits"
    # One subprocess for both references: starting Inspect is the slow part of this test.
    result = subprocess.run(
        [str(inspect), "eval", by_package, by_file, "--model", "vivid/oracle", "-M", "data=sample",
         "-T", "data=sample", "--limit", "5", "--log-dir", str(log_dir), "--display", "none"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr
    # `inspect eval` exits 0 even when a task errors: each log's status is the verdict.
    logs = [read_eval_log(info) for info in list_eval_logs(str(log_dir))]
    assert sorted(log.eval.task.split("/")[-1] for log in logs) == ["topic", "traits"]
    for log in logs:
        assert log.status == "success", log.error
        assert log.results is not None and log.results.total_samples == 5
        assert log.results.scores[0].metrics["accuracy"].value == 1.0
