"""Table 1: each judge strategy (x judge model) against the human scores, on the reliability generation.

The statistics come from `vivid_inspect.lab.report.stats.agreement` and
`vivid_inspect.lab.report.stats.raters`; what they cannot define is reported in the ``notes`` column.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable

import numpy as np
import pandas as pd

from vivid_inspect.lab.report.reading.judged import Scale, scale_of
from vivid_inspect.lab.report.stats.agreement import Agreement, agreement
from vivid_inspect.lab.report.stats.consistency import parse_failure_rate
from vivid_inspect.lab.report.stats.humans import human_ceiling
from vivid_inspect.lab.report.stats.intervals import Interval, interval_text
from vivid_inspect.lab.report.stats.raters import RaterAgreement, rater_agreement, raters_alpha
from vivid_inspect.lab.report.stats.score_stats import kappa_reason
from vivid_inspect.lab.report.tables.judges import JudgeKey, judge_keys, select, strategy_of
from vivid_inspect.lab.report.tables.reliability_rows import generation_rows, judge_scores
from vivid_inspect.lab.report.tables.render import Table, interval_columns

_WITH_INTERVALS = ("judge_mean", "kappa", "weighted_kappa")
_STATS = (
    "n",
    *interval_columns("judge_mean"),
    "human_mean",
    *interval_columns("kappa"),
    "kappa_half_down",
    *interval_columns("weighted_kappa"),
    "spearman",
    "alpha",
    "exact",
    "within1",
    "mae",
)
_RATERS = (*interval_columns("kappa_per_annotator"), "alpha_raters")
TABLE1_COLUMNS = (
    "judge",
    "strategy",
    "judge_model",
    "scored",
    "unscored",
    "parse_failure_rate",
    "mean_all_items",
    *_STATS,
    *_RATERS,
    "same_scores_as",
    "notes",
)
TABLE1_TERMINAL = (
    "judge",
    "judge_model",
    "n",
    "judge_mean",
    "human_mean",
    "kappa",
    "kappa_ci",
    "alpha",
    "mae",
    "unscored",
)
"""The columns ``vivid report`` prints (issue 23: 25 columns cannot be read); the CSV has all."""
_DECIMALS = {"mean_all_items": 2, "judge_mean": 2, "human_mean": 2, "*": 3}

_TABLE1_COLUMN_NOTES = (
    (
        "judge_mean and human_mean are over the same n items (scored by the judge and the humans); "
        "mean_all_items is over every item the judge scored in this generation"
    ),
    (
        "kappa, weighted_kappa, alpha, exact, within1: the human score of an item is the mean over its annotators, "
        "rounded half up to a whole score (the paper's rule); kappa_half_down rounds halves down instead"
    ),
    (
        "kappa_per_annotator: Cohen's kappa of each annotator with the judge on that annotator's items, averaged "
        "over annotators, with a 95% CI; alpha_raters: Krippendorff's ordinal alpha over the annotators "
        "and the judge as separate raters; neither rounds anything"
    ),
    (
        "_ci columns: the 95% interval of the column before (kappa: score interval, means: betting interval), "
        "or why none is printed: an interval is printed only from the n where its simulated coverage is at "
        "least 93% (docs/reports.md, bench/results.md)"
    ),
)


def build_table1(
    rows: pd.DataFrame,
    humans: pd.DataFrame | None,
    human: dict[int, float],
    generation: str | None,
    n_boot: int,
) -> tuple[Table, dict[JudgeKey, Agreement]]:
    """Table 1 and the agreement of each judge that could be compared with the humans.

    Args:
        rows: Judge rows (first repeats).
        humans: Human scores (``id``, ``score``, optional ``annotator``), or None.
        human: Mean human score per item.
        generation: The reliability generation.
        n_boot: 0 skips the intervals.

    Returns:
        The table, and each judge's agreement with the humans (for the plots).
    """
    mine, notes = generation_rows(rows, generation)
    if humans is not None and not mine.empty:
        humans, human = _judgeable(humans, human, set(mine["id"]), notes)
    annotators = _annotators(humans) if humans is not None else {}
    records = _human_records(humans, human, annotators, notes, n_boot, scale_of(mine, human.values()))
    agreements: dict[JudgeKey, Agreement] = {}
    keys = judge_keys(mine)
    twins = _identical_judges(mine, keys, notes)
    for key in keys:
        record, result = _judge_record(mine, key, humans is not None, human, annotators, n_boot)
        record["same_scores_as"] = ", ".join(twins.get(key, ())) or None
        if result is not None:
            agreements[key] = result
        records.append(record)
    if generation is not None:
        described = rows[rows["generation"] == generation][["model", "prompt"]].drop_duplicates()
        what = ", ".join(f"{m} {p}" for m, p in described.itertuples(index=False, name=None))
        notes.insert(0, f"computed on generation {generation} ({what})")
    frame = pd.DataFrame(records, columns=list(TABLE1_COLUMNS))
    title = "Table 1: judge strategies (x judge model) against human scores"
    table = Table(
        "table1_judges",
        title,
        frame,
        decimals=_DECIMALS,
        notes=tuple(notes),
        counts=("scored", "unscored", "n"),
        terminal=TABLE1_TERMINAL,
    )
    return table, agreements


def _judgeable(
    humans: pd.DataFrame, human: dict[int, float], items: set[Hashable], notes: list[str]
) -> tuple[pd.DataFrame, dict[int, float]]:
    """The human scores of the items the generation holds: only those could a judge score."""
    kept = {i: v for i, v in human.items() if i in items}
    left_out = sorted(set(human) - set(kept))
    if left_out:
        shown = ", ".join(map(str, left_out[:10])) + (
            f" and {len(left_out) - 10} more" if len(left_out) > 10 else ""
        )
        notes.append(
            f"{len(left_out)} human-scored item(s) are not in the generation (left out as demonstrations or "
            f"judge examples, or never generated) and no row counts them: ids {shown}"
        )
    return humans[humans["id"].isin(list(kept))], kept


def _identical_judges(
    mine: pd.DataFrame, keys: list[JudgeKey], notes: list[str]
) -> dict[JudgeKey, list[str]]:
    """Judges whose scores are identical item for item: the same function of the text, not agreement."""
    scores = {key: judge_scores(mine, key) for key in keys}
    twins: dict[JudgeKey, list[str]] = {}
    for index, key in enumerate(keys):
        for other in keys[index + 1 :]:
            if len(scores[key]) >= 2 and same_scores(scores[key], scores[other]):
                twins.setdefault(key, []).append(other.label)
                twins.setdefault(other, []).append(key.label)
                notes.append(
                    f"{key.label} and {other.label} give identical scores on all {len(scores[key])} items: the same "
                    "function of the text (one score through two names), so their kappa with each other is 1 by "
                    "construction and says nothing about either; count them as one judge"
                )
    return twins


def same_scores(
    first: dict[Hashable, float], second: dict[Hashable, float], ids: Iterable[Hashable] | None = None
) -> bool:
    """Whether two judges gave the same score (or both none) on every item of ``ids`` (None: on the same items)."""
    if ids is None and first.keys() != second.keys():
        return False
    return all(
        (math.isnan(first[i]) and math.isnan(second[i])) or first[i] == second[i]
        for i in (first if ids is None else ids)
    )


def _human_records(
    humans: pd.DataFrame | None,
    human: dict[int, float],
    annotators: dict[str, dict[Hashable, float]],
    notes: list[str],
    n_boot: int,
    scale: Scale,
) -> list[dict[str, object]]:
    """The reference rows (the humans, and annotator against annotator); their notes join ``notes``."""
    if humans is None:
        notes.append(
            "no human scores given (--human FILE): agreement columns and means are empty; "
            "each judge's mean over all its items is in the judge summary"
        )
        return []
    # The humans against themselves would be kappa 1 by definition: the cell stays empty.
    records: list[dict[str, object]] = [
        _record("human", "", "", scored=len(human), n=len(human))
        | {
            "human_mean": float(np.mean(list(human.values()))) if human else None,
            "notes": (
                "reference: the human scores (mean over annotators per item) of the items a judge could score; "
                "no kappa against itself"
            ),
        }
    ]
    reason = kappa_reason(scale)  # on no ordinal levels the kappa family gives way to why it is left out
    ceiling = human_ceiling(humans, n_boot=n_boot, scale=scale)
    if ceiling is not None:
        between = _record("human (annotator vs annotator)", "", "") | _stats(ceiling)
        if len(annotators) > 1 and reason is None:
            between["alpha_raters"] = raters_alpha({f"annotator {a!r}": s for a, s in annotators.items()})
        records.append(between)
    elif "annotator" in humans.columns:
        notes.append("no human-human agreement: fewer than two annotators, or no item both scored")
    notes.extend(
        _TABLE1_COLUMN_NOTES if reason is None else (_TABLE1_COLUMN_NOTES[0], reason, _TABLE1_COLUMN_NOTES[3])
    )
    return records


def _judge_record(
    mine: pd.DataFrame,
    key: JudgeKey,
    has_humans: bool,
    human: dict[int, float],
    annotators: dict[str, dict[Hashable, float]],
    n_boot: int,
) -> tuple[dict[str, object], Agreement | None]:
    """One judge's row of Table 1, and its agreement with the humans when it could be computed."""
    judged = select(mine, key)
    values = judged.loc[~judged["error"], "value"].astype(float)
    scored, unscored = int(values.notna().sum()), int(values.isna().sum())
    record = _record(
        key.name,
        strategy_of(mine, key),
        key.model,
        scored=scored,
        unscored=unscored,
        parse_failure_rate=parse_failure_rate(scored, unscored),
    )
    if not has_humans:
        return record, None
    # Only beside the paired means: alone, one generation's mean reads as the judge's overall mean.
    record["mean_all_items"] = float(values.mean()) if scored else None
    scale = scale_of(judged, human.values())
    try:
        result = agreement(judge_scores(mine, key), human, n_boot=n_boot, scale=scale)
        levels = kappa_reason(scale) is None  # each annotator a rater (kappa, alpha): on ordinal levels only
        raters = rater_agreement(judge_scores(mine, key), annotators, n_boot=n_boot) if levels else None
    except ValueError as error:
        record["notes"] = f"not comparable with the humans: {error}"
        return record, None
    record |= _stats(result) | (_rater_stats(raters) if raters else {})
    record["notes"] = "; ".join(filter(None, [str(record["notes"]), *(raters.notes if raters else ())]))
    return record, result


def _annotators(humans: pd.DataFrame) -> dict[str, dict[Hashable, float]]:
    """Each annotator's scores; a file without an ``annotator`` column is one annotator."""
    if "annotator" not in humans.columns:
        return {
            "(no annotator column)": dict(zip(humans["id"].tolist(), humans["score"].tolist(), strict=True))
        }
    return {
        str(name): dict(zip(group["id"].tolist(), group["score"].tolist(), strict=True))
        for name, group in humans.groupby(humans["annotator"].astype(str), sort=True)
    }


def _record(judge: str, strategy: str, model: str, **values: object) -> dict[str, object]:
    return {"judge": judge, "strategy": strategy, "judge_model": model, "notes": "", **values}


def _stats(result: Agreement) -> dict[str, object]:
    row = {name: getattr(result, name) for name in _STATS if not name.endswith("_ci")}
    for name in _WITH_INTERVALS:
        row[f"{name}_ci"] = interval_cell(result.intervals.get(name))
    row["notes"] = "; ".join(result.notes)
    return row


def _rater_stats(result: RaterAgreement) -> dict[str, object]:
    return {
        "kappa_per_annotator": result.kappa_mean,
        "kappa_per_annotator_lo": result.kappa_lo,
        "kappa_per_annotator_hi": result.kappa_hi,
        "kappa_per_annotator_ci": interval_cell(result.interval),
        "alpha_raters": result.alpha,
    }


def interval_cell(interval: Interval | None) -> str | None:
    """The interval cell: ``[lo, hi]`` or why there is none; None when there is no interval at all."""
    return (interval_text(interval) or None) if interval is not None else None
