"""The upper bound of every count a user gives: a spec's keys and the tasks' and scorers' options.

A count without a bound is a hang or a bill: ``repeats: 10**100`` made ``vivid validate`` build
cells for ever, ``epochs: 10**100`` passed validation and then grew ``vivid run`` by 200 MB/s,
and ``retries`` could ask a judge again without end. Every count therefore has a documented
bound here, far above any real experiment (VIVID has 1,636 items; the paper runs one epoch and
one retry), and is checked before anything is planned: by the spec's types
(`vivid_inspect.lab.runner.spec.model`) and checks (generation options, task arguments, the
number of cells), by the tasks for ``-T`` and by the judge scorers for ``-S``.

The bounds are listed in ``docs/experiments.md`` (Bounds) and ``docs/tasks.md``; a test holds the
pages to these numbers. This module imports nothing, so the CLI and the spec model stay light.
"""

from __future__ import annotations

import math

MAX_ITEMS = 100_000
"""Items a run block or an audit may select (``limit``, ``sample.n``, ``sample_ids``)."""
MAX_ITEM_ID = 1_000_000_000
"""Largest item id a spec may list."""
MAX_EPOCHS = 100
"""Generations of each item per run block (``epochs``)."""
MAX_REPEATS = 20
"""Fresh judgements per item (a judge's ``repeats``; ``-S repeat`` is below it)."""
MAX_JUDGE_RETRIES = 10
"""Further asks of a judge after an unreadable reply (``retries``, ``-T judge_retries``, ``-S retries``)."""
MAX_SEED = 2**32 - 1
"""Largest seed of a sample or an audit (numpy's generators take 0 to 2**32 - 1)."""
MAX_CONNECTIONS = 1_000
"""Concurrent connections per model (``max_connections``)."""
MAX_TASKS = 100
"""Tasks run at once (``concurrency.max_tasks``)."""
MAX_SAMPLES = 10_000
"""Samples run at once per task (``concurrency.max_samples``)."""
MAX_JUDGE_CELLS = 64
"""Judge cells scored at once (``concurrency.judge_cells``)."""
MAX_RUN_ATTEMPTS = 10
"""Reruns of a failed generation task or sample (``retries.attempts``, ``retries.on_error``)."""
MAX_RETRY_WAIT = 3_600
"""Seconds before a task is run again (``retries.wait``)."""
MAX_CALL_RETRIES = 20
"""Retries of one model call (``retries.max_retries``, ``generate.max_retries``)."""
MAX_TIMEOUT = 86_400
"""Seconds of a model call or attempt (``retries.timeout``, ``retries.attempt_timeout``)."""
MAX_BATCH = 50_000
"""Requests per provider batch (``batch``; OpenAI's own limit)."""
MAX_PRICE = 10_000.0
"""US dollars per million tokens (``price.input``, ``price.output``)."""
MAX_ENTRIES = 100
"""Entries of a spec list: run blocks, models per block, judges, audits, panel members, prompts, probes."""
MAX_CELLS = 10_000
"""Generation cells, and judge cells (explanation cells times every judge's repeats), of a spec."""
MAX_OUTPUT_TOKENS = 1_000_000
"""``generate.max_tokens`` and ``generate.reasoning_tokens``."""

GENERATE_BOUNDS: dict[str, tuple[int, int]] = {
    "max_tokens": (1, MAX_OUTPUT_TOKENS),
    "reasoning_tokens": (1, MAX_OUTPUT_TOKENS),
    "max_connections": (1, MAX_CONNECTIONS),
    "adaptive_connections": (1, MAX_CONNECTIONS),
    "max_retries": (0, MAX_CALL_RETRIES),
    "timeout": (1, MAX_TIMEOUT),
    "attempt_timeout": (1, MAX_TIMEOUT),
    "stream_idle_timeout": (1, MAX_TIMEOUT),
    "num_choices": (1, 100),
    "best_of": (1, 100),
    "top_k": (-1, 1_000_000),
    "top_logprobs": (0, 20),
    "prompt_logprobs": (0, 20),
    "seed": (-(2**63), 2**63 - 1),
    "max_tool_output": (0, 1_000_000_000),
    "batch": (1, MAX_BATCH),
}
"""Inspect generation options that count (``generate:`` of a run block or judge): lowest and highest."""
GENERATE_INT_BOUND = (-(2**63), 2**63 - 1)
"""Any other whole-number generation option: a 64-bit integer, as providers read it."""


def count_problem(name: str, value: object, low: int, high: int) -> str | None:
    """What is wrong with a count, or None when it is a whole number from ``low`` to ``high``.

    Args:
        name: The option's name, for the message (``shots``, ``judge_retries``).
        value: The value given.
        low: The least value allowed.
        high: The upper bound.

    Returns:
        ``"<name> must be between <low> and <high>, got <value>"``, or ``"<name> must be a whole
        number from <low> to <high>, got <value>"`` for a value that is not an integer.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        return f"{name} must be a whole number from {low} to {high}, got {shown(value)}"
    if not low <= value <= high:
        return f"{name} must be between {low} and {high}, got {shown(value)}"
    return None


def finite_problem(name: str, value: object) -> str | None:
    """A float option that is infinite or not a number (``.inf``, ``.nan``, ``1.0e999``), or None."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"{name} must be a finite number, got {value}"
    return None


def shown(value: object) -> str:
    """A value for a message: a huge number by its digits, not printed out in full."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**20:
        # str() of a number past 4,300 digits raises; the bit length gives the digits at once
        return f"a number of about {int(abs(value).bit_length() * math.log10(2)) + 1:,} digits"
    text = repr(value)
    return text if len(text) <= 60 else text[:60] + "…"
