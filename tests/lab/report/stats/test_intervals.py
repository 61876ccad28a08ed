"""The report's intervals: coverage at the edges the old ones missed, never zero width, too few said.

The seeded coverage checks here are small (a few hundred draws) and pin the cases issue 21.4
found broken; the full tables are ``bench/coverage.py``'s, in ``bench/results.md``.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score

from vivid_inspect.lab.report.stats.consistency import self_consistency
from vivid_inspect.lab.report.stats.intervals import (
    IDENTICAL,
    MIN_N_MEAN,
    RULES,
    Interval,
    interval_text,
    kappa_difference_interval,
    kappa_difference_intervals,
    kappa_interval,
    kappa_intervals,
    mean_difference_interval,
    mean_interval,
    mean_intervals,
    mean_kappa_interval,
    too_few,
)
from vivid_inspect.lab.report.stats.kappa_bounds import (
    confusion_of,
    jackknife_z_bounds_of_counts,
    kappa_of_counts,
    score_bounds_of_counts,
)

LABELS = list(range(6))
Z = 1.959963984540054


def _coverage(draws: list[Interval], truth: float) -> float:
    made = [d for d in draws if d.lo is not None and d.hi is not None]
    assert made, "no interval was made"
    return sum(d.lo <= truth <= d.hi for d in made) / len(made)  # type: ignore[operator]


def _wilson_bounded_width(values: np.ndarray) -> float:
    """The old interval's width: Wilson at the largest variance a 0-5 mean can have."""
    n, p = values.size, values.mean() / 5
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    return 10 * half


# --- means -----------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [0.0, 5.0, 2.0])
def test_a_constant_sample_still_has_a_non_zero_width(value: float) -> None:
    interval = mean_interval([value] * 20)
    assert interval.estimate == value
    assert interval.lo is not None and interval.hi is not None
    assert interval.lo <= value <= interval.hi
    assert interval.hi - interval.lo > 0
    assert interval.lo >= 0.0 and interval.hi <= 5.0


def test_below_the_fewest_scores_the_cell_says_why() -> None:
    interval = mean_interval([3.0] * (MIN_N_MEAN - 1))
    assert interval.lo is None and interval.hi is None
    assert interval.reason == too_few(MIN_N_MEAN - 1)
    assert interval.estimate == 3.0


def test_nan_scores_are_left_out() -> None:
    interval = mean_interval([1.0, math.nan, 3.0, 2.0, 2.0, 2.0])
    assert interval.n == 5 and interval.estimate == 2.0


def test_no_scores() -> None:
    interval = mean_interval([])
    assert interval.estimate is None and interval.n == 0 and interval.reason == "no scores"


@pytest.mark.parametrize(
    ("n", "mean"),
    [
        pytest.param(5, 0.18, id="n5-mean0.18"),  # the Wilson interval covered 83 % here
        pytest.param(20, 0.13, id="n20-mean0.13"),  # and 90 % here
    ],
)
def test_the_mean_holds_a_rare_five_among_zeros(n: int, mean: float) -> None:
    rng = np.random.default_rng(3)
    draws = [mean_interval(5.0 * (rng.random(n) < mean / 5)) for _ in range(400)]
    assert _coverage(draws, mean) >= 0.93


def test_the_mean_holds_a_weak_models_mostly_zero_scores_at_eight_items() -> None:
    # The bootstrap percentile interval covered 86 % at n=8 (issue 21.4).
    p = np.array([0.88, 0.08, 0.02, 0.01, 0.005, 0.005])
    truth = float(np.arange(6) @ p)
    rng = np.random.default_rng(4)
    draws = [mean_interval(rng.choice(6, size=8, p=p).astype(float)) for _ in range(400)]
    assert _coverage(draws, truth) >= 0.93


@pytest.mark.parametrize(
    ("p", "ratio"),
    [
        pytest.param([0.04, 0.06, 0.10, 0.20, 0.30, 0.30], 0.85, id="paper-like-spread"),
        pytest.param([0.0, 0.02, 0.13, 0.55, 0.28, 0.02], 0.6, id="concentrated-on-3-4"),
    ],
)
def test_the_mean_interval_is_tighter_than_the_bounded_variance_wilson(p: list[float], ratio: float) -> None:
    values = np.random.default_rng(5).choice(6, size=200, p=p).astype(float)
    interval = mean_interval(values)
    assert interval.hi - interval.lo < ratio * _wilson_bounded_width(values)  # type: ignore[operator]


def test_the_mean_interval_lies_within_the_bounds_given() -> None:
    interval = mean_interval([-1.0, 0.0, 1.0, 1.0, 0.5, -0.5], low=-1.0, high=1.0)
    assert interval.lo is not None and interval.hi is not None
    assert -1.0 <= interval.lo < interval.estimate < interval.hi <= 1.0  # type: ignore[operator]


def test_a_mean_difference_of_identical_sides_has_no_interval() -> None:
    scores = [3.0, 4.0, 5.0, 1.0, 0.0, 2.0]
    interval = mean_difference_interval(scores, scores)
    assert (interval.estimate, interval.lo, interval.hi, interval.reason) == (0.0, None, None, IDENTICAL)


# --- kappa -----------------------------------------------------------------------------------


def _noisy(rng: np.random.Generator, n: int, agree: float) -> tuple[np.ndarray, np.ndarray]:
    human = rng.choice(6, size=n, p=[0.04, 0.06, 0.10, 0.20, 0.30, 0.30])
    shift = rng.choice([-1, 0, 1], size=n, p=[0.4, 0.2, 0.4])
    judge = np.where(rng.random(n) < agree, human, np.clip(human + shift, 0, 5))
    return human, judge


@pytest.mark.parametrize("weights", ["unweighted", "quadratic"])
def test_the_estimate_is_scikit_learns_kappa(weights: str) -> None:
    rng = np.random.default_rng(6)
    for n in (5, 12, 60):
        human, judge = _noisy(rng, n, 0.6)
        interval = kappa_interval(human, judge, weights=weights)
        expected = cohen_kappa_score(
            human, judge, labels=LABELS, weights=None if weights == "unweighted" else weights
        )
        assert interval.estimate == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("n", [5, 8, 10, 20])
def test_perfect_agreement_prints_no_zero_width_interval(n: int) -> None:
    scores = np.array([0, 1, 2, 3, 4, 5, 3, 4, 2, 1] * 2)[:n]
    for weights in ("unweighted", "quadratic"):
        interval = kappa_interval(scores, scores, weights=weights)
        assert interval.estimate == 1.0
        if interval.lo is None:
            assert interval.reason == too_few(n)
        else:
            assert interval.lo < 1.0 and interval.hi == 1.0
            assert interval_text(interval) != "[1.000, 1.000]"


@pytest.mark.slow
def test_kappa_holds_a_planted_084_at_ten_items() -> None:
    # Planted kappa 0.84 from a joint table: the bootstrap percentile interval covered 71 % at n=10.
    margin = np.array([0.04, 0.06, 0.10, 0.20, 0.30, 0.30])
    noisy = np.zeros((6, 6))
    for score, p in enumerate(margin):
        for shift, q in ((-1, 0.5), (1, 0.5)):
            noisy[score, min(max(score + shift, 0), 5)] += p * q

    def kappa_of(t: float) -> float:
        joint = t * np.diag(margin) + (1 - t) * noisy
        rows, cols = joint.sum(1), joint.sum(0)
        return float((np.trace(joint) - rows @ cols) / (1 - rows @ cols))

    t = next(x for x in np.linspace(0, 1, 100001) if kappa_of(x) >= 0.84)
    joint = t * np.diag(margin) + (1 - t) * noisy
    truth = kappa_of(t)
    assert truth == pytest.approx(0.84, abs=1e-4)
    rng = np.random.default_rng(7)
    draws = []
    for _ in range(400):
        cells = rng.choice(36, size=10, p=joint.ravel())
        # min_n=2: the method itself on a spread-out shape (the report prints kappa's from RULES' n).
        draws.append(kappa_interval(cells // 6, cells % 6, min_n=2))
    assert _coverage([d for d in draws if d.estimate is not None], truth) >= 0.93


def test_a_constant_side_has_no_kappa_and_no_interval() -> None:
    interval = kappa_interval(np.array([3, 3, 3, 3, 3, 3]), np.array([1, 2, 3, 4, 5, 3]))
    assert interval.estimate is None and interval.lo is None and interval.reason == "kappa undefined"


def test_below_the_kappa_rule_the_cell_says_too_few() -> None:
    fewest = RULES["weighted_kappa"].min_n
    human = np.resize(np.array([0, 1, 2, 3, 4, 5, 2, 3, 4, 1]), fewest - 1)
    judge = np.roll(human, 1)
    interval = kappa_interval(human, judge, weights="quadratic")
    assert interval.estimate is not None and interval.lo is None
    assert interval.reason == too_few(fewest - 1)
    assert interval_text(interval) == f"too few items for a 95 % interval (n={fewest - 1})"


@pytest.mark.slow
def test_no_interval_the_report_makes_has_zero_width() -> None:
    rng = np.random.default_rng(8)
    for n, agree in itertools.product((5, 8, 12, 30), (0.0, 0.5, 0.9, 1.0)):
        for _ in range(20):
            human, judge = _noisy(rng, n, agree)
            other = np.where(rng.random(n) < 0.5, judge, human)
            made = [
                kappa_interval(human, judge),
                kappa_interval(human, judge, weights="quadratic"),
                mean_interval(judge.astype(float)),
                mean_difference_interval(judge, other),
                kappa_difference_interval(human, judge, other),
                mean_kappa_interval([(human, judge), (human, other)], statistic="kappa_per_annotator"),
            ]
            for interval in made:
                if interval.lo is not None:
                    assert interval.hi is not None and interval.hi - interval.lo > 0, interval


# --- per annotator, self-consistency, differences --------------------------------------------


@pytest.mark.slow
def test_the_per_annotator_kappa_holds_at_twelve_items() -> None:
    # Issue 21.4: the bootstrap interval of the per-annotator kappa covered 85 % at 12 items.
    rng = np.random.default_rng(9)
    draws = []
    for _ in range(300):
        # min_n=2: the method itself on a spread-out shape (the report prints it from RULES' n).
        pairs = [_noisy(rng, 12, 0.7) for _ in ("a", "b")]
        draws.append(mean_kappa_interval(pairs, statistic="kappa_per_annotator", min_n=2))
    # The planted value: the population kappa of the same noisy judge, from a large sample.
    human, judged = _noisy(np.random.default_rng(10), 400_000, 0.7)
    truth = cohen_kappa_score(human, judged, labels=LABELS)
    assert _coverage([d for d in draws if d is not None], truth) >= 0.93


def test_the_mean_of_kappas_interval_is_the_mean_of_each_pairs_bounds() -> None:
    rng = np.random.default_rng(11)
    pairs = [_noisy(rng, 40, agree) for agree in (0.5, 0.8)]
    both = mean_kappa_interval(pairs, statistic="kappa_per_annotator", min_n=2)
    alone = [kappa_interval(a, b, min_n=2) for a, b in pairs]
    assert both.estimate == pytest.approx(np.mean([i.estimate for i in alone]))
    assert both.lo == pytest.approx(np.mean([i.lo for i in alone]))
    assert both.hi == pytest.approx(np.mean([i.hi for i in alone]))


def test_self_consistency_kappa_gets_an_interval() -> None:
    rng = np.random.default_rng(12)
    human, judge = _noisy(rng, 60, 0.8)
    result = self_consistency([dict(enumerate(human.tolist())), dict(enumerate(judge.tolist()))])
    assert result.mean_kappa_lo is not None and result.mean_kappa_hi is not None
    assert result.mean_kappa_lo < result.mean_kappa < result.mean_kappa_hi  # type: ignore[operator]
    assert result.interval == kappa_interval(human, judge, min_n=RULES["self_consistency_kappa"].min_n)


def test_a_judge_repeating_itself_exactly_on_eight_items_prints_no_one_to_one_interval() -> None:
    runs = [{i: s for i, s in enumerate([0, 1, 2, 3, 4, 5, 3, 4])}] * 2
    result = self_consistency(runs)
    assert result.mean_kappa == 1.0
    assert result.interval is not None
    assert (result.mean_kappa_lo, result.mean_kappa_hi) != (1.0, 1.0)
    assert interval_text(result.interval) != "[1.000, 1.000]"


def test_a_kappa_difference_of_identical_judges_has_no_interval() -> None:
    human, judge = _noisy(np.random.default_rng(13), 50, 0.6)
    interval = kappa_difference_interval(human, judge, judge.copy())
    assert interval.estimate == 0.0 and interval.lo is None and interval.reason == IDENTICAL


def test_the_kappa_difference_is_the_difference_of_the_kappas() -> None:
    rng = np.random.default_rng(14)
    human, first = _noisy(rng, 80, 0.8)
    _, second = _noisy(rng, 80, 0.3)
    interval = kappa_difference_interval(human, first, second)
    expected = cohen_kappa_score(human, first, labels=LABELS) - cohen_kappa_score(
        human, second, labels=LABELS
    )
    assert interval.estimate == pytest.approx(expected, abs=1e-12)
    if interval.lo is not None:
        assert interval.lo < interval.estimate < interval.hi  # type: ignore[operator]
    else:
        assert interval.reason == too_few(80)


def test_interval_text() -> None:
    assert interval_text(Interval(0.5, 0.25, 0.75, 10)) == "[0.250, 0.750]"
    assert interval_text(Interval(0.5, None, None, 3, too_few(3))) == too_few(3)
    assert interval_text(Interval(None, None, None, 0, "no scores")) == ""


def test_every_rule_names_its_method_and_a_measured_n() -> None:
    for statistic, rule in RULES.items():
        assert rule.method, statistic
        assert rule.min_n in (5, 8, 10, 15, 20, 30, 50, 100, 200), statistic


def test_the_rules_are_those_the_bench_measured() -> None:
    # bench/results.md keeps the coverage runs' threshold tables: RULES never prints an interval
    # below the n from which the bench measured coverage of at least 93 % on every planted value.
    results = (Path(__file__).resolve().parents[3].parent / "bench" / "results.md").read_text(
        encoding="utf-8"
    )
    section = results[results.index("## Coverage of the printed intervals") :]
    measured: dict[str, int | None] = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 14 and cells[0] in RULES:  # the extended grid's table (n = 5 ... 200)
            measured[cells[0]] = int(cells[10]) if cells[10] else None
            assert int(cells[11]) == RULES[cells[0]].min_n, cells[0]
        elif len(cells) == 13 and cells[0] in RULES:  # the older layout, with the method
            measured[cells[0]] = int(cells[10]) if cells[10] else None
            assert cells[1] == RULES[cells[0]].method, cells[0]
            assert int(cells[11]) == RULES[cells[0]].min_n, cells[0]
    assert set(measured) == set(RULES)
    for statistic, derived in measured.items():
        assert derived is not None and RULES[statistic].min_n >= derived, statistic


# --- the batched forms and the jackknife on Fisher's z (issue 29.3) ---------------------------


def _by_hand_jackknife_z(first: np.ndarray, second: np.ndarray, weights: str) -> tuple[float, float]:
    """The jackknife on atanh(kappa), item by item with scikit-learn, as the docstring states it."""
    sk = None if weights == "unweighted" else "quadratic"
    n = first.size
    z = math.atanh(min(max(cohen_kappa_score(first, second, labels=LABELS, weights=sk), -0.999), 0.999))
    left = np.array(
        [
            math.atanh(
                min(
                    max(
                        cohen_kappa_score(
                            np.delete(first, i), np.delete(second, i), labels=LABELS, weights=sk
                        ),
                        -0.999,
                    ),
                    0.999,
                )
            )
            for i in range(n)
        ]
    )
    spread = math.sqrt((n - 1) / n * float(((left - left.mean()) ** 2).sum()))
    agreeing = max(int(np.sum((first == s) & (second == s))) for s in LABELS)
    half = float(stats.t.ppf(0.975, max(n - agreeing - 1, 1))) * spread
    return math.tanh(z - half), math.tanh(z + half)


@pytest.mark.parametrize("weights", ["unweighted", "quadratic"])
@pytest.mark.parametrize("seed", [1, 2])
def test_the_jackknife_on_z_is_the_item_by_item_jackknife(weights: str, seed: int) -> None:
    first, second = _noisy(np.random.default_rng(seed), 12, 0.6)
    lo, hi = jackknife_z_bounds_of_counts(confusion_of(first, second), weights, 0.95)
    assert (float(lo), float(hi)) == pytest.approx(_by_hand_jackknife_z(first, second, weights), abs=1e-9)


def test_the_jackknife_on_z_stays_in_range_and_holds_the_estimate() -> None:
    rng = np.random.default_rng(4)
    tables = np.array(
        [
            confusion_of(*_noisy(rng, int(n), agree))
            for n, agree in zip(rng.integers(3, 60, 300), rng.random(300), strict=True)
        ]
    )
    for weights in ("unweighted", "quadratic"):
        lo, hi = jackknife_z_bounds_of_counts(tables, weights, 0.95)
        kappa = kappa_of_counts(tables, weights)
        made = np.isfinite(lo)
        assert made.sum() > 200
        assert np.all(
            (lo[made] >= -1) & (lo[made] <= kappa[made]) & (kappa[made] <= hi[made]) & (hi[made] <= 1)
        )


def test_the_jackknife_on_z_gives_no_interval_when_every_item_agrees() -> None:
    scores = np.array([0, 1, 2, 3, 4, 5, 5, 5, 4, 3])
    lo, hi = jackknife_z_bounds_of_counts(confusion_of(scores, scores), "unweighted", 0.95)
    assert np.isnan(lo) and np.isnan(hi)
    interval = kappa_interval(scores, scores, min_n=2)  # the score interval still gives one
    assert interval.lo is not None and interval.lo < 1.0 and interval.hi == 1.0


@pytest.mark.parametrize("weights", ["unweighted", "quadratic"])
def test_the_kappa_interval_is_the_union_of_the_score_and_z_intervals(weights: str) -> None:
    first, second = _noisy(np.random.default_rng(5), 40, 0.5)
    table = confusion_of(first, second)
    score = score_bounds_of_counts(table, weights, 0.95)
    z = jackknife_z_bounds_of_counts(table, weights, 0.95)
    interval = kappa_interval(first, second, weights=weights, min_n=2)
    assert interval.lo == pytest.approx(min(score[0], z[0])) and interval.hi == pytest.approx(
        max(score[1], z[1])
    )


def test_a_skewed_table_reaches_higher_than_the_score_interval_alone() -> None:
    # 90 % of the items scored 5 by both; the misses of the score interval were above it.
    first = np.array([5] * 36 + [4, 3, 4, 0])
    second = np.array([5] * 36 + [5, 3, 3, 1])
    table = confusion_of(first, second)
    high = kappa_interval(first, second, weights="quadratic", min_n=2).hi
    assert high is not None and high > float(score_bounds_of_counts(table, "quadratic", 0.95)[1])


def test_the_batched_forms_equal_the_one_at_a_time_functions() -> None:
    rng = np.random.default_rng(6)
    for n in (5, 31):
        reference, first = _noisy(rng, n * 8, 0.6)
        _, second = _noisy(rng, n * 8, 0.4)
        rows = [x.reshape(8, n) for x in (reference, first, second)]
        _, lo, hi = kappa_intervals(
            np.array([confusion_of(a, b) for a, b in zip(rows[0], rows[1], strict=True)])
        )
        _, dlo, dhi = kappa_difference_intervals(*rows)
        _, mlo, mhi = mean_intervals(rows[1].astype(float))
        for r in range(8):
            one = kappa_interval(rows[0][r], rows[1][r])
            assert (one.lo, one.hi) == ((None, None) if np.isnan(lo[r]) else pytest.approx((lo[r], hi[r])))
            diff = kappa_difference_interval(rows[0][r], rows[1][r], rows[2][r])
            assert (diff.lo, diff.hi) == (
                (None, None) if np.isnan(dlo[r]) else pytest.approx((dlo[r], dhi[r]))
            )
            mean = mean_interval(rows[1][r])
            assert (mean.lo, mean.hi) == pytest.approx((mlo[r], mhi[r]))


def _statistic_at(statistic: str, n: int) -> Interval:
    rng = np.random.default_rng(n)
    human, judge = _noisy(rng, n, 0.6)
    _, other = _noisy(rng, n, 0.3)
    if statistic == "mean":
        return mean_interval(judge.astype(float))
    if statistic == "mean_difference":
        return mean_difference_interval(judge, other)
    if statistic in ("kappa", "weighted_kappa"):
        return kappa_interval(human, judge, weights="unweighted" if statistic == "kappa" else "quadratic")
    if statistic in ("kappa_per_annotator", "self_consistency_kappa"):
        return mean_kappa_interval([(human, judge), (judge, other)], statistic=statistic)
    return kappa_difference_interval(human, judge, other)


GATED = [s for s in RULES if s != "corrected_mean"]


@pytest.mark.parametrize("statistic", GATED)
def test_each_statistic_prints_from_its_rules_n_and_says_why_below(statistic: str) -> None:
    fewest = RULES[statistic].min_n
    below, at = _statistic_at(statistic, fewest - 1), _statistic_at(statistic, fewest)
    assert below.estimate is not None and below.lo is None and below.hi is None
    assert below.reason == too_few(fewest - 1)
    assert interval_text(below) == f"too few items for a 95 % interval (n={fewest - 1})"
    assert at.lo is not None and at.hi is not None and at.reason is None
