"""Labels across generations (report/allocation.py): Neyman by the residual spread, against brute force."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from vivid_inspect.lab.report.allocation import (
    MIN_PER_GENERATION,
    Stratum,
    allocate,
    equal,
    first_batch,
    labels_needed,
    plan_lines,
    variance,
    width,
)
from vivid_inspect.lab.report.intervals import RULES, Z95
from vivid_inspect.lab.report.ppi import residual_spread


def test_the_minimum_is_the_corrected_means_rule():
    assert RULES["corrected_mean"].min_n == MIN_PER_GENERATION


def test_neyman_gives_labels_in_proportion_to_the_spread():
    strata = [Stratum(f"g{i}", 100_000, spread=s) for i, s in enumerate((0.5, 1.0, 1.5, 2.0))]
    plan = allocate(strata, 5000, minimum=0)
    total = sum(s.spread or 0 for s in strata)
    for share, stratum in zip(plan.shares, strata, strict=True):
        assert share.new == pytest.approx(5000 * (stratum.spread or 0) / total, abs=1)
    assert plan.new == 5000 and plan.kind == "neyman"


@pytest.mark.parametrize("seed", range(6))
def test_the_greedy_plan_is_the_best_whole_allocation(seed: int):
    """Every allocation of the budget to three small generations, minimum and caps included."""
    rng = np.random.default_rng(seed)
    items = rng.integers(6, 20, size=3)
    labelled = rng.integers(0, 4, size=3)
    spreads = rng.uniform(0.05, 2.0, size=3)
    strata = [Stratum(f"g{i}", int(items[i]), int(labelled[i]), float(spreads[i])) for i in range(3)]
    budget, minimum = 14, 5
    plan = allocate(strata, budget, minimum=minimum)
    best = math.inf
    for new in itertools.product(*(range(0, int(items[i] - labelled[i]) + 1) for i in range(3))):
        if sum(new) != min(budget, int((items - labelled).sum())):
            continue
        totals = [int(labelled[i]) + new[i] for i in range(3)]
        if any(t < min(minimum, int(items[i])) for i, t in enumerate(totals)):
            continue
        best = min(best, sum(variance(float(spreads[i]), totals[i], int(items[i])) for i in range(3)))
    assert plan.objective == pytest.approx(best, rel=1e-12)


def test_minimum_caps_and_earlier_labels():
    strata = [
        Stratum("steady", 1636, labelled=30, spread=0.02),
        Stratum("noisy", 1636, labelled=30, spread=1.2),
        Stratum("small", 40, labelled=10, spread=1.5),
        Stratum("new", 1636, labelled=0, spread=0.9),
    ]
    plan = allocate(strata, 600, minimum=30)
    by_key = {s.key: s for s in plan.shares}
    assert by_key["steady"].new == 0  # it has its minimum and needs no more
    assert by_key["small"].total <= 40
    assert by_key["new"].total >= 30
    assert plan.new == 600
    assert by_key["noisy"].new > by_key["new"].new


def test_a_short_budget_goes_to_the_minimum_first():
    strata = [Stratum(f"g{i}", 500, spread=1.0) for i in range(4)]
    plan = allocate(strata, 50, minimum=30)
    assert plan.new == 50 and all(s.new <= 30 for s in plan.shares)


def test_the_expected_width_is_the_normal_interval_of_that_variance():
    assert width(1.2, 200, 1636) == pytest.approx(2 * Z95 * 1.2 * math.sqrt(1 / 200 - 1 / 1636))
    assert variance(1.0, 0, 10) == math.inf and variance(1.0, 10, 10) == 0.0
    plan = allocate([Stratum("a", 1636, spread=1.0), Stratum("b", 1636, spread=0.5)], 300, minimum=0)
    assert plan.mean_width == pytest.approx(np.mean([s.width for s in plan.shares]))
    assert plan.objective == pytest.approx(
        sum(variance(s.spread or 0, s.total, s.items) for s in plan.shares)
    )


def test_equal_allocation_and_the_labels_it_would_save():
    strata = [Stratum(f"g{i}", 1636, spread=s) for i, s in enumerate((1.0,) * 6 + (0.05,) * 2)]
    plain = equal(strata, 1600)
    assert [s.new for s in plain.shares] == [200] * 8
    needed = labels_needed(strata, plain.objective or 0.0, minimum=30)
    assert needed is not None and needed < 1600
    assert (allocate(strata, needed, minimum=30).objective or 0) <= (plain.objective or 0)
    assert (allocate(strata, needed - 1, minimum=30).objective or 0) > (plain.objective or 0)
    assert 1 - needed / 1600 > 0.2  # two near-constant generations of eight: over a fifth of the labels


def test_labels_needed_says_when_no_budget_reaches_the_target():
    assert labels_needed([Stratum("a", 10, spread=1.0)], -1.0) is None


def test_a_first_batch_shares_a_short_budget_evenly():
    strata = [Stratum("a", 1636), Stratum("b", 1636, labelled=25), Stratum("c", 12)]
    plan = first_batch(strata, 40, minimum=30)
    by_key = {s.key: s.new for s in plan.shares}
    assert by_key == {"a": 17, "b": 5, "c": 12} or sum(by_key.values()) == 40
    assert by_key["b"] <= 5 and by_key["c"] <= 12 and plan.kind == "first batch"
    assert plan.objective is None and plan.mean_width is None
    roomy = first_batch(strata, 500, minimum=30)
    assert {s.key: s.total for s in roomy.shares} == {"a": 30, "b": 30, "c": 12}
    assert any("left for the next round" in note for note in roomy.notes)


def test_bad_plans_are_refused():
    with pytest.raises(ValueError, match="no spread for generation"):
        allocate([Stratum("a", 10)], 5)
    with pytest.raises(ValueError, match="0 or more"):
        equal([Stratum("a", 10, spread=1.0)], -1)
    with pytest.raises(ValueError, match="named twice"):
        equal([Stratum("a", 10), Stratum("a", 5)], 1)
    with pytest.raises(ValueError, match="no items"):
        equal([Stratum("a", 0)], 1)


def test_the_residual_spread_is_the_corrected_means_residual():
    rng = np.random.default_rng(2)
    human = rng.choice(6, size=60).astype(float)
    judge = np.clip(human + rng.choice([-1, 0, 1], size=60), 0, 5)
    spread = residual_spread(human, judge)
    slope = min(max(np.cov(human, judge)[0, 1] / np.var(judge, ddof=1), 0), 1)
    residual = human - slope * judge
    assert spread == pytest.approx(math.sqrt(np.sum((residual - residual.mean()) ** 2) / 58))
    assert residual_spread(human[:2], judge[:2]) is None


def test_the_plan_as_lines_names_every_generation_and_the_objective():
    strata = [Stratum("g1", 1636, labelled=20, spread=1.1), Stratum("g2", 1636, labelled=20, spread=0.1)]
    plan = allocate(strata, 100, minimum=20)
    text = "\n".join(plan_lines(plan, {"g1": "openai/gpt-4o zero_shot"}))
    assert "g1 openai/gpt-4o zero_shot" in text and "g2" in text
    assert "100 new label(s) (neyman)" in text and "objective, the sum of the generations' variances" in text
    first = first_batch([Stratum("g1", 1636), Stratum("g2", 10)], 15, minimum=20)
    assert "fewer than 20 labels" in "\n".join(plan_lines(first))
