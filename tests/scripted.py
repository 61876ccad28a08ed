"""Scripted mock models for tests: answers chosen by reading the prompt, with usage set.

Usage is set on every output because mockllm otherwise counts tokens with tiktoken, which
downloads an encoding and fails offline.
"""

from __future__ import annotations

from collections.abc import Callable

from inspect_ai.model import (
    ChatMessage,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_ai.tool import ToolChoice, ToolInfo


def output(text: str, model: str = "mockllm/model") -> ModelOutput:
    """A ModelOutput with ``text`` and a token usage, so no tokenizer is needed."""
    result = ModelOutput.from_content(model=model, content=text)
    result.usage = ModelUsage(input_tokens=10, output_tokens=max(1, len(text.split())), total_tokens=11)
    return result


def prompt_text(messages: list[ChatMessage]) -> str:
    """All user messages of a request, joined."""
    return "\n\n".join(m.text for m in messages if isinstance(m, ChatMessageUser))


def scripted_model(answer: Callable[[str], str], calls: list[str] | None = None) -> Model:
    """A mockllm model that answers ``answer(prompt)`` and records each prompt in ``calls``."""

    def respond(
        messages: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice, config: GenerateConfig
    ) -> ModelOutput:
        prompt = prompt_text(messages)
        if calls is not None:
            calls.append(prompt)
        return output(answer(prompt))

    return get_model("mockllm/model", custom_outputs=respond)
