"""The explain task's ``judge`` option: the scoring options it names and their scorers.

An option is named after the column it writes, without the ``judge_`` prefix: ``aspect`` (Vietnamese
instructions, the paper's), ``aspect_en`` (the same strategy with English instructions), ``lexical``.
"""

from __future__ import annotations

from inspect_ai.scorer import Scorer

from vivid_inspect.judge_id import DEFAULT_LANGUAGE, JUDGE_LANGUAGES, LEXICAL, JudgeId, llm_judges
from vivid_inspect.log_contract import NO_JUDGE
from vivid_inspect.scorers.judge import judge_scorer
from vivid_inspect.scorers.lexical import lexical

ALL = "all"
"""The four LLM strategies with Vietnamese instructions; ``all_<language>`` in another language."""

JUDGE_CHOICES = (*(judge.option for judge in llm_judges()), LEXICAL)
"""Every single scoring option ``judge`` may name (``all``, ``all_en`` and ``none`` aside)."""

_ALL_OF = {
    ALL if language == DEFAULT_LANGUAGE else f"{ALL}_{language}": language for language in JUDGE_LANGUAGES
}


def judge_names(judge: str) -> list[str]:
    """Expand the ``judge`` task parameter into the scoring options it names.

    Args:
        judge: One of `JUDGE_CHOICES` (``aspect``, ``aspect_en``, ..., ``lexical``), a comma
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
            expanded.extend(judge.option for judge in llm_judges(_ALL_OF[name]))
        elif name in JUDGE_CHOICES:
            expanded.append(name)
        else:
            raise ValueError(
                f"unknown judge {name!r}; expected {NO_JUDGE!r}, {', '.join(repr(a) for a in _ALL_OF)} "
                f"or a comma list of {', '.join(JUDGE_CHOICES)}"
            )
    return list(dict.fromkeys(expanded))


def explain_scorers(judge: str, judge_model: str | None = None, judge_retries: int = 1) -> list[Scorer]:
    """One scorer per scoring option named by ``judge`` (see `judge_names`).

    Args:
        judge: The task's ``judge`` parameter.
        judge_model: Judge used when no model is bound to the ``grader`` role.
        judge_retries: How many times the judge is asked again after an unreadable reply.

    Returns:
        The scorers, one result column each; none for ``none``.
    """
    scorers: list[Scorer] = []
    for name in judge_names(judge):
        ident = JudgeId.from_option(name)
        scorers.append(
            lexical()
            if ident.strategy == LEXICAL
            # cache=None: the task's judge caches only when the run does (judge.run_caches).
            else judge_scorer(
                strategy=ident.strategy,
                judge_model=judge_model,
                retries=judge_retries,
                cache=None,
                language=ident.language or DEFAULT_LANGUAGE,
            )
        )
    return scorers
