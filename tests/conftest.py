"""Shared test set-up: logs and Inspect's model cache go to temporary folders.

A private cache per test keeps replies cached by an earlier run (or by the user's own work in
``~/.cache``) from answering a test's model calls, and keeps tests from touching the user's cache.
"""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _isolated_logs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECT_LOG_DIR", str(tmp_path_factory.mktemp("logs")))
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path_factory.mktemp("inspect-cache")))
    monkeypatch.delenv("VIVID_DATA", raising=False)
