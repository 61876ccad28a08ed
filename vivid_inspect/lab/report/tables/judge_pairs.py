"""Judge against judge: strategy differences with paired intervals, and agreement between two judges.

The strategy differences (kappa with the humans and mean score, A minus B) are computed on the
reliability generation's items the humans scored; the judge pairs on every item both judges
scored, across generations. Two judges whose scores are identical item for item are one function
of the text under two names: their pair says so instead of reporting a kappa of 1 as agreement,
and their difference gets no interval.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Hashable

import pandas as pd

from vivid_inspect.lab.report.stats.agreement import agreement, paired_difference
from vivid_inspect.lab.report.tables.judges import judge_keys, latest
from vivid_inspect.lab.report.tables.reliability_rows import generation_rows, judge_scores
from vivid_inspect.lab.report.tables.render import Table, interval_columns
from vivid_inspect.lab.report.tables.table1 import interval_cell, same_scores

_DIFFERENCE_COLUMNS = [
    "judge_a",
    "judge_b",
    "n",
    "kappa_a",
    "kappa_b",
    *interval_columns("kappa_diff"),
    "mean_a",
    "mean_b",
    *interval_columns("mean_diff"),
    "notes",
]
_PAIR_COLUMNS = [
    "judge_a",
    "judge_b",
    "n",
    *interval_columns("kappa"),
    "weighted_kappa",
    "spearman",
    "exact",
    "within1",
    "mean_a",
    "mean_b",
    "same_scores",
    "notes",
]
_SAME = (
    "identical scores on every item: the same function of the text under two names, so a kappa of 1 here "
    "is not agreement and is not shown"
)
_SLOTS = re.compile(r"\b(human|judge)\b")


def judge_differences(
    rows: pd.DataFrame, human: dict[int, float], generation: str | None, has_humans: bool, n_boot: int
) -> Table:
    """Each pair of judges on the reliability generation: kappa with humans and mean, A minus B.

    Args:
        rows: Judge rows (first repeats).
        human: Mean human score per item.
        generation: The reliability generation.
        has_humans: Whether human scores were given.
        n_boot: 0 skips the paired intervals.

    Returns:
        The ``judge_differences`` table.
    """
    columns = _DIFFERENCE_COLUMNS
    mine, notes = generation_rows(rows, generation)
    records: list[dict[str, object]] = []
    keys = judge_keys(mine)
    if not has_humans:
        notes.append("needs human scores (--human FILE)")
    elif len(keys) < 2:
        notes.append(f"needs two judges on the same generation; found {len(keys)}")
    else:
        for a, b in itertools.combinations(keys, 2):
            try:
                result = paired_difference(judge_scores(mine, a), judge_scores(mine, b), human, n_boot=n_boot)
            except ValueError as error:
                records.append({"judge_a": a.label, "judge_b": b.label, "notes": f"not comparable: {error}"})
                continue
            values = {k: getattr(result, k) for k in columns[2:-1] if not k.endswith("_ci")}
            cells = {f"{k}_ci": interval_cell(result.intervals.get(k)) for k in ("kappa_diff", "mean_diff")}
            records.append(
                {"judge_a": a.label, "judge_b": b.label, **values, **cells, "notes": "; ".join(result.notes)}
            )
    title = "Judge strategy against strategy: kappa with humans and mean score, A minus B, paired 95% CI"
    frame = pd.DataFrame(records, columns=columns)
    return Table("judge_differences", title, frame, decimals=3, notes=tuple(notes), counts=("n",))


def judge_pairs(rows: pd.DataFrame, n_boot: int) -> Table:
    """Each pair of judges on the items both scored, in every generation.

    Args:
        rows: Judge rows (first repeats).
        n_boot: 0 skips the kappa interval.

    Returns:
        The ``judge_pairs`` table.
    """
    deduped = latest(rows, ["generation", "judge", "judge_model"])
    keys = judge_keys(deduped)
    records: list[dict[str, object]] = []
    other_runs: list[str] = []
    for a, b in itertools.combinations(keys, 2):
        scores_a = judge_scores(deduped, a, by_generation=True)
        scores_b = judge_scores(deduped, b, by_generation=True)
        if not set(scores_a) & set(scores_b):
            # Items (generation, run, id, epoch): a shared generation on other runs is other explanations.
            if _generations(scores_a) & _generations(scores_b):
                other_runs.append(f"{a.label} and {b.label}")
            continue
        try:
            # Judge B sits in the "human" slot: the statistics are symmetric except the means.
            result = agreement(scores_a, scores_b, n_boot=n_boot)
        except ValueError as error:
            records.append({"judge_a": a.label, "judge_b": b.label, "notes": f"not comparable: {error}"})
            continue
        shared = set(scores_a) & set(scores_b)
        if len(shared) >= 2 and same_scores(scores_a, scores_b, shared):
            records.append(
                {
                    "judge_a": a.label,
                    "judge_b": b.label,
                    "n": result.n,
                    "mean_a": result.judge_mean,
                    "mean_b": result.human_mean,
                    "same_scores": True,
                    "notes": _SAME,
                }
            )
            continue
        records.append(
            {
                "judge_a": a.label,
                "judge_b": b.label,
                **{
                    k: getattr(result, k)
                    for k in ("n", "kappa", "kappa_lo", "kappa_hi", "weighted_kappa", "spearman")
                },
                "kappa_ci": interval_cell(result.intervals.get("kappa")),
                "exact": result.exact,
                "within1": result.within1,
                "mean_a": result.judge_mean,
                "mean_b": result.human_mean,
                "notes": "; ".join(_as_judges(note) for note in result.notes),
            }
        )
    notes: tuple[str, ...] = (
        () if records else (f"needs two judges scoring the same items; found {len(keys)} judge(s)",)
    )
    if other_runs:
        notes += (
            "not paired, each having scored another run of the same generation (its latest; other "
            f"explanations): {'; '.join(other_runs)}",
        )
    title = "Judge against judge, on the items both scored (all generations)"
    return Table(
        "judge_pairs",
        title,
        pd.DataFrame(records, columns=_PAIR_COLUMNS),
        decimals=3,
        notes=notes,
        counts=("n",),
    )


def _generations(scores: dict[Hashable, float]) -> set[object]:
    """The generations of items keyed (generation, run, id, epoch)."""
    return {item[0] for item in scores if isinstance(item, tuple)}


def _as_judges(note: str) -> str:
    """Agreement notes name the two sides "judge" and "human"; here they are judges A and B."""
    return _SLOTS.sub(lambda m: "judge B" if m.group(1) == "human" else "judge A", note)
