"""The VIVID tasks: ``inspect eval vivid_inspect/tasks.py@topic`` (or ``vivid_inspect/topic``).

Each ``@task`` function builds its task itself: its signature and docstring are what Inspect
shows for ``-T``, and `task_errors` turns a bad argument
or data file into one clear message.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import cast

from inspect_ai import Task, task
from inspect_ai.model import GenerateConfig

from vivid_inspect.baselines.model import closest
from vivid_inspect.bounds import MAX_JUDGE_RETRIES, count_problem, shown
from vivid_inspect.call_limits import GENERATION
from vivid_inspect.data import VividData, VividItem, load_vivid
from vivid_inspect.data.leakage import NEAR_DUPLICATE_THRESHOLD, THRESHOLD_RANGE
from vivid_inspect.inspect_private import task_errors
from vivid_inspect.judge_id import DEFAULT_LANGUAGE, JUDGE_LANGUAGES
from vivid_inspect.log_contract import LEAKAGE_KEY, LEXICAL, NO_JUDGE
from vivid_inspect.scorers.classification import topic_match, traits_match
from vivid_inspect.scorers.explain_judges import ALL, JUDGE_CHOICES, explain_scorers, judge_names
from vivid_inspect.scorers.judge_prompts import judge_example_idioms
from vivid_inspect.solvers.bounded_generate import bounded_generate
from vivid_inspect.solvers.classify import classify_prompt
from vivid_inspect.solvers.classify_prompts import (
    DEMONSTRATIONS,
    MAX_SHOTS,
    ClassifyKind,
    topic_answer,
    traits_answer,
)
from vivid_inspect.solvers.explain import explain_generate
from vivid_inspect.solvers.explain_prompts import EXPLAIN_DEMONSTRATIONS, EXPLAIN_STYLES, ExplainStyle
from vivid_inspect.task_start import check_answerable, check_models, check_names

# Paper Appendix C. Task-level config, so --temperature / --max-tokens on the CLI override it,
# as --max-retries / --timeout override the finite retry limits (attempt_timeout: bounded_generate).
# cache=False is Inspect's default made explicit: the task's judge reads it (judge.run_caches) and
# caches only when `--cache` also replays the explanations it judges (a rerun's are new samples).
EXPLAIN_CONFIG = GenerateConfig(temperature=0.7, max_tokens=150, cache=False).merge(GENERATION.retry_config())
# Greedy and short: the answer is a code. Reasoning models need more (`--max-tokens 2048`).
CLASSIFY_CONFIG = GenerateConfig(temperature=0.0, max_tokens=32).merge(GENERATION.retry_config())
# 2: demonstrations are matched by idiom key; judge calibration idioms are left out of explain;
# lenient traits need codes 1-5; chrF unifies tone-mark placement (docs/changelog.md).
# 3: near-duplicates of demonstrations and judge examples are left out too (data/leakage.py), and
# the idiom key unifies final y/i; the task metadata's `leakage` names each item and why.
TASK_VERSION = 3

TASK_COUNT_BOUNDS: dict[str, tuple[int, int]] = {
    "shots": (0, MAX_SHOTS),
    "judge_retries": (0, MAX_JUDGE_RETRIES),
}
"""The ``-T`` options that count, with their least and greatest values (``docs/tasks.md``, Bounds)."""

_JUDGE_WORDS = (
    *JUDGE_CHOICES,
    NO_JUDGE,
    *(ALL if language == DEFAULT_LANGUAGE else f"{ALL}_{language}" for language in JUDGE_LANGUAGES),
)


def argument_problem(name: str, value: object) -> str | None:
    """What is wrong with one task argument's value, or None: the one check of ``-T`` and ``task_args``.

    The tasks run it on what ``inspect eval -T`` gives them and ``vivid validate`` on a spec's
    ``task_args``, so both refuse the same values with the same words. Names are the task
    functions' parameters; their bounds are `TASK_COUNT_BOUNDS` and ``THRESHOLD_RANGE``.

    Args:
        name: A parameter of a VIVID task (others are not checked here).
        value: The value as given: ``-T`` values arrive parsed as YAML (a string, a huge number, ``.nan``).

    Returns:
        One line naming the parameter, the value and what is allowed, or None when it is good.
    """
    if name in TASK_COUNT_BOUNDS:
        return count_problem(name, value, *TASK_COUNT_BOUNDS[name])
    if name == "leakage_threshold":
        low, high = THRESHOLD_RANGE
        # compared, not converted: float() of a 400-digit -T value raises OverflowError
        if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
            return (
                f"leakage_threshold must be a number from {low:g} to {high:g} (default {NEAR_DUPLICATE_THRESHOLD:g}; "
                f"1 leaves out only the shown idioms themselves), got {shown(value)}"
            )
    elif name == "prompt":
        if value not in EXPLAIN_STYLES:
            hint = closest(value, EXPLAIN_STYLES).removeprefix(";") if isinstance(value, str) else ""
            hint = f" ({hint.strip()})" if hint else ""
            return f"unknown prompt style {shown(value)}{hint}; expected one of {', '.join(EXPLAIN_STYLES)}"
    elif name == "judge":
        try:
            judge_names(value)  # type: ignore[arg-type]  # -T values are not typed
        except ValueError as error:
            parts = value if isinstance(value, list | tuple) else str(value).split(",")
            wrong = next((str(part).strip() for part in parts if str(part).strip() not in _JUDGE_WORDS), "")
            hint = closest(wrong, _JUDGE_WORDS).removeprefix("; ")
            return str(error).replace(f"{wrong!r};", f"{wrong!r} ({hint});", 1) if hint else str(error)
    elif name in ("data", "judge_model") and value is not None and not isinstance(value, str):
        return f"{name} must be text, got {shown(value)}"
    return None


def _check_arguments(task: str, **arguments: object) -> None:
    """Refuse a ``-T`` name the task does not take, then any value `argument_problem` refuses."""
    check_names(task, TASK_PARAMETERS)
    for name, value in arguments.items():
        problem = argument_problem(name, value)
        if problem is not None:
            raise ValueError(problem)


@task
def topic(
    shots: int = 3, data: str | None = None, leakage_threshold: float = NEAR_DUPLICATE_THRESHOLD
) -> Task:
    """Topic classification: the model names the theme (1-7) of each idiom; exact match.

    Args:
        shots: Number of fixed demonstrations shown before the item, 0 to 5 (paper: 3).
        data: ``sample``, ``hf`` (pinned Hugging Face release), an http(s) URL or a CSV path;
            default ``$VIVID_DATA``, else ``hf``.
        leakage_threshold: Similarity (0.6 to 1) from which an item counts as a near-duplicate
            of a demonstration shown and is left out (default 0.75; 1 leaves out only the
            demonstrations themselves, in any spelling or with their halves swapped).

    Returns:
        The task. Its metadata records the data source, its content digest and item count
        (``data``, ``data_sha256``, ``data_items``), the ids left out because their idiom is, or
        is a near-duplicate of, one of the demonstrations shown (``left_out``, ``left_out_ids``),
        and ``leakage``: the threshold and, for each left-out item, its id, idiom, the
        demonstration it resembles and their similarity.
    """
    with task_errors("topic"):
        _check_arguments("topic", shots=shots, data=data, leakage_threshold=leakage_threshold)
        return _classification("topic", shots, data, leakage_threshold)


@task
def traits(
    shots: int = 3, data: str | None = None, leakage_threshold: float = NEAR_DUPLICATE_THRESHOLD
) -> Task:
    """Trait classification: the model lists every complexity trait code (``1,3,5``); exact match.

    Args:
        shots: Number of fixed demonstrations shown before the item, 0 to 5 (paper: 3).
        data: ``sample``, ``hf`` (pinned Hugging Face release), an http(s) URL or a CSV path;
            default ``$VIVID_DATA``, else ``hf``.
        leakage_threshold: Similarity (0.6 to 1) from which an item counts as a near-duplicate
            of a demonstration shown and is left out (default 0.75; 1 leaves out only the
            demonstrations themselves, in any spelling or with their halves swapped).

    Returns:
        The task, with the same metadata as `topic`'s.
    """
    with task_errors("traits"):
        _check_arguments("traits", shots=shots, data=data, leakage_threshold=leakage_threshold)
        return _classification("traits", shots, data, leakage_threshold)


@task
def explain(
    prompt: str = "zero_shot",
    judge: str = "aspect",
    judge_model: str | None = None,
    data: str | None = None,
    judge_retries: int = 1,
    leakage_threshold: float = NEAR_DUPLICATE_THRESHOLD,
) -> Task:
    """Explanation: the model explains each idiom in Vietnamese; an LLM judge scores it 0-5.

    Args:
        prompt: ``zero_shot`` (minimal) or ``few_shot`` (expert role, three demonstrations).
        judge: ``aspect`` (paper default), ``zero_shot``, ``demonstration``, ``cot``, ``lexical``
            (chrF, no model), a comma list, ``all`` (the four LLM strategies) or ``none``
            (generate only); each adds its own scorer column on the same generations. A strategy
            with ``_en`` (``aspect_en``; ``all_en`` for all four) asks the judge in English.
        judge_model: Judge used when no ``grader`` role is given; default ``openai/gpt-4.1``.
        data: ``sample``, ``hf`` (pinned Hugging Face release), an http(s) URL or a CSV path;
            default ``$VIVID_DATA``, else ``hf``.
        judge_retries: How many times the judge is asked again after an unreadable reply, 0 to 10.
        leakage_threshold: Similarity (0.6 to 1) from which an item counts as a near-duplicate
            of a few-shot idiom or a judge's graded example and is left out (default 0.75; 1
            leaves out only those idioms themselves, in any spelling or with their halves swapped).

    Returns:
        The task. Its metadata records the data source, its content digest and item count
        (``data``, ``data_sha256``, ``data_items``) and the ids left out because their idiom
        is, or is a near-duplicate of, one of the few-shot demonstrations (left out for both
        prompt styles, so zero-shot and few-shot scores cover the same items; ``left_out``,
        ``left_out_ids``), and apart from those the ids left out because their idiom is, or is a
        near-duplicate of, a graded example in a judge prompt (left out whatever ``judge`` is, so
        the data set never depends on the judge; ``judge_examples_left_out``,
        ``judge_examples_left_out_ids``). ``leakage`` holds the threshold and, for each left-out
        item, its id, idiom, the idiom it resembles, where that is shown and their similarity.
    """
    with task_errors("explain"):
        _check_arguments(
            "explain",
            prompt=prompt,
            judge=judge,
            judge_model=judge_model,
            data=data,
            judge_retries=judge_retries,
            leakage_threshold=leakage_threshold,
        )
        scorers = explain_scorers(judge, judge_model, judge_retries)
        loaded = load_vivid(
            data,
            exclude_idioms=[idiom for idiom, _ in EXPLAIN_DEMONSTRATIONS],
            exclude_judge_examples=judge_example_idioms(),
            threshold=leakage_threshold,
        )
        _check_start("explain", loaded, data, judge_names(judge), judge_model)
        return Task(
            dataset=loaded.dataset,
            solver=explain_generate(cast(ExplainStyle, prompt)),  # checked above
            scorer=scorers,
            config=EXPLAIN_CONFIG,
            version=TASK_VERSION,
            metadata={
                **loaded.provenance,  # data, data_sha256, data_items: the generation key reads them
                "prompt": prompt,
                "judge_strategies": judge_names(judge),
                "left_out": len(loaded.left_out),
                "left_out_ids": loaded.left_out,
                "judge_examples_left_out": len(loaded.judge_examples_left_out),
                "judge_examples_left_out_ids": loaded.judge_examples_left_out,
                LEAKAGE_KEY: loaded.leakage_record(),
            },
        )


def _classification(kind: ClassifyKind, shots: int, data: str | None, leakage_threshold: float) -> Task:
    """The topic or traits task: the two differ only in their gold answer and scorer."""

    def gold(item: VividItem) -> str:
        return topic_answer(item.theme_id) if kind == "topic" else traits_answer(item.trait_ids)

    shown = [demo.idiom for demo in DEMONSTRATIONS[:shots]]
    loaded = load_vivid(data, exclude_idioms=shown, target=gold, threshold=leakage_threshold)
    _check_start(kind, loaded, data)
    return Task(
        dataset=loaded.dataset,
        solver=[classify_prompt(kind, shots), bounded_generate()],
        scorer=topic_match() if kind == "topic" else traits_match(),
        config=CLASSIFY_CONFIG,
        version=TASK_VERSION,
        metadata={
            **loaded.provenance,  # data, data_sha256, data_items: the generation key reads them
            "shots": shots,
            "left_out": len(loaded.left_out),
            "left_out_ids": loaded.left_out,
            LEAKAGE_KEY: loaded.leakage_record(),
        },
    )


def _check_start(
    task: str, loaded: VividData, data: str | None, judges: Sequence[str] = (), judge_model: str | None = None
) -> None:
    """The task-start check (`vivid_inspect.task_start`), once the arguments and data are good.

    When ``inspect eval`` builds the task from its name, the models it will call are checked (an
    LLM judge only when ``judges`` names one), then a ``vivid/*`` baseline's items; a problem stops
    the eval in one message before anything is generated. Skipped when Python code builds the task.
    """
    check_models(task, judge=any(name != LEXICAL for name in judges), judge_model=judge_model)
    check_answerable(task, loaded.dataset, data)


TASK_PARAMETERS: dict[str, tuple[str, ...]] = {
    name: tuple(inspect.signature(inspect.unwrap(cast(Callable[..., Task], function))).parameters)
    for name, function in {"explain": explain, "topic": topic, "traits": traits}.items()
}
"""Each task's ``-T`` names, read from its signature: what ``inspect eval`` and ``vivid validate`` accept."""
