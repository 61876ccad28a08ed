"""Agreement between an LLM judge's 0-5 scores and human scores (the paper's Table 1, with intervals).

Point estimates come from the libraries the field uses: scikit-learn's Cohen's kappa and confusion
matrix, SciPy's Spearman correlation and the ``krippendorff`` package's alpha. Only the bootstrap
replicates of kappa are computed here, from confusion matrices, because a thousand scikit-learn
calls per interval take seconds; the tests check them against scikit-learn on the same resamples.

Categorical statistics (kappa, weighted kappa, alpha, exact and within-one agreement, the confusion
matrix) need whole scores 0-5. A score that is a mean over annotators (3.5) is rounded half up for
them, as the paper does, and the notes say so; ``kappa_half_down`` is the same kappa with halves
rounded down, a check of how much the rounding rule decides. Spearman's rho, the mean absolute
error and the means use the scores as given. :func:`rater_agreement` needs no rounding at all:
it treats each annotator as a rater of their own (Cohen's kappa of each annotator with the judge,
averaged) and computes Krippendorff's ordinal alpha over the annotators and the judge together.

A statistic that the data cannot define (no overlap, one item, one side giving a single score) is
``None`` and ``notes`` says why. Kappa counts as undefined when *either* side is constant: observed
agreement then equals chance agreement by construction, so scikit-learn returns 0 whatever the
other side says, and a 0 in a report would read as "the judge agrees at chance level".
"""

from __future__ import annotations

import itertools
import math
import numbers
import warnings
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields
from typing import Any, Literal

import krippendorff
import numpy as np
import pandas as pd
from scipy import stats
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import cohen_kappa_score, confusion_matrix

SCORES: tuple[int, ...] = tuple(range(6))
"""The judge's and the annotators' scale: whole scores 0 to 5."""

Score = float | int | None
ScoreMap = Mapping[Hashable, Score]
Row = dict[str, float | int | str | None]
KappaWeights = Literal["unweighted", "quadratic"]

_DISAGREEMENT: dict[KappaWeights, np.ndarray] = {
    "unweighted": 1.0 - np.eye(len(SCORES)),
    "quadratic": np.subtract.outer(SCORES, SCORES).astype(float) ** 2,
}
_SKLEARN_WEIGHTS: dict[KappaWeights, str | None] = {"unweighted": None, "quadratic": "quadratic"}
_CI_PERCENTILES = (2.5, 97.5)


@dataclass(frozen=True)
class Agreement:
    """How well one rater (the judge) agrees with another (the humans) on the items both scored.

    Every statistic is ``None`` when the data cannot define it; ``notes`` then says why. Intervals
    are 95% percentile bootstrap intervals over items.
    """

    n: int
    kappa: float | None
    kappa_lo: float | None
    kappa_hi: float | None
    kappa_half_down: float | None
    """Kappa with non-whole scores rounded half down (2.5 -> 2) instead of half up."""
    weighted_kappa: float | None
    spearman: float | None
    alpha: float | None
    exact: float | None
    within1: float | None
    mae: float | None
    judge_mean: float | None
    judge_mean_lo: float | None
    judge_mean_hi: float | None
    human_mean: float | None
    human_mean_lo: float | None
    human_mean_hi: float | None
    confusion: tuple[tuple[int, ...], ...]
    """Counts: row = human score, column = judge score, both 0-5."""
    notes: tuple[str, ...] = ()

    def as_row(self) -> Row:
        """One table row: every field but the confusion matrix, rounded to 4 decimals, notes joined."""
        return _as_row(self, skip=("confusion",))


@dataclass(frozen=True)
class PairedDifference:
    """Judge A minus judge B on the items both judges and the humans scored, with paired intervals."""

    n: int
    kappa_a: float | None
    kappa_b: float | None
    kappa_diff: float | None
    kappa_diff_lo: float | None
    kappa_diff_hi: float | None
    mean_a: float | None
    mean_b: float | None
    mean_diff: float | None
    mean_diff_lo: float | None
    mean_diff_hi: float | None
    notes: tuple[str, ...] = ()

    def as_row(self) -> Row:
        """One table row, rounded to 4 decimals, notes joined."""
        return _as_row(self)


@dataclass(frozen=True)
class Consistency:
    """Test-retest agreement of one judge run several times on the same items."""

    runs: int
    n: int
    mean_kappa: float | None
    mean_exact: float | None
    flip_rate: float | None
    """Share of items whose score is not the same in every run."""
    notes: tuple[str, ...] = ()

    def as_row(self) -> Row:
        """One table row, rounded to 4 decimals, notes joined."""
        return _as_row(self)


@dataclass(frozen=True)
class RaterAgreement:
    """Judge-human agreement that rounds nothing: every annotator is a rater of their own.

    Attributes:
        n: Items the judge and at least one annotator scored.
        annotators: Annotators whose kappa with the judge is defined; they make ``kappa_mean``.
        kappa_mean: Unweighted mean over those annotators of Cohen's kappa between the annotator
            and the judge, each on the items that annotator scored.
        kappa_lo: 2.5th percentile of ``kappa_mean`` over bootstrap resamples of the items.
        kappa_hi: 97.5th percentile, likewise.
        alpha: Krippendorff's ordinal alpha over the annotators and the judge (one row each).
        per_annotator: ``(annotator, items, kappa)`` for every annotator, in name order.
        notes: What was left out or undefined, and why.
    """

    n: int
    annotators: int
    kappa_mean: float | None
    kappa_lo: float | None
    kappa_hi: float | None
    alpha: float | None
    per_annotator: tuple[tuple[str, int, float | None], ...] = ()
    notes: tuple[str, ...] = ()


def agreement(judge: ScoreMap, human: ScoreMap, *, n_boot: int = 1000, seed: int = 0) -> Agreement:
    """Compare a judge's scores with human scores on the item ids both have.

    Args:
        judge: Judge score per item id (0-5); ``None``/NaN means unscored and is left out.
        human: Human score per item id (0-5, possibly a mean over annotators).
        n_boot: Bootstrap resamples for the intervals; 0 skips them.
        seed: Seed of ``numpy.random.default_rng`` for the resamples.

    Returns:
        The statistics, with notes on anything left out, rounded or undefined.

    Raises:
        ValueError: A score is not a number from 0 to 5, or ``n_boot`` is negative.
    """
    return _agreement_of_maps(judge, human, "judge", "human", n_boot=n_boot, seed=seed, notes=[])


def paired_difference(
    judge_a: ScoreMap, judge_b: ScoreMap, human: ScoreMap, *, n_boot: int = 1000, seed: int = 0
) -> PairedDifference:
    """Kappa and mean of judge A minus judge B, on the items all three score, with paired intervals.

    Each bootstrap replicate resamples items once and computes both judges' statistics on that
    same resample, so the interval accounts for the judges being scored on the same items.

    Args:
        judge_a: Judge A's score per item id.
        judge_b: Judge B's score per item id.
        human: Human score per item id.
        n_boot: Bootstrap resamples for the intervals; 0 skips them.
        seed: Seed of ``numpy.random.default_rng`` for the resamples.

    Returns:
        Both kappas and means, their differences (A - B) and 95% percentile intervals.

    Raises:
        ValueError: A score is not a number from 0 to 5, or ``n_boot`` is negative.
    """
    _check_n_boot(n_boot)
    notes: list[str] = []
    maps = {
        label: _clean(scores, label, notes)
        for label, scores in (("judge A", judge_a), ("judge B", judge_b), ("human", human))
    }
    ids = _sorted_ids(set.intersection(*(set(m) for m in maps.values())))
    _note_left_out(set().union(*maps.values()), ids, "were not scored by both judges and the humans", notes)
    raw = {label: np.array([m[i] for i in ids], dtype=float) for label, m in maps.items()}
    cat = {label: _categories(values, label, notes) for label, values in raw.items()}
    n = len(ids)
    if n == 0:
        notes.append("no items scored by both judges and the humans")
        return PairedDifference(**_undefined(PairedDifference), n=0, notes=tuple(notes))
    kappas = {
        label: _kappa_point(cat["human"], cat[label], "unweighted", "human", label, notes)
        for label in ("judge A", "judge B")
    }
    kappa_a, kappa_b = kappas["judge A"], kappas["judge B"]
    kappa_diff = None if kappa_a is None or kappa_b is None else kappa_a - kappa_b
    mean_a, mean_b = float(raw["judge A"].mean()), float(raw["judge B"].mean())
    kappa_ci: tuple[float | None, float | None] = (None, None)
    mean_ci: tuple[float | None, float | None] = (None, None)
    if n >= 2 and n_boot > 0:
        idx = _resamples(n, n_boot, seed)
        mean_ci = _percentile_ci(raw["judge A"][idx].mean(axis=1) - raw["judge B"][idx].mean(axis=1))
        if kappa_diff is not None:
            # Both kappas on the same resamples: the pairing is what narrows the interval.
            a, b = (_kappa_replicates(cat["human"], cat[label], idx, "unweighted") for label in ("judge A", "judge B"))
            diffs = a - b
            kappa_ci = _percentile_ci(diffs)
            _note_dropped(diffs, "kappa difference", notes)
    elif n < 2:
        notes.append("only 1 item scored by both judges and the humans: no intervals")
    return PairedDifference(
        n=n,
        kappa_a=kappa_a,
        kappa_b=kappa_b,
        kappa_diff=kappa_diff,
        kappa_diff_lo=kappa_ci[0],
        kappa_diff_hi=kappa_ci[1],
        mean_a=mean_a,
        mean_b=mean_b,
        mean_diff=mean_a - mean_b,
        mean_diff_lo=mean_ci[0],
        mean_diff_hi=mean_ci[1],
        notes=tuple(notes),
    )


def self_consistency(runs: Sequence[ScoreMap]) -> Consistency:
    """Test-retest agreement of a judge run k >= 2 times on the same items.

    Args:
        runs: One score map per run, keyed by item id.

    Returns:
        Mean pairwise Cohen's kappa and exact agreement over the items every run scored, and the
        share of those items whose score changed between runs.

    Raises:
        ValueError: Fewer than two runs, or a score that is not a number from 0 to 5.
    """
    if len(runs) < 2:
        raise ValueError(f"self_consistency needs at least 2 runs of the judge, got {len(runs)}")
    notes: list[str] = []
    maps = [_clean(run, f"run {r}", notes) for r, run in enumerate(runs, start=1)]
    ids = _sorted_ids(set.intersection(*(set(m) for m in maps)))
    _note_left_out(set().union(*maps), ids, "were not scored in every run", notes)
    n = len(ids)
    if n == 0:
        notes.append("no item was scored in every run")
        return Consistency(runs=len(runs), n=0, mean_kappa=None, mean_exact=None, flip_rate=None, notes=tuple(notes))
    matrix = np.vstack(
        [_categories(np.array([m[i] for i in ids], dtype=float), f"run {r}", notes) for r, m in enumerate(maps, 1)]
    )
    pairs = list(itertools.combinations(range(len(runs)), 2))
    exact = [float(np.mean(matrix[p] == matrix[q])) for p, q in pairs]
    kappas: list[float] = []
    undefined: list[str] = []
    for p, q in pairs:
        reason = "only 1 item" if n < 2 else _constant_reason(matrix[p], matrix[q], f"run {p + 1}", f"run {q + 1}")
        if reason:
            undefined.append(reason)
        else:
            with _quiet():
                kappas.append(float(cohen_kappa_score(matrix[p], matrix[q], labels=list(SCORES))))
    if undefined:
        notes.append(f"kappa undefined for {len(undefined)} of {len(pairs)} run pairs: {'; '.join(undefined)}")
    return Consistency(
        runs=len(runs),
        n=n,
        mean_kappa=float(np.mean(kappas)) if kappas else None,
        mean_exact=float(np.mean(exact)),
        flip_rate=float(np.mean((matrix != matrix[0]).any(axis=0))),
        notes=tuple(notes),
    )


def parse_failure_rate(n_scored: int, n_unscored: int) -> float | None:
    """Share of judge replies that yielded no score.

    Args:
        n_scored: Items the judge scored.
        n_unscored: Items whose judge reply had no parseable score.

    Returns:
        ``n_unscored / (n_scored + n_unscored)``, or ``None`` when both are 0.

    Raises:
        ValueError: A count is not a non-negative integer.
    """
    for name, value in (("n_scored", n_scored), ("n_unscored", n_unscored)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    total = n_scored + n_unscored
    return None if total == 0 else n_unscored / total


def _agreement_of_maps(
    judge: ScoreMap, human: ScoreMap, judge_label: str, human_label: str, *, n_boot: int, seed: int, notes: list[str]
) -> Agreement:
    _check_n_boot(n_boot)
    judge_scores = _clean(judge, judge_label, notes)
    human_scores = _clean(human, human_label, notes)
    ids = _sorted_ids(set(judge_scores) & set(human_scores))
    _note_left_out(set(human_scores), ids, f"have no {judge_label} score", notes, label=f"{human_label} item(s)")
    _note_left_out(set(judge_scores), ids, f"have no {human_label} score", notes, label=f"{judge_label} item(s)")
    human_raw = np.array([human_scores[i] for i in ids], dtype=float)
    judge_raw = np.array([judge_scores[i] for i in ids], dtype=float)
    human_cat = _categories(human_raw, human_label, notes)
    judge_cat = _categories(judge_raw, judge_label, notes)
    n = len(ids)
    if n == 0:
        notes.append(f"no items scored by both {judge_label} and {human_label}")
        empty = tuple(tuple(0 for _ in SCORES) for _ in SCORES)
        return Agreement(**_undefined(Agreement), n=0, confusion=empty, notes=tuple(notes))

    kappa = half_down = weighted = rho = alpha = None
    if n == 1:
        notes.append("only 1 paired item: kappa, weighted kappa, spearman, alpha and intervals are undefined")
    else:
        kappa = _kappa_point(human_cat, judge_cat, "unweighted", human_label, judge_label, notes)
        if kappa is not None:
            weighted = _kappa_point(human_cat, judge_cat, "quadratic", human_label, judge_label, notes)
        half_down = _kappa_half_down(human_raw, judge_raw, (human_label, judge_label), kappa, notes)
        rho = _spearman(human_raw, judge_raw, human_label, judge_label, notes)
        alpha = _alpha(human_cat, judge_cat, notes)

    kappa_ci: tuple[float | None, float | None] = (None, None)
    judge_ci, human_ci = kappa_ci, kappa_ci
    if n >= 2 and n_boot > 0:
        idx = _resamples(n, n_boot, seed)
        judge_ci = _percentile_ci(judge_raw[idx].mean(axis=1))
        human_ci = _percentile_ci(human_raw[idx].mean(axis=1))
        if kappa is not None:
            replicates = _kappa_replicates(human_cat, judge_cat, idx, "unweighted")
            kappa_ci = _percentile_ci(replicates)
            _note_dropped(replicates, "kappa", notes)
    with _quiet():
        confusion = confusion_matrix(human_cat, judge_cat, labels=list(SCORES))
    return Agreement(
        n=n,
        kappa=kappa,
        kappa_lo=kappa_ci[0],
        kappa_hi=kappa_ci[1],
        kappa_half_down=half_down,
        weighted_kappa=weighted,
        spearman=rho,
        alpha=alpha,
        exact=float(np.mean(human_cat == judge_cat)),
        within1=float(np.mean(np.abs(human_cat - judge_cat) <= 1)),
        mae=float(np.mean(np.abs(human_raw - judge_raw))),
        judge_mean=float(judge_raw.mean()),
        judge_mean_lo=judge_ci[0],
        judge_mean_hi=judge_ci[1],
        human_mean=float(human_raw.mean()),
        human_mean_lo=human_ci[0],
        human_mean_hi=human_ci[1],
        confusion=tuple(tuple(int(c) for c in row) for row in confusion),
        notes=tuple(notes),
    )


def rater_agreement(
    judge: ScoreMap, annotators: Mapping[str, ScoreMap], *, n_boot: int = 1000, seed: int = 0
) -> RaterAgreement:
    """Each annotator as a rater against the judge, and Krippendorff's alpha over all of them.

    Nothing is averaged before the statistics, so nothing is rounded: an annotator's scores are
    whole, and so are the judge's.

    Args:
        judge: Judge score per item id (0-5); ``None``/NaN means unscored and is left out.
        annotators: Annotator name to that annotator's score per item id.
        n_boot: Bootstrap resamples of the items for the interval of ``kappa_mean``; 0 skips it.
        seed: Seed of ``numpy.random.default_rng`` for the resamples.

    Returns:
        The mean per-annotator kappa with its interval, alpha, and each annotator's kappa.

    Raises:
        ValueError: A score is not a number from 0 to 5, or ``n_boot`` is negative.
    """
    _check_n_boot(n_boot)
    notes: list[str] = []
    judge_scores = _clean(judge, "judge", notes)
    people = {name: _clean(scores, f"annotator {name!r}", notes) for name, scores in sorted(annotators.items())}
    ids = _sorted_ids(set(judge_scores) & set().union(*people.values()))
    n = len(ids)
    if n == 0:
        notes.append("no item scored by both the judge and an annotator")
        nobody = tuple((name, 0, None) for name in people)
        return RaterAgreement(0, 0, None, None, None, None, nobody, tuple(notes))
    judge_cat = _categories(np.array([judge_scores[i] for i in ids], dtype=float), "judge", notes)
    # An annotator's scores over all paired items, -1 where that annotator did not score the item.
    position = {item: k for k, item in enumerate(ids)}
    cats: dict[str, np.ndarray] = {}
    per: list[tuple[str, int, float | None]] = []
    for name, scores in people.items():
        mine = [i for i in ids if i in scores]
        raw = np.array([scores[i] for i in mine], dtype=float)
        cat = _categories(raw, f"annotator {name!r}", notes)
        column = np.full(n, -1, dtype=int)
        column[[position[i] for i in mine]] = cat
        cats[name] = column
        present = column >= 0
        kappa: float | None = None
        if len(mine) < 2:
            notes.append(f"kappa of annotator {name!r} undefined: {len(mine)} item(s) paired with the judge")
        else:
            kappa = _kappa_point(column[present], judge_cat[present], "unweighted", f"annotator {name!r}", "judge", notes)
        per.append((name, len(mine), kappa))
    defined = [name for name, _, kappa in per if kappa is not None]
    kappa_mean = float(np.mean([kappa for _, _, kappa in per if kappa is not None])) if defined else None
    ci: tuple[float | None, float | None] = (None, None)
    if defined and n >= 2 and n_boot > 0:
        idx = _resamples(n, n_boot, seed)
        replicates = np.mean(
            [_kappa_replicates(cats[name], judge_cat, idx, "unweighted", present=cats[name] >= 0) for name in defined],
            axis=0,
        )
        ci = _percentile_ci(replicates)
        _note_dropped(replicates, "mean per-annotator kappa", notes, why="left an annotator with a single score")
    alpha = raters_alpha({**{f"annotator {k!r}": v for k, v in people.items()}, "judge": judge_scores}, notes)
    return RaterAgreement(n, len(defined), kappa_mean, ci[0], ci[1], alpha, tuple(per), tuple(notes))


def raters_alpha(raters: Mapping[str, ScoreMap], notes: list[str] | None = None) -> float | None:
    """Krippendorff's ordinal alpha over several raters, each scoring any subset of the items.

    Args:
        raters: Rater name to score per item id (whole scores 0-5; missing items are allowed).
        notes: Where to say why alpha is undefined, when it is.

    Returns:
        Alpha, or None when fewer than two raters share an item or every shared score is equal.

    Raises:
        ValueError: A score is not a number from 0 to 5.
    """
    said: list[str] = [] if notes is None else notes
    maps = {name: _clean(scores, name, said) for name, scores in raters.items()}
    ids = _sorted_ids(set().union(*maps.values())) if maps else []
    matrix = np.array([[maps[name].get(i, np.nan) for i in ids] for name in maps], dtype=float).reshape(len(maps), len(ids))
    rated = np.isfinite(matrix)
    shared = rated.sum(axis=0) >= 2
    if not shared.any():
        said.append("alpha over the raters undefined: no item has two raters")
        return None
    kept = matrix[:, shared]
    values = np.unique(kept[np.isfinite(kept)])
    if values.size == 1:
        said.append(f"alpha over the raters undefined: every score is {_fmt(values[0])}")
        return None
    rounded = np.where(np.isfinite(kept), np.floor(kept + 0.5), np.nan)
    with _quiet():
        value = float(
            krippendorff.alpha(reliability_data=rounded, level_of_measurement="ordinal", value_domain=list(SCORES))
        )
    if math.isfinite(value):
        return value
    said.append("alpha over the raters undefined: krippendorff returned NaN")
    return None


def _kappa_half_down(
    human: np.ndarray, judge: np.ndarray, labels: tuple[str, str], kappa: float | None, notes: list[str]
) -> float | None:
    """Kappa with halves rounded down: equal to ``kappa`` unless some score ends in .5."""
    halves = int(np.sum(np.isclose(np.concatenate([human, judge]) % 1, 0.5)))
    if halves == 0:
        return kappa
    down = {label: np.ceil(values - 0.5).astype(int) for label, values in zip(labels, (human, judge), strict=True)}
    notes.append(f"{halves} score(s) end in .5: kappa rounds them half up (the paper's rule), kappa_half_down down")
    reasons: list[str] = []
    value = _kappa_point(down[labels[0]], down[labels[1]], "unweighted", *labels, reasons)
    notes.extend(reason.replace("kappa undefined", "kappa_half_down undefined", 1) for reason in reasons)
    return value


def _kappa_point(
    human: np.ndarray, judge: np.ndarray, weights: KappaWeights, human_label: str, judge_label: str, notes: list[str]
) -> float | None:
    name = "kappa" if weights == "unweighted" else f"{weights}-weighted kappa"
    reason = _constant_reason(human, judge, human_label, judge_label)
    if reason is None:
        with _quiet():
            value = float(cohen_kappa_score(human, judge, labels=list(SCORES), weights=_SKLEARN_WEIGHTS[weights]))
        if math.isfinite(value):
            return value
        reason = "scikit-learn returned NaN"
    notes.append(f"{name} undefined: {reason}")
    return None


def _spearman(
    human: np.ndarray, judge: np.ndarray, human_label: str, judge_label: str, notes: list[str]
) -> float | None:
    reason = _constant_reason(human, judge, human_label, judge_label)
    if reason is None:
        with _quiet():
            value = float(stats.spearmanr(human, judge).statistic)
        if math.isfinite(value):
            return value
        reason = "scipy returned NaN"
    notes.append(f"spearman undefined: {reason}")
    return None


def _alpha(human: np.ndarray, judge: np.ndarray, notes: list[str]) -> float | None:
    single = np.unique(np.concatenate([human, judge]))
    if single.size == 1:
        notes.append(f"alpha undefined: every score is {_fmt(single[0])}")
        return None
    with _quiet():
        value = float(
            krippendorff.alpha(
                reliability_data=np.vstack([human, judge]).astype(float),
                level_of_measurement="ordinal",
                value_domain=list(SCORES),
            )
        )
    if math.isfinite(value):
        return value
    notes.append("alpha undefined: krippendorff returned NaN")
    return None


def _kappa_replicates(
    human: np.ndarray, judge: np.ndarray, idx: np.ndarray, weights: KappaWeights, *, present: np.ndarray | None = None
) -> np.ndarray:
    """Kappa of every resample in ``idx`` (rows of item indices); NaN where a side is constant.

    The same formula as scikit-learn's ``cohen_kappa_score``, on all resamples at once. With
    ``present`` (a mask over items), each resample counts only its items where the mask is set.
    """
    n_boot, _ = idx.shape
    k = len(SCORES)
    cells = np.clip(human[idx], 0, None) * k + judge[idx] + (np.arange(n_boot) * k * k)[:, None]
    counted = np.ones(idx.shape) if present is None else present[idx].astype(float)
    confusion = np.bincount(cells.ravel(), weights=counted.ravel(), minlength=n_boot * k * k).reshape(n_boot, k, k)
    rows, cols = confusion.sum(axis=2), confusion.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = rows[:, :, None] * cols[:, None, :] / confusion.sum(axis=(1, 2))[:, None, None]
        weight = _DISAGREEMENT[weights]
        kappa = 1.0 - (weight * confusion).sum(axis=(1, 2)) / (weight * expected).sum(axis=(1, 2))
    constant = ((rows > 0).sum(axis=1) < 2) | ((cols > 0).sum(axis=1) < 2)
    kappa[constant] = np.nan
    return kappa


def _resamples(n: int, n_boot: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, n, size=(n_boot, n))


def _percentile_ci(replicates: np.ndarray) -> tuple[float | None, float | None]:
    finite = replicates[np.isfinite(replicates)]
    if finite.size == 0:
        return None, None
    lo, hi = np.percentile(finite, _CI_PERCENTILES)
    return float(lo), float(hi)


def _note_dropped(
    replicates: np.ndarray, name: str, notes: list[str], *, why: str = "drew a single score on one side"
) -> None:
    dropped = int(np.sum(~np.isfinite(replicates)))
    if dropped:
        notes.append(f"{name} interval from {replicates.size - dropped} of {replicates.size} resamples: {dropped} {why}")


def _constant_reason(first: np.ndarray, second: np.ndarray, first_label: str, second_label: str) -> str | None:
    reasons = [
        f"all {label} scores are {_fmt(values[0])}"
        for label, values in ((first_label, first), (second_label, second))
        if np.unique(values).size == 1
    ]
    return " and ".join(reasons) or None


def _clean(scores: ScoreMap, label: str, notes: list[str]) -> dict[Hashable, float]:
    """Check every score is in 0-5; drop missing ones (an unscored judge reply) with a note."""
    clean: dict[Hashable, float] = {}
    missing = 0
    for key, value in scores.items():
        if isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_):
            number = float(value)
            if math.isnan(number):
                missing += 1
            elif 0 <= number <= 5:
                clean[key] = number
            else:
                raise ValueError(f"{label} score for id {key!r} is {value!r}; scores must be numbers from 0 to 5")
        elif value is None or value is pd.NA:
            missing += 1
        else:
            raise ValueError(f"{label} score for id {key!r} is {value!r}; scores must be numbers from 0 to 5")
    if missing:
        notes.append(f"{missing} {label} score(s) missing (None or NaN) and left out")
    return clean


def _categories(values: np.ndarray, label: str, notes: list[str]) -> np.ndarray:
    categories = np.floor(values + 0.5).astype(int)
    rounded = values != categories
    if rounded.any():
        notes.append(
            f"{int(rounded.sum())} {label} score(s) not whole (e.g. {_fmt(values[rounded][0])}) rounded half up "
            "for kappa, alpha, exact and within-1 agreement and the confusion matrix"
        )
    return categories


def _sorted_ids(ids: Iterable[Hashable]) -> list[Hashable]:
    # A fixed item order makes the seeded bootstrap reproducible whatever the dicts' order.
    ids = list(ids)
    try:
        return sorted(ids)  # type: ignore[type-var]
    except TypeError:
        return sorted(ids, key=repr)


def _note_left_out(
    all_ids: set[Hashable], kept: list[Hashable], why: str, notes: list[str], *, label: str = "item(s)"
) -> None:
    left_out = len(all_ids) - len(set(all_ids) & set(kept))
    if left_out:
        notes.append(f"{left_out} {label} {why} and were left out")


def _check_n_boot(n_boot: int) -> None:
    if isinstance(n_boot, bool) or not isinstance(n_boot, numbers.Integral) or n_boot < 0:
        raise ValueError(f"n_boot must be a non-negative integer (0 skips intervals), got {n_boot!r}")


def _undefined(result: type) -> dict[str, Any]:
    """Every statistic of a result dataclass as None (its count, confusion and notes set apart)."""
    return {f.name: None for f in fields(result) if f.name not in ("n", "confusion", "notes")}


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{float(value):g}"


@contextmanager
def _quiet() -> Iterator[None]:
    # Degenerate inputs are reported in `notes`; the libraries' own warnings would only repeat them.
    with warnings.catch_warnings():
        for category in (RuntimeWarning, UndefinedMetricWarning, stats.ConstantInputWarning):
            warnings.simplefilter("ignore", category)
        yield


def _as_row(result: Any, skip: tuple[str, ...] = ()) -> Row:
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
