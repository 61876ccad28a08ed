"""One log's sample summaries as score rows: a row per (sample, epoch, scorer), with its judge.

Judges: a scorer of an explanation log named ``judge_*`` (or ``lexical``) is a judge. A log the
runner wrote by judging a generation again carries eval metadata ``vivid_judge`` = ``{name,
strategy, model, generation_log}``; there only the scorer of that judge counts (any other judge
columns are copies from the generation log, which is read on its own). Elsewhere the judge's name
is the scorer's name and its model the score metadata ``judge_model``.

Every row carries the key of its generation (``generation``, see
`vivid_inspect.generation_key`), the run of it (``run``) and its data (``data``), so that no
table merges two generations by sample id; which of several files holding one judgement is read
is decided in `vivid_inspect.lab.report.reading.counted_once`.

Values a judge or a classification scorer cannot give are refused, never averaged: a judge value
that is not a finite number from 0 to 5 (99, -3, inf, 1e30, a string, a bool); for this project's
judges, one they cannot write: the LLM judges and the lexical judge give whole scores (2.5, 0.1,
4.999, 1e-320 are refused), a panel the mean or median of its members' (a fraction whose
denominator is at most its member count); a classification value other than correct/incorrect
(``C``/``I``, 1/0). Such a row has no value (NaN), is marked ``refused`` (and ``error``, so that
no statistic counts it as a judgement), and its log, sample and value are named in
`RefusedValues`.

A log's samples are its run's items (`run_items`): every id is one of its data's (a whole
number from 1, in any JSON form: ``"1"`` and ``1`` are item 1), or the log is skipped; a sample the
run did not plan (an id its header does not list, an epoch past its epochs) is named and not read.
"""

from __future__ import annotations

import math
import re
from typing import Any

from inspect_ai.log import EvalLog

from vivid_inspect.bounds import MAX_ENTRIES
from vivid_inspect.lab.report.reading.judged import LETTER_SCALE, LETTERS, VIVID_SCALE, Scale
from vivid_inspect.lab.report.reading.log_files import LogContentError, shown
from vivid_inspect.lab.report.reading.log_refs import LogRef
from vivid_inspect.log_contract import (
    JUDGE_PREFIX,
    LEXICAL,
    PANEL_STRATEGY,
    JudgedRecord,
    JudgeId,
    is_judge_column,
    recorded_column,
)
from vivid_inspect.solvers.bounded_generate import TRUNCATED_KEY

_DATA_ID = re.compile(r"[1-9][0-9]{0,17}")
_SHOWN_STRANGERS = 5
_LOG_FIELDS = ("generation_log", "run", "task", "model", "prompt", "shots", "status", "created", "eval_id")
"""The score-row columns that are the `LogRef` attributes of the same names."""

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
    "scale",
    "metadata",
)
"""Columns of `vivid_inspect.lab.report.reading.logs.LogSet.scores`. ``generation`` is the generation
key, ``generation_log`` the generation's log, ``run`` which run of the generation (its eval id),
``data`` the data's label (name and short digest); ``eval_id`` is shared by a log and its rescored
copies; for a judge, ``repeat`` (which repeated judgement, from 0), ``cached`` (1.0 when the reply
came from Inspect's cache) and ``judge_temperature`` are NaN when the log does not record them;
``refused`` marks a value no judge or scorer could give (its ``error`` is True too); ``truncated``
marks a generation cut at the token limit (False where the log does not record it); ``written``
orders the files holding one judgement (a sortable text); ``scale`` is the judge's declared scale
(`vivid_inspect.lab.report.reading.judged`, the contract these rows fill), None where none is declared;
``metadata`` the sample's metadata, from which the generic adapter fills the groups a user names."""


class RefusedValues(list[str]):
    """Where a value was refused and why, one line each (``LOG: sample 3 epoch 1, judge_aspect: ...``)."""


def score_rows(
    ref: LogRef, header: EvalLog, summaries: list[dict[str, Any]], refused: RefusedValues | None = None
) -> list[dict[str, Any]]:
    """The score rows of one log (see `SCORE_COLUMNS`).

    Args:
        ref: The log's reference.
        header: Its header (the scorer names).
        summaries: Its sample summaries (`vivid_inspect.lab.report.reading.log_files.read_summaries`).
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
    if ref.generic:
        wanted = scorer_names
    elif ref.task == "explain":
        wanted = _designated_scorer(ref, scorer_names)
    else:
        wanted = [name for name in scorer_names if not is_judge_column(name)]
    judge_models = _judge_models(ref, summaries, wanted)
    rows: list[dict[str, Any]] = []
    written = f"{ref.written[0]:017.1f}|{ref.written[1]:020d}"
    # The columns of the log, once per log, not per sample (the key hashes every planned sample id).
    of_log = {"log": ref.rel, "generation": ref.key, "data": ref.data_label, "written": written}
    of_log |= {name: getattr(ref, name) for name in _LOG_FIELDS}
    for summary in summaries:
        metadata = summary.get("metadata") or {}
        traits = metadata.get("traits")
        base = of_log | {
            "id": summary.get("id"),
            "epoch": int(summary.get("epoch") or 1),
            "theme": metadata.get("theme"),
            "traits": tuple(traits) if isinstance(traits, list | tuple) else (),
            "truncated": bool(metadata.get(TRUNCATED_KEY)),  # the reply was cut at the token limit
            "metadata": metadata,
        }
        for name in wanted:
            score = (summary.get("scores") or {}).get(name)
            fields = _score_fields(ref, name, score, judge_models.get(name))
            if fields["refused"] and refused is not None:
                value = score.get("value") if isinstance(score, dict) else score
                refused.append(
                    f"{ref.rel}: sample {base['id']!r:.40} epoch {base['epoch']}, {name}: {shown(value)} "
                    f"{_what_it_gives(ref, name) if fields['judge'] else 'is neither correct nor incorrect (C/I, 1/0)'}"
                )
            rows.append(base | fields)
    if ref.generic and not any(math.isfinite(row["value"]) for row in rows):
        raise LogContentError(
            f"no score is a number or one of Inspect's letters C/P/I/N (scorers: {', '.join(wanted) or 'none'})"
        )
    return rows


def _designated_scorer(ref: LogRef, names: list[str]) -> list[str]:
    """The judge scorers to read from one explanation log."""
    judges = [name for name in names if is_judge_column(name)]
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
        if not (ref.generic or is_judge_column(name)):
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
    judge = ref.generic or (is_judge_column(name) and ref.task == "explain")
    metadata = (score.get("metadata") or {}) if score is not None else {}
    if ref.generic:  # the scorer is the judge, its grader model (if any) the judge's model
        judge_name, strategy = name, None
    elif judge:
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
    denominator = _denominator(ref, name) if judge else None
    raw = score.get("value") if score is not None else None
    if score is None:
        value, refused = math.nan, False
    elif ref.generic:
        value, refused = any_value(raw)
    else:
        value, refused = _value(raw, judge=judge, denominator=denominator)
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
        "scale": _declared_scale(ref, raw) if judge else None,
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


def _denominator(ref: LogRef, name: str) -> int | None:
    """The largest denominator a judge column's value may have (None: any number, a judge of another package).

    This project's LLM judges and the lexical judge write whole scores (1); a panel the mean or
    median of its members' whole scores, a fraction over at most its member count.
    """
    column = JudgeId.read_column(name)
    if column is None:
        return None
    if column.strategy != PANEL_STRATEGY:
        return 1
    members = ref.vivid_judge.members if ref.vivid_judge else None
    return len(members) if members else MAX_ENTRIES


def _what_it_gives(ref: LogRef, name: str) -> str:
    if ref.generic:
        return "is no finite number nor one of Inspect's letters C/P/I/N (a dict or list is no one score)"
    denominator = _denominator(ref, name)
    if denominator is None:
        return "is not a finite number from 0 to 5"
    if denominator == 1:
        return "is not a whole number from 0 to 5, which this judge gives"
    return f"is not a mean of at most {denominator} whole scores from 0 to 5, which this panel gives"


def _value(value: Any, *, judge: bool, denominator: int | None = None) -> tuple[float, bool]:
    """A score's value as a float, and whether it is refused (NaN and False: unscored).

    A judge gives a finite number from 0 to 5 that is a fraction over at most ``denominator``
    (1: a whole number; None: any); a classification scorer correct or incorrect. No value
    (None, NaN) is a judgement without a readable score, not a refusal.
    """
    number, refused = any_value(value)
    if refused or math.isnan(number):
        return number, refused
    if isinstance(value, str):  # Inspect's letters: C and I are a classification's, never a judge's
        given = not judge and value in ("C", "I")
    elif judge:
        given = VIVID_SCALE.low <= number <= VIVID_SCALE.high and (
            denominator is None or any(number == round(number * d) / d for d in range(1, denominator + 1))
        )
    else:
        given = number in (0, 1)
    return (number, False) if given else (math.nan, True)


def _declared_scale(ref: LogRef, value: Any) -> Scale | None:
    """VIVID's 0-5 for its judges; Inspect's letters' 0-1 for a letter; None: a number, no scale declared."""
    if not ref.generic:
        return VIVID_SCALE
    return LETTER_SCALE if isinstance(value, str) and value in LETTERS else None


def any_value(value: Any) -> tuple[float, bool]:
    """A value of any Inspect scorer as a float, and whether it is refused (NaN and False: unscored).

    A finite number counts as it is, Inspect's letters C/P/I/N as ``value_to_float`` maps them;
    None and NaN are no score; anything else (text, a list, a dict of several values, an
    infinity) is no one score of a judge, refused.
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return math.nan, False
    if isinstance(value, str) and value in LETTERS:
        return LETTERS[value], False
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value), False
    return math.nan, True


def run_items(ref: LogRef, summaries: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """The summaries of the items a VIVID log's run planned, each id its data's whole number.

    Args:
        ref: The log's reference (its planned ids, epochs and data size).
        summaries: Its sample summaries (`vivid_inspect.lab.report.reading.log_files.read_summaries`).

    Returns:
        The summaries of planned samples (``id`` an int), and the samples the run did not plan
        (an id the header does not list, an epoch past the run's), each named, read by no table.

    Raises:
        LogContentError: A planned or held id is not an id of the log's data (``"abc"``, 0, ``"01"``,
            an id past its data's items): these are not VIVID's items.
    """
    items = ref.data_items

    def item(sample_id: Any, where: str) -> Any:
        if ref.generic:  # any Inspect id, as it was written (read_summaries checked it)
            return sample_id
        text = str(sample_id)
        if _DATA_ID.fullmatch(text) and (items is None or int(text) <= items):
            return int(text)
        span = f"1 to {items:,}" if items is not None else "1"
        raise LogContentError(
            f"{where} id {shown(sample_id)} is not an id of its data (a whole number from {span}): "
            "not a log of VIVID's items"
        )

    planned = {item(i, "planned sample") for i in (ref.identity.sample_ids if ref.identity else ())}
    kept: list[dict[str, Any]] = []
    strangers: list[str] = []
    for summary in summaries:
        number, epoch = item(summary.get("id"), "sample"), summary.get("epoch") or 1
        if planned and number not in planned:
            strangers.append(
                f"sample {shown(summary.get('id'))} (not one of the {len(planned):,} ids it planned)"
            )
        elif epoch > ref.epochs:
            strangers.append(f"sample {number} epoch {epoch} (it ran {ref.epochs} epoch(s))")
        else:
            kept.append(summary | {"id": number})
    more = len(strangers) - _SHOWN_STRANGERS
    listed = ", ".join(strangers[:_SHOWN_STRANGERS]) + (f" and {more} more" if more > 0 else "")
    return kept, [listed] if strangers else []
