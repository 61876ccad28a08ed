"""The prediction-powered means of report/stats/ppi.py against ppi_py itself, and the finite-population variance.

ppi_py is the reference (the test extra installs it); importing it turns off every warning of the
process, so it is imported inside ``warnings.catch_warnings`` and the filters are put back.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from scipy import stats

from vivid_inspect.lab.report.stats.ppi import (
    ALL_LABELLED,
    NO_SPREAD,
    OFF_MODE_MIN,
    PSEUDO,
    labelled_bounds,
    mean_skewness,
    ppi_mean,
    sampled_mean,
)

with warnings.catch_warnings():
    import ppi_py  # noqa: F401  (ppi_py.ppi_mean_ci, ppi_mean_pointestimate)
    from ppi_py import ppi as ppi_module

TOLERANCE = 1e-9


def _scores(rng: np.random.Generator, n: int, big_n: int, shape: str) -> tuple[np.ndarray, ...]:
    """Human and judge scores of n labelled and big_n unlabelled items, of one planted shape."""
    total = n + big_n
    if shape == "lenient":
        human = rng.choice(6, size=total, p=[0.05, 0.08, 0.12, 0.2, 0.3, 0.25]).astype(float)
        judge = np.clip(np.rint(human + 0.6 + rng.normal(0, 0.9, total)), 0, 5)
    elif shape == "weak model":
        human = rng.choice(6, size=total, p=[0.7, 0.15, 0.07, 0.04, 0.03, 0.01]).astype(float)
        judge = np.clip(human + rng.choice([-1, 0, 1, 2], size=total, p=[0.05, 0.7, 0.2, 0.05]), 0, 5)
    elif shape == "halves":
        human = rng.choice(11, size=total).astype(float) / 2
        judge = np.clip(np.rint(5 - human + rng.normal(0, 1, total)), 0, 5)  # anti-correlated
    else:  # continuous, the form ppi_py's own tests use
        human = rng.normal(2.5, 1, total)
        judge = human + rng.normal(0.3, 0.5, total)
    return human[:n], judge[:n], judge[n:]


CASES = [
    pytest.param(shape, n, big_n, seed, id=f"{shape}-n{n}-N{big_n}-s{seed}")
    for shape in ("lenient", "weak model", "halves", "continuous")
    for n, big_n in ((10, 40), (50, 500), (200, 1436))
    for seed in (0, 1)
]


@pytest.mark.parametrize(("shape", "n", "big_n", "seed"), CASES)
@pytest.mark.parametrize("lam", [None, 0.0, 0.5, 1.0])
def test_ppi_variance_is_ppi_py_on_the_same_arrays(
    shape: str, n: int, big_n: int, seed: int, lam: float | None
):
    human, judge, unlabelled = _scores(np.random.default_rng(seed), n, big_n, shape)
    ours = ppi_mean(human, judge, unlabelled, alpha=0.05, variance="ppi", lam=lam)
    lo, hi = ppi_module.ppi_mean_ci(human, judge, unlabelled, alpha=0.05, lam=lam)
    point = ppi_module.ppi_mean_pointestimate(human, judge, unlabelled, lam=lam)
    assert ours.lo == pytest.approx(float(np.asarray(lo).ravel()[0]), abs=TOLERANCE)
    assert ours.hi == pytest.approx(float(np.asarray(hi).ravel()[0]), abs=TOLERANCE)
    assert ours.estimate == pytest.approx(float(np.asarray(point).ravel()[0]), abs=TOLERANCE)
    assert ours.n == n and ours.n_items == n + big_n


@pytest.mark.parametrize(("shape", "n", "big_n", "seed"), CASES)
def test_ppi_variance_tunes_lam_as_ppi_py_does(shape: str, n: int, big_n: int, seed: int):
    human, judge, unlabelled = _scores(np.random.default_rng(seed), n, big_n, shape)
    theta = ppi_module.ppi_mean_pointestimate(human, judge, unlabelled, lam=1)
    expected = ppi_module._calc_lam_glm(
        human - theta, judge - theta, unlabelled - theta, np.eye(1), clip=True
    )
    assert ppi_mean(human, judge, unlabelled, variance="ppi").lam == pytest.approx(expected, abs=TOLERANCE)


@pytest.mark.parametrize(("shape", "n", "big_n", "seed"), CASES)
def test_finite_estimate_is_ppi_py_with_every_item_as_the_judged_set(
    shape: str, n: int, big_n: int, seed: int
):
    """The finite-population estimate: lam * mean of the judge over all N items + mean residual, as ppi_py computes it."""
    human, judge, unlabelled = _scores(np.random.default_rng(seed), n, big_n, shape)
    ours = ppi_mean(human, judge, unlabelled)
    every = np.concatenate([judge, unlabelled])
    point = ppi_module.ppi_mean_pointestimate(human, judge, every, lam=ours.lam)
    assert ours.estimate == pytest.approx(float(np.asarray(point).ravel()[0]), abs=TOLERANCE)
    assert ours.n_items == n + big_n


@pytest.mark.parametrize(("shape", "n", "big_n", "seed"), CASES)
def test_finite_lam_is_the_regression_slope_clipped(shape: str, n: int, big_n: int, seed: int):
    human, judge, unlabelled = _scores(np.random.default_rng(seed), n, big_n, shape)
    slope = np.cov(human, judge, ddof=1)[0, 1] / np.var(judge, ddof=1)
    off_mode = judge.size - np.unique(judge, return_counts=True)[1].max()
    # the guard: a slope fitted on fewer than OFF_MODE_MIN items off the judge's commonest score is not used
    expected = min(max(slope, 0.0), 1.0) if off_mode >= OFF_MODE_MIN else 0.0
    assert ppi_mean(human, judge, unlabelled).lam == pytest.approx(expected, abs=TOLERANCE)


@pytest.mark.parametrize("off_mode", [OFF_MODE_MIN - 1, OFF_MODE_MIN])
def test_lam_needs_enough_items_off_the_judges_commonest_score(off_mode: int):
    """95 % of scores at 5: a slope from a handful of rare scores is not trusted (the bench's skewed shapes)."""
    judge = np.array([5.0] * 30 + [0.0] * off_mode)
    human = judge.copy()
    result = ppi_mean(human, judge, np.full(200, 5.0))
    assert result.lam == (1.0 if off_mode >= OFF_MODE_MIN else 0.0)


def test_an_anti_correlated_judge_gets_lam_zero_the_human_only_mean():
    human, judge, unlabelled = _scores(np.random.default_rng(3), 80, 300, "halves")
    corrected = ppi_mean(human, judge, unlabelled)
    assert corrected.lam == 0.0
    alone = sampled_mean(human, 380)
    assert corrected.estimate == pytest.approx(alone.estimate, abs=TOLERANCE)
    # lam = 0 is not fitted from the data here, but chosen: one degree of freedom less than the human-only mean
    assert corrected.hi - corrected.lo > alone.hi - alone.lo


@pytest.mark.parametrize("lam", [0.0, 0.4, 1.0])
def test_finite_variance_is_the_exact_variance_over_every_possible_sample(lam: float):
    """For a fixed lam, the estimator's variance over all C(N, n) samples is (1 - n/N) S^2 / n, and s^2 is unbiased for S^2."""
    human = np.array([0.0, 1.0, 3.0, 5.0, 4.0, 2.0, 2.5, 0.0, 5.0])
    judge = np.array([1.0, 1.0, 4.0, 5.0, 5.0, 2.0, 3.0, 2.0, 4.0])
    big_n, n = human.size, 4
    truth = human.mean()
    estimates, variances, missed = [], [], []
    for chosen in itertools.combinations(range(big_n), n):
        mask = np.zeros(big_n, dtype=bool)
        mask[list(chosen)] = True
        result = ppi_mean(human[mask], judge[mask], judge[~mask], lam=lam)
        estimates.append(result.estimate)
        variances.append(result.se**2)
        # the part of the judge's spread the labelled items miss, added back as (1 - lam)^2 times it
        top_up = max(np.var(judge, ddof=1) - np.var(judge[mask], ddof=1), 0.0) * (1 - lam) ** 2
        missed.append((1 - n / big_n) * top_up / n)
    residual = human - lam * judge
    exact = (1 - n / big_n) * np.var(residual, ddof=1) / n
    assert np.mean(estimates) == pytest.approx(truth, abs=TOLERANCE)  # unbiased for the finite mean
    assert np.var(estimates) == pytest.approx(exact, abs=TOLERANCE)
    # s^2 is unbiased for S^2; the pseudo-residual adds PSEUDO^2 / (n - 1) to it.
    pseudo = (1 - n / big_n) * PSEUDO**2 / (n - 1) / n
    assert np.mean(variances) == pytest.approx(exact + pseudo + np.mean(missed), abs=TOLERANCE)
    assert (np.mean(missed) == 0) == (lam == 1.0)


def _hall(t: float, k: float) -> float:
    """Hall's (1992) transform of a studentised mean whose skewness is k, written out term by term."""
    return t + k * t**2 / 3 + k**2 * t**3 / 27 + k / 6


def _solve(f, lo: float = -50.0, hi: float = 50.0) -> float:
    """The root of an increasing function by bisection (no closed form used)."""
    for _ in range(200):
        middle = (lo + hi) / 2
        lo, hi = (middle, hi) if f(middle) < 0 else (lo, middle)
    return (lo + hi) / 2


def test_the_interval_is_the_t_interval_widened_to_halls_ends():
    human, judge, unlabelled = _scores(np.random.default_rng(9), 30, 270, "weak model")
    result = ppi_mean(human, judge, unlabelled, lam=1.0, alpha=0.05)
    residual = human - judge
    n, total = 30, 300
    se = math.sqrt((1 - n / total) * (np.sum((residual - residual.mean()) ** 2) + PSEUDO**2) / (n - 1) / n)
    d = residual - residual.mean()
    g1 = np.mean(d**3) / np.mean(d**2) ** 1.5
    k = g1 * math.sqrt(n * (n - 1)) / (n - 2) * (1 - 2 * n / total) / math.sqrt(n * (1 - n / total))
    assert abs(k) > 0.1  # a skewed residual: the correction matters here
    centre = np.concatenate([judge, unlabelled]).mean() + residual.mean()
    q = stats.t.ppf(0.975, n - 1)
    assert result.se == pytest.approx(se, abs=TOLERANCE)
    assert result.estimate == pytest.approx(centre, abs=TOLERANCE)
    # Hall's ends: where his transform of T = (centre - mean) / se reaches +q and -q.
    hall_lo, hall_hi = (_solve(lambda t, target=target: _hall(t, k) - target) for target in (q, -q))
    hall_lo, hall_hi = centre - se * hall_lo, centre - se * hall_hi
    plain = (centre - q * se, centre + q * se)
    # The t interval widened to Hall's ends, never narrowed.
    assert result.lo == pytest.approx(min(plain[0], hall_lo), abs=1e-9)
    assert result.hi == pytest.approx(max(plain[1], hall_hi), abs=1e-9)
    assert (result.lo, result.hi) != pytest.approx(plain, abs=1e-6)  # the skew widened one side


def test_a_symmetric_residual_keeps_the_t_interval():
    residual = np.array([-2.0, -1.0, 0.0, 1.0, 2.0, -1.5, 1.5, 0.0])
    result = sampled_mean(residual, 80)
    se = math.sqrt((1 - 8 / 80) * (np.sum(residual**2) + PSEUDO**2) / 7 / 8)
    q = stats.t.ppf(0.975, 7)
    assert (result.lo, result.hi) == pytest.approx((-q * se, q * se), abs=TOLERANCE)
    fitted = ppi_mean(human := np.array([0.0, 1, 2, 3, 4, 5, 2, 3]), human + residual, np.zeros(72))
    spread = (np.sum(((e := human - fitted.lam * (human + residual)) - e.mean()) ** 2) + PSEUDO**2) / 6
    assert fitted.se == pytest.approx(
        math.sqrt((1 - 8 / 80) * spread / 8), abs=TOLERANCE
    )  # n - 2: a fitted slope


def test_the_skewness_of_a_mean_drawn_without_replacement():
    """(1 - f)(1 - 2f) mu3 / n^2 over ((1 - f) s^2 / n)^1.5: exact over every sample of a small population."""
    population = np.array([0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 5.0, 0.0, 2.0, 0.0])
    n, total = 3, population.size
    means = np.array([population[list(c)].mean() for c in itertools.combinations(range(total), n)])
    exact = np.mean((means - means.mean()) ** 3) / np.var(means) ** 1.5
    mu = population - population.mean()
    # The population's own third and second moments (with the finite-population factors).
    m2 = np.sum(mu**2) / (total - 1)
    m3 = total * np.sum(mu**3) / ((total - 1) * (total - 2))
    f = n / total
    assert exact == pytest.approx((1 - 2 * f) / math.sqrt(1 - f) * m3 / m2**1.5 / math.sqrt(n), rel=1e-9)
    assert mean_skewness(np.array([1.0, 1.0]), 10) == 0.0


def test_the_bias_and_the_human_only_mean_use_the_same_interval():
    human, judge, unlabelled = _scores(np.random.default_rng(4), 40, 160, "lenient")
    bias = sampled_mean(judge - human, 200)
    assert bias.estimate == pytest.approx(float(np.mean(judge - human)))
    as_ppi = ppi_mean(judge - human, np.zeros(40), np.zeros(160), lam=0.0)
    assert (bias.lo, bias.hi) == pytest.approx((as_ppi.lo, as_ppi.hi), abs=TOLERANCE)


def test_a_lower_alpha_widens_the_interval():
    human, judge, unlabelled = _scores(np.random.default_rng(5), 60, 600, "lenient")
    wide, narrow = (
        ppi_mean(human, judge, unlabelled, alpha=0.01),
        ppi_mean(human, judge, unlabelled, alpha=0.1),
    )
    assert wide.lo < narrow.lo < narrow.hi < wide.hi


def test_every_item_labelled_gives_the_exact_mean_and_no_interval():
    human = np.array([1.0, 2.0, 4.0, 5.0])
    result = ppi_mean(human, np.array([2.0, 2.0, 5.0, 5.0]), np.array([]))
    assert result.estimate == pytest.approx(3.0)
    assert (result.lo, result.hi, result.reason) == (None, None, ALL_LABELLED)
    assert sampled_mean(human, 4).reason == ALL_LABELLED


def test_residuals_that_do_not_vary_still_get_an_interval_of_one_pseudo_residual():
    """A judge right on every labelled item: the rest may differ, so the interval is not of zero width."""
    human = np.array([0.0, 0.0, 1.0, 3.0, 5.0, 2.0, 4.0, 4.0])
    result = ppi_mean(human, human + 0.0, np.array([0.0, 2.0, 4.0] * 10), lam=1.0)
    se = math.sqrt((1 - 8 / 38) * PSEUDO**2 / 7 / 8)
    centre = np.mean([*human, *[0.0, 2.0, 4.0] * 10])
    assert result.estimate == pytest.approx(centre)
    assert (result.lo, result.hi) == pytest.approx(
        (centre - stats.t.ppf(0.975, 7) * se, centre + stats.t.ppf(0.975, 7) * se)
    )
    assert result.reason is None
    ppi = ppi_mean(human, human + 0.0, np.full(30, 2.0), lam=1.0, variance="ppi")
    assert (ppi.lo, ppi.reason) == (None, NO_SPREAD)  # ppi_py's variance is zero there: no interval


def test_no_labelled_items_and_too_few_for_an_interval():
    assert ppi_mean(np.array([]), np.array([]), np.array([1.0, 2.0])).estimate is None
    one = ppi_mean(np.array([3.0]), np.array([4.0]), np.array([1.0, 2.0]))
    assert one.estimate is not None and one.lo is None and "too few" in (one.reason or "")
    two = ppi_mean(np.array([3.0, 1.0]), np.array([4.0, 1.0]), np.array([1.0, 2.0]))
    assert two.lo is None  # a fitted slope leaves no degree of freedom for the spread


def test_bad_arrays_are_refused_with_a_reason():
    with pytest.raises(ValueError, match="2 human scores but 3 judge scores"):
        ppi_mean(np.array([1.0, 2.0]), np.array([1.0, 2.0, 3.0]), np.array([]))
    with pytest.raises(ValueError, match="finite"):
        ppi_mean(np.array([1.0, np.nan]), np.array([1.0, 2.0]), np.array([]))
    with pytest.raises(ValueError, match="only 2 items"):
        sampled_mean(np.array([1.0, 2.0, 3.0]), 2)


def test_the_bound_of_the_labelled_items_alone():
    assert labelled_bounds(10.0, 40, 46, (0.0, 5.0)) == pytest.approx((10 / 46, 40 / 46))
    assert labelled_bounds(7.0, 4, 4, (1.0, 5.0)) == pytest.approx((7 / 4, 7 / 4))  # every item labelled


@pytest.mark.parametrize("n", [30, 40, 45])
def test_every_variance_term_carries_the_finite_population_factor(n: int):
    """The spread the labels miss (`missed_spread`) is scaled by 1 - n/N like the sample's own."""
    low = np.array([0.0, 1.0] * 23 + [0.0])  # 47 low scores; the judge's rare high ones all unlabelled
    human, unlabelled = low[:n], np.array([5.0, 4.0, 3.0, *low[n:]])
    result = ppi_mean(human, human + 0.0, unlabelled, lam=0.0)
    missed = float(np.var(np.concatenate([human, unlabelled]), ddof=1)) - float(np.var(human, ddof=1))
    spread = (np.sum((human - human.mean()) ** 2) + PSEUDO**2) / (n - 1) + missed
    assert missed > 0 and result.se == pytest.approx(math.sqrt((1 - n / 50) * spread / n), rel=1e-12)


@pytest.mark.parametrize("shape", ["lenient", "weak model", "halves", "continuous"])
@pytest.mark.parametrize("n", [20, 40, 45])
def test_with_bounds_the_estimate_and_interval_keep_to_the_labelled_items_bound(shape: str, n: int):
    human, judge, unlabelled = _scores(np.random.default_rng(n), n, 46 - n, shape)
    if shape == "continuous":
        human, judge, unlabelled = (np.clip(a, 0, 5) for a in (human, judge, unlabelled))
    bottom, top = labelled_bounds(float(human.sum()), n, 46, (0.0, 5.0))
    free = ppi_mean(human, judge, unlabelled)
    for result in (
        ppi_mean(human, judge, unlabelled, bounds=(0.0, 5.0)),
        sampled_mean(human, 46, bounds=(0.0, 5.0)),
    ):
        assert bottom - 1e-12 <= result.lo <= result.estimate <= result.hi <= top + 1e-12
    cut = ppi_mean(human, judge, unlabelled, bounds=(0.0, 5.0))
    assert cut.lo == pytest.approx(min(max(free.lo, bottom), top)) and cut.hi == pytest.approx(
        max(min(free.hi, top), bottom)
    )


def test_every_item_but_one_labelled_reaches_the_mean_with_a_rare_score_left():
    """45 of 46 labelled, 3 of them 0 and the rest 5: the last item may be a 0 too.

    It is one as often as 1 in 15 of the labels, so the interval must reach the mean with it at 0,
    the labelled items' bound (it stopped at 4.61 before).
    """
    human = np.array([5.0] * 42 + [0.0] * 3)
    bottom, top = labelled_bounds(float(human.sum()), 45, 46, (0.0, 5.0))
    for result in (
        sampled_mean(human, 46, bounds=(0.0, 5.0)),
        ppi_mean(human, human + 0.0, np.array([5.0]), bounds=(0.0, 5.0)),
    ):
        assert result.lo == pytest.approx(bottom) and result.estimate < result.hi <= top


def _past_half(shape: str, total: int) -> tuple[np.ndarray, np.ndarray]:
    """Human and judge scores of a skewed shape: about 1 in 15 off the commonest score, on one side or both."""
    index = np.arange(total)
    rare = index % 15 == 7
    if shape == "rare 0s":
        human = np.where(rare, 0.0, 5.0)
    elif shape == "rare 5s":
        human = np.where(rare, 5.0, 0.0)
    else:  # rare on both sides of the commonest score
        human = np.where(rare, np.where(index % 30 == 7, 0.0, 5.0), 2.0)
    return human, np.clip(human + np.where(index % 7 == 3, 1.0, 0.0), 0, 5)


@pytest.mark.parametrize("shape", ["rare 0s", "rare 5s", "rare on both sides"])
@pytest.mark.parametrize(("n", "total"), [(30, 46), (40, 46), (150, 200), (190, 200)])
def test_past_half_of_the_items_both_ends_widen_alike(shape: str, n: int, total: int):
    """Past half of the items the rare scores' side is widened too, as far as the other (it kept the t end).

    The unlabelled remainder is a mean of a few items that may hold the rare scores of either side;
    the interval stays inside what the labelled items alone allow.
    """
    human, judge = _past_half(shape, total)
    bottom, top = labelled_bounds(float(human[:n].sum()), n, total, (0.0, 5.0))
    for result, df in (
        (sampled_mean(human[:n], total, bounds=(0.0, 5.0)), n - 1),
        (ppi_mean(human[:n], judge[:n], judge[n:], bounds=(0.0, 5.0)), n - 2),
    ):
        assert result.estimate is not None and result.lo is not None and result.hi is not None and result.se
        reach = max(result.estimate - result.lo, result.hi - result.estimate)
        assert reach > stats.t.ppf(0.975, df) * result.se + 1e-9  # wider than the t interval
        assert result.lo == pytest.approx(max(result.estimate - reach, bottom), abs=1e-12)
        assert result.hi == pytest.approx(min(result.estimate + reach, top), abs=1e-12)
