"""One log's sample summaries as score rows: a row per (sample, epoch, scorer), with its judge.

Judges: a scorer of an explanation log named ``judge_*`` (or ``lexical``) is a judge. A log the
runner wrote by judging a generation again carries eval metadata ``vivid_judge`` = ``{name,
strategy, model, generation_log}``; there only the scorer of that judge counts (any other judge
columns are copies from the generation log, which is read on its own). Elsewhere the judge's name
is the scorer's name and its model the score metadata ``judge_model``.

Every row carries the key of its generation (``generation``, see
:mod:`vivid_inspect.generation_key`), the run of it (``run``) and its data (``data``), so that no
table merges two generations by sample id; which of several files holding one judgement is read
is decided in :mod:`vivid_inspect.lab.report.counted_once`.

Values a judge or a classification scorer cannot give are refused, never averaged: a judge value
that is not a finite number from 0 to 5 (99, -3, inf, 1e30, a string, a bool), a classification
value other than correct/incorrect (``C``/``I``, 1/0). Such a row has no value (NaN), is marked
``refused`` (and ``error``, so that no statistic counts it as a judgement), and its log, sample
and value are named in :data:`RefusedValues`.
"""

from __future__ import annotations

import math
from typing import Any

from inspect_ai.log import EvalLog

from vivid_inspect.lab.report.log_refs import LogRef
from vivid_inspect.log_contract import (
    JUDGE_PREFIX,
    LEXICAL,
    JudgedRecord,
    JudgeId,
    is_judge_column,
    recorded_column,
)
from vivid_inspect.solvers.bounded_generate import TRUNCATED_KEY

JUDGE_RANGE = (0.0, 5.0)
_CLASSIFICATION_VALUES: dict[object, float] = {"C": 1.0, "I": 0.0}

SCORE_COLUMNS: tuple[str, ...] = (
    "log",
    "generation",
    "generation_log",
    "run",
    "data",
    "task",
    "model",
    "prompt",
    "shots",
    "status",
    "created",
    "id",
    "epoch",
    "theme",
    "traits",
    "truncated",
    "scorer",
    "judge",
    "judge_model",
    "strategy",
    "value",
    "unscored",
    "refused",
    "error",
    "parse_status",
    "retried",
    "lenient",
    "eval_id",
    "repeat",
    "cached",
    "judge_temperature",
    "prompt_version",
    "parser_version",
    "written",
)
"""Columns of :attr:`vivid_inspect.lab.report.logs.LogSet.scores`. ``generation`` is the generation
key, ``generation_log`` the generation's log, ``run`` which run of the generation (its eval id),
``data`` the data's label (name and short digest); ``eval_id`` is shared by a log and its rescored
copies; for a judge, ``repeat`` (which repeated judgement, from 0), ``cached`` (1.0 when the reply
came from Inspect's cache) and ``judge_temperature`` are NaN when the log does not record them;
``refused`` marks a value no judge or scorer could give (its ``error`` is True too); ``truncated``
marks a generation cut at the token limit (False where the log does not record it); ``written``
orders the files holding one judgement (a sortable text)."""


class RefusedValues(list[str]):
    """Where a value was refused and why, one line each (``LOG: sample 3 epoch 1, judge_aspect: ...``)."""


def is_judge_scorer(name: str) -> bool:
    """Whether a scorer column of an explanation log is an LLM judge (or the lexical baseline)."""
    return is_judge_column(name)


def score_rows(
    ref: LogRef, header: EvalLog, summaries: list[dict[str, Any]], refused: RefusedValues | None = None
) -> list[dict[str, Any]]:
    """The score rows of one log (see :data:`SCORE_COLUMNS`).

    Args:
        ref: The log's reference.
        header: Its header (the scorer names).
        summaries: Its sample summaries (:func:`vivid_inspect.lab.report.log_files.read_summaries`).
        refused: Where to add one line per refused value (log, sample, epoch, scorer, value).

    Returns:
        One row per (sample, epoch, scorer read): an explanation log's judge scorers (only the
        judge a judged copy added), a classification log's scorers.
    """
    scorer_names = [s.name for s in (header.results.scores if header.results else [])]
    if not scorer_names:
        scorer_names = [s.name for s in header.eval.scorers or []]
    if not scorer_names:
        scorer_names = sorted({k for s in summaries for k in (s.get("scores") or {})})
    if ref.task == "explain":
        wanted = _designated_scorer(ref, scorer_names)
    else:
        wanted = [name for name in scorer_names if not is_judge_scorer(name)]
    judge_models = _judge_models(ref, summaries, wanted)
    rows: list[dict[str, Any]] = []
    written = f"{ref.written[0]:017.1f}|{ref.written[1]:020d}"
    key, data = ref.key, ref.data_label  # once per log: the key hashes every planned sample id
    for summary in summaries:
        metadata = summary.get("metadata") or {}
        traits = metadata.get("traits")
        base = {
            "log": ref.rel,
            "generation": key,
            "generation_log": ref.generation_log,
            "run": ref.run,
            "data": data,
            "task": ref.task,
            "model": ref.model,
            "prompt": ref.prompt,
            "shots": ref.shots,
            "status": ref.status,
            "created": ref.created,
            "id": summary.get("id"),
            "epoch": int(summary.get("epoch") or 1),
            "theme": metadata.get("theme"),
            "traits": tuple(traits) if isinstance(traits, list | tuple) else (),
            "truncated": bool(metadata.get(TRUNCATED_KEY)),  # the reply was cut at the token limit
            "eval_id": ref.eval_id,
            "written": written,
        }
        for name in wanted:
            score = (summary.get("scores") or {}).get(name)
            fields = _score_fields(ref, name, score, judge_models.get(name))
            if fields["refused"] and refused is not None:
                value = score.get("value") if isinstance(score, dict) else score
                refused.append(
                    f"{ref.rel}: sample {base['id']!r:.40} epoch {base['epoch']}, {name}: {_shown(value)} "
                    f"{'is not a finite number from 0 to 5' if fields['judge'] else 'is neither correct nor incorrect (C/I, 1/0)'}"
                )
            rows.append(base | fields)
    return rows


def _shown(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**20:
        return "an integer of more than 20 digits"
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _designated_scorer(ref: LogRef, names: list[str]) -> list[str]:
    """The judge scorers to read from one explanation log."""
    judges = [name for name in names if is_judge_scorer(name)]
    if ref.vivid_judge is None or not judges:
        return judges
    strategy = ref.vivid_judge.strategy or ""
    # The recorded language picks judge_aspect_en, not a judge_aspect the generation log already had.
    for wanted in (recorded_column(ref.vivid_judge) or "", strategy, ref.vivid_judge.name or ""):
        if wanted in judges:
            return [wanted]
    # The judge the runner added is the last column appended to the log.
    return [judges[-1]]


def _judge_models(ref: LogRef, summaries: list[dict[str, Any]], wanted: list[str]) -> dict[str, str | None]:
    models: dict[str, str | None] = {}
    for name in wanted:
        if not is_judge_scorer(name):
            continue
        if name == LEXICAL and (ref.vivid_judge is None or ref.vivid_judge.strategy == LEXICAL):
            # chrF calls no model. Its score metadata names the metric, which the runner does not
            # record: keying on it would make the one judge two (after `inspect score` and `vivid run`).
            models[name] = None
            continue
        if ref.vivid_judge is not None:
            # The runner names the judge's model; a panel has none (it calls no model).
            models[name] = ref.vivid_judge.model or None
            continue
        seen = sorted(
            {
                str(model)
                for s in summaries
                if (
                    model := (((s.get("scores") or {}).get(name) or {}).get("metadata") or {}).get(
                        "judge_model"
                    )
                )
            }
        )
        models[name] = ", ".join(seen) if seen else ref.judge_model_role
    return models


def _score_fields(ref: LogRef, name: str, score: Any, judge_model: str | None) -> dict[str, Any]:
    judge = is_judge_scorer(name) and ref.task == "explain"
    metadata = (score.get("metadata") or {}) if score is not None else {}
    if judge:
        judge_name = (ref.vivid_judge.name or name) if ref.vivid_judge else name
        recorded = ref.vivid_judge.strategy if ref.vivid_judge else None
        column = JudgeId.read_column(name)
        strategy = (
            recorded
            or metadata.get("strategy")
            or (column.strategy if column else name.removeprefix(JUDGE_PREFIX))
        )
    else:
        judge_name, strategy = None, None
    value, refused = _value(score.get("value"), judge=judge) if score is not None else (math.nan, False)
    lenient = metadata.get("lenient_correct")
    return {
        "scorer": name,
        "judge": judge_name,
        "judge_model": judge_model if judge else None,
        "strategy": str(strategy) if strategy else None,
        "value": value,
        "unscored": score is not None and not refused and math.isnan(value),
        "refused": refused,
        # A refused value is no judgement: error keeps it out of every statistic's denominator.
        "error": score is None or refused,
        "parse_status": metadata.get("parse_status"),
        "retried": bool(metadata.get("retries") or 0),
        "lenient": float(bool(lenient)) if isinstance(lenient, bool) else math.nan,
        **(_repeat_fields(ref, metadata) if judge else {"repeat": math.nan, "cached": math.nan}),
    }


def _repeat_fields(ref: LogRef, metadata: dict[str, Any]) -> dict[str, Any]:
    """Which repeated judgement a score is and whether its reply was a cache replay (NaN: unrecorded)."""
    record = ref.vivid_judge or JudgedRecord()
    repeat = metadata.get("repeat", record.repeat)
    cached = metadata.get("cached")
    temperature = record.temperature
    return {
        "repeat": float(repeat) if isinstance(repeat, int) and not isinstance(repeat, bool) else math.nan,
        "cached": float(cached) if isinstance(cached, bool) else math.nan,
        "judge_temperature": temperature if _temperature(temperature) else None,
        # The judge prompt and parser versions the score was made with (None: not recorded).
        **{key: _version(metadata.get(key)) for key in ("prompt_version", "parser_version")},
    }


def _version(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _temperature(value: Any) -> bool:
    """Whether a recorded judge temperature is a finite number or a list of them."""
    values = value if isinstance(value, list) else [value]
    return bool(values) and all(
        isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in values
    )


def _value(value: Any, *, judge: bool) -> tuple[float, bool]:
    """A score's value as a float, and whether it is refused (NaN and False: unscored).

    A judge gives a finite number from 0 to 5 (a panel's mean need not be whole); a
    classification scorer correct or incorrect. No value (None, NaN) is a judgement without a
    readable score, not a refusal.
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return math.nan, False
    if judge:
        low, high = JUDGE_RANGE
        number = value if isinstance(value, int | float) and not isinstance(value, bool) else None
        if number is None or not math.isfinite(number) or not low <= number <= high:
            return math.nan, True
        return float(number), False
    if isinstance(value, str) and value in _CLASSIFICATION_VALUES:
        return _CLASSIFICATION_VALUES[value], False
    if isinstance(value, int | float) and not isinstance(value, bool) and value in (0, 1):
        return float(value), False
    return math.nan, True
