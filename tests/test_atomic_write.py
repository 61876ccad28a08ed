"""One atomic write for every file the project replaces (:mod:`vivid_inspect.atomic_write`).

A write that fails at any step (the content, the flush to disk, the rename, Ctrl-C) leaves the old
file whole (or no file) and no temporary file beside it; a complete write replaces the file with
its old permissions. The same holds where the helper is used: a scrubbed log or text file, a data
cache entry, an annotation sheet (tests/lab/humans/test_annotate_sheets.py) and a judged log
(tests/lab/runner/test_runner.py).
"""

from __future__ import annotations

import errno
import os
import stat
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from vivid_inspect.atomic_write import replacing, write_atomic
from vivid_inspect.data.sources import RawData, keep_in_cache
from vivid_inspect.lab.runner.scrub import scrub_file
from vivid_inspect.redact import REDACTED

OLD = b"the old file, whole\n"
KEY = "gw-Secret-Value-9876"


def no_space(*_: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def fail_rename(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "replace", no_space)


def fail_fsync(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "fsync", no_space)


def fail_write(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Path, "write_bytes", no_space)


FAILURES: dict[str, Callable[[pytest.MonkeyPatch], None]] = {
    "rename": fail_rename,
    "fsync": fail_fsync,
    "write": fail_write,
}


@pytest.mark.parametrize("existing", [True, False], ids=["over-a-file", "a-new-file"])
@pytest.mark.parametrize("step", list(FAILURES))
def test_a_failed_write_leaves_the_old_file_whole_and_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str, existing: bool
) -> None:
    target = tmp_path / "scores.csv"
    if existing:
        target.write_bytes(OLD)
    FAILURES[step](monkeypatch)

    with pytest.raises(OSError, match="No space left"):
        write_atomic(target, "id,score\n1,5\n")

    monkeypatch.undo()
    assert sorted(p.name for p in tmp_path.iterdir()) == (["scores.csv"] if existing else [])
    if existing:
        assert target.read_bytes() == OLD


@pytest.mark.parametrize(
    "error",
    [pytest.param(KeyboardInterrupt, id="ctrl-c"), pytest.param(ValueError, id="a-bug-in-the-writer")],
)
def test_a_writer_stopped_halfway_leaves_the_old_file_whole(
    tmp_path: Path, error: type[BaseException]
) -> None:
    target = tmp_path / "log.eval"
    target.write_bytes(OLD)
    with pytest.raises(error), replacing(target) as temporary:
        temporary.write_bytes(b"half a lo")
        raise error
    assert target.read_bytes() == OLD
    assert list(tmp_path.iterdir()) == [target]


def test_the_temporary_file_is_hidden_beside_the_target_and_replaced_whole(tmp_path: Path) -> None:
    target = tmp_path / "sheet.csv"
    target.write_bytes(OLD)
    with replacing(target) as temporary:
        # hidden (no reader of the folder takes it for a log or a sheet), on the target's file system
        assert temporary.parent == tmp_path and temporary.name.startswith(".sheet.csv.")
        assert temporary.suffix == ".tmp" and temporary.read_bytes() == b""
        temporary.write_bytes(b"new")
        assert target.read_bytes() == OLD  # nothing changes before the block ends
    assert target.read_bytes() == b"new"
    assert list(tmp_path.iterdir()) == [target]


def test_two_writers_of_one_file_never_share_a_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "sheet.csv"
    with replacing(target) as first, replacing(target) as second:
        assert first != second
        first.write_bytes(b"first")
        second.write_bytes(b"second")
    assert target.read_bytes() == b"first"  # the outer block ends last: its rename wins


@pytest.mark.parametrize("fsync", [True, False])
def test_the_content_reaches_the_disk_before_the_rename_when_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fsync: bool
) -> None:
    calls: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: calls.append("fsync") or real_fsync(fd))
    monkeypatch.setattr(os, "replace", lambda a, b: calls.append("replace") or real_replace(a, b))
    write_atomic(tmp_path / "f.txt", "x", fsync=fsync)
    assert calls == (["fsync", "replace"] if fsync else ["replace"])


def test_a_replaced_file_keeps_its_permissions_and_a_new_one_gets_the_umasks(tmp_path: Path) -> None:
    kept = tmp_path / "kept.json"
    kept.write_bytes(OLD)
    kept.chmod(0o640)
    write_atomic(kept, "{}")
    assert stat.S_IMODE(kept.stat().st_mode) == 0o640

    previous = os.umask(0o027)
    try:
        write_atomic(tmp_path / "new.json", "{}")
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "new.json").stat().st_mode) == 0o640  # 0o666 under the umask


def test_text_is_encoded_with_the_chosen_encoding_and_a_lone_surrogate_becomes_a_question_mark(
    tmp_path: Path,
) -> None:
    target = tmp_path / "sheet.csv"
    write_atomic(target, "Đầu voi \ud800 đuôi chuột", encoding="utf-8-sig")
    assert target.read_bytes() == "\ufeffĐầu voi ? đuôi chuột".encode()
    write_atomic(target, b"\x89PNG\xff")
    assert target.read_bytes() == b"\x89PNG\xff"  # bytes are written as they are


def test_an_error_names_the_file_the_caller_wrote_into(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="missing"):
        write_atomic(tmp_path / "missing" / "sheet.csv", "x")


# --- where it is used --------------------------------------------------------------------------


def _secret_text(path: Path) -> None:
    path.write_text(f'{{"error": "Bearer {KEY}"}}')


def _secret_zip(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("samples/1.json", f'{{"error": "Bearer {KEY}"}}')


@pytest.mark.parametrize(
    ("name", "make"),
    [
        pytest.param("eval-set.json", _secret_text, id="text-file"),
        pytest.param("log.eval", _secret_zip, id="eval-zip"),
    ],
)
def test_a_scrub_that_cannot_rename_leaves_the_log_whole_and_a_scrub_that_can_keeps_its_permissions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, make: Callable[[Path], None]
) -> None:
    monkeypatch.setenv("FAKE_API_KEY", KEY)
    path = tmp_path / name
    make(path)
    path.chmod(0o640)
    before = path.read_bytes()
    with monkeypatch.context() as patch:
        fail_rename(patch)
        with pytest.raises(OSError, match="No space left"):
            scrub_file(path)
    assert path.read_bytes() == before and list(tmp_path.iterdir()) == [path]

    assert scrub_file(path)

    assert KEY.encode() not in path.read_bytes() and list(tmp_path.iterdir()) == [path]
    if name.endswith(".eval"):
        with zipfile.ZipFile(path) as archive:
            assert REDACTED in archive.read("samples/1.json").decode()
    assert stat.S_IMODE(path.stat().st_mode) == 0o640  # a scrubbed log is not made private (0o600)


def test_a_cache_entry_is_written_whole_or_not_at_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry = tmp_path / "cache" / "vivid.csv"
    raw = RawData(
        source="https://example.org/vivid.csv", content=b"Idiom_Proverb,Meaning\n", cache_path=entry
    )
    with monkeypatch.context() as patch:
        fail_rename(patch)
        with pytest.raises(OSError, match="No space left"):
            keep_in_cache(raw)
    assert list(entry.parent.iterdir()) == []  # no truncated entry, no temporary file

    keep_in_cache(raw)

    assert entry.read_bytes() == raw.content and list(entry.parent.iterdir()) == [entry]
