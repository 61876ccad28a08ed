"""The ``vivid`` model provider: reference baselines usable wherever Inspect takes a model name.

``--model vivid/oracle -M data=sample`` answers every VIVID prompt with the gold answer of the item
under test; ``vivid/literal`` with a literal paraphrase or the majority label. The item is found
from the prompt (the last item line, after any demonstrations) and looked up in the data set
named by the ``data`` model argument (default: ``$VIVID_DATA``, else ``hf``, as for the tasks).

``vivid/chrf`` is a grader, not a generator: given a VIVID judge prompt
(``--model-role grader=vivid/chrf``) it answers the chrF between candidate and reference binned to
0-5, so the whole judge path (prompt, reply, parse) runs offline.
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
from vivid_inspect.baselines.chrf_judge import judge_fields, verdict
from vivid_inspect.data import load_items
from vivid_inspect.scorers.lexical import bin_chrf, chrf
from vivid_inspect.solvers.markers import last_item

GRADERS = ("chrf",)
MODEL_NAMES = ", ".join(f"vivid/{name}" for name in (*BASELINES, *GRADERS))


class BaselineModelError(RuntimeError):
    """The baseline cannot tell which item the prompt is about; it never guesses."""


class BaselineModel(ModelAPI):
    """Answers VIVID prompts from the data set itself (no network, no weights)."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig | None = None,
        data: str | None = None,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config or GenerateConfig())
        if model_name not in BASELINES and model_name not in GRADERS:
            raise ValueError(f"unknown vivid model {model_name!r}; expected one of: {MODEL_NAMES}")
        if model_args:
            raise ValueError(
                f"vivid/{model_name} takes only the model argument 'data', got {sorted(model_args)}"
            )
        self.answers: BaselineAnswers | None = None
        if model_name in BASELINES:
            self.source, items = load_items(data)
            self.items = {item.idiom: item for item in items}
            self.answers = BaselineAnswers(model_name, items)

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        """Answer from the data (a baseline) or grade by chrF (``vivid/chrf``), counting words."""
        prompt = "\n\n".join(message.text for message in input if isinstance(message, ChatMessageUser))
        text = self._grade(prompt) if self.answers is None else self._answer(prompt, self.answers)
        output = ModelOutput.from_content(model=f"vivid/{self.model_name}", content=text)
        # Counting words, not tokens: a tokenizer would need a download, and these are not billed.
        prompt_words, text_words = len(prompt.split()), len(text.split())
        output.usage = ModelUsage(
            input_tokens=prompt_words, output_tokens=text_words, total_tokens=prompt_words + text_words
        )
        return output

    def _grade(self, prompt: str) -> str:
        fields = judge_fields(prompt)
        if fields is None:
            raise BaselineModelError(
                f"vivid/{self.model_name} only grades VIVID judge prompts (use it as --model-role "
                f"grader=vivid/{self.model_name}); this prompt has no reference and candidate blocks"
            )
        reference, candidate = fields
        return verdict(bin_chrf(chrf(candidate, reference)))

    def _answer(self, prompt: str, answers: BaselineAnswers) -> str:
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
        return answers.answer(item, kind)

    def max_connections(self) -> int:
        """No remote service to protect: let Inspect run as many samples at once as it likes."""
        return 256
