"""Hostile or clumsy data files: each fails (or warns) with a short message that says what is wrong.

Covers: fields longer than the limit, floods of duplicate idioms, paths that are not regular files,
and files that are not CSV at all (which must never be echoed beyond a short, redacted excerpt).
"""

from __future__ import annotations

import csv
import io
import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from vivid_inspect.data import (
    COLUMNS,
    VividDataError,
    _load_cached,
    load_items,
    load_vivid,
)
from vivid_inspect.data.csv_format import MAX_FIELD_CHARS

BASE_ROW = [
    "Nước chảy chỗ trũng",
    " Của cải thường dồn về nơi đã sẵn của.",
    "0.0",
    "0.0",
    "0.0",
    "0.0",
    "1.0",
    "3.0",
]
OTHER_ROW = [
    "Gieo gió gặt bão",
    "Ai gây điều ác sẽ gánh hậu quả nặng hơn.",
    "0.0",
    "0.0",
    "0.0",
    "0.0",
    "0.0",
    "6.0",
]
SECRET = "sk-proj-h6SecretValue0123456789abcdef"


@pytest.fixture(autouse=True)
def fresh_loader() -> Iterator[None]:
    _load_cached.cache_clear()
    yield
    _load_cached.cache_clear()


def csv_bytes(rows: Sequence[Sequence[str]], header: Sequence[str] = COLUMNS) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue().encode("utf-8")


def load_error(spec: str) -> str:
    with pytest.raises(VividDataError) as caught:
        load_vivid(spec)
    return str(caught.value)


# --- a field that is too long ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("column", "row_index"),
    [
        pytest.param(1, 0, id="meaning-first-row"),
        pytest.param(0, 0, id="idiom-first-row"),
        pytest.param(1, 1, id="meaning-second-row"),
        pytest.param(7, 1, id="theme-code-column"),
    ],
)
def test_field_over_the_limit_is_reported_as_too_long_with_row_and_column(
    tmp_path: Path, column: int, row_index: int
) -> None:
    rows = [list(BASE_ROW), list(OTHER_ROW)]
    rows[row_index][column] = "x" * (MAX_FIELD_CHARS + 5)
    path = tmp_path / "long.csv"
    path.write_bytes(csv_bytes(rows))

    message = load_error(str(path))

    where = f"row {row_index + 1} (line {row_index + 2}), column {COLUMNS[column]}"
    assert (
        f"{where}: {MAX_FIELD_CHARS + 5:,} characters, more than the {MAX_FIELD_CHARS:,} a field may hold"
        in message
    )
    assert "quote left open" not in message
    assert len(message) < 600, "the long field itself is never echoed"


def test_field_at_the_limit_loads(tmp_path: Path) -> None:
    row = list(BASE_ROW)
    row[1] = "y" * MAX_FIELD_CHARS
    path = tmp_path / "at_limit.csv"
    path.write_bytes(csv_bytes([row]))

    assert [len(s.target) for s in load_vivid(str(path)).dataset] == [MAX_FIELD_CHARS]


def test_long_multiline_field_says_a_quote_may_be_open(tmp_path: Path) -> None:
    row = list(BASE_ROW)
    row[1] = "dòng\n" * (MAX_FIELD_CHARS // 4)
    path = tmp_path / "open_quote.csv"
    path.write_bytes(csv_bytes([row]))

    message = load_error(str(path))

    assert "row 1 (line 2), column Meaning:" in message
    assert "more than the 131,072 a field may hold" in message
    assert f"spans {MAX_FIELD_CHARS // 4 + 1:,} lines; is a quote left open?" in message


def test_over_long_header_field_is_reported_as_too_long(tmp_path: Path) -> None:
    path = tmp_path / "long_header.csv"
    path.write_bytes(("h" * (MAX_FIELD_CHARS + 1) + "," + ",".join(COLUMNS[1:]) + "\n").encode())

    message = load_error(str(path))

    assert message.startswith(f"{path}: line 1 (header), field 1: {MAX_FIELD_CHARS + 1:,} characters")
    assert len(message) < 600


def test_the_field_limit_of_the_csv_module_is_left_as_it_was(tmp_path: Path) -> None:
    before = csv.field_size_limit()
    row = list(BASE_ROW)
    row[1] = "x" * (MAX_FIELD_CHARS + 1)
    path = tmp_path / "long.csv"
    path.write_bytes(csv_bytes([row]))
    load_error(str(path))

    assert csv.field_size_limit() == before


# --- many duplicate idioms ---------------------------------------------------------------------


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and "repeat" in r.getMessage()
    ]


def test_a_few_duplicates_are_each_listed_once(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "dups.csv"
    path.write_bytes(csv_bytes([BASE_ROW, OTHER_ROW, BASE_ROW, ["Gieo gió gặt bão.", *OTHER_ROW[1:]]]))

    with caplog.at_level(logging.WARNING):
        loaded = load_vivid(str(path))

    assert len(loaded.dataset) == 4
    assert _warnings(caplog) == [
        (
            f"{path}: 2 rows repeat the idiom of an earlier row; every row is kept:\n"
            "  - row 3 (line 4) repeats 'Nước chảy chỗ trũng' of row 1\n"
            "  - row 4 (line 5) repeats 'Gieo gió gặt bão.' of row 2"
        )
    ]


@pytest.mark.parametrize(
    "copies", [pytest.param(7, id="just-over-the-list"), pytest.param(1_001, id="a-thousand")]
)
def test_many_duplicates_are_summarised_with_count_first_few_and_where_to_see_all(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, copies: int
) -> None:
    path = tmp_path / "flood.csv"
    path.write_bytes(csv_bytes([BASE_ROW] * copies))

    with caplog.at_level(logging.WARNING):
        load_items(str(path))

    [message] = _warnings(caplog)
    lines = message.splitlines()
    assert lines[0] == f"{path}: {copies - 1:,} rows repeat the idiom of an earlier row; every row is kept:"
    assert lines[1:6] == [
        f"  - row {n} (line {n + 1}) repeats 'Nước chảy chỗ trũng' of row 1" for n in range(2, 7)
    ]
    assert (
        lines[6]
        == f"  … and {copies - 6:,} more: `vivid data check --data {path} --duplicates` lists them all"
    )
    assert len(lines) == 7


@pytest.mark.slow
def test_100k_duplicates_print_a_handful_of_lines_through_the_cli(tmp_path: Path) -> None:
    path = tmp_path / "flood.csv"
    path.write_bytes(csv_bytes([BASE_ROW] * 100_001))
    code = "import logging, sys; logging.basicConfig(); from vivid_inspect.data import load_items; load_items(sys.argv[1])"

    done = subprocess.run(
        [sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=120, check=False
    )

    assert done.returncode == 0, done.stderr
    assert len(done.stderr.splitlines()) <= 10, done.stderr[:2000]
    assert "100,000 rows repeat" in done.stderr


# --- paths that are not regular files ----------------------------------------------------------


def test_directory_is_named_as_a_directory(tmp_path: Path) -> None:
    message = load_error(str(tmp_path))

    assert message.startswith(f"{tmp_path}: is a folder, not a data file.")
    assert "no such data file" not in message


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_fifo_is_named_and_never_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    outcome: list[str] = []
    worker = threading.Thread(target=lambda: outcome.append(load_error(str(fifo))), daemon=True)

    started = time.monotonic()
    worker.start()
    worker.join(timeout=10)

    assert not worker.is_alive(), "reading a FIFO blocked"
    assert time.monotonic() - started < 10
    assert outcome[0].startswith(f"{fifo}: is a named pipe (FIFO), not a regular file")


def test_character_device_is_named(tmp_path: Path) -> None:
    assert load_error("/dev/null").startswith("/dev/null: is a character device, not a regular file")


def test_unreadable_file_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # chmod 0 does not stop root (CI runs as root), so the refusal is made by the file system call.
    path = tmp_path / "locked.csv"
    path.write_bytes(csv_bytes([BASE_ROW]))
    real_open = Path.open

    def refuse(self: Path, *args: Any, **kwargs: Any) -> Any:
        if self == path:
            raise PermissionError(13, "Permission denied", str(self))
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", refuse)

    assert load_error(str(path)).startswith(f"{path}: cannot be read (Permission denied)")


def test_missing_file_is_still_named_as_missing(tmp_path: Path) -> None:
    assert load_error(str(tmp_path / "nope.csv")).startswith(f"{tmp_path / 'nope.csv'}: no such data file.")


# --- files that are not CSV --------------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(f"OPENAI_API_KEY={SECRET}\nOTHER=1\n", id="dotenv"),
        pytest.param(f'{{"api_key": "{SECRET}", "rows": [1, 2, 3]}}\n', id="json"),
        pytest.param(f"<!DOCTYPE html><html><body>token {SECRET}</body></html>\n", id="html-login-page"),
        pytest.param(f"Authorization: Bearer {SECRET}\n", id="bearer-header"),
        pytest.param(f"{'a' * 500},{SECRET}\n1,2\n", id="long-first-line"),
    ],
)
def test_non_csv_file_is_quoted_only_as_a_short_redacted_excerpt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: str
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    path = tmp_path / "not_data.csv"
    path.write_text(content, encoding="utf-8")

    message = load_error(str(path))

    assert message.startswith(f"{path}: line 1 (header):")
    assert SECRET not in message
    assert SECRET[:12] not in message
    quoted = message.split(" does not look like", 1)[0]
    assert len(message) < 500 and len(quoted) < 200


@pytest.mark.parametrize(
    "column",
    [pytest.param(2, id="trait-cell"), pytest.param(7, id="theme-cell")],
)
def test_bad_cell_holding_a_secret_is_redacted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, column: int
) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", SECRET)
    row = list(BASE_ROW)
    row[column] = f"{SECRET} and a lot more text " * 20
    path = tmp_path / "cell.csv"
    path.write_bytes(csv_bytes([row]))

    message = load_error(str(path))

    assert f"row 1 (line 2), column {COLUMNS[column]}:" in message
    assert SECRET not in message and "[REDACTED]" in message
    assert len(message) < 400


def test_unexpected_header_column_is_excerpted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    path = tmp_path / "extra.csv"
    path.write_bytes(csv_bytes([[*BASE_ROW, "1"]], header=[*COLUMNS, f"OPENAI_API_KEY={SECRET}"]))

    message = load_error(str(path))

    assert "unexpected column(s): 'OPENAI_API_KEY=[REDACTED]'" in message
    assert SECRET not in message
