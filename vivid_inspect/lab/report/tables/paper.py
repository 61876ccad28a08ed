"""The paper's published numbers (Tables 1, 3, 4 and 5), to show beside ours.

The numbers ship with the package in ``paper_results.csv``, transcribed from the paper, in long
format: ``table, model, prompt, column, value``, with the paper's own column headings ("Society",
"Others"); `compare` takes our theme names and looks the paper's headings up in
[`vivid_inspect.taxonomy.PAPER_HEADINGS`][vivid_inspect.taxonomy.PAPER_HEADINGS]. Models are named as the paper names them; an
Inspect model name (``openai/gpt-4o``, ``hf/Qwen/Qwen3-14B``) is matched to a paper model by its
last path segment with case and punctuation ignored, against the known spellings below. A model
the paper did not evaluate gets no paper column, never a guess.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from functools import cache
from importlib import resources
from io import StringIO

import pandas as pd

from vivid_inspect.lab.report.reading.vivid import PAPER_HEADINGS

PAPER_FILE = "paper_results.csv"
PAPER_TABLES: tuple[str, ...] = ("table1", "table3", "table4", "table5")
COMPARISON_COLUMNS: tuple[str, ...] = (
    "model",
    "paper_model",
    "prompt",
    "column",
    "ours",
    "paper",
    "diff",
    "n",
)
"""Columns of a comparison: ``n`` is the number of items our cell rests on."""

# Paper model -> spellings of its Inspect/Hugging Face name (matched after _key()).
PAPER_MODELS: dict[str, tuple[str, ...]] = {
    "GPT-4o": ("gpt-4o", "gpt-4o-2024-05-13", "gpt-4o-2024-08-06", "gpt-4o-2024-11-20"),
    "Gemini Flash 2.5": ("gemini-2.5-flash", "gemini-flash-2.5", "gemini-2.5-flash-preview-05-20"),
    "Qwen-3-14B": ("qwen3-14b", "qwen-3-14b"),
    "Llama-4-Scout-17B-16E": ("llama-4-scout-17b-16e", "llama-4-scout-17b-16e-instruct"),
    "Llama-SEA-LION-v3-8B-IT": ("llama-sea-lion-v3-8b-it",),
    "GreenMind-Medium-14B-R1": ("greenmind-medium-14b-r1",),
    "Vistral-7B-Chat": ("vistral-7b-chat",),
    "Vinallama-7b-chat": ("vinallama-7b-chat",),
    "GPT-4.1": ("gpt-4.1", "gpt-4.1-2025-04-14"),
}


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


_BY_KEY: dict[str, str] = {
    _key(alias): paper for paper, aliases in PAPER_MODELS.items() for alias in (paper, *aliases)
}


def paper_model(model: str) -> str | None:
    """The paper's name for an Inspect model name, or None when the paper did not evaluate it.

    Args:
        model: An Inspect model name such as ``openai/gpt-4o`` or ``hf/Qwen/Qwen3-14B``.

    Returns:
        The paper's spelling (``GPT-4o``, ``Qwen-3-14B``), or None.
    """
    return _BY_KEY.get(_key(model.rsplit("/", 1)[-1]))


@cache
def paper_results() -> pd.DataFrame:
    """The paper's numbers, long format: ``table, model, prompt, column, value`` (value a float).

    Returns:
        The frame, cached: treat it as read-only.
    """
    text = resources.files("vivid_inspect.lab.report.tables").joinpath(PAPER_FILE).read_text(encoding="utf-8")
    frame = pd.read_csv(StringIO(text), dtype=str, keep_default_na=False)
    frame["value"] = frame["value"].astype(float)
    return frame


def paper_value(table: str, model: str, prompt: str, column: str) -> float | None:
    """One published number, or None when the paper has no such cell.

    Args:
        table: ``table1``, ``table3``, ``table4`` or ``table5``.
        model: The paper's model name (see `paper_model`).
        prompt: ``zero_shot``/``few_shot`` (Tables 3, 4), a judge strategy or ``human``
            (Table 1), ``""`` (Table 5).
        column: The column name, as in ``paper_results.csv``.

    Raises:
        ValueError: If ``table`` is not one of the paper's tables in the file.
    """
    if table not in PAPER_TABLES:
        raise ValueError(f"unknown paper table {table!r}; expected one of {', '.join(PAPER_TABLES)}")
    frame = paper_results()
    hit = frame[
        (frame["table"] == table)
        & (frame["model"] == model)
        & (frame["prompt"] == prompt)
        & (frame["column"] == column)
    ]
    return float(hit["value"].iloc[0]) if len(hit) else None


def compare(
    table: str,
    ours: pd.DataFrame,
    *,
    model: str,
    prompt: str | None,
    columns: list[str],
    n: str | Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Ours beside the paper's, with the difference, for every cell both have.

    Args:
        table: Which paper table to compare with.
        ours: Our table (wide: one row per model/prompt, one column per statistic).
        model: Column of ``ours`` holding the Inspect model name.
        prompt: Column of ``ours`` holding the prompt/strategy, or None (Table 5).
        columns: Columns of ``ours`` to compare: a column name of the paper table, or a theme
            name the paper heads differently (see [`vivid_inspect.taxonomy.PAPER_HEADINGS`][vivid_inspect.taxonomy.PAPER_HEADINGS]).
        n: Column of ``ours`` holding the number of items each compared cell rests on, one for
            every column or one per compared column.

    Returns:
        Long frame with `COMPARISON_COLUMNS`; ``diff`` is ours minus paper. Rows keep the
        order of ``ours`` and ``columns``; empty when no model is in both.
    """
    rows: list[dict[str, object]] = []
    for record in ours.to_dict("records"):
        name = str(record[model])
        matched = paper_model(name)
        if matched is None:
            continue
        prompt_value = str(record[prompt]) if prompt is not None else ""
        for column in columns:
            value = record.get(column)
            if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
                continue
            published = paper_value(table, matched, prompt_value, PAPER_HEADINGS.get(column, column))
            if published is None:
                continue
            n_column = n.get(column) if isinstance(n, Mapping) else n
            count = record.get(n_column) if n_column is not None else None
            rows.append(
                {
                    "model": name,
                    "paper_model": matched,
                    "prompt": prompt_value,
                    "column": column,
                    "ours": float(value),
                    "paper": published,
                    "diff": float(value) - published,
                    "n": None if count is None or count is pd.NA else int(count),
                }
            )
    return pd.DataFrame(rows, columns=list(COMPARISON_COLUMNS))
