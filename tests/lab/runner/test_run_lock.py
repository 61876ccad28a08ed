"""One ``vivid run`` per log folder: a second exits at once (75) naming the holder, or waits.

The holder is a real process: either a small Python process that takes the lock and sleeps, or a
real ``vivid run``. Specs use the offline models (``vivid/oracle`` judged by the lexical judge),
so nothing touches the network. Also here: a ``log_dir`` that is a file is exit 2 for every
runner command.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from vivid_inspect.lab.cli.main import main
from vivid_inspect.lab.folder_lock import FolderBusy, read_holder
from vivid_inspect.lab.runner.lock import LOCK_FILE, log_folder_lock

SPEC = """\
name: {name}
data: sample
log_dir: {log_dir}
runs:
  - tasks: [explain]
    models: [vivid/oracle]
    limit: 3
judges:
  - name: {judge}
    strategy: lexical
"""

HOLD = """\
import sys, time
from pathlib import Path
from vivid_inspect.lab.runner.lock import log_folder_lock
with log_folder_lock(Path(sys.argv[1]), spec="holder.yaml"):
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def write_spec(folder: Path, name: str, log_dir: Path, judge: str = "lexical") -> Path:
    spec = folder / f"{name}.yaml"
    spec.write_text(SPEC.format(name=name, log_dir=log_dir, judge=judge), encoding="utf-8")
    return spec


@contextmanager
def holder(folder: Path, seconds: float) -> Iterator[subprocess.Popen[str]]:
    """A separate process holding the folder's lock for ``seconds`` (killed on exit)."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(folder), str(seconds)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "held"
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()


def run(spec: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> tuple[int, str, float]:
    capsys.readouterr()
    started = time.monotonic()
    code = main(["run", str(spec), "--display", "none", "--no-report", *flags])
    return code, capsys.readouterr().err, time.monotonic() - started


def test_a_second_run_exits_75_at_once_naming_the_folder_and_the_holder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log_dir = tmp_path / "logs"
    spec = write_spec(tmp_path, "second", log_dir)
    with holder(log_dir, 120) as held:
        code, err, elapsed = run(spec, capsys)
        assert code == 75
        assert f"the log folder {log_dir} is in use by another vivid run" in err
        assert f"pid {held.pid} on host {socket.gethostname()} since " in err and "(spec holder.yaml)" in err
        assert "Nothing was run." in err and "Traceback" not in err
        assert elapsed < 30  # promptly: it does not wait for the holder's 120 s
        assert sorted(p.name for p in log_dir.iterdir()) == [LOCK_FILE]  # wrote nothing


@pytest.mark.slow
def test_wait_queues_behind_the_holder_then_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log_dir = tmp_path / "logs"
    spec = write_spec(tmp_path, "queued", log_dir)
    with holder(log_dir, 4) as held:
        code, err, elapsed = run(spec, capsys, "--wait")
        assert held.wait(timeout=60) == 0
    assert code == 0, err
    assert f"vivid run: waiting for pid {held.pid} on host" in err
    assert elapsed >= 2
    assert (log_dir / "vivid" / "queued" / "spec.resolved.yaml").is_file()
    assert not (log_dir / LOCK_FILE).exists()  # released


@pytest.mark.slow
def test_a_lock_left_by_a_killed_run_does_not_block(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log_dir = tmp_path / "logs"
    spec = write_spec(tmp_path, "after_kill", log_dir)
    with holder(log_dir, 120) as held:
        os.kill(held.pid, signal.SIGKILL)
        held.wait()
    stale = read_holder(log_dir / LOCK_FILE)
    assert stale.pid == held.pid  # the killed run's lock file is still there

    code, err, elapsed = run(spec, capsys)

    assert code == 0, err
    assert elapsed < 120


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(
            '{"pid": 999999999, "host": "elsewhere", "started": "2020-01-01T00:00:00+00:00"}\n', id="dead-pid"
        ),
        pytest.param("not json at all", id="garbage"),
        pytest.param("", id="empty"),
    ],
)
def test_a_stale_or_broken_lock_file_does_not_block(tmp_path: Path, content: str) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / LOCK_FILE).write_text(content)
    with log_folder_lock(folder, spec="mine.yaml"):
        holder_now = read_holder(folder / LOCK_FILE)
        assert holder_now.pid == os.getpid() and holder_now.detail("spec") == "mine.yaml"


def test_the_lock_excludes_a_second_holder_until_released(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    with (
        log_folder_lock(folder, spec="first.yaml"),
        pytest.raises(FolderBusy, match=r"pid \d+ on host .* \(spec first\.yaml\)"),
        log_folder_lock(folder, spec="second.yaml"),
    ):
        pass
    with log_folder_lock(folder, spec="third.yaml"):
        assert read_holder(folder / LOCK_FILE).detail("spec") == "third.yaml"
    assert not folder.exists()  # created for the lock, left empty: removed again


def test_a_waiter_takes_the_folder_anew_when_its_holder_removes_it(tmp_path: Path) -> None:
    # The holder created the folder and leaves it empty: it removes it as it lets go, under the
    # waiter's feet; the waiter must hold a lock file that is there, in a folder that is there.
    folder = tmp_path / "logs"
    waited: list[int | None] = []
    with (
        holder(folder, 1) as held,
        log_folder_lock(folder, spec="waiter.yaml", wait=True, on_wait=lambda h: waited.append(h.pid)),
    ):
        assert read_holder(folder / LOCK_FILE).pid == os.getpid()
        with pytest.raises(FolderBusy), log_folder_lock(folder):  # and really holds it
            pass
    assert waited == [held.pid]
    assert not (folder / LOCK_FILE).exists()  # released


@pytest.mark.slow
def test_two_specs_sharing_a_folder_run_one_after_the_other(tmp_path: Path) -> None:
    # Two real `vivid run --wait` started together, as open_judges.yaml beside judge_ablation.yaml.
    log_dir = tmp_path / "logs"
    specs = [
        write_spec(tmp_path, "first", log_dir, "lexical"),
        write_spec(tmp_path, "second", log_dir, "lexical_b"),
    ]
    command = [
        sys.executable,
        "-m",
        "vivid_inspect.lab.cli.main",
        "run",
        "--display",
        "none",
        "--no-report",
        "--wait",
    ]
    processes = [
        subprocess.Popen([*command, str(spec)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for spec in specs
    ]
    results = [process.communicate(timeout=240) for process in processes]

    assert [process.returncode for process in processes] == [0, 0], results
    # the shared generation cell was generated once, not once per run
    generations = sorted((log_dir / "generations").glob("*.eval"))
    assert len(generations) == 1, generations
    for name in ("first", "second"):
        assert (log_dir / "vivid" / name / "spec.resolved.yaml").is_file()
    assert {p.parent.name for p in (log_dir / "judged").rglob("*.eval")} == {"lexical", "lexical_b"}


@pytest.mark.parametrize("command", ["run", "plan", "validate"])
@pytest.mark.parametrize("inside", [False, True], ids=["the-file", "a-folder-inside-it"])
def test_a_log_dir_that_is_a_file_exits_2_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, inside: bool
) -> None:
    (tmp_path / "logs").write_text("a file, not a folder")
    log_dir = tmp_path / "logs" / "x" if inside else tmp_path / "logs"
    spec = write_spec(tmp_path, "file_log_dir", log_dir)

    code = main([command, str(spec)])

    err = capsys.readouterr().err
    assert code == 2
    assert f"log_dir: {log_dir} " in err and "not a folder" in err
    assert "Traceback" not in err
    assert (tmp_path / "logs").read_text() == "a file, not a folder"
