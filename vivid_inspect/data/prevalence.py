"""Evidence for the code order of the labels: each code's prevalence against the paper's figures.

The release's CSV holds codes, not names, and the paper is inconsistent about the trait order
(§5.1.1 lists literal, uncommon, Sino-Vietnamese, folk, pragmatic; Table 4's columns put
Sino-Vietnamese before uncommon). The paper also publishes how often each label occurs, which tells
the codes apart on the real file: the assignment of names to codes whose prevalences best fit those
figures is the evidence that [`vivid_inspect.taxonomy`][vivid_inspect.taxonomy] is right, or that it must change.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from vivid_inspect.data.csv_format import THEME_COLUMN, TRAIT_COLUMNS, VividItem
from vivid_inspect.taxonomy import THEME_BY_CODE, TRAIT_BY_CODE

logger = logging.getLogger(__name__)

PAPER_TRAIT_PREVALENCE: dict[str, float] = {
    "Pragmatic nuance": 46.9,
    "Uncommon vocabulary": 46.1,
    "Sino-Vietnamese": 40.2,
    "Folk knowledge": 18.9,
    "Literal": 16.5,
}
"""Share of items (%) with each trait, as the paper reports it, by the trait's name in taxonomy.py."""

PAPER_THEME_PREVALENCE: dict[str, float] = {
    "Criticism": 28.8,
    "Life Lessons": 24.4,
    "Work and Nature": 16.6,
    "Other": 10.5,
    "Social Relationships": 9.5,
    "Love": 7.0,
    "Virtues": 3.1,
}
"""Share of items (%) in each theme, as the paper reports it, by the theme's name in taxonomy.py."""

MIN_ROWS = 500
"""Fewer rows cannot tell the codes apart: sampling noise exceeds the gaps between the figures."""

TIE_TOLERANCE = 0.1
"""Total absolute difference (points) under which taxonomy.py's assignment counts as a best fit.

The paper's figures are rounded to 0.1, and a file whose codes cannot be told apart (two codes
with the same share) has several optimal assignments: neither is evidence against the mapping.
"""

UNLIKE_PAPER = 5.0
"""A best fit with a code this far (points) from the paper means the file is not like the release."""

Kind = Literal["traits", "themes"]


@dataclass(frozen=True)
class CodeFit:
    """One code of one label map: what the data says and which name fits it best.

    Attributes:
        code: The code in the CSV (trait column suffix or theme value).
        column: Where the code lives in the CSV, for messages.
        observed: Share of rows (%) with the code.
        mapped: The name [`vivid_inspect.taxonomy`][vivid_inspect.taxonomy] gives the code.
        best: The name the optimal assignment gives the code.
    """

    code: int
    column: str
    observed: float
    mapped: str
    best: str


@dataclass(frozen=True)
class MapFit:
    """The prevalence evidence for one label map (traits or themes).

    Attributes:
        kind: ``traits`` or ``themes``.
        codes: One entry per code, in code order.
        paper: The paper's prevalence (%) by name.
    """

    kind: Kind
    codes: tuple[CodeFit, ...]
    paper: Mapping[str, float]

    @property
    def agrees(self) -> bool:
        """True when the best-fitting assignment is the one in taxonomy.py."""
        return all(fit.mapped == fit.best for fit in self.codes)

    @property
    def largest_gap(self) -> float:
        """Largest distance (points) between a code's share and the paper's figure for its best fit."""
        return max(abs(self.gap(fit.best, fit)) for fit in self.codes)

    @property
    def differing(self) -> tuple[CodeFit, ...]:
        """The codes whose best-fitting name is not their name in taxonomy.py."""
        return tuple(fit for fit in self.codes if fit.mapped != fit.best)

    def gap(self, name: str, fit: CodeFit) -> float:
        """Observed share of ``fit``'s code minus the paper's figure for ``name`` (points)."""
        return fit.observed - self.paper[name]


def prevalences(items: Sequence[VividItem], kind: Kind) -> dict[int, float]:
    """Share of rows (%) carrying each code of one label map.

    Args:
        items: Validated rows.
        kind: ``traits`` (a row may carry several) or ``themes`` (exactly one each).

    Returns:
        Percentage by code, for every code of the map (0 for a code no row carries).
    """
    codes = TRAIT_BY_CODE if kind == "traits" else THEME_BY_CODE
    counts = dict.fromkeys(codes, 0)
    for item in items:
        for code in item.trait_ids if kind == "traits" else (item.theme_id,):
            counts[code] += 1
    total = len(items) or 1
    return {code: 100.0 * count / total for code, count in counts.items()}


def best_assignment(observed: Mapping[int, float], paper: Mapping[str, float]) -> dict[int, str]:
    """The one-to-one assignment of names to codes with the least total absolute difference.

    Args:
        observed: Prevalence (%) by code.
        paper: Prevalence (%) by name; as many names as codes.

    Returns:
        The name assigned to each code.
    """
    # Imported here: scipy takes a while to import and only full-size loads need it.
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    codes, names = list(observed), list(paper)
    cost = np.abs(np.array([[observed[code] - paper[name] for name in names] for code in codes]))
    rows, columns = linear_sum_assignment(cost)
    return {codes[row]: names[column] for row, column in zip(rows, columns, strict=True)}


def fit_map(items: Sequence[VividItem], kind: Kind) -> MapFit:
    """Compare one label map's prevalences with the paper and find the best-fitting assignment.

    Args:
        items: Validated rows.
        kind: ``traits`` or ``themes``.

    Returns:
        The evidence for that map.
    """
    labels = TRAIT_BY_CODE if kind == "traits" else THEME_BY_CODE
    paper = PAPER_TRAIT_PREVALENCE if kind == "traits" else PAPER_THEME_PREVALENCE
    observed = prevalences(items, kind)
    mapped = {code: label.name for code, label in labels.items()}
    # No assignment costs less than each code's nearest paper figure. When taxonomy.py's mapping is
    # within the tie tolerance of that floor it is a best fit (below), so the solver and scipy's
    # import (~0.4 s of CPU on every full-size load) are skipped.
    mapped_cost = sum(abs(observed[code] - paper[mapped[code]]) for code in observed)
    floor = sum(min(abs(observed[code] - figure) for figure in paper.values()) for code in observed)
    best = mapped if mapped_cost - floor <= TIE_TOLERANCE else best_assignment(observed, paper)
    cost = {
        name: sum(abs(observed[code] - paper[assignment[code]]) for code in observed)
        for name, assignment in (("best", best), ("mapped", mapped))
    }
    if cost["mapped"] - cost["best"] <= TIE_TOLERANCE:
        best = mapped
    columns = dict(zip(TRAIT_BY_CODE, TRAIT_COLUMNS, strict=True)) if kind == "traits" else {}
    fits = tuple(
        CodeFit(
            code=code,
            column=columns.get(code, f"{THEME_COLUMN}={code}"),
            observed=observed[code],
            mapped=mapped[code],
            best=best[code],
        )
        for code in labels
    )
    return MapFit(kind, fits, paper)


def warn_if_contradicted(items: Sequence[VividItem], source: str, hint: str) -> list[MapFit]:
    """Log one warning when a full-size source's prevalences contradict taxonomy.py.

    Args:
        items: The source's rows; sources under `MIN_ROWS` rows are not judged.
        source: Printable name of the source.
        hint: The command that shows the evidence.

    Returns:
        The label maps whose best-fitting assignment differs from taxonomy.py (empty when none
        does, or when the source is too small to tell).
    """
    if len(items) < MIN_ROWS:
        return []
    contradicted = [fit for fit in (fit_map(items, "traits"), fit_map(items, "themes")) if not fit.agrees]
    if contradicted:
        details = "; ".join(
            f"{fit.kind}: "
            + ", ".join(f"code {c.code} fits {c.best!r}, not {c.mapped!r}" for c in fit.differing)
            for fit in contradicted
        )
        logger.warning(
            "%s: the label prevalences fit another code order than vivid_inspect/taxonomy.py (%s); "
            "scores per trait or theme may carry the wrong names. `%s` shows the evidence.",
            source,
            details,
            hint,
        )
    return contradicted
