"""What each reference baseline answers for an item, per task, without any model or network."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Literal

from vivid_inspect.data import VividItem
from vivid_inspect.solvers.classify_prompts import topic_answer, traits_answer
from vivid_inspect.solvers.markers import TaskKind

BaselineName = Literal["oracle", "literal"]
BASELINES: tuple[BaselineName, ...] = ("oracle", "literal")

# A paraphrase that keeps the idiom's own words and adds no figurative reading: the
# "literal over-interpretation" failure the paper describes, as a deliberate floor.
LITERAL_EXPLANATION = "Câu này chỉ có nghĩa đúng như từng chữ: {words}. Ngoài ra không có hàm ý nào khác."


def literal_paraphrase(idiom: str) -> str:
    """Restate an idiom word for word, as a floor explanation with no figurative reading."""
    words = idiom.strip().rstrip(".!?")
    return LITERAL_EXPLANATION.format(words=words[:1].lower() + words[1:])


class BaselineAnswers:
    """Answers of one baseline over one data set.

    Args:
        name: ``oracle`` (gold answers) or ``literal`` (literal paraphrase; majority labels).
        items: The data set's items; the literal baseline's labels are its most common ones.
    """

    def __init__(self, name: BaselineName, items: Sequence[VividItem]) -> None:
        if name not in BASELINES:
            raise ValueError(f"unknown baseline {name!r}; expected one of {', '.join(BASELINES)}")
        self.name = name
        themes = Counter(item.theme_id for item in items)
        trait_sets = Counter(item.trait_ids for item in items)
        # Ties go to the lowest code so the floor never depends on file order.
        self.majority_theme = min(themes, key=lambda code: (-themes[code], code))
        self.majority_traits = min(trait_sets, key=lambda ids: (-trait_sets[ids], ids))

    def answer(self, item: VividItem, kind: TaskKind) -> str:
        """The baseline's reply to the item under ``kind``'s prompt."""
        if kind == "explain":
            return item.meaning if self.name == "oracle" else literal_paraphrase(item.idiom)
        if kind == "topic":
            return topic_answer(item.theme_id if self.name == "oracle" else self.majority_theme)
        return traits_answer(item.trait_ids if self.name == "oracle" else self.majority_traits)
