"""Builds the explanation task (the paper's generative evaluation, §4.1)."""

from __future__ import annotations

from typing import cast

from inspect_ai import Task
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import Scorer

from vivid_inspect.call_limits import GENERATION
from vivid_inspect.data import load_vivid
from vivid_inspect.data.leakage import judge_example_idioms
from vivid_inspect.log_contract import LEXICAL
from vivid_inspect.scorers.judge import STRATEGIES, judge_scorer, parse_strategies
from vivid_inspect.scorers.lexical import lexical
from vivid_inspect.solvers.bounded_generate import bounded_generate
from vivid_inspect.solvers.explain import explain_prompt
from vivid_inspect.solvers.explain_prompts import EXPLAIN_DEMONSTRATIONS, EXPLAIN_STYLES, ExplainStyle

# Paper Appendix C. Task-level config, so --temperature / --max-tokens on the CLI override it,
# as --max-retries / --timeout override the finite retry limits (attempt_timeout: bounded_generate).
EXPLAIN_CONFIG = GenerateConfig(temperature=0.7, max_tokens=150).merge(GENERATION.retry_config())
# 2: judge calibration idioms and idiom-key matches of demonstrations are left out; chrF
# unifies tone-mark placement (README, Changelog).
TASK_VERSION = 2

NO_JUDGE = "none"
JUDGE_CHOICES = (*STRATEGIES, LEXICAL)


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
    if isinstance(judge, (list, tuple)):  # `-T judge=aspect,cot` reaches the task as a list
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
    """One scorer per scoring option named by ``judge`` (see :func:`judge_names`)."""
    return [
        lexical() if name == LEXICAL else judge_scorer(strategy=name, judge_model=judge_model, retries=judge_retries)
        for name in judge_names(judge)
    ]


def explain_task(
    prompt: str = "zero_shot",
    judge: str = "aspect",
    judge_model: str | None = None,
    data: str | None = None,
    judge_retries: int = 1,
) -> Task:
    """The explanation task: the model explains each idiom, an LLM judge scores it 0-5.

    Args:
        prompt: ``zero_shot`` or ``few_shot`` generation prompt.
        judge: Judge strategy: ``aspect`` (paper default), ``zero_shot``, ``demonstration``,
            ``cot``, ``lexical`` (chrF, no model), a comma-separated list of them, ``all`` (the
            four LLM strategies) or ``none`` (generate only). Each gets its own result column
            (``judge_<strategy>``, ``lexical``) scoring the same generations.
        judge_model: Judge used when no model is bound to the ``grader`` role; default GPT-4.1.
        data: ``sample``, ``hf``, an http(s) URL or a CSV path; None means ``$VIVID_DATA``, else
            ``hf``.
        judge_retries: How many times the judge is asked again after an unreadable reply.

    Returns:
        The Inspect task. Its metadata records the data source and the ids left out because
        their idiom is one of the few-shot demonstrations (left out for both prompt styles, so
        zero-shot and few-shot scores cover the same items; ``left_out``, ``left_out_ids``), and
        apart from those the ids left out because their idiom is a graded example in a judge
        prompt (left out whatever ``judge`` is, so the data set never depends on the judge;
        ``judge_examples_left_out``, ``judge_examples_left_out_ids``).

    Raises:
        ValueError: If ``prompt`` or ``judge`` names an unknown option.
    """
    if prompt not in EXPLAIN_STYLES:
        raise ValueError(f"unknown prompt style {prompt!r}; expected one of {', '.join(EXPLAIN_STYLES)}")
    scorers = explain_scorers(judge, judge_model, judge_retries)
    loaded = load_vivid(
        data,
        exclude_idioms=[idiom for idiom, _ in EXPLAIN_DEMONSTRATIONS],
        exclude_judge_examples=judge_example_idioms(),
    )
    return Task(
        dataset=loaded.dataset,
        solver=[explain_prompt(cast(ExplainStyle, prompt)), bounded_generate()],
        scorer=scorers,
        config=EXPLAIN_CONFIG,
        version=TASK_VERSION,
        metadata={
            "data": loaded.source,
            "prompt": prompt,
            "judge_strategies": judge_names(judge),
            "left_out": len(loaded.left_out),
            "left_out_ids": loaded.left_out,
            "judge_examples_left_out": len(loaded.judge_examples_left_out),
            "judge_examples_left_out_ids": loaded.judge_examples_left_out,
        },
    )
