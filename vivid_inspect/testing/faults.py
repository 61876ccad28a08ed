"""Fault plans for ``FakeOpenAIServer``: which requests fail, and with what fault.

A plan is called once per chat request with ``(request_index, model, prompt)`` and returns the
`Fault` to inject, or None to answer normally. Plans decide *which* requests fail
(a fraction, some prompts, the first attempts, a queue); the server decides what each fault kind
looks like on the wire. Plans are deterministic: the same requests fail in every run, however
concurrent requests interleave.
"""

from __future__ import annotations

import random
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

FaultKind = Literal[
    "rate_limit",
    "server_error",
    "unavailable",
    "drop",
    "slow",
    "invalid_json",
    "invalid_utf8",
    "empty_body",
    "no_choices",
    "empty",
    "stall",
    "trickle",
    "echo_auth",
]
"""rate_limit: 429 with Retry-After; server_error: 500; unavailable: 503; drop: close the socket
without a response; slow: answer after `delay` seconds; invalid_json: 200 with a truncated body;
invalid_utf8: 200 whose body holds bytes that are not UTF-8 (inside the answer's text); empty_body:
200 with no body at all; no_choices: 200 with a well-formed completion whose ``choices`` list is
empty; empty: 200 with empty content; stall: send the 200 headers, then nothing for `delay` seconds,
then close; trickle: send the 200 headers, then the body one byte every `interval` seconds (a
client's read timeout never fires); echo_auth: 500 whose error message quotes the request's
credential headers (Authorization, X-Api-Key, ...), as some providers and gateways do."""


FAULT_KINDS: tuple[str, ...] = get_args(FaultKind)


@dataclass(frozen=True)
class Fault:
    """One injected failure.

    Args:
        kind: What goes wrong (see `FaultKind`).
        retry_after: Seconds sent in the ``Retry-After`` header of a 429 or 503; None sends none.
        delay: Seconds a ``slow`` reply waits before answering, or a ``stall`` before closing;
            make it exceed the client timeout.
        interval: Seconds between the bytes of a ``trickle`` reply.
    """

    kind: FaultKind
    retry_after: float | None = None
    delay: float = 30.0
    interval: float = 2.0

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {self.kind!r}; allowed: {', '.join(FAULT_KINDS)}")


FaultPlan = Callable[[int, str, str], "Fault | None"]
"""Called once per chat request with (request_index, model, prompt), where the prompt is the NFC
text of the last user message; returns the fault to inject or None."""


def _as_fault(fault: Fault | FaultKind) -> Fault:
    if isinstance(fault, Fault):
        return fault
    return Fault(fault, retry_after=1.0 if fault == "rate_limit" else None)


def _attempt_counter() -> Callable[[str, str], int]:
    """Thread-safe: how many requests for (model, prompt) came before this one."""
    lock, seen = threading.Lock(), Counter[tuple[str, str]]()

    def count(model: str, prompt: str) -> int:
        with lock:
            seen[(model, prompt)] += 1
            return seen[(model, prompt)] - 1

    return count


def fail_fraction(
    fraction: float,
    kinds: Sequence[FaultKind] = ("server_error",),
    seed: int = 0,
    *,
    retry_after: float = 1.0,
    delay: float = 30.0,
) -> FaultPlan:
    """Fail about `fraction` of requests, drawn independently of arrival order.

    The draw is seeded by (seed, model, prompt, attempt number), so the same requests fail in every
    run however the concurrent requests interleave.

    Args:
        fraction: Share of requests to fail, in [0, 1].
        kinds: Fault kinds to choose from, uniformly.
        seed: Seed of the draw.
        retry_after: ``Retry-After`` seconds for 429 and 503 faults.
        delay: Delay of ``slow`` faults.

    Returns:
        A fault plan for `FakeOpenAIServer.faults`.
    """
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"fraction must be in [0, 1], got {fraction!r}")
    waits = {"rate_limit": retry_after, "unavailable": retry_after}
    faults = [Fault(kind, retry_after=waits.get(kind), delay=delay) for kind in kinds]
    if not faults:
        raise ValueError(f"kinds must name at least one of: {', '.join(FAULT_KINDS)}")
    attempt = _attempt_counter()

    def plan(index: int, model: str, prompt: str) -> Fault | None:
        rng = random.Random(f"{seed}|{model}|{prompt}|{attempt(model, prompt)}")
        return rng.choice(faults) if rng.random() < fraction else None

    return plan


def fail_prompts(predicate: Callable[[str], bool], fault: Fault | FaultKind = "server_error") -> FaultPlan:
    """Fail every request whose prompt matches: a persistent failure that no retry cures.

    Args:
        predicate: Receives the prompt (last user message text, NFC).
        fault: The fault, or a kind (``rate_limit`` then advertises ``Retry-After: 1``).

    Returns:
        A fault plan.
    """
    chosen = _as_fault(fault)
    return lambda index, model, prompt: chosen if predicate(prompt) else None


def fail_first(
    attempts: int, fault: Fault | FaultKind, predicate: Callable[[str], bool] = lambda prompt: True
) -> FaultPlan:
    """Fail the first `attempts` requests of each (model, prompt), then answer: a transient failure.

    Args:
        attempts: Failed attempts per (model, prompt) before the first success.
        fault: The fault, or a kind (``rate_limit`` then advertises ``Retry-After: 1``).
        predicate: Only prompts it accepts fail.

    Returns:
        A fault plan.
    """
    chosen = _as_fault(fault)
    attempt = _attempt_counter()

    def plan(index: int, model: str, prompt: str) -> Fault | None:
        if not predicate(prompt):
            return None
        return chosen if attempt(model, prompt) < attempts else None

    return plan


def fault_queue(faults: Iterable[Fault | FaultKind | None]) -> FaultPlan:
    """Apply `faults` to requests in arrival order (None lets one through); then answer normally."""
    pending = [None if fault is None else _as_fault(fault) for fault in faults]
    lock = threading.Lock()

    def plan(index: int, model: str, prompt: str) -> Fault | None:
        with lock:
            return pending.pop(0) if pending else None

    return plan


def combine(*plans: FaultPlan) -> FaultPlan:
    """Ask each plan in turn; the first fault wins. Every plan sees every request."""

    def plan(index: int, model: str, prompt: str) -> Fault | None:
        found = [p(index, model, prompt) for p in plans]
        return next((f for f in found if f is not None), None)

    return plan
