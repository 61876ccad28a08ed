"""The VIVID tasks: ``inspect eval vivid_inspect/tasks.py@topic`` (or ``vivid_inspect/topic``)."""

from __future__ import annotations

from inspect_ai import Task, task

from vivid_inspect.classify import classification_task
from vivid_inspect.explain import explain_task
from vivid_inspect.inspect_private import task_errors


@task
def topic(shots: int = 3, data: str | None = None) -> Task:
    """Topic classification: the model names the theme (1-7) of each idiom; exact match.

    Args:
        shots: Number of fixed demonstrations shown before the item, 0 to 5 (paper: 3).
        data: ``sample``, ``hf`` (pinned Hugging Face release), an http(s) URL or a CSV path;
            default ``$VIVID_DATA``, else ``hf``.
    """
    with task_errors("topic"):
        return classification_task("topic", shots=shots, data=data)


@task
def traits(shots: int = 3, data: str | None = None) -> Task:
    """Trait classification: the model lists every complexity trait code (``1,3,5``); exact match.

    Args:
        shots: Number of fixed demonstrations shown before the item, 0 to 5 (paper: 3).
        data: ``sample``, ``hf`` (pinned Hugging Face release), an http(s) URL or a CSV path;
            default ``$VIVID_DATA``, else ``hf``.
    """
    with task_errors("traits"):
        return classification_task("traits", shots=shots, data=data)


@task
def explain(
    prompt: str = "zero_shot",
    judge: str = "aspect",
    judge_model: str | None = None,
    data: str | None = None,
    judge_retries: int = 1,
) -> Task:
    """Explanation: the model explains each idiom in Vietnamese; an LLM judge scores it 0-5.

    Args:
        prompt: ``zero_shot`` (minimal) or ``few_shot`` (expert role, three demonstrations).
        judge: ``aspect`` (paper default), ``zero_shot``, ``demonstration``, ``cot``, ``lexical``
            (chrF, no model), a comma list, ``all`` (the four LLM strategies) or ``none``
            (generate only); each adds its own scorer column on the same generations.
        judge_model: Judge used when no ``grader`` role is given; default ``openai/gpt-4.1``.
        data: ``sample``, ``hf`` (pinned Hugging Face release), an http(s) URL or a CSV path;
            default ``$VIVID_DATA``, else ``hf``.
        judge_retries: How many times the judge is asked again after an unreadable reply.
    """
    with task_errors("explain"):
        return explain_task(
            prompt=prompt, judge=judge, judge_model=judge_model, data=data, judge_retries=judge_retries
        )
