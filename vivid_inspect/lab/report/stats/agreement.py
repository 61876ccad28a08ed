"""Agreement between an LLM judge's 0-5 scores and human scores (the paper's Table 1, with intervals).

Point estimates come from the libraries the field uses: scikit-learn's Cohen's kappa and confusion
matrix, SciPy's Spearman correlation and the ``krippendorff`` package's alpha. The 95 % intervals
(kappa, weighted kappa, the means, the paired differences) are
`intervals`': one method per statistic, printed only from the n where
its simulated coverage holds; below it ``intervals`` gives the reason instead.

Categorical statistics (kappa, weighted kappa, alpha, exact and within-one agreement, the confusion
matrix) need whole scores 0-5. A score that is a mean over annotators (3.5) is rounded half up for
them, as the paper does, and the notes say so; ``kappa_half_down`` is the same kappa with halves
rounded down, a check of how much the rounding rule decides. Spearman's rho, the mean absolute
error and the means use the scores as given. `rater_agreement`
needs no rounding at all: it treats each annotator as a rater of their own (Cohen's kappa of each
annotator with the judge, averaged) and computes Krippendorff's ordinal alpha over the annotators
and the judge together.

A statistic that the data cannot define (no overlap, one item, one side giving a single score) is
``None`` and ``notes`` says why. Kappa counts as undefined when *either* side is constant: observed
agreement then equals chance agreement by construction, so scikit-learn returns 0 whatever the
other side says, and a 0 in a report would read as "the judge agrees at chance level".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import krippendorff
import numpy as np
from scipy import stats
from sklearn.metrics import confusion_matrix

from vivid_inspect.lab.report.reading.judged import VIVID_SCALE, Scale
from vivid_inspect.lab.report.stats.intervals import (
    Interval,
    kappa_difference_interval,
    kappa_interval,
    mean_difference_interval,
    mean_interval,
)
from vivid_inspect.lab.report.stats.score_stats import (
    SCORES,
    Row,
    ScoreMap,
    as_row_of,
    categories,
    check_n_boot,
    clean_scores,
    constant_reason,
    fmt_score,
    kappa_point,
    kappa_reason,
    note_left_out,
    quiet,
    sorted_ids,
    undefined_fields,
)


@dataclass(frozen=True)
class Agreement:
    """How well one rater (the judge) agrees with another (the humans) on the items both scored.

    Every statistic is ``None`` when the data cannot define it; ``notes`` then says why. The
    ``_lo``/``_hi`` ends are 95 % intervals (`intervals`), None where
    none is printed; ``intervals`` holds each one with the reason when it is not.
    """

    n: int
    kappa: float | None
    kappa_lo: float | None
    kappa_hi: float | None
    kappa_half_down: float | None
    """Kappa with non-whole scores rounded half down (2.5 -> 2) instead of half up."""
    weighted_kappa: float | None
    weighted_kappa_lo: float | None
    weighted_kappa_hi: float | None
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
    intervals: dict[str, Interval] = field(default_factory=dict)
    """Each interval by statistic (``kappa``, ``weighted_kappa``, ``judge_mean``, ``human_mean``)."""

    def as_row(self) -> Row:
        """One table row: every field but the confusion matrix and intervals, rounded, notes joined."""
        return as_row_of(self, skip=("confusion", "intervals"))


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
    intervals: dict[str, Interval] = field(default_factory=dict)
    """Each interval by statistic (``kappa_diff``, ``mean_diff``), with the reason when none is printed."""

    def as_row(self) -> Row:
        """One table row, rounded to 4 decimals, notes joined."""
        return as_row_of(self, skip=("intervals",))


def agreement(
    judge: ScoreMap, human: ScoreMap, *, n_boot: int = 1000, scale: Scale = VIVID_SCALE
) -> Agreement:
    """Compare a judge's scores with human scores on the item ids both have.

    Args:
        judge: Judge score per item id (0-5); ``None``/NaN means unscored and is left out.
        human: Human score per item id (0-5, possibly a mean over annotators).
        n_boot: 0 skips the intervals; any other value computes them. (No interval here
            resamples any more; the name is kept for callers.)
        scale: The scores' scale: it bounds the means' intervals; the kappa family (kappa,
            weighted kappa, alpha, exact and within-1 agreement, the confusion matrix) is left
            out, with a note, unless it is declared ordinal whole levels (`kappa_reason`).

    Returns:
        The statistics, with notes on anything left out, rounded or undefined.

    Raises:
        ValueError: A score is not a number on the scale (0 to 5), or ``n_boot`` is negative.
    """
    return _agreement_of_maps(judge, human, "judge", "human", n_boot=n_boot, notes=[], scale=scale)


def paired_difference(
    judge_a: ScoreMap, judge_b: ScoreMap, human: ScoreMap, *, n_boot: int = 1000
) -> PairedDifference:
    """Kappa and mean of judge A minus judge B, on the items all three score, with paired intervals.

    Both intervals are paired: the kappa difference by the leave-one-out jackknife over items,
    the mean difference by the betting interval of the per-item differences. Two judges whose
    scores are identical item for item get no interval (the difference cannot vary).

    Args:
        judge_a: Judge A's score per item id.
        judge_b: Judge B's score per item id.
        human: Human score per item id.
        n_boot: 0 skips the intervals; any other value computes them.

    Returns:
        Both kappas and means, their differences (A - B) and 95 % intervals.

    Raises:
        ValueError: A score is not a number from 0 to 5, or ``n_boot`` is negative.
    """
    check_n_boot(n_boot)
    notes: list[str] = []
    maps = {
        label: clean_scores(scores, label, notes)
        for label, scores in (("judge A", judge_a), ("judge B", judge_b), ("human", human))
    }
    ids = sorted_ids(set.intersection(*(set(m) for m in maps.values())))
    note_left_out(set().union(*maps.values()), ids, "were not scored by both judges and the humans", notes)
    raw = {label: np.array([m[i] for i in ids], dtype=float) for label, m in maps.items()}
    cat = {label: categories(values, label, notes) for label, values in raw.items()}
    n = len(ids)
    if n == 0:
        notes.append("no items scored by both judges and the humans")
        return PairedDifference(**undefined_fields(PairedDifference), n=0, notes=tuple(notes))
    kappas = {
        label: kappa_point(cat["human"], cat[label], "unweighted", "human", label, notes)
        for label in ("judge A", "judge B")
    }
    kappa_a, kappa_b = kappas["judge A"], kappas["judge B"]
    kappa_diff = None if kappa_a is None or kappa_b is None else kappa_a - kappa_b
    mean_a, mean_b = float(raw["judge A"].mean()), float(raw["judge B"].mean())
    intervals: dict[str, Interval] = {}
    if n_boot and n >= 2:
        intervals["mean_diff"] = mean_difference_interval(raw["judge A"], raw["judge B"])
        if kappa_diff is not None:
            intervals["kappa_diff"] = kappa_difference_interval(cat["human"], cat["judge A"], cat["judge B"])
    elif n < 2:
        notes.append("only 1 item scored by both judges and the humans: no intervals")
    kappa_ci, mean_ci = (_ends(intervals.get(name)) for name in ("kappa_diff", "mean_diff"))
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
        intervals=intervals,
    )


def _ends(interval: Interval | None) -> tuple[float | None, float | None]:
    return (None, None) if interval is None else (interval.lo, interval.hi)


def _agreement_of_maps(
    judge: ScoreMap,
    human: ScoreMap,
    judge_label: str,
    human_label: str,
    *,
    n_boot: int,
    notes: list[str],
    scale: Scale = VIVID_SCALE,
) -> Agreement:
    check_n_boot(n_boot)
    judge_scores = clean_scores(judge, judge_label, notes, scale)
    human_scores = clean_scores(human, human_label, notes, scale)
    ids = sorted_ids(set(judge_scores) & set(human_scores))
    note_left_out(
        set(human_scores), ids, f"have no {judge_label} score", notes, label=f"{human_label} item(s)"
    )
    note_left_out(
        set(judge_scores), ids, f"have no {human_label} score", notes, label=f"{judge_label} item(s)"
    )
    human_raw = np.array([human_scores[i] for i in ids], dtype=float)
    judge_raw = np.array([judge_scores[i] for i in ids], dtype=float)
    reason = kappa_reason(scale)  # the levels, from 0, as kappa's categories
    human_cat = categories(human_raw - scale.low, human_label, notes) if reason is None else human_raw
    judge_cat = categories(judge_raw - scale.low, judge_label, notes) if reason is None else judge_raw
    n = len(ids)
    if n == 0:
        notes.append(f"no items scored by both {judge_label} and {human_label}")
        empty = tuple(tuple(0 for _ in SCORES) for _ in SCORES)
        return Agreement(**undefined_fields(Agreement), n=0, confusion=empty, notes=tuple(notes))

    kappa = half_down = weighted = rho = alpha = None
    if n == 1:
        notes.append("only 1 paired item: kappa, weighted kappa, spearman, alpha and intervals are undefined")
    elif reason is not None:
        notes.append(reason)
        rho = _spearman(human_raw, judge_raw, human_label, judge_label, notes)
    else:
        kappa = kappa_point(human_cat, judge_cat, "unweighted", human_label, judge_label, notes)
        if kappa is not None:
            weighted = kappa_point(human_cat, judge_cat, "quadratic", human_label, judge_label, notes)
        halves = (human_raw - scale.low, judge_raw - scale.low)
        half_down = _kappa_half_down(*halves, (human_label, judge_label), kappa, notes)
        rho = _spearman(human_raw, judge_raw, human_label, judge_label, notes)
        alpha = _alpha(human_cat, judge_cat, notes)

    intervals: dict[str, Interval] = {}
    if n_boot and n >= 2:
        intervals["judge_mean"] = mean_interval(judge_raw, low=scale.low, high=scale.high)
        intervals["human_mean"] = mean_interval(human_raw, low=scale.low, high=scale.high)
        if kappa is not None:
            intervals["kappa"] = kappa_interval(human_cat, judge_cat)
        if weighted is not None:
            intervals["weighted_kappa"] = kappa_interval(human_cat, judge_cat, weights="quadratic")
    ends = {
        name: _ends(intervals.get(name)) for name in ("kappa", "weighted_kappa", "judge_mean", "human_mean")
    }
    with quiet():
        confusion = confusion_matrix(human_cat, judge_cat, labels=list(SCORES)) if reason is None else ()
    levels = reason is None
    return Agreement(
        n=n,
        kappa=kappa,
        kappa_lo=ends["kappa"][0],
        kappa_hi=ends["kappa"][1],
        kappa_half_down=half_down,
        weighted_kappa=weighted,
        weighted_kappa_lo=ends["weighted_kappa"][0],
        weighted_kappa_hi=ends["weighted_kappa"][1],
        spearman=rho,
        alpha=alpha,
        exact=float(np.mean(human_cat == judge_cat)) if levels else None,
        within1=float(np.mean(np.abs(human_cat - judge_cat) <= 1)) if levels else None,
        mae=float(np.mean(np.abs(human_raw - judge_raw))),
        judge_mean=float(judge_raw.mean()),
        judge_mean_lo=ends["judge_mean"][0],
        judge_mean_hi=ends["judge_mean"][1],
        human_mean=float(human_raw.mean()),
        human_mean_lo=ends["human_mean"][0],
        human_mean_hi=ends["human_mean"][1],
        confusion=tuple(tuple(int(c) for c in row) for row in confusion),
        notes=tuple(notes),
        intervals=intervals,
    )


def _kappa_half_down(
    human: np.ndarray, judge: np.ndarray, labels: tuple[str, str], kappa: float | None, notes: list[str]
) -> float | None:
    """Kappa with halves rounded down: equal to ``kappa`` unless some score ends in .5."""
    halves = int(np.sum(np.isclose(np.concatenate([human, judge]) % 1, 0.5)))
    if halves == 0:
        return kappa
    down = {
        label: np.ceil(values - 0.5).astype(int) for label, values in zip(labels, (human, judge), strict=True)
    }
    notes.append(
        f"{halves} score(s) end in .5: kappa rounds them half up (the paper's rule), kappa_half_down down"
    )
    reasons: list[str] = []
    value = kappa_point(down[labels[0]], down[labels[1]], "unweighted", *labels, reasons)
    notes.extend(reason.replace("kappa undefined", "kappa_half_down undefined", 1) for reason in reasons)
    return value


def _spearman(
    human: np.ndarray, judge: np.ndarray, human_label: str, judge_label: str, notes: list[str]
) -> float | None:
    reason = constant_reason(human, judge, human_label, judge_label)
    if reason is None:
        with quiet():
            value = float(stats.spearmanr(human, judge).statistic)
        if math.isfinite(value):
            return value
        reason = "scipy returned NaN"
    notes.append(f"spearman undefined: {reason}")
    return None


def _alpha(human: np.ndarray, judge: np.ndarray, notes: list[str]) -> float | None:
    single = np.unique(np.concatenate([human, judge]))
    if single.size == 1:
        notes.append(f"alpha undefined: every score is {fmt_score(single[0])}")
        return None
    with quiet():
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
