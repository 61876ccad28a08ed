"""Hostile report folders: decompression bombs, other tasks' logs, multi-line errors, a file as folder.

A real VIVID log (the offline ``vivid/oracle`` model judged by the lexical judge) is copied into a
folder beside doctored copies. Bombs replace one member of the zip with a few kB that inflate to
64 MiB, compressed with deflate or zstd, with an honest or a lying declared size; the report reads
with a 1 MiB cap (a parameter, as ``VIVID_MAX_LOG_BYTES`` sets it for the CLI) so the test stays
fast, and must skip the file by name, count only the good log and keep its memory bounded.
"""

from __future__ import annotations

import struct
import tracemalloc
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
import zstandard
from inspect_ai import Task, eval, task
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log
from inspect_ai.model import get_model

from vivid_inspect.lab.bounded_zip import (
    MAX_INFLATED_ENV,
    Budget,
    InflationError,
    read_member,
)
from vivid_inspect.lab.cli.main import main
from vivid_inspect.lab.report.build import write_report
from vivid_inspect.lab.report.reading.logs import is_vivid_log, read_logs
from vivid_inspect.tasks import explain

CAP = 2**20
BOMB = 64 * 2**20


@pytest.fixture(scope="module")
def good_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("good")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("INSPECT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        (log,) = eval(
            explain(judge="lexical", data="sample"),
            model=get_model("vivid/oracle", data="sample"),
            sample_id=[1, 3, 5],
            log_dir=str(root),
            display="none",
        )
    assert log.status == "success"
    return Path(log.location)


def _deflate(data: bytes) -> tuple[bytes, int]:
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    return packer.compress(data) + packer.flush(), zipfile.ZIP_DEFLATED


def _zstd(data: bytes) -> tuple[bytes, int]:
    return zstandard.ZstdCompressor(level=19).compress(data), 93


def replace_member(
    source: Path,
    target: Path,
    name: str,
    content: bytes,
    compress: Callable[[bytes], tuple[bytes, int]],
    declared: int | None = None,
) -> None:
    """Copy a zip with member ``name`` replaced by ``content``; ``declared`` makes its size lie."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for info in old.infolist():
            if info.filename != name:
                new.writestr(info, old.read(info.filename), compress_type=zipfile.ZIP_DEFLATED)
        info = zipfile.ZipInfo(name)
        info.compress_type = zipfile.ZIP_STORED
        new.writestr(info, b"")  # a placeholder whose headers are patched below
    data, method = compress(content)
    size = len(content) if declared is None else declared
    crc = zlib.crc32(content)
    _patch(target, name, data, method, crc, size)


def _patch(path: Path, name: str, data: bytes, method: int, crc: int, size: int) -> None:
    # The placeholder is the last member and empty, so the central directory starts right after
    # its local header: put the data there, fix both headers and the directory's offset.
    with zipfile.ZipFile(path) as archive:
        local = archive.getinfo(name).header_offset
    raw = path.read_bytes()
    name_len, extra_len = struct.unpack_from("<HH", raw, local + 26)
    data_start = local + 30 + name_len + extra_len
    head, tail = bytearray(raw[:data_start]), bytearray(raw[data_start:])
    assert tail.startswith(b"PK\x01\x02")
    struct.pack_into("<HHHIII", head, local + 8, method, 0, 0, crc, len(data), size)
    position = 0
    while (position := tail.find(b"PK\x01\x02", position)) >= 0:
        entry_name_len = struct.unpack_from("<H", tail, position + 28)[0]
        if bytes(tail[position + 46 : position + 46 + entry_name_len]) == name.encode():
            struct.pack_into("<HHHIII", tail, position + 10, method, 0, 0, crc, len(data), size)
        position += 46
    end = tail.rindex(b"PK\x05\x06")
    struct.pack_into("<I", tail, end + 16, struct.unpack_from("<I", tail, end + 16)[0] + len(data))
    path.write_bytes(bytes(head) + data + bytes(tail))


def test_the_patched_zip_helper_writes_a_readable_member(good_log: Path, tmp_path: Path) -> None:
    target = tmp_path / "copy.eval"
    replace_member(good_log, target, "summaries.json", b"[]", _deflate)
    with zipfile.ZipFile(target) as archive:
        assert archive.read("summaries.json") == b"[]"
        assert archive.read("header.json") == zipfile.ZipFile(good_log).read("header.json")
    assert read_member(target, "summaries.json", Budget(10)) == b"[]"


BOMBS = [
    pytest.param(member, compress, declared, id=f"{member}-{compress.__name__[1:]}-{label}")
    for member in ("summaries.json", "header.json", "reductions.json")
    for compress in (_deflate, _zstd)
    for label, declared in (("honest-size", None), ("lying-size", 200))
]


@pytest.mark.slow
@pytest.mark.parametrize(("member", "compress", "declared"), BOMBS)
def test_a_decompression_bomb_is_skipped_by_name_with_bounded_memory(
    good_log: Path,
    tmp_path: Path,
    member: str,
    compress: Callable[[bytes], tuple[bytes, int]],
    declared: int | None,
) -> None:
    root = tmp_path / "logs"
    root.mkdir()
    (root / "good.eval").write_bytes(good_log.read_bytes())
    replace_member(good_log, root / "bomb.eval", member, b" " * BOMB, compress, declared)
    assert (root / "bomb.eval").stat().st_size < 2**20  # small on disk

    tracemalloc.start()
    try:
        logs = read_logs(root, max_inflated_bytes=CAP)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert [ref.rel for ref in logs.logs] == ["good.eval"]
    assert set(logs.scores["log"]) == {"good.eval"}
    (skipped,) = logs.skipped
    assert skipped.startswith("bomb.eval: InflationError: ") and member in skipped
    assert peak < 16 * 2**20, f"peak {peak / 2**20:.0f} MiB"


def test_members_within_the_cap_are_read_and_the_cap_counts_the_whole_log(good_log: Path) -> None:
    with zipfile.ZipFile(good_log) as archive:
        header = archive.read("header.json")
    assert read_member(good_log, "header.json", Budget(len(header))) == header
    budget = Budget(len(header) + 10)
    read_member(good_log, "header.json", budget)
    with pytest.raises(InflationError, match="summaries.json inflates past"):
        read_member(good_log, "summaries.json", budget)


@pytest.mark.slow
def test_the_cli_reports_a_bomb_under_the_env_cap(
    good_log: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "logs"
    root.mkdir()
    (root / "good.eval").write_bytes(good_log.read_bytes())
    replace_member(good_log, root / "bomb.eval", "summaries.json", b"[" + b" " * BOMB + b"]", _zstd)
    monkeypatch.setenv(MAX_INFLATED_ENV, str(CAP))

    code = main(["report", str(root), "--no-figures"])

    out, err = capsys.readouterr()
    assert code == 0
    assert "- logs read: 1 (explain 1;" in out
    assert "- skipped: bomb.eval: InflationError: summaries.json inflates past 1,048,576 bytes" in out
    assert "vivid report: skipped" not in out  # the warning goes to stderr, not into the markdown
    assert "vivid report: skipped bomb.eval: InflationError: summaries.json inflates past" in err


@task
def unrelated() -> Task:
    return Task(dataset=[Sample(id=i, input="hi", target="x") for i in (1, 2)], name="unrelated")


@pytest.mark.slow
def test_a_log_of_another_task_without_a_score_is_skipped_not_counted(good_log: Path, tmp_path: Path) -> None:
    root = tmp_path / "logs"
    root.mkdir()
    (root / "good.eval").write_bytes(good_log.read_bytes())
    (other,) = eval(unrelated(), model="mockllm/model", log_dir=str(root / "other"), display="none")
    other_rel = Path(other.location).relative_to(root).as_posix()

    report = write_report(root, figures=False)

    counts = report.table("counts").frame
    assert set(counts["task"]) == {"explain"}
    usage = report.table("usage").frame
    assert "mockllm/model" not in set(usage["model"].astype(str))
    # read by the generic adapter, which finds no score to read: skipped with its reason
    assert (
        f"- skipped: {other_rel}: no score is a number or one of Inspect's letters C/P/I/N (scorers: none)"
        in report.markdown
    )
    assert "- logs read: 1 (explain 1;" in report.markdown


def _with_task(header: EvalLog, **fields: object) -> EvalLog:
    return header.model_copy(update={"eval": header.eval.model_copy(update=fields)})


@pytest.mark.parametrize(
    ("fields", "ours"),
    [
        pytest.param({}, True, id="registry-name"),
        pytest.param(
            {"task": "topic", "task_registry_name": "topic", "task_file": "/x/vivid_inspect/tasks.py"},
            True,
            id="tasks-py-file",
        ),
        pytest.param(
            {"task": "explain", "task_registry_name": "explain", "task_file": "/x/mine/tasks.py"},
            False,
            id="same-name-other-file",
        ),
        pytest.param(
            {"task": "explain", "task_registry_name": "explain", "task_file": None},
            False,
            id="same-name-no-file",
        ),
        pytest.param(
            {"task": "other_pkg/explain", "task_registry_name": "other_pkg/explain"},
            False,
            id="other-package",
        ),
        pytest.param(
            {"task": "vivid_inspect/sanity", "task_registry_name": "vivid_inspect/sanity"},
            False,
            id="not-a-report-task",
        ),
    ],
)
def test_which_logs_are_vivid_logs(good_log: Path, fields: dict[str, object], ours: bool) -> None:
    header = read_eval_log(str(good_log), header_only=True)
    assert is_vivid_log(_with_task(header, **fields)) is ours


BROKEN_HEADERS = [
    pytest.param(b'{"version": 2, "eval": {"task": "x"}}', id="validation-error"),
    pytest.param(b'{"version": 2,\n "eval": \n', id="truncated-json"),
    pytest.param(b"line one\nline two\r\nline three", id="not-json"),
]


@pytest.mark.parametrize("content", BROKEN_HEADERS)
def test_a_multi_line_error_stays_one_line_in_the_markdown_list(
    good_log: Path, tmp_path: Path, content: bytes
) -> None:
    root = tmp_path / "logs"
    root.mkdir()
    (root / "good.eval").write_bytes(good_log.read_bytes())
    replace_member(good_log, root / "broken.eval", "header.json", content, _deflate)

    report = write_report(root, figures=False)

    assert report.markdown.startswith("# VIVID report\n\n## Summary")
    bullets = report.markdown.split("## Logs read\n\n")[1].split("\n\n")[0]
    preamble = bullets.splitlines()
    assert all(line.startswith("- ") for line in preamble), preamble
    (entry,) = [line for line in preamble if line.startswith("- skipped: broken.eval: ")]
    assert len(entry) < 400


@pytest.mark.parametrize("inside", [False, True], ids=["the-file", "a-folder-inside-it"])
def test_a_log_folder_that_is_a_file_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], inside: bool
) -> None:
    (tmp_path / "logs").write_text("not a folder")
    target = tmp_path / "logs" / "x" if inside else tmp_path / "logs"
    code = main(["report", str(target)])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert str(target) in err


# --- usage reads sample events: through the cap too -----------------------------------------------------


def judged_copy_without_usage(good_log: Path, root: Path) -> Path:
    """A judged copy of the good log whose record has no usage: the report reads its sample events."""
    log = read_eval_log(str(good_log))
    log.eval.metadata = {
        **(log.eval.metadata or {}),
        "vivid_judge": {
            "name": "lexical-b",
            "strategy": "lexical",
            "model": "vivid/chrf",
            "generation_log": "good.eval",
        },
    }
    target = root / "judged" / "good.eval"
    target.parent.mkdir(parents=True)
    write_eval_log(log, str(target))
    return target


SAMPLE_BOMBS = [
    pytest.param(compress, content, id=f"{compress.__name__[1:]}-{label}")
    for compress in (_deflate, _zstd)
    for label, content in (("spaces", b" " * BOMB), ("a-json-string", b'{"events": "' + b"x" * BOMB + b'"}'))
]


@pytest.mark.slow
@pytest.mark.parametrize(("compress", "content"), SAMPLE_BOMBS)
def test_a_bomb_in_a_sample_is_not_inflated_by_the_usage_table(
    good_log: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    compress: Callable[[bytes], tuple[bytes, int]],
    content: bytes,
) -> None:
    root = tmp_path / "logs"
    root.mkdir()
    (root / "good.eval").write_bytes(good_log.read_bytes())
    clean = judged_copy_without_usage(good_log, tmp_path / "clean")
    with zipfile.ZipFile(clean) as archive:
        sample = sorted(n for n in archive.namelist() if n.startswith("samples/"))[0]
    bombed = root / "judged" / "good.eval"
    bombed.parent.mkdir()
    replace_member(clean, bombed, sample, content, compress)
    monkeypatch.setenv(MAX_INFLATED_ENV, str(CAP))

    tracemalloc.start()
    try:
        report = write_report(root, figures=False)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    usage = report.table("usage")
    assert any(
        note.startswith("judged/good.eval: the lexical-b judge's usage is not counted")
        and "inflates past 1,048,576" in note
        for note in usage.notes
    ), usage.notes
    assert peak < 48 * 2**20, f"peak {peak / 2**20:.0f} MiB"


@pytest.mark.slow
@pytest.mark.parametrize(
    "content", [b"[" * 100_000, b"not json", b"[1, 2]"], ids=["deep", "garbage", "an-array"]
)
def test_a_sample_that_is_not_a_sample_is_said_not_counted(
    good_log: Path, tmp_path: Path, content: bytes
) -> None:
    root = tmp_path / "logs"
    root.mkdir()
    (root / "good.eval").write_bytes(good_log.read_bytes())
    clean = judged_copy_without_usage(good_log, tmp_path / "clean")
    with zipfile.ZipFile(clean) as archive:
        sample = sorted(n for n in archive.namelist() if n.startswith("samples/"))[0]
    (root / "judged").mkdir()
    replace_member(clean, root / "judged" / "good.eval", sample, content, _deflate)
    report = write_report(root, figures=False)
    notes = report.table("usage").notes
    if content == b"[1, 2]":  # read, but it holds no events: no calls counted from it
        assert not any("usage is not counted" in note for note in notes)
    else:
        assert any(
            note.startswith("judged/good.eval: the lexical-b judge's usage is not counted") for note in notes
        ), notes


def test_write_log_refuses_at_start_a_log_that_would_inflate_past_the_cap(
    good_log: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vivid_inspect.lab.humans.annotate.opening import open_workspace

    root = tmp_path / "logs"
    root.mkdir()
    bombed = root / good_log.name
    replace_member(good_log, bombed, "extra.json", b" " * BOMB, _zstd)  # a member only a full read inflates
    monkeypatch.setenv(MAX_INFLATED_ENV, str(CAP))
    open_workspace(bombed, ["lan"], n=3, folder=tmp_path / "plain").close()  # without --write-log: served
    with pytest.raises(ValueError, match=rf"--write-log: {bombed}: extra.json inflates past 1,048,576 bytes"):
        open_workspace(bombed, ["lan"], n=3, folder=tmp_path / "copies", write_log=True)
