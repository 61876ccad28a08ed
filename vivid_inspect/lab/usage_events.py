"""Token usage: estimated before a call (`tokens`, for plans), summed from sample events after.

Re-scoring a log (``inspect_ai.score``) leaves the judge's calls out of the log's usage stats: they
exist only as model events inside the scorer's span of each sample. The runner sums them once,
when it writes a judged log, and records the totals in its ``vivid_judge`` metadata; the report
reads those totals from the header, and sums the events itself only for logs written otherwise.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from inspect_ai.model import ModelUsage

from vivid_inspect.log_contract import USAGE_KEY

__all__ = [
    "CALL_OVERHEAD_TOKENS",
    "CHARS_PER_TOKEN",
    "USAGE_KEY",
    "read_usage_record",
    "scorer_usage",
    "tokens",
    "usage_record",
]

CHARS_PER_TOKEN = 2.9
"""Characters per token of VIVID's Vietnamese prompts: GPT-4o's o200k_base gives 2.7-3.0 on every
task and judge prompt (bench/cost.py measures it). Other tokenizers differ; an estimate, not a bill."""

CALL_OVERHEAD_TOKENS = 7
"""Tokens the chat format adds to every request (role markers), measured with o200k_base."""


def tokens(text: str) -> int:
    """Estimated tokens of one request whose prompt is ``text``, chat-format overhead included.

    ``vivid plan`` and ``vivid audit --plan`` estimate with it alike.
    """
    return max(1, round(len(text) / CHARS_PER_TOKEN)) + CALL_OVERHEAD_TOKENS


def scorer_usage(
    samples_events: Iterable[list[dict[str, Any]]], scorer: str
) -> tuple[ModelUsage | None, int, int]:
    """Sum the model calls made inside one scorer's spans.

    Args:
        samples_events: Each sample's events as plain dicts (``event.model_dump(mode="json")``).
        scorer: The scorer (column) name; only model events inside its span count.

    Returns:
        Summed usage (None when no call reported usage), the number of calls, and how many of
        them were served from the cache (counted as calls, without tokens).
    """
    total: ModelUsage | None = None
    calls = cached = 0
    for events in samples_events:
        for event in _scorer_model_events(events, scorer):
            calls += 1
            if event.get("cache") == "read":
                cached += 1
                continue
            usage = (event.get("output") or {}).get("usage")
            if usage:
                item = ModelUsage.model_validate(usage)
                total = item if total is None else total + item
    return total, calls, cached


def usage_record(usage: ModelUsage | None, calls: int, cached: int) -> dict[str, Any]:
    """The JSON form of `scorer_usage`'s result, as stored in ``vivid_judge``."""
    return {"usage": usage.model_dump(mode="json") if usage else None, "calls": calls, "cached_calls": cached}


def read_usage_record(record: dict[str, Any]) -> tuple[ModelUsage | None, int, int]:
    """Inverse of `usage_record`."""
    usage = record.get("usage")
    return (
        ModelUsage.model_validate(usage) if usage else None,
        int(record["calls"]),
        int(record["cached_calls"]),
    )


def _scorer_model_events(events: list[dict[str, Any]], scorer: str) -> Iterator[dict[str, Any]]:
    spans: dict[str, tuple[str | None, str, str]] = {}
    for event in events:
        if event.get("event") == "span_begin":
            spans[str(event.get("id"))] = (
                event.get("parent_id"),
                str(event.get("name")),
                str(event.get("type")),
            )
    for event in events:
        if event.get("event") != "model":
            continue
        span = event.get("span_id")
        while span is not None and span in spans:
            parent, name, kind = spans[span]
            if kind == "scorer":
                if name == scorer:
                    yield event
                break
            span = parent
