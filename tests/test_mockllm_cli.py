"""The issue's own check: `inspect eval vivid_inspect/topic --model mockllm/model` from another folder.

mockllm counts tokens with tiktoken's ``o200k_base`` encoding when its output has no usage, and
tiktoken downloads that file on first use. Where it is neither cached nor downloadable (an
offline machine) the test cannot run; `.ci/run` puts the encoding in ``TIKTOKEN_CACHE_DIR`` so CI
always runs it. The offline `vivid/*` models cover the same entry point everywhere
(``test_entry_point.py``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

# tiktoken's cache key of the o200k_base file: the SHA-1 of its download URL.
O200K_CACHE_KEY = "fb374d419588a4632f3f557e76b4b70aebbca790"


def _encoding_cached() -> bool:
    folder = os.environ.get("TIKTOKEN_CACHE_DIR") or os.path.join(tempfile.gettempdir(), "data-gym-cache")
    return (Path(folder) / O200K_CACHE_KEY).is_file()


@pytest.mark.slow
@pytest.mark.skipif(
    not _encoding_cached(),
    reason="tiktoken's o200k_base encoding is not cached and this machine is offline; .ci/run provides it",
)
def test_mockllm_cli_runs_both_classification_tasks_with_every_metric(tmp_path: Path) -> None:
    inspect = Path(sys.executable).with_name("inspect")
    result = subprocess.run(
        [
            str(inspect),
            "eval",
            "vivid_inspect/topic",
            "vivid_inspect/traits",
            "--model",
            "mockllm/model",
            "-T",
            "data=sample",
            "--limit",
            "5",
            "--log-dir",
            str(tmp_path / "logs"),
            "--display",
            "none",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    logs = {
        read_eval_log(info).eval.task.split("/")[-1]: read_eval_log(info)
        for info in list_eval_logs(str(tmp_path / "logs"))
    }
    assert set(logs) == {"topic", "traits"}
    for log in logs.values():
        assert log.status == "success", log.error
    # mockllm's canned text is no code: strict accuracy 0; the diagnostics are still reported.
    topic = logs["topic"].results.scores[0].metrics  # type: ignore[union-attr]
    traits = logs["traits"].results.scores[0].metrics  # type: ignore[union-attr]
    assert topic["accuracy"].value == 0.0 and "lenient_accuracy" in topic
    assert {"accuracy", "lenient_accuracy", "micro_f1", "macro_f1", "jaccard", "hamming_accuracy"} <= set(
        traits
    )
