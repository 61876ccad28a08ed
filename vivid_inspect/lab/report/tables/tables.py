"""The paper's result tables from the score frame, one row per generation.

Table 3 (themes), 4 (traits), 5 (classification) and the counts of scored, unscored, refused and
failed samples. Every row is one *generation* (`vivid_inspect.generation_key`: task, version,
model, prompt or shots, data and sample ids): two data sets, or a run on a few items beside a run
on all of them, are two rows, each labelled with its data and n, never merged by sample id. Each
judgement is read once (`vivid_inspect.lab.report.reading.counted_once`).

Means leave out unscored judge scores (NaN), refused values and samples without a score; each is
counted in its own column, never as 0. An item's epochs are averaged first, then items, so an item
scored in more epochs weighs no more than another. A row built from a log that did not finish is
flagged ``incomplete``. Rows are sorted by model, then prompt in the paper's order (zero-shot
first), then data.

Tables 3 and 4 print the paper's wide form (a column per theme or trait); their CSV files hold one
row per (generation, cell) with the 95 % interval of the mean (`CELL_COLUMNS`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from functools import partial
from typing import cast

import pandas as pd

from vivid_inspect.lab.report.reading.any_eval import group_column
from vivid_inspect.lab.report.reading.judged import (
    JUDGEMENT_COUNTS,
    VIVID_SCALE,
    Scale,
    item_key,
    judgement_counts,
    scale_of,
)
from vivid_inspect.lab.report.reading.vivid import THEME_NAMES, TRAIT_NAMES
from vivid_inspect.lab.report.stats.intervals import MIN_N_MEAN, mean_interval
from vivid_inspect.lab.report.tables.corrected_tables import CORRECTED_COLUMNS, corrected_columns
from vivid_inspect.lab.report.tables.judges import JudgeKey, judge_keys, latest, rank_in, select
from vivid_inspect.lab.report.tables.render import Table, estimate_text, interval_columns

# Table 3's column for each theme: the taxonomy's names, as in the task metrics and the viewer.
THEME_COLUMNS: tuple[str, ...] = THEME_NAMES
AVERAGE = "Average"
TRAIT_COLUMNS: tuple[str, ...] = TRAIT_NAMES
PROMPT_ORDER: tuple[str, ...] = ("zero_shot", "few_shot")
_COUNTS = ("n", "epochs", *JUDGEMENT_COUNTS[1:])  # n: items with a score, not judgements
_COUNTS_NOTE = (
    "n: items with a score; epochs: epochs run (an item's epochs are averaged, then items); "
    "unscored, errors: judgements (item x epoch) without a readable score, or without a score at all; "
    "refused: values no judge can give (outside 0-5), never averaged; truncated: judged explanations "
    "the model was cut off in at the token limit (stop reason max_tokens or model_length), kept and judged"
)
_CELL_NOTE = (
    "report.md's cells: mean [95 % interval] n=items with a score, as in the CSV (judge_mean, judge_mean_lo, "
    f"judge_mean_hi, n_items); no interval below n={MIN_N_MEAN} (too few items for a 95 % interval)"
)
CELL_COLUMNS: tuple[str, ...] = (
    "generation",
    "data",
    "model",
    "prompt",
    "judge",
    "judge_model",
    "cell",
    *interval_columns("judge_mean", text=False),
    *CORRECTED_COLUMNS[:-1],
    "n_items",
    *JUDGEMENT_COUNTS[1:],
    "incomplete",
    "log",
    "note",
    CORRECTED_COLUMNS[-1],
)
"""The CSV schema of Tables 3 and 4: one row per (generation, cell), a cell a theme, ``Average`` or a trait.

The human, corrected and bias columns (`CORRECTED_COLUMNS`)
are filled for the generations human scores are bound to, empty for the others."""
_CELL_COUNTS = ("n_items", *JUDGEMENT_COUNTS[1:])
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
TABLE5_CSV_EXTRA = ("data", "topic_generation", "traits_generation", "topic_log", "traits_log")
Humans = Mapping[str, Mapping[int, float]]
"""Generation key to each labelled item's human score (its annotators' mean)."""
Cells = list[tuple[str, str | None]]
"""Each cell's label and the row column that holds it (a theme, traits, a group; None: every row)."""


def table3(rows: pd.DataFrame, judge: JudgeKey | None, why: str, humans: Humans | None = None) -> Table:
    """Table 3: mean judge score per generation (model x prompt x data) and theme, plus the average.

    Args:
        rows: Judge rows of explanation logs (first repeats, each judgement once).
        judge: The judge whose scores are used (None: no judge in the logs, empty table).
        why: Which judge and why, printed under the table.
        humans: Generation key to the human score of each labelled item (the mean over its
            annotators), for the generations human scores are bound to.
    """
    cells: Cells = [*((theme, "theme") for theme in THEME_COLUMNS), (AVERAGE, None)]
    title = "Table 3: mean judge score (0-5) by theme"
    notes = (why, _COUNTS_NOTE, *_unknown_themes(rows, judge))
    return _cell_table("table3_themes", title, rows, [judge] if judge else [], cells, notes, humans or {})


def table4(rows: pd.DataFrame, judge: JudgeKey | None, why: str, humans: Humans | None = None) -> Table:
    """Table 4: mean judge score per generation and complexity trait.

    An item counts toward each of its traits (sample metadata ``traits``), so the columns do not
    partition the items. Arguments and result as `table3`.
    """
    cells: Cells = [(trait, "traits") for trait in TRAIT_COLUMNS]
    notes = (
        why,
        "an item counts toward each of its traits; items without a trait count toward none",
        _COUNTS_NOTE,
    )
    title = "Table 4: mean judge score (0-5) by complexity trait"
    return _cell_table("table4_traits", title, rows, [judge] if judge else [], cells, notes, humans or {})


def group_table(rows: pd.DataFrame, key: str, humans: Humans | None = None) -> Table:
    """Mean judge score per generation, judge and label of one group (a sample metadata key the user named).

    Tables 3 and 4 for any eval: the same cells, intervals and corrected columns, for every judge.

    Args:
        rows: Judge rows (first repeats) with the key's group column the adapter filled (a tuple
            of labels per row, `vivid_inspect.lab.report.reading.any_eval.group_rows`).
        key: The metadata key, for the title and the file name.
        humans: As for `table3`.
    """
    column = group_column(key)
    labels = sorted({label for labelled in rows[column] for label in labelled})
    cells: Cells = [(label, column) for label in labels]
    notes = (
        "one row per generation and judge",
        f"an item counts toward each of its labels of {key} (each element of a list); items without it count toward none",
        _COUNTS_NOTE,
    )
    name = "group_" + re.sub(r"[^0-9A-Za-z_-]+", "_", key)
    title = f"Mean judge score (0-5) by {key}"
    return _cell_table(name, title, rows, judge_keys(rows), cells, notes, humans or {})


def _cell_table(
    name: str,
    title: str,
    rows: pd.DataFrame,
    judges: Sequence[JudgeKey],
    cells: Cells,
    notes: tuple[str, ...],
    humans: Humans,
) -> Table:
    """A table of means per generation (and judge) and cell: wide for the terminal, long (with intervals) in the CSV."""
    groups = _by_generation(rows, judges)
    scales: set[Scale] = set()
    wide: list[dict[str, object]] = []
    texts: list[dict[str, object]] = []  # the markdown's cells: mean [interval] n=items
    long: list[dict[str, object]] = []
    for generation, group, judge in groups:
        first = group.iloc[0]
        label = {
            "generation": generation,
            "data": first["data"],
            "model": first["model"],
            "prompt": first["prompt"],
        }
        incomplete = _incomplete(group)
        log = ", ".join(sorted(group["log"].astype(str).unique()))
        record: dict[str, object] = dict(label, judge=judge.label)
        text: dict[str, object] = dict(label, judge=judge.label)
        scale = scale_of(group, (humans.get(generation) or {}).values())
        scales.add(scale)
        for cell, column in cells:
            mine = group if column is None else group[group[column].map(partial(_holds, cell)).to_numpy(bool)]
            found, reason, per_item = _cell(mine, scale)
            corrected = corrected_columns(
                per_item, humans.get(generation), set(map(item_key, mine["id"])), (scale.low, scale.high)
            )
            record[cell] = found["judge_mean"]
            text[cell] = estimate_text(
                found["judge_mean"], found["judge_mean_lo"], found["judge_mean_hi"], found["n_items"]
            )
            long.append(
                label
                | {"judge": judge.name, "judge_model": judge.model, "cell": cell}
                | found
                | corrected
                | {"incomplete": incomplete, "log": log, "note": _note(reason, group)}
            )
        wide.append(record | _counts(group) | {"incomplete": incomplete})
        texts.append(text | _counts(group) | {"incomplete": incomplete})
    columns = [*_label_columns(wide), *(cell for cell, _ in cells), *_COUNTS, "incomplete"]
    every = ["generation", "data", "model", "prompt", "judge", *(c for c, _ in cells), *_COUNTS, "incomplete"]
    frame = pd.DataFrame(wide, columns=every)[columns]
    cells_frame = pd.DataFrame(long, columns=list(CELL_COLUMNS))
    notes = (*notes, _CELL_NOTE, *_data_note(frame), *_truncated_note(wide, groups))
    notes += tuple(sorted(filter(None, (scale.note() for scale in scales))))
    return Table(
        name,
        title.replace(VIVID_SCALE.label, scale_label(scales)),
        frame,
        decimals=2,
        notes=notes,
        counts=(*_COUNTS, *_CELL_COUNTS, "n_human", "n_human_unscored"),
        csv_frame=cells_frame,
        markdown_frame=pd.DataFrame(texts, columns=every)[columns],
    )


def scale_label(scales: set[Scale]) -> str:
    """The judges' scale as titles say it: ``0-5`` (VIVID's, or no rows), another range, or several."""
    labels = {scale.label for scale in scales} or {VIVID_SCALE.label}
    return labels.pop() if len(labels) == 1 else "on each judge's scale"


def _holds(label: str, value: object) -> bool:
    """Whether a row's group value is the label, or a tuple of labels holding it (a trait, a list's element)."""
    return label in value if isinstance(value, tuple) else value == label


def _cell(rows: pd.DataFrame, scale: Scale) -> tuple[dict[str, object], str | None, dict[int, float]]:
    """One cell's mean, interval (on the judge's scale), n and counts; why it has no interval; each item's score.

    An item's epochs are averaged first.
    """
    present = rows[~rows["error"]]
    per_item = present.groupby("id", sort=False)["value"].mean().dropna()
    interval = mean_interval(per_item.astype(float), low=scale.low, high=scale.high)
    return (
        {
            "judge_mean": interval.estimate,
            "judge_mean_lo": interval.lo,
            "judge_mean_hi": interval.hi,
            "n_items": interval.n,
            **judgement_counts(rows),
        },
        interval.reason,
        {item_key(item): float(value) for item, value in per_item.items()},
    )


def _note(reason: str | None, group: pd.DataFrame) -> str:
    parts = [reason] if reason else []
    epochs = int(group["epoch"].nunique())
    if epochs > 1:
        parts.append(f"each item's {epochs} epochs averaged first")
    return "; ".join(parts)


def _label_columns(records: list[dict[str, object]]) -> list[str]:
    """Model and prompt; the data where the rows hold more than one data set; the key where rows look alike."""
    columns = ["model", "prompt", *(["judge"] if len({r["judge"] for r in records}) > 1 else [])]
    if len({str(r["data"]) for r in records}) > 1:
        columns.append("data")
    seen = [(r["model"], r["prompt"], r["data"]) for r in records]
    if len(set(seen)) < len(seen):
        columns.append("generation")
    return columns


def _data_note(frame: pd.DataFrame) -> tuple[str, ...]:
    if "data" in frame.columns:
        return (
            "data: the data set of each row (name and the first digits of its digest); rows on different data are never merged",
        )
    if "generation" in frame.columns:
        return (
            "generation: rows of one model, prompt and data on different items (a run on some of them) are kept apart",
        )
    return ()


def table5(scores: pd.DataFrame, pairs: Mapping[str, str] | None = None) -> Table:
    """Table 5: strict exact-match accuracy of topic and traits per model, plus lenient diagnostics.

    A row pairs a topic and a traits generation of one model, shots and data on the same items;
    generations on other data or other items are other rows.

    Args:
        scores: The whole score frame; rows of the ``topic_match`` and ``traits_match`` scorers
            of ``topic`` and ``traits`` logs are used.
        pairs: Each classification generation's key to what it shares with its other task's
            generation (its key with the task left out); without it, rows pair by model, shots
            and data.
    """
    wanted = scores[
        ((scores["task"] == "topic") & (scores["scorer"] == "topic_match"))
        | ((scores["task"] == "traits") & (scores["scorer"] == "traits_match"))
    ]
    if "data" not in wanted.columns:  # a frame built without the data label: one data set
        wanted = wanted.assign(data="")
    wanted = latest(wanted, ["task", "generation"])
    pair = wanted["generation"].map(lambda key: (pairs or {}).get(str(key), ""))
    wanted = wanted.assign(_pair=pair.where(pair != "", wanted["data"].astype(str)))
    records: list[dict[str, object]] = []
    for (_, model, shots_key), group in (
        wanted.groupby(["_pair", "model", "shots"], sort=False, dropna=False) if not wanted.empty else ()
    ):
        shots = cast("float | None", shots_key)  # the stubs type group keys as Hashable
        record: dict[str, object] = {"model": model, "shots": None if pd.isna(shots) else int(shots)}
        record["data"] = str(group["data"].iloc[0])
        for task in ("topic", "traits"):
            mine = group[(group["task"] == task) & ~group["error"]]
            per_item = mine.groupby("id", sort=False)
            record[task] = _mean(per_item["value"].mean())
            record[f"{task}_lenient"] = _mean(per_item["lenient"].mean())
            record[f"n_{task}"] = int(mine.loc[mine["value"].notna(), "id"].nunique())
            of_task = group[group["task"] == task]
            record[f"{task}_generation"] = ", ".join(sorted(of_task["generation"].astype(str).unique()))
            record[f"{task}_log"] = ", ".join(sorted(of_task["log"].astype(str).unique()))
        record["epochs"] = int(group["epoch"].nunique())
        record["incomplete"] = _incomplete(group)
        records.append(record)
    full = pd.DataFrame(records, columns=[*TABLE5_COLUMNS, *TABLE5_CSV_EXTRA])
    full = full.sort_values(["model", "shots", "data"], key=_sort_key, kind="stable").reset_index(drop=True)
    shown = list(TABLE5_COLUMNS)
    if full["data"].nunique() > 1 or full.duplicated(["model", "shots"]).any():
        shown.insert(2, "data")
    notes = (
        (
            "topic, traits: the paper's strict exact match; *_lenient: the lenient parse (once a repeat of the "
            "prompt is set aside, exactly one number 1-7 for topic, the set of trait codes in any order for traits; "
            "several options are unreadable), a diagnostic the paper did not report"
        ),
        "n_topic, n_traits: items with a score; epochs: epochs run (an item's epochs are averaged, then items)",
        "the CSV names each row's data, generation keys and the logs read",
    )
    counted = ("shots", "n_topic", "n_traits", "epochs")
    return Table(
        "table5_classification",
        "Table 5: classification accuracy",
        full[shown],
        decimals=3,
        notes=notes,
        counts=counted,
        csv_frame=full,
    )


def counts(scores: pd.DataFrame) -> Table:
    """Samples, scored, unscored, refused and failed per generation and scorer, each judgement once."""
    keys = ["task", "model", "prompt", "shots", "data", "generation", "scorer", "judge", "judge_model"]
    columns = [*keys, "logs", "log", "samples", *JUDGEMENT_COUNTS, "incomplete"]
    frame = scores.copy()
    for key in keys:
        frame[key] = frame[key].astype(object).where(frame[key].notna(), "")
    deduped = latest(frame, keys)
    records = []
    for values, group in deduped.groupby(keys, sort=True):
        held = group["held_by"].max() if "held_by" in group.columns else None
        records.append(
            dict(zip(keys, values, strict=True))
            | {
                "logs": int(held) if held is not None and not pd.isna(held) else group["log"].nunique(),
                "log": ", ".join(sorted(group["log"].astype(str).unique())),
                "samples": len(group),
                **judgement_counts(group),
                "incomplete": bool((group["status"] != "success").any()),
            }
        )
    out = pd.DataFrame(records, columns=columns)
    out["shots"] = out["shots"].map(lambda v: "" if v == "" else int(v))
    notes = (
        (
            "one row per generation (its key and data) and scorer; logs: files that hold it (a generation log and "
            "its judged copies, reruns), log: the file read"
        ),
        (
            "unscored: a score of NaN (the judge's reply had no readable score) - excluded from means, not 0; "
            "refused: a value no judge or scorer can give (outside 0-5, not correct/incorrect), never averaged; "
            "errors: samples without this score (the sample failed); truncated: replies cut at the token limit "
            "(stop reason max_tokens or model_length); incomplete: a log that did not finish"
        ),
    )
    counted = ("logs", "samples", *JUDGEMENT_COUNTS)
    return Table(
        "counts", "Scored, unscored and failed samples", out, decimals=0, notes=notes, counts=counted
    )


def _by_generation(
    rows: pd.DataFrame, judges: Sequence[JudgeKey]
) -> list[tuple[str, pd.DataFrame, JudgeKey]]:
    if rows.empty:
        return []
    groups = [
        (str(g), frame, judge)
        for judge in judges
        for g, frame in latest(select(rows, judge), ["generation", "judge", "judge_model"]).groupby(
            "generation", sort=False
        )
    ]

    def order(item: tuple[str, pd.DataFrame, JudgeKey]) -> tuple[object, ...]:
        first = item[1].iloc[0]
        model, prompt = str(first["model"]), rank_in(str(first["prompt"]), PROMPT_ORDER)
        return (model.lower(), model, prompt, str(first["data"]), item[0], item[2].label)

    return sorted(groups, key=order)


def _counts(group: pd.DataFrame) -> dict[str, object]:
    present = group[~group["error"]]
    return {
        "n": int(present.loc[present["value"].notna(), "id"].nunique()),
        "epochs": int(group["epoch"].nunique()),
        **judgement_counts(group),
    }


def _truncated_note(
    wide: list[dict[str, object]], groups: list[tuple[str, pd.DataFrame, JudgeKey]]
) -> tuple[str, ...]:
    """The share of judged explanations cut at the token limit, when there is any."""
    cut = sum(int(str(record["truncated"])) for record in wide)
    judged = sum(int((~group["error"]).sum()) for _, group, _ in groups)
    if not cut or not judged:
        return ()
    return (
        f"truncated: {cut} of {judged} judged explanations ({100 * cut / judged:.0f} %) were cut at the token "
        "limit; their scores judge a part of what the model meant to write",
    )


def _incomplete(group: pd.DataFrame) -> bool:
    # errors: samples that failed (a refused value is counted apart, not as a failure)
    return bool((group["status"] != "success").any() or judgement_counts(group)["errors"])


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


def _sort_key(column: pd.Series) -> pd.Series:
    if column.name == "model":
        return column.astype(str).str.lower() + "\x00" + column.astype(str)
    if column.name == "data":
        return column.astype(str)
    return column.fillna(-1)
