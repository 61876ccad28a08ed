"""Solver that turns a VIVID sample into its explanation prompt."""

from __future__ import annotations

from inspect_ai.model import ChatMessageUser
from inspect_ai.solver import Generate, Solver, TaskState, solver

from vivid_inspect.solvers.explain_prompts import EXPLAIN_STYLES, ExplainStyle, render_explain_prompt


@solver
def explain_prompt(style: ExplainStyle = "zero_shot") -> Solver:
    """Replace the user prompt with the Vietnamese explanation prompt of the item.

    The idiom is read from the sample metadata (``idiom``), not from the input, so the prompt is
    the same whatever the data layer puts in ``Sample.input``.

    Args:
        style: ``zero_shot`` (minimal request) or ``few_shot`` (expert role, three examples).

    Returns:
        A solver; follow it with ``generate()``.

    Raises:
        ValueError: If ``style`` is unknown.
    """
    if style not in EXPLAIN_STYLES:
        raise ValueError(f"unknown prompt style {style!r}; expected one of {', '.join(EXPLAIN_STYLES)}")

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        prompt = render_explain_prompt(style, state.metadata["idiom"])
        if any(isinstance(message, ChatMessageUser) for message in state.messages):
            state.user_prompt.text = prompt
        else:
            state.messages.append(ChatMessageUser(content=prompt))
        return state

    return solve
