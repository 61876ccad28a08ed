"""Few-shot minus zero-shot: the change the paper's Table 3 reads across two of its rows, with an interval.

For each model, judge and data, the few-shot generation's score minus the zero-shot one's on every
item both scored (an item's epochs averaged first), with a paired 95 % interval
(`vivid_inspect.lab.report.stats.intervals.mean_difference_interval`: the report's interval for a mean
difference of two 0-5 scores over paired items, with its rule's smallest n). Only generations of the same
task version on the same data are paired (their sample ids may differ: the items both scored
count); a model with one prompt on some data has no row for it.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from vivid_inspect.lab.report.reading.judged import Generation
from vivid_inspect.lab.report.stats.intervals import mean_difference_interval
from vivid_inspect.lab.report.tables.judges import judge_keys, select
from vivid_inspect.lab.report.tables.render import Table, interval_columns

ZERO, FEW = "zero_shot", "few_shot"
COLUMNS: tuple[str, ...] = (
    "model",
    "data",
    "judge",
    "judge_model",
    "zero_shot_generation",
    "few_shot_generation",
    "n_items",
    "zero_shot_mean",
    "few_shot_mean",
    *interval_columns("difference", text=False),
    "note",
)


def prompt_differences(rows: pd.DataFrame, generations: Mapping[str, Generation]) -> Table:
    """Few-shot minus zero-shot per model, judge and data, on the items both generations scored.

    Args:
        rows: Judge rows of explanation logs (first repeats, each judgement once).
        generations: Each generation key's generation (task version and data identity).

    Returns:
        The ``prompt_difference`` table.
    """
    records: list[dict[str, object]] = []
    for key in judge_keys(rows) if not rows.empty else []:
        mine = select(rows, key)
        mine = mine[~mine["error"] & mine["value"].notna()]
        means = mine.groupby(["generation", "id"], sort=True)["value"].mean()
        by_generation = {str(g): means.loc[g] for g in means.index.get_level_values(0).unique()}
        for zero, few in _pairs(by_generation, generations):
            both = by_generation[zero].index.intersection(by_generation[few].index)
            a, b = by_generation[zero].loc[both], by_generation[few].loc[both]
            interval = mean_difference_interval(b.to_numpy(dtype=float), a.to_numpy(dtype=float))
            generation = generations[zero]
            records.append(
                {
                    "model": generation.model,
                    "data": generation.data_label,
                    "judge": key.name,
                    "judge_model": key.model,
                    "zero_shot_generation": zero,
                    "few_shot_generation": few,
                    "n_items": interval.n,
                    "zero_shot_mean": float(a.mean()) if len(both) else None,
                    "few_shot_mean": float(b.mean()) if len(both) else None,
                    "difference": interval.estimate,
                    "difference_lo": interval.lo,
                    "difference_hi": interval.hi,
                    "note": interval.reason or "",
                }
            )
    frame = pd.DataFrame(records, columns=list(COLUMNS))
    notes: tuple[str, ...] = (
        (
            "difference: few-shot minus zero-shot mean judge score on the items both scored (an item's epochs "
            "averaged first), with a paired 95 % interval (the betting interval of the per-item differences, "
            "bounded in [-5, 5]); one row per model, judge and data"
        ),
    )
    if frame.empty:
        notes = ("no model has a zero-shot and a few-shot generation on the same data", *notes)
    title = "Few-shot minus zero-shot (paired, per model, judge and data)"
    return Table("prompt_difference", title, frame, decimals=2, notes=notes, counts=("n_items",))


def _pairs(
    by_generation: Mapping[str, pd.Series], generations: Mapping[str, Generation]
) -> list[tuple[str, str]]:
    """(zero-shot key, few-shot key) of one model, task version and data, in a stable order."""
    found = [generations[key] for key in by_generation if key in generations]

    def same(g: Generation) -> tuple[str, str, str]:
        return (g.model, g.task_version, f"sha256:{g.data_digest}" if g.data_digest else g.data)

    pairs = [
        (a.key, b.key)
        for a in found
        for b in found
        if a.prompt == ZERO and b.prompt == FEW and same(a) == same(b)
    ]
    return sorted(pairs, key=lambda p: (generations[p[0]].model.lower(), generations[p[0]].data_label, p))
