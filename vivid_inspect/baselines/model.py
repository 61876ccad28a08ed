"""The ``vivid`` model provider: reference baselines usable wherever Inspect takes a model name.

``--model vivid/oracle -M data=sample`` answers every VIVID prompt with the gold answer of the item
under test; ``vivid/literal`` with a literal paraphrase or the majority label. The item is found
from the prompt (the last item line, after any demonstrations) and looked up in the data set
named by the ``data`` model argument (default: ``$VIVID_DATA``, else ``hf``, as for the tasks).
"""

from __future__ import annotations

from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageUser,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from vivid_inspect.baselines.answers import BASELINES, BaselineAnswers
from vivid_inspect.data import load_items
from vivid_inspect.solvers.markers import last_item


class BaselineModelError(RuntimeError):
    """The baseline cannot tell which item the prompt is about; it never guesses."""


class BaselineModel(ModelAPI):
    """Answers VIVID prompts from the data set itself (no network, no weights)."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),
        data: str | None = None,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        if model_name not in BASELINES:
            raise ValueError(f"unknown vivid model {model_name!r}; expected one of: vivid/oracle, vivid/literal")
        if model_args:
            raise ValueError(f"vivid/{model_name} takes only the model argument 'data', got {sorted(model_args)}")
        self.source, items = load_items(data)
        self.items = {item.idiom: item for item in items}
        self.answers = BaselineAnswers(model_name, items)  # type: ignore[arg-type]

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        prompt = "\n\n".join(message.text for message in input if isinstance(message, ChatMessageUser))
        found = last_item(prompt)
        if found is None:
            raise BaselineModelError(
                f"vivid/{self.model_name}: the prompt has no VIVID item line followed by an answer tag, "
                f"so there is nothing to answer. Prompt ends with: {prompt[-200:]!r}"
            )
        idiom, kind = found
        item = self.items.get(idiom)
        if item is None:
            raise BaselineModelError(
                f"vivid/{self.model_name}: the item {idiom!r} is not in {self.source}; pass the task's data "
                "to the model too, e.g. `-M data=sample` beside `-T data=sample`"
            )
        text = self.answers.answer(item, kind)
        output = ModelOutput.from_content(model=f"vivid/{self.model_name}", content=text)
        # Counting words, not tokens: a tokenizer would need a download, and these are not billed.
        prompt_words = len(prompt.split())
        output.usage = ModelUsage(
            input_tokens=prompt_words, output_tokens=len(text.split()), total_tokens=prompt_words + len(text.split())
        )
        return output

    def max_connections(self) -> int:
        """No remote service to protect: let Inspect run as many samples at once as it likes."""
        return 256
