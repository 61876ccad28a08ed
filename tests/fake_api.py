"""Shared set-up of the reliability tests: the real explain task against FakeOpenAIServer.

The generator (``openai-api/fake/gen``) answers each explanation prompt with a text that names
its idiom; the judge (``openai-api/fake/judge``) answers ``4`` unless a test scripts it. Both are
reached through Inspect's real ``openai-api`` provider over HTTP on 127.0.0.1, so retries, errors
and logs are those of a real run.

Models are built with an explicit ``base_url`` and ``memoize=False``: Inspect memoizes
``get_model()`` on its arguments, so a model built for one test's server would otherwise keep
calling a stopped server of an earlier test.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.model import GenerateConfig, Model, get_model

from vivid_inspect.data import load_items
from vivid_inspect.solvers.explain_prompts import EXPLAIN_DEMONSTRATIONS
from vivid_inspect.solvers.markers import last_item
from vivid_inspect.testing.openai_server import FakeOpenAIServer, RequestRecord
from vivid_inspect.text import nfc

GEN, JUDGE = "gen", "judge"
DUMMY_KEY = "fake-key"
JUDGE_REPLY = "4"

# A judge prompt puts the idiom and the candidate in blocks tagged with a per-prompt nonce.
_BLOCK = r"<{stem}_(?P<nonce>[0-9a-f]{{16}})>\n(?P<body>.*?)\n</{stem}_(?P=nonce)>"
_IDIOM_BLOCK = re.compile(_BLOCK.format(stem="thanh_ngu"), re.DOTALL)
_CANDIDATE_BLOCK = re.compile(_BLOCK.format(stem="giai_thich_can_cham"), re.DOTALL)


@dataclass(frozen=True)
class Item:
    """One item of the bundled sample that the explain task scores (demonstrations left out)."""

    id: int
    idiom: str
    meaning: str


def explain_items() -> list[Item]:
    """The sample items the explain task keeps, in sample-id order."""
    demos = {nfc(idiom) for idiom, _ in EXPLAIN_DEMONSTRATIONS}
    _, items = load_items("sample")
    return [Item(item.id, item.idiom, item.meaning) for item in items if item.idiom not in demos]


def explanation_of(idiom: str) -> str:
    """The default generator's explanation of an idiom (distinct per idiom)."""
    return f"Lời giải thích của mô hình cho câu {idiom}."


def idiom_of(prompt: str) -> str | None:
    """The idiom a generation or judge prompt is about, or None for any other prompt."""
    found = last_item(prompt)
    if found is not None:
        return found[0]
    block = _IDIOM_BLOCK.search(prompt)
    return nfc(block["body"]) if block else None


def candidate_of(prompt: str) -> str | None:
    """The candidate explanation inside a judge prompt, or None when it has no candidate block."""
    block = _CANDIDATE_BLOCK.search(prompt)
    return block["body"] if block else None


def is_judge_prompt(prompt: str) -> bool:
    """Whether a prompt is a judge prompt (it has a candidate block)."""
    return candidate_of(prompt) is not None


def default_responder(model: str, messages: list[dict[str, Any]]) -> str:
    """Generator explains the idiom of its prompt; the judge answers ``4``."""
    if model == GEN:
        idiom = idiom_of(str(messages[-1]["content"]))
        return explanation_of(idiom or "?")
    return JUDGE_REPLY


def fake_model(
    server: FakeOpenAIServer,
    name: str,
    *,
    sdk_retries: int = 0,
    client_timeout: float | None = None,
    config: GenerateConfig | None = None,
) -> Model:
    """``openai-api/fake/<name>`` bound to ``server``.

    Args:
        server: The running server.
        name: ``gen`` or ``judge``.
        sdk_retries: Retries of the OpenAI SDK itself (it honours ``Retry-After``).
        client_timeout: Seconds before the HTTP client gives up on a request.
        config: Generation config of the model (e.g. Inspect's ``max_retries`` for rescoring,
            where no eval-wide config applies).
    """
    args: dict[str, Any] = {"max_retries": sdk_retries}
    if client_timeout is not None:
        args["client_timeout"] = client_timeout
    return get_model(
        f"openai-api/fake/{name}",
        base_url=server.base_url,
        api_key=DUMMY_KEY,
        memoize=False,
        config=config or GenerateConfig(),
        **args,
    )


def requests_by_idiom(records: list[RequestRecord], model: str) -> Counter[str | None]:
    """How many requests of ``model`` the server received per idiom."""
    return Counter(idiom_of(record.prompt) for record in records if record.model == model)


def isolate_inspect(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Logs and Inspect's model cache in ``tmp_path`` (judge replies are cached by default)."""
    monkeypatch.setenv("INSPECT_LOG_DIR", str(tmp_path / "logs"))
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))


@contextmanager
def serving(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    """Isolate Inspect, then run a FakeOpenAIServer with the default responder, no latency or faults."""
    isolate_inspect(tmp_path, monkeypatch)
    with FakeOpenAIServer(responder=default_responder) as running:
        yield running


def judge_fails_for(idioms: set[str], fault: Callable[[], Any]) -> Callable[[int, str, str], Any]:
    """A fault plan that fails every judge request about one of ``idioms``."""

    def plan(index: int, model: str, prompt: str) -> Any:
        return fault() if model == JUDGE and idiom_of(prompt) in idioms else None

    return plan
