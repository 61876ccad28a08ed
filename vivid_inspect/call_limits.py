"""One table of limits on model calls, shared by the tasks, the judge and ``vivid run``.

Inspect's own defaults retry a failing call for ever with no time limit, so a dead endpoint
stalls a run silently. Every place that makes model calls takes its limits from here: the
``explain``/``topic``/``traits`` tasks (their ``GenerateConfig``, which ``--max-retries``,
``--timeout`` and ``--attempt-timeout`` still override), the judge scorer (a ``grader`` role's model
does not inherit the task's config, and ``inspect score`` has no retry flags) and ``vivid run``
(a spec's ``retries:`` block, whose defaults are these). The README's "When things fail" section
documents the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

from inspect_ai.model import GenerateConfig


@dataclass(frozen=True)
class CallLimits:
    """Limits on one logical model call.

    Attributes:
        max_retries: Inspect retries after a failed attempt (on top of the provider SDK's own).
        timeout: Seconds for the whole call, retries and waits included.
        attempt_timeout: Seconds for one attempt; an attempt that stalls (headers then silence,
            or a trickle of bytes) is abandoned and retried.
    """

    max_retries: int
    timeout: int
    attempt_timeout: int

    def config(self) -> GenerateConfig:
        """These limits as generation options."""
        return GenerateConfig(
            max_retries=self.max_retries, timeout=self.timeout, attempt_timeout=self.attempt_timeout
        )


GENERATION = CallLimits(max_retries=5, timeout=600, attempt_timeout=180)
"""Limits of the model under test, in the tasks and in ``vivid run``."""

JUDGE = CallLimits(max_retries=5, timeout=600, attempt_timeout=180)
"""Limits of the judge, merged under any settings given with the ``grader`` role."""
