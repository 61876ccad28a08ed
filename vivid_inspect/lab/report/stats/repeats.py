"""Repeated judgements of the same explanations: which one the tables use, which ones count as fresh.

A judge judges the same explanations again with ``repeats: k`` in a spec, or by hand with
``inspect score LOG --scorer vivid_inspect/judge -S repeat=r --output-file ...``. Each score then
records ``repeat`` (which judgement, from 0) and ``cached`` (whether Inspect's cache replayed the
reply). Each repeat's replies are cached apart, so a cached reply of repeat r can only be repeat
r's own earlier reply.

- The tables other than self-consistency use one judgement per item: the judge's first repeat
  (`first_repeat`).
- Self-consistency compares repeats only when each is a fresh judgement of its own
  (`consistency_runs`): per repeat and item, a reply that was a fresh call; failing that,
  a reply of that repeat replayed from the cache (its judged log was redone: the reply is still
  that repeat's own call). A second judgement labelled with the same repeat (a cache replay of
  it, or a rerun of ``inspect score`` without a new ``-S repeat``) is excluded and counted.

Logs written before scores recorded ``repeat`` and ``cached`` are grouped as before, by
generation log (each repeated log one run), and the table says their agreement may be a replay.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field

import pandas as pd

GROUP = ("_source", "judge", "judge_model")
"""Columns that identify one judge on one set of explanations (see `with_source`)."""
EMPTY_ANSWER = "empty_answer"


def with_source(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows with ``_source``: which explanations a score judged.

    A log and its rescored copies share Inspect's eval id: the run of the generation (column
    ``run``), which groups them. Rows without a run that record their repeat are grouped by eval
    id; rows that record neither keep the old grouping, by generation.
    """
    recorded = rows["repeat"].notna() & rows["eval_id"].notna() & (rows["eval_id"].astype(str) != "")
    source = rows["generation"].astype(str).where(~recorded, "eval:" + rows["eval_id"].astype(str))
    if "run" in rows.columns:
        # The run of a generation is its eval id, kept by every copy (or recorded by the runner's).
        run = rows["run"].astype(object).where(rows["run"].notna() & (rows["run"].astype(str) != ""), None)
        source = ("run:" + rows["generation"].astype(str) + "/" + run.astype(str)).where(run.notna(), source)
    return rows.assign(_source=source)


def first_repeat(rows: pd.DataFrame) -> pd.DataFrame:
    """Only the first repeat of each judge on each set of explanations.

    Args:
        rows: Judge rows (`vivid_inspect.lab.report.tables.judges.judge_rows`).

    Returns:
        The rows whose repeat is the lowest of their judge and explanations (a score that does
        not record its repeat counts as repeat 0), in their original order.
    """
    if rows.empty:
        return rows
    sourced = with_source(rows)
    repeat = sourced["repeat"].fillna(0)
    lowest = repeat.groupby([sourced[c] for c in GROUP], dropna=False).transform("min")
    return rows[(repeat == lowest).to_numpy()]


@dataclass(frozen=True)
class RepeatRuns:
    """The runs of one judge on one set of explanations that self-consistency compares.

    Attributes:
        source: ``repeats`` (recorded, fresh repeats), ``repeated logs`` (logs that record no
            repeat) or ``epochs`` (one run whose epochs re-generated the explanations).
        runs: One score map per run, keyed by item (``(id, epoch)``, or ``id`` across epochs).
        excluded: Scores left out because they were not a fresh judgement of their own repeat.
        temperatures: Temperatures the runs' judge calls used (empty when not recorded).
        notes: What was left out and why, and caveats of the source.
    """

    source: str
    runs: list[dict[Hashable, float]]
    excluded: int = 0
    temperatures: tuple[float, ...] = ()
    notes: list[str] = field(default_factory=list)


def consistency_runs(group: pd.DataFrame) -> RepeatRuns | None:
    """The runs to compare for one judge on one set of explanations.

    Args:
        group: The judge's rows on one ``_source`` (see `with_source`).

    Returns:
        The runs (possibly a single one, when repeated judgements were all excluded), or None
        when the judge judged these explanations once.
    """
    if group["repeat"].notna().all():
        return _recorded_runs(group)
    return _unrecorded_runs(group)


def _recorded_runs(group: pd.DataFrame) -> RepeatRuns | None:
    notes: list[str] = []
    present = group[~group["error"]]
    empty = present["parse_status"] == EMPTY_ANSWER
    if empty.any():
        # Scored 0 without a judge call: every repeat agrees by construction.
        items = present.loc[empty, ["id", "epoch"]].drop_duplicates().shape[0]
        notes.append(f"{items} empty explanation(s) left out: scored 0 without a judge call")
    present = present[~empty]
    chosen, replays, duplicates = _one_per_repeat_and_item(present)
    excluded = replays + duplicates
    if replays:
        notes.append(
            f"{replays} score(s) excluded: Inspect's cache replayed a reply of the same repeat that another log holds "
            "(give each judgement its own repeat: `-S repeat=r`)"
        )
    if duplicates:
        notes.append(
            f"{duplicates} score(s) excluded: a further fresh judgement labelled with an already counted repeat"
        )
    replayed = int((chosen["cached"] == 1).sum())
    if replayed:
        notes.append(
            f"{replayed} counted score(s) are their own repeat's replies replayed from Inspect's cache (the "
            "same judgement made before: a judged log redone, or the same explanations judged elsewhere)"
        )
    repeats = sorted(int(r) for r in chosen["repeat"].unique())
    temperatures = _temperatures(chosen)
    if len(repeats) >= 2:
        runs = [_score_map(chosen[chosen["repeat"] == r], ["id", "epoch"]) for r in repeats]
        return RepeatRuns("repeats", runs, excluded, temperatures, notes)
    epochs = sorted(chosen["epoch"].unique())
    if len(epochs) > 1:
        notes.insert(0, _EPOCHS_NOTE)
        runs = [_score_map(chosen[chosen["epoch"] == e], ["id"]) for e in epochs]
        return RepeatRuns("epochs", runs, excluded, temperatures, notes)
    if excluded:
        return RepeatRuns("repeats", [_score_map(chosen, ["id", "epoch"])], excluded, temperatures, notes)
    return None


def _one_per_repeat_and_item(rows: pd.DataFrame) -> tuple[pd.DataFrame, int, int]:
    """Per (repeat, id, epoch), one score: a fresh one (the earliest), else a replay of its own repeat.

    Returns:
        The chosen rows, the replays left out and the further fresh judgements left out.
    """
    if rows.empty:
        return rows, 0, 0
    # A score that records its repeat but not the cache is taken as fresh: it cannot be told apart.
    fresh = rows["cached"] != 1
    ranked = rows.assign(_fresh=fresh).sort_values(
        ["_fresh", "created", "log"], ascending=[False, True, True], kind="stable"
    )
    keys = ["repeat", "id", "epoch"]
    chosen = ranked.drop_duplicates(subset=keys, keep="first")
    left_out = ranked.drop(index=chosen.index)
    replays = int((~left_out["_fresh"]).sum())
    return chosen.drop(columns="_fresh"), replays, len(left_out) - replays


def _unrecorded_runs(group: pd.DataFrame) -> RepeatRuns | None:
    logs = sorted(group["log"].unique())
    if len(logs) > 1:
        runs = [_score_map(group[group["log"] == log], ["id", "epoch"]) for log in logs]
        note = (
            "these logs do not record whether Inspect's cache replayed a reply (written before repeats were "
            "recorded): a repeat may be a replay of the first and agree by construction; judge again with "
            "`repeats:` in a spec or `-S repeat=r`"
        )
        return RepeatRuns("repeated logs", runs, notes=[note])
    epochs = sorted(group["epoch"].unique())
    if len(epochs) > 1:
        runs = [_score_map(group[group["epoch"] == e], ["id"]) for e in epochs]
        return RepeatRuns("epochs", runs, notes=[_EPOCHS_NOTE])
    return None


_EPOCHS_NOTE = "epochs re-generate the explanation too, so this mixes generation and judge variation"


def _temperatures(rows: pd.DataFrame) -> tuple[float, ...]:
    found: set[float] = set()
    for value in rows["judge_temperature"].dropna():
        found.update(float(v) for v in (value if isinstance(value, list) else [value]))
    return tuple(sorted(found))


def _score_map(rows: pd.DataFrame, keys: list[str]) -> dict[Hashable, float]:
    rows = rows[~rows["error"]]
    ids = list(zip(*(rows[k] for k in keys), strict=True)) if len(keys) > 1 else list(rows[keys[0]])
    return dict(zip(ids, rows["value"].astype(float), strict=True))
