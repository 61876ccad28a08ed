"""A scripted model under test and a scripted judge, answering VIVID prompts without any model.

`scripted_responder` is a `Responder` for
``FakeOpenAIServer``: it reads each request's prompt and answers the way the prompt asks, so a
whole experiment (generation, the four judge strategies, the report) runs against the local
server with no key and no network (``python -m vivid_inspect.testing``). Every answer is a fixed
function of the prompt, so a rerun gets the same replies and the tables are the same each time.

**As the model under test** (a prompt of the ``explain``, ``topic`` or ``traits`` task), it looks
the item up in the data and answers an explanation of a quality fixed by the idiom (a CRC-32 of
its NFC text, modulo 4), so the judges have a spread of scores to tell apart:

- ``reference``: the reference meaning itself;
- ``partial``: the first half of the reference's words;
- ``literal``: a word-for-word restatement of the idiom (``vivid/literal``'s floor);
- ``wrong``: the reference meaning of the next item in the data, another idiom's meaning.

``topic`` and ``traits`` get the gold answer for the first two kinds and the data's most common
label (``vivid/literal``'s) for the others.

**As the judge** (a VIVID judge prompt, in either instruction language), it scores the candidate
against the reference by chrF binned to 0-5 ([`vivid_inspect.scorers.lexical.bin_chrf`][vivid_inspect.scorers.lexical.bin_chrf], as the
``vivid/chrf`` grader does), with one fixed rule per strategy so that the four columns of a judge
ablation differ where a real ablation would look for differences:

- ``zero_shot``: the binned chrF;
- ``demonstration``: the binned chrF of the value plus 5 (its graded examples make it a little
  more lenient near the cut points);
- ``cot``: the binned chrF of the value plus 10, after three lines of reasoning that cite the chrF
  value, ending with the score line (``Điểm: N``, or ``Score: N`` for English instructions);
- ``aspect``: 0 when chrF is under 30 (the core-meaning veto: so little shared wording is read as
  a wrong core meaning), else the binned chrF.

Bare-score strategies answer the number alone, as their templates ask. The strategy is told from
the prompt by the literal text of the templates in `vivid_inspect.scorers.judge_prompts`,
never copied here. These rules are a script, not a measurement of any judge: the tables they give
test the pipeline (every strategy parsed, compared, reported), not a judge's quality.
"""

from __future__ import annotations

import string
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from vivid_inspect.baselines.answers import BaselineAnswers, literal_paraphrase
from vivid_inspect.baselines.chrf_judge import judge_fields
from vivid_inspect.data import VividItem
from vivid_inspect.scorers.judge_prompts import TEMPLATES_BY_LANGUAGE
from vivid_inspect.scorers.lexical import bin_chrf, chrf
from vivid_inspect.solvers.markers import last_item
from vivid_inspect.testing.openai_server import last_user_text
from vivid_inspect.text import nfc

Quality = Literal["reference", "partial", "literal", "wrong"]
QUALITIES: tuple[Quality, ...] = ("reference", "partial", "literal", "wrong")

UNKNOWN_ITEM = "Tôi không rõ nghĩa của câu này."
"""The model under test's answer for an idiom the server's data does not hold."""
NOT_A_VIVID_PROMPT = "Đây là máy chủ thử nghiệm của vivid_inspect; nó chỉ trả lời các câu hỏi của VIVID."
"""The answer to a prompt that is neither a VIVID task prompt nor a VIVID judge prompt."""

_SCORE_LABEL = {"vi": "Điểm", "en": "Score"}


def _rule(offset: float = 0.0, veto_below: float | None = None) -> Callable[[float], int]:
    def score(value: float) -> int:
        if veto_below is not None and value < veto_below:
            return 0
        return bin_chrf(value + offset)

    return score


STRATEGY_RULES: dict[str, Callable[[float], int]] = {
    "zero_shot": _rule(),
    "demonstration": _rule(offset=5.0),
    "cot": _rule(offset=10.0),
    "aspect": _rule(veto_below=30.0),
}
"""Each strategy's score as a function of the chrF (0-100) of candidate against reference."""


def quality_of(idiom: str) -> Quality:
    """Which kind of explanation the scripted model under test gives for an idiom (fixed by its text)."""
    return QUALITIES[zlib.crc32(nfc(idiom).encode("utf-8")) % len(QUALITIES)]


def partial_meaning(meaning: str) -> str:
    """The first half of a meaning's words (at least one)."""
    words = meaning.split()
    return " ".join(words[: max(1, len(words) // 2)])


@dataclass(frozen=True)
class _Template:
    strategy: str
    language: str
    pieces: tuple[str, ...]  # the template's literal text between its fields

    @property
    def size(self) -> int:
        return sum(len(piece) for piece in self.pieces)


def _templates() -> list[_Template]:
    found = []
    for language, templates in TEMPLATES_BY_LANGUAGE.items():
        for strategy, template in templates.items():
            pieces = tuple(nfc(text).strip() for text, *_ in string.Formatter().parse(template))
            found.append(_Template(strategy, language, tuple(p for p in pieces if p)))
    return found


_TEMPLATES = _templates()


def judge_template_of(prompt: str) -> tuple[str, str] | None:
    """The (strategy, language) of a rendered VIVID judge prompt.

    The template whose literal text all occurs in the prompt, the longest when several do (every
    piece of the zero-shot template also occurs in an aspect prompt).

    Args:
        prompt: The judge prompt (NFC).

    Returns:
        ``(strategy, language)``, or None when no template matches.
    """
    matching = [t for t in _TEMPLATES if all(piece in prompt for piece in t.pieces)]
    if not matching:
        return None
    best = max(matching, key=lambda t: t.size)
    return best.strategy, best.language


def judge_reply(strategy: str, language: str, reference: str, candidate: str) -> str:
    """The scripted judge's reply to one judge prompt, in the format its strategy's parser reads.

    Args:
        strategy: ``zero_shot``, ``demonstration``, ``cot`` or ``aspect``.
        language: ``vi`` or ``en`` (the label of a chain-of-thought reply's score line).
        reference: The reference meaning from the prompt.
        candidate: The explanation to grade from the prompt.

    Returns:
        The bare score, or for ``cot`` three lines of reasoning and the final score line.
    """
    value = chrf(candidate, reference)
    score = STRATEGY_RULES[strategy](value)
    if strategy != "cot":
        return str(score)
    label = _SCORE_LABEL[language]
    if language == "en":
        reasoning = [
            "1. The reference meaning is compared with the explanation character by character.",
            f"2. They share text at a chrF of {value:.1f} out of 100.",
            f"3. On the 0-5 scale that overlap is worth {score}.",
        ]
    else:
        reasoning = [
            "1. So sánh nghĩa chuẩn với lời giải thích theo từng chuỗi ký tự.",
            f"2. Mức trùng khớp chrF là {value:.1f} trên 100.",
            f"3. Theo thang 0-5, mức trùng khớp ấy ứng với {score}.",
        ]
    return "\n".join([*reasoning, f"{label}: {score}"])


class ScriptedPeer:
    """The scripted model under test and judge over one data set.

    Args:
        items: The data the prompts' items come from (the spec's or the task's ``data``).
        on_unknown: Called once with each idiom a prompt names that ``items`` does not hold.
    """

    def __init__(self, items: Sequence[VividItem], on_unknown: Callable[[str], None] | None = None) -> None:
        self.items = list(items)
        self.by_idiom: Mapping[str, int] = {item.idiom: index for index, item in enumerate(self.items)}
        self.labels = BaselineAnswers("literal", self.items)
        self.gold = BaselineAnswers("oracle", self.items)
        self.on_unknown = on_unknown
        self._unknown: set[str] = set()

    def explanation(self, item: VividItem) -> str:
        """The scripted explanation of an item (see `quality_of`)."""
        quality = quality_of(item.idiom)
        if quality == "reference":
            return item.meaning
        if quality == "partial":
            return partial_meaning(item.meaning)
        if quality == "literal":
            return literal_paraphrase(item.idiom)
        return self.items[(self.by_idiom[item.idiom] + 1) % len(self.items)].meaning

    def reply(self, prompt: str) -> str:
        """The answer to a prompt: as the judge, as the model under test, or a fixed line."""
        fields = judge_fields(prompt)
        template = judge_template_of(prompt) if fields is not None else None
        if fields is not None and template is not None:
            reference, candidate = fields
            return judge_reply(*template, reference, candidate)
        found = last_item(prompt)
        if found is None:
            return NOT_A_VIVID_PROMPT
        idiom, kind = found
        index = self.by_idiom.get(idiom)
        if index is None:
            if idiom not in self._unknown and self.on_unknown is not None:
                self.on_unknown(idiom)
            self._unknown.add(idiom)
            return UNKNOWN_ITEM
        item = self.items[index]
        if kind == "explain":
            return self.explanation(item)
        answers = self.gold if quality_of(item.idiom) in ("reference", "partial") else self.labels
        return answers.answer(item, kind)

    def __call__(self, model: str, messages: list[dict[str, Any]]) -> str:
        """Answer one chat request (a ``Responder``): every model answers by the prompt alone."""
        texts = [last_user_text([m]) for m in messages if isinstance(m, dict) and m.get("role") == "user"]
        return self.reply(nfc("\n\n".join(texts)))
