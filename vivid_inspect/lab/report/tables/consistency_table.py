"""The judge self-consistency table: the same judge run k times on the same items.

Which runs count (repeats, repeated logs or epochs; cache replays excluded) is decided in
`vivid_inspect.lab.report.stats.repeats`; the statistics are `vivid_inspect.lab.report.stats.consistency`'s.
"""

from __future__ import annotations

import pandas as pd

from vivid_inspect.lab.report.stats.consistency import self_consistency
from vivid_inspect.lab.report.stats.repeats import GROUP, RepeatRuns, consistency_runs, with_source
from vivid_inspect.lab.report.tables.render import Table, interval_columns
from vivid_inspect.lab.report.tables.table1 import interval_cell


def consistency_table(rows: pd.DataFrame) -> Table:
    """Each judge run more than once on the same items: agreement of its fresh repeats with the first.

    Args:
        rows: Judge rows, every repeat included.

    Returns:
        The ``judge_consistency`` table.
    """
    columns = [
        "judge",
        "judge_model",
        "generation",
        "runs_from",
        "runs",
        "n",
        "temperature",
        "excluded",
        *interval_columns("mean_kappa"),
        "mean_exact",
        "flip_rate",
        "notes",
    ]
    records: list[dict[str, object]] = []
    unrecorded_temperature = False
    for (_, name, model), group in with_source(rows).groupby(list(GROUP), sort=True):
        found = consistency_runs(group)
        if found is None:
            continue
        records.append(_judge_row(str(name), str(model), group, found))
        unrecorded_temperature |= not found.temperatures
    if not records:
        notes_out: tuple[str, ...] = (
            "no judge was run more than once on the same items (repeats, repeated logs or epochs)",
        )
    else:
        notes_out = _CONSISTENCY_NOTES + ((_NO_TEMPERATURE,) if unrecorded_temperature else ())
    title = "Judge self-consistency (the same judge run k times on the same items)"
    frame = pd.DataFrame(records, columns=columns)
    return Table(
        "judge_consistency", title, frame, decimals=3, notes=notes_out, counts=("runs", "n", "excluded")
    )


def _judge_row(name: str, model: str, group: pd.DataFrame, found: RepeatRuns) -> dict[str, object]:
    """One judge's row: its runs, and their agreement with the first when a fresh repeat is left."""
    first = group[group["repeat"].fillna(0) == group["repeat"].fillna(0).min()]
    record: dict[str, object] = {
        "judge": name,
        "judge_model": model,
        "generation": str(first["generation"].iloc[0]),
        "runs_from": found.source,
        "runs": len(found.runs),
        "temperature": ", ".join(f"{t:g}" for t in found.temperatures),
        "excluded": found.excluded,
    }
    notes = list(found.notes)
    if len(found.runs) < 2:
        notes.append("no fresh repeat left to compare with the first")
    else:
        result = self_consistency(found.runs)
        shown = ("n", *interval_columns("mean_kappa", text=False), "mean_exact", "flip_rate")
        record |= {name: getattr(result, name) for name in shown}
        record["mean_kappa_ci"] = interval_cell(result.interval)
        notes += result.notes
    return record | {"notes": "; ".join(notes)}


_NO_TEMPERATURE = (
    "temperature empty: the logs do not record it (not written by vivid run); the judge runs at its own "
    "temperature 0 unless its grader role sets another"
)
_CONSISTENCY_NOTES = (
    (
        "runs_from repeats: each run is one repeat (judges[].repeats in a spec, or inspect score -S repeat=r), "
        "counted only when it is a fresh judgement of its own (a reply Inspect's cache replayed from another "
        "judgement of the same repeat is excluded, column excluded)"
    ),
    (
        "repeats run at the judge's temperature (column temperature): its own 0 unless the spec's generate "
        "sets another, so at 0 they measure the provider's nondeterminism; the first repeat is the one Table 1, "
        "Tables 3 and 4, the judge pairs and the panel use"
    ),
    (
        "mean_kappa_ci: the 95% interval of mean_kappa, the mean over run pairs of each pair's kappa score "
        "interval, or why none is printed (docs/reports.md)"
    ),
)
