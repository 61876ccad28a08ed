"""One log's sample summaries as score rows: a row per (sample, epoch, scorer), with its judge.

Judges: a scorer of an explanation log named ``judge_*`` (or ``lexical``) is a judge. A log the
runner wrote by judging a generation again carries eval metadata ``vivid_judge`` = ``{name,
strategy, model, generation_log}``; there only the scorer of that judge counts (any other judge
columns are copies from the generation log, which is read on its own). Elsewhere the judge's name
is the scorer's name and its model the score metadata ``judge_model``.
"""

from __future__ import annotations

import math
from typing import Any

from inspect_ai.log import EvalLog
from inspect_ai.scorer import value_to_float

from vivid_inspect.log_contract import (
    JUDGE_PREFIX,
    LEXICAL,
    JudgedRecord,
    JudgeId,
    is_judge_column,
    recorded_column,
)
from vivid_inspect.report.log_refs import LogRef

_to_float = value_to_float()

SCORE_COLUMNS: tuple[str, ...] = (
    "log",
    "generation",
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
    "scorer",
    "judge",
    "judge_model",
    "strategy",
    "value",
    "unscored",
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
)
"""Columns of :attr:`vivid_inspect.report.logs.LogSet.scores`. ``eval_id`` is shared by a log and
its rescored copies; for a judge, ``repeat`` (which repeated judgement, from 0), ``cached`` (1.0
when the reply came from Inspect's cache) and ``judge_temperature`` are NaN when the log does not
record them."""


def is_judge_scorer(name: str) -> bool:
    """Whether a scorer column of an explanation log is an LLM judge (or the lexical baseline)."""
    return is_judge_column(name)


def score_rows(ref: LogRef, header: EvalLog, summaries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The score rows of one log (see :data:`SCORE_COLUMNS`).

    Args:
        ref: The log's reference.
        header: Its header (the scorer names).
        summaries: Its sample summaries (:func:`vivid_inspect.report.log_files.read_summaries`).

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
    for summary in summaries:
        metadata = summary.get("metadata") or {}
        traits = metadata.get("traits")
        base = {
            "log": ref.rel,
            "generation": ref.generation,
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
            "eval_id": ref.eval_id,
        }
        for name in wanted:
            score = (summary.get("scores") or {}).get(name)
            rows.append(base | _score_fields(ref, name, score, judge_models.get(name)))
    return rows


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
    value = _numeric(score.get("value")) if score is not None else math.nan
    lenient = metadata.get("lenient_correct")
    return {
        "scorer": name,
        "judge": judge_name,
        "judge_model": judge_model if judge else None,
        "strategy": str(strategy) if strategy else None,
        "value": value,
        "unscored": score is not None and math.isnan(value),
        "error": score is None,
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
        "judge_temperature": temperature if isinstance(temperature, int | float | list) else None,
        # The judge prompt and parser versions the score was made with (None: not recorded).
        **{key: _version(metadata.get(key)) for key in ("prompt_version", "parser_version")},
    }


def _version(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _numeric(value: Any) -> float:
    if value is None:
        return math.nan
    if isinstance(value, float):
        return value
    if isinstance(value, int | bool | str):
        return float(_to_float(value))
    return math.nan
