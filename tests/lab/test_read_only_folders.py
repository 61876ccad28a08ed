"""A read-only folder stops ``vivid run``, ``vivid report`` and ``vivid redact`` with one line.

Each used to stop with a traceback from its first write (the run's lock file, a figure, the scrub
marker). Now each names the folder in one line, exits non-zero, and changes nothing: every file
the folder held is there, byte for byte. The folder is made read-only for the command's process
by :func:`tests.read_only.read_only` (a read-only bind mount as root, permission bits otherwise).
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.read_only import read_only
from vivid_inspect.lab.cli.main import main
from vivid_inspect.lab.writable import FolderNotWritable, check_writable

SPEC = """\
name: ro
data: sample
log_dir: {log_dir}
runs:
  - tasks: [explain]
    models: [vivid/oracle]
    limit: 2
judges:
  - name: lexical
    strategy: lexical
"""
SECRET = "gw-Secret-Value-for-redact-9876"


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _vivid(prefix: list[str], *argv: str, cwd: Path, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = subprocess.run(
        [*prefix, sys.executable, "-m", "vivid_inspect.lab.cli.main", *argv],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=cwd,
        env={**os.environ, **(env or {})},
    )
    return result.returncode, result.stdout + result.stderr


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding a spec and the logs, record and report of its finished run."""
    folder = tmp_path_factory.mktemp("finished")
    spec = folder / "ro.yaml"
    spec.write_text(SPEC.format(log_dir="logs"), encoding="utf-8")
    assert main(["run", str(spec), "--display", "none"]) == 0
    with zipfile.ZipFile(folder / "logs" / "extra.eval", "w") as archive:  # a log holding a secret
        archive.writestr("samples/1.json", f'{{"error": "echo {SECRET}"}}')
    return folder


@pytest.mark.slow
def test_run_on_a_read_only_log_folder_names_it_and_changes_nothing(finished: Path) -> None:
    log_dir = finished / "logs"
    before = _snapshot(log_dir)
    with read_only(log_dir) as prefix:
        code, out = _vivid(prefix, "run", str(finished / "ro.yaml"), "--display", "none", cwd=finished)
    assert code == 2, out
    assert f"vivid run: cannot write to the log folder {log_dir}: " in out
    assert "Nothing was run" in out and "Traceback" not in out
    assert len(out.strip().splitlines()) <= 3, out
    assert _snapshot(log_dir) == before


@pytest.mark.slow
def test_run_whose_new_log_folder_would_be_made_in_a_read_only_folder(tmp_path: Path) -> None:
    parent = tmp_path / "shared"
    parent.mkdir()
    (parent / "kept.txt").write_text("kept")
    spec = tmp_path / "ro.yaml"
    spec.write_text(SPEC.format(log_dir="shared/new/logs"), encoding="utf-8")
    with read_only(parent) as prefix:
        code, out = _vivid(prefix, "run", str(spec), "--display", "none", cwd=tmp_path)
    assert code == 2, out
    assert f"cannot write to the log folder {parent / 'new' / 'logs'}: " in out and "Traceback" not in out
    assert sorted(p.name for p in parent.iterdir()) == ["kept.txt"]


@pytest.mark.parametrize("out_option", [True, False], ids=["--out", "default-LOG_DIR-report"])
def test_report_to_a_read_only_folder_names_it_and_changes_nothing(
    finished: Path, tmp_path: Path, out_option: bool
) -> None:
    log_dir = finished / "logs"
    out_dir = tmp_path / "out" if out_option else log_dir / "report"
    out_dir.mkdir(exist_ok=True)
    (out_dir / "old.md").write_text("an earlier report")
    before = _snapshot(out_dir)
    argv = ["report", str(log_dir), *(["--out", str(out_dir)] if out_option else [])]
    with read_only(out_dir) as prefix:
        code, out = _vivid(prefix, *argv, cwd=tmp_path)
    (out_dir / "old.md").unlink()
    assert code == 2, out
    assert f"vivid report: cannot write the report to {out_dir}" in out and "Traceback" not in out
    assert len(out.strip().splitlines()) <= 3, out
    assert {k: v for k, v in _snapshot(out_dir).items() if k != "old.md"} == {
        k: v for k, v in before.items() if k != "old.md"
    }


@pytest.mark.slow
def test_redact_on_a_read_only_folder_names_it_and_leaves_the_secret_where_it_was(finished: Path) -> None:
    log_dir = finished / "logs"
    before = _snapshot(log_dir)
    with read_only(log_dir) as prefix:
        code, out = _vivid(prefix, "redact", str(log_dir), cwd=finished, env={"GATEWAY_API_KEY": SECRET})
    assert code == 2, out
    assert f"vivid redact: cannot rewrite files under {log_dir}: " in out and "Nothing was changed" in out
    assert "Traceback" not in out and SECRET not in out
    assert _snapshot(log_dir) == before


@pytest.mark.slow
def test_a_file_that_cannot_be_rewritten_is_named_and_the_exit_is_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # one subfolder read-only, the folder itself writable: the others are redacted, that one named
    folder = tmp_path / "logs"
    (folder / "locked").mkdir(parents=True)
    (folder / "open.json").write_text(f'"{SECRET}"')
    (folder / "locked" / "held.json").write_text(f'"{SECRET}"')
    with read_only(folder / "locked") as prefix:
        code, out = _vivid(prefix, "redact", str(folder), cwd=tmp_path, env={"GATEWAY_API_KEY": SECRET})
    assert code == 1, out
    assert "1 file(s) rewritten" in out and "1 file(s) could not be checked or rewritten" in out
    assert str(folder / "locked" / "held.json") in out and "Traceback" not in out and SECRET not in out
    assert SECRET not in (folder / "open.json").read_text()
    assert SECRET in (folder / "locked" / "held.json").read_text()


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda tmp: tmp / "file.txt" / "logs", id="under-a-file"),
        pytest.param(lambda tmp: tmp / "file.txt", id="a-file"),
    ],
)
def test_check_writable_refuses_a_path_that_cannot_hold_files(tmp_path: Path, make) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "file.txt").write_text("not a folder")
    with pytest.raises(FolderNotWritable, match="is a file, not a folder"):
        check_writable(make(tmp_path))
    check_writable(tmp_path / "new" / "deeper")  # would be created in tmp_path: fine, and not created
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.txt"]
