"""The contract between a log's adapter and the laboratory: one judged item of a generation.

An adapter turns a log into score rows (`vivid_inspect.lab.report.reading.score_rows.SCORE_COLUMNS`);
every statistic, table and card reads only the columns named here, whatever wrote the log.
Two adapters fill them: VIVID's (its own tasks) and the generic one (any other Inspect log).

- ``generation``: the generation's key (what was generated, by which model, from which data):
  `Generation`'s ``key``, the one identity both adapters build and the floors above may name;
- ``id``: the item's id, text or a whole number as Inspect recorded it (whole numbers keep their
  numeric order); ``epoch``: from 1;
- ``judge`` and ``judge_model``: the judge's identity (``judge`` None: the row is not a judgement);
- ``value``: the judge's score as a number, or NaN with why there is none: ``unscored`` (the
  judge replied with no readable score), ``refused`` (a value no judge of this scale gives),
  ``error`` (no judgement: the sample failed, or the value was refused), ``truncated`` (the
  judged answer was cut at the token limit: kept and judged, counted apart);
- ``scale``: the judge's `Scale` as its adapter declared it, or None: a range nobody declared
  is taken from the values seen (the judge's and the humans'), and the report says so (`scale_of`);
- ``theme`` and ``traits``: optional group labels of the item (one group, and several), and
  ``group:KEY`` for each sample metadata key a user names (a tuple of labels, `any_eval.group_rows`).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Any

import pandas as pd

from vivid_inspect.generation_key import Generation as Generation

ITEM_COLUMNS = ("generation", "id", "epoch")
JUDGEMENT_COLUMNS = ("judge", "judge_model", "value", "unscored", "refused", "error", "truncated", "scale")
GROUP_COLUMNS = ("theme", "traits")
JUDGED_COLUMNS: tuple[str, ...] = (*ITEM_COLUMNS, *JUDGEMENT_COLUMNS, *GROUP_COLUMNS)
"""The score-row columns the laboratory reads of a judged item (the contract)."""
JUDGEMENT_COUNTS = ("scored", "unscored", "refused", "errors", "truncated")
"""The keys of `judgement_counts`, in the order the tables show them."""

LETTERS = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}
"""Inspect's score letters as ``inspect_ai.scorer.value_to_float`` maps them."""


@dataclass(frozen=True)
class Scale:
    """The scores a judge can give.

    Attributes:
        low: The lowest score.
        high: The highest score.
        ordinal: Whether the scores are ordered levels (agreement in the κ family is defined
            only then); declared, never guessed.
        declared: Whether an adapter or the user declared the range (False: taken from the
            values seen).
    """

    low: float
    high: float
    ordinal: bool = False
    declared: bool = True

    @property
    def label(self) -> str:
        """``0-5``: the range as a table title says it."""
        return f"{self.low:g}-{self.high:g}"

    def note(self) -> str | None:
        """What the report says of a range nobody declared (None for a declared one)."""
        if self.declared:
            return None
        return (
            f"scale {self.label}: taken from the values seen (the judge's and the humans'), "
            "not declared; not treated as ordinal levels"
        )


VIVID_SCALE = Scale(0.0, 5.0, ordinal=True)
"""VIVID's judges: whole scores from 0 to 5 (a panel's mean of them)."""
LETTER_SCALE = Scale(0.0, 1.0, ordinal=True)
"""Inspect's letters C/P/I/N, mapped to 1, 0.5 and 0."""


def item_key(value: Hashable) -> Any:
    """An item id as the laboratory keys it: a whole number written as text is that number, other text as is.

    Typed ``Any``: the statistics key items by VIVID's whole numbers (``Mapping[int, float]``), and
    hold another eval's text ids the same way.
    """
    text = str(value)
    return int(text) if text.isdecimal() and str(int(text)) == text else value


def judgement_counts(rows: pd.DataFrame) -> dict[str, int]:
    """Judgements (item x epoch) scored, unscored (no readable score), refused, failed (no score) and truncated.

    A refused value counts as refused, not as an error; ``refused`` and ``truncated`` count none
    where the rows do not record them.
    """
    present = rows[~rows["error"]]
    refused = rows["refused"].eq(True) if "refused" in rows.columns else pd.Series(False, index=rows.index)
    return {
        "scored": int(present["value"].notna().sum()),
        "unscored": int(present["value"].isna().sum()),
        "refused": int(refused.sum()),
        "errors": int((rows["error"] & ~refused).sum()),
        "truncated": int(present["truncated"].eq(True).sum()) if "truncated" in rows.columns else 0,
    }


def scale_of(rows: pd.DataFrame, others: Iterable[float] = ()) -> Scale:
    """The scale of one judge's rows: the declared one, else the range of the values seen.

    Args:
        rows: Score rows of one judge (a ``scale`` and a ``value`` column).
        others: More scores of the same items (the humans'), seen when the range is not declared.

    Returns:
        The first scale declared in the rows, or one from the smallest to the largest value seen
        (``declared`` False; 0-1 when nothing was seen, one point above a single value seen, so
        that a share of the range is defined).
    """
    declared = next((s for s in rows["scale"] if isinstance(s, Scale)), None) if "scale" in rows else None
    if declared is not None:
        return declared
    seen = [v for v in (*rows["value"].tolist(), *others) if v is not None and math.isfinite(v)]
    low, high = min(seen, default=0.0), max(seen, default=1.0)
    return Scale(low, high if high > low else low + 1.0, declared=False)
