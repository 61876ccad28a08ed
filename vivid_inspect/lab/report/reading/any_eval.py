"""The generic adapter: a log of any Inspect task that is not VIVID's, read into the same score rows.

Its generation is the task, its version, the model, the task arguments and a digest of the data
that Inspect does not record, so it is computed here: a SHA-256 over every sample's id, input and
target as the log's summaries hold them. Each scorer of the log is a judge, its model the one
the log binds to the ``grader`` role (if any); a score's value is its number, or Inspect's letters
C/P/I/N as ``value_to_float`` maps them (`vivid_inspect.lab.report.reading.score_rows.any_value`). A
range of numbers is not declared: the report takes it from the values seen and says so
(`vivid_inspect.lab.report.reading.judged.scale_of`). A log none of whose scores is a number is skipped with its
scorers' names. Its groups are the sample metadata keys the user names (`group_rows`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pandas as pd
from inspect_ai.log import EvalLog

from vivid_inspect.generation_key import Generation, portable_data
from vivid_inspect.lab.report.reading.log_refs import LogRef


def generic_ref(ref: LogRef, header: EvalLog, summaries: list[dict[str, Any]]) -> LogRef:
    """``ref`` (as `vivid_inspect.lab.report.reading.log_refs.log_ref` read it) as a generic log's.

    Args:
        ref: The log's reference.
        header: Its header.
        summaries: Its sample summaries, for the data digest.

    Returns:
        The reference with the generation of `data_digest`, its task arguments as the prompt, and
        none of VIVID's own records (a judged record, items left out, shots).
    """
    spec = header.eval
    args = spec.task_args or {}
    prompt = ", ".join(f"{name}={args[name]}" for name in sorted(args)) or "-"
    identity = Generation(
        task=ref.task,
        task_version=str(spec.task_version),
        model=spec.model,
        prompt=prompt,
        data=portable_data(str(spec.dataset.name or spec.dataset.location or ref.task)),
        sample_ids=tuple(spec.dataset.sample_ids or ()),
        eval_id=spec.eval_id,
        log=ref.rel,
        data_digest=data_digest(summaries),
    )
    return replace(
        ref,
        prompt=prompt,
        shots=None,
        vivid_judge=None,
        generation_log=ref.rel,
        identity=identity,
        left_out=(),
        run=ref.eval_id or ref.rel,
        generic=True,
    )


def data_digest(summaries: list[dict[str, Any]]) -> str:
    """SHA-256 (hex) of every sample's id, input and target, in the order of their ids as text."""
    items = {str(s.get("id")): [str(s.get("id")), s.get("input"), s.get("target")] for s in summaries}
    text = json.dumps([items[key] for key in sorted(items)], sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def group_column(key: str) -> str:
    """The score-row column holding the labels of the sample metadata key ``key`` (`group_rows`)."""
    return f"group:{key}"


def group_rows(rows: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """``rows`` with a group column (`group_column`) per sample metadata key the user named.

    A list value counts toward each of its labels (as VIVID's traits do), any other value is one
    label, as text; an item without the key, or with None, is in no group of it.

    Args:
        rows: Score rows (a ``metadata`` column: each sample's metadata).
        keys: The metadata keys, as ``vivid report --group`` names them.

    Returns:
        The rows with one column per key, each cell a tuple of labels.

    Raises:
        ValueError: A key that no sample's metadata holds, naming the keys that exist.
    """
    found = sorted({str(key) for meta in rows["metadata"] if isinstance(meta, dict) for key in meta})
    for key in keys:
        if key not in found:
            listed = ", ".join(repr(name) for name in found[:20]) + (" and more" if len(found) > 20 else "")
            raise ValueError(
                f"--group {key!r}: no judged sample's metadata has this key; its keys: {listed or 'none'}"
            )
    return rows.assign(
        **{group_column(key): rows["metadata"].map(lambda meta, key=key: _labels(meta, key)) for key in keys}
    )


def _labels(metadata: Any, key: str) -> tuple[str, ...]:
    value = metadata.get(key) if isinstance(metadata, dict) else None
    values = value if isinstance(value, list | tuple) else [value]
    return tuple(dict.fromkeys(str(v) for v in values if v is not None))
