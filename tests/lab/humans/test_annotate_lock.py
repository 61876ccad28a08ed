"""One `vivid annotate serve` per annotation folder, and no other writer of its files while it runs.

The holder is a real process: a real server (``vivid annotate serve`` in a subprocess), or a small
Python process that holds the folder the way the server does and sleeps. The contenders are
every way of writing the folder's files: a second server on another port, reached by the same
path, a symbolic link or a relative path, started from the log or from the folder's own sheet;
``vivid annotate import --out`` and ``vivid annotate export --out`` into the folder. Each exits
75 at once naming the holder (pid, host, port, since when) and changes nothing; a lock left by a
killed holder is taken over.
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

import httpx
import pytest

from tests.lab.humans.annotate.test_annotate_server import (
    client_of,
    finish,
    generation_log,  # noqa: F401 - a fixture
    log,  # noqa: F401 - a fixture
    servers,  # noqa: F401 - a fixture
    snapshot,
    start_server,
    token,
)
from vivid_inspect.lab.cli.main import main
from vivid_inspect.lab.folder_lock import FolderBusy, read_holder
from vivid_inspect.lab.humans.annotate.app import TOKEN_HEADER
from vivid_inspect.lab.humans.annotate.opening import default_folder, open_workspace
from vivid_inspect.lab.humans.annotate.sheet_export import export_sheet
from vivid_inspect.lab.humans.scores_file import record_path
from vivid_inspect.lab.humans.sheet_import import import_sheets
from vivid_inspect.lab.humans.sheet_lock import LOCK_FILE, hold_annotation_folder, not_served

HOLD = """\
import sys, time
from pathlib import Path
from vivid_inspect.lab.humans.sheet_lock import hold_annotation_folder
held = hold_annotation_folder(Path(sys.argv[1]))
held.update(address="127.0.0.1", port=int(sys.argv[2]))
print("held", flush=True)
time.sleep(float(sys.argv[3]))
"""


@contextmanager
def holder(folder: Path, port: int = 8123, seconds: float = 120) -> Iterator[subprocess.Popen[str]]:
    """Another process holding the annotation folder as a server does (killed on exit)."""
    folder.mkdir(parents=True, exist_ok=True)
    process = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(folder), str(port), str(seconds)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "held"
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()


def names_holder(err: str, pid: int, port: int) -> bool:
    return f"pid {pid} on host {socket.gethostname()}, address 127.0.0.1, port {port}, since 20" in err


# --- a second server --------------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_second_server_on_the_folder_exits_75_naming_the_first_and_the_first_keeps_every_score(
    log: Path,  # noqa: F811
    tmp_path: Path,
    servers: list[subprocess.Popen[str]],  # noqa: F811
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    args = [str(log), "--annotators", "lan,minh", "--overlap", "2", "-n", "100", "--port", "0"]
    first, urls = start_server(args, tmp_path)
    servers.append(first)
    url = httpx.URL(urls["lan"])
    base, header = f"http://127.0.0.1:{url.port}", {TOKEN_HEADER: url.params["t"]}
    queue = [i["id"] for i in httpx.get(f"{base}/api/state", headers=header).json()["items"]]
    assert (
        httpx.post(f"{base}/api/score", headers=header, json={"id": queue[0], "score": 4}).status_code == 200
    )
    folder = default_folder(log)
    before = snapshot(folder)
    link = tmp_path / "link.annotation"
    link.symlink_to(folder)
    elsewhere = tmp_path / "elsewhere.csv"
    export_sheet(log, elsewhere, n=3)

    contenders = {
        "another-port": [str(log), "--annotators", "lan,minh", "--overlap", "2", "-n", "100", "--port", "0"],
        "by-a-symlink": [*args, "--out-dir", str(link)],
        "by-a-relative-path": [*args, "--out-dir", os.path.relpath(folder, tmp_path)],
        "from-another-sheet": [
            str(elsewhere),
            "--annotators",
            "lan",
            "--out-dir",
            str(folder),
            "--port",
            "0",
        ],
        "other-options": [str(log), "--annotators", "tuan", "-n", "3", "--port", "0"],
    }
    started = time.monotonic()
    # Two second servers as processes, at once: each must be refused while the first holds the
    # folder, whatever the other does. The other shapes go through main([...]) in this process
    # while those run (the same refusal and exit code, without an interpreter each).
    in_processes = ("another-port", "by-a-symlink")
    running = {
        shape: subprocess.Popen(
            [sys.executable, "-m", "vivid_inspect.lab.cli.main", "annotate", "serve", *contenders[shape]],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for shape in in_processes
    }
    printed: dict[str, tuple[int, str, str]] = {}
    capsys.readouterr()
    with monkeypatch.context() as patch:
        patch.chdir(tmp_path)
        for shape, contender in contenders.items():
            if shape not in in_processes:
                code = main(["annotate", "serve", *contender])
                printed[shape] = (code, *capsys.readouterr())
    for shape, second in running.items():
        out, err = second.communicate(timeout=180)
        printed[shape] = (second.returncode, out, err)
    assert set(printed) == set(contenders)
    for shape, (code, out, err) in printed.items():
        assert code == 75, (shape, out, err)
        named = link.name if shape == "by-a-symlink" else folder.name
        assert "the annotation folder " in err and named in err, shape
        assert "in use by another `vivid annotate serve`" in err, shape
        assert names_holder(err, first.pid, url.port), (shape, err)
        assert "Traceback" not in err and out == "", shape
    assert time.monotonic() - started < 150  # at once: none waits for the holder
    assert snapshot(folder) == before

    # The first server never noticed: its scores are all there, and it goes on saving.
    assert (
        httpx.post(f"{base}/api/score", headers=header, json={"id": queue[1], "score": 2}).status_code == 200
    )
    state = httpx.get(f"{base}/api/state", headers=header).json()
    assert [i["score"] for i in state["items"][:2]] == [4, 2] and state["done"] == 2


@pytest.mark.slow
def test_a_killed_servers_lock_is_taken_over(
    log: Path,  # noqa: F811
    tmp_path: Path,
    servers: list[subprocess.Popen[str]],  # noqa: F811
) -> None:
    args = [str(log), "--annotators", "lan", "-n", "100", "--port", "0"]
    first, _ = start_server(args, tmp_path)
    servers.append(first)
    first.send_signal(signal.SIGKILL)
    first.wait(10)
    folder = default_folder(log)
    assert read_holder(folder / LOCK_FILE).pid == first.pid  # the dead server's lock file is still there
    again, urls = start_server(args, tmp_path)
    servers.append(again)
    assert set(urls) == {"lan"}
    assert read_holder(folder / LOCK_FILE).pid == again.pid


@pytest.mark.parametrize(
    "content",
    [
        pytest.param('{"pid": 999999999, "host": "elsewhere", "port": 1}\n', id="dead-pid"),
        pytest.param("not json at all", id="garbage"),
        pytest.param("[" * 5000, id="deep-json"),
        pytest.param("", id="empty"),
    ],
)
def test_a_stale_or_broken_lock_file_does_not_block(log: Path, content: str) -> None:  # noqa: F811
    folder = default_folder(log)
    folder.mkdir()
    (folder / LOCK_FILE).write_text(content)
    space = open_workspace(log, ["lan"], n=100)
    try:
        assert read_holder(folder / LOCK_FILE).pid == os.getpid()
    finally:
        space.close()


def test_the_cli_refuses_a_held_folder_in_process_too(
    log: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = default_folder(log)
    with holder(folder, port=8124) as held:
        before = snapshot(folder)
        code = main(["annotate", "serve", str(log), "--annotators", "lan", "-n", "100", "--port", "0"])
        err = capsys.readouterr().err
    assert code == 75
    assert names_holder(err, held.pid, 8124) and "Nothing was started." in err
    assert snapshot(folder) == before == {LOCK_FILE: before[LOCK_FILE]}


def test_the_library_refuses_a_held_folder_before_writing_anything(log: Path) -> None:  # noqa: F811
    folder = default_folder(log)
    with holder(folder, port=8125) as held, pytest.raises(FolderBusy, match=f"pid {held.pid} on host"):
        open_workspace(log, ["lan"], n=100)
    assert sorted(p.name for p in folder.iterdir()) == [LOCK_FILE]


def test_a_closed_workspace_lets_the_folder_go(log: Path, tmp_path: Path) -> None:  # noqa: F811
    space = open_workspace(log, ["lan"], n=100)
    space.close()
    taker = subprocess.run(
        [sys.executable, "-c", HOLD, str(space.folder), "1", "0"], capture_output=True, text=True, timeout=60
    )
    assert taker.returncode == 0 and taker.stdout.strip() == "held", taker.stderr


# --- other writers ----------------------------------------------------------------------------------------


@pytest.fixture()
def served(log: Path, tmp_path: Path) -> Iterator[tuple[Path, Path, subprocess.Popen[str]]]:  # noqa: F811
    """An annotation folder whose annotator finished, with a filled copy of their sheet, held by another process."""
    space = open_workspace(log, ["lan"], n=100)
    with client_of(space) as client:
        finish(client, space, "lan")
    space.close()
    filled = tmp_path / "filled.csv"
    filled.write_bytes(space.annotators["lan"].path.read_bytes())
    record_path(filled).write_bytes(record_path(space.annotators["lan"].path).read_bytes())
    with holder(space.folder, port=8126) as held:
        yield space.folder, filled, held


@pytest.mark.parametrize("target", ["humans.csv", "lan.csv", "sheet.csv", "new.csv"])
def test_import_into_a_held_folder_exits_75_and_writes_nothing(
    served: tuple[Path, Path, subprocess.Popen[str]], target: str, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, filled, held = served
    before = snapshot(folder)
    out = folder / target
    code = main(["annotate", "import", str(filled), "--out", str(out), "--force"])
    err = capsys.readouterr().err
    assert code == 75, err
    assert f"{out}: the annotation folder {folder} is held by a running `vivid annotate serve`" in err
    assert names_holder(err, held.pid, 8126) and "Nothing was written." in err and "Traceback" not in err
    assert snapshot(folder) == before


@pytest.mark.parametrize("target", ["sheet.csv", "new.csv"])
def test_export_into_a_held_folder_exits_75_and_writes_nothing(
    served: tuple[Path, Path, subprocess.Popen[str]],
    log: Path,  # noqa: F811
    target: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder, _, held = served
    before = snapshot(folder)
    code = main(["annotate", "export", str(log), "--out", str(folder / target), "-n", "3", "--force"])
    err = capsys.readouterr().err
    assert code == 75 and names_holder(err, held.pid, 8126), err
    assert snapshot(folder) == before


def test_the_library_writers_are_refused_too(
    served: tuple[Path, Path, subprocess.Popen[str]],
    log: Path,  # noqa: F811
) -> None:
    folder, filled, held = served
    before = snapshot(folder)
    with pytest.raises(FolderBusy, match=f"pid {held.pid}"):
        import_sheets([filled], folder / "humans.csv", force=True)
    with pytest.raises(FolderBusy, match=f"pid {held.pid}"):
        export_sheet(log, folder / "sheet.csv", n=3, force=True)
    assert snapshot(folder) == before


def test_once_the_server_is_gone_import_writes_into_the_folder(
    served: tuple[Path, Path, subprocess.Popen[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, filled, held = served
    held.kill()
    held.wait()
    assert main(["annotate", "import", str(filled), "--out", str(folder / "again.csv")]) == 0
    assert (folder / "again.csv").is_file()


def test_writing_into_an_ordinary_folder_leaves_no_lock_file(tmp_path: Path) -> None:
    out = tmp_path / "plain" / "humans.csv"
    out.parent.mkdir()
    with not_served(out):
        out.write_text("id,score\n1,3\n")
    assert sorted(p.name for p in out.parent.iterdir()) == ["humans.csv"]


def test_a_server_re_enters_its_own_folder_from_any_thread(log: Path) -> None:  # noqa: F811
    # The server writes humans.csv with import's own code, from Starlette's worker threads.
    space = open_workspace(log, ["lan", "minh"], overlap=2, n=100)
    try:
        with client_of(space) as client:
            finish(client, space, "lan")
            state = client.get("/api/state", headers=token(space)).json()
        assert state["humans"] is not None and space.humans_path.is_file()
        again = hold_annotation_folder(space.folder)
        again.release()
        assert read_holder(space.folder / LOCK_FILE).pid == os.getpid()
    finally:
        space.close()


@pytest.mark.parametrize("content", ["[" * 5000, "not json", "\xff"], ids=["deep", "garbage", "not-utf8"])
def test_a_broken_tokens_file_is_named_not_a_traceback(
    log: Path,  # noqa: F811
    content: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    space = open_workspace(log, ["lan"], n=100)
    space.close()
    (space.folder / ".tokens.json").write_bytes(content.encode("latin-1"))
    assert main(["annotate", "serve", str(log), "--annotators", "lan", "-n", "100", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert f"{space.folder / '.tokens.json'}: unreadable" in err and "Traceback" not in err
