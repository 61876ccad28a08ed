"""The judge card (report/cards/judge_card.py): the two verdict lines and what would settle an undecided case."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from vivid_inspect.lab.report.cards.audit_tables import _TITLE, audited
from vivid_inspect.lab.report.cards.cards import judge_scores
from vivid_inspect.lab.report.cards.judge_card import (
    BIAS_TOLERANCE,
    NO,
    READ_CORRECTED,
    SINGLE,
    UNDECIDED,
    YES,
    HumanLabels,
    JudgeScores,
    _labels_step,
    _more_evidence,
    bias_leaning,
    build_cards,
    cards_markdown,
    exact_bias,
    labels_to_settle,
)
from vivid_inspect.lab.report.stats.alt_test import BELOW_MINIMUM, AltTest, LeftOut, alt_test, settling_design
from vivid_inspect.lab.report.stats.corrected import Corrected
from vivid_inspect.lab.report.stats.intervals import Interval
from vivid_inspect.lab.report.tables.render import Table
from vivid_inspect.lab.unscored import UNSCORED_SHARE_LIMIT

DRAWN = "drawn by vivid annotate export: uniform within the generation, stratified by theme"


def _quality(rng: np.random.Generator, items: int) -> np.ndarray:
    return rng.choice(6, size=items, p=[0.05, 0.1, 0.15, 0.25, 0.25, 0.2]).astype(float)


def _noisy(rng: np.random.Generator, quality: np.ndarray, noise: float) -> np.ndarray:
    return np.clip(np.rint(quality + rng.normal(0, noise, quality.size)), 0, 5)


def _world(
    seed: int, annotators: int, shared: int, items: int = 400, judge: str = "consensus", lift: float = 0.0
):
    """A generation of ``items``, ``shared`` of them scored by every annotator, and a judge of every item.

    ``lift``: the share of items the judge scores one point higher (negative: lower), a bias of its means.
    """
    rng = np.random.default_rng(seed)
    quality = _quality(rng, items)
    names = [f"a{i}" for i in range(annotators)]
    scores = {name: _noisy(rng, quality[:shared], 0.9) for name in names}
    if judge == "consensus":
        judged = np.concatenate(
            [np.rint(np.mean(list(scores.values()), axis=0)), _noisy(rng, quality[shared:], 0.3)]
        )
    elif judge == "annotator":  # as noisy as one annotator
        judged = _noisy(rng, quality, 0.9)
    elif judge == "lenient":
        judged = np.clip(_noisy(rng, quality, 0.3) + 1, 0, 5)
    elif judge == "harsh":
        judged = np.clip(_noisy(rng, quality, 0.3) - 1, 0, 5)
    else:
        judged = rng.integers(0, 6, size=items).astype(float)
    moved = rng.random(items) < abs(lift)
    judged = np.clip(judged + np.sign(lift) * moved, 0, 5)
    humans = {name: {i + 1: float(s[i]) for i in range(shared)} for name, s in scores.items()}
    return {i + 1: float(judged[i]) for i in range(items)}, humans


def _judge(by_generation, name: str = "aspect", model: str = "openai/gpt-4.1") -> JudgeScores:
    return JudgeScores(name, model, "aspect", by_generation)


def test_no_human_scores_says_exactly_what_is_missing():
    judge, _ = _world(0, 3, 40)
    cards, tables = build_cards(
        [_judge({"g1": judge})],
        [],
        [],
        epsilon=0.2,
        log_dir="logs/offline",
        generations=[("vivid/literal zero_shot", 400)],
    )
    card = cards[0]
    assert card.verdict == UNDECIDED
    assert "no human scores" in card.why
    assert any(
        "vivid annotate serve logs/offline --generation 'vivid/literal zero_shot' --annotators A,B,C --overlap 30"
        in s
        for s in card.settle
    )
    assert "Can replace the annotators on this data: not enough evidence." in card.markdown
    assert all(table.frame.empty for table in tables)
    assert [t.name for t in tables] == ["alt_test", "judge_bias"]


def test_one_annotator_cannot_be_tested():
    judge, humans = _world(1, 1, 60)
    labels = HumanLabels("g1", "m zero_shot", {SINGLE: humans["a0"]}, DRAWN)
    card = build_cards([_judge({"g1": judge})], [labels], [], epsilon=0.2)[0][0]
    assert card.verdict == UNDECIDED and "two or more annotators" in card.why
    assert card.tests == {} and card.corrected["g1"].n_human == 60  # the bias is still measured


def test_a_consensus_judge_with_the_recommended_design_can_replace_the_annotators():
    judge, humans = _world(2, 4, 60)
    labels = HumanLabels("g1", "m zero_shot", humans, DRAWN)
    cards, (alt, bias) = build_cards([_judge({"g1": judge})], [labels], [], epsilon=0.2)
    assert cards[0].verdict == YES and cards[0].means == YES and cards[0].settle == ()
    row = alt.frame.iloc[0]
    assert row["passed"] == "yes" and row["annotators"] == 4 and row["items"] == 60
    assert row["winning_rate"] >= 0.5
    assert bias.frame.iloc[0]["n_human"] == 60 and bias.frame.iloc[0]["n_items"] == 400
    assert "## Alternative annotator test" in cards[0].markdown and DRAWN in cards[0].markdown


@pytest.mark.parametrize("seed", [3, 13, 23])
def test_a_random_judge_is_ruled_out_with_the_minimum_design(seed: int):
    judge, humans = _world(seed, 3, 150, judge="random")
    card = build_cards([_judge({"g1": judge})], [HumanLabels("g1", "m p", humans, DRAWN)], [], epsilon=0.2)[
        0
    ][0]
    assert card.verdict == NO and "more items would not make it pass" in card.why
    assert all(test.ruled_out for test in card.tests.values())


@pytest.mark.parametrize("seed", range(6))
def test_a_judge_as_noisy_as_an_annotator_is_never_refused_on_a_minimum_design(seed: int):
    """At 3 annotators x 30 items the test often fails such a judge: lack of power, not evidence against it."""
    judge, humans = _world(30 + seed, 3, 30, judge="annotator")
    card = build_cards([_judge({"g1": judge})], [HumanLabels("g1", "m p", humans, DRAWN)], [], epsilon=0.2)[
        0
    ][0]
    assert card.verdict in (YES, UNDECIDED)
    if card.verdict == UNDECIDED:
        assert any("shared items each" in step or "no design up to" in step for step in card.settle), (
            card.settle
        )


@pytest.mark.parametrize(("annotators", "shared"), [(2, 20), (2, 60), (3, 29), (5, 12)])
def test_below_the_papers_minimum_is_never_a_pass(annotators: int, shared: int):
    """A consensus judge wins on any design; below 3 annotators or 30 items it still is not cleared."""
    judge, humans = _world(4 + shared, annotators, shared)
    cards, (alt, _) = build_cards(
        [_judge({"g1": judge})], [HumanLabels("g1", "m p", humans, DRAWN)], [], epsilon=0.2
    )
    card = cards[0]
    assert card.tests["g1"].winning_rate == 1.0  # it would pass, were the design large enough
    assert card.verdict == UNDECIDED and card.tests["g1"].passed is None
    assert alt.frame.iloc[0]["passed"].startswith(BELOW_MINIMUM)
    assert f"| {BELOW_MINIMUM}" in card.markdown and "| pass |" not in card.markdown
    step = next(step for step in card.settle if "shared items each" in step)
    design = settling_design(card.tests["g1"])
    assert design is not None and design.annotators >= 3 and design.items is not None and design.items >= 30
    assert f"{design.annotators} annotators on {design.items} shared items each" in step


def test_a_failed_audit_of_the_judge_holds_the_verdict_back():
    judge, humans = _world(5, 4, 60)
    title = _TITLE.format(
        identity="abc123",
        verdict="FAIL",
        judge="openai/gpt-4.1",
        strategy="aspect",
        language="vi",
        n_items=40,
        data="sample",
    )
    frame = pd.DataFrame(
        [{"probe": "injected_verdict", "verdict": "fail", "reason": "the score follows the injected 5"}]
    )
    audit = Table("audit_1_abc123", title, frame)
    other = Table("audit_2_def", title.replace("openai/gpt-4.1", "openai/gpt-4o"), frame)
    assert audited(audit) == ("openai/gpt-4.1", "aspect", "fail")
    card = build_cards(
        [_judge({"g1": judge})], [HumanLabels("g1", "m p", humans, DRAWN)], [audit, other], epsilon=0.2
    )[0][0]
    assert card.verdict == UNDECIDED and "audit" in card.why
    assert "injected_verdict" in card.markdown and "audit_2_def" not in card.markdown


def test_lenient_on_one_generation_and_harsh_on_another_shows():
    lenient, humans_a = _world(6, 3, 80, judge="lenient")
    harsh, humans_b = _world(7, 3, 80, judge="harsh")
    labels = [
        HumanLabels("ga", "strong zero_shot", humans_a, DRAWN),
        HumanLabels("gb", "weak zero_shot", humans_b, DRAWN),
    ]
    cards, (_, bias) = build_cards([_judge({"ga": lenient, "gb": harsh})], labels, [], epsilon=0.2)
    assert "lenient on strong zero_shot and harsh on weak zero_shot" in cards[0].markdown
    by_generation = bias.frame.set_index("generation")
    assert by_generation.loc["ga", "bias_lo"] > 0 > by_generation.loc["gb", "bias_hi"]
    assert set(by_generation.index) == {"ga", "gb"}


def test_every_judge_gets_a_page():
    judge, humans = _world(8, 3, 40)
    cards, _ = build_cards(
        [_judge({"g1": judge}), _judge({"g1": judge}, name="lexical", model="")],
        [HumanLabels("g1", "m p", humans, DRAWN)],
        [],
        epsilon=0.15,
    )
    text = cards_markdown(cards)
    assert text.count("# Judge card:") == 2 and "\n---\n" in text
    assert "# Judge card: lexical (strategy aspect)" in text
    assert "nothing to judge" in cards_markdown([])


def test_the_settling_design_is_enough_when_the_advantage_holds():
    """Repeating the same items up to the design's count (mean and spread kept) settles the test as it said."""
    checked = 0
    for seed in range(40):
        rng = np.random.default_rng(50 + seed)
        quality = _quality(rng, 30)
        humans = {a: _noisy(rng, quality, 0.9) for a in ("a", "b", "c")}
        judge = np.rint(np.mean(list(humans.values()), axis=0))
        flip = rng.random(30) < 0.25
        judge = np.where(flip, np.clip(judge + rng.choice([-2, 2], size=30), 0, 5), judge)  # a weaker judge
        small = alt_test(
            dict(enumerate(judge)), {a: dict(enumerate(s)) for a, s in humans.items()}, epsilon=0.2
        )
        design = settling_design(small)
        if small.passed or small.ruled_out or design is None or design.items is None:
            continue
        copies = -(-design.items // 30)
        big = alt_test(
            dict(enumerate(np.tile(judge, copies))),
            {a: dict(enumerate(np.tile(s, copies))) for a, s in humans.items()},
            epsilon=0.2,
        )
        assert (big.passed is True) if design.answer == "yes" else big.ruled_out, (seed, design)
        checked += 1
    assert checked >= 3  # the draws include judges that neither pass nor are ruled out now


@pytest.mark.parametrize(
    ("seed", "annotators", "shared", "lift"),
    [(2, 3, 100, 0.3), (4, 3, 120, 0.6), (7, 4, 80, 0.3), (11, 3, 150, -0.45)],
)
def test_a_biased_judge_is_never_cleared_without_the_caveat(
    seed: int, annotators: int, shared: int, lift: float
):
    """It passes the alternative annotator test, but its bias interval is not inside the tolerance."""
    judge, humans = _world(seed, annotators, shared, lift=lift)
    cards, (_, bias) = build_cards(
        [_judge({"g1": judge})], [HumanLabels("g1", "m p", humans, DRAWN)], [], epsilon=0.2
    )
    card = cards[0]
    lo, hi = bias.frame.iloc[0][["bias_lo", "bias_hi"]]
    assert not (lo >= -BIAS_TOLERANCE and hi <= BIAS_TOLERANCE)
    assert card.verdict == YES and card.means in (NO, UNDECIDED)
    line = next(line for line in card.markdown.splitlines() if line.startswith("**Can replace"))
    assert "yes.**" in line and READ_CORRECTED in line and "Item by item only" in line
    means_line = next(line for line in card.markdown.splitlines() if line.startswith("**Its means"))
    assert f"{card.means}.**" in means_line and READ_CORRECTED in means_line
    assert card.means == (NO if lo > BIAS_TOLERANCE or hi < -BIAS_TOLERANCE else UNDECIDED)
    if card.means == UNDECIDED:
        assert any(
            "labelled items of 400 would put the bias interval" in step or "too close to ±0.2" in step
            for step in card.settle
        )


def _bias(estimate: float, lo: float, hi: float, n: int, total: int) -> Corrected:
    interval = Interval(estimate, lo, hi, n)
    return Corrected(interval, interval, interval, 0.5, n, total)


@pytest.mark.parametrize(("estimate", "half"), [(0.0, 0.25), (0.4, 0.25), (-0.05, 0.2), (0.5, 0.35)])
def test_labels_to_settle_reach_the_standard_error_the_power_calculation_needs(estimate: float, half: float):
    n, total = 40, 1000
    needed = labels_to_settle(_bias(estimate, estimate - half, estimate + half, n, total))
    assert needed is not None and n < needed <= total
    # The distance from the tolerance planned at its 80 % lower bound (z 0.8416); the finite-population
    # standard error at `needed` is at most that over z_0.975 + z_0.8 (2.8016), and not at `needed - 1`.
    error = half / 2.0243  # t_0.975 with 38 degrees of freedom
    spread2 = error**2 / (1 / n - 1 / total)
    gap = abs(abs(estimate) - BIAS_TOLERANCE) - 0.8416 * error
    assert spread2 * (1 / needed - 1 / total) <= (gap / 2.8016) ** 2 * 1.001
    assert spread2 * (1 / (needed - 1) - 1 / total) > (gap / 2.8016) ** 2 * 0.999


@pytest.mark.parametrize(("estimate", "half"), [(0.2, 0.1), (0.25, 0.15), (-0.17, 0.1)])
def test_a_bias_too_close_to_the_tolerance_gets_no_promise(estimate: float, half: float):
    c = _bias(estimate, estimate - half, estimate + half, 40, 1000)
    assert labels_to_settle(c) is None
    judge, humans = _world(12, 3, 40)
    card = build_cards([_judge({"g1": judge})], [HumanLabels("g1", "m p", humans, DRAWN)], [], epsilon=0.2)[
        0
    ][0]
    step = _labels_step("m p", c)
    assert "too close to ±0.2 for 40 labelled items" in step and "label more items" in step
    assert card.markdown  # the card builds around such a step


@pytest.mark.parametrize(
    ("judged", "unscored", "loud"),
    [(85, 85, True), (100, 21, True), (100, 20, False), (100, 3, False), (0, 0, False)],
)
def test_a_mostly_unreadable_judge_is_said_first(judged: int, unscored: int, loud: bool):
    judge, humans = _world(40, 3, 40)
    scores = JudgeScores(
        "aspect", "ollama/gemma3", "aspect", {"g1": judge}, judged, unscored, ("no score found (85)",)
    )
    for human in ([], [HumanLabels("g1", "m p", humans, DRAWN)]):
        card = build_cards([scores], human, [], epsilon=0.2)[0][0]
        first = card.markdown.splitlines()[2]
        assert first.startswith("**Replies mostly unreadable") == loud, first
        if loud:
            assert (
                f"{unscored} of {judged} judged items" in first
                and f"limit {UNSCORED_SHARE_LIMIT:.0%}" in first
            )
            assert "no score found (85)" in first and "human" not in first
            assert card.verdict == NO


def _rows(values: list[list[float]], status: str = "no score found") -> pd.DataFrame:
    """Score rows of one judge on one generation: item i's epochs' values (NaN: unscored, -1: refused)."""
    records = [
        {
            "judge": "aspect",
            "judge_model": "ollama/gemma3",
            "strategy": "aspect",
            "scorer": "judge_aspect",
            "generation": "g1",
            "id": str(item + 1),
            "epoch": epoch + 1,
            "value": np.nan if value == -1 else value,
            "unscored": bool(np.isnan(value)),
            "refused": value == -1,
            "error": value == -1,
            "parse_status": status if np.isnan(value) else "ok",
            "status": "success",
            "created": "2026-12-01",
            "log": "a.eval",
        }
        for item, epochs in enumerate(values)
        for epoch, value in enumerate(epochs)
    ]
    return pd.DataFrame(records)


@pytest.mark.parametrize(
    ("values", "judged", "unscored"),
    [
        ([[np.nan]] * 17 + [[3.0]] * 3, 20, 17),
        ([[np.nan, 4.0], [np.nan, np.nan], [2.0, 2.0]], 3, 1),  # one readable epoch scores the item
        ([[1.0]] * 5, 5, 0),
        ([[-1.0]] * 2 + [[2.0]] * 3, 5, 2),  # refused values: no usable score either
    ],
)
def test_judge_scores_count_the_items_left_unscored_with_their_reasons(values, judged: int, unscored: int):
    (scores,) = judge_scores(_rows(values))
    assert (scores.judged, scores.unscored) == (judged, unscored)
    assert len(scores.by_generation["g1"]) == judged - unscored
    flat = np.array([value for epochs in values for value in epochs])
    reasons = [f"no score found ({np.isnan(flat).sum()})"] if np.isnan(flat).any() else []
    reasons += [f"refused ({(flat == -1).sum()})"] if (flat == -1).any() else []
    assert scores.reasons == tuple(reasons)
    card = build_cards([scores], [], [], epsilon=0.2)[0][0]
    assert card.markdown.splitlines()[2].startswith("**Replies mostly unreadable") == (
        unscored / judged > 0.2
    )


def test_the_cards_bias_counts_the_labelled_items_the_judge_left_unscored():
    """Humans scored the unscored items 0: the corrected mean over every item must see them."""
    values = [[np.nan]] * 12 + [[4.0]] * 28  # 40 items, the judge read 28
    (scores,) = judge_scores(_rows(values))
    assert scores.unscored_items == {"g1": frozenset(range(1, 13))}
    human = {item: (0.0 if item <= 12 else 4.0) for item in range(1, 41)}
    labels = HumanLabels("g1", "m zero_shot", {SINGLE: human}, "all items")
    _, (_, bias) = build_cards([scores], [labels], [], epsilon=0.2)
    row = bias.frame.iloc[0]
    assert row["corrected_mean"] == pytest.approx(4.0 * 28 / 40)  # every item, the unscored at 0
    assert row["bias"] == pytest.approx(0.0)  # on the items it scored the judge is exact


# Issue: the card proposed "3 annotators on 776 shared items each" on a generation of 46 items.
@pytest.mark.parametrize(
    ("seed", "judge", "items"),
    [(s, j, n) for s in range(4) for j in ("annotator", "random") for n in (34, 46, 60)],
)
def test_no_design_asks_for_more_shared_items_than_the_generation_has(seed: int, judge: str, items: int):
    scores, humans = _world(seed, 3, 30, items=items, judge=judge)
    card = build_cards([_judge({"g1": scores})], [HumanLabels("g1", "m p", humans, DRAWN)], [], epsilon=0.2)[
        0
    ][0]
    for step in card.settle:
        asked = [int(n) for n in re.findall(r"(\d+) shared items each", step)]
        asked += [int(n) for n in re.findall(r"about (\d+) labelled items", step)]
        assert all(n <= items for n in asked), step
        if "no design of" in step:
            assert f"the generation has {items}" in step and (
                "too close to tell apart" in step or "annotators on" in step
            )
    design = settling_design(card.tests["g1"], max_items=items)
    assert design is None or design.items is None or design.items <= items


def _left_out_test(effects: tuple[float, ...], n: int = 30, spread: float = 0.5) -> AltTest:
    """A test whose annotators beat the judge by ``effect`` beyond the handicap 0.2 (negative: the judge wins)."""
    rows = tuple(LeftOut(f"a{i}", n, 0.5, 0.7 + e, 0.5, spread=spread) for i, e in enumerate(effects))
    return AltTest(0.2, 0.05, rows, n, 0.5, 0.5, None)


@pytest.mark.parametrize("effects", [(-0.9, -0.12, -0.12), (-1.0, -0.2, -0.05)])
def test_more_annotators_are_proposed_when_they_fit_in_the_generation(effects: tuple[float, ...]):
    test = _left_out_test(effects)
    assert settling_design(test, max_items=40).items is None  # three annotators need more than 40 each
    wider = settling_design(test, annotators=4, max_items=40)
    assert wider is not None and wider.items is not None and wider.items <= 40
    (step,) = _more_evidence("m p", test, 40)
    assert "no design of 3 annotators on up to 40 shared items each (the generation has 40)" in step
    assert f"4 annotators on {wider.items} shared items each" in step


def test_a_judge_too_close_to_tell_apart_gets_no_design_within_the_generation():
    (step,) = _more_evidence("m p", _left_out_test((-0.02, 0.01, -0.01)), 46)
    assert "too close to tell apart on this data" in step and "(now " not in step  # no design proposed


@pytest.mark.parametrize("n_items", [15, 46, 300])
@pytest.mark.parametrize(("estimate", "half", "n"), [(0.0, 0.3, 10), (0.35, 0.3, 12), (0.1, 0.15, 14)])
def test_no_labels_step_asks_for_more_labels_than_items(n_items: int, estimate: float, half: float, n: int):
    c = _bias(estimate, estimate - half, estimate + half, n, n_items)
    step = _labels_step("m p", c)
    assert all(int(k) <= n_items for k in re.findall(r"(\d+) labelled items", step)), step
    needed = labels_to_settle(c)
    assert needed is None or needed <= n_items


# Issue: with every item labelled the bias is exact, yet the card said "not enough evidence".
@pytest.mark.parametrize(("shift", "verdict"), [(0.0, YES), (0.15, YES), (-0.2, YES), (0.5, NO), (-1.0, NO)])
def test_every_item_labelled_makes_the_bias_exact(shift: float, verdict: str):
    rng = np.random.default_rng(3)
    human = {i: float(v) for i, v in enumerate(rng.integers(1, 5, size=46), start=1)}
    judge = {i: v + shift for i, v in human.items()}  # scores 1-4, so the shift stays in 0-5
    labels = HumanLabels("g1", "m p", {SINGLE: human}, DRAWN)
    card = build_cards([_judge({"g1": judge})], [labels], [], epsilon=0.2)[0][0]
    c = card.corrected["g1"]
    assert c.n_human == c.n_items == 46 and exact_bias(c) == pytest.approx(shift)
    assert card.means == verdict
    assert f"{shift:.3f} exact, every item has a human score" in card.markdown
    assert "labelled items for a bias interval" not in card.markdown


def _cell(judge: float, corrected: float, lo: float | None, hi: float | None) -> tuple[float, Corrected]:
    bias = Interval(
        judge - corrected, None if hi is None else judge - hi, None if lo is None else judge - lo, 46
    )
    return judge, Corrected(
        Interval(corrected, lo, hi, 46), Interval(corrected, lo, hi, 46), bias, 0.5, 40, 46
    )


# Issue: lenient on oracle and harsh on literal "misrank them" although the order is the same.
@pytest.mark.parametrize(
    ("a", "b", "says"),
    [
        # judge 5.00 on a (corrected 4.67), 0.24 on b (corrected 1.1): lenient and harsh, same order
        (_cell(5.0, 4.67, 4.45, 4.9), _cell(0.24, 1.1, 0.85, 1.35), "keep their order"),
        # the judge puts a above b, people b above a, and the corrected intervals are apart
        (_cell(3.5, 2.5, 2.2, 2.8), _cell(3.0, 3.6, 3.3, 3.9), "its own means misrank a and b"),
        # reversed, but the corrected intervals overlap: the true order is open
        (_cell(3.5, 2.9, 2.5, 3.3), _cell(3.0, 3.2, 2.8, 3.6), "may misrank a and b"),
        # reversed, one corrected mean without an interval
        (_cell(3.5, 2.5, 2.2, 2.8), _cell(3.0, 3.6, None, None), "may misrank a and b"),
    ],
    ids=["same-order", "misrank", "overlap", "no-interval"],
)
def test_misrank_is_said_only_when_the_orders_differ(a, b, says: str):
    sentence = bias_leaning([("a", *a), ("b", *b)])
    assert sentence is not None and says in sentence
    if says == "keep their order":
        assert "misrank" not in sentence and "lenient on a and harsh on b" in sentence


def test_the_same_order_without_a_clear_lean_says_nothing():
    assert bias_leaning([("a", *_cell(3.1, 3.0, 2.7, 3.3)), ("b", *_cell(2.1, 2.0, 1.7, 2.3))]) is None


def _exact_cell(judge: float, human: float) -> tuple[float, Corrected]:
    """Every item labelled: no interval, the bias and the corrected mean exact."""
    point = Interval(human, None, None, 46, "every item has a human score")
    return judge, Corrected(point, point, Interval(judge - human, None, None, 46), 1.0, 46, 46)


@pytest.mark.parametrize(
    ("a", "b", "says"),
    [
        (
            _exact_cell(5.0, 4.67),
            _exact_cell(0.24, 1.1),
            "lenient on a and harsh on b (the bias, or its interval",
        ),
        (
            _exact_cell(3.5, 2.5),
            _exact_cell(3.0, 3.6),
            "its own means misrank a and b (the corrected means are apart)",
        ),
        (_exact_cell(3.0, 3.0), _exact_cell(2.0, 2.0), None),
    ],
    ids=["lenient-and-harsh", "misrank", "exact-judge"],
)
def test_an_exact_bias_leans_and_ranks_as_a_point(a, b, says: str | None):
    sentence = bias_leaning([("a", *a), ("b", *b)])
    assert sentence == says if says is None else says in (sentence or "")
