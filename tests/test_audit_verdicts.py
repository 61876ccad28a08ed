"""The audit's statistics and verdicts, from scores alone: scripted judge shapes, each expectation, edges."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from types import SimpleNamespace

import numpy as np
import pytest

from vivid_inspect.audit.verdicts import (
    EXPECTATIONS,
    ProbeResult,
    Thresholds,
    evaluate,
    evaluate_probe,
)
from vivid_inspect.report.score_stats import percentile_ci, resamples

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


# --- every expectation: pass, fail, and inconclusive when the interval straddles its bound --------


def _pair(expectation: str, differences: list[float], base: float = 4.0) -> tuple[Probe, Scores]:
    """A comparative probe whose per-item differences against its comparison are ``differences``."""
    comparison = {i: base for i in range(len(differences))}
    probe = {i: base + d for i, d in enumerate(differences)}
    return Probe("probe", "base", expectation), {"base": comparison, "probe": probe}


def _own(expectation: str, values: list[float]) -> tuple[Probe, Scores]:
    return Probe("probe", None, expectation), {"probe": dict(enumerate(values))}


CASES = [
    pytest.param(_own("high", [5.0] * 20), "pass", id="high-pass-all-5"),
    pytest.param(_own("high", [4.0] * 20), "pass", id="high-pass-exactly-at-floor"),
    pytest.param(_own("high", [2.0] * 20), "fail", id="high-fail-all-2"),
    pytest.param(_own("high", [5.0] * 14 + [2.0] * 6), "inconclusive", id="high-straddles-floor"),
    pytest.param(_pair("same", [0.0] * 20), "pass", id="same-pass-unchanged"),
    pytest.param(_pair("same", [-2.0] * 20), "fail", id="same-fail-drops-2"),
    pytest.param(_pair("same", [2.0] * 20, base=2.0), "fail", id="same-fail-rises-2"),
    pytest.param(_pair("same", [0.0] * 14 + [-2.0] * 6), "inconclusive", id="same-straddles-tolerance"),
    pytest.param(_pair("lower", [-2.0] * 20), "pass", id="lower-pass-drops-2"),
    pytest.param(_pair("lower", [0.0] * 20), "fail", id="lower-fail-no-drop"),
    pytest.param(_pair("lower", [-1.0] * 11 + [0.0] * 9), "inconclusive", id="lower-straddles-margin"),
    pytest.param(_pair("not_higher", [0.0] * 20), "pass", id="not-higher-pass-unchanged"),
    pytest.param(_pair("not_higher", [-1.0] * 20), "pass", id="not-higher-pass-lower"),
    pytest.param(_pair("not_higher", [1.0] * 20, base=2.0), "fail", id="not-higher-fail-rises-1"),
    pytest.param(
        _pair("not_higher", [0.0] * 12 + [1.0] * 8, base=2.0),
        "inconclusive",
        id="not-higher-straddles-margin",
    ),
    pytest.param(_pair("within_1", [-1.0] * 20), "pass", id="within-1-pass-exactly-1-below"),
    pytest.param(_pair("within_1", [-3.0] * 20), "fail", id="within-1-fail-3-below"),
    pytest.param(_pair("within_1", [0.0] * 16 + [-3.0] * 4), "inconclusive", id="within-1-straddles"),
    pytest.param(_own("at_most_1", [0.0, 1.0] * 10), "pass", id="at-most-1-pass"),
    pytest.param(_own("at_most_1", [3.0] * 20), "fail", id="at-most-1-fail-all-3"),
    pytest.param(_own("at_most_1", [0.0] * 14 + [3.0] * 6), "inconclusive", id="at-most-1-straddles-ceiling"),
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


def test_a_judge_that_flips_both_ways_fails_the_robustness_rate_with_a_zero_mean_shift() -> None:
    probe, scores = _pair("same", [2.0, -2.0] * 20, base=2.5)
    result = evaluate_probe(probe, scores)
    assert result.shift == 0.0
    assert result.rate == 0.0
    assert result.verdict == "fail"
    assert "robustness 0 %" in result.reason


def test_a_judge_often_fooled_fails_the_sensitivity_rate_with_its_mean_under_the_ceiling() -> None:
    # Wrong meanings get 0 on 3 items in 5 and 2 on the rest: mean 0.8 <= 1, yet 2 in 5 fooled.
    result = evaluate_probe(*_own("at_most_1", [0.0, 0.0, 0.0, 2.0, 2.0] * 20))
    assert result.mean == pytest.approx(0.8)
    assert result.mean_ci_high <= 1.0
    assert result.verdict == "fail"
    assert result.reason.endswith("sensitivity 60 % [50 %, 69 %] misses ≥ 70 %")
    # Fooled on 1 item in 4: 75 % is above the bound but its interval is not, so more items decide.
    sometimes = evaluate_probe(*_own("at_most_1", [0.0, 0.0, 0.0, 3.0] * 20))
    assert sometimes.verdict == "inconclusive"
    assert "sensitivity 75 % [65 %, 83 %] straddles ≥ 70 %" in sometimes.reason


# --- what each number is ----------------------------------------------------------------------------


def test_shift_is_over_items_scored_in_both_and_counts_unscored_on_each_side() -> None:
    scores = {
        "reference": {1: 5.0, 2: 4.0, 3: NAN, 4: 5.0},
        "spelling": {1: 5.0, 2: NAN, 3: 4.0, 4: 3.0},
    }
    result = evaluate_probe(PROBES[1], scores, Thresholds(min_items=1))
    assert (result.n_items, result.n_paired) == (4, 2)
    assert (result.unscored, result.comparison_unscored) == (1, 1)
    assert result.shift == pytest.approx(-1.0)  # items 1 (0) and 4 (-2)
    assert result.mean == pytest.approx(4.0)  # the probe's own scored items 1, 3, 4
    assert result.comparison_mean == pytest.approx(14 / 3)
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
    # interval would be points wide, the paired one has no width.
    reference = {i: float(i % 6) for i in range(30)}
    result = evaluate_probe(PROBES[1], {"reference": reference, "spelling": dict(reference)})
    assert (result.ci_low, result.shift, result.ci_high) == (0.0, 0.0, 0.0)
    assert result.mean_ci_high - result.mean_ci_low > 1.0


def test_the_shift_interval_agrees_with_the_projects_item_bootstrap() -> None:
    scores = changed(padding=lambda s, i: s["partial"][i] + (1 if i % 3 == 0 else 0))()
    result = evaluate_probe(PROBES[3], scores)
    differences = np.array([scores["padding"][i] - scores["partial"][i] for i in range(N)])
    low, high = percentile_ci(differences[resamples(N, 4000, seed=7)].mean(axis=1))
    assert low is not None and high is not None
    assert result.ci_low == pytest.approx(low, abs=0.06)
    assert result.ci_high == pytest.approx(high, abs=0.06)
    assert result.ci_low < result.shift < result.ci_high


def test_an_own_score_probe_reports_its_shift_but_is_decided_on_its_mean() -> None:
    result = evaluate_probe(PROBES[4], sound())
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
    results = evaluate(scores, PROBES)
    assert {r.verdict for r in results} == {"inconclusive"}
    spelling = results[1]
    assert spelling.n_paired == 1
    assert math.isnan(spelling.ci_low) and math.isnan(spelling.ci_high)
    assert "one item: no interval" in spelling.notes
    assert "only 1 paired item(s)" in spelling.reason


def test_one_item_with_min_items_1_is_still_inconclusive_as_it_has_no_interval() -> None:
    result = evaluate_probe(*_pair("same", [0.0]), Thresholds(min_items=1))
    assert result.verdict == "inconclusive"


def test_equal_scores_give_a_zero_width_interval_that_decides() -> None:
    results = evaluate(constant(3.0)(), PROBES)
    for r in results:
        assert r.mean_ci_low == r.mean_ci_high == 3.0
        if r.comparison is not None:
            assert r.ci_low == r.ci_high == 0.0
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
    result = evaluate_probe(PROBES[3], {"partial": base, "padding": padded}, seed=seed)
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
    padding = evaluate_probe(PROBES[3], scores)
    assert padding.n_paired == N - 4
    assert padding.comparison_unscored == 0
    assert "4 item(s) of 'padding' have no 'partial' record at all" in padding.notes
    assert padding.verdict == "pass"  # 4 of 40 left out is within max_unscored


def test_too_many_unscored_make_a_pass_inconclusive() -> None:
    scores = sound()
    scores["injected_vi"] = {i: (NAN if i < 8 else v) for i, v in scores["injected_vi"].items()}
    result = evaluate_probe(PROBES[7], scores)
    assert result.verdict == "inconclusive"
    assert result.reason.startswith("8 of 40 items unscored on one side or both (more than 10 %)")


def test_a_failure_stands_however_many_are_unscored() -> None:
    scores = sound()
    scores["injected_en"] = {i: (NAN if i % 2 else 5.0) for i in range(N)}
    result = evaluate_probe(PROBES[8], scores)
    assert result.unscored == N // 2
    assert result.verdict == "fail"


def test_none_counts_as_unscored_like_nan() -> None:
    with_none = {"reference": {i: (None if i < 3 else 5.0) for i in range(N)}}
    with_nan = {"reference": {i: (NAN if i < 3 else 5.0) for i in range(N)}}
    assert evaluate(with_none, PROBES[:1]) == evaluate(with_nan, PROBES[:1])


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


def test_the_same_seed_gives_the_same_intervals_whatever_the_order_of_the_scores() -> None:
    scores = _noisy()
    shuffled = {name: dict(reversed(list(values.items()))) for name, values in reversed(list(scores.items()))}
    first = evaluate(scores, PROBES[:2], seed=3)
    assert evaluate(scores, PROBES[:2], seed=3) == first
    assert evaluate(shuffled, PROBES[:2], seed=3) == first


def test_another_seed_draws_other_resamples() -> None:
    scores = _noisy()
    one, other = evaluate_probe(PROBES[1], scores, seed=0), evaluate_probe(PROBES[1], scores, seed=1)
    assert one.shift == other.shift
    assert (one.ci_low, one.ci_high) != (other.ci_low, other.ci_high)


def test_a_probes_interval_does_not_depend_on_which_other_probes_ran() -> None:
    alone = evaluate({k: v for k, v in sound().items() if k in ("reference", "english")}, PROBES)
    together = {r.probe: r for r in evaluate(sound(), PROBES)}
    assert alone[1] == together["english"]


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


def test_an_unknown_expectation_is_refused() -> None:
    with pytest.raises(ValueError, match=r"probe 'odd': expectation 'higher' is unknown; known: high, same"):
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
        pytest.param("min_rate", 1.5, "a share; allowed 0 to 1", id="rate-above-1"),
        pytest.param("max_unscored", -0.2, "a share; allowed 0 to 1", id="negative-unscored"),
        pytest.param("min_items", 0, "whole number, 1 or more", id="zero-items"),
        pytest.param("min_items", 2.5, "whole number, 1 or more", id="fractional-items"),
        pytest.param("n_boot", 0, "whole number, 1 or more", id="no-resamples"),
        pytest.param("confidence", 1.0, "strictly between 0 and 1", id="confidence-1"),
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
        pytest.param(["min_items=2.5"], "threshold min_items: '2.5' is not a number", id="items-not-whole"),
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
        "within, ceiling, item_tolerance, min_rate, min_items, max_unscored, confidence, n_boot",
        "threshold min_rate: 'x' is not a number",
        "Thresholds.ceiling = 9.0: on the judge's scale; allowed 0 to 5",
        "Thresholds.min_items = 0: must be a whole number, 1 or more",
    ]


def test_thresholds_change_verdicts() -> None:
    reference = {"reference": dict.fromkeys(range(N), 4.0)}
    assert evaluate(reference, PROBES[:1])[0].verdict == "pass"
    assert evaluate(reference, PROBES[:1], Thresholds(high_floor=4.5))[0].verdict == "fail"
    twelve = {name: {i: v for i, v in values.items() if i < 12} for name, values in sound().items()}
    assert verdicts(twelve)["spelling"] == "pass"
    assert set(verdicts(twelve, Thresholds(min_items=15)).values()) == {"inconclusive"}
    assert verdicts(twelve, Thresholds(min_rate=0.8))["spelling"] == "inconclusive"  # 12/12: Wilson from 76 %


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
