"""The redaction rule and the hooks that apply it to what a run prints and writes.

``redact`` removes credential environment values, bearer tokens and ``sk-`` keys; the hooks of
:mod:`vivid_inspect.lab.runner.scrub` apply it to log records (message and traceback), to stdout and
stderr, and to files already written (``.eval`` zip members, JSON, YAML), which stay valid.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import zipfile
from pathlib import Path

import pytest

from vivid_inspect.lab.runner.scrub import (
    MARKER,
    redacted_logging,
    redacted_output,
    scrub_file,
    scrub_folder,
)
from vivid_inspect.lab.runner.spec.credentials import env_header_client
from vivid_inspect.redact import REDACTED, add_secret_names, redact

KEY = "gw-Secret-Value-9876"


@pytest.mark.parametrize(
    ("name", "text"),
    [
        pytest.param("OPENAI_API_KEY", f"Incorrect API key provided: {KEY}", id="api-key-var"),
        pytest.param("HF_TOKEN", f"401 for token {KEY}", id="token-var"),
        pytest.param("MY_GATEWAY_KEY", f"gateway said {KEY}", id="key-var"),
        pytest.param("DB_PASSWORD", f"auth failed ({KEY})", id="password-var"),
        pytest.param("GOOGLE_CREDENTIALS", f'{{"k": "{KEY}"}}', id="credentials-var"),
    ],
)
def test_credential_variables_are_redacted(monkeypatch: pytest.MonkeyPatch, name: str, text: str) -> None:
    monkeypatch.setenv(name, KEY)
    assert KEY not in redact(text) and REDACTED in redact(text)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("Authorization: Bearer abc.def-ghi_jkl-mno", id="bearer-header"),
        pytest.param("{'authorization': 'bearer abcdefghijklmnop'}", id="bearer-lower-case"),
        pytest.param("key sk-proj-abcdefghijklmnop rejected", id="sk-key"),
    ],
)
def test_tokens_are_redacted_without_their_variable(text: str) -> None:
    cleaned = redact(text, environ={})
    assert REDACTED in cleaned
    assert "abcdefghijkl" not in cleaned and "abc.def-ghi_jkl" not in cleaned


def test_a_variable_named_by_a_spec_header_is_redacted_whatever_its_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GATEWAY_PASSPHRASE_X", KEY)
    assert KEY in redact(f"echo {KEY}")  # not a credential-like name
    env_header_client(["GATEWAY_PASSPHRASE_X"])  # a spec's ${env:GATEWAY_PASSPHRASE_X} header
    assert KEY not in redact(f"echo {KEY}")


def test_a_header_client_needs_its_variables() -> None:
    os.environ.pop("SURELY_UNSET_VAR_123", None)
    with pytest.raises(ValueError, match="SURELY_UNSET_VAR_123"):
        env_header_client(["SURELY_UNSET_VAR_123"])


def test_log_records_are_redacted_message_and_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    records: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(self.format(record))

    logger = logging.getLogger("test_redaction")
    handler = Keep()
    logger.addHandler(handler)
    try:
        with redacted_logging():
            logger.warning("retrying after %s", f"Bearer {KEY}")
            try:
                raise RuntimeError(f"echo: {KEY}")
            except RuntimeError:
                logger.exception("call failed")
        logger.warning("outside: %s", KEY)  # the hook is gone after the block
    finally:
        logger.removeHandler(handler)
    assert KEY not in records[0] and KEY not in records[1]
    assert "Traceback" in records[1] and f"RuntimeError: echo: {REDACTED}" in records[1]
    assert KEY in records[2]


def test_stdout_and_stderr_are_redacted(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with redacted_output():
        print(f"error body: {KEY}")
        print(f"Authorization: Bearer {KEY}", file=sys.stderr)
        assert sys.stdout.isatty() in (True, False)  # everything else is the real stream's
    out, err = capfd.readouterr()
    assert KEY not in out + err and REDACTED in out and REDACTED in err


def _eval_zip(path: Path, members: dict[str, str]) -> None:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, text in members.items():
            archive.writestr(name, text)


def test_scrub_rewrites_zip_members_and_text_files_keeping_json_valid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_API_KEY", 'q"uo\\te-' + KEY)  # escaped inside JSON
    secret = os.environ["FAKE_API_KEY"]
    sample = {"error": {"message": f"echo {secret}", "traceback": f"Bearer {secret}\nline"}}
    _eval_zip(tmp_path / "log.eval", {"samples/1.json": json.dumps(sample), "header.json": "{}"})
    (tmp_path / "eval-set.json").write_text(json.dumps({"headers": {"Authorization": f"Bearer {KEY}"}}))
    (tmp_path / "clean.json").write_text('{"ok": 1}')
    before = (tmp_path / "clean.json").stat().st_mtime_ns

    changed = scrub_folder(tmp_path)

    assert sorted(p.name for p in changed) == ["eval-set.json", "log.eval"]
    with zipfile.ZipFile(tmp_path / "log.eval") as archive:
        assert archive.namelist() == ["samples/1.json", "header.json"]
        data = archive.read("samples/1.json").decode()
    assert KEY not in data and json.loads(data)["error"]["message"] == f"echo {REDACTED}"
    assert KEY not in (tmp_path / "eval-set.json").read_text()
    assert json.loads((tmp_path / "eval-set.json").read_text())
    assert (tmp_path / "clean.json").stat().st_mtime_ns == before  # untouched
    assert (tmp_path / MARKER).exists()


def test_scrub_reads_only_files_written_since_the_last_scrub(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_API_KEY", KEY)
    old = tmp_path / "old.json"
    old.write_text('{"a": 1}')
    scrub_folder(tmp_path)
    os.utime(old, (1, 1))  # written long before the last scrub (a secret set in later is not seen)
    old.write_text(f'{{"a": "{KEY}"}}')
    os.utime(old, (1, 1))
    new = tmp_path / "new.json"
    new.write_text(f'{{"b": "{KEY}"}}')
    assert scrub_folder(tmp_path) == [new]
    assert scrub_folder(tmp_path, everything=True) == [old]


def test_scrub_of_an_empty_folder_writes_nothing(tmp_path: Path) -> None:
    assert scrub_folder(tmp_path) == [] and list(tmp_path.iterdir()) == []


def test_scrub_leaves_binary_members_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_API_KEY", KEY)
    path = tmp_path / "log.eval"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("image.png", b"\x89PNG\xff\xfe" + KEY.encode())
        archive.writestr("s.json", f'"{KEY}"')
    assert scrub_file(path)
    with zipfile.ZipFile(path) as archive:
        assert archive.read("image.png").endswith(KEY.encode())  # not text: not rewritten
        assert archive.read("s.json") == f'"{REDACTED}"'.encode()


def test_add_secret_names_is_idempotent() -> None:
    add_secret_names(["A_NAME", "A_NAME"])
    assert redact("plain text") == "plain text"


def test_scrub_leaves_a_decompression_bomb_alone_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import tracemalloc

    monkeypatch.setenv("FAKE_API_KEY", KEY)
    monkeypatch.setenv("VIVID_MAX_LOG_BYTES", str(2**20))  # members over 2 MiB are refused
    path = tmp_path / "bomb.eval"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("samples/1.json", f'"{KEY}"' + " " * (64 * 2**20))
    before = path.read_bytes()
    tracemalloc.start()
    try:
        assert scrub_folder(tmp_path) == []
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert path.read_bytes() == before
    assert peak < 16 * 2**20
    assert any("bomb.eval" in r.getMessage() and "inflates past" in r.getMessage() for r in caplog.records)


@pytest.mark.slow
def test_vivid_redact_in_its_own_process_rewrites_inspect_zstd_logs(tmp_path: Path) -> None:
    # A fresh process has not imported Inspect, which teaches zipfile the zstd of .eval members.
    import subprocess

    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample

    (log,) = eval(
        Task(dataset=[Sample(input=f"say {KEY}", target="x")]),
        model="mockllm/model",
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    with zipfile.ZipFile(log.location) as archive:
        assert {info.compress_type for info in archive.infolist()} == {93}  # zstd
    result = subprocess.run(
        [sys.executable, "-m", "vivid_inspect.lab.cli.main", "redact", str(tmp_path / "logs")],
        check=False,
        capture_output=True,
        text=True,
        env={**os.environ, "FAKE_API_KEY": KEY},
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "1 file(s) rewritten" in result.stderr
    with zipfile.ZipFile(log.location) as archive:
        assert {info.compress_type for info in archive.infolist()} == {93}
    from inspect_ai.log import read_eval_log

    (sample,) = read_eval_log(log.location).samples or []
    assert sample.input == f"say {REDACTED}"
