"""`vivid validate` reads the data as `vivid run` does: it never calls valid a spec whose run stops at its data.

Data read but not VIVID data: exit 2, as run. Data that cannot be read now (offline): valid, exit 0,
so that specs of remote data validate offline, with a message that run would stop (exit 2) until
it can be read; `vivid run` on the same spec does stop with 2.
"""

from __future__ import annotations

import contextlib
import io
import socket
from pathlib import Path

import pytest

from vivid_inspect.lab.cli.main import main

SAMPLE = Path(__file__).resolve().parents[3] / "vivid_inspect" / "data" / "sample.csv"
SPEC = (
    "name: t\n{data}log_dir: logs\nruns:\n  - name: r\n    tasks: [explain]\n    prompts: [zero_shot]\n"
    "    models: [vivid/oracle]\n"
)


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(autouse=True)
def _offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{_closed_port()}")  # `hf` cannot be downloaded
    monkeypatch.setenv("VIVID_CACHE_DIR", str(tmp_path / "cache"))  # nor read from an earlier download
    (tmp_path / "header.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    rows = SAMPLE.read_text(encoding="utf-8").splitlines()
    (tmp_path / "theme.csv").write_text("\n".join([*rows[:3], rows[3].rsplit(",", 1)[0] + ",99.0"]) + "\n")


def _vivid(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def _spec(tmp_path: Path, data: str | None) -> str:
    (tmp_path / "spec.yaml").write_text(SPEC.format(data=f"data: {data}\n" if data else ""), encoding="utf-8")
    return str(tmp_path / "spec.yaml")


def test_readable_data_is_valid_without_a_word_more(tmp_path: Path) -> None:
    code, out, err = _vivid(["validate", _spec(tmp_path, "sample")])
    assert code == 0 and ": valid — " in out
    assert "cannot" not in err


@pytest.mark.parametrize(
    ("data", "env"),
    [
        pytest.param("header.csv", None, id="other-columns"),
        pytest.param("theme.csv", None, id="a-bad-row"),
        pytest.param(None, "header.csv", id="no-key-VIVID_DATA-of-other-columns"),
    ],
)
def test_data_that_is_not_vivid_data_is_refused_as_run_refuses_it(
    data: str | None, env: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if env:
        monkeypatch.setenv("VIVID_DATA", str(tmp_path / env))
    spec = _spec(tmp_path, data)
    code, out, err = _vivid(["validate", spec])
    assert (code, out) == (2, "")
    assert "the data cannot be used, so vivid run would stop" in err and f"{spec}:" in err
    assert "Traceback" not in err
    assert _vivid(["run", spec])[0] == 2


@pytest.mark.parametrize(
    "data",
    [
        pytest.param("hf", id="hf-offline"),
        pytest.param("http://127.0.0.1:{port}/VIVID.csv", id="url-refused"),
        pytest.param(None, id="no-key-so-hf"),
    ],
)
def test_data_that_cannot_be_read_now_is_valid_but_says_run_would_stop(
    tmp_path: Path, data: str | None
) -> None:
    spec = _spec(tmp_path, data.format(port=_closed_port()) if data else None)
    code, out, err = _vivid(["validate", spec])
    assert code == 0 and ": valid — " in out
    first, *rest = err.splitlines()
    assert first == (
        "vivid validate: valid, but its data cannot be read now, so vivid run would stop before any call "
        "(exit 2) until it can:"
    )
    assert rest[0].startswith(f"{spec}:") and "data" in rest[0]
    assert "data: sample" in err  # the offline choice
    assert _vivid(["run", spec])[0] == 2
