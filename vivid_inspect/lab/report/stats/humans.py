"""Human scores against the judge: per-item human means and the human-human ceiling.

Reading and checking a human scores file is `vivid_inspect.lab.humans.scores_file`; this module
holds what the report computes from the scores it read.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import replace

import pandas as pd

from vivid_inspect.lab.humans.scores_file import REQUIRED_COLUMNS
from vivid_inspect.lab.report.reading.judged import VIVID_SCALE, Scale, item_key
from vivid_inspect.lab.report.stats.agreement import Agreement, agreement


def human_means(df: pd.DataFrame) -> dict[int, float]:
    """Per-item human score: the mean over annotators, to compare with a judge.

    Args:
        df: Columns ``id`` and ``score`` (as from ``read_human_scores``).

    Returns:
        Item id to mean score, in ascending id order.

    Raises:
        ValueError: ``id`` or ``score`` is missing.
    """
    _require(df, REQUIRED_COLUMNS)
    means = df.groupby("id", sort=True)["score"].mean()
    # VIVID's ids are whole numbers (read_human_scores checks them), another eval's text or whole numbers.
    return {item_key(sample_id): float(mean) for sample_id, mean in means.items()}


def human_ceiling(
    annotations: pd.DataFrame, *, n_boot: int = 1000, scale: Scale = VIVID_SCALE
) -> Agreement | None:
    """Human-human agreement: the ceiling a judge can be expected to reach.

    Compares the first two annotators by sorted name on the items both scored, with the same
    statistics as a judge: the second annotator takes the judge's place (confusion-matrix columns,
    ``judge_mean``), the first the human's (rows, ``human_mean``).

    Args:
        annotations: Columns ``id``, ``score`` and ``annotator`` (as from ``read_human_scores``).
        n_boot: 0 skips the intervals; any other value computes them.
        scale: The scores' scale (`vivid_inspect.lab.report.stats.agreement.agreement`).

    Returns:
        The agreement, or ``None`` when there is no ``annotator`` column, fewer than two
        annotators, or no item that the two both scored.

    Raises:
        ValueError: ``id`` or ``score`` is missing, an annotator scored an item twice, or a score
            is not a number from 0 to 5.
    """
    _require(annotations, REQUIRED_COLUMNS)
    if "annotator" not in annotations.columns:
        return None
    names = sorted(annotations["annotator"].dropna().astype(str).unique())
    if len(names) < 2:
        return None
    first, second = names[:2]
    scores = {name: _scores_of(annotations, name) for name in (first, second)}
    if not set(scores[first]) & set(scores[second]):
        return None
    notes = [
        f"annotator {second!r} is in the judge's place (columns), annotator {first!r} in the human's (rows)"
    ]
    if len(names) > 2:
        notes.append(
            f"annotators {', '.join(map(repr, names[2:]))} left out: only the first two by name are compared"
        )
    result = agreement(scores[second], scores[first], n_boot=n_boot, scale=scale)
    return replace(result, notes=(*notes, *result.notes))


def _require(df: pd.DataFrame, columns: tuple[str, ...]) -> None:
    missing = [column for column in columns if column not in df.columns]
    if missing:
        raise ValueError(
            f"human scores lack column(s) {_quoted(missing)}; have {_quoted(list(map(str, df.columns)))}"
        )


def _scores_of(annotations: pd.DataFrame, name: str) -> dict[Hashable, float]:
    rows = annotations[annotations["annotator"].astype(str) == name]
    repeated = rows["id"][rows["id"].duplicated()]
    if not repeated.empty:
        raise ValueError(f"annotator {name!r} scored id {repeated.tolist()[0]!r} more than once")
    return dict(zip(rows["id"].tolist(), rows["score"].tolist(), strict=True))


def _quoted(names: list[str]) -> str:
    return ", ".join(repr(name) for name in names)
