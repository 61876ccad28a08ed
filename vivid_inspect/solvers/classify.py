"""Solver that turns a VIVID sample into its topic or traits classification prompt."""

from __future__ import annotations

from inspect_ai.solver import Generate, Solver, TaskState, solver

from vivid_inspect.log_contract import sample_idiom
from vivid_inspect.solvers.classify_prompts import MAX_SHOTS, ClassifyKind, render_prompt


@solver
def classify_prompt(kind: ClassifyKind, shots: int = 3) -> Solver:
    """Replace the user prompt with the Vietnamese classification prompt of the item.

    Args:
        kind: ``topic`` or ``traits``.
        shots: Number of fixed demonstrations, 0 to 5.

    Returns:
        A solver; follow it with ``generate()``.
    """
    if not 0 <= shots <= MAX_SHOTS:
        raise ValueError(f"shots must be between 0 and {MAX_SHOTS}, got {shots}")

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state.user_prompt.text = render_prompt(kind, sample_idiom(state.input, state.metadata), shots)
        return state

    return solve
