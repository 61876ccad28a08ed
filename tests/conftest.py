"""Shared test set-up: logs and Inspect's model cache go to temporary folders.

A private cache per test keeps replies cached by an earlier run (or by the user's own work in
``~/.cache``) from answering a test's model calls, and keeps tests from touching the user's cache.
"""

from __future__ import annotations

import os

import pytest

PAID_API_KEYS = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GOOGLE_API_KEY",
    "GEMINI_API_KEY",
    "AZURE_OPENAI_API_KEY",
    "AZUREAI_OPENAI_API_KEY",
    "MISTRAL_API_KEY",
    "TOGETHER_API_KEY",
    "GROQ_API_KEY",
    "OPENROUTER_API_KEY",
)


# The periodic progress line (vivid_inspect/lab/ticker.py) would add a line to what a slow run
# prints, at a time that depends on the machine's load; the tests that check it set their own.
os.environ["VIVID_PROGRESS_SECONDS"] = "0"


@pytest.fixture(autouse=True)
def _isolated_logs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECT_LOG_DIR", str(tmp_path_factory.mktemp("logs")))
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path_factory.mktemp("inspect-cache")))
    # vivid's own output root (vivid_inspect.lab.output_root): a command left to its defaults
    # writes there, not into the folder the tests run from.
    monkeypatch.setenv("VIVID_OUTPUT_DIR", str(tmp_path_factory.mktemp("vivid-out")))
    monkeypatch.delenv("VIVID_DATA", raising=False)
    # No test may reach a paid API, even on a machine whose environment holds real keys.
    for key in PAID_API_KEYS:
        monkeypatch.delenv(key, raising=False)
