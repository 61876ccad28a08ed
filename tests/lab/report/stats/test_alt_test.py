"""The alternative annotator test (report/stats/alt_test.py) against an implementation written here from the paper.

Calderon, Reichart and Dror (2025), §3: leave annotator j out; on each item j shares with another
annotator, compare S(judge) and S(j), S = -RMSE with the remaining annotators' scores; W_f and W_h
the indicators that each is at least as aligned; a one-sided one-sample t-test of W_h - W_f
against epsilon; Benjamini-Yekutieli over the annotators of one data set (a generation), as the
authors' reference code corrects per data set; omega = share rejected, rho = mean W_f. The mirror
test (W_h - W_f above epsilon) says whom the judge loses against.
The reference below uses scipy's ttest_1samp and its own BY step-up, none of the module's code.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Hashable, Mapping

import numpy as np
import pytest
from scipy import stats

from vivid_inspect.lab.report.stats.alt_test import (
    BELOW_MINIMUM,
    EPSILONS,
    FEW_ANNOTATORS,
    alt_test,
    alt_tests,
    epsilon_of,
)


def reference_alt_test(
    judge: Mapping[Hashable, float],
    humans: Mapping[str, Mapping[Hashable, float]],
    epsilon: float,
    q: float = 0.05,
) -> dict[str, object]:
    """The procedure as the paper states it, written independently of the module."""
    names = sorted(humans)
    per_annotator: dict[str, tuple[int, float, float, float]] = {}
    loss_p: dict[str, float] = {}
    for j in names:
        w_f, w_h = [], []
        for item in sorted(humans[j], key=str):
            others = [humans[h][item] for h in names if h != j and item in humans[h]]
            if not others or item not in judge:
                continue
            s_f = -math.sqrt(sum((judge[item] - o) ** 2 for o in others) / len(others))
            s_h = -math.sqrt(sum((humans[j][item] - o) ** 2 for o in others) / len(others))
            w_f.append(1 if s_f >= s_h else 0)
            w_h.append(1 if s_h >= s_f else 0)
        if len(w_f) < 2:
            continue
        with warnings.catch_warnings():  # constant differences: scipy warns, and returns p 0 or 1
            warnings.simplefilter("ignore", RuntimeWarning)
            p = stats.ttest_1samp(np.subtract(w_h, w_f), epsilon, alternative="less").pvalue
            p_loss = stats.ttest_1samp(np.subtract(w_h, w_f), epsilon, alternative="greater").pvalue
        per_annotator[j] = (len(w_f), float(np.mean(w_f)), float(np.mean(w_h)), float(p))
        loss_p[j] = float(p_loss)
    tested = list(per_annotator)
    m = len(tested)
    rejected = _benjamini_yekutieli({j: per_annotator[j][3] for j in tested}, q)
    return {
        "annotators": per_annotator,
        "won": rejected,
        "lost": _benjamini_yekutieli(loss_p, q),
        "loss_p": loss_p,
        "minimum": m >= 3 and all(per_annotator[j][0] >= 30 for j in tested),
        "omega": len(rejected) / m if m else None,
        "rho": float(np.mean([per_annotator[j][1] for j in tested])) if m else None,
    }


def _benjamini_yekutieli(p_values: Mapping[str, float], q: float) -> set[str]:
    """The step-up: reject the k smallest, k the largest with p_(k) <= k q / (m H_m)."""
    m = len(p_values)
    harmonic = sum(1 / k for k in range(1, m + 1))
    ordered = sorted(p_values, key=lambda j: p_values[j])
    k_max = 0
    for k, j in enumerate(ordered, start=1):
        if p_values[j] <= k * q / (m * harmonic):
            k_max = k
    return set(ordered[:k_max])


def _latent(rng: np.random.Generator, items: int) -> np.ndarray:
    return rng.choice(6, size=items, p=[0.05, 0.1, 0.15, 0.25, 0.25, 0.2])


def _annotator(rng: np.random.Generator, quality: np.ndarray, noise: float) -> np.ndarray:
    return np.clip(np.rint(quality + rng.normal(0, noise, quality.size)), 0, 5)


def fixture(name: str) -> tuple[dict[Hashable, float], dict[str, dict[Hashable, float]], float]:
    """Six designs: (judge scores, annotators' scores, epsilon)."""
    if name == "three annotators, a random judge":
        return _random_judge()
    rng = np.random.default_rng(sum(map(ord, name)))
    if name == "three annotators, every item shared":
        quality = _latent(rng, 40)
        humans = {a: dict(enumerate(_annotator(rng, quality, 0.7))) for a in ("an", "binh", "chi")}
        judge = dict(enumerate(_annotator(rng, quality, 0.8)))
        return judge, humans, 0.2
    if name == "two annotators, fifty shared":
        quality = _latent(rng, 50)
        humans = {a: dict(enumerate(_annotator(rng, quality, 0.9))) for a in ("lan", "minh")}
        judge = dict(enumerate(np.clip(_annotator(rng, quality, 0.6) + 1, 0, 5)))  # lenient
        return judge, humans, 0.15
    if name == "four annotators, two per item":
        quality = _latent(rng, 100)
        names = ("a1", "a2", "a3", "a4")
        humans: dict[str, dict[Hashable, float]] = {a: {} for a in names}
        for item in range(100):
            for a in rng.choice(names, size=2, replace=False):
                humans[str(a)][f"id{item}"] = float(np.clip(round(quality[item] + rng.normal(0, 0.8)), 0, 5))
        judge = {f"id{i}": float(v) for i, v in enumerate(_annotator(rng, quality, 0.5))}
        return judge, humans, 0.1
    if name == "three annotators, a judge averaged over epochs":
        quality = _latent(rng, 60)
        humans = {a: dict(enumerate(_annotator(rng, quality, 0.8))) for a in ("x", "y", "z")}
        epochs = np.stack([_annotator(rng, quality, 0.9) for _ in range(3)])
        judge = dict(enumerate(epochs.mean(axis=0)))  # thirds
        del judge[5], judge[17]  # two items the judge left unscored
        return judge, humans, 0.2
    # five annotators, thirty items, one annotator far off
    quality = _latent(rng, 30)
    humans = {a: dict(enumerate(_annotator(rng, quality, 0.6))) for a in ("p", "q", "r", "s")}
    humans["t"] = dict(enumerate(_annotator(rng, 5 - quality, 0.6)))
    judge = dict(enumerate(_annotator(rng, quality, 0.7)))
    return judge, humans, 0.2


def _random_judge() -> tuple[dict[Hashable, float], dict[str, dict[Hashable, float]], float]:
    rng = np.random.default_rng(61)
    quality = _latent(rng, 120)
    humans = {a: dict(enumerate(_annotator(rng, quality, 0.6))) for a in ("u", "v", "w")}
    return dict(enumerate(rng.integers(0, 6, size=120).astype(float))), humans, 0.2


FIXTURES = [
    "three annotators, every item shared",
    "two annotators, fifty shared",
    "four annotators, two per item",
    "three annotators, a judge averaged over epochs",
    "five annotators, thirty items, one far off",
    "three annotators, a random judge",
]


@pytest.mark.parametrize("name", FIXTURES)
def test_the_module_equals_the_papers_procedure(name: str):
    judge, humans, epsilon = fixture(name)
    ours = alt_test(judge, humans, epsilon=epsilon)
    expected = reference_alt_test(judge, humans, epsilon)
    annotators = expected["annotators"]
    assert isinstance(annotators, dict)
    assert {a.annotator for a in ours.annotators if a.p_value is not None} == set(annotators)
    for row in ours.annotators:
        n, judge_wins, annotator_wins, p = annotators[row.annotator]
        assert (row.n, row.judge_wins, row.annotator_wins) == (
            n,
            pytest.approx(judge_wins),
            pytest.approx(annotator_wins),
        )
        assert row.p_value == pytest.approx(p, abs=1e-12)
        assert row.p_loss == pytest.approx(expected["loss_p"][row.annotator], abs=1e-12)  # type: ignore[index]
        assert row.won == (row.annotator in expected["won"])  # type: ignore[operator]
        assert row.lost == (row.annotator in expected["lost"])  # type: ignore[operator]
    assert ours.winning_rate == pytest.approx(expected["omega"])
    assert ours.advantage == pytest.approx(expected["rho"])
    # below the authors' minimum design (3+ annotators, 30+ items each) omega is reported, never a pass
    assert ours.passed == ((expected["omega"] >= 0.5) if expected["minimum"] else None)  # type: ignore[operator]
    assert ours.outcome in ("yes", "no") if expected["minimum"] else ours.outcome.startswith(BELOW_MINIMUM)
    assert ours.ruled_out == (bool(expected["minimum"]) and len(expected["lost"]) > ours.tested / 2)  # type: ignore[arg-type]


def test_the_fixtures_are_not_all_one_outcome():
    """The designs exercise passes, failures and small designs, wins and losses, or equality would prove little."""
    results = [alt_test(*fixture(name)[:2], epsilon=fixture(name)[2]) for name in FIXTURES]
    assert {r.passed for r in results} == {True, False, None}
    assert any(0 < (r.winning_rate or 0) < 1 for r in results)
    assert any(any(a.lost for a in r.annotators) for r in results)


@pytest.mark.parametrize("seed", range(5))
def test_a_judge_equal_to_the_annotators_consensus_passes(seed: int):
    rng = np.random.default_rng(seed)
    quality = _latent(rng, 80)
    humans = {a: _annotator(rng, quality, 0.9) for a in ("a", "b", "c", "d")}
    consensus = np.rint(np.mean(list(humans.values()), axis=0))
    result = alt_test(dict(enumerate(consensus)), {a: dict(enumerate(s)) for a, s in humans.items()})
    assert result.passed is True and result.winning_rate is not None and result.winning_rate >= 0.5
    assert result.advantage is not None and result.advantage > 0.7


@pytest.mark.parametrize("seed", range(5))
def test_a_random_judge_fails(seed: int):
    rng = np.random.default_rng(100 + seed)
    quality = _latent(rng, 80)
    humans = {a: dict(enumerate(_annotator(rng, quality, 0.7))) for a in ("a", "b", "c")}
    random_judge = dict(enumerate(rng.integers(0, 6, size=80).astype(float)))
    result = alt_test(random_judge, humans, epsilon=0.2)
    assert result.passed is False and result.winning_rate == 0.0


@pytest.mark.parametrize("name", FIXTURES)
def test_a_larger_epsilon_never_lowers_omega(name: str):
    judge, humans, _ = fixture(name)
    rates = [alt_test(judge, humans, epsilon=e).winning_rate or 0.0 for e in np.linspace(0, 0.95, 40)]
    assert rates == sorted(rates)
    assert alt_test(judge, humans, epsilon=0.0).advantage == alt_test(judge, humans, epsilon=0.9).advantage


@pytest.mark.parametrize("count", [2, 3, 5])
def test_benjamini_yekutieli_runs_per_generation(count: int):
    """Several generations: each corrected on its own, so adding one never changes another's result."""
    cases = {name: fixture(name)[:2] for name in FIXTURES[:count]}
    together = alt_tests(cases, epsilon=0.15)
    for key, (judge, humans) in cases.items():
        alone = alt_test(judge, humans, epsilon=0.15)
        assert together[key] == alone
        expected = reference_alt_test(judge, humans, 0.15)
        assert {r.annotator for r in alone.annotators if r.won} == expected["won"]


def test_adding_a_generation_no_longer_changes_the_first_ones_wins():
    """Pooled over three generations, one FDR step would take a win from the four-annotator design."""
    cases = {name: fixture(name)[:2] for name in FIXTURES[:3]}
    merged_judge: dict[Hashable, float] = {}
    merged_humans: dict[str, dict[Hashable, float]] = {}
    for key, (judge, humans) in cases.items():  # one pooled test, each generation's annotators renamed apart
        merged_judge |= {(key, item): score for item, score in judge.items()}
        for annotator, scores in humans.items():
            merged_humans[f"{key}/{annotator}"] = {(key, item): s for item, s in scores.items()}
    pooled = reference_alt_test(merged_judge, merged_humans, 0.15)["won"]
    key = "four annotators, two per item"
    ours = alt_tests(cases, epsilon=0.15)[key]
    won = {r.annotator for r in ours.annotators if r.won}
    assert won != {name.split("/")[1] for name in pooled if name.startswith(key)}
    assert won == reference_alt_test(*cases[key], 0.15)["won"]


def test_a_small_design_is_reported_with_its_warnings():
    rng = np.random.default_rng(7)
    quality = _latent(rng, 12)
    humans = {a: dict(enumerate(_annotator(rng, quality, 0.5))) for a in ("lan", "minh")}
    result = alt_test(dict(enumerate(_annotator(rng, quality, 0.5))), humans)
    assert result.winning_rate is not None  # reported, not withheld
    assert (
        result.passed is None
        and result.outcome == f"{BELOW_MINIMUM} (2 annotators tested, fewest shared items 12)"
    )
    assert FEW_ANNOTATORS in result.warnings
    assert any("'lan' shares 12 item(s)" in w and "at least 30" in w for w in result.warnings)
    assert result.items == 12 and result.tested == 2


def test_annotators_who_share_nothing_are_left_out_and_named():
    humans = {"a": {1: 3.0, 2: 4.0, 3: 1.0}, "b": {1: 3.0, 2: 5.0, 3: 1.0}, "c": {9: 2.0}}
    result = alt_test({1: 3.0, 2: 4.0, 3: 2.0, 9: 2.0}, humans)
    assert [r.annotator for r in result.annotators if r.p_value is None] == ["c"]
    assert any("'c'" in w for w in result.warnings)
    assert result.tested == 2 and result.items == 3
    nobody = alt_test({1: 3.0}, {"a": {1: 3.0}})
    assert nobody.winning_rate is None and nobody.passed is None and nobody.outcome.startswith("not tested")
    assert any("fewer than two annotators" in w for w in nobody.warnings)


def test_epsilon_by_name_or_number():
    assert epsilon_of("expert") == 0.2 and epsilon_of(" Crowd ") == 0.1 and epsilon_of("0.15") == 0.15
    assert EPSILONS == {"expert": 0.2, "skilled": 0.15, "crowd": 0.1}
    for bad in ("1", "-0.1", "lots", "nan"):
        with pytest.raises(ValueError, match="expert \\(0.2\\)"):
            epsilon_of(bad)
