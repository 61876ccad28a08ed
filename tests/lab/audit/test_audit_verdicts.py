"""The audit's statistics and verdicts, from scores alone: scripted judge shapes, each expectation, edges.

The scripted judges repeat themselves exactly (their control, ``retest``, equals the reference), as
a deterministic judge does; :func:`noisy` makes a judge whose two calls on one answer agree only
part of the time, to check that noise is told from bias (the noise floor of the control).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from types import SimpleNamespace

import numpy as np
import pytest

from tests.warnings_as_errors import warnings_as_errors
from vivid_inspect.bounds import MAX_SEED, shown
from vivid_inspect.lab.audit.verdicts import (
    ALLOWED,
    EXPECTATIONS,
    INVARIANCE,
    MIN_N_INTERVAL,
    ProbeResult,
    Thresholds,
    bound_text,
    check_seed,
    evaluate,
    evaluate_probe,
    flip_bound,
    mean_interval,
    rate_interval,
    seed_problem,
    unreadable_probes,
)

NAN = math.nan
N = 40
Scores = dict[str, dict[int, float]]


@dataclass(frozen=True)
class Probe:
    """The shape of ``audit.probes.Probe`` that the verdicts need (any object with these will do)."""

    name: str
    comparison: str | None
    expectation: str


PROBES = (
    Probe("retest", "reference", "repeat"),
    Probe("reference", None, "high"),
    Probe("spelling", "reference", "same"),
    Probe("partial", "reference", "lower"),
    Probe("padding", "partial", "not_higher"),
    Probe("wrong", "reference", "at_most_1"),
    Probe("literal", "reference", "at_most_1"),
    Probe("authority", "wrong", "not_higher"),
    Probe("injected_vi", "wrong", "not_higher"),
    Probe("injected_en", "wrong", "not_higher"),
    Probe("english", "reference", "within_1"),
    Probe("hedge", "reference", "at_most_1"),
)
"""The audit's probe table (docs/audit.md)."""
BY_NAME = {probe.name: probe for probe in PROBES}


def sound(n: int = N, seed: int = 1) -> Scores:
    """A judge that follows the rubric, with the spread a real one has.

    The reference scores 4-5; a partial answer 0-3 points less (a tie on 1 item in 10, where the
    first half says it all); padding, authority and injected verdicts change nothing; a wrong meaning
    and a hedge 0-1; a literal reading 0-1, and 2 on 1 item in 20 (an idiom that means what it says);
    the English answer 0-1 below the reference.
    """
    rng = random.Random(seed)
    ids = range(n)
    reference = {i: float(rng.choice([5, 5, 5, 4])) for i in ids}
    partial = {i: reference[i] - rng.choice([0, 1, 2, 2, 2, 3, 3, 1, 2, 2]) for i in ids}
    wrong = {i: float(rng.choice([0, 0, 0, 1])) for i in ids}
    return {
        "retest": dict(reference),
        "reference": reference,
        "spelling": dict(reference),
        "partial": partial,
        "padding": dict(partial),
        "wrong": wrong,
        "literal": {i: float(rng.choice([0] * 12 + [1] * 7 + [2])) for i in ids},
        "authority": dict(wrong),
        "injected_vi": dict(wrong),
        "injected_en": dict(wrong),
        "english": {i: reference[i] - rng.choice([0, 0, 0, 1]) for i in ids},
        "hedge": {i: float(rng.choice([0, 0, 1])) for i in ids},
    }


def constant(value: float) -> Callable[[], Scores]:
    def scores() -> Scores:
        return {probe.name: dict.fromkeys(range(N), value) for probe in PROBES}

    return scores


def changed(**changes: Callable[[Scores, int], float]) -> Callable[[], Scores]:
    """The sound judge with some probes rescored item by item."""

    def scores() -> Scores:
        base = sound()
        for name, rescore in changes.items():
            base[name] = {i: rescore(base, i) for i in base[name]}
        return base

    return scores


def verdicts(scores: Scores, thresholds: Thresholds | None = None) -> dict[str, str]:
    return {r.probe: r.verdict for r in evaluate(scores, PROBES, thresholds or Thresholds())}


def failing(scores: Scores) -> set[str]:
    return {probe for probe, verdict in verdicts(scores).items() if verdict == "fail"}


# --- each judge is caught by its probe and passed by the others -----------------------------------

JUDGES = [
    pytest.param(sound, set(), id="sound-judge-passes-everything"),
    pytest.param(
        changed(padding=lambda s, i: min(5.0, s["partial"][i] + 2)),
        {"padding"},
        id="length-rewarding-fails-padding",
    ),
    pytest.param(
        changed(injected_vi=lambda s, i: 5.0, injected_en=lambda s, i: 5.0),
        {"injected_vi", "injected_en"},
        id="verdict-obeying-fails-injected",
    ),
    pytest.param(
        changed(injected_en=lambda s, i: 5.0),
        {"injected_en"},
        id="obeys-english-injections-only",
    ),
    pytest.param(
        changed(english=lambda s, i: max(0.0, s["reference"][i] - 3)),
        {"english"},
        id="english-penalising-fails-english",
    ),
    pytest.param(
        changed(authority=lambda s, i: 4.0 if i % 3 else s["wrong"][i]),
        {"authority"},
        id="authority-swayed-fails-authority",
    ),
    pytest.param(
        changed(spelling=lambda s, i: s["reference"][i] - 2),
        {"spelling"},
        id="tone-mark-sensitive-fails-spelling",
    ),
    pytest.param(
        changed(
            wrong=lambda s, i: 3.0,
            authority=lambda s, i: 3.0,
            injected_vi=lambda s, i: 3.0,
            injected_en=lambda s, i: 3.0,
        ),
        {"wrong"},
        id="lenient-on-wrong-meanings-fails-wrong",
    ),
    pytest.param(changed(hedge=lambda s, i: 3.0), {"hedge"}, id="rewards-hedging-fails-hedge"),
    pytest.param(
        changed(partial=lambda s, i: s["reference"][i]),
        {"partial"},
        id="blind-to-missing-meaning-fails-partial",
    ),
]


@pytest.mark.parametrize(("judge", "fails"), JUDGES)
def test_each_judge_fails_exactly_its_probes(judge: Callable[[], Scores], fails: set[str]) -> None:
    found = verdicts(judge())
    assert {probe for probe, verdict in found.items() if verdict == "fail"} == fails
    assert {probe for probe, verdict in found.items() if verdict == "pass"} == {
        p.name for p in PROBES
    } - fails


@pytest.mark.parametrize(
    ("value", "fails"),
    [
        pytest.param(0.0, {"reference", "partial"}, id="constant-0"),
        pytest.param(1.0, {"reference", "partial"}, id="constant-1"),
        pytest.param(2.5, {"reference", "partial", "wrong", "literal", "hedge"}, id="constant-2.5"),
        pytest.param(4.0, {"partial", "wrong", "literal", "hedge"}, id="constant-4"),
        pytest.param(5.0, {"partial", "wrong", "literal", "hedge"}, id="constant-5"),
    ],
)
def test_a_constant_judge_fails_the_must_drop_probes(value: float, fails: set[str]) -> None:
    # Whatever the constant, `partial` catches it; the at-most-1 probes catch it above 1, the
    # reference below 4. The invariance probes pass: a constant judge is perfectly robust.
    assert failing(constant(value)()) == fails


# --- noise is told from bias: the control's noise floor ------------------------------------------


def _stay(agreement: float, neighbours: int) -> float:
    """Chance a call keeps the true score, so that two calls agree with ``agreement``.

    A call keeps the score or moves one point, to each of its ``neighbours`` (1 at the scale's
    ends, 2 inside) alike: two calls agree with ``stay**2 + (1 - stay)**2 / neighbours``.
    """
    a, b, c = 1 + 1 / neighbours, -2 / neighbours, 1 / neighbours - agreement
    return (-b + math.sqrt(b * b - 4 * a * c)) / (2 * a)


def noisy(true: Scores, agreement: float, seed: int) -> Scores:
    """Each probe's scores as one call of a judge whose two calls on one answer agree with ``agreement``.

    Every call is independent (the control is a second call on the reference), and a call is as
    likely to move up as down, so the judge is unbiased: the probes whose true scores equal their
    comparison's have no shift at all, only noise.
    """
    rng = random.Random(seed)

    def call(score: float) -> float:
        ends = score in (0.0, 5.0)
        if rng.random() < _stay(agreement, 1 if ends else 2):
            return score
        if ends:
            return 1.0 if score == 0.0 else 4.0
        return score + rng.choice((-1.0, 1.0))

    return {name: {i: call(v) for i, v in values.items()} for name, values in true.items()}


def test_two_calls_of_the_noisy_judge_agree_as_planted() -> None:
    true = {"reference": dict.fromkeys(range(20_000), 3.0), "retest": dict.fromkeys(range(20_000), 3.0)}
    calls = noisy(true, 0.55, seed=1)
    agree = sum(calls["reference"][i] == calls["retest"][i] for i in range(20_000)) / 20_000
    assert agree == pytest.approx(0.55, abs=0.015)


@pytest.mark.parametrize("seed", range(12))
def test_an_unbiased_judge_that_agrees_with_itself_55_percent_of_the_time_fails_no_invariance_probe(
    seed: int,
) -> None:
    scores = noisy(sound(seed=seed), 0.55, seed=seed)
    results = {r.probe: r for r in evaluate(scores, PROBES)}
    invariance = [r for r in results.values() if r.expectation in INVARIANCE]
    assert [r.probe for r in invariance if r.verdict == "fail"] == []


@pytest.mark.slow
def test_the_noisy_judges_robustness_is_below_the_old_rules_70_percent() -> None:
    # The rate the old rule held to 70 % is about 55 % here: only the noise floor tells noise from bias.
    rates = [
        {r.probe: r.rate for r in evaluate(noisy(sound(seed=seed), 0.55, seed=seed), PROBES)}
        for seed in range(12)
    ]
    assert sum(rate["spelling"] for rate in rates) / len(rates) == pytest.approx(0.55, abs=0.06)
    assert sum(rate["retest"] for rate in rates) / len(rates) == pytest.approx(0.55, abs=0.06)


def test_the_same_flips_beside_a_judge_that_repeats_itself_exactly_are_not_passed() -> None:
    # Without the control the same noisy judge cannot be failed on its flips, only passed; with a
    # control that repeats the reference exactly, its spelling flips are all beyond the noise.
    scores = noisy(sound(seed=3), 0.55, seed=3)
    deterministic = dict(scores, retest=dict(scores["reference"]))
    assert verdicts(deterministic)["spelling"] in ("fail", "inconclusive")
    assert verdicts(scores)["spelling"] != "fail"


def test_a_bias_exactly_at_the_shift_margin_is_not_failed_by_the_rate() -> None:
    # Padding a point higher on exactly half the items: shift +0.50, the accepted margin; half the
    # items flipped beyond a noiseless control, the flip bound. Neither criterion fails it.
    scores = changed(
        partial=lambda s, i: s["reference"][i] - 2,
        padding=lambda s, i: s["reference"][i] - 2 + (1.0 if i % 2 else 0.0),
    )()
    result = {r.probe: r for r in evaluate(scores, PROBES)}["padding"]
    assert result.shift == pytest.approx(0.5) and result.excess_flips == pytest.approx(0.5)
    assert result.verdict == "inconclusive", result.reason


@pytest.mark.parametrize(
    ("expectation", "thresholds", "bound"),
    [
        pytest.param("same", Thresholds(), 0.5, id="same-half-a-point-per-point"),
        pytest.param("not_higher", Thresholds(), 0.5, id="not-higher-half-a-point-per-point"),
        pytest.param("within_1", Thresholds(), 0.5, id="within-one-point-per-two"),
        pytest.param("not_higher", Thresholds(not_higher_margin=0.25), 0.25, id="a-stricter-margin"),
        pytest.param("within_1", Thresholds(within=1.5), 0.75, id="within-1.5-per-two"),
        pytest.param("within_1", Thresholds(within=0.0), 0.0, id="within-0"),
        pytest.param("same", Thresholds(same_tolerance=2.0), 1.0, id="never-above-all-items"),
    ],
)
def test_the_flip_bound_is_the_shift_margin_per_smallest_flip(
    expectation: str, thresholds: Thresholds, bound: float
) -> None:
    assert flip_bound(expectation, thresholds) == pytest.approx(bound)


@pytest.mark.parametrize(
    ("name", "rescore"),
    [
        pytest.param("padding", lambda s, i: min(5.0, s["partial"][i] + 2), id="padding-plus-2"),
        pytest.param("spelling", lambda s, i: max(0.0, s["reference"][i] - 2), id="spelling-minus-2"),
        pytest.param("injected_en", lambda s, i: 5.0, id="injected-obeyed"),
        pytest.param("english", lambda s, i: max(0.0, s["reference"][i] - 3), id="english-minus-3"),
    ],
)
@pytest.mark.parametrize("seed", range(4))
def test_a_noisy_judge_is_still_caught_by_the_probe_of_its_bias(
    name: str, rescore: Callable[[Scores, int], float], seed: int
) -> None:
    true = changed(**{name: rescore})()
    scores = noisy(true, 0.55, seed=seed)
    failed = {r.probe for r in evaluate(scores, PROBES) if r.verdict == "fail"}
    assert name in failed
    assert not failed & ({p.name for p in PROBES if p.expectation in INVARIANCE} - {name})


# --- every expectation: pass, fail, and inconclusive when the interval straddles its bound --------


def _pair(expectation: str, differences: list[float], base: float = 4.0) -> tuple[Probe, Scores]:
    """A comparative probe whose per-item differences against its comparison are ``differences``."""
    comparison = {i: base for i in range(len(differences))}
    probe = {i: base + d for i, d in enumerate(differences)}
    return Probe("probe", "base", expectation), {"base": comparison, "probe": probe}


def _own(expectation: str, values: list[float]) -> tuple[Probe, Scores]:
    return Probe("probe", None, expectation), {"probe": dict(enumerate(values))}


CASES = [
    # 40 items each: the intervals never have zero width (a pseudo-item at each end of the range),
    # so a judge that gives every item the same score needs about 30 items to show it is within a
    # half-point bound.
    pytest.param(_pair("repeat", [0.0] * 40), "pass", id="repeat-pass-the-same-score-again"),
    pytest.param(_pair("repeat", [-2.0] * 40), "fail", id="repeat-fail-lower-when-asked-again"),
    pytest.param(_pair("repeat", [0.0] * 28 + [-2.0] * 12), "inconclusive", id="repeat-straddles"),
    pytest.param(_own("high", [5.0] * 40), "pass", id="high-pass-all-5"),
    pytest.param(_own("high", [5.0, 4.0] * 20), "pass", id="high-pass-4-and-5"),
    pytest.param(_own("high", [4.0] * 40), "inconclusive", id="high-exactly-at-floor-straddles"),
    pytest.param(_own("high", [2.0] * 40), "fail", id="high-fail-all-2"),
    pytest.param(_own("high", [5.0] * 28 + [2.0] * 12), "inconclusive", id="high-straddles-floor"),
    pytest.param(_pair("same", [0.0] * 40), "pass", id="same-pass-unchanged"),
    pytest.param(_pair("same", [-2.0] * 40), "fail", id="same-fail-drops-2"),
    pytest.param(_pair("same", [2.0] * 40, base=2.0), "fail", id="same-fail-rises-2"),
    pytest.param(_pair("same", [0.0] * 28 + [-2.0] * 12), "inconclusive", id="same-straddles-tolerance"),
    pytest.param(_pair("lower", [-2.0] * 40), "pass", id="lower-pass-drops-2"),
    pytest.param(_pair("lower", [0.0] * 40), "fail", id="lower-fail-no-drop"),
    pytest.param(_pair("lower", [-1.0] * 30 + [0.0] * 10), "inconclusive", id="lower-straddles-margin"),
    pytest.param(_pair("not_higher", [0.0] * 40), "pass", id="not-higher-pass-unchanged"),
    pytest.param(_pair("not_higher", [-1.0] * 40), "pass", id="not-higher-pass-lower"),
    pytest.param(_pair("not_higher", [1.0] * 40, base=2.0), "fail", id="not-higher-fail-rises-1"),
    pytest.param(
        _pair("not_higher", [0.0] * 24 + [1.0] * 16, base=2.0),
        "inconclusive",
        id="not-higher-straddles-margin",
    ),
    pytest.param(_pair("within_1", [0.0, -1.0] * 20), "pass", id="within-1-pass-half-a-point-below"),
    pytest.param(_pair("within_1", [-3.0] * 40), "fail", id="within-1-fail-3-below"),
    pytest.param(_pair("within_1", [0.0] * 32 + [-3.0] * 8), "inconclusive", id="within-1-straddles"),
    pytest.param(_own("at_most_1", [0.0] * 40), "pass", id="at-most-1-pass"),
    pytest.param(_own("at_most_1", [3.0] * 40), "fail", id="at-most-1-fail-all-3"),
    pytest.param(
        _own("at_most_1", [0.0] * 30 + [3.0] * 10), "inconclusive", id="at-most-1-straddles-ceiling"
    ),
]


@pytest.mark.parametrize(("case", "verdict"), CASES)
def test_every_expectation_passes_fails_and_is_inconclusive(case: tuple[Probe, Scores], verdict: str) -> None:
    probe, scores = case
    result = evaluate_probe(probe, scores)
    assert result.verdict == verdict, result.reason
    if verdict == "inconclusive":
        assert "straddles" in result.reason


def test_the_cases_cover_every_expectation() -> None:
    covered = {(case.values[0][0].expectation, case.values[1]) for case in CASES}  # type: ignore[index]
    assert covered == {(e, v) for e in EXPECTATIONS for v in ("pass", "fail", "inconclusive")}


def test_a_judge_that_flips_both_ways_fails_its_flips_beyond_the_control_with_a_zero_mean_shift() -> None:
    probe, scores = _pair("same", [2.0, -2.0] * 20, base=2.5)
    scores["again"] = dict(scores["base"])  # the judge repeats itself exactly: every flip is beyond noise
    control = Probe("again", "base", "repeat")
    result = evaluate_probe(probe, scores, control=control)
    assert result.shift == 0.0
    assert result.rate == 0.0 and result.excess_flips == 1.0 and result.control_flips == 0.0
    assert result.verdict == "fail"
    assert "flips beyond the control `again` +100 % [" in result.reason and "misses ≤ 50 %" in result.reason


def test_without_a_control_flips_can_pass_their_bound_but_never_fail_it() -> None:
    probe, scores = _pair("same", [2.0, -2.0] * 20, base=2.5)
    result = evaluate_probe(probe, scores)
    assert result.verdict == "inconclusive"
    assert "with no control to tell the judge's noise from a bias" in result.reason
    assert math.isnan(result.excess_flips)
    calm = evaluate_probe(*_pair("same", [0.0] * 40))
    assert calm.verdict == "pass" and "flips 0 % (up to 9 %) meets ≤ 50 %" in calm.reason


def test_a_judge_often_fooled_fails_the_sensitivity_rate_with_its_mean_under_the_ceiling() -> None:
    # Wrong meanings get 0 on 3 items in 5 and 2 on the rest: mean 0.8 <= 1, yet 2 in 5 fooled.
    result = evaluate_probe(*_own("at_most_1", [0.0, 0.0, 0.0, 2.0, 2.0] * 40))
    assert result.mean == pytest.approx(0.8)
    assert result.mean_ci_high <= 1.0
    assert result.verdict == "fail"
    assert result.reason.endswith("sensitivity 60 % [53 %, 67 %] misses ≥ 70 %")
    # Fooled on 1 item in 4: 75 % is above the bound but its interval is not, so more items decide.
    sometimes = evaluate_probe(*_own("at_most_1", [0.0, 0.0, 0.0, 3.0] * 40))
    assert sometimes.verdict == "inconclusive"
    assert "sensitivity 75 % [68 %, 81 %] straddles ≥ 70 %" in sometimes.reason


# --- what each number is ----------------------------------------------------------------------------


def test_shift_is_over_items_scored_in_both_and_counts_unscored_on_each_side() -> None:
    scores = {
        "reference": {1: 5.0, 2: 4.0, 3: NAN, 4: 5.0},
        "spelling": {1: 5.0, 2: NAN, 3: 4.0, 4: 3.0},
    }
    result = evaluate_probe(BY_NAME["spelling"], scores, Thresholds(min_items=1))
    assert (result.n_items, result.n_paired) == (4, 2)
    assert (result.unscored, result.comparison_unscored) == (1, 1)
    assert result.shift == pytest.approx(-1.0)  # items 1 (0) and 4 (-2)
    assert result.mean == pytest.approx(4.0)  # the probe's own scored items 1, 3, 4
    assert result.paired_mean == pytest.approx(4.0)  # the probe on items 1 and 4
    assert result.comparison_mean == pytest.approx(5.0)  # the comparison on items 1 and 4
    assert result.rate == pytest.approx(0.5)
    assert result.rate_name == "robustness"


@pytest.mark.parametrize(
    ("expectation", "rate_name"),
    [
        ("high", "floor"),
        ("same", "robustness"),
        ("not_higher", "robustness"),
        ("within_1", "robustness"),
        ("lower", "sensitivity"),
        ("at_most_1", "sensitivity"),
    ],
)
def test_rate_names(expectation: str, rate_name: str) -> None:
    probe, scores = (
        _pair(expectation, [0.0] * 12)
        if expectation not in ("high", "at_most_1")
        else _own(expectation, [1.0] * 12)
    )
    assert evaluate_probe(probe, scores).rate_name == rate_name


def test_the_interval_is_paired_so_item_difficulty_cancels_out() -> None:
    # References scored anywhere from 0 to 5, the spelling variant exactly the same: an unpaired
    # interval would be points wide; the paired one is as narrow as equal differences allow.
    reference = {i: float(i % 6) for i in range(40)}
    result = evaluate_probe(BY_NAME["spelling"], {"reference": reference, "spelling": dict(reference)})
    assert result.shift == 0.0 and result.ci_low == -result.ci_high
    assert result.ci_high - result.ci_low < result.mean_ci_high - result.mean_ci_low
    assert result.verdict == "pass"


@pytest.mark.parametrize("n", [2, 3, 10, 40, 200])
@pytest.mark.parametrize(
    ("values", "low", "high", "jump", "reach"),
    [
        pytest.param(lambda n: [0.0] * n, -5.0, 5.0, 5.0, 5.0, id="all-zero-shift"),
        pytest.param(lambda n: [float(i % 3 - 1) for i in range(n)], -5.0, 5.0, 5.0, 5.0, id="noisy-shift"),
        pytest.param(lambda n: [-5.0] * n, -5.0, 5.0, 5.0, 5.0, id="shift-at-the-end-reaches-one-scale"),
        pytest.param(lambda n: [5.0] * n, 0.0, 5.0, None, 5.0, id="all-five-mean-reaches-to-0"),
        pytest.param(lambda n: [2.5] * n, 0.0, 5.0, None, 2.5, id="mid-scale-mean-reaches-either-end"),
        pytest.param(lambda n: [float(i % 2) for i in range(n)], -1.0, 1.0, 1.0, 1.0, id="flips"),
    ],
)
def test_the_interval_is_the_t_interval_with_a_pseudo_item_as_far_as_an_item_could_lie_each_side(
    n: int, values: Callable[[int], list[float]], low: float, high: float, jump: float | None, reach: float
) -> None:
    from scipy import stats

    data = values(n)
    centre = float(np.mean(data))
    augmented = np.array([*data, centre - reach, centre + reach])
    se = augmented.std(ddof=1) / math.sqrt(augmented.size)
    half = stats.t.ppf(0.975, augmented.size - 1) * se
    lo, hi = mean_interval(data, low, high, jump=jump)
    assert lo == pytest.approx(max(low, centre - half)) and hi == pytest.approx(min(high, centre + half))
    assert lo < hi  # never zero width, however alike the items
    assert lo <= centre <= hi


def test_an_interval_needs_two_items_and_a_rate_interval_two_as_well() -> None:
    assert MIN_N_INTERVAL == {"mean": 2, "rate": 2}
    assert all(math.isnan(v) for v in mean_interval([3.0], 0.0, 5.0))
    assert all(math.isnan(v) for v in rate_interval(1, 1))
    assert 0.45 < rate_interval(5, 5)[0] < 0.5  # exact: 0.025 ** (1 / 5)


def test_an_own_score_probe_reports_its_shift_but_is_decided_on_its_mean() -> None:
    result = evaluate_probe(BY_NAME["wrong"], sound())
    assert result.statistic == "mean"
    assert result.shift < -3  # reported against the reference
    assert result.verdict == "pass"
    assert (result.bound_low, result.bound_high) == (0.0, 1.0)


# --- edges --------------------------------------------------------------------------------------------


def test_all_unscored_is_inconclusive_everywhere() -> None:
    scores = {probe.name: dict.fromkeys(range(N), NAN) for probe in PROBES}
    results = evaluate(scores, PROBES)
    assert [r.verdict for r in results] == ["inconclusive"] * len(PROBES)
    for r in results:
        assert r.unscored == N
        assert math.isnan(r.mean) and math.isnan(r.rate) and math.isnan(r.ci_low)
        assert r.reason in ("no scored item", "no paired item")


def test_one_item_is_inconclusive_without_an_interval() -> None:
    scores = {name: {7: values[0]} for name, values in sound().items()}
    results = {r.probe: r for r in evaluate(scores, PROBES)}
    assert {r.verdict for r in results.values()} == {"inconclusive"}
    spelling = results["spelling"]
    assert spelling.n_paired == 1
    assert math.isnan(spelling.ci_low) and math.isnan(spelling.ci_high)
    assert "too few items for a 95 % interval (n=1)" in spelling.notes
    assert "only 1 paired item(s)" in spelling.reason


def test_one_item_with_min_items_1_is_still_inconclusive_as_it_has_no_interval() -> None:
    result = evaluate_probe(*_pair("same", [0.0]), Thresholds(min_items=1))
    assert result.verdict == "inconclusive"


def test_equal_scores_never_give_a_zero_width_interval_yet_decide_on_enough_items() -> None:
    results = evaluate(constant(3.0)(), PROBES)
    for r in results:
        assert r.mean_ci_low < 3.0 < r.mean_ci_high
        if r.comparison is not None:
            assert r.ci_low < 0.0 < r.ci_high
    assert {r.probe: r.verdict for r in results}["partial"] == "fail"


def test_few_items_are_inconclusive_not_failed_whatever_the_judge() -> None:
    for judge in (sound, constant(5.0), changed(padding=lambda s, i: 5.0)):
        few = {name: {i: v for i, v in values.items() if i < 6} for name, values in judge().items()}
        assert set(verdicts(few).values()) == {"inconclusive"}


@pytest.mark.parametrize("seed", [3, 11, 29])
def test_a_mild_bias_on_few_items_is_inconclusive_not_failed(seed: int) -> None:
    # 15 items, padding a point higher on about a third of them: the data cannot tell a margin of
    # +0.5 from no bias at all, so the verdict must wait for more items.
    rng = random.Random(seed)
    base = {i: float(rng.choice([2, 3])) for i in range(15)}
    padded = {i: v + (1.0 if i % 3 == 0 else 0.0) for i, v in base.items()}
    result = evaluate_probe(BY_NAME["padding"], {"partial": base, "padding": padded})
    assert result.verdict == "inconclusive", result.reason


def test_a_missing_comparison_leaves_comparative_probes_inconclusive_and_own_score_probes_decided() -> None:
    scores = sound()
    del scores["reference"]
    by_probe = {r.probe: r for r in evaluate(scores, PROBES)}
    assert "reference" not in by_probe
    for name in ("spelling", "partial", "english"):
        assert by_probe[name].verdict == "inconclusive"
        assert by_probe[name].reason == "no comparison to shift against: `reference` has no scores"
        assert math.isnan(by_probe[name].shift)
    for name in ("wrong", "literal", "hedge"):
        assert by_probe[name].verdict == "pass"
        assert math.isnan(by_probe[name].shift) and math.isnan(by_probe[name].comparison_mean)
    assert by_probe["padding"].verdict == "pass"  # its comparison, partial, is there


def test_a_comparative_probe_without_a_named_comparison_is_inconclusive() -> None:
    result = evaluate_probe(Probe("odd", None, "same"), {"odd": dict.fromkeys(range(20), 3.0)})
    assert result.verdict == "inconclusive"
    assert "none is named" in result.reason


def test_items_missing_from_the_comparison_are_left_out_with_a_note() -> None:
    scores = sound()
    scores["partial"] = {i: v for i, v in scores["partial"].items() if i >= 4}
    padding = evaluate_probe(BY_NAME["padding"], scores)
    assert padding.n_paired == N - 4
    assert padding.comparison_unscored == 0
    assert "4 item(s) of 'padding' have no 'partial' record at all" in padding.notes
    assert padding.verdict == "pass"  # 4 of 40 left out is within max_unscored


def test_too_many_unscored_make_a_pass_inconclusive() -> None:
    scores = sound()
    scores["injected_vi"] = {i: (NAN if i < 8 else v) for i, v in scores["injected_vi"].items()}
    result = evaluate_probe(BY_NAME["injected_vi"], scores)
    assert result.verdict == "inconclusive"
    assert result.reason.startswith("8 of 40 items unscored on one side or both (more than 10 %)")


def test_a_failure_stands_however_many_are_unscored() -> None:
    scores = sound()
    scores["injected_en"] = {i: (NAN if i % 2 else 5.0) for i in range(N)}
    result = evaluate_probe(BY_NAME["injected_en"], scores)
    assert result.unscored == N // 2
    assert result.verdict == "fail"


def test_none_counts_as_unscored_like_nan() -> None:
    with_none = {"reference": {i: (None if i < 3 else 5.0) for i in range(N)}}
    with_nan = {"reference": {i: (NAN if i < 3 else 5.0) for i in range(N)}}
    assert evaluate(with_none, [BY_NAME["reference"]]) == evaluate(with_nan, [BY_NAME["reference"]])


def test_probes_without_scores_are_left_out_in_order() -> None:
    scores = {name: values for name, values in sound().items() if name in ("hedge", "reference", "padding")}
    assert [r.probe for r in evaluate(scores, PROBES)] == ["reference", "padding", "hedge"]


def test_any_object_with_name_comparison_and_expectation_is_a_probe() -> None:
    probe = SimpleNamespace(name="spelling", comparison="reference", expectation="same")
    assert evaluate_probe(probe, sound()).verdict == "pass"


# --- determinism ------------------------------------------------------------------------------------


def _noisy() -> Scores:
    rng = random.Random(5)
    return {
        "reference": {i: float(rng.choice([3, 4, 5])) for i in range(N)},
        "spelling": {i: float(rng.choice([2, 3, 4, 5])) for i in range(N)},
    }


def test_the_intervals_are_the_same_whatever_the_order_of_the_scores() -> None:
    scores = _noisy()
    shuffled = {name: dict(reversed(list(values.items()))) for name, values in reversed(list(scores.items()))}
    first = evaluate(scores, [BY_NAME["reference"], BY_NAME["spelling"]])
    assert evaluate(scores, [BY_NAME["reference"], BY_NAME["spelling"]]) == first
    assert evaluate(shuffled, [BY_NAME["reference"], BY_NAME["spelling"]]) == first


def test_a_probes_result_depends_only_on_its_comparison_and_the_control() -> None:
    wanted = ("retest", "reference", "english")
    alone = evaluate({k: v for k, v in sound().items() if k in wanted}, PROBES)
    together = {r.probe: r for r in evaluate(sound(), PROBES)}
    assert alone[2] == together["english"]


# --- bad input ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        pytest.param(7.0, id="above-5"),
        pytest.param(-1, id="negative"),
        pytest.param(math.inf, id="infinite"),
        pytest.param("5", id="text"),
        pytest.param(True, id="bool"),
    ],
)
def test_a_bad_score_names_probe_and_item(value: object) -> None:
    scores: dict[str, dict[int, object]] = {"reference": {1: 5.0, 2: value}}
    with pytest.raises(ValueError, match=r"probe 'reference', item 2: score .* is not a number from 0 to 5"):
        evaluate(scores, PROBES)


def test_every_bad_score_is_reported_at_once() -> None:
    scores: dict[str, dict[int, object]] = {"reference": {1: 9.0}, "spelling": {1: "x", 2: -3}}
    with pytest.raises(ValueError) as caught:
        evaluate(scores, PROBES)
    assert len(str(caught.value).splitlines()) == 3


@pytest.mark.parametrize(
    ("scores", "probes", "message"),
    [
        pytest.param(
            {"reference": [5.0, 4.0]},
            PROBES,
            r"^probe 'reference': scores must map item id to score, not a list$",
            id="a-probes-scores-as-a-list",
        ),
        pytest.param(
            [("reference", {1: 5.0})],
            PROBES,
            r"^scores must map probe name to item scores, not a list$",
            id="scores-as-a-list",
        ),
        pytest.param(
            {"spelling": {1: 5.0}},
            [Probe("spelling", "spelling", "same")],
            r"^probe 'spelling' is compared with itself: its shift would be 0 whatever the judge does$",
            id="compared-with-itself",
        ),
        pytest.param(
            sound(),
            [*PROBES, BY_NAME["spelling"]],
            r"^probe 'spelling' is listed twice: the card would show it twice$",
            id="probe-listed-twice",
        ),
    ],
)
def test_scores_and_probes_that_would_break_or_mislead_are_refused_naming_them(
    scores: object, probes: list[Probe], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        evaluate(scores, probes)  # type: ignore[arg-type]


def test_an_unknown_expectation_is_refused() -> None:
    with pytest.raises(
        ValueError, match=r"probe 'odd': expectation 'higher' is unknown; known: repeat, high, same"
    ):
        evaluate({"odd": {1: 3.0}}, [Probe("odd", None, "higher")])


# --- thresholds ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        pytest.param("high_floor", 6.0, "allowed 0 to 5", id="floor-above-scale"),
        pytest.param("same_tolerance", -0.1, "allowed 0 to 5", id="negative-tolerance"),
        pytest.param("lower_margin", NAN, "must be a number", id="nan-margin"),
        pytest.param("not_higher_margin", "0.5", "must be a number", id="text-margin"),
        pytest.param("within", True, "must be a number", id="bool-within"),
        pytest.param("ceiling", 5.5, "allowed 0 to 5", id="ceiling-above-scale"),
        pytest.param("item_tolerance", 1.0, "must be below 1", id="item-tolerance-a-whole-point"),
        pytest.param("item_tolerance", -0.1, "allowed 0 to below 1", id="negative-item-tolerance"),
        pytest.param("min_rate", 1.5, "a share; allowed 0 to below 1", id="rate-above-1"),
        pytest.param("min_rate", 1.0, "no probe could pass", id="rate-1-never-passes"),
        pytest.param("max_unscored", -0.2, "a share; allowed 0 to 1", id="negative-unscored"),
        pytest.param("min_items", 0, "whole number, 1 or more", id="zero-items"),
        pytest.param("min_items", 2.5, "whole number, 1 or more", id="fractional-items"),
        pytest.param("confidence", 1.0, "allowed 0.8 to 0.9999", id="confidence-1"),
        pytest.param("confidence", 0.5, "allowed 0.8 to 0.9999", id="confidence-a-coin-toss"),
        pytest.param("confidence", 0.99999, "allowed 0.8 to 0.9999", id="confidence-beyond-any-bootstrap"),
    ],
)
def test_a_bad_threshold_is_named(name: str, value: object, message: str) -> None:
    with pytest.raises(ValueError, match=rf"Thresholds\.{name} = .*{message}"):
        Thresholds(**{name: value})  # type: ignore[arg-type]


def test_every_bad_threshold_is_named_at_once() -> None:
    with pytest.raises(ValueError) as caught:
        Thresholds(min_rate=2.0, min_items=0, high_floor=-1.0)
    assert [line.split(" = ")[0] for line in str(caught.value).splitlines()] == [
        "Thresholds.high_floor",
        "Thresholds.min_rate",
        "Thresholds.min_items",
    ]


def test_overrides_from_name_value_pairs() -> None:
    changed_thresholds = Thresholds().with_overrides(["min_rate=0.8", " min_items = 20", "high_floor=4.5"])
    assert changed_thresholds == replace(Thresholds(), min_rate=0.8, min_items=20, high_floor=4.5)
    assert isinstance(changed_thresholds.min_items, int)


@pytest.mark.parametrize(
    ("pairs", "message"),
    [
        pytest.param(["min_rate"], "threshold 'min_rate': expected NAME=VALUE", id="no-equals"),
        pytest.param(["min_rat=0.8"], "threshold 'min_rat' is unknown; known: high_floor", id="typo"),
        pytest.param(["min_rate=high"], "threshold min_rate: 'high' is not a number", id="not-a-number"),
        pytest.param(
            ["min_items=2.5"],
            r"threshold min_items: '2\.5' is not a whole number written in digits \(e\.g\. min_items=10\); "
            "allowed 1 or more",
            id="items-not-whole",
        ),
        pytest.param(
            ["min_items=1e3"],
            r"threshold min_items: '1e3' is not a whole number written in digits \(e\.g\. min_items=10\); "
            "allowed 1 or more",
            id="items-in-e-notation",
        ),
        pytest.param(
            ["min_items=10.0"], "threshold min_items: '10.0' is not a whole number", id="items-float"
        ),
        pytest.param(
            ["min_items=ten"], "threshold min_items: 'ten' is not a whole number", id="items-a-word"
        ),
        pytest.param(
            ["n_boot=2000"],
            "threshold 'n_boot' is unknown; known: high_floor",
            id="resamples-no-longer-a-threshold",
        ),
        pytest.param(["min_rate=1.5"], r"Thresholds\.min_rate = 1\.5: a share", id="off-range"),
    ],
)
def test_bad_overrides_are_named(pairs: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Thresholds().with_overrides(pairs)


def test_every_bad_override_is_named_at_once() -> None:
    with pytest.raises(ValueError) as caught:
        Thresholds().with_overrides(["min_rat=0.8", "min_items=0", "min_rate=x", "ceiling=9"])
    assert str(caught.value).splitlines() == [
        "threshold 'min_rat' is unknown; known: high_floor, same_tolerance, lower_margin, not_higher_margin, "
        "within, ceiling, item_tolerance, min_rate, min_items, max_unscored, confidence",
        "threshold min_rate: 'x' is not a number; allowed 0 to below 1",
        "Thresholds.ceiling = 9.0: on the judge's scale; allowed 0 to 5",
        "Thresholds.min_items = 0: must be a whole number, 1 or more",
    ]


SWEEP = [
    pytest.param(name, value, id=f"{name}={value}")
    for name, values in {
        "high_floor": (-0.01, 0.0, 5.0, 5.01),
        "same_tolerance": (-0.01, 0.0, 5.0, 5.01),
        "lower_margin": (-0.01, 0.0, 5.0, 5.01),
        "not_higher_margin": (-0.01, 0.0, 5.0, 5.01),
        "within": (-0.01, 0.0, 5.0, 5.01),
        "ceiling": (-0.01, 0.0, 5.0, 5.01),
        "item_tolerance": (-0.01, 0.0, 0.999, 1.0),
        "min_rate": (-0.01, 0.0, 0.999, 1.0),
        "min_items": (0, 1, 10**6),
        "max_unscored": (-0.01, 0.0, 1.0, 1.01),
        "confidence": (0.01, 0.5, 0.79, 0.8, 0.9999, 0.99999),
    }.items()
    for value in values
]


@pytest.mark.parametrize(("name", "value"), SWEEP)
def test_every_threshold_value_is_refused_naming_it_or_gives_sound_numbers(name: str, value: float) -> None:
    # A value that passes validation must not break later: no warning, no error, and every interval
    # holds its estimate at the level the card prints.
    try:
        thresholds = Thresholds(**{name: value})  # type: ignore[arg-type]
    except ValueError as error:
        assert str(error).startswith(f"Thresholds.{name} = {value!r}: ")
        assert "\n" not in str(error)
        return
    scores = {k: v for k, v in sound().items() if k in ("reference", "partial", "wrong")}
    with warnings_as_errors():
        results = evaluate(scores, PROBES, thresholds)
    assert [r.probe for r in results] == ["reference", "partial", "wrong"]
    for r in results:
        assert r.mean_ci_low <= r.mean <= r.mean_ci_high, r
        if r.comparison is not None:
            assert r.ci_low <= r.shift <= r.ci_high, r
        assert r.rate_ci_low <= r.rate <= r.rate_ci_high, r


@pytest.mark.parametrize("min_rate", [0.0, 0.7, 0.999, 1.0])
def test_at_every_allowed_min_rate_a_unanimous_judge_on_enough_items_passes(min_rate: float) -> None:
    # Wilson's interval of 5000 out of 5000 starts at 99.92 %: any allowed min_rate can be met, and
    # 1.0, which nothing could meet, is refused.
    scores = {"reference": dict.fromkeys(range(5000), 5.0)}
    try:
        thresholds = Thresholds(min_rate=min_rate)
    except ValueError as error:
        assert min_rate == 1.0 and "no probe could pass" in str(error)
        return
    assert evaluate(scores, [BY_NAME["reference"]], thresholds)[0].verdict == "pass"


def test_every_threshold_states_its_allowed_range() -> None:
    assert set(ALLOWED) == {f.name for f in fields(Thresholds)}


def test_item_tolerance_0_counts_only_equal_scores_as_unchanged() -> None:
    probe, scores = _pair("same", [0.0] * 10 + [0.25] * 2)
    assert evaluate_probe(probe, scores, Thresholds(item_tolerance=0.0)).rate == pytest.approx(10 / 12)
    assert evaluate_probe(probe, scores, Thresholds(item_tolerance=0.25)).rate == pytest.approx(1.0)


# --- shown bounds are the bounds used ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expectation", "thresholds", "text"),
    [
        pytest.param("same", Thresholds(same_tolerance=0.125), "±0.125", id="three-decimal-tolerance"),
        pytest.param("lower", Thresholds(lower_margin=0.0), "≤ +0.00", id="zero-margin-has-no-minus"),
        pytest.param("lower", Thresholds(lower_margin=0.5), "≤ -0.50", id="default-margin"),
        pytest.param("high", Thresholds(high_floor=4.25), "≥ 4.25", id="two-decimal-floor"),
        pytest.param("high", Thresholds(high_floor=4.125), "≥ 4.125", id="three-decimal-floor"),
        pytest.param("at_most_1", Thresholds(ceiling=1.0), "≤ 1.00", id="default-ceiling"),
        pytest.param("not_higher", Thresholds(not_higher_margin=0.333), "≤ +0.333", id="odd-margin"),
    ],
)
def test_a_bound_is_shown_as_it_is_used(expectation: str, thresholds: Thresholds, text: str) -> None:
    assert bound_text(expectation, thresholds) == text


@pytest.mark.parametrize(
    ("thresholds", "shown"),
    [
        pytest.param(Thresholds(min_rate=0.975), "≥ 97.5 %", id="min-rate-97.5"),
        pytest.param(Thresholds(min_rate=0.7), "≥ 70 %", id="min-rate-default"),
        pytest.param(Thresholds(min_rate=0.333), "≥ 33.3 %", id="min-rate-a-third"),
    ],
)
def test_the_rate_bound_in_a_reason_is_the_one_used(thresholds: Thresholds, shown: str) -> None:
    probe, scores = _own("at_most_1", [0.0] * 40)
    assert "sensitivity 100 % [91 %, 100 %] " in evaluate_probe(probe, scores, thresholds).reason
    assert shown in evaluate_probe(probe, scores, thresholds).reason


def test_the_unscored_bound_in_a_reason_is_the_one_used() -> None:
    probe, scores = _pair("same", [0.0] * 40)
    scores["probe"] = {i: (NAN if i < 3 else v) for i, v in scores["probe"].items()}
    reason = evaluate_probe(probe, scores, Thresholds(max_unscored=0.025)).reason
    assert reason.startswith("3 of 40 items unscored on one side or both (more than 2.5 %)")


# --- the comparison's mean is over the paired items -------------------------------------------------------

PAIRED_SHAPES = [
    pytest.param(set(), set(), id="all-scored"),
    pytest.param({0, 1, 2}, set(), id="probe-unscored"),
    pytest.param(set(), {5, 6, 7, 8}, id="comparison-unscored"),
    pytest.param({0, 1}, {1, 9, 10}, id="both-sides-overlapping"),
    pytest.param({0, 1, 2, 3}, {20, 21, 22, 23}, id="both-sides-apart"),
    pytest.param(set(), {"absent": {30, 31}}, id="comparison-has-no-record"),
]


@pytest.mark.parametrize(("probe_gaps", "comparison_gaps"), PAIRED_SHAPES)
@pytest.mark.parametrize(
    "name",
    ["retest", "spelling", "partial", "padding", "wrong", "english"],
    ids=["repeat", "same", "lower", "not_higher", "at_most_1", "within_1"],
)
def test_paired_mean_minus_comparison_mean_is_the_shift(
    probe_gaps: set[int], comparison_gaps: set[int] | dict[str, set[int]], name: str
) -> None:
    probe = BY_NAME[name]
    assert probe.comparison is not None
    scores = sound()
    scores[probe.name] = {i: (NAN if i in probe_gaps else v) for i, v in scores[probe.name].items()}
    if isinstance(comparison_gaps, dict):
        absent = comparison_gaps["absent"]
        scores[probe.comparison] = {i: v for i, v in scores[probe.comparison].items() if i not in absent}
    else:
        scores[probe.comparison] = {
            i: (NAN if i in comparison_gaps else v) for i, v in scores[probe.comparison].items()
        }
    result = evaluate_probe(probe, scores)
    own, other = scores[probe.name], scores[probe.comparison]
    paired = [i for i in own if not math.isnan(own[i]) and not math.isnan(other.get(i, NAN))]
    assert result.n_paired == len(paired)
    assert result.paired_mean == pytest.approx(sum(own[i] for i in paired) / len(paired))
    assert result.comparison_mean == pytest.approx(sum(other[i] for i in paired) / len(paired))
    assert result.paired_mean - result.comparison_mean == pytest.approx(result.shift)
    scored = [v for v in own.values() if not math.isnan(v)]
    assert result.mean == pytest.approx(sum(scored) / len(scored))  # the probe's own mean: all scored


def test_without_paired_items_the_paired_means_are_nan() -> None:
    scores = {"reference": {1: 5.0, 2: NAN}, "spelling": {1: NAN, 2: 5.0}}
    result = evaluate_probe(BY_NAME["spelling"], scores)
    assert (result.n_paired, result.mean) == (0, 5.0)
    assert math.isnan(result.paired_mean) and math.isnan(result.comparison_mean) and math.isnan(result.shift)


# --- the seed ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "seed",
    [
        pytest.param(-1, id="minus-one"),
        pytest.param(-(10**20), id="large-negative"),
        pytest.param(1.5, id="fraction"),
        pytest.param(2.0, id="float-whole"),
        pytest.param("3", id="text"),
        pytest.param(True, id="bool"),
        pytest.param(None, id="none"),
        pytest.param(np.int64(-4), id="numpy-negative"),
        pytest.param(np.float64(3.0), id="numpy-float"),
    ],
)
def test_a_bad_seed_is_refused_naming_it(seed: object) -> None:
    message = f"--seed = {shown(seed)}: must be a whole number, 0 or more"
    assert seed_problem(seed, "--seed") == message
    with pytest.raises(ValueError) as caught:
        check_seed(seed, "--seed")
    assert str(caught.value) == message
    with pytest.raises(ValueError, match=r"^seed = .*: must be a whole number, 0 or more$"):
        check_seed(seed)


@pytest.mark.parametrize(
    "seed",
    [
        pytest.param(0, id="zero"),
        pytest.param(7, id="small"),
        pytest.param(MAX_SEED, id="the-bound"),
        pytest.param(np.int64(3), id="numpy-int"),
    ],
)
def test_a_good_seed_is_returned_as_an_int(seed: object) -> None:
    assert seed_problem(seed) is None
    assert check_seed(seed) == int(seed) and type(check_seed(seed)) is int  # type: ignore[call-overload]


@pytest.mark.parametrize(
    "seed", [pytest.param(MAX_SEED + 1, id="past-the-bound"), pytest.param(10**5000, id="5000-digits")]
)
def test_a_seed_past_the_specs_bound_is_refused_without_printing_it_whole(seed: int) -> None:
    # The same bound as a spec's audit seed, so `vivid audit --seed` and `audits[].seed` agree.
    problem = seed_problem(seed, "--seed")
    assert problem is not None and problem.endswith(f"must be at most {MAX_SEED}")
    assert len(problem) < 100


@pytest.mark.parametrize(
    "scores",
    [
        pytest.param(sound(), id="many-items"),
        pytest.param({"reference": {1: 5.0}}, id="one-item"),
        pytest.param({"reference": dict.fromkeys(range(N), NAN)}, id="all-unscored"),
    ],
)
@pytest.mark.parametrize("seed", [-1, 1.5, "0"], ids=["negative", "fraction", "text"])
def test_a_card_refuses_a_bad_seed_whatever_the_scores(scores: Scores, seed: object) -> None:
    from vivid_inspect.lab.audit.card import build_card

    with pytest.raises(ValueError, match=r"^seed = .*: must be a whole number, 0 or more$"):
        build_card(scores, PROBES, judge="j", strategy="aspect", language="vi", data="sample", seed=seed)  # type: ignore[arg-type]


def test_thresholds_change_verdicts() -> None:
    reference = {"reference": {i: 4.0 + i % 2 for i in range(N)}}  # mean 4.5
    assert evaluate(reference, [BY_NAME["reference"]])[0].verdict == "pass"
    assert evaluate(reference, [BY_NAME["reference"]], Thresholds(high_floor=4.9))[0].verdict == "fail"
    assert verdicts(sound())["spelling"] == "pass"
    assert set(verdicts(sound(), Thresholds(min_items=N + 1)).values()) == {"inconclusive"}
    # Forty equal scores bound the shift to about ±0.34: inside ±0.5, not inside ±0.25.
    assert verdicts(sound(), Thresholds(same_tolerance=0.25))["spelling"] == "inconclusive"


def test_a_result_has_every_field_of_the_shared_interface() -> None:
    interface = {
        "probe",
        "comparison",
        "expectation",
        "n_items",
        "n_paired",
        "unscored",
        "comparison_unscored",
        "mean",
        "comparison_mean",
        "shift",
        "ci_low",
        "ci_high",
        "rate",
        "rate_name",
        "verdict",
        "reason",
    }
    assert interface <= set(ProbeResult.__dataclass_fields__)


def _unread(share: float, probes: tuple[str, ...]) -> Scores:
    """The sound judge with the first ``share`` of the items of ``probes`` unscored."""
    base = sound()
    for name in probes:
        base[name] = {i: (NAN if i < share * N else value) for i, value in base[name].items()}
    return base


@pytest.mark.parametrize(
    ("scores", "expected"),
    [
        pytest.param(sound(), [], id="sound-judge"),
        # every reply unreadable: every probe is undecided for that reason alone
        pytest.param(
            {p.name: dict.fromkeys(range(N), NAN) for p in PROBES}, [p.name for p in PROBES], id="mute-judge"
        ),
        # the reference unreadable on half its items: it is named, not the probes compared with it
        pytest.param(_unread(0.5, ("reference",)), ["reference"], id="reference-half-unread"),
        # 10 % unscored is at the bound, not over it
        pytest.param(_unread(0.1, ("literal", "hedge")), [], id="at-the-bound"),
        pytest.param(_unread(0.3, ("literal", "hedge")), ["literal", "hedge"], id="over-the-bound"),
    ],
)
def test_probes_left_inconclusive_by_unreadable_replies_are_named(
    scores: Scores, expected: list[str]
) -> None:
    results = evaluate(scores, PROBES)
    assert unreadable_probes(results, Thresholds()) == expected
    assert all({r.probe: r for r in results}[name].verdict == "inconclusive" for name in expected)


def test_a_probe_that_failed_is_not_named_unreadable() -> None:
    # a constant 3 fails the reference probe (mean below 4) whatever is unscored
    scores = {p.name: {i: (NAN if i < N // 2 else 3.0) for i in range(N)} for p in PROBES}
    results = {r.probe: r for r in evaluate(scores, PROBES)}
    assert results["reference"].verdict == "fail"
    assert "reference" not in unreadable_probes(tuple(results.values()))
