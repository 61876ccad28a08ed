"""API keys never reach a log, a cache entry or the console.

A recognisable fake key is put in the environment (``FAKE_API_KEY``, read by Inspect's
``openai-api/fake/...`` provider, and ``OPENAI_API_KEY``), then the real explain task runs against
FakeOpenAIServer with everything that writes text turned up: transient faults (retry warnings),
a persistent fault (a sample error with its traceback), raw model API calls in the log, debug
logging to the console and the transcript. Every file written is searched, inside the ``.eval``
zip archives too, and so is everything printed.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.model import get_model

from tests.fake_api import GEN, JUDGE, default_responder, explain_items, idiom_of
from vivid_inspect.tasks import explain
from vivid_inspect.testing.openai_server import FakeOpenAIServer, Fault, combine, fail_first, fail_prompts

CANARY = "sk-vivid-SECRET-canary-1234"


def files_containing(folder: Path, secret: str) -> list[str]:
    """Every file under ``folder`` (and every member of its zip archives) that contains ``secret``."""
    needle = secret.encode()
    found = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if needle in data:
            found.append(str(path))
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                found += [f"{path}!{name}" for name in archive.namelist() if needle in archive.read(name)]
    return found


def test_files_containing_finds_a_secret_in_a_zip_member(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "log.eval", "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("samples/1.json", f'{{"key": "{CANARY}"}}' * 100)
    (tmp_path / "clean.txt").write_text("nothing here")
    assert files_containing(tmp_path, CANARY) == [f"{tmp_path / 'log.eval'}!samples/1.json"]


def test_a_full_run_writes_the_key_nowhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    log_dir = tmp_path / "logs"
    monkeypatch.setenv("INSPECT_LOG_DIR", str(log_dir))
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("FAKE_API_KEY", CANARY)
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    items = explain_items()[:5]
    broken = items[0].idiom

    with FakeOpenAIServer(responder=default_responder) as server:
        monkeypatch.setenv("FAKE_BASE_URL", server.base_url)
        server.faults = combine(
            fail_prompts(lambda prompt: idiom_of(prompt) == broken, "server_error"),
            fail_first(1, Fault("rate_limit", retry_after=0.1)),
        )
        # the key comes from the environment, as in a real run (memoize=False: read it now)
        gen = get_model(f"openai-api/fake/{GEN}", base_url=server.base_url, memoize=False, max_retries=1)
        grader = get_model(f"openai-api/fake/{JUDGE}", base_url=server.base_url, memoize=False, max_retries=1)
        assert gen.api.api_key == CANARY and grader.api.api_key == CANARY  # the canary is really in use
        (log,) = eval(
            explain(data="sample", judge="aspect,cot"),
            model=gen,
            model_roles={"grader": grader},
            sample_id=[item.id for item in items],
            display="plain",
            log_level="debug",
            log_level_transcript="debug",
            log_model_api=True,
            fail_on_error=False,
            max_retries=0,
        )
        (json_log,) = eval(
            explain(data="sample", judge="aspect"),
            model=gen,
            model_roles={"grader": grader},
            sample_id=[items[1].id],
            display="none",
            log_format="json",
            log_model_api=True,
        )

    assert log.status == "success" and json_log.status == "success"
    assert log.samples is not None
    # the run did write errors and retries, the places a key could slip into
    assert sum(s.error is not None for s in log.samples) == 1
    assert {r.status for r in server.log} >= {200, 429, 500}
    written = [p for p in log_dir.rglob("*") if p.is_file()]
    assert {p.suffix for p in written} >= {".eval", ".json"}
    assert files_containing(tmp_path, CANARY) == []
    out, err = capfd.readouterr()
    assert CANARY not in out + err
