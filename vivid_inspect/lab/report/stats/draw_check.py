"""Were a human file's items a plausible uniform draw from their generation? The corrected means assume so.

The prediction-powered mean (`vivid_inspect.lab.report.stats.ppi`) is unbiased only when the labelled
items are a uniform random draw within the generation (``vivid annotate export`` and ``serve``
draw them so, stratified by theme, and say so in the record beside the file). A hand-made file
says nothing; a file whose items were picked (the first 200 ids, the items the judge scored
highest, one theme) gives a corrected mean of the picked items, not of the generation.

Three tests of the labelled items against the rest, each a two-sided test whose p-value is compared
with `LEVEL` divided by three (Bonferroni): the judge's scores (Mann-Whitney U: items chosen
by how the judge scored them), the items' positions in the generation's id order (Mann-Whitney U:
the first or last ids), and the themes (chi-square of a contingency table: one theme over-drawn).
A uniform draw raises a warning in about 0.1 % of files (``bench/coverage_ppi.py`` measures it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

LEVEL = 0.001
"""Overall false-alarm rate of the three tests on a uniform draw."""
EXPORTED = "drawn by `vivid annotate export`/`serve`: uniform within the generation, stratified by theme (seed {seed})"
POOLED = (
    "drawn by `vivid annotate serve --generations`: uniform within the generation (the next items of one seeded "
    "random order of its items), how many by Neyman allocation after a first batch (seed {seed})"
)
ASSUMED = (
    "the file does not say how its items were chosen (no record from `vivid annotate export`/`serve`): they are "
    "assumed to be a uniform random draw within the generation"
)


@dataclass(frozen=True)
class DrawCheck:
    """What is known and tested of how a human file's items were drawn.

    Attributes:
        drawn: How the items were drawn, from the record, or the assumption made.
        warnings: Each test the draw failed, in words (empty: plausible).
        p_values: Each test's p-value, by name (``judge``, ``position``, ``theme``).
    """

    drawn: str
    warnings: tuple[str, ...]
    p_values: dict[str, float]


def how_drawn(record: Mapping[str, object] | None) -> str:
    """How the record beside a human file says its items were drawn, or the assumption (`ASSUMED`).

    Args:
        record: The generation record beside the file (export and serve write ``sheet_ids`` and
            ``seed``, import keeps ``seed`` and lists the ``sheets``), or None.
    """
    if record is not None and record.get("pool") and record.get("seed") is not None:
        return POOLED.format(seed=record.get("seed"))
    drawn = record is not None and (record.get("sheet_ids") is not None or record.get("sheets") is not None)
    if record is not None and drawn and record.get("seed") is not None:
        return EXPORTED.format(seed=record.get("seed"))
    return ASSUMED


def check_draw(
    ids: Sequence[Any],
    judge: Mapping[Any, float],
    themes: Mapping[Any, str],
    labelled: Sequence[Any],
    *,
    drawn: str = ASSUMED,
    level: float = LEVEL,
) -> DrawCheck:
    """Test whether ``labelled`` is a plausible uniform draw from ``ids``.

    Args:
        ids: The generation's items, in id order.
        judge: The judge's score of each item it scored.
        themes: Each item's theme.
        labelled: The items the humans scored.
        drawn: What the record says of the draw (`how_drawn`).
        level: The overall false-alarm rate.

    Returns:
        The check; no test runs with fewer than 5 items on either side.
    """
    chosen = set(labelled) & set(ids)
    rest = [i for i in ids if i not in chosen]
    picked = [i for i in ids if i in chosen]
    p_values: dict[str, float] = {}
    warnings: list[str] = []
    if len(picked) < 5 or len(rest) < 5:
        return DrawCheck(drawn, (), p_values)
    each = level / 3
    scored_in, scored_out = [judge[i] for i in picked if i in judge], [judge[i] for i in rest if i in judge]
    if len(scored_in) >= 5 and len(scored_out) >= 5 and len(set(scored_in) | set(scored_out)) > 1:
        p_values["judge"] = float(stats.mannwhitneyu(scored_in, scored_out, alternative="two-sided").pvalue)
        if p_values["judge"] < each:
            higher = "higher" if np.mean(scored_in) > np.mean(scored_out) else "lower"
            warnings.append(
                f"the judge scored the labelled items {higher} than the rest (mean {np.mean(scored_in):.2f} against "
                f"{np.mean(scored_out):.2f}, Mann-Whitney p = {p_values['judge']:.2g}): they look chosen by score"
            )
    position = {item: index for index, item in enumerate(ids)}
    p_values["position"] = float(
        stats.mannwhitneyu(
            [position[i] for i in picked], [position[i] for i in rest], alternative="two-sided"
        ).pvalue
    )
    if p_values["position"] < each:
        warnings.append(
            f"the labelled items sit {'early' if np.mean([position[i] for i in picked]) < len(ids) / 2 else 'late'} in "
            f"the generation's id order (Mann-Whitney p = {p_values['position']:.2g}): they look like a run of ids"
        )
    names = sorted({themes.get(i, "") for i in ids})
    if len(names) > 1:
        table = np.array(
            [[sum(themes.get(i, "") == t for i in group) for t in names] for group in (picked, rest)]
        )
        table = table[:, table.sum(axis=0) > 0]
        if table.shape[1] > 1:
            p_values["theme"] = float(stats.chi2_contingency(table).pvalue)
            if p_values["theme"] < each:
                warnings.append(
                    f"the labelled items' themes are not in the generation's proportions (chi-square p = "
                    f"{p_values['theme']:.2g})"
                )
    if warnings:
        warnings.append(
            "the corrected means assume a uniform random draw within the generation; with items chosen otherwise "
            "they are means of the chosen items"
        )
    return DrawCheck(drawn, tuple(warnings), p_values)
