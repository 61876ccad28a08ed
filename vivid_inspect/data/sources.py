"""Where the VIVID CSV comes from: the bundled sample, the pinned hub release, a URL or a path.

Downloads are cached on disk after the first success, keyed by URL, so a pinned revision is
fetched once per machine and later runs work offline.

A file, a download or a cached copy over the data size cap (`vivid_inspect.size_caps.DATA`,
64 MiB unless ``VIVID_MAX_DATA_BYTES`` says otherwise) is refused in one line before it is read
(a download, as soon as it says or shows that it is larger).
"""

from __future__ import annotations

import difflib
import hashlib
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import httpx
import platformdirs

from vivid_inspect.atomic_write import write_atomic
from vivid_inspect.data.csv_format import VividDataError
from vivid_inspect.size_caps import DATA, SizeCapError

DATA_ENV = "VIVID_DATA"
CACHE_ENV = "VIVID_CACHE_DIR"
HF_ENDPOINT_ENV = "HF_ENDPOINT"

HF_REPO = "LakoreAI/vivid-vietnamese-idioms"
HF_FILE = "VIVID_Dataset.csv"
# Pinned so that a re-run years later scores the same items; see docs/data.md.
HF_REVISION = "daf3862423a8ab04a515029880bc426f34a46ba4"
DEFAULT_HF_ENDPOINT = "https://huggingface.co"

_HOW_TO_CHOOSE = (
    "Choose the data with the task parameter `-T data=...` or the environment variable "
    f"{DATA_ENV}: a local CSV path, an http(s) URL, `hf` (the pinned Hugging Face release) or "
    "`sample` (the small sample bundled with vivid_inspect; `-T data=sample` works offline)."
)


class DataSourceError(VividDataError):
    """A data source that cannot be read (no such file, a failed download), with advice on choosing another.

    Args:
        reason: What went wrong, naming the source; the message adds how to choose the data with
            ``-T data`` or ``$VIVID_DATA``. ``vivid run`` gives its own advice instead (the spec's
            ``data:`` key), so it reads ``reason`` alone.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(f"{reason} {_HOW_TO_CHOOSE}")
        self.reason = reason


@dataclass(frozen=True)
class RawData:
    """The bytes of a data file and a name for it that messages and logs can show.

    Attributes:
        source: Printable name of the file or URL.
        content: The file's bytes.
        cache_path: For a download, its cache file: `keep_in_cache` stores a fresh download
            there once it has validated, so a bad download (an HTML login page, a truncated file)
            is never cached.
        from_cache: True when ``content`` was read from ``cache_path``.
    """

    source: str
    content: bytes
    cache_path: Path | None = None
    from_cache: bool = False


def resolve_data_spec(data: str | None) -> str:
    """Apply the defaults: the explicit value, else ``$VIVID_DATA``, else ``hf``.

    Args:
        data: The ``data`` task parameter, possibly None or empty.

    Returns:
        The data spec to read.
    """
    if data and data.strip():
        return data.strip()
    from_env = os.environ.get(DATA_ENV, "").strip()
    return from_env or "hf"


def hf_url(revision: str = HF_REVISION) -> str:
    """URL of the pinned ``VIVID_Dataset.csv`` on the Hugging Face hub (honours ``$HF_ENDPOINT``)."""
    endpoint = os.environ.get(HF_ENDPOINT_ENV, DEFAULT_HF_ENDPOINT).rstrip("/")
    return f"{endpoint}/datasets/{HF_REPO}/resolve/{revision}/{HF_FILE}"


def hf_label(revision: str = HF_REVISION) -> str:
    """The printable name of the pinned hub release, as tasks record it (``hf:REPO@REVISION/FILE``)."""
    return f"hf:{HF_REPO}@{revision[:12]}/{HF_FILE}"


def read_source(spec: str) -> RawData:
    """Read the bytes a data spec names.

    Args:
        spec: ``sample``, ``hf``, an http(s) URL or a local path (after `resolve_data_spec`).

    Returns:
        The raw bytes with a printable source name.

    Raises:
        DataSourceError: The file does not exist or the download failed; the message says how to
            choose another source.
    """
    if spec == "sample":
        sample = resources.files("vivid_inspect.data").joinpath("sample.csv")
        return RawData("vivid_inspect sample (vivid_inspect/data/sample.csv)", sample.read_bytes())
    if spec == "hf":
        return _download(hf_url(), label=hf_label())
    if spec.startswith(("http://", "https://")):
        return _download(spec, label=spec)
    path = Path(spec).expanduser()
    _check_regular_file(path, spec)
    try:
        return RawData(str(path), _read_capped(path, spec))
    except OSError as exc:
        raise DataSourceError(f"{spec}: cannot be read ({exc.strerror or exc}).") from None


def local_file(spec: str) -> Path | None:
    """The local file a data spec names, checked as `read_source` checks it, but not read.

    For a parser that streams the file (`vivid_inspect.data.csv_format.parse_vivid_file`)
    instead of holding its bytes.

    Args:
        spec: A data spec (after `resolve_data_spec`).

    Returns:
        The path, or None when the spec is not a local file (``sample``, ``hf``, a URL).

    Raises:
        VividDataError: The file does not exist, is not a regular file, cannot be read, or is over
            the data size cap.
    """
    if spec in ("sample", "hf") or spec.startswith(("http://", "https://")):
        return None
    path = Path(spec).expanduser()
    _check_regular_file(path, spec)
    limit = data_cap()
    size = path.stat().st_size
    if size > limit:
        raise VividDataError(f"{spec}: {DATA.over(size, limit)}")
    try:
        with path.open("rb"):
            pass
    except OSError as exc:
        raise DataSourceError(f"{spec}: cannot be read ({exc.strerror or exc}).") from None
    return path


def data_cap() -> int:
    """The data size cap in force (`vivid_inspect.size_caps.DATA`).

    Raises:
        VividDataError: ``VIVID_MAX_DATA_BYTES`` is set to something that is not a size.
    """
    try:
        return DATA.limit()
    except SizeCapError as error:
        raise VividDataError(str(error)) from None


def _read_capped(path: Path, label: str) -> bytes:
    """A file's bytes; refused over the cap, by its size before it is read and by what was read."""
    limit = data_cap()
    size = path.stat().st_size
    if size <= limit:
        with path.open("rb") as handle:
            content = handle.read(size + 1)
            if len(content) > size:  # it grew since: read on, never past the cap
                content += handle.read(limit + 1 - len(content))
        size = len(content)
    if size > limit:
        raise VividDataError(f"{label}: {DATA.over(size, limit)}")
    return content


_NOT_REGULAR: tuple[tuple[Callable[[int], bool], str], ...] = (
    (stat.S_ISDIR, "a folder, not a data file"),
    (stat.S_ISFIFO, "a named pipe (FIFO), not a regular file; copy the data into a file"),
    (stat.S_ISSOCK, "a socket, not a regular file"),
    (stat.S_ISCHR, "a character device, not a regular file"),
    (stat.S_ISBLK, "a block device, not a regular file"),
)


def _check_regular_file(path: Path, spec: str) -> None:
    """Refuse anything but a regular file, judged by ``stat`` alone: opening a FIFO would block."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        close = difflib.get_close_matches(spec.strip().lower(), ("sample", "hf"), n=1, cutoff=0.6)
        hint = f" (did you mean `{close[0]}`?)" if close and "/" not in spec else ""
        raise DataSourceError(f"{spec}: no such data file{hint}.") from None
    except OSError as exc:
        raise DataSourceError(f"{spec}: cannot be read ({exc.strerror or exc}).") from None
    for is_kind, what in _NOT_REGULAR:
        if is_kind(mode):
            raise DataSourceError(f"{spec}: is {what}.")


def cache_dir() -> Path:
    """Folder of downloaded data files: ``$VIVID_CACHE_DIR`` or the user cache folder."""
    configured = os.environ.get(CACHE_ENV)
    return Path(configured) if configured else Path(platformdirs.user_cache_dir("vivid_inspect"))


def keep_in_cache(raw: RawData) -> None:
    """Store a validated fresh download in the cache (no-op for other sources)."""
    if raw.cache_path is None or raw.from_cache:
        return
    raw.cache_path.parent.mkdir(parents=True, exist_ok=True)
    # whole or not at all, so an interrupted write never leaves a truncated cache entry behind;
    # not fsynced: a lost entry is downloaded again
    write_atomic(raw.cache_path, raw.content, fsync=False)


def _download(url: str, label: str) -> RawData:
    cached = cache_dir() / f"{hashlib.sha256(url.encode()).hexdigest()[:16]}-{Path(url).name or 'data.csv'}"
    if cached.is_file():
        return RawData(
            label, _read_capped(cached, f"{label} (cached copy {cached})"), cache_path=cached, from_cache=True
        )
    limit = data_cap()
    try:
        with httpx.stream("GET", url, follow_redirects=True, timeout=60.0) as response:
            response.raise_for_status()
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > limit:
                raise VividDataError(f"{label}: {DATA.over(int(declared), limit)}")
            content = bytearray()
            for chunk in response.iter_bytes():
                content += chunk
                if len(content) > limit:
                    raise VividDataError(f"{label}: {DATA.over(len(content), limit)} (stopped reading there)")
    except httpx.HTTPError as exc:
        raise DataSourceError(f"{label}: could not download {url} ({exc}).") from None
    return RawData(label, bytes(content), cache_path=cached)
