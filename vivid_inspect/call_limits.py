"""One table of limits on model calls, shared by the tasks, the judge and ``vivid run``.

Inspect's own defaults retry a failing call for ever with no time limit, so a dead endpoint
stalls a run silently (a closed port kept ``inspect eval`` busy for more than 15 minutes). Every
place that makes model calls takes its limits from here:

- the ``explain``/``topic``/``traits`` tasks: ``max_retries`` and ``timeout`` in their
  ``GenerateConfig`` (`CallLimits.retry_config`) and ``attempt_timeout`` from their generate step
  (`vivid_inspect.solvers.bounded_generate`), all overridden by ``--max-retries``, ``--timeout``
  and ``--attempt-timeout``;
- the judge scorer (a ``grader`` role's model does not inherit the task's config, and
  ``inspect score`` has no retry flags): `JUDGE`;
- ``vivid run``: the defaults of a spec's ``retries:`` block, and ``eval_set``'s task attempts.

How the layers add up (measured on this machine with Inspect 0.3.285 and openai 2.x):

- The OpenAI SDK retries a refused connection, a 429, 5xx or a timeout itself, 2 times, after
  0.4-0.5 s and 0.75-1 s, or after ``Retry-After`` when the server sends one (up to 120 s).
- Inspect then retries the whole SDK call (a refused connection counts as transient) after
  3, 6, 12, 24, ... s plus up to 3 s of jitter, until ``max_retries`` retries are used or a failed
  attempt ends more than ``timeout`` seconds after the first began (checked between attempts).
- ``attempt_timeout`` cuts one attempt, SDK retries included, so a server that sends headers and
  then stalls, or trickles a byte at a time, cannot hold a call for ever.
- A 200 whose body is not UTF-8 or not whole JSON, or holds no choices, is retried by neither the
  SDK nor Inspect; `vivid_inspect.reply_retries` retries it, within the same ``max_retries``
  and ``timeout``, after 1, 2, 4, ... s (`UNREADABLE_FIRST_WAIT`).

With `GENERATION`, a closed port fails a call after 4 attempts (12 connection attempts) in
about 25-45 s: ``inspect eval`` on a dead endpoint ends in about a minute, start-up included (65 s
measured on a loaded 2-core machine; ``tests/test_fail_fast.py``). A rate limit (429 with
``Retry-After: R``) is retried for up to 12 requests: about 21 s + 8 × R in all (measured: 46 s
for R = 1, 119 s for R = 10), cut at the first attempt that ends after 300 s. A stalled server
ends each call after 2 attempts, about 6 minutes (the second attempt ends past 300 s). Raise
``attempt_timeout`` for reasoning models whose replies take minutes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # Inspect is imported where a config is built: the spec module stays light
    from inspect_ai.model import GenerateConfig


@dataclass(frozen=True)
class CallLimits:
    """Limits on one logical model call.

    Attributes:
        max_retries: Inspect retries after a failed attempt (on top of the provider SDK's own).
        timeout: Seconds after which Inspect starts no further attempt of a call (checked when an
            attempt fails, so it does not cut an attempt short).
        attempt_timeout: Seconds for one attempt; an attempt that stalls (headers then silence,
            or a trickle of bytes) is abandoned and retried. Never applied to batch calls, where
            cutting the wait would submit the request again in a new batch.
    """

    max_retries: int
    timeout: int
    attempt_timeout: int

    def config(self) -> GenerateConfig:
        """These limits as generation options (a caller that batches its calls drops ``attempt_timeout``)."""
        from inspect_ai.model import GenerateConfig

        return GenerateConfig(
            max_retries=self.max_retries, timeout=self.timeout, attempt_timeout=self.attempt_timeout
        )

    def retry_config(self) -> GenerateConfig:
        """``max_retries`` and ``timeout`` only: the part that is right for batch calls too."""
        from inspect_ai.model import GenerateConfig

        return GenerateConfig(max_retries=self.max_retries, timeout=self.timeout)


GENERATION = CallLimits(max_retries=3, timeout=300, attempt_timeout=180)
"""Limits of the model under test, in the tasks and in ``vivid run``."""

JUDGE = CallLimits(max_retries=3, timeout=300, attempt_timeout=180)
"""Limits of the judge, merged under any settings given with the ``grader`` role."""

UNREADABLE_FIRST_WAIT = 1.0
"""Seconds before the first retry of a 200 reply that could not be read (a body that is not UTF-8
or not whole JSON, no choices), which Inspect does not retry itself; the wait doubles after each
attempt, up to `UNREADABLE_MAX_WAIT`, plus up to a second of jitter. The number of such
retries and the time they may take are the call's ``max_retries`` and ``timeout``
(`vivid_inspect.reply_retries`)."""

UNREADABLE_MAX_WAIT = 30.0
"""Longest wait between two attempts at a reply that could not be read."""

RUN_ATTEMPTS = 1
"""``eval_set`` task attempts after the first in ``vivid run`` (Inspect's default is 10, which
retried a dead endpoint for hours); the failed samples of a task are run once more."""

RUN_ATTEMPT_WAIT = 30.0
"""Seconds ``eval_set`` waits before that attempt (Inspect's default)."""


TRUNCATED_STOP_REASONS = frozenset({"max_tokens", "model_length"})
"""Inspect's stop reasons of a reply cut at its token limit: the judge parser reads such a reply as
unreadable, and the generate step counts a cut explanation (its ``truncated`` metadata)."""
