"""A mistyped model provider gets a did-you-mean from `vivid validate`, `plan` and `run`, before anything runs.

Plain `inspect eval --model opnai/gpt-4o` cannot be mended from task code (Inspect resolves models
before any task loads): docs/troubleshooting.md shows its last line and the fix.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from vivid_inspect.lab.cli.main import main


def _spec(tmp_path: Path, model: str, judge: str) -> Path:
    path = tmp_path / "typo.yaml"
    path.write_text(
        "name: typo\ndata: sample\nlog_dir: logs\n"
        f"runs:\n  - tasks: [explain]\n    models: [{model}]\n"
        f"judges:\n  - name: j\n    strategy: aspect\n    model: {judge}\n",
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize("command", ["validate", "plan", "run"])
@pytest.mark.parametrize(
    ("model", "judge", "expected"),
    [
        pytest.param("opnai/gpt-4o", "vivid/chrf", "did you mean openai/gpt-4o?", id="model-openai"),
        pytest.param(
            "vivid/oracle",
            "antropic/claude-sonnet-4-0",
            "did you mean anthropic/claude-sonnet-4-0?",
            id="judge-anthropic",
        ),
        pytest.param("Openai/gpt-4o", "vivid/chrf", "did you mean openai/gpt-4o?", id="capitals"),
        pytest.param(
            "gogle/gemini-2.5-pro", "vivid/chrf", "did you mean google/gemini-2.5-pro?", id="google"
        ),
        pytest.param(
            "qqqq/x", "vivid/chrf", "unknown model provider 'qqqq'; known providers:", id="nothing-close"
        ),
    ],
)
def test_a_mistyped_provider_is_one_line_with_a_suggestion_and_nothing_runs(
    command: str, model: str, judge: str, expected: str, tmp_path: Path
) -> None:
    spec = _spec(tmp_path, model, judge)
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main([command, str(spec)])
    assert code == 2
    assert expected in err.getvalue()
    assert "Traceback" not in err.getvalue()
    assert not (tmp_path / "logs").exists()
