"""The pieces every agreement statistic is made of: 0-5 score checks, Cohen's kappa.

Shared by `agreement` (judge and humans),
`raters` (each annotator a rater) and
`consistency` (a judge against itself). Each helper that finds a
statistic undefined appends the reason to the caller's ``notes`` instead of raising or warning.
The report's intervals are `intervals`'.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Hashable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import fields
from typing import Any, Literal, cast

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import cohen_kappa_score

from vivid_inspect.lab.report.reading.judged import VIVID_SCALE, Scale

SCORES: tuple[int, ...] = tuple(range(6))
"""The judge's and the annotators' scale: whole scores 0 to 5."""
Score = float | int | None
ScoreMap = Mapping[Any, Score]
"""Score per item id; ``Any`` keys, as ``Mapping`` keys are invariant and ids are ints or strings."""
Row = dict[str, float | int | str | None]
KappaWeights = Literal["unweighted", "quadratic"]
_SKLEARN_WEIGHTS: dict[KappaWeights, str | None] = {"unweighted": None, "quadratic": "quadratic"}


def kappa_point(
    human: np.ndarray,
    judge: np.ndarray,
    weights: KappaWeights,
    human_label: str,
    judge_label: str,
    notes: list[str],
) -> float | None:
    """Cohen's kappa (unweighted or quadratic) on whole scores; None, with a note, when undefined."""
    name = "kappa" if weights == "unweighted" else f"{weights}-weighted kappa"
    reason = constant_reason(human, judge, human_label, judge_label)
    if reason is None:
        with quiet():
            value = float(
                cohen_kappa_score(human, judge, labels=list(SCORES), weights=_SKLEARN_WEIGHTS[weights])
            )
        if math.isfinite(value):
            return value
        reason = "scikit-learn returned NaN"
    notes.append(f"{name} undefined: {reason}")
    return None


def constant_reason(first: np.ndarray, second: np.ndarray, first_label: str, second_label: str) -> str | None:
    """Why a statistic is undefined when one side gives a single score; None when neither does."""
    reasons = [
        f"all {label} scores are {fmt_score(values[0])}"
        for label, values in ((first_label, first), (second_label, second))
        if np.unique(values).size == 1
    ]
    return " and ".join(reasons) or None


def kappa_reason(scale: Scale) -> str | None:
    """Why the kappa family is left out on ``scale``; None when its scores are ordinal whole levels kappa holds."""
    levels = scale.high - scale.low + 1
    whole = float(scale.low).is_integer() and float(levels).is_integer()
    if scale.ordinal and whole and levels <= len(SCORES):
        return None
    return (
        f"kappa, weighted kappa, alpha, exact and within-1 agreement left out: scale {scale.label} is not declared "
        f"as ordinal whole levels (at most {len(SCORES)})"
    )


def clean_scores(
    scores: ScoreMap, label: str, notes: list[str], scale: Scale = VIVID_SCALE
) -> dict[Hashable, float]:
    """Check every score is on ``scale``; drop missing ones (an unscored judge reply) with a note."""
    clean: dict[Hashable, float] = {}
    missing, rule = 0, f"scores must be numbers from {scale.low:g} to {scale.high:g}"
    for key, value in scores.items():
        if isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_):
            number = float(value)
            if math.isnan(number):
                missing += 1
            elif scale.low <= number <= scale.high:
                clean[key] = number
            else:
                raise ValueError(f"{label} score for id {key!r} is {value!r}; {rule}")
        elif value is None or cast(object, value) is pd.NA:  # pandas hands NA for a missing score
            missing += 1
        else:
            raise ValueError(f"{label} score for id {key!r} is {value!r}; {rule}")
    if missing:
        notes.append(f"{missing} {label} score(s) missing (None or NaN) and left out")
    return clean


def categories(values: np.ndarray, label: str, notes: list[str]) -> np.ndarray:
    """Scores as whole categories 0-5 (halves rounded up), with a note when any was rounded."""
    categories = np.floor(values + 0.5).astype(int)
    rounded = values != categories
    if rounded.any():
        notes.append(
            f"{int(rounded.sum())} {label} score(s) not whole (e.g. {fmt_score(values[rounded][0])}) rounded half up "
            "for kappa, alpha, exact and within-1 agreement and the confusion matrix"
        )
    return categories


def sorted_ids(ids: Iterable[Hashable]) -> list[Hashable]:
    """Item ids in a fixed order: sorted, or sorted by ``repr`` when ids of different types mix."""
    # A fixed item order makes every interval (the betting one reads items in order) and the seeded
    # bootstrap reproducible whatever the dicts' order.
    ids = list(ids)
    try:
        return sorted(ids)  # type: ignore[type-var]
    except TypeError:
        return sorted(ids, key=repr)


def note_left_out(
    all_ids: set[Hashable], kept: list[Hashable], why: str, notes: list[str], *, label: str = "item(s)"
) -> None:
    """Say how many of ``all_ids`` are not in ``kept``, and why, when some are not."""
    left_out = len(all_ids) - len(set(all_ids) & set(kept))
    if left_out:
        notes.append(f"{left_out} {label} {why} and were left out")


def check_n_boot(n_boot: int) -> None:
    """Refuse an ``n_boot`` that is not a whole number 0 or more."""
    if isinstance(n_boot, bool) or not isinstance(n_boot, numbers.Integral) or n_boot < 0:
        raise ValueError(f"n_boot must be a non-negative integer (0 skips intervals), got {n_boot!r}")


def undefined_fields(result: type) -> dict[str, Any]:
    """Every statistic of a result dataclass as None (its count, confusion, notes and intervals set apart)."""
    return {f.name: None for f in fields(result) if f.name not in ("n", "confusion", "notes", "intervals")}


def fmt_score(value: float) -> str:
    """A score as text: ``3`` for a whole score, ``3.5`` otherwise."""
    return str(int(value)) if float(value).is_integer() else f"{float(value):g}"


@contextmanager
def quiet() -> Iterator[None]:
    """Silence the libraries' warnings on degenerate input; ``notes`` report it instead."""
    # Degenerate inputs are reported in `notes`; the libraries' own warnings would only repeat them.
    with warnings.catch_warnings():
        for category in (RuntimeWarning, UndefinedMetricWarning, stats.ConstantInputWarning):
            warnings.simplefilter("ignore", category)
        yield


def as_row_of(result: Any, skip: tuple[str, ...] = ()) -> Row:
    """A result dataclass as one table row: floats rounded to 4 decimals, notes joined."""
    row: Row = {}
    for field in fields(result):
        if field.name in skip:
            continue
        value = getattr(result, field.name)
        if field.name == "notes":
            row[field.name] = "; ".join(value)
        elif isinstance(value, float):
            row[field.name] = round(value, 4) if math.isfinite(value) else None
        else:
            row[field.name] = value
    return row
