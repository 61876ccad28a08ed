"""``vivid run`` on data it cannot read names the spec's ``data:`` key as the fix.

``vivid run`` takes no ``-T data``, and ``VIVID_DATA`` applies only to a spec without ``data:``: the
data layer's advice (written for ``inspect eval``) would send a user of a spec to the wrong fix.
Each case below is a spec whose data fails only when the run reads it (validation passes): a
download that cannot be made (the pinned hub release, a URL), the environment's file when the spec
names none, and a file whose rows are bad. Downloads go to a closed port on 127.0.0.1, so each
fails at once and nothing leaves the machine.
"""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import pytest

from vivid_inspect.data import _load_cached
from vivid_inspect.lab.cli.main import main

REPO = Path(__file__).resolve().parents[3]
HF_LABEL = "hf:LakoreAI/vivid-vietnamese-idioms@daf3862423a8/VIVID_Dataset.csv"


def _closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HF_ENDPOINT", _closed_port_url())
    monkeypatch.setenv("VIVID_CACHE_DIR", str(tmp_path / "cache"))
    for variable in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(variable, raising=False)
    _load_cached.cache_clear()


def _spec(tmp_path: Path, data_line: str) -> Path:
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "name: data_message\n"
        "# a comment, so that the data key is not on line 1\n"
        f"{data_line}"
        "log_dir: logs\n"
        "runs:\n"
        "  - tasks: [explain]\n"
        "    models: [vivid/oracle]\n"
        "judges:\n"
        "  - {name: lexical, strategy: lexical}\n",
        encoding="utf-8",
    )
    return spec


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(argv)
    return code, capsys.readouterr().err


def _says_set_the_data_key(err: str) -> None:
    assert "the spec's `data:` key" in err, err
    assert "`data: sample`" in err, err
    # the inspect eval advice is not given as the fix: vivid run takes no -T
    assert "`-T data=...`" not in err, err


@pytest.mark.parametrize(
    "data",
    [
        pytest.param("hf", id="pinned-hub-release"),
        pytest.param("URL/vivid.csv", id="a-url"),
    ],
)
def test_a_download_that_fails_names_the_spec_line_and_the_data_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data: str
) -> None:
    data = data.replace("URL", _closed_port_url())
    spec = _spec(tmp_path, f"data: {data}\n")

    code, err = _run(["run", str(spec)], capsys)

    assert code == 2
    assert err.startswith("vivid run: the data cannot be used, nothing was run:\n"), err
    assert f"{spec}:3: data: " in err, err
    assert "could not download" in err, err
    _says_set_the_data_key(err)
    assert not (tmp_path / "logs" / "generations").exists()


def test_without_a_data_key_the_environment_is_named_and_the_key_offered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "gone.csv"
    monkeypatch.setenv("VIVID_DATA", str(missing))
    spec = _spec(tmp_path, "")

    code, err = _run(["run", str(spec)], capsys)

    assert code == 2
    assert f"{spec}: data (no `data:` key, so VIVID_DATA={missing}): {missing}: no such data file" in err, err
    _says_set_the_data_key(err)
    assert "or set VIVID_DATA" in err, err


def test_without_a_data_key_or_variable_the_default_release_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _spec(tmp_path, "")

    code, err = _run(["run", str(spec)], capsys)

    assert code == 2
    assert f"{spec}: data (no `data:` key and no VIVID_DATA, so hf): {HF_LABEL}: could not download" in err
    _says_set_the_data_key(err)


def test_bad_rows_are_reported_at_the_spec_line_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("Idiom_Proverb,Meaning\nmột,hai\n", encoding="utf-8")
    spec = _spec(tmp_path, "data: bad.csv\n")

    code, err = _run(["run", str(spec)], capsys)

    assert code == 2
    assert f"{spec}:3: data: {bad}" in err, err
    assert "the spec's `data:` key" in err, err


def test_the_shipped_judge_ablation_says_to_set_its_data_key_offline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # run from a copy, so the spec's relative log_dir stays inside tmp_path
    shutil.copytree(REPO / "experiments", tmp_path / "experiments")
    spec = tmp_path / "experiments" / "judge_ablation.yaml"
    line = next(n for n, text in enumerate(spec.read_text().splitlines(), 1) if text.startswith("data:"))

    code, err = _run(["run", str(spec), "--no-preflight"], capsys)

    assert code == 2
    assert f"{spec}:{line}: data: {HF_LABEL}: could not download" in err, err
    _says_set_the_data_key(err)
