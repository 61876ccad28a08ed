"""Every ``vivid`` command's default files and logs land under one output root, never loose in the cwd.

The root is ``$VIVID_OUTPUT_DIR``, else ``./vivid-out`` (listed in ``.gitignore``). The defaults are
read from the parsed arguments as each command resolves them; no audit or run is started.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from vivid_inspect.lab.cli.audit import fill_defaults
from vivid_inspect.lab.cli.main import build_parser
from vivid_inspect.lab.output_root import DEFAULT_OUTPUT_DIR, OUTPUT_ENV, output_root
from vivid_inspect.lab.runner.bundled import resolve_spec

REPO = Path(__file__).resolve().parents[2]


def _defaults(argv: list[str]) -> dict[str, Path]:
    """The folders a command writes to when no option names them, as the command resolves them."""
    args = build_parser().parse_args(argv)
    if argv[0] in ("audit", "sanity"):
        fill_defaults(args, argv[0])
        return {"out": Path(args.out), "logs": Path(args.log_dir)}
    _, log_dir = resolve_spec(args.spec, args.log_dir)
    assert log_dir is not None
    return {"logs": Path(log_dir)}


COMMANDS = [
    pytest.param(["audit", "vivid/chrf"], {"out": "audit", "logs": "audit/logs"}, id="audit"),
    pytest.param(["audit", "vivid/chrf", "--plan"], {"out": "audit", "logs": "audit/logs"}, id="audit-plan"),
    pytest.param(["sanity", "vivid/chrf"], {"out": "sanity", "logs": "sanity/logs"}, id="sanity"),
    pytest.param(["run", "offline"], {"logs": "offline"}, id="run-bundled"),
    pytest.param(["plan", "offline"], {"logs": "offline"}, id="plan-bundled"),
    pytest.param(["validate", "offline"], {"logs": "offline"}, id="validate-bundled"),
]


@pytest.mark.parametrize(("argv", "expected"), COMMANDS)
def test_each_default_lands_under_vivid_out(
    argv: list[str], expected: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(OUTPUT_ENV, raising=False)
    monkeypatch.setenv("INSPECT_LOG_DIR", str(tmp_path / "inspect-logs"))  # Inspect's, not vivid's
    assert _defaults(argv) == {key: Path(DEFAULT_OUTPUT_DIR) / value for key, value in expected.items()}


@pytest.mark.parametrize("chosen", ["elsewhere", "~/vivid-results", "/abs/vivid"])
@pytest.mark.parametrize(("argv", "expected"), COMMANDS)
def test_the_environment_variable_moves_every_default(
    argv: list[str], expected: dict[str, str], chosen: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(OUTPUT_ENV, chosen)
    root = Path(chosen).expanduser()
    assert output_root() == root
    assert _defaults(argv) == {key: root / value for key, value in expected.items()}


@pytest.mark.parametrize("blank", ["", "   "])
def test_an_empty_variable_means_the_default(blank: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(OUTPUT_ENV, blank)
    assert output_root() == Path(DEFAULT_OUTPUT_DIR)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        pytest.param(
            ["audit", "vivid/chrf", "--out", "card"], {"out": "card", "logs": "R/audit/logs"}, id="out"
        ),
        pytest.param(
            ["audit", "vivid/chrf", "--out", "card", "--log-dir", "mine"],
            {"out": "card", "logs": "mine"},
            id="out-and-log-dir",
        ),
        pytest.param(
            ["sanity", "vivid/chrf", "--log-dir", "mine"], {"out": "R/sanity", "logs": "mine"}, id="log-dir"
        ),
        pytest.param(["run", "offline", "--log-dir", "mine"], {"logs": "mine"}, id="run-log-dir"),
    ],
)
def test_options_stay_as_given(
    argv: list[str], expected: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(OUTPUT_ENV, "R")
    assert _defaults(argv) == {key: Path(value) for key, value in expected.items()}


def test_a_specs_own_log_dir_stays_as_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    monkeypatch.setenv(OUTPUT_ENV, str(tmp_path))
    assert resolve_spec("experiments/offline.yaml", None) == ("experiments/offline.yaml", None)


def test_gitignore_covers_the_default_root() -> None:
    ignored = (REPO / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert f"/{DEFAULT_OUTPUT_DIR}/" in ignored
    if shutil.which("git") is None or not (REPO / ".git").exists():
        return
    for written in ("vivid-out/audit/audit.md", "vivid-out/offline/report/report.md"):
        done = subprocess.run(["git", "check-ignore", "-q", written], cwd=REPO, check=False)
        assert done.returncode == 0, f"{written} is not ignored"
