"""The VIVID tasks: ``inspect eval vivid_inspect/tasks.py@topic`` (or ``vivid_inspect/topic``)."""

from __future__ import annotations

from inspect_ai import Task, task

from vivid_inspect.classify import classification_task


@task
def topic(shots: int = 3, data: str | None = None) -> Task:
    """Topic classification: the model names the theme (1-7) of each idiom; exact match.

    Args:
        shots: Number of fixed demonstrations shown before the item, 0 to 5 (paper: 3).
        data: ``sample``, ``hf`` (pinned Hugging Face release), an http(s) URL or a CSV path;
            default ``$VIVID_DATA``, else ``hf``.
    """
    return classification_task("topic", shots=shots, data=data)


@task
def traits(shots: int = 3, data: str | None = None) -> Task:
    """Trait classification: the model lists every complexity trait code (``1,3,5``); exact match.

    Args:
        shots: Number of fixed demonstrations shown before the item, 0 to 5 (paper: 3).
        data: ``sample``, ``hf`` (pinned Hugging Face release), an http(s) URL or a CSV path;
            default ``$VIVID_DATA``, else ``hf``.
    """
    return classification_task("traits", shots=shots, data=data)
