"""Labels across generations (report/stats/allocation.py): Neyman by the residual spread, against brute force."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from vivid_inspect.lab.report.stats.allocation import (
    MIN_GAIN,
    MIN_PER_GENERATION,
    Stratum,
    allocate,
    equal,
    first_batch,
    half_width,
    plan_lines,
    variance,
    width,
)
from vivid_inspect.lab.report.stats.corrected import corrected_cell
from vivid_inspect.lab.report.stats.intervals import RULES
from vivid_inspect.lab.report.stats.ppi import PSEUDO, mean_skewness, residual_spread


def test_the_minimum_is_the_corrected_means_rule():
    assert RULES["corrected_mean"].min_n == MIN_PER_GENERATION


def test_neyman_gives_labels_in_proportion_to_the_spread():
    strata = [Stratum(f"g{i}", 100_000, spread=s) for i, s in enumerate((0.5, 1.0, 1.5, 2.0))]
    plan = allocate(strata, 5000, minimum=0, fallback=False)
    total = sum(s.spread or 0 for s in strata)
    for share, stratum in zip(plan.shares, strata, strict=True):
        # the pseudo-residual and the t quantile move it a little off the proportion
        assert share.new == pytest.approx(5000 * (stratum.spread or 0) / total, rel=0.03)
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
    plan = allocate(strata, budget, minimum=minimum, fallback=False)
    best = math.inf
    for new in itertools.product(*(range(0, int(items[i] - labelled[i]) + 1) for i in range(3))):
        if sum(new) != min(budget, int((items - labelled).sum())):
            continue
        totals = [int(labelled[i]) + new[i] for i in range(3)]
        if any(t < min(minimum, int(items[i])) for i, t in enumerate(totals)):
            continue
        best = min(best, sum(half_width(float(spreads[i]), totals[i], int(items[i])) ** 2 for i in range(3)))
    assert plan.objective == pytest.approx(best, rel=1e-12)


def test_minimum_caps_and_earlier_labels():
    strata = [
        Stratum("steady", 1636, labelled=30, spread=0.02),
        Stratum("noisy", 1636, labelled=30, spread=1.2),
        Stratum("small", 40, labelled=10, spread=1.5),
        Stratum("new", 1636, labelled=0, spread=0.9),
    ]
    plan = allocate(strata, 600, minimum=30, fallback=False)
    by_key = {s.key: s for s in plan.shares}
    assert by_key["steady"].new < by_key["new"].new < by_key["noisy"].new
    assert by_key["small"].total <= 40
    assert by_key["new"].total >= 30
    assert plan.new == 600
    assert by_key["noisy"].new > by_key["new"].new


def test_a_short_budget_goes_to_the_minimum_first():
    strata = [Stratum(f"g{i}", 500, spread=1.0) for i in range(4)]
    plan = allocate(strata, 50, minimum=30)
    assert plan.new == 50 and all(s.new <= 30 for s in plan.shares)


def test_the_expected_width_is_the_printed_intervals_formula():
    n, items, spread = 200, 1636, 1.2
    quantile = 1.9720174778363073  # t with 198 degrees of freedom, 0.975
    assert width(spread, n, items) == pytest.approx(
        2 * quantile * math.sqrt((1 - n / items) * (spread**2 + PSEUDO**2 / (n - 2)) / n), rel=1e-9
    )
    assert variance(1.0, 2, 10) == math.inf and variance(1.0, 10, 10) == 0.0
    plan = allocate([Stratum("a", 1636, spread=1.0), Stratum("b", 1636, spread=0.5)], 300, minimum=0)
    assert plan.mean_width == pytest.approx(np.mean([s.width for s in plan.shares]))
    assert plan.objective == pytest.approx(
        sum(half_width(s.spread or 0, s.total, s.items) ** 2 for s in plan.shares)
    )


@pytest.mark.parametrize(("n", "items", "seed"), [(20, 400, 0), (40, 400, 1), (120, 1636, 2), (300, 500, 3)])
def test_the_plans_width_is_the_width_the_report_prints(n: int, items: int, seed: int):
    """The width the plan predicts from S measured on n labels is the corrected interval the report prints on them."""
    rng = np.random.default_rng(seed)
    judge = rng.choice(6, size=items).astype(float)
    # a residual symmetric about its mean (no widening for skew) that grows with the judge (lam clipped at 1)
    order = np.argsort(judge[:n], kind="stable")
    residual = np.zeros(n)
    residual[order[: n // 4]], residual[order[-(n // 4) :]] = -1.0, 1.0
    human = judge.copy()
    human[:n] = np.clip(
        judge[:n] + residual, -1, 6
    )  # human scores may leave 0-5 here: no clipping of the mean
    labels = {i: float(human[i]) for i in range(n)}
    cell = corrected_cell(dict(enumerate(judge.tolist())), labels, score_range=(-10.0, 10.0))
    assert mean_skewness(human[:n] - cell.lam * judge[:n], items) == pytest.approx(0.0, abs=1e-12)
    spread = residual_spread(human[:n], judge[:n])
    assert spread is not None and cell.corrected.lo is not None and cell.corrected.hi is not None
    printed = cell.corrected.hi - cell.corrected.lo
    if 2 * n <= items:
        assert width(spread, n, items) == pytest.approx(printed, rel=1e-9)
    else:  # past half both ends widen a little for the few unlabelled items (ppi), which the plan leaves out
        assert width(spread, n, items) < printed < 1.01 * width(spread, n, items)


def test_the_plan_shares_equally_where_the_spreads_would_not_help():
    alike = [Stratum(f"g{i}", 1636, labelled=20, spread=s) for i, s in enumerate((0.95, 1.0, 1.05))]
    plan = allocate(alike, 300)
    assert plan.kind == "equal" and [s.new for s in plan.shares] == [100, 100, 100]
    assert "shared equally" in plan.notes[0] and f"under {MIN_GAIN:.0%}" in plan.notes[0]
    apart = [Stratum("a", 1636, labelled=20, spread=0.3), Stratum("b", 1636, labelled=20, spread=1.2)]
    planned = allocate(apart, 300)
    assert planned.kind == "neyman" and planned.shares[1].new > planned.shares[0].new
    assert (planned.objective or 0) <= (1 - MIN_GAIN) * (equal(apart, 300).objective or 0)
    assert any("predicted gain over equal allocation" in note for note in planned.notes)


def test_equal_allocation_shares_the_budget_alike():
    strata = [Stratum(f"g{i}", 1636, spread=s) for i, s in enumerate((1.0,) * 6 + (0.05,) * 2)]
    plain = equal(strata, 1600)
    assert [s.new for s in plain.shares] == [200] * 8
    assert (allocate(strata, 1600, minimum=30).objective or 0) <= (plain.objective or 0)


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
    assert (
        "100 new label(s) (neyman)" in text
        and "objective, the sum of the generations' squared half-widths" in text
    )
    assert "predicted printed 95 % width" in text
    first = first_batch([Stratum("g1", 1636), Stratum("g2", 10)], 15, minimum=20)
    assert "fewer than 20 labels" in "\n".join(plan_lines(first))
