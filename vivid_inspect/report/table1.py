"""Table 1: each judge strategy (x judge model) against the human scores, on the reliability generation.

The statistics come from :mod:`vivid_inspect.report.agreement` and
:mod:`vivid_inspect.report.raters`; what they cannot define is reported in the ``notes`` column.
"""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np
import pandas as pd

from vivid_inspect.report.agreement import Agreement, agreement
from vivid_inspect.report.consistency import parse_failure_rate
from vivid_inspect.report.humans import human_ceiling
from vivid_inspect.report.judges import JudgeKey, judge_keys, select, strategy_of
from vivid_inspect.report.raters import RaterAgreement, rater_agreement, raters_alpha
from vivid_inspect.report.reliability_rows import generation_rows, judge_scores
from vivid_inspect.report.render import Table

_STATS = (
    "n",
    "judge_mean",
    "human_mean",
    "kappa",
    "kappa_lo",
    "kappa_hi",
    "kappa_half_down",
    "weighted_kappa",
    "spearman",
    "alpha",
    "exact",
    "within1",
    "mae",
)
_RATERS = ("kappa_per_annotator", "kappa_per_annotator_lo", "kappa_per_annotator_hi", "alpha_raters")
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
    "notes",
)
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
        "over annotators, with a 95% bootstrap CI; alpha_raters: Krippendorff's ordinal alpha over the annotators "
        "and the judge as separate raters; neither rounds anything"
    ),
)


def build_table1(
    rows: pd.DataFrame,
    humans: pd.DataFrame | None,
    human: dict[int, float],
    generation: str | None,
    n_boot: int,
    seed: int,
) -> tuple[Table, dict[JudgeKey, Agreement]]:
    """Table 1 and the agreement of each judge that could be compared with the humans.

    Args:
        rows: Judge rows (first repeats).
        humans: Human scores (``id``, ``score``, optional ``annotator``), or None.
        human: Mean human score per item.
        generation: The reliability generation.
        n_boot: Bootstrap resamples of the intervals.
        seed: Seed of the resamples.

    Returns:
        The table, and each judge's agreement with the humans (for the plots).
    """
    mine, notes = generation_rows(rows, generation)
    annotators = _annotators(humans) if humans is not None else {}
    records = _human_records(humans, human, annotators, notes, n_boot, seed)
    agreements: dict[JudgeKey, Agreement] = {}
    for key in judge_keys(mine):
        record, result = _judge_record(mine, key, humans is not None, human, annotators, n_boot, seed)
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
    )
    return table, agreements


def _human_records(
    humans: pd.DataFrame | None,
    human: dict[int, float],
    annotators: dict[str, dict[Hashable, float]],
    notes: list[str],
    n_boot: int,
    seed: int,
) -> list[dict[str, object]]:
    """The reference rows (the humans, and annotator against annotator); their notes join ``notes``."""
    if humans is None:
        notes.append(
            "no human scores given (--human FILE): agreement columns and means are empty; "
            "each judge's mean over all its items is in the judge summary"
        )
        return []
    records: list[dict[str, object]] = [
        _record("human", "", "", scored=len(human), n=len(human), kappa=1.0)
        | {
            "human_mean": float(np.mean(list(human.values()))) if human else None,
            "notes": "reference: the human scores (mean over annotators per item), every item the humans scored",
        }
    ]
    ceiling = human_ceiling(humans, n_boot=n_boot, seed=seed)
    if ceiling is not None:
        between = _record("human (annotator vs annotator)", "", "") | _stats(ceiling)
        if len(annotators) > 1:
            between["alpha_raters"] = raters_alpha({f"annotator {a!r}": s for a, s in annotators.items()})
        records.append(between)
    elif "annotator" in humans.columns:
        notes.append("no human-human agreement: fewer than two annotators, or no item both scored")
    notes.extend(_TABLE1_COLUMN_NOTES)
    return records


def _judge_record(
    mine: pd.DataFrame,
    key: JudgeKey,
    has_humans: bool,
    human: dict[int, float],
    annotators: dict[str, dict[Hashable, float]],
    n_boot: int,
    seed: int,
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
    try:
        result = agreement(judge_scores(mine, key), human, n_boot=n_boot, seed=seed)
        raters = rater_agreement(judge_scores(mine, key), annotators, n_boot=n_boot, seed=seed)
    except ValueError as error:
        record["notes"] = f"not comparable with the humans: {error}"
        return record, None
    record |= _stats(result) | _rater_stats(raters)
    record["notes"] = "; ".join(filter(None, [str(record["notes"]), *raters.notes]))
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
    row = {name: getattr(result, name) for name in _STATS}
    row["notes"] = "; ".join(result.notes)
    return row


def _rater_stats(result: RaterAgreement) -> dict[str, object]:
    return {
        "kappa_per_annotator": result.kappa_mean,
        "kappa_per_annotator_lo": result.kappa_lo,
        "kappa_per_annotator_hi": result.kappa_hi,
        "alpha_raters": result.alpha,
    }
