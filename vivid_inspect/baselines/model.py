"""The ``vivid`` model provider: reference baselines usable wherever Inspect takes a model name.

``--model vivid/oracle -M data=sample`` answers every VIVID prompt with the gold answer of the item
under test; ``vivid/literal`` with a literal paraphrase or the majority label. The item is found
from the prompt (the last item line, after any demonstrations) and looked up in the data set
named by the ``data`` model argument (default: ``$VIVID_DATA``, else ``hf``, as for the tasks).

``vivid/chrf`` is a grader, not a generator: given a VIVID judge prompt
(``--model-role grader=vivid/chrf``) it answers the chrF between candidate and reference binned to
0-5, so the whole judge path (prompt, reply, parse) runs offline.

A misspelt name (``vivid/oracel``), an unknown model argument or data that cannot be read stop
``inspect eval`` before any task is built, with one message (`BaselineSetupError`): the
closest name, and the ``-M data=...`` that fixes it.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Sequence
from typing import Any

from inspect_ai.model import ChatMessage, ChatMessageUser, GenerateConfig, ModelAPI, ModelOutput, ModelUsage
from inspect_ai.tool import ToolChoice, ToolInfo

from vivid_inspect.baselines.answers import BASELINES, BaselineAnswers
from vivid_inspect.baselines.chrf_judge import judge_fields, verdict
from vivid_inspect.data import DATA_ENV, VividDataError, load_items
from vivid_inspect.inspect_private import PlainError
from vivid_inspect.scorers.lexical import bin_chrf, chrf
from vivid_inspect.solvers.markers import last_item
from vivid_inspect.text import nfc

GRADERS = ("chrf",)
MODEL_ARGS = ("data",)
ROLES = (
    f"{', '.join(f'vivid/{name}' for name in BASELINES)} answer the tasks (with -M data=...); "
    f"{', '.join(f'vivid/{name}' for name in GRADERS)} grades (--model-role grader=vivid/{GRADERS[0]})"
)
"""Which vivid model goes where, for messages."""

# The data layer's advice names the task's `-T data=...`: for the model's own data that is the
# wrong fix, so it is cut from the reason and `-M data=...` is named instead.
_TASK_DATA_ADVICE = " Choose the data with the task parameter"


class BaselineModelError(RuntimeError):
    """The baseline cannot tell which item the prompt is about; it never guesses."""


class BaselineSetupError(PlainError, ValueError):
    """A ``vivid/*`` model that cannot be created: Inspect prints the message alone, no traceback."""


class BaselineDataError(BaselineSetupError, VividDataError):
    """A baseline's data (``-M data=...``) cannot be read (also a `VividDataError`)."""


def closest(name: str, choices: Sequence[str], prefix: str = "") -> str:
    """``; did you mean X?`` for the choice closest to a misspelt name, or "" when none is close."""
    found = difflib.get_close_matches(name, choices, n=1, cutoff=0.6)
    return f"; did you mean {prefix}{found[0]}?" if found else ""


def unknown_model(name: str) -> str | None:
    """Why ``vivid/<name>`` is not a vivid model, with the closest name; None when it is one.

    Args:
        name: The model name after ``vivid/``.

    Returns:
        The message, or None.
    """
    if name in BASELINES or name in GRADERS:
        return None
    hint = closest(name, (*BASELINES, *GRADERS), prefix="vivid/")
    return f"unknown vivid model 'vivid/{name}'{hint or '.'} The vivid models: {ROLES}."


def _data_problem(name: str, data: str | None, error: VividDataError) -> str:
    reason = str(error).split(_TASK_DATA_ADVICE, 1)[0].strip()
    if data and data.strip():
        where = f"-M data={data.strip()} cannot be read"
    else:
        from_env = os.environ.get(DATA_ENV, "").strip()
        default = f"${DATA_ENV} ({from_env})" if from_env else "hf (the pinned Hugging Face release)"
        where = f"no -M data was given, so it answers from {default}, which cannot be read"
    return (
        f"vivid/{name}: {where}: {reason}\n"
        "Give the model the task's data: -M data=sample beside -T data=sample, or one CSV path or URL for both."
    )


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
        problem = unknown_model(model_name)
        if problem:
            raise BaselineSetupError(problem)
        if model_args:
            hints = "".join(closest(arg, MODEL_ARGS) for arg in sorted(model_args))
            raise BaselineSetupError(
                f"vivid/{model_name} takes only the model argument 'data', got {sorted(model_args)}{hints}"
                " (e.g. -M data=sample)"
            )
        self.answers: BaselineAnswers | None = None
        if model_name in BASELINES:
            try:
                self.source, items = load_items(data)
            except VividDataError as error:
                raise BaselineDataError(_data_problem(model_name, data, error)) from error
            self.items = {item.idiom: item for item in items}
            self.answers = BaselineAnswers(model_name, items)

    @property
    def is_grader(self) -> bool:
        """Whether this model grades judge prompts (``vivid/chrf``) rather than answering tasks."""
        return self.answers is None

    def missing(self, idioms: Iterable[str]) -> list[str]:
        """The idioms this baseline has no item for (it could not answer them), in order.

        Args:
            idioms: The idioms of a task's samples.

        Returns:
            Those not in its data; empty for a grader, which needs none.
        """
        if self.answers is None:
            return []
        return [idiom for idiom in idioms if nfc(idiom.strip()) not in self.items]

    async def generate(
        self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice, config: GenerateConfig
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
