"""The explain task's ``judge`` option: the scoring options it names and their scorers.

An option is named after the column it writes, without the ``judge_`` prefix: ``aspect`` (Vietnamese
instructions, the paper's), ``aspect_en`` (the same strategy with English instructions), ``lexical``.
"""

from __future__ import annotations

from inspect_ai.scorer import Scorer

from vivid_inspect.log_contract import (
    DEFAULT_LANGUAGE,
    JUDGE_LANGUAGES,
    JUDGE_PREFIX,
    LEXICAL,
    NO_JUDGE,
    column_parts,
    judge_column,
)
from vivid_inspect.scorers.judge import STRATEGIES, judge_scorer, parse_strategies
from vivid_inspect.scorers.lexical import lexical

ALL = "all"
"""The four LLM strategies with Vietnamese instructions; ``all_<language>`` in another language."""


def option_name(strategy: str, language: str = DEFAULT_LANGUAGE) -> str:
    """The ``judge`` option of a strategy and language: ``aspect``, ``aspect_en``, ``lexical``."""
    return judge_column(strategy, language).removeprefix(JUDGE_PREFIX)


JUDGE_CHOICES = (
    *(option_name(strategy, language) for language in JUDGE_LANGUAGES for strategy in STRATEGIES),
    LEXICAL,
)
"""Every single scoring option ``judge`` may name (``all``, ``all_en`` and ``none`` aside)."""

_ALL_OF = {
    ALL if language == DEFAULT_LANGUAGE else f"{ALL}_{language}": language for language in JUDGE_LANGUAGES
}


def option_parts(name: str) -> tuple[str, str]:
    """The strategy and language of a single option: ``cot_en`` -> (``cot``, ``en``).

    Raises:
        ValueError: If ``name`` is not one of :data:`JUDGE_CHOICES`.
    """
    if name not in JUDGE_CHOICES:
        raise ValueError(f"unknown judge {name!r}")
    if name == LEXICAL:
        return LEXICAL, DEFAULT_LANGUAGE
    strategy, language = column_parts(f"{JUDGE_PREFIX}{name}")
    return strategy, language or DEFAULT_LANGUAGE


def judge_names(judge: str) -> list[str]:
    """Expand the ``judge`` task parameter into the scoring options it names.

    Args:
        judge: One of :data:`JUDGE_CHOICES` (``aspect``, ``aspect_en``, ..., ``lexical``), a comma
            list of them, ``all`` (the four LLM-judge strategies), ``all_en`` (the four with English
            instructions) or ``none`` (generate only; judge later with ``inspect score`` or ``vivid run``).

    Returns:
        Option names without duplicates, in the given order; empty for ``none``.

    Raises:
        ValueError: If the spec is empty or names an unknown option.
    """
    if isinstance(judge, list | tuple):  # `-T judge=aspect,cot` reaches the task as a list
        judge = ",".join(str(part) for part in judge)
    if not isinstance(judge, str):
        raise ValueError(f"judge must be a name or a comma list of names, got {judge!r}")
    names = [part.strip() for part in judge.split(",") if part.strip()]
    if names == [NO_JUDGE]:
        return []
    expanded: list[str] = []
    for name in names or [judge]:
        if name in _ALL_OF:
            expanded.extend(option_name(strategy, _ALL_OF[name]) for strategy in parse_strategies(ALL))
        elif name in JUDGE_CHOICES:
            expanded.append(name)
        else:
            raise ValueError(
                f"unknown judge {name!r}; expected {NO_JUDGE!r}, {', '.join(repr(a) for a in _ALL_OF)} "
                f"or a comma list of {', '.join(JUDGE_CHOICES)}"
            )
    return list(dict.fromkeys(expanded))


def explain_scorers(judge: str, judge_model: str | None = None, judge_retries: int = 1) -> list[Scorer]:
    """One scorer per scoring option named by ``judge`` (see :func:`judge_names`).

    Args:
        judge: The task's ``judge`` parameter.
        judge_model: Judge used when no model is bound to the ``grader`` role.
        judge_retries: How many times the judge is asked again after an unreadable reply.

    Returns:
        The scorers, one result column each; none for ``none``.
    """
    scorers: list[Scorer] = []
    for name in judge_names(judge):
        strategy, language = option_parts(name)
        scorers.append(
            lexical()
            if strategy == LEXICAL
            # cache=None: the task's judge caches only when the run does (judge.run_caches).
            else judge_scorer(
                strategy=strategy,
                judge_model=judge_model,
                retries=judge_retries,
                cache=None,
                language=language,
            )
        )
    return scorers
