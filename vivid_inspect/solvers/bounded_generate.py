"""The generate step of the VIVID tasks: Inspect's generate within finite call limits.

Inspect's own ``generate()`` would wait for ever on a server that sends headers and then stalls,
and a call that runs out of retries fails with ``RetryError[<Future … raised
APIConnectionError>]``. This step adds the per-attempt limit of
`vivid_inspect.call_limits.GENERATION` when the run sets none and does not batch (cutting
a batch wait would submit the request again), retries a 200 reply that cannot be read (a body that
is not UTF-8 or not whole JSON, no choices; `vivid_inspect.reply_retries`) within the run's
``max_retries`` and ``timeout``, turns a failed call into an error that names the model, the
endpoint and the provider's reason, and stores a reply that UTF-8 cannot encode (a lone surrogate)
with U+FFFD in its place, so one broken reply cannot make the log unwritable. A reply cut at the
token limit is marked in the sample's metadata (`TRUNCATED_KEY`), so the report can count
the cut explanations from the sample summaries it reads.
"""

from __future__ import annotations

from typing import Any

from inspect_ai.model import ChatMessageAssistant, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from vivid_inspect.call_errors import UnreadableReply, is_call_failure, named_failure
from vivid_inspect.call_limits import GENERATION, TRUNCATED_STOP_REASONS
from vivid_inspect.inspect_private import active_generate_config
from vivid_inspect.reply_retries import NO_CHOICES, has_no_choices, retry_cache, retry_unreadable
from vivid_inspect.stored_calls import sanitize_call

TRUNCATED_KEY = "truncated"
"""Sample metadata key set to the stop reason (``max_tokens``, ``model_length``) of a reply cut at the
token limit; absent when the reply ended by itself."""


@solver
def bounded_generate() -> Solver:
    """Generate with a per-attempt time limit, retry unreadable replies, and name the endpoint on failure.

    The limit is ``attempt_timeout`` from `GENERATION`, used
    only when neither the task, the command line (``--attempt-timeout``) nor the model sets one,
    and never for batch calls (``--batch``). An unreadable 200 reply is asked again at most
    ``max_retries`` times and not past ``timeout`` (the run's, else the model's, else
    `GENERATION`'s).

    Returns:
        A solver that ends the sample with a
        `ModelCallError` when the call fails.
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        # The run's settings win over the model's, as GenerateConfig.merge would give; read two
        # fields rather than merge whole configs for every sample (a deep copy, ~0.3 ms).
        active = active_generate_config()
        attempt_timeout = _first_set(active.attempt_timeout, model.config.attempt_timeout)
        extra: dict[str, Any] = {}
        if attempt_timeout is None and not _first_set(active.batch, model.config.batch):
            extra["attempt_timeout"] = GENERATION.attempt_timeout
        cache = _first_set(active.cache, model.config.cache)

        async def attempt(scope: int) -> TaskState:
            before = state.output
            options = extra | ({"cache": retry_cache(cache, scope)} if scope else {})
            try:
                return await generate(state, **options)
            except IndexError:
                # Inspect's generate sets the output, then reads its first choice.
                if state.output is not before and has_no_choices(state.output):
                    raise UnreadableReply(NO_CHOICES, cached=bool(cache)) from None
                raise

        try:
            state = await retry_unreadable(
                attempt,
                model=model,
                max_retries=_first_set(active.max_retries, model.config.max_retries, GENERATION.max_retries),
                timeout=_first_set(active.timeout, model.config.timeout, GENERATION.timeout),
            )
        except Exception as error:
            if not is_call_failure(error):
                raise
            raise named_failure(model, error) from error
        if state.output.stop_reason in TRUNCATED_STOP_REASONS:
            state.metadata[TRUNCATED_KEY] = state.output.stop_reason
        return _stored_safely(state)

    return solve


def _first_set(*values: Any) -> Any:
    return next((value for value in values if value is not None), None)


def _stored_safely(state: TaskState) -> TaskState:
    """Keep a reply that UTF-8 cannot encode from making the whole generation log unwritable."""
    clean = sanitize_call(state.output)
    if clean is not state.output:
        state.output = clean
        if state.messages and isinstance(state.messages[-1], ChatMessageAssistant):
            state.messages[-1] = clean.message
    return state
