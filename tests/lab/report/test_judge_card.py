"""The judge card (report/judge_card.py): the verdict line and what would settle an undecided case."""

from __future__ import annotations

import numpy as np
import pandas as pd

from vivid_inspect.lab.report.alt_test import alt_test, items_to_pass
from vivid_inspect.lab.report.audit_tables import _TITLE, audited
from vivid_inspect.lab.report.judge_card import (
    NO,
    SINGLE,
    UNDECIDED,
    YES,
    HumanLabels,
    JudgeScores,
    build_cards,
    cards_markdown,
)
from vivid_inspect.lab.report.render import Table

DRAWN = "drawn by vivid annotate export: uniform within the generation, stratified by theme"


def _quality(rng: np.random.Generator, items: int) -> np.ndarray:
    return rng.choice(6, size=items, p=[0.05, 0.1, 0.15, 0.25, 0.25, 0.2]).astype(float)


def _noisy(rng: np.random.Generator, quality: np.ndarray, noise: float) -> np.ndarray:
    return np.clip(np.rint(quality + rng.normal(0, noise, quality.size)), 0, 5)


def _world(seed: int, annotators: int, shared: int, items: int = 400, judge: str = "consensus"):
    """A generation of ``items``, ``shared`` of them scored by every annotator, and a judge of every item."""
    rng = np.random.default_rng(seed)
    quality = _quality(rng, items)
    names = [f"a{i}" for i in range(annotators)]
    scores = {name: _noisy(rng, quality[:shared], 0.9) for name in names}
    if judge == "consensus":
        judged = np.concatenate(
            [np.rint(np.mean(list(scores.values()), axis=0)), _noisy(rng, quality[shared:], 0.3)]
        )
    elif judge == "lenient":
        judged = np.clip(_noisy(rng, quality, 0.3) + 1, 0, 5)
    elif judge == "harsh":
        judged = np.clip(_noisy(rng, quality, 0.3) - 1, 0, 5)
    else:
        judged = rng.integers(0, 6, size=items).astype(float)
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
        generations=["vivid/literal zero_shot"],
    )
    card = cards[0]
    assert card.verdict == UNDECIDED
    assert "no human scores" in card.why
    assert any(
        'vivid annotate serve logs/offline --generation "vivid/literal zero_shot" --annotators A,B,C --overlap 30'
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
    assert cards[0].verdict == YES and cards[0].settle == ()
    row = alt.frame.iloc[0]
    assert bool(row["passed"]) and row["annotators"] == 4 and row["items"] == 60
    assert row["winning_rate"] >= 0.5
    assert bias.frame.iloc[0]["n_human"] == 60 and bias.frame.iloc[0]["n_items"] == 400
    assert "## Alternative annotator test" in cards[0].markdown and DRAWN in cards[0].markdown


def test_a_random_judge_is_refused():
    judge, humans = _world(3, 3, 60, judge="random")
    card = build_cards([_judge({"g1": judge})], [HumanLabels("g1", "m p", humans, DRAWN)], [], epsilon=0.2)[
        0
    ][0]
    assert card.verdict == NO and "fails the alternative annotator test" in card.why


def test_a_small_design_passes_but_is_not_enough_evidence():
    judge, humans = _world(4, 2, 20)
    card = build_cards([_judge({"g1": judge})], [HumanLabels("g1", "m p", humans, DRAWN)], [], epsilon=0.2)[
        0
    ][0]
    assert card.verdict == UNDECIDED
    assert any("1 more annotator" in step for step in card.settle)
    assert any("at least 30 shared items per annotator (the fewest now: 20)" in step for step in card.settle)


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


def test_items_to_pass_is_enough_when_the_advantage_holds():
    """Repeating the same items until there are as many as items_to_pass says makes the judge pass."""
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
        needed = items_to_pass(small)
        if small.passed or needed is None:
            continue
        copies = -(-needed // 30)
        big = alt_test(
            dict(enumerate(np.tile(judge, copies))),
            {a: dict(enumerate(np.tile(s, copies))) for a, s in humans.items()},
            epsilon=0.2,
        )
        assert big.passed is True, (seed, needed)
        checked += 1
    assert checked >= 3  # the draws include judges that fail now and could pass with more items
