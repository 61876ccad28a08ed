"""First contact is fast: ``vivid --help`` imports nothing heavy, ``vivid validate`` no data science.

Structural checks of ``sys.modules`` in a fresh interpreter, not timings (the timings are in
``bench/cli_startup.py`` and ``bench/results.md``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
HEAVY = ("inspect_ai", "pandas", "matplotlib", "sklearn", "scipy", "numpy", "pydantic")
DATA_SCIENCE = ("pandas", "matplotlib", "sklearn", "scipy")

_PROBE = """
import contextlib, io, json, sys
from vivid_inspect.lab.cli.main import main
out = io.StringIO()
code = None
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
    try:
        code = main(sys.argv[1:])
    except SystemExit as exit:
        code = exit.code
heavy = [name for name in %r if name in sys.modules]
print(json.dumps({"code": code, "heavy": heavy, "out": out.getvalue()}))
"""


def _probe(*argv: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE % (HEAVY,), *argv],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def test_importing_the_cli_imports_nothing_heavy() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import sys, vivid_inspect.lab.cli.main; print([m for m in {HEAVY!r} if m in sys.modules])",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.stdout.strip() == "[]", done.stderr


def test_the_annotation_server_imports_no_statistics_before_the_agreement_view() -> None:
    # scipy and scikit-learn took ~0.9 s of the server's start-up; only the agreement view needs them
    probe = "import sys, vivid_inspect.lab.humans.annotate.serve; print([m for m in ('scipy', 'sklearn') if m in sys.modules])"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.stdout.strip() == "[]", done.stderr


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(("--help",), id="vivid-help"),
        pytest.param(("run", "--help"), id="run-help"),
        pytest.param(("sanity", "--help"), id="sanity-help"),
        pytest.param(("annotate", "export", "--help"), id="annotate-export-help"),
        pytest.param(("report", "--help"), id="report-help"),
        pytest.param(("nonsense",), id="unknown-command"),
    ],
)
def test_help_and_usage_errors_import_nothing_heavy(argv: tuple[str, ...]) -> None:
    result = _probe(*argv)
    assert result["heavy"] == []
    assert result["code"] in (0, 2)


@pytest.mark.slow
def test_validate_imports_inspect_but_no_data_science(tmp_path: Path) -> None:
    result = _probe("validate", str(REPO / "experiments" / "offline.yaml"), "--log-dir", str(tmp_path))
    assert result["code"] == 0, result["out"]
    assert "valid" in str(result["out"])
    assert [name for name in DATA_SCIENCE if name in result["heavy"]] == []


@pytest.mark.slow
def test_help_texts_state_the_defaults_they_do_not_import() -> None:
    # `vivid annotate export -n` states a default that lives in a heavy module, `vivid sanity` the strategies.
    from vivid_inspect.lab.cli.audit import SANITY_LIMIT
    from vivid_inspect.lab.humans.annotate.sheet_export import DEFAULT_N
    from vivid_inspect.scorers.judge import STRATEGIES

    annotate = _probe("annotate", "export", "--help")["out"]
    assert f"(default {DEFAULT_N})" in str(annotate)
    sanity = " ".join(str(_probe("sanity", "--help")["out"]).split())
    assert f"(default: {SANITY_LIMIT})" in sanity
    assert "{" + ",".join(STRATEGIES) + "}" in sanity
