"""One generation judged by one judge is counted once, however many files hold it.

A folder can hold one judgement in several files: ``inspect score LOG --action append
--output-file COPY`` leaves the original beside the judged copy (which carries the original's
judge columns too), a copy can be copied again, and ``vivid run``'s judge phase writes judged
copies beside the generation log. A generation can also be *run* more than once: a rerun of the
same cell, a retried failed eval, two specs sharing a log folder. Read naively, each file adds
its samples again (a generation's counts doubled, self-consistency comparing a judgement with its
own copy, a judge pair agreeing with itself).

The rule, in two steps:

1. Copies. Within one run of a generation (a log and its copies keep Inspect's eval id), each
   judgement (a judge and model, or a classification scorer; each repeat of a judge apart) is
   read from one file: the latest written (its zip's ``header.json`` time, then its modification
   time), a finished log before an unfinished one.
2. Runs. For each generation key and judge, one run: the latest complete one (a finished run
   over an unfinished one, then the newest by creation). A judge that scored only an older run
   keeps that run, so no judge is lost for not having judged the newest.

Which file was read, and which were set aside, is said in `CountedOnce.notes`.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

WHO = "_who"
SHOWN = 10
"""Notes listed in full; the others are counted."""


@dataclass(frozen=True)
class CountedOnce:
    """The score rows with each judgement once.

    Attributes:
        scores: One run per (generation, judge), one file per judgement of it: what every
            table reads. Column ``held_by`` counts the files that held the judgement.
        runs: One file per judgement and run (step 1 only): every run of a generation, for a
            human scores file drawn from an older run.
        notes: Which file was read where several held one judgement, one line each.
    """

    scores: pd.DataFrame
    runs: pd.DataFrame
    notes: tuple[str, ...] = ()


def who(rows: pd.DataFrame) -> pd.Series:
    """What made each score: ``judge NAME [MODEL]``, or ``scorer NAME`` for a classification scorer."""
    judge = rows["judge"]
    model = rows["judge_model"].astype(object).where(rows["judge_model"].notna(), "").astype(str)
    named = "judge " + judge.astype(str) + (" [" + model + "]").where(model != "", "")
    return named.where(judge.notna(), "scorer " + rows["scorer"].astype(str))


def counted_once(scores: pd.DataFrame) -> CountedOnce:
    """Each judgement of each generation once (see the module docstring).

    Args:
        scores: Score rows of every log read (`vivid_inspect.lab.report.reading.score_rows.SCORE_COLUMNS`).

    Returns:
        The rows the tables read, every run's rows, and the notes.
    """
    if scores.empty:
        empty = scores.assign(held_by=pd.Series(dtype="Int64"))
        return CountedOnce(empty, empty)
    frame = scores.assign(
        **{
            WHO: who(scores),
            "_repeat": scores["repeat"].fillna(-1.0),
            "_ok": scores["status"] == "success",
            "_written": scores["written"].fillna("").astype(str),
        }
    )
    judgement = ["task", "generation", WHO, "_repeat"]
    files = _one_file_per_run(frame, [*judgement, "run"])
    runs = frame.merge(files[[*judgement, "run", "log"]], on=[*judgement, "run", "log"], how="inner")
    held = frame.groupby(judgement, dropna=False)["log"].nunique().rename("held_by")
    chosen = _one_run(runs, ["task", "generation", WHO])
    once = runs.merge(chosen, on=["task", "generation", WHO, "run"], how="inner")
    once = once.merge(held.reset_index(), on=judgement, how="left")
    notes = _notes(frame, files, chosen)
    return CountedOnce(_tidy(once, scores), _tidy(runs, scores), notes)


def _one_file_per_run(frame: pd.DataFrame, group: list[str]) -> pd.DataFrame:
    """Per judgement and run, the file read: finished first, then the latest written, then by name."""
    per_file = frame.drop_duplicates([*group, "log"])[[*group, "log", "_ok", "_written"]]
    ranked = per_file.sort_values(["_ok", "_written", "log"], kind="stable")
    return ranked.drop_duplicates(group, keep="last")


def _one_run(runs: pd.DataFrame, group: list[str]) -> pd.DataFrame:
    """Per generation and judge, the run read: a finished run first, then the newest created."""
    per_run = (
        runs.groupby([*group, "run"], dropna=False)
        .agg(_ok=("_ok", "max"), _created=("created", "max"), _written=("_written", "max"))
        .reset_index()
    )
    ranked = per_run.sort_values(["_ok", "_created", "_written", "run"], kind="stable")
    return ranked.drop_duplicates(group, keep="last")[[*group, "run"]]


def _tidy(rows: pd.DataFrame, like: pd.DataFrame) -> pd.DataFrame:
    """The rows in the input's column order and row order, helper columns dropped."""
    columns = [*like.columns, *(["held_by"] if "held_by" in rows.columns else [])]
    out = rows[columns].copy()
    # Only the columns a merge changed: astype copies every column it is given (~0.1 s a report).
    changed = {c: like[c].dtype for c in like.columns if c in out.columns and out[c].dtype != like[c].dtype}
    return out.astype(changed, errors="ignore")


def _notes(frame: pd.DataFrame, files: pd.DataFrame, chosen: pd.DataFrame) -> tuple[str, ...]:
    """One line per set of files read and set aside, naming the judgements they held."""
    judgement = ["task", "generation", WHO]
    holders = frame.drop_duplicates([*judgement, "log"])
    read = files.merge(chosen, on=[*judgement, "run"], how="inner")
    read_logs = read.groupby(judgement, dropna=False)["log"].agg(lambda logs: sorted(set(logs)))
    lines: dict[tuple[str, str, str], list[str]] = {}
    for values, group in holders.groupby(judgement, sort=True, dropna=False):
        if group["log"].nunique() < 2:
            continue
        kept = read_logs.get(values, [])
        kept_runs = set(group.loc[group["log"].isin(kept), "run"])
        aside = group[~group["log"].isin(kept)].sort_values("log")
        reasons = sorted(
            {
                "an older or unfinished run" if run not in kept_runs else "written earlier"
                for run in aside["run"]
            }
        )
        first = group.iloc[0]
        maker = str(values[2]).removeprefix("judge ").removeprefix("scorer ")
        what = " ".join(str(v) for v in (first["model"], first["prompt"]) if v is not None and not pd.isna(v))
        key = (", ".join(kept), ", ".join(aside["log"]), " / ".join(reasons))
        lines.setdefault(key, []).append(f"{maker} on {values[1]} ({what}, {first['data']})")
    notes = [
        f"counted once: {'; '.join(whats)}: read {kept}; set aside {aside} ({reasons})"
        for (kept, aside, reasons), whats in lines.items()
    ]
    if len(notes) > SHOWN:
        notes = [
            *notes[:SHOWN],
            f"counted once: {len(notes) - SHOWN} more set(s) of files holding one judgement",
        ]
    return tuple(notes)
