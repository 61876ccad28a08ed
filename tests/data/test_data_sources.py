"""Where the VIVID data comes from: the spec defaults, local paths, and downloads with their disk cache.

Downloads are served by a tiny HTTP server on 127.0.0.1 started by the test; nothing leaves the machine.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from vivid_inspect.data import VividDataError, _load_cached, load_vivid
from vivid_inspect.data.sources import hf_url, read_source, resolve_data_spec

FIXTURES = Path(__file__).parents[1] / "fixtures" / "data"
GOOD = FIXTURES / "good.csv"
GOOD_IDS = [1, 2, 3, 4, 5, 6, 7]

# The revision documented in docs/data.md; changing the pin must be a deliberate act.
PINNED_REVISION = "daf3862423a8ab04a515029880bc426f34a46ba4"
HF_PATH = f"/datasets/LakoreAI/vivid-vietnamese-idioms/resolve/{PINNED_REVISION}/VIVID_Dataset.csv"
HF_LABEL = "hf:LakoreAI/vivid-vietnamese-idioms@daf3862423a8/VIVID_Dataset.csv"

PROXY_VARIABLES = ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"]


class FileServer:
    """Serves fixed bytes at fixed paths, answers 404 elsewhere, and records every request path."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.redirects: dict[str, str] = {}
        self.requests: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                server.requests.append(self.path)
                if self.path in server.redirects:
                    self.send_response(302)
                    self.send_header("Location", server.redirects[self.path])
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = server.files.get(self.path)
                if body is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/csv; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)


def closed_port_url() -> str:
    """A URL on 127.0.0.1 where nothing listens, so a connection is refused at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """No data spec from the environment, a private download cache, no proxy, a fresh loader cache."""
    monkeypatch.delenv("VIVID_DATA", raising=False)
    monkeypatch.delenv("HF_ENDPOINT", raising=False)
    for variable in PROXY_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    cache = tmp_path / "cache"
    monkeypatch.setenv("VIVID_CACHE_DIR", str(cache))
    _load_cached.cache_clear()
    yield cache
    _load_cached.cache_clear()


@pytest.fixture
def server() -> Iterator[FileServer]:
    running = FileServer()
    yield running
    running.stop()


def ids(data: str | None = None) -> list[int]:
    return [sample.id for sample in load_vivid(data).dataset]


def cached_files(cache: Path) -> list[Path]:
    return sorted(cache.iterdir()) if cache.exists() else []


# --- which spec is read ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("explicit", "env", "expected"),
    [
        pytest.param("sample", "/data/vivid.csv", "sample", id="explicit-beats-env"),
        pytest.param(None, "/data/vivid.csv", "/data/vivid.csv", id="env-when-no-explicit"),
        pytest.param(None, None, "hf", id="hf-by-default"),
        pytest.param("", "/data/vivid.csv", "/data/vivid.csv", id="empty-explicit-falls-to-env"),
        pytest.param("   ", None, "hf", id="blank-explicit-falls-to-hf"),
        pytest.param(None, "  ", "hf", id="blank-env-falls-to-hf"),
        pytest.param(" sample ", None, "sample", id="explicit-trimmed"),
        pytest.param(None, " https://example.org/v.csv ", "https://example.org/v.csv", id="env-trimmed"),
    ],
)
def test_resolve_data_spec_precedence(
    monkeypatch: pytest.MonkeyPatch, explicit: str | None, env: str | None, expected: str
) -> None:
    if env is not None:
        monkeypatch.setenv("VIVID_DATA", env)

    assert resolve_data_spec(explicit) == expected


def test_env_variable_chooses_the_file_load_vivid_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VIVID_DATA", str(GOOD))

    loaded = load_vivid()
    assert loaded.source == str(GOOD)
    assert [s.id for s in loaded.dataset] == GOOD_IDS


def test_explicit_data_wins_over_env_in_load_vivid(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("VIVID_DATA", str(tmp_path / "does-not-exist.csv"))

    assert load_vivid(str(GOOD)).source == str(GOOD)


def test_sample_spec_reads_the_bundled_file() -> None:
    import vivid_inspect.data as data_package

    raw = read_source("sample")
    assert raw.source == "vivid_inspect sample (vivid_inspect/data/sample.csv)"
    assert raw.content == (Path(data_package.__file__).parent / "sample.csv").read_bytes()


@pytest.mark.parametrize(
    ("kind", "says"),
    [
        pytest.param("file", "no such data file.", id="missing-file"),
        pytest.param("dir", "is a folder", id="a-directory"),
    ],
)
def test_unusable_local_path_says_how_to_choose_data(tmp_path: Path, kind: str, says: str) -> None:
    spec = str(tmp_path / "vivid.csv") if kind == "file" else str(tmp_path)

    with pytest.raises(VividDataError) as caught:
        load_vivid(spec)
    message = str(caught.value)
    assert message.startswith(f"{spec}: {says}")
    assert "`-T data=...`" in message
    assert "VIVID_DATA" in message
    assert "`sample`" in message


def test_missing_path_from_env_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    missing = str(tmp_path / "typo.csv")
    monkeypatch.setenv("VIVID_DATA", missing)

    with pytest.raises(VividDataError, match="no such data file"):
        load_vivid()
    with pytest.raises(VividDataError) as caught:
        load_vivid()
    assert str(caught.value).startswith(f"{missing}: ")


# --- the pinned hub release --------------------------------------------------------------------


def test_hf_url_is_pinned_to_the_documented_revision(monkeypatch: pytest.MonkeyPatch) -> None:
    assert hf_url() == f"https://huggingface.co{HF_PATH}"
    monkeypatch.setenv("HF_ENDPOINT", "http://mirror.example/")
    assert hf_url() == f"http://mirror.example{HF_PATH}"


def test_hf_download_uses_the_pinned_revision_and_is_cached(
    monkeypatch: pytest.MonkeyPatch, server: FileServer, isolated: Path
) -> None:
    server.files[HF_PATH] = GOOD.read_bytes()
    monkeypatch.setenv("HF_ENDPOINT", server.url)

    first = load_vivid("hf")
    assert first.source == HF_LABEL
    assert [s.id for s in first.dataset] == GOOD_IDS
    assert server.requests == [HF_PATH]
    assert PINNED_REVISION in server.requests[0]
    (cached,) = cached_files(isolated)
    assert cached.name.endswith("-VIVID_Dataset.csv")
    assert cached.read_bytes() == GOOD.read_bytes()

    _load_cached.cache_clear()  # so that the second read must go through the disk cache
    second = load_vivid("hf")
    assert [s.metadata for s in second.dataset] == [s.metadata for s in first.dataset]
    assert server.requests == [HF_PATH]


def test_default_data_is_the_hf_release(monkeypatch: pytest.MonkeyPatch, server: FileServer) -> None:
    server.files[HF_PATH] = GOOD.read_bytes()
    monkeypatch.setenv("HF_ENDPOINT", server.url)

    loaded = load_vivid()
    assert loaded.source == HF_LABEL
    assert server.requests == [HF_PATH]


def test_hf_redirect_to_the_file_store_is_followed(
    monkeypatch: pytest.MonkeyPatch, server: FileServer
) -> None:
    # The hub answers /resolve/ with a redirect to its file store.
    server.redirects[HF_PATH] = "/store/abc123"
    server.files["/store/abc123"] = GOOD.read_bytes()
    monkeypatch.setenv("HF_ENDPOINT", server.url)

    assert ids("hf") == GOOD_IDS
    assert server.requests == [HF_PATH, "/store/abc123"]


def test_hf_unreachable_without_cache_says_what_happened(
    monkeypatch: pytest.MonkeyPatch, isolated: Path
) -> None:
    endpoint = closed_port_url()
    monkeypatch.setenv("HF_ENDPOINT", endpoint)

    with pytest.raises(VividDataError) as caught:
        load_vivid("hf")
    message = str(caught.value)
    assert message.startswith(f"{HF_LABEL}: could not download {endpoint}{HF_PATH} (")
    assert "`-T data=...`" in message
    assert "`sample`" in message
    assert cached_files(isolated) == []


def test_hf_release_is_read_from_cache_when_the_server_is_gone(
    monkeypatch: pytest.MonkeyPatch, server: FileServer
) -> None:
    server.files[HF_PATH] = GOOD.read_bytes()
    monkeypatch.setenv("HF_ENDPOINT", server.url)
    assert ids("hf") == GOOD_IDS
    server.stop()
    _load_cached.cache_clear()

    assert ids("hf") == GOOD_IDS


# --- any URL -----------------------------------------------------------------------------------


def test_url_download_is_cached_after_the_first_read(server: FileServer, isolated: Path) -> None:
    server.files["/mirror/vivid.csv"] = GOOD.read_bytes()
    url = f"{server.url}/mirror/vivid.csv"

    loaded = load_vivid(url)
    assert loaded.source == url
    assert [s.id for s in loaded.dataset] == GOOD_IDS
    _load_cached.cache_clear()
    assert ids(url) == GOOD_IDS
    assert server.requests == ["/mirror/vivid.csv"]
    (cached,) = cached_files(isolated)
    assert cached.name.endswith("-vivid.csv")


def test_urls_with_the_same_file_name_do_not_share_a_cache_entry(server: FileServer) -> None:
    lines = GOOD.read_bytes().splitlines(keepends=True)
    server.files["/a/VIVID_Dataset.csv"] = b"".join(lines[:3])
    server.files["/b/VIVID_Dataset.csv"] = b"".join(lines)

    assert ids(f"{server.url}/a/VIVID_Dataset.csv") == [1, 2]
    assert ids(f"{server.url}/b/VIVID_Dataset.csv") == GOOD_IDS


def test_http_error_is_reported_and_not_cached(server: FileServer, isolated: Path) -> None:
    url = f"{server.url}/missing/vivid.csv"

    with pytest.raises(VividDataError) as caught:
        load_vivid(url)
    message = str(caught.value)
    assert message.startswith(f"{url}: could not download {url} (")
    assert "404" in message
    assert "`sample`" in message
    assert cached_files(isolated) == []

    server.files["/missing/vivid.csv"] = GOOD.read_bytes()
    assert ids(url) == GOOD_IDS
    assert server.requests == ["/missing/vivid.csv", "/missing/vivid.csv"]


def test_url_unreachable_without_cache_says_what_happened() -> None:
    url = f"{closed_port_url()}/vivid.csv"

    with pytest.raises(VividDataError) as caught:
        load_vivid(url)
    message = str(caught.value)
    assert message.startswith(f"{url}: could not download {url} (")
    assert "`-T data=...`" in message
    assert "`sample`" in message


def test_invalid_download_is_reported_under_its_source_name(server: FileServer) -> None:
    bad = GOOD.read_bytes().replace(b",6.0\n", b",9.0\n")
    server.files["/mirror/vivid.csv"] = bad
    url = f"{server.url}/mirror/vivid.csv"

    with pytest.raises(VividDataError) as caught:
        load_vivid(url)
    assert str(caught.value).splitlines() == [
        f"{url}: 1 problem(s) in the data file:",
        "  - row 1 (line 2), column Semantic_Theme: '9.0' is not a theme code 1-7",
    ]


def test_invalid_download_is_not_cached_so_a_fixed_server_is_asked_again(
    server: FileServer, isolated: Path
) -> None:
    server.files["/mirror/vivid.csv"] = b"<html>Please log in</html>"
    url = f"{server.url}/mirror/vivid.csv"
    with pytest.raises(VividDataError, match="does not look like a VIVID CSV header"):
        load_vivid(url)
    assert cached_files(isolated) == []

    server.files["/mirror/vivid.csv"] = GOOD.read_bytes()
    _load_cached.cache_clear()
    assert ids(url) == GOOD_IDS
    assert len(server.requests) == 2


def test_bad_cached_copy_is_named_in_the_error(server: FileServer, isolated: Path) -> None:
    server.files["/mirror/vivid.csv"] = GOOD.read_bytes()
    url = f"{server.url}/mirror/vivid.csv"
    ids(url)
    [cached] = cached_files(isolated)
    cached.write_bytes(b"not,a,vivid,file\n")
    _load_cached.cache_clear()
    with pytest.raises(VividDataError, match=f"cached copy {cached}; delete it to download again"):
        load_vivid(url)
