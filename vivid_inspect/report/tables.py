"""The paper's result tables from the score frame.

Table 3 (themes), 4 (traits), 5 (classification) and the counts of scored, unscored and failed
samples.

Means leave out unscored judge scores (NaN) and samples without a score; both are counted in
their own columns, never as 0. A row built from a log that did not finish is flagged
``incomplete``. Rows are sorted by model, then prompt in the paper's order (zero-shot first).
"""

from __future__ import annotations

import math
from typing import cast

import pandas as pd

from vivid_inspect.report.judges import JudgeKey, latest, select
from vivid_inspect.report.render import Table
from vivid_inspect.taxonomy import THEME_NAMES, TRAIT_NAMES

# Table 3's column for each theme: the taxonomy's names, as in the task metrics and the viewer.
THEME_COLUMNS: tuple[str, ...] = THEME_NAMES
AVERAGE = "Average"
TRAIT_COLUMNS: tuple[str, ...] = TRAIT_NAMES
PROMPT_ORDER: tuple[str, ...] = ("zero_shot", "few_shot")
_COUNTS = ("n", "epochs", "unscored", "errors")
_COUNTS_NOTE = (
    "n: items with a score; epochs: epochs run (the means are over every item x epoch score); "
    "unscored, errors: judgements (item x epoch) without a readable score, or without a score at all"
)
TABLE5_COLUMNS = (
    "model",
    "shots",
    "topic",
    "traits",
    "topic_lenient",
    "traits_lenient",
    "n_topic",
    "n_traits",
    "epochs",
    "incomplete",
)


def table3(rows: pd.DataFrame, judge: JudgeKey | None, why: str) -> Table:
    """Table 3: mean judge score per model x prompt and theme, plus the average over all items.

    Args:
        rows: Judge rows of explanation logs.
        judge: The judge whose scores are used (None: no judge in the logs, empty table).
        why: Which judge and why, printed under the table.
    """
    columns = ["model", "prompt", *THEME_COLUMNS, AVERAGE, *_COUNTS, "incomplete"]
    records = [
        {"model": model, "prompt": prompt, **_theme_means(group), **_counts(group)}
        for (model, prompt), group in _by_model_prompt(rows, judge)
    ]
    title = "Table 3: mean judge score (0-5) by theme"
    notes = (why, _COUNTS_NOTE, *_unknown_themes(rows, judge))
    return Table("table3_themes", title, _frame(records, columns), decimals=2, notes=notes, counts=_COUNTS)


def table4(rows: pd.DataFrame, judge: JudgeKey | None, why: str) -> Table:
    """Table 4: mean judge score per model x prompt and complexity trait.

    An item counts toward each of its traits (sample metadata ``traits``), so the columns do not
    partition the items.
    """
    columns = ["model", "prompt", *TRAIT_COLUMNS, *_COUNTS, "incomplete"]
    records = [
        {"model": model, "prompt": prompt, **_trait_means(group), **_counts(group)}
        for (model, prompt), group in _by_model_prompt(rows, judge)
    ]
    notes = (
        why,
        "an item counts toward each of its traits; items without a trait count toward none",
        _COUNTS_NOTE,
    )
    title = "Table 4: mean judge score (0-5) by complexity trait"
    return Table("table4_traits", title, _frame(records, columns), decimals=2, notes=notes, counts=_COUNTS)


def table5(scores: pd.DataFrame) -> Table:
    """Table 5: strict exact-match accuracy of topic and traits per model, plus lenient diagnostics.

    Args:
        scores: The whole score frame; rows of the ``topic_match`` and ``traits_match`` scorers
            of ``topic`` and ``traits`` logs are used.
    """
    wanted = scores[
        ((scores["task"] == "topic") & (scores["scorer"] == "topic_match"))
        | ((scores["task"] == "traits") & (scores["scorer"] == "traits_match"))
    ]
    wanted = latest(wanted, ["task", "model", "shots"])
    records: list[dict[str, object]] = []
    for (model, shots_key), group in wanted.groupby(["model", "shots"], sort=True, dropna=False):
        shots = cast("float | None", shots_key)  # the stubs type group keys as Hashable
        record: dict[str, object] = {"model": model, "shots": None if pd.isna(shots) else int(shots)}
        for task in ("topic", "traits"):
            mine = group[(group["task"] == task) & ~group["error"]]
            record[task] = _mean(mine["value"])
            record[f"{task}_lenient"] = _mean(mine["lenient"])
            record[f"n_{task}"] = int(mine.loc[mine["value"].notna(), "id"].nunique())
        record["epochs"] = int(group["epoch"].nunique())
        record["incomplete"] = bool((group["status"] != "success").any() or group["error"].any())
        records.append(record)
    frame = _frame(records, list(TABLE5_COLUMNS))
    frame = frame.sort_values(["model", "shots"], key=_sort_key, kind="stable").reset_index(drop=True)
    notes = (
        (
            "topic, traits: the paper's strict exact match; *_lenient: the lenient parse (first number 1-7 for "
            "topic, the set of trait codes in any order for traits), a diagnostic the paper did not report"
        ),
        "n_topic, n_traits: items with a score; epochs: epochs run (accuracies are over every item x epoch score)",
    )
    counted = ("shots", "n_topic", "n_traits", "epochs")
    return Table(
        "table5_classification",
        "Table 5: classification accuracy",
        frame,
        decimals=3,
        notes=notes,
        counts=counted,
    )


def counts(scores: pd.DataFrame) -> Table:
    """Samples, scored, unscored and failed per log group (task, model, prompt/shots, scorer)."""
    columns = [
        "task",
        "model",
        "prompt",
        "shots",
        "scorer",
        "judge",
        "judge_model",
        "logs",
        "samples",
        "scored",
        "unscored",
        "errors",
        "incomplete",
    ]
    keys = ["task", "model", "prompt", "shots", "scorer", "judge", "judge_model"]
    frame = scores.copy()
    for key in keys:
        frame[key] = frame[key].astype(object).where(frame[key].notna(), "")
    deduped = latest(frame, [*keys, "generation"])
    records = []
    for values, group in deduped.groupby(keys, sort=True):
        present = group[~group["error"]]
        records.append(
            dict(zip(keys, values, strict=True))
            | {
                "logs": group["log"].nunique(),
                "samples": len(group),
                "scored": int(present["value"].notna().sum()),
                "unscored": int(present["value"].isna().sum()),
                "errors": int(group["error"].sum()),
                "incomplete": bool((group["status"] != "success").any()),
            }
        )
    out = pd.DataFrame(records, columns=columns)
    out["shots"] = out["shots"].map(lambda v: "" if v == "" else int(v))
    notes = (
        (
            "unscored: a score of NaN (the judge's reply had no readable score) - excluded from means, not 0; "
            "errors: samples without this score (the sample failed); incomplete: a log that did not finish"
        ),
    )
    counted = ("logs", "samples", "scored", "unscored", "errors")
    return Table(
        "counts", "Scored, unscored and failed samples", out, decimals=0, notes=notes, counts=counted
    )


def _by_model_prompt(
    rows: pd.DataFrame, judge: JudgeKey | None
) -> list[tuple[tuple[str, str], pd.DataFrame]]:
    if judge is None or rows.empty:
        return []
    mine = latest(select(rows, judge), ["model", "prompt", "judge", "judge_model"])
    groups = [((str(m), str(p)), g) for (m, p), g in mine.groupby(["model", "prompt"], sort=False)]
    return sorted(groups, key=lambda item: (item[0][0].lower(), item[0][0], _prompt_rank(item[0][1])))


def _theme_means(group: pd.DataFrame) -> dict[str, float | None]:
    present = group[~group["error"]]
    means = {theme: _mean(present.loc[present["theme"] == theme, "value"]) for theme in THEME_COLUMNS}
    means[AVERAGE] = _mean(present["value"])
    return means


def _trait_means(group: pd.DataFrame) -> dict[str, float | None]:
    present = group[~group["error"]]
    return {
        trait: _mean(present.loc[present["traits"].map(lambda t, n=trait: n in t), "value"])
        for trait in TRAIT_COLUMNS
    }


def _counts(group: pd.DataFrame) -> dict[str, object]:
    present = group[~group["error"]]
    return {
        "n": int(present.loc[present["value"].notna(), "id"].nunique()),
        "epochs": int(group["epoch"].nunique()),
        "unscored": int(present["value"].isna().sum()),
        "errors": int(group["error"].sum()),
        "incomplete": bool((group["status"] != "success").any() or group["error"].any()),
    }


def _unknown_themes(rows: pd.DataFrame, judge: JudgeKey | None) -> tuple[str, ...]:
    if judge is None or rows.empty:
        return ()
    themes = set(select(rows, judge)["theme"].dropna().astype(str)) - set(THEME_COLUMNS)
    if not themes:
        return ()
    return (
        f"themes outside the taxonomy left out of the theme columns (kept in {AVERAGE}): {', '.join(sorted(themes))}",
    )


def _mean(values: pd.Series) -> float | None:
    mean = values.astype(float).mean()
    return None if math.isnan(mean) else float(mean)


def _frame(records: list[dict[str, object]], columns: list[str]) -> pd.DataFrame:
    return pd.DataFrame(records, columns=columns)


def _prompt_rank(prompt: str) -> tuple[int, str]:
    return (PROMPT_ORDER.index(prompt), "") if prompt in PROMPT_ORDER else (len(PROMPT_ORDER), prompt)


def _sort_key(column: pd.Series) -> pd.Series:
    if column.name == "model":
        return column.astype(str).str.lower() + "\x00" + column.astype(str)
    return column.fillna(-1)
