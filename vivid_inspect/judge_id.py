"""Which judge is which: a judge's strategy and instruction language, parsed and printed here alone.

Part of the log contract (`vivid_inspect.log_contract` re-exports it), kept free of pydantic
so that the command line can read the names while ``vivid --help`` stays light.

A judge column is named by two things, a `JudgeId`: the prompting strategy (``aspect``,
``cot``, ...; ``lexical`` for chrF, ``panel`` for a panel's aggregate) and, for an LLM judge, the
language of its instructions (``vi``, the paper's, or ``en``). Every name of a judge is one of its
printed forms:

- `JudgeId.column`: the result column and the registered scorer (``judge_cot_en``,
  ``--scorer vivid_inspect/judge_cot_en``), ``lexical``, ``judge_panel``;
- `JudgeId.option`: the explain task's ``-T judge=`` option and ``vivid report --judge``
  (``cot_en``, ``lexical``);
- its fields: a spec judge's ``strategy:`` and ``language:``, ``vivid audit --strategy
  --language``, ``-S strategy= -S language=``.

The judge *model* is not part of the identity: it is bound to the ``grader`` role when the judge
is called, so one identity asked of two models writes the same column in two logs, which the
report tells apart by the model it records (``report.judges.JudgeKey``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, get_args

Strategy = Literal["zero_shot", "demonstration", "cot", "aspect"]
"""An LLM judge's prompting strategy (paper §4.1); ``aspect`` is the paper's default."""
Language = Literal["vi", "en"]
"""The language of an LLM judge's instructions; the data blocks stay Vietnamese."""

LLM_STRATEGIES: tuple[Strategy, ...] = get_args(Strategy)
"""The four LLM judge strategies, in the order the scorers and the docs list them."""
JUDGE_LANGUAGES: tuple[Language, ...] = get_args(Language)
"""Languages an LLM judge's instructions can be written in."""
DEFAULT_LANGUAGE: Language = "vi"
"""The paper's judge language. Its columns carry no suffix, so logs judged before English existed read."""
DEFAULT_STRATEGY: Strategy = "aspect"
"""The paper's judge strategy."""
LEXICAL = "lexical"
"""The judge strategy that scores by chrF against the reference and calls no model; also its column."""
PANEL_STRATEGY = "panel"
"""The strategy recorded for a panel's aggregate (it calls no model)."""
JUDGE_PREFIX = "judge_"
"""Prefix of every LLM judge's (and the panel's) result column."""


class UnknownJudge(ValueError):
    """A name that names no judge: its message says what was expected.

    A `ValueError`, so callers that validate user input catch it as such.
    """

    def __init__(self, what: str, value: object, expected: Iterable[str]) -> None:
        super().__init__(f"unknown judge {what}{value!r}; expected one of {', '.join(expected)}")


def check_language(language: object) -> Language:
    """``language`` if it is one of `JUDGE_LANGUAGES`.

    Raises:
        UnknownJudge: Naming the allowed values, for anything else (``"EN"``, ``"fr"``, ``None``).
    """
    for known in JUDGE_LANGUAGES:
        if language == known and isinstance(language, str):
            return known
    raise UnknownJudge("language ", language, JUDGE_LANGUAGES)


def parse_strategy(strategy: object, *, lexical: bool = False) -> str:
    """``strategy`` if it is an LLM strategy (or, with ``lexical``, the lexical judge).

    Args:
        strategy: The name given (a spec's ``strategy:``, ``-S strategy=``, ``--strategy``).
        lexical: Whether ``lexical`` is accepted too (a spec's judges may be lexical).

    Returns:
        The strategy.

    Raises:
        UnknownJudge: Naming the accepted strategies.
    """
    accepted = (*LLM_STRATEGIES, LEXICAL) if lexical else LLM_STRATEGIES
    if isinstance(strategy, str) and strategy in accepted:
        return strategy
    raise UnknownJudge("strategy ", strategy, accepted)


@dataclass(frozen=True, order=True)
class JudgeId:
    """One judge column's identity: a strategy and, for an LLM judge, its instruction language.

    Build one with `llm`, `of`, `from_column` or `from_option`; print it
    with `column` or `option`. Each form parses back to the same value.

    Attributes:
        strategy: One of `LLM_STRATEGIES`, `LEXICAL` or `PANEL_STRATEGY`.
        language: The instruction language of an LLM judge; None for the lexical judge and a
            panel, which read no instructions.
    """

    strategy: str
    language: Language | None = DEFAULT_LANGUAGE

    def __post_init__(self) -> None:
        if self.strategy in (LEXICAL, PANEL_STRATEGY):
            if self.language is not None:
                raise ValueError(f"the {self.strategy} judge reads no instructions, so it has no language")
            return
        parse_strategy(self.strategy)
        check_language(self.language)

    @classmethod
    def llm(cls, strategy: object, language: object = DEFAULT_LANGUAGE) -> JudgeId:
        """An LLM judge: ``JudgeId.llm("cot", "en")``.

        Raises:
            UnknownJudge: If the strategy is not an LLM strategy or the language is unknown.
        """
        return cls(parse_strategy(strategy), check_language(language))

    @classmethod
    def of(cls, strategy: object, language: object = None) -> JudgeId:
        """Any judge from its fields, as a spec or a judged record gives them.

        Args:
            strategy: An LLM strategy, ``lexical`` or ``panel``.
            language: The instruction language; None is the default for an LLM judge. The lexical
                judge and a panel take none (or the default, which they ignore).

        Raises:
            UnknownJudge: If the strategy or the language is unknown.
            ValueError: If a language other than the default is given to the lexical judge or a panel.
        """
        if strategy in (LEXICAL, PANEL_STRATEGY):
            if language not in (None, DEFAULT_LANGUAGE):
                check_language(language)
                raise ValueError(f"the {strategy} judge reads no instructions, so it has no language")
            return cls(str(strategy), None)
        return cls.llm(strategy, DEFAULT_LANGUAGE if language is None else language)

    @classmethod
    def from_option(cls, name: str) -> JudgeId:
        """Parse an explain ``-T judge=`` option: ``cot_en`` -> ``JudgeId("cot", "en")``; ``lexical``.

        Raises:
            UnknownJudge: Naming every option, if ``name`` is none of `judge_ids`' options.
        """
        found = _BY_OPTION.get(name)
        if found is None:
            raise UnknownJudge("", name, _BY_OPTION)
        return found

    @classmethod
    def from_column(cls, name: str) -> JudgeId:
        """Parse a judge's result column: ``judge_cot_en`` -> ``JudgeId("cot", "en")``; ``judge_panel``.

        Raises:
            UnknownJudge: Naming every column, if ``name`` is no VIVID judge's column.
        """
        found = _BY_COLUMN.get(name)
        if found is None:
            raise UnknownJudge("column ", name, _BY_COLUMN)
        return found

    @classmethod
    def read_column(cls, name: str) -> JudgeId | None:
        """`from_column` for a column found in a log: None when it is no VIVID judge's."""
        return _BY_COLUMN.get(name)

    @property
    def column(self) -> str:
        """The result column (and registered scorer name): ``judge_aspect``, ``judge_aspect_en``, ``lexical``."""
        if self.strategy == LEXICAL:
            return LEXICAL
        column = f"{JUDGE_PREFIX}{self.strategy}"
        return column if self.language in (None, DEFAULT_LANGUAGE) else f"{column}_{self.language}"

    @property
    def option(self) -> str:
        """The explain task's ``-T judge=`` option: the column without ``judge_`` (``aspect_en``, ``lexical``)."""
        return self.column.removeprefix(JUDGE_PREFIX)

    @property
    def calls_a_model(self) -> bool:
        """Whether the judge asks a model (an LLM strategy), rather than computing its score."""
        return self.language is not None

    def __str__(self) -> str:
        return self.column


def llm_judges(language: Language | None = None) -> tuple[JudgeId, ...]:
    """Every LLM judge, strategies first within each language; only ``language``'s when given."""
    languages = JUDGE_LANGUAGES if language is None else (language,)
    return tuple(JudgeId(strategy, each) for each in languages for strategy in LLM_STRATEGIES)


def judge_ids() -> tuple[JudgeId, ...]:
    """Every judge a column may name: the LLM judges, the lexical judge, the panel."""
    return (*llm_judges(), JudgeId(LEXICAL, None), JudgeId(PANEL_STRATEGY, None))


_BY_COLUMN: dict[str, JudgeId] = {judge.column: judge for judge in judge_ids()}
_BY_OPTION: dict[str, JudgeId] = {
    judge.option: judge for judge in judge_ids() if judge.strategy != PANEL_STRATEGY
}
