"""Solvers of the explanation task: the prompt step, and the task's one step (prompt, then generate)."""

from __future__ import annotations

from inspect_ai.model import ChatMessageUser
from inspect_ai.solver import Generate, Solver, TaskState, solver

from vivid_inspect.log_contract import sample_idiom
from vivid_inspect.solvers.bounded_generate import bounded_generate
from vivid_inspect.solvers.explain_prompts import EXPLAIN_STYLES, ExplainStyle, render_explain_prompt


@solver
def explain_prompt(style: ExplainStyle = "zero_shot") -> Solver:
    """Replace the user prompt with the Vietnamese explanation prompt of the item.

    The idiom is the sample's input (or its ``idiom`` metadata, where a dataset keeps the input
    for something else): `vivid_inspect.log_contract.sample_idiom`.

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
        prompt = render_explain_prompt(style, sample_idiom(state.input, state.metadata))
        if any(isinstance(message, ChatMessageUser) for message in state.messages):
            state.user_prompt.text = prompt
        else:
            state.messages.append(ChatMessageUser(content=prompt))
        return state

    return solve


@solver
def explain_generate(style: ExplainStyle = "zero_shot") -> Solver:
    """The explain task's step: `explain_prompt`, then `bounded_generate`, as one solver.

    The model is sent the same messages as with the two solvers in a row. One step, because Inspect
    records every solver step of every sample (a span, a state-change event and the diff that finds
    it): a second step cost ~0.4 ms per item, about 2 % of a bare Inspect task's time
    (``bench/overhead.py``).

    Args:
        style: ``zero_shot`` (minimal request) or ``few_shot`` (expert role, three examples).

    Returns:
        A solver that renders the prompt and generates within the call limits.

    Raises:
        ValueError: If ``style`` is unknown.
    """
    prompt = explain_prompt(style)
    generate_step = bounded_generate()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        return await generate_step(await prompt(state, generate), generate)

    return solve
