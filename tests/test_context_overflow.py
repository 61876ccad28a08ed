"""A prompt too long for the server's context: the error quotes the server's reason, not the request (issue 31.10).

Inspect raises a ``ModelGenerateError`` whose text starts with the whole request as JSON; the
provider's own words are on the OpenAI SDK's error underneath. The bodies below are written after
what llama.cpp's server and vLLM send for an over-long prompt (numbers and wording shortened), and
one 400 that is not about the context, which gets no hint.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from inspect_ai.model import GenerateConfig, get_model

from vivid_inspect.call_errors import CONTEXT_HINT, describe_failure, is_call_failure, named_failure
from vivid_inspect.testing.openai_server import FakeOpenAIServer

# llama.cpp wraps its reason in "error" and adds the prompt's length and the context's size.
LLAMA_CPP = {
    "error": {
        "code": 400,
        "type": "exceed_context_size_error",
        "message": "the request exceeds the available context size, try increasing it",
        "n_prompt_tokens": 1187,
        "n_ctx": 768,
    }
}
# vLLM (older releases): a flat object whose "object" says error.
VLLM_FLAT = {
    "object": "error",
    "type": "BadRequestError",
    "code": 400,
    "param": None,
    "message": "This model's maximum context length is 768 tokens. However, you requested 1197 tokens "
    "(1187 in the messages, 10 in the completion). Please reduce the length of the messages or completion.",
}
# vLLM (newer releases): the same reason wrapped in "error".
VLLM_NESTED = {"error": {key: value for key, value in VLLM_FLAT.items() if key != "object"}}
# A 400 about something else.
OTHER = {
    "error": {"code": 400, "type": "invalid_request_error", "message": "unknown sampling option 'top_q'"}
}

BODIES: dict[str, dict[str, Any]] = {
    "llamacpp": LLAMA_CPP,
    "vllm": VLLM_FLAT,
    "vllm_new": VLLM_NESTED,
    "other": OTHER,
}


class RefusingServer(FakeOpenAIServer):
    """Answers every chat request with HTTP 400 and the body named by the request's model."""

    def _reply(self, index: int, model: str, messages: list[dict[str, Any]], fault: Any) -> Any:
        return 400, BODIES[model], {}


@pytest.fixture(scope="module")
def server() -> Iterator[RefusingServer]:
    running = RefusingServer()
    running.start()
    try:
        yield running
    finally:
        running.stop()


def _failure(server: RefusingServer, model: str) -> BaseException:
    os.environ.setdefault("OVERFLOW_API_KEY", "unused")
    judge = get_model(
        f"openai-api/overflow/{model}", base_url=server.base_url, config=GenerateConfig(max_retries=1)
    )
    try:
        anyio.run(judge.generate, "Thành ngữ: ...")
    except Exception as error:  # noqa: BLE001 - the failure is what the test reads
        assert is_call_failure(error)
        return named_failure(judge, error)
    raise AssertionError("the server's 400 did not fail the call")


@pytest.mark.slow  # Inspect's real openai-api provider against a local server: about a second a call
@pytest.mark.parametrize(
    ("model", "reason"),
    [
        (
            "llamacpp",
            "the request exceeds the available context size, try increasing it (prompt 1187 tokens, context 768)",
        ),
        ("vllm", "This model's maximum context length is 768 tokens. However, you requested 1197 tokens"),
        ("vllm_new", "This model's maximum context length is 768 tokens. However, you requested 1197 tokens"),
    ],
)
def test_a_context_overflow_quotes_the_servers_reason_and_the_fix(
    server: RefusingServer, model: str, reason: str
) -> None:
    message = str(_failure(server, model))
    assert f"HTTP 400 from http://127.0.0.1:{server.port}/v1: " in message
    assert reason in message
    assert message.endswith(CONTEXT_HINT)
    # not the request Inspect puts first in its own text
    assert "Request:" not in message and '"messages"' not in message and "Thành ngữ" not in message


@pytest.mark.slow
def test_another_400_quotes_its_reason_without_the_context_hint(server: RefusingServer) -> None:
    message = str(_failure(server, "other"))
    assert "HTTP 400 from" in message and message.endswith("unknown sampling option 'top_q'")
    assert CONTEXT_HINT not in message and "Request:" not in message


def test_the_reason_is_read_through_the_sdk_error_underneath() -> None:
    # the shape Inspect raises, without a server: its own text first, the SDK's error as the cause
    class SdkError(Exception):
        status_code = 400
        body = LLAMA_CPP["error"]

    class Wrapper(RuntimeError):
        status_code = 400
        provider_message = (
            "Error code: 400 - the request exceeds the available context size, try increasing it"
        )

    try:
        try:
            raise SdkError("Error code: 400 - ...")
        except SdkError as sdk:
            raise Wrapper('\nRequest:\n{"messages": []}\n\nSdkError(...)') from sdk
    except Wrapper as error:
        text = describe_failure(error)
    assert text.startswith("HTTP 400 from the provider: the request exceeds the available context size")
    assert "(prompt 1187 tokens, context 768)" in text and "Request:" not in text
