"""Judge-human agreement that rounds nothing: each annotator a rater against the judge, alpha over all."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import krippendorff
import numpy as np

from vivid_inspect.lab.report.stats.intervals import Interval, mean_kappa_interval
from vivid_inspect.lab.report.stats.score_stats import (
    SCORES,
    ScoreMap,
    categories,
    check_n_boot,
    clean_scores,
    fmt_score,
    kappa_point,
    quiet,
    sorted_ids,
)


@dataclass(frozen=True)
class RaterAgreement:
    """Judge-human agreement that rounds nothing: every annotator is a rater of their own.

    Attributes:
        n: Items the judge and at least one annotator scored.
        annotators: Annotators whose kappa with the judge is defined; they make ``kappa_mean``.
        kappa_mean: Unweighted mean over those annotators of Cohen's kappa between the annotator
            and the judge, each on the items that annotator scored.
        kappa_lo: Lower end of its 95 % interval: the mean over those annotators of each one's
            kappa score interval (`mean_kappa_interval`);
            None where none is printed (``interval.reason`` says why).
        kappa_hi: Upper end, likewise.
        alpha: Krippendorff's ordinal alpha over the annotators and the judge (one row each).
        per_annotator: ``(annotator, items, kappa)`` for every annotator, in name order.
        notes: What was left out or undefined, and why.
        interval: The interval of ``kappa_mean`` with its reason when none is printed (None when
            intervals were not asked for or no kappa is defined).
    """

    n: int
    annotators: int
    kappa_mean: float | None
    kappa_lo: float | None
    kappa_hi: float | None
    alpha: float | None
    per_annotator: tuple[tuple[str, int, float | None], ...] = ()
    notes: tuple[str, ...] = ()
    interval: Interval | None = None


def rater_agreement(
    judge: ScoreMap, annotators: Mapping[str, ScoreMap], *, n_boot: int = 1000
) -> RaterAgreement:
    """Each annotator as a rater against the judge, and Krippendorff's alpha over all of them.

    Nothing is averaged before the statistics, so nothing is rounded: an annotator's scores are
    whole, and so are the judge's.

    Args:
        judge: Judge score per item id (0-5); ``None``/NaN means unscored and is left out.
        annotators: Annotator name to that annotator's score per item id.
        n_boot: 0 skips the interval of ``kappa_mean``; any other value computes it.

    Returns:
        The mean per-annotator kappa with its interval, alpha, and each annotator's kappa.

    Raises:
        ValueError: A score is not a number from 0 to 5, or ``n_boot`` is negative.
    """
    check_n_boot(n_boot)
    notes: list[str] = []
    judge_scores = clean_scores(judge, "judge", notes)
    people = {
        name: clean_scores(scores, f"annotator {name!r}", notes)
        for name, scores in sorted(annotators.items())
    }
    ids = sorted_ids(set(judge_scores) & set().union(*people.values()))
    n = len(ids)
    if n == 0:
        notes.append("no item scored by both the judge and an annotator")
        nobody = tuple((name, 0, None) for name in people)
        return RaterAgreement(0, 0, None, None, None, None, nobody, tuple(notes))
    judge_cat = categories(np.array([judge_scores[i] for i in ids], dtype=float), "judge", notes)
    # An annotator's scores over all paired items, -1 where that annotator did not score the item.
    position = {item: k for k, item in enumerate(ids)}
    pairs: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    per: list[tuple[str, int, float | None]] = []
    for name, scores in people.items():
        mine = [i for i in ids if i in scores]
        raw = np.array([scores[i] for i in mine], dtype=float)
        cat = categories(raw, f"annotator {name!r}", notes)
        column = np.full(n, -1, dtype=int)
        column[[position[i] for i in mine]] = cat
        present = column >= 0
        pairs[name] = (column[present], judge_cat[present])
        kappa: float | None = None
        if len(mine) < 2:
            notes.append(f"kappa of annotator {name!r} undefined: {len(mine)} item(s) paired with the judge")
        else:
            kappa = kappa_point(
                column[present], judge_cat[present], "unweighted", f"annotator {name!r}", "judge", notes
            )
        per.append((name, len(mine), kappa))
    defined = [name for name, _, kappa in per if kappa is not None]
    kappa_mean = float(np.mean([kappa for _, _, kappa in per if kappa is not None])) if defined else None
    interval = (
        mean_kappa_interval([pairs[name] for name in defined], statistic="kappa_per_annotator")
        if defined and n_boot > 0
        else None
    )
    lo, hi = (interval.lo, interval.hi) if interval is not None else (None, None)
    alpha = raters_alpha({**{f"annotator {k!r}": v for k, v in people.items()}, "judge": judge_scores}, notes)
    return RaterAgreement(n, len(defined), kappa_mean, lo, hi, alpha, tuple(per), tuple(notes), interval)


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
    maps = {name: clean_scores(scores, name, said) for name, scores in raters.items()}
    ids = sorted_ids(set().union(*maps.values())) if maps else []
    matrix = np.array([[maps[name].get(i, np.nan) for i in ids] for name in maps], dtype=float).reshape(
        len(maps), len(ids)
    )
    rated = np.isfinite(matrix)
    shared = rated.sum(axis=0) >= 2
    if not shared.any():
        said.append("alpha over the raters undefined: no item has two raters")
        return None
    kept = matrix[:, shared]
    values = np.unique(kept[np.isfinite(kept)])
    if values.size == 1:
        said.append(f"alpha over the raters undefined: every score is {fmt_score(values[0])}")
        return None
    rounded = np.where(np.isfinite(kept), np.floor(kept + 0.5), np.nan)
    with quiet():
        value = float(
            krippendorff.alpha(
                reliability_data=rounded, level_of_measurement="ordinal", value_domain=list(SCORES)
            )
        )
    if math.isfinite(value):
        return value
    said.append("alpha over the raters undefined: krippendorff returned NaN")
    return None
