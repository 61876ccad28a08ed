"""Judge-vs-human agreement statistics, checked against the libraries that define them."""

from __future__ import annotations

import json
import math

import krippendorff
import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score, confusion_matrix

from tests.warnings_as_errors import warnings_as_errors
from vivid_inspect.lab.report.stats.agreement import Agreement, agreement, paired_difference
from vivid_inspect.lab.report.stats.consistency import parse_failure_rate, self_consistency
from vivid_inspect.lab.report.stats.intervals import IDENTICAL, kappa_interval, mean_interval, too_few
from vivid_inspect.lab.report.stats.raters import rater_agreement, raters_alpha

N_BOOT = 200


def noisy_pair(seed: int, n: int = 200, noise: float = 0.3) -> tuple[dict[int, int], dict[int, int]]:
    """Human scores and a judge that is off by one on a share `noise` of the items."""
    rng = np.random.default_rng(seed)
    human = rng.integers(0, 6, n)
    shift = rng.choice([-1, 0, 1], size=n, p=[noise / 2, 1 - noise, noise / 2])
    judge = np.clip(human + shift, 0, 5)
    return {i + 1: int(v) for i, v in enumerate(judge)}, {i + 1: int(v) for i, v in enumerate(human)}


def as_arrays(judge: dict[int, float], human: dict[int, float]) -> tuple[np.ndarray, np.ndarray]:
    ids = sorted(set(judge) & set(human))
    return np.array([judge[i] for i in ids]), np.array([human[i] for i in ids])


@pytest.mark.parametrize(
    "judge, human",
    [
        pytest.param(*noisy_pair(1), id="random-close"),
        pytest.param(*noisy_pair(2, n=57, noise=0.9), id="random-noisy"),
        pytest.param(
            {i: int(v) for i, v in enumerate(np.random.default_rng(3).integers(0, 6, 80))},
            {i: int(v) for i, v in enumerate(np.random.default_rng(4).integers(2, 6, 80))},
            id="random-unrelated",
        ),
        pytest.param(
            {1: 0, 2: 1, 3: 3, 4: 3, 5: 2, 6: 5, 7: 4, 8: 3},
            {1: 0, 2: 1, 3: 2, 4: 3, 5: 4, 6: 5, 7: 5, 8: 3},
            id="small",
        ),
    ],
)
def test_statistics_equal_the_libraries(judge: dict[int, int], human: dict[int, int]) -> None:
    result = agreement(judge, human, n_boot=0)
    j, h = as_arrays(judge, human)
    assert result.n == len(j)
    assert result.kappa == pytest.approx(cohen_kappa_score(h, j, labels=list(range(6))))
    assert result.weighted_kappa == pytest.approx(
        cohen_kappa_score(h, j, labels=list(range(6)), weights="quadratic")
    )
    assert result.spearman == pytest.approx(stats.spearmanr(h, j).statistic)
    expected_alpha = krippendorff.alpha(
        reliability_data=np.vstack([h, j]).astype(float),
        level_of_measurement="ordinal",
        value_domain=list(range(6)),
    )
    assert result.alpha == pytest.approx(expected_alpha)
    assert np.array_equal(np.array(result.confusion), confusion_matrix(h, j, labels=list(range(6))))
    assert result.judge_mean == pytest.approx(j.mean())
    assert result.human_mean == pytest.approx(h.mean())
    assert result.notes == ()


def test_hand_checked_small_case() -> None:
    human = {1: 0, 2: 1, 3: 2, 4: 3, 5: 4, 6: 5, 7: 5, 8: 3}
    judge = {1: 0, 2: 1, 3: 3, 4: 3, 5: 2, 6: 5, 7: 4, 8: 3}
    result = agreement(judge, human, n_boot=0)
    # Observed agreement 5/8; chance agreement (1+1+1+2*3+1+2*1)/64 = 12/64; kappa = 7/13.
    assert result.kappa == pytest.approx(7 / 13)
    assert result.exact == pytest.approx(5 / 8)
    assert result.within1 == pytest.approx(7 / 8)
    assert result.mae == pytest.approx(4 / 8)
    assert result.confusion == (
        (1, 0, 0, 0, 0, 0),
        (0, 1, 0, 0, 0, 0),
        (0, 0, 0, 1, 0, 0),
        (0, 0, 0, 2, 0, 0),
        (0, 0, 1, 0, 0, 0),
        (0, 0, 0, 0, 1, 1),
    )
    assert result.kappa_lo is None and result.judge_mean_lo is None


def test_only_shared_ids_are_paired_and_the_rest_noted() -> None:
    result = agreement({1: 4, 2: 3, 3: 5, 9: 0}, {1: 4, 2: 2, 3: 5, 7: 1, 8: 1}, n_boot=0)
    assert result.n == 3
    assert result.judge_mean == pytest.approx(4.0)
    assert result.human_mean == pytest.approx(11 / 3)
    assert "2 human item(s) have no judge score and were left out" in result.notes
    assert "1 judge item(s) have no human score and were left out" in result.notes


def test_whole_float_scores_count_as_categories() -> None:
    judge, human = noisy_pair(5, n=40)
    as_floats = agreement({k: float(v) for k, v in judge.items()}, human, n_boot=0)
    assert as_floats == agreement(judge, human, n_boot=0)


def test_mean_human_scores_are_rounded_half_up_for_categories_only() -> None:
    judge = {1: 4, 2: 2, 3: 5, 4: 1}
    human = {1: 3.5, 2: 2.0, 3: 4.5, 4: 1.5}
    result = agreement(judge, human, n_boot=0)
    rounded = np.array([4, 2, 5, 2])
    assert result.kappa == pytest.approx(cohen_kappa_score(rounded, [4, 2, 5, 1], labels=list(range(6))))
    assert result.exact == pytest.approx(3 / 4)
    assert result.mae == pytest.approx(0.5 * 3 / 4)
    assert result.human_mean == pytest.approx(11.5 / 4)
    assert any("3 human score(s) not whole (e.g. 3.5) rounded half up" in note for note in result.notes)


def test_missing_judge_scores_are_left_out_with_a_note() -> None:
    result = agreement({1: 3, 2: None, 3: float("nan"), 4: 5}, {1: 3, 2: 4, 3: 4, 4: 5}, n_boot=0)
    assert result.n == 2
    assert "2 judge score(s) missing (None or NaN) and left out" in result.notes


@pytest.mark.parametrize(
    "judge, human",
    [
        pytest.param({1: 6}, {1: 3}, id="judge-above-5"),
        pytest.param({1: 3}, {1: -1}, id="human-below-0"),
        pytest.param({1: "4"}, {1: 3}, id="string-score"),
    ],
)
def test_scores_outside_the_scale_are_rejected(judge: dict, human: dict) -> None:
    with pytest.raises(ValueError, match="scores must be numbers from 0 to 5"):
        agreement(judge, human)


def test_negative_n_boot_is_rejected() -> None:
    with pytest.raises(ValueError, match="n_boot must be a non-negative integer"):
        agreement({1: 3}, {1: 3}, n_boot=-1)


def test_intervals_are_deterministic_and_bracket_the_estimates() -> None:
    judge, human = noisy_pair(6)
    first = agreement(judge, human, n_boot=N_BOOT)
    assert first == agreement(judge, human, n_boot=N_BOOT)
    for name in ("kappa", "weighted_kappa", "judge_mean", "human_mean"):
        lo, point, hi = (getattr(first, f"{name}_lo"), getattr(first, name), getattr(first, f"{name}_hi"))
        assert lo < point < hi, name


def test_the_intervals_are_the_intervals_modules_on_the_paired_items() -> None:
    judge, human = noisy_pair(9, n=60, noise=0.5)
    result = agreement(judge, human, n_boot=N_BOOT)
    j, h = as_arrays(judge, human)
    kappa = kappa_interval(h, j)
    assert kappa.estimate == pytest.approx(cohen_kappa_score(h, j, labels=list(range(6))), abs=1e-12)
    assert (result.kappa_lo, result.kappa_hi) == (kappa.lo, kappa.hi)
    weighted = kappa_interval(h, j, weights="quadratic")
    assert weighted.estimate == pytest.approx(result.weighted_kappa, abs=1e-12)
    assert (result.weighted_kappa_lo, result.weighted_kappa_hi) == (weighted.lo, weighted.hi)
    mean = mean_interval(j)
    assert (result.judge_mean_lo, result.judge_mean_hi) == (mean.lo, mean.hi)
    assert result.intervals["kappa"] == kappa


NO_OVERLAP = "no items scored by both judge and human"


@pytest.mark.parametrize(
    "judge, human, undefined, note",
    [
        pytest.param(
            {1: 3},
            {2: 3},
            ["kappa", "spearman", "alpha", "exact", "mae", "judge_mean"],
            NO_OVERLAP,
            id="no-overlap",
        ),
        pytest.param({}, {}, ["kappa", "human_mean"], NO_OVERLAP, id="empty"),
        pytest.param(
            {1: 4},
            {1: 2},
            ["kappa", "weighted_kappa", "spearman", "alpha", "kappa_lo", "judge_mean_lo"],
            "only 1 paired item",
            id="one-item",
        ),
        pytest.param(
            {1: 1, 2: 4, 3: 5},
            {1: 3, 2: 3, 3: 3},
            ["kappa", "weighted_kappa", "kappa_lo", "spearman"],
            "kappa undefined: all human scores are 3",
            id="constant-human",
        ),
        pytest.param(
            {1: 5, 2: 5, 3: 5},
            {1: 3, 2: 4, 3: 5},
            ["kappa", "spearman"],
            "spearman undefined: all judge scores are 5",
            id="constant-judge",
        ),
        pytest.param(
            {1: 2, 2: 2},
            {1: 2, 2: 2},
            ["kappa", "spearman", "alpha"],
            "alpha undefined: every score is 2",
            id="all-equal",
        ),
    ],
)
def test_degenerate_inputs_give_none_and_a_note(
    judge: dict, human: dict, undefined: list[str], note: str
) -> None:
    with warnings_as_errors():  # library warnings must be suppressed, not leaked
        result = agreement(judge, human, n_boot=N_BOOT)
    for name in undefined:
        assert getattr(result, name) is None, name
    assert any(note in text for text in result.notes), result.notes
    numbers = [value for value in result.as_row().values() if not isinstance(value, str)]
    assert all(value is None or math.isfinite(value) for value in numbers)


def test_no_overlap_has_an_empty_confusion_matrix() -> None:
    result = agreement({1: 3}, {2: 3}, n_boot=N_BOOT)
    assert result.n == 0
    assert result.confusion == tuple((0,) * 6 for _ in range(6))


def test_paired_difference_favours_the_judge_that_matches_humans() -> None:
    noisy, human = noisy_pair(11, noise=0.6)
    result = paired_difference(human, noisy, human, n_boot=N_BOOT)
    assert result.n == 200
    assert result.kappa_a == pytest.approx(1.0)
    assert result.kappa_b == pytest.approx(cohen_kappa_score(*as_arrays(human, noisy), labels=list(range(6))))
    assert result.kappa_diff == pytest.approx(result.kappa_a - result.kappa_b)
    assert 0 < result.kappa_diff_lo < result.kappa_diff < result.kappa_diff_hi
    assert result.mean_diff_lo <= result.mean_diff <= result.mean_diff_hi
    assert result == paired_difference(human, noisy, human, n_boot=N_BOOT)


def test_paired_difference_of_a_judge_with_itself_is_zero_with_no_zero_width_interval() -> None:
    judge, human = noisy_pair(12)
    result = paired_difference(judge, judge, human, n_boot=N_BOOT)
    assert (result.kappa_diff, result.kappa_diff_lo, result.kappa_diff_hi) == (0.0, None, None)
    assert (result.mean_diff, result.mean_diff_lo, result.mean_diff_hi) == (0.0, None, None)
    assert result.intervals["kappa_diff"].reason == IDENTICAL
    assert result.intervals["mean_diff"].reason == IDENTICAL


def test_paired_difference_uses_items_all_three_share() -> None:
    result = paired_difference({1: 5, 2: 4, 3: 0}, {1: 1, 2: 4}, {1: 5, 2: 3, 4: 4}, n_boot=0)
    assert result.n == 2
    assert result.mean_diff == pytest.approx(4.5 - 2.5)
    assert any("2 item(s) were not scored by both judges and the humans" in note for note in result.notes)


def test_paired_difference_without_shared_items_gives_none() -> None:
    result = paired_difference({1: 5}, {2: 4}, {1: 5, 2: 4}, n_boot=N_BOOT)
    assert result.n == 0 and result.kappa_diff is None and result.mean_diff is None
    assert "no items scored by both judges and the humans" in result.notes


def test_self_consistency_hand_checked() -> None:
    runs = [{1: 3, 2: 4, 3: 5, 4: 1}, {1: 3, 2: 4, 3: 4, 4: 1}, {1: 3, 2: 4, 3: 5, 4: 1, 5: 2}]
    result = self_consistency(runs)
    assert (result.runs, result.n) == (3, 4)
    assert result.flip_rate == pytest.approx(1 / 4)
    assert result.mean_exact == pytest.approx((3 / 4 + 1 + 3 / 4) / 3)
    pairs = [([3, 4, 5, 1], [3, 4, 4, 1]), ([3, 4, 5, 1], [3, 4, 5, 1]), ([3, 4, 4, 1], [3, 4, 5, 1])]
    expected = np.mean([cohen_kappa_score(a, b, labels=list(range(6))) for a, b in pairs])
    assert result.mean_kappa == pytest.approx(expected)
    assert "1 item(s) were not scored in every run and were left out" in result.notes


def test_self_consistency_with_a_constant_run_notes_undefined_kappa() -> None:
    result = self_consistency([{1: 5, 2: 5}, {1: 5, 2: 5}])
    assert result.mean_kappa is None and result.flip_rate == 0.0 and result.mean_exact == 1.0
    assert any("all run 1 scores are 5" in note for note in result.notes)


def test_self_consistency_needs_two_runs() -> None:
    with pytest.raises(ValueError, match="at least 2 runs"):
        self_consistency([{1: 3}])


@pytest.mark.parametrize(
    "scored, unscored, expected",
    [
        pytest.param(9, 1, 0.1, id="one-in-ten"),
        pytest.param(5, 0, 0.0, id="none-failed"),
        pytest.param(0, 0, None, id="nothing-judged"),
    ],
)
def test_parse_failure_rate(scored: int, unscored: int, expected: float | None) -> None:
    assert parse_failure_rate(scored, unscored) == expected


def test_parse_failure_rate_rejects_negative_counts() -> None:
    with pytest.raises(ValueError, match="n_unscored must be a non-negative integer"):
        parse_failure_rate(3, -1)


def test_rows_are_rounded_serialisable_and_stable() -> None:
    judge, human = noisy_pair(13)
    result = agreement(judge, human, n_boot=N_BOOT)
    row = result.as_row()
    assert list(row) == [
        "n",
        "kappa",
        "kappa_lo",
        "kappa_hi",
        "kappa_half_down",
        "weighted_kappa",
        "weighted_kappa_lo",
        "weighted_kappa_hi",
        "spearman",
        "alpha",
        "exact",
        "within1",
        "mae",
        "judge_mean",
        "judge_mean_lo",
        "judge_mean_hi",
        "human_mean",
        "human_mean_lo",
        "human_mean_hi",
        "notes",
    ]
    assert "confusion" not in row and row["notes"] == ""
    assert row["kappa"] == round(result.kappa, 4)
    assert all(isinstance(v, int) or v == round(v, 4) for v in row.values() if not isinstance(v, str))
    json.dumps(row)
    table = pd.DataFrame([row, agreement({1: 3}, {1: 3}).as_row()])
    assert table.loc[1, "kappa"] is None or math.isnan(table.loc[1, "kappa"])
    consistency = self_consistency([judge, human]).as_row()
    assert list(consistency) == [
        "runs",
        "n",
        "mean_kappa",
        "mean_kappa_lo",
        "mean_kappa_hi",
        "mean_exact",
        "flip_rate",
        "notes",
    ]
    difference = paired_difference(judge, human, human, n_boot=0).as_row()
    assert difference["kappa_diff_lo"] is None and isinstance(difference["kappa_diff"], float)


def test_agreement_is_a_frozen_dataclass() -> None:
    result = agreement({1: 3, 2: 4}, {1: 3, 2: 4}, n_boot=0)
    assert isinstance(result, Agreement)
    with pytest.raises(AttributeError):
        result.kappa = 0.5  # type: ignore[misc]


# --- rounding the mean of two annotators, and agreement that needs no rounding ----------------

# Two annotators who disagree by one on items 1-4, so their means land on .5 there.
ANN_A = {1: 2, 2: 3, 3: 4, 4: 1, 5: 0, 6: 5, 7: 3, 8: 2}
ANN_B = {1: 3, 2: 4, 3: 3, 4: 2, 5: 0, 6: 5, 7: 3, 8: 2}
JUDGE_AB = {1: 3, 2: 3, 3: 4, 4: 1, 5: 1, 6: 5, 7: 3, 8: 2}


def test_kappa_half_down_rounds_the_halves_of_two_annotators_down() -> None:
    means = {i: (ANN_A[i] + ANN_B[i]) / 2 for i in ANN_A}
    assert sum(1 for v in means.values() if v % 1 == 0.5) == 4
    result = agreement(JUDGE_AB, means, n_boot=0)
    ids = sorted(means)
    judge = [JUDGE_AB[i] for i in ids]
    up = [math.floor(means[i] + 0.5) for i in ids]
    down = [math.ceil(means[i] - 0.5) for i in ids]
    assert up != down
    assert result.kappa == pytest.approx(cohen_kappa_score(up, judge, labels=list(range(6))), abs=1e-12)
    assert result.kappa_half_down == pytest.approx(
        cohen_kappa_score(down, judge, labels=list(range(6))), abs=1e-12
    )
    assert result.kappa != pytest.approx(result.kappa_half_down)
    assert any("4 score(s) end in .5" in note for note in result.notes)


@pytest.mark.parametrize(
    "human",
    [
        pytest.param({1: 2, 2: 3, 3: 4, 4: 1, 5: 0}, id="whole-scores"),
        pytest.param({1: 2.25, 2: 3.4, 3: 3.75, 4: 1.6, 5: 0.0}, id="means-of-four-annotators"),
    ],
)
def test_kappa_half_down_equals_kappa_without_halves(human: dict[int, float]) -> None:
    result = agreement({1: 2, 2: 3, 3: 4, 4: 2, 5: 0}, human, n_boot=0)
    assert result.kappa_half_down == result.kappa
    assert not any("end in .5" in note for note in result.notes)


def test_kappa_half_down_undefined_when_rounding_down_makes_a_side_constant() -> None:
    result = agreement({1: 2, 2: 3}, {1: 2.0, 2: 2.5}, n_boot=0)
    assert result.kappa is not None and result.kappa_half_down is None
    assert any(note.startswith("kappa_half_down undefined: all human scores are 2") for note in result.notes)


def test_each_annotator_as_a_rater_equals_scikit_learn_and_krippendorff() -> None:
    extra = {9: 4, 10: 1}  # annotator a alone scored items 9 and 10
    judge = {**JUDGE_AB, 9: 4, 10: 0, 11: 5}  # 11: no annotator, left out
    result = rater_agreement(judge, {"b": ANN_B, "a": {**ANN_A, **extra}}, n_boot=N_BOOT)
    kappa_a = cohen_kappa_score(
        [{**ANN_A, **extra}[i] for i in range(1, 11)], [judge[i] for i in range(1, 11)]
    )
    kappa_b = cohen_kappa_score([ANN_B[i] for i in range(1, 9)], [judge[i] for i in range(1, 9)])
    assert result.per_annotator == (
        ("a", 10, pytest.approx(kappa_a, abs=1e-12)),
        ("b", 8, pytest.approx(kappa_b, abs=1e-12)),
    )
    assert result.n == 10 and result.annotators == 2
    assert result.kappa_mean == pytest.approx((kappa_a + kappa_b) / 2, abs=1e-12)
    # 8 items for annotator b: below the rule's fewest, so no interval and the reason.
    assert result.kappa_lo is None and result.interval is not None
    assert result.interval.reason == too_few(8)
    matrix = np.array(
        [
            [{**ANN_A, **extra}.get(i, np.nan) for i in range(1, 11)],
            [ANN_B.get(i, np.nan) for i in range(1, 11)],
            [judge[i] for i in range(1, 11)],
        ],
        dtype=float,
    )
    expected = krippendorff.alpha(
        reliability_data=matrix, level_of_measurement="ordinal", value_domain=list(range(6))
    )
    assert result.alpha == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    ("judge", "annotators", "note"),
    [
        pytest.param(
            {1: 3, 2: 4}, {"a": {5: 3}}, "no item scored by both the judge and an annotator", id="no-overlap"
        ),
        pytest.param(
            {1: 3, 2: 4, 3: 1},
            {"a": {1: 3}, "b": {1: 2, 2: 4, 3: 0}},
            "annotator 'a' undefined: 1 item(s)",
            id="one-item",
        ),
        pytest.param(
            {1: 3, 2: 4, 3: 1},
            {"a": {1: 2, 2: 2, 3: 2}},
            "all annotator 'a' scores are 2",
            id="constant-annotator",
        ),
        pytest.param({1: 3, 2: 3}, {"a": {1: 3, 2: 3}}, "every score is 3", id="everything-equal"),
    ],
)
def test_rater_agreement_degenerate_inputs_give_none_and_a_note(
    judge: dict, annotators: dict, note: str
) -> None:
    with warnings_as_errors():
        result = rater_agreement(judge, annotators, n_boot=N_BOOT)
    assert any(note in text for text in result.notes), result.notes
    defined = [kappa for _, _, kappa in result.per_annotator if kappa is not None]
    assert result.annotators == len(defined)
    if not defined:
        assert result.kappa_mean is None and result.kappa_lo is None and result.kappa_hi is None
    for value in (result.kappa_mean, result.kappa_lo, result.kappa_hi, result.alpha):
        assert value is None or math.isfinite(value)


def test_raters_alpha_without_shared_items_is_undefined() -> None:
    notes: list[str] = []
    assert raters_alpha({"a": {1: 3}, "b": {2: 4}}, notes) is None
    assert notes == ["alpha over the raters undefined: no item has two raters"]
