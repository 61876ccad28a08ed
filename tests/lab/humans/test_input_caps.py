"""Input size caps: a human scores file, a sheet or a data CSV over its cap is refused before it is read.

Each kind has one cap (``vivid_inspect.size_caps``) and one variable that moves it. The shapes:
a sparse 2 GiB file under the default caps (refused by its size, without reading a byte), a file
one byte over a cap set by the variable, a file that grows past the cap while it is read, a
download that says it is too large and one that only shows it, a cached download over the cap,
and variables that are not sizes. Every refusal is one line naming the file, its size, the cap and
the variable; peak memory under the caps is measured by ``bench/input_size.py``, not here.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from vivid_inspect.data import VividDataError, _load_cached, load_vivid
from vivid_inspect.lab.cli.main import main
from vivid_inspect.lab.humans.annotate.items import read_sheet
from vivid_inspect.lab.humans.csv_records import iter_records
from vivid_inspect.lab.humans.scores_file import HumanScoresError, read_human_scores
from vivid_inspect.lab.humans.sheet_import import import_sheets
from vivid_inspect.size_caps import DATA, HUMAN_SCORES, SHEETS, SizeCap

GIB = 2**30
DATA_ROW = "Nước chảy chỗ trũng,Của cải dồn về nơi đã sẵn của.,0.0,0.0,0.0,0.0,1.0,3.0\n"
DATA_HEADER = (
    "Idiom_Proverb,Meaning,Linguistic_Complexity_Taxonomy_1,Linguistic_Complexity_Taxonomy_2,"
    "Linguistic_Complexity_Taxonomy_3,Linguistic_Complexity_Taxonomy_4,Linguistic_Complexity_Taxonomy_5,Semantic_Theme\n"
)


@pytest.fixture(autouse=True)
def fresh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    for cap in (HUMAN_SCORES, SHEETS, DATA):
        monkeypatch.delenv(cap.env, raising=False)
    monkeypatch.setenv("VIVID_CACHE_DIR", str(tmp_path / "cache"))
    _load_cached.cache_clear()
    yield
    _load_cached.cache_clear()


def sparse(path: Path, header: str, size: int) -> Path:
    """A file of ``size`` bytes that starts with ``header`` and takes no disk (a hole)."""
    with path.open("wb") as handle:
        handle.write(header.encode())
        handle.truncate(size)
    return path


def one_line_naming(message: str, path: object, cap: SizeCap) -> bool:
    return (
        len(message.splitlines()) == 1 and str(path) in message and cap.env in message and "bytes" in message
    )


# --- human scores files and sheets ----------------------------------------------------------------------


def test_a_2_gib_human_scores_file_is_refused_by_its_size(tmp_path: Path) -> None:
    path = sparse(tmp_path / "humans.csv", "id,score\n1,4\n", 2 * GIB)
    with pytest.raises(HumanScoresError) as caught:
        read_human_scores(path)
    message = str(caught.value)
    assert one_line_naming(message, path, HUMAN_SCORES)
    assert "2,147,483,648 bytes" in message and "over the 32.0 MiB (33,554,432 bytes)" in message


@pytest.mark.slow
@pytest.mark.parametrize(("value", "limit"), [("100", 100), ("1K", 1024), ("1 KiB", 1024), ("2m", 2 * 2**20)])
def test_the_variable_moves_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str, limit: int
) -> None:
    monkeypatch.setenv(HUMAN_SCORES.env, value)
    assert HUMAN_SCORES.limit() == limit
    rows = "".join(f"{i},{i % 6}\n" for i in range(1, limit))
    content = ("id,score\n" + rows).encode()[:limit]
    content = content[: content.rindex(b"\n") + 1]
    at_cap = tmp_path / "at.csv"
    at_cap.write_bytes(content + b"\n" * (limit - len(content)))  # exactly the cap (blank lines at the end)
    over = tmp_path / "over.csv"
    over.write_bytes(content + b"\n" * (limit - len(content) + 1))
    assert len(read_human_scores(at_cap)) == content.count(b"\n") - 1
    with pytest.raises(HumanScoresError) as caught:
        read_human_scores(over)
    assert one_line_naming(str(caught.value), over, HUMAN_SCORES) and f"{limit + 1:,} bytes" in str(
        caught.value
    )


@pytest.mark.parametrize("value", ["abc", "0", "-5", "1.5G", "64 MB per file", "1T"])
@pytest.mark.parametrize("cap", [HUMAN_SCORES, SHEETS, DATA], ids=lambda cap: cap.env)
def test_a_variable_that_is_not_a_size_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str, cap: SizeCap
) -> None:
    monkeypatch.setenv(cap.env, value)
    if cap is DATA:
        path = tmp_path / "vivid.csv"
        path.write_text(DATA_HEADER + DATA_ROW, encoding="utf-8")
        with pytest.raises(VividDataError, match=f"^{cap.env}={value!r} is not a size"):
            load_vivid(str(path))
        return
    path = tmp_path / "humans.csv"
    path.write_text("id,score\n1,4\n", encoding="utf-8")
    reader = read_human_scores if cap is HUMAN_SCORES else read_sheet
    with pytest.raises(HumanScoresError, match=f"{cap.env}={value!r} is not a size"):
        reader(path)


@pytest.mark.slow
def test_a_file_that_grows_past_the_cap_while_it_is_read_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(HUMAN_SCORES.env, "200000")
    path = tmp_path / "humans.csv"
    path.write_text("id,score\n" + "1,4\n" * 10, encoding="utf-8")
    records = iter_records(path, "human scores file", "", HUMAN_SCORES)
    assert next(records) == (1, ["id", "score"])
    with path.open("a", encoding="utf-8") as grow:
        grow.write("2,5\n" * 100_000)
    with pytest.raises(HumanScoresError, match=r"over the 200,000 bytes a human scores file may hold"):
        list(records)


def test_a_2_gib_sheet_is_refused_by_import_and_by_the_server(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = sparse(tmp_path / "lan.csv", "id,idiom,reference_meaning,explanation,score,annotator\n", 2 * GIB)
    with pytest.raises(HumanScoresError) as served:
        read_sheet(path)
    assert one_line_naming(str(served.value), path, SHEETS) and "annotation sheet" in str(served.value)
    out = tmp_path / "humans.csv"
    assert main(["annotate", "import", str(path), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "over the 64.0 MiB" in err and SHEETS.env in err and "Traceback" not in err and not out.exists()


def test_a_sheet_over_a_lowered_cap_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SHEETS.env, "1K")
    path = tmp_path / "lan.csv"
    path.write_text("id,score,annotator\n" + "1,4,lan\n" * 200, encoding="utf-8")
    with pytest.raises(ValueError, match=r"1,619 bytes, over the 1,024 bytes an? annotation sheet may hold"):
        import_sheets([path], tmp_path / "humans.csv")


# --- data CSVs --------------------------------------------------------------------------------------------


def test_a_2_gib_data_file_is_refused_by_its_size(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = sparse(tmp_path / "vivid.csv", DATA_HEADER + DATA_ROW, 2 * GIB)
    with pytest.raises(VividDataError) as caught:
        load_vivid(str(path))
    assert one_line_naming(str(caught.value), path, DATA) and "over the 64.0 MiB" in str(caught.value)
    assert main(["data", "check", "--data", str(path)]) == 2
    err = capsys.readouterr().err
    assert "over the 64.0 MiB" in err and "Traceback" not in err


def test_a_data_file_one_byte_over_a_lowered_cap_is_refused_and_one_at_the_cap_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    content = (DATA_HEADER + DATA_ROW * 20).encode()
    monkeypatch.setenv(DATA.env, str(len(content)))
    at = tmp_path / "at.csv"
    at.write_bytes(content)
    assert len(list(load_vivid(str(at)).dataset)) == 20
    over = tmp_path / "over.csv"
    over.write_bytes(content + b"\n")
    with pytest.raises(
        VividDataError,
        match=f"{len(content) + 1:,} bytes, over the {len(content):,} bytes a data file may hold",
    ):
        load_vivid(str(over))


class Server:
    """Serves one body at /data.csv, with or without a Content-Length (then it only shows its size)."""

    def __init__(self, body: bytes, declare: bool) -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                if declare:
                    self.send_header("Content-Length", str(len(body)))
                else:
                    self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/data.csv"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.mark.parametrize("declare", [True, False], ids=["says-its-size", "only-shows-it"])
def test_a_download_over_the_cap_is_refused_and_not_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, declare: bool
) -> None:
    body = (DATA_HEADER + DATA_ROW * 2000).encode()
    monkeypatch.setenv(DATA.env, "64K")
    server = Server(body, declare)
    try:
        with pytest.raises(VividDataError) as caught:
            load_vivid(server.url)
    finally:
        server.stop()
    message = str(caught.value)
    assert message.startswith(f"{server.url}: ") and "over the 65,536 bytes a data file may hold" in message
    assert len(message.splitlines()) == 1
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").iterdir())


def test_a_cached_download_over_the_cap_is_refused_naming_the_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = (DATA_HEADER + DATA_ROW * 2000).encode()
    server = Server(body, True)
    try:
        assert len(list(load_vivid(server.url).dataset)) == 2000  # cached, under the default cap
    finally:
        server.stop()
    _load_cached.cache_clear()
    monkeypatch.setenv(DATA.env, "64K")
    with pytest.raises(
        VividDataError, match=r"\(cached copy .*\): .* over the 65,536 bytes a data file may hold"
    ):
        load_vivid(server.url)
