"""A mistyped built-in data name (`-T data=smaple`) is named with what was meant."""

from __future__ import annotations

from pathlib import Path

import pytest

from vivid_inspect.data.sources import DataSourceError, read_source


@pytest.mark.parametrize(
    ("typed", "meant"),
    [("smaple", "sample"), ("Sampel", "sample"), ("sampl", "sample"), ("hff", "hf")],
)
def test_a_mistyped_builtin_name_gets_a_did_you_mean(
    typed: str, meant: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(DataSourceError, match=f"no such data file \\(did you mean `{meant}`\\?\\)"):
        read_source(typed)


@pytest.mark.parametrize("typed", ["data/smaple", "nothing_like_it.csv"])
def test_a_path_or_a_far_name_gets_no_guess(
    typed: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(DataSourceError, match="no such data file\\. Choose"):
        read_source(typed)
