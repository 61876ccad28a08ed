"""The explain task's ``judge`` option: the scoring options it names and their scorers."""

from __future__ import annotations

from inspect_ai.scorer import Scorer

from vivid_inspect.log_contract import LEXICAL, NO_JUDGE
from vivid_inspect.scorers.judge import STRATEGIES, judge_scorer, parse_strategies
from vivid_inspect.scorers.lexical import lexical

JUDGE_CHOICES = (*STRATEGIES, LEXICAL)
"""Every single scoring option ``judge`` may name (``all`` and ``none`` aside)."""


def judge_names(judge: str) -> list[str]:
    """Expand the ``judge`` task parameter into the scoring options it names.

    Args:
        judge: One of :data:`JUDGE_CHOICES`, a comma list of them, ``all`` (the four LLM-judge
            strategies) or ``none`` (generate only; judge later with ``inspect score`` or ``vivid run``).

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
        if name == LEXICAL:
            expanded.append(name)
        elif name in ("all", *STRATEGIES):
            expanded.extend(parse_strategies(name))
        else:
            raise ValueError(
                f"unknown judge {name!r}; expected {NO_JUDGE!r}, 'all' or a comma list of {', '.join(JUDGE_CHOICES)}"
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
    return [
        lexical()
        if name == LEXICAL
        else judge_scorer(strategy=name, judge_model=judge_model, retries=judge_retries)
        for name in judge_names(judge)
    ]
