"""Replies that arrive but cannot be read: retried within the call limits, then one named failure.

An HTTP 200 whose body is not UTF-8 or not whole JSON reaches Inspect as a bare
``UnicodeDecodeError`` or ``JSONDecodeError`` (whose repr holds the whole body), and Inspect does
not retry either; a 200 whose ``choices`` list is empty becomes a ``ModelOutput`` without choices,
on which ``output.message`` and ``output.stop_reason`` raise ``IndexError``. Both are a server's
failure, not the model's answer, so `retry_unreadable` asks again, as Inspect does for a 5xx:
at most ``max_retries`` more times and never after ``timeout`` seconds (the generation step takes
both from ``--max-retries``/``--timeout`` and the task, the judge from its own config), waiting
`UNREADABLE_FIRST_WAIT` seconds, doubling, between attempts. When
the attempts run out it raises `ModelCallError`:
``<model>: unreadable reply from <url>: HTTP 200 with <why>; gave up after N attempts``, which
names the position of the damage, never the body.

Inspect caches a reply without choices like any other, so the attempt after one is asked under
another cache key (`retry_cache`): a fresh call, whose good reply a rerun then replays.
Retries are counted apart from Inspect's own, which still run inside each attempt for the
failures Inspect retries itself (429, 5xx, timeouts).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from inspect_ai.event import ModelEvent
from inspect_ai.log import transcript
from inspect_ai.model import CachePolicy, ModelOutput
from tenacity import (
    AsyncRetrying,
    RetryError,
    retry_if_exception_type,
    stop_after_attempt,
    stop_after_delay,
    stop_never,
    wait_exponential,
    wait_random,
)
from tenacity.stop import stop_base

from vivid_inspect.call_errors import UnreadableReply, innermost, named_failure
from vivid_inspect.call_limits import UNREADABLE_FIRST_WAIT, UNREADABLE_MAX_WAIT

T = TypeVar("T")

NO_CHOICES = "no choices (an empty choices list)"
"""Why a completion without choices is unreadable."""

RETRY_SCOPE = "vivid_unreadable_retry"
"""Cache scope of an attempt made after a cached reply that could not be read."""


def unreadable_reason(error: BaseException) -> str | None:
    """Why a failed call's reply could not be read, when its body was not UTF-8 or not whole JSON.

    Args:
        error: What the call raised.

    Returns:
        The reason, naming where the body broke (not what it held), or None for any other failure.
    """
    inner = innermost(error)
    if isinstance(inner, UnicodeDecodeError):
        return f"a body that is not UTF-8 ({inner.reason} at byte {inner.start})"
    if isinstance(inner, json.JSONDecodeError):
        return f"a body that is not whole JSON ({inner.msg} at character {inner.pos})"
    return None


def shorten_failed_event(error: BaseException) -> None:
    """Keep the body of an unreadable reply out of the log: the failed call's event names the error only.

    Inspect records a failed call's error as the exception's repr, and a ``UnicodeDecodeError``'s
    repr holds the whole body it could not decode (a megabyte of it, on every attempt). The last
    failed model event of the sample (the attempt that just raised) keeps ``<type>: <message>``.

    Args:
        error: The decoding error the call raised.
    """
    short = f"{type(error).__name__}: {error}"

    def failed(event: object) -> bool:
        return isinstance(event, ModelEvent) and event.error is not None

    try:
        event = transcript().history.find_last(failed)
    except RuntimeError:  # a bounded transcript whose history is gone: nothing of it will be stored
        return
    if isinstance(event, ModelEvent) and event.error is not None and len(event.error) > len(short):
        event.error = short


def has_no_choices(output: ModelOutput) -> bool:
    """Whether a completion came back without a single choice (``choices: []``)."""
    return not output.choices


def retry_cache(cache: bool | CachePolicy | None, scope: int) -> bool | CachePolicy | None:
    """The cache policy of an attempt after ``scope`` cached unreadable replies.

    Args:
        cache: The call's policy (None or False: no cache).
        scope: How many replies of this call that Inspect cached could not be read.

    Returns:
        ``cache`` itself while ``scope`` is 0 or caching is off, else the same policy with the
        scope ``vivid_unreadable_retry=<scope>`` added, so the attempt is not served the bad reply.
    """
    if not scope or not cache:
        return cache
    policy = cache if isinstance(cache, CachePolicy) else CachePolicy()
    return policy.model_copy(update={"scopes": {**policy.scopes, RETRY_SCOPE: str(scope)}})


async def retry_unreadable(
    attempt: Callable[[int], Awaitable[T]], *, model: Any, max_retries: int | None, timeout: float | None
) -> T:
    """Run ``attempt`` until its reply can be read, within the call limits.

    Args:
        attempt: Makes the call; receives the cache scope to use (`retry_cache`) and raises
            `UnreadableReply` for a reply it finds unreadable (no choices). A body that is
            not UTF-8 or not whole JSON is recognised here (`unreadable_reason`).
        model: The model called, named in the failure.
        max_retries: Attempts after the first (None: no limit but ``timeout``).
        timeout: Seconds after the first attempt began past which no attempt starts (None: none).

    Returns:
        What ``attempt`` returned.

    Raises:
        ModelCallError: When the last attempt allowed was unreadable too.
        Exception: Anything else ``attempt`` raised, unchanged.
    """
    scope = 0

    async def once() -> T:
        nonlocal scope
        try:
            return await attempt(scope)
        except UnreadableReply as unreadable:
            scope += unreadable.cached
            raise
        except Exception as error:
            why = unreadable_reason(error)
            if why is None:
                raise
            shorten_failed_event(innermost(error))
            raise UnreadableReply(why) from error

    stop: stop_base = stop_after_attempt(max_retries + 1) if max_retries is not None else stop_never
    if timeout is not None:
        stop = stop | stop_after_delay(timeout)
    retrying = AsyncRetrying(
        stop=stop,
        wait=wait_exponential(multiplier=UNREADABLE_FIRST_WAIT, max=UNREADABLE_MAX_WAIT) + wait_random(0, 1),
        retry=retry_if_exception_type(UnreadableReply),
        reraise=False,
    )
    try:
        return await retrying(once)
    except RetryError as error:
        raise named_failure(model, error) from error
