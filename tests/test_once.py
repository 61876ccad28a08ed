"""Folders built once per session (tests/once.py) are built with no paid API key in reach."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import PAID_API_KEYS
from tests.once import once_per_session


def test_a_shared_folder_is_built_without_paid_keys_and_only_once(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key in PAID_API_KEYS:
        monkeypatch.setenv(key, "sk-real-looking-key")
    seen: list[dict[str, str | None]] = []

    def build(folder: Path) -> None:
        seen.append({key: os.environ.get(key) for key in PAID_API_KEYS})
        (folder / "built").write_text("yes", encoding="utf-8")

    first = once_per_session(tmp_path_factory, "paid-keys-check", build)
    second = once_per_session(tmp_path_factory, "paid-keys-check", build)
    assert first == second and (first / "built").read_text(encoding="utf-8") == "yes"
    assert seen == [dict.fromkeys(PAID_API_KEYS)]
    assert os.environ["OPENAI_API_KEY"] == "sk-real-looking-key"  # the test's own environment is restored
