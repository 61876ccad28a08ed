"""Shared test set-up: logs go to a temporary folder, never into the checkout."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _isolated_logs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECT_LOG_DIR", str(tmp_path_factory.mktemp("logs")))
    monkeypatch.delenv("VIVID_DATA", raising=False)
