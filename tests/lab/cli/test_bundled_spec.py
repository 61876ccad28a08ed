"""`vivid run offline` works from any folder: the demo's spec ships inside the package."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
import yaml

from vivid_inspect.lab.cli.main import main
from vivid_inspect.lab.runner.bundled import SPECS_DIR, bundled_names, resolve_spec, unknown_name_hint

REPO = Path(__file__).resolve().parents[3]


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_the_bundled_demo_is_the_checkouts_offline_spec_but_for_where_its_logs_go() -> None:
    bundled = yaml.safe_load((SPECS_DIR / "offline.yaml").read_text(encoding="utf-8"))
    checkout = yaml.safe_load((REPO / "experiments" / "offline.yaml").read_text(encoding="utf-8"))
    assert bundled.pop("log_dir") != checkout.pop("log_dir")
    assert bundled == checkout


@pytest.mark.parametrize(
    ("argument", "log_dir", "expected"),
    [
        pytest.param(
            "offline",
            None,
            (str(SPECS_DIR / "offline.yaml"), str(Path("vivid-out") / "offline")),
            id="bare-name",
        ),
        pytest.param("offline", "mine", (str(SPECS_DIR / "offline.yaml"), "mine"), id="log-dir-wins"),
        pytest.param("experiments/offline.yaml", None, ("experiments/offline.yaml", None), id="a-path"),
        pytest.param("offline.yaml", None, ("offline.yaml", None), id="a-file-name"),
        pytest.param("./offline", None, ("./offline", None), id="a-relative-path"),
        pytest.param("nosuch", None, ("nosuch", None), id="unknown"),
    ],
)
def test_a_bare_name_means_the_bundled_spec_and_anything_else_is_a_path(
    argument: str,
    log_dir: str | None,
    expected: tuple[str, str | None],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("VIVID_OUTPUT_DIR", raising=False)
    assert resolve_spec(argument, log_dir) == expected


def test_a_file_of_that_name_in_the_current_folder_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "offline").write_text("name: mine\n", encoding="utf-8")
    assert resolve_spec("offline", None) == ("offline", None)
    assert unknown_name_hint("offline") is None


@pytest.mark.parametrize(
    ("typed", "guess"),
    [
        ("ofline", "did you mean `offline`?"),
        ("Offline", "did you mean `offline`?"),
        ("zzz", "bundled specs: offline"),
    ],
)
def test_a_mistyped_name_is_refused_in_one_line_naming_the_bundled_specs(
    typed: str, guess: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(["validate", typed])
    assert code == 2
    assert guess in err and "offline" in bundled_names()
    assert "Traceback" not in err and len(err.strip().splitlines()) == 2
    assert not any(tmp_path.iterdir())  # nothing written


def test_validate_offline_from_an_empty_folder_puts_the_logs_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("VIVID_OUTPUT_DIR", raising=False)
    code, out, _ = _run(["validate", "offline"])
    assert code == 0
    assert f"logs in {tmp_path / 'vivid-out' / 'offline'}" in out


@pytest.mark.parametrize(
    "typed", ["offline.yaml", "offline.yml", "experiments/offline.yaml", "specs/offline.YAML"]
)
def test_a_missing_file_named_like_a_bundled_spec_points_to_its_name(
    typed: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = _run(["validate", typed])
    assert code == 2
    assert "runs from any folder as `vivid run offline`" in err and "Traceback" not in err
    assert (
        unknown_name_hint("elsewhere/other.yaml") is None
    )  # no bundled spec of that name: the loader's message
