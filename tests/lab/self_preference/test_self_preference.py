"""Self-preference from logs: each judge's leniency and scale, each own-family cell's excess, who is flagged.

Synthetic scores carry known effects: a judge reads an item's quality through its leniency and its
scale, adds noise, and the score is rounded and kept within 0-5, exactly as a judge's verdict is;
a planted self-preference raises one cell before the rounding. Real logs come from the offline
generators (vivid/oracle, vivid/literal) judged by scripted mockllm graders, and from `vivid run`
on an offline spec.
"""

from __future__ import annotations

import argparse
import hashlib
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from inspect_ai import eval, score
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.model import (
    ChatMessage,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelOutput,
    ModelUsage,
    get_model,
)

from vivid_inspect.lab.cli.audit_from import handle_from
from vivid_inspect.lab.cli.main import main
from vivid_inspect.lab.report.reading.logs import SCORE_COLUMNS
from vivid_inspect.lab.self_preference.run import (
    MIN_ITEMS,
    Participant,
    SelfPreferenceCard,
    SelfPreferenceError,
    estimate,
    from_frame,
    holm_levels,
    linked,
    run_self_preference,
    spec_families,
)
from vivid_inspect.log_contract import AUDIT_TAG, SANITY_TAG
from vivid_inspect.scorers.judge import judge_scorer
from vivid_inspect.tasks import explain
from vivid_inspect.text import nfc

GPT_JUDGE, CLAUDE_JUDGE, GEMINI_JUDGE = (
    "openai/gpt-4.1",
    "anthropic/claude-3-5-sonnet",
    "google/gemini-2.0-flash",
)
GPT, CLAUDE, LLAMA = "openai/gpt-4o", "anthropic/claude-3-haiku", "together/meta-llama/Llama-3.3-70B"
JUDGES = (GPT_JUDGE, CLAUDE_JUDGE, GEMINI_JUDGE)
GENERATORS = (GPT, CLAUDE, LLAMA)
N_ITEMS = 40
Cells = dict[tuple[str, str], dict[object, float]]


def label(judge_model: str) -> str:
    return f"judge_aspect [{judge_model}]"


def draw(
    *,
    judges: Sequence[str] = JUDGES,
    generators: Sequence[str] = GENERATORS,
    n: int = N_ITEMS,
    seed: int = 1,
    scales: Sequence[float] | None = None,
    leniency: Sequence[float] | None = None,
    quality: Sequence[float] | None = None,
    noise: float = 0.6,
    spread: float = 0.8,
    shift: Mapping[tuple[int, int], float] | None = None,
    bounds: tuple[int, int] = (0, 5),
) -> Cells:
    """(judge, generator) -> item -> whole score: leniency + scale * quality + noise + shift, rounded, bounded."""
    rng = np.random.default_rng(seed)
    scales = scales or [1.0] * len(judges)
    leniency = leniency or [0.0] * len(judges)
    quality = quality or list(np.linspace(3.2, 2.2, len(generators)))
    idiom = rng.normal(size=n)  # an idiom's difficulty, shared by every generator's explanation of it
    out: Cells = {}
    for b, model in enumerate(generators):
        item = np.sqrt(0.5) * idiom + np.sqrt(0.5) * rng.normal(size=n)
        for a, judge in enumerate(judges):
            latent = 2.5 + leniency[a] + scales[a] * (quality[b] - 2.5 + spread * item)
            latent = latent + noise * rng.normal(size=n) + (shift or {}).get((a, b), 0.0)
            values = np.clip(np.rint(latent), *bounds)
            out[(judge, model)] = {i + 1: float(v) for i, v in enumerate(values)}
    return out


def _row(judge_model: str, model: str, item: object, value: float, **extra: object) -> dict[str, object]:
    row: dict[str, object] = dict.fromkeys(SCORE_COLUMNS)
    row |= {
        "log": f"{model}.eval",
        "generation": f"g-{model}",
        "run": f"run-{model}",
        "data": "sample",
        "task": "explain",
        "model": model,
        "prompt": "zero_shot",
        "status": "success",
        "created": "2026-01-01T00:00:00",
        "id": item,
        "epoch": 1,
        "scorer": "judge_aspect",
        "judge": "judge_aspect",
        "judge_model": judge_model,
        "strategy": "aspect",
        "value": value,
        "unscored": False,
        "error": False,
        "repeat": 0.0,
    }
    return row | extra


def frame_of(cells: Mapping[tuple[str, str], Mapping[object, float]], **extra: object) -> pd.DataFrame:
    rows = [
        _row(j, g, item, value, **extra) for (j, g), items in cells.items() for item, value in items.items()
    ]
    return pd.DataFrame(
        rows, columns=[*SCORE_COLUMNS, *(c for c in ("run", "data") if c not in SCORE_COLUMNS)]
    )


def card_of(cells, **options) -> SelfPreferenceCard:
    return from_frame(frame_of(cells), **options)


def participants(judge_families: Sequence[str], generator_families: Sequence[str]):
    judges = [
        Participant(f"judge-{f}-{i}", f"{f}/judge", f, "declared") for i, f in enumerate(judge_families)
    ]
    generators = [
        Participant(f"gen-{f}-{i}", f"{f}/gen", f, "declared") for i, f in enumerate(generator_families)
    ]
    return judges, generators


def table(judges, generators, **options) -> Cells:
    """``draw`` keyed by the participants' labels."""
    cells = draw(judges=[j.label for j in judges], generators=[g.label for g in generators], **options)
    return cells


def diagonal(k: int):
    """Judges and generators, k of each, judge i of generator i's family: the own-family cells on the diagonal."""
    families = ["openai", "anthropic", "google", "qwen", "meta"][:k]
    return participants(families, families)


# --- the case: judges that spread their scores differently ------------------------------

SPREADS = {"1.4/1.0/0.7": (1.4, 1.0, 0.7), "1.15/1.0/0.85": (1.15, 1.0, 0.85)}


@pytest.mark.slow
@pytest.mark.parametrize("spreads", list(SPREADS.values()), ids=list(SPREADS))
@pytest.mark.parametrize("order", [(0, 1, 2), (2, 0, 1)], ids=["widest-first", "widest-last"])
def test_judges_spreading_their_scores_differently_are_not_flagged(spreads, order) -> None:
    # No self-preference anywhere; the judges differ only in how widely they spread what they see.
    # The additive fit on cell means flagged 100 % of such folders at n=200; the scale fit, none.
    judges, generators = diagonal(3)
    scales = [spreads[i] for i in order]
    flagged = []
    for seed in range(4):
        cells = table(judges, generators, n=200, seed=seed, scales=scales, quality=(3.4, 2.8, 2.2))
        card = estimate(cells, judges, generators)
        flagged += [(seed, c.judge) for c in card.flagged]
        fitted = [fit.scale for fit in card.judge_fits]
        expected = np.array(scales) / np.exp(np.mean(np.log(scales)))
        np.testing.assert_allclose(fitted, expected, rtol=0.15)
    assert flagged == []


@pytest.mark.slow
@pytest.mark.parametrize(
    ("judge_families", "generator_families"),
    [
        (("openai", "anthropic", "google", "qwen"), ("openai", "anthropic", "google", "qwen")),
        (("openai", "qwen", "anthropic"), ("openai", "qwen")),
        (("openai", "anthropic", "google"), ("openai", "meta", "mistral")),
    ],
    ids=["4x4", "3x2", "3x3-one-own"],
)
def test_spread_is_not_self_preference_in_other_shapes(judge_families, generator_families) -> None:
    judges, generators = participants(judge_families, generator_families)
    scales = list(np.linspace(1.4, 0.7, len(judges)))
    quality = list(np.linspace(3.4, 2.2, len(generators)))
    for seed in range(3):
        card = estimate(
            table(judges, generators, n=200, seed=seed, scales=scales, quality=quality), judges, generators
        )
        assert card.flagged == (), seed


@pytest.mark.slow
def test_a_ceiling_does_not_bias_the_own_family_cells() -> None:
    # Generators near the top, a wide-spreading judge: many scores sit at 5. The additive fit on
    # cell means biased an own-family cell by -0.39; the bound is part of the model now.
    judges, generators = diagonal(3)
    options = {"n": 600, "scales": (1.4, 1.0, 0.7), "quality": (4.3, 3.8, 3.0), "leniency": (0.3, 0.0, -0.2)}
    clean = estimate(table(judges, generators, seed=7, **options), judges, generators)
    at_five = np.mean(
        [
            v == 5
            for v in table(judges, generators, seed=7, **options)[("judge-openai-0", "gen-openai-0")].values()
        ]
    )
    assert at_five > 0.5  # the ceiling is real
    planted = estimate(
        table(judges, generators, seed=7, shift={(0, 0): 0.5, (2, 2): 0.5}, **options), judges, generators
    )
    for a in range(3):
        cell = (judges[a].label, generators[a].label)
        assert clean.cell(*cell).excess == pytest.approx(0.0, abs=0.12), cell
        assert planted.cell(*cell).excess == pytest.approx(0.5 if a != 1 else 0.0, abs=0.15), cell
    assert clean.flagged == ()


# --- what is flagged, what is not ---------------------------------------------------------------


def test_a_self_preferring_judge_is_flagged_on_its_own_family_only() -> None:
    cells = draw(shift={(0, 0): 1.0})  # the GPT judge adds a point to GPT's explanations
    card = card_of(cells)
    own = card.cell(label(GPT_JUDGE), GPT)
    assert own.own_family and own.flagged and own.ci_low > 0
    assert own.excess == pytest.approx(1.0, abs=0.35)
    assert [(c.judge, c.generator) for c in card.flagged] == [(label(GPT_JUDGE), GPT)]
    assert card.exit_code == 1
    markdown = card.markdown()
    assert f"**Flagged**: {label(GPT_JUDGE)} scores {GPT}, of its own family" in markdown
    assert "FLAGGED" in markdown


@pytest.mark.parametrize("shift", [1.0, -1.0], ids=["lenient", "harsh"])
def test_a_lenient_or_harsh_judge_is_not_self_preferring(shift: float) -> None:
    cells = draw(leniency=(shift, 0.0, 0.0), n=60)
    card = card_of(cells)
    own = card.cell(label(GPT_JUDGE), GPT)
    assert own.own_family and not own.flagged
    assert own.ci_low < 0 < own.ci_high
    assert label(GPT_JUDGE) not in {c.judge for c in card.flagged}
    lenient = card.judge_fit(label(GPT_JUDGE)).leniency - card.judge_fit(label(GEMINI_JUDGE)).leniency
    assert lenient == pytest.approx(shift, abs=0.3)


def test_no_effect_flags_nobody() -> None:
    card = card_of(draw())
    assert card.flagged == () and card.exit_code == 0
    assert "No judge is flagged" in card.markdown()
    assert all(c.ci_low <= c.excess <= c.ci_high for c in card.cells)


def test_a_judge_preferring_another_family_is_not_self_preferring() -> None:
    # The GPT judge favours Claude's explanations: an interaction, but not with its own family.
    cells = draw(shift={(0, 1): 1.5}, n=80)
    card = card_of(cells)
    assert not card.cell(label(GPT_JUDGE), CLAUDE).own_family
    assert not card.cell(label(GPT_JUDGE), CLAUDE).flagged and card.exit_code == 0
    # The fit the own-family estimates rest on misses the other-family cells, and the card says so
    # (the misfit spreads over the cells the fitted leniency, scale and quality bend to meet).
    assert "leniency, scale and quality do not explain every cell of different families: " in card.markdown()
    assert card_of(draw(n=80)).notes == ()


@pytest.mark.slow
@pytest.mark.parametrize("k", [3, 4])
@pytest.mark.parametrize("biased", [(0,), (0, 1)], ids=["one-judge", "two-judges"])
def test_a_preference_moves_its_own_cell_only(k: int, biased) -> None:
    # Scores kept within 1-4 so that a point added to a cell never meets a bound: the likelihood is
    # then exactly the same with the shift moved into the data, and the estimate must move with it.
    judges, generators = diagonal(k)
    options = {
        "n": 60,
        "seed": 3,
        "quality": list(np.linspace(2.8, 2.2, k)),
        "scales": list(np.linspace(1.2, 0.8, k)),
    }
    fair_cells = table(judges, generators, bounds=(1, 3), **options)
    biased_cells = {
        (j, g): {
            i: v + (1.0 if (a, a) in {(b, b) for b in biased} and g == generators[a].label else 0.0)
            for i, v in items.items()
        }
        for a, jp in enumerate(judges)
        for (j, g), items in fair_cells.items()
        if j == jp.label
    }
    fair = estimate(fair_cells, judges, generators)
    card = estimate(biased_cells, judges, generators)
    for a, judge in enumerate(judges):
        for b, generator in enumerate(generators):
            moved = (
                card.cell(judge.label, generator.label).excess
                - fair.cell(judge.label, generator.label).excess
            )
            assert moved == pytest.approx(1.0 if a == b and a in biased else 0.0, abs=2e-3), (a, b)
    assert {c.judge for c in card.flagged} == {judges[a].label for a in biased}
    assert fair.flagged == ()


@pytest.mark.slow
def test_many_own_family_cells_share_one_joint_level() -> None:
    # Three OpenAI judges, two Gemini ones; six OpenAI generators, two Llama ones: 18 own-family
    # cells. With none flagged, each is held to 1 - 0.05/18 (Holm's first step), so that the
    # folder's chance of a false flag stays 5 % (measured in bench/coverage_selfpref.py).
    judges = [Participant(f"j{i}", f"openai/gpt-j{i}", "openai", "inferred") for i in range(3)]
    judges += [Participant(f"j{i}", GEMINI_JUDGE, "google", "inferred") for i in (3, 4)]
    generators = [Participant(f"g{i}", f"openai/gpt-g{i}", "openai", "inferred") for i in range(6)]
    generators += [Participant(f"g{i}", LLAMA, "meta", "inferred") for i in (6, 7)]
    card = estimate(
        table(judges, generators, n=30, quality=list(np.linspace(3.5, 2.0, 8))), judges, generators
    )
    assert card.n_tested == 18
    assert (
        "jointly at 5 % over the 18 own-family cells (Holm: the clearest cell at 99.72 %, the next at 99.71 %"
        in (card.markdown())
    )
    assert card.flagged == ()
    for cell in card.cells:
        if cell.own_family:
            assert cell.flag_low < cell.ci_low <= cell.ci_high < cell.flag_high


@pytest.mark.parametrize(
    ("p_values", "levels", "rejected"),
    [
        ([0.001, 0.02, 0.5], [0.05 / 3, 0.05 / 2, 0.05], [True, True, False]),
        ([0.03, 0.001, 0.2], [0.05 / 2, 0.05 / 3, 0.05 / 2], [False, True, False]),
        ([0.2, 0.3, 0.04], [0.05 / 3, 0.05 / 3, 0.05 / 3], [False, False, False]),
        ([0.004, 0.01, 0.04], [0.05 / 3, 0.05 / 2, 0.05], [True, True, True]),
        ([0.04], [0.05], [True]),
    ],
    ids=["two-of-three", "stops-at-the-second", "none", "all", "one"],
)
def test_flags_step_down_as_holm_does(p_values, levels, rejected) -> None:
    # The clearest cell at 0.05/k, the next at 0.05/(k-1) once the first is rejected: a second
    # self-preferring judge is not hidden by the first, and the joint error rate stays 5 %.
    found = holm_levels(p_values, 0.05)
    assert found == pytest.approx(levels)
    assert [p < level for p, level in zip(p_values, found, strict=True)] == rejected


def test_with_one_own_family_cell_the_flag_uses_the_95_interval() -> None:
    judges, generators = participants(("openai", "google", "anthropic"), ("openai", "meta"))
    card = estimate(table(judges, generators, shift={(0, 0): 1.0}), judges, generators)
    own = card.cell(judges[0].label, generators[0].label)
    assert card.n_tested == 1 and (own.flag_low, own.flag_high) == (own.ci_low, own.ci_high)
    assert own.flagged and "jointly" not in card.markdown()


def test_a_folder_where_no_judge_shares_a_family_says_so() -> None:
    judges, generators = participants(("google", "anthropic", "qwen"), ("openai", "meta"))
    card = estimate(table(judges, generators), judges, generators)
    assert card.n_tested == 0 and card.exit_code == 0
    assert "no judge shares a family with a generator, so none can be" in card.markdown()


def test_too_few_items_print_no_interval_and_flag_nobody() -> None:
    cells = draw(shift={(0, 0): 2.0}, n=MIN_ITEMS - 1)
    card = card_of(cells)
    own = card.cell(label(GPT_JUDGE), GPT)
    assert own.excess > 1 and own.ci_low is None and own.flag_low is None and not own.flagged
    assert card.exit_code == 0
    assert f"too few items for a 95 % interval (n={MIN_ITEMS - 1})" in card.markdown()
    assert all(fit.scale_low is None for fit in card.judge_fits)
    # With enough items the same preference is flagged.
    assert card_of(draw(shift={(0, 0): 2.0}, n=MIN_ITEMS)).flagged


# --- designs that cannot separate self-preference -------------------------------------------------


@pytest.mark.parametrize(
    ("judges", "generators", "found"),
    [
        ((GPT_JUDGE,), GENERATORS, f"1 judge(s) ({label(GPT_JUDGE)}) and 3 generator(s)"),
        (JUDGES, (LLAMA,), f"and 1 generator(s) ({LLAMA})"),
        ((GPT_JUDGE,), (GPT,), f"1 judge(s) ({label(GPT_JUDGE)}) and 1 generator(s) ({GPT})"),
    ],
    ids=["one-judge", "one-generator", "one-of-each"],
)
def test_one_judge_or_one_generator_is_nothing_to_separate(judges, generators, found: str) -> None:
    with pytest.raises(SelfPreferenceError) as caught:
        from_frame(frame_of(draw(judges=judges, generators=generators)), source="logs/x")
    message = str(caught.value)
    assert message.startswith("nothing to separate in logs/x: ")
    assert found in message


@pytest.mark.parametrize(
    "generator_families", [("openai", "meta"), ("openai", "meta", "mistral", "qwen")], ids=["2x2", "2x4"]
)
def test_two_judges_cannot_tell_their_scales_from_their_noise(generator_families) -> None:
    judges, generators = participants(("openai", "google"), generator_families)
    with pytest.raises(SelfPreferenceError) as caught:
        estimate(table(judges, generators, shift={(0, 0): 1.0}), judges, generators, source="logs/x")
    message = str(caught.value)
    assert message.startswith("cannot separate self-preference from scale in logs/x: ")
    assert "needs at least 3 judges" in message and message.endswith("add a judge scoring the same items")
    assert "\n" not in message


@pytest.mark.parametrize(
    ("judge_families", "generator_families"),
    [(("openai", "qwen"), ("openai", "qwen")), (("openai", "qwen", "qwen"), ("openai", "qwen"))],
    ids=["2x2", "3x2"],
)
def test_own_family_cells_the_others_do_not_link_are_refused(judge_families, generator_families) -> None:
    # A GPT judge and Qwen judges on a GPT and a Qwen generator: the GPT judge favouring GPT and the
    # Qwen judges favouring Qwen look the same in these cells, whatever the scores. Refused.
    judges, generators = participants(judge_families, generator_families)
    with pytest.raises(SelfPreferenceError) as caught:
        estimate(table(judges, generators), judges, generators, source="logs/x")
    message = str(caught.value)
    assert message.startswith("cannot separate self-preference in logs/x: ")
    assert "add a generator or a judge of another family" in message


@pytest.mark.parametrize(
    ("judge_families", "generator_families", "why"),
    [
        (
            ("openai", "openai", "openai"),
            ("openai", "meta"),
            "no judge of another family scores gen-openai-0",
        ),
        (
            ("openai", "qwen", "google"),
            ("openai", "openai"),
            "judge-openai-0 scores no generator of another family",
        ),
    ],
    ids=["generator-seen-only-by-its-family", "judge-seeing-only-its-family"],
)
def test_an_own_family_cell_without_other_family_cells_around_it_is_refused(
    judge_families, generator_families, why: str
) -> None:
    judges, generators = participants(judge_families, generator_families)
    with pytest.raises(SelfPreferenceError) as caught:
        estimate(table(judges, generators), judges, generators)
    assert why in str(caught.value)


def test_a_judge_whose_scores_never_vary_has_no_scale_to_fit() -> None:
    judges, generators = diagonal(3)
    cells = table(judges, generators)
    for g in generators:  # the Google judge gives every item a 3
        cells[(judges[2].label, g.label)] = dict.fromkeys(cells[(judges[2].label, g.label)], 3.0)
    with pytest.raises(SelfPreferenceError) as caught:
        estimate(cells, judges, generators, source="logs/x")
    message = str(caught.value)
    assert message.startswith(
        "cannot separate self-preference from scale in logs/x: judge-google-2 gives every item of each "
        "generator one score"
    )
    assert "add items or generators whose scores vary" in message


@pytest.mark.parametrize("value", [7.0, -1.0, float("inf")], ids=["seven", "negative", "infinite"])
def test_scores_outside_the_scale_are_refused_by_cell(value: float) -> None:
    cells = draw()
    cells[(CLAUDE_JUDGE, LLAMA)][3] = value
    with pytest.raises(SelfPreferenceError) as caught:
        from_frame(frame_of(cells), source="logs/x")
    assert str(caught.value) == (
        f"scores outside 0-5 in logs/x: {label(CLAUDE_JUDGE)} × {LLAMA}; a judge's score is a number from 0 to 5"
    )


def test_a_generator_with_no_item_every_judge_scored_is_refused() -> None:
    cells = draw()
    cells[(GPT_JUDGE, GPT)] = {i: v for i, v in cells[(GPT_JUDGE, GPT)].items() if i <= 20}
    cells[(CLAUDE_JUDGE, GPT)] = {i: v for i, v in cells[(CLAUDE_JUDGE, GPT)].items() if i > 20}
    with pytest.raises(SelfPreferenceError) as caught:
        card_of(cells)
    assert str(caught.value) == (
        "no item is scored by every judge for every generator: "
        f"40 items of {GPT} are each scored by some judges only"
    )


def test_cells_without_any_score_are_named() -> None:
    # The paper's folders: four judges on GPT-4o only, one judge on every model.
    cells = draw()
    for judge in (CLAUDE_JUDGE, GEMINI_JUDGE):
        for model in (CLAUDE, LLAMA):
            del cells[(judge, model)]
    with pytest.raises(SelfPreferenceError) as caught:
        from_frame(frame_of(cells), source="logs/paper")
    assert str(caught.value) == (
        "no item is scored by every judge for every generator in logs/paper: no scores for "
        f"{label(CLAUDE_JUDGE)} × {CLAUDE}, {label(GEMINI_JUDGE)} × {CLAUDE}, "
        f"{label(CLAUDE_JUDGE)} × {LLAMA}, {label(GEMINI_JUDGE)} × {LLAMA}"
    )


def test_many_empty_cells_are_counted_past_the_first_four() -> None:
    judges = [Participant(label(j), j, None, "unknown") for j in JUDGES]
    generators = [Participant(g, g, None, "unknown") for g in GENERATORS]
    only_diagonal = {(label(j), g): {1: 3.0} for j, g in zip(JUDGES, GENERATORS, strict=True)}
    with pytest.raises(SelfPreferenceError) as caught:
        estimate(only_diagonal, judges, generators)
    message = str(caught.value)
    assert message.count(" × ") == 4 and message.endswith(" and 2 more")


def test_linked_cells_follow_the_fitted_cells() -> None:
    assert linked(~np.eye(2, dtype=bool)).tolist() == [[False, True], [True, False]]
    assert linked(~np.eye(3, dtype=bool)).all()


# --- generations: keyed on the generation, never merged by sample id ---------------------------


def test_two_data_sets_of_one_model_and_prompt_are_two_generators() -> None:
    # GPT-4o zero-shot on two data files whose sample ids overlap: two generations, never one
    # generator of 80 mixed items (rows keyed by model, prompt and sample id merged them).
    cells = draw(generators=(GPT, CLAUDE, LLAMA), n=40)
    other = draw(generators=(GPT,), n=30, seed=9, quality=(1.5,))
    frame = pd.concat(
        [
            frame_of(cells),
            frame_of(other, generation="g-gpt-other", run="run-other", data="other.csv", log="other.eval"),
        ],
        ignore_index=True,
    )
    card = from_frame(frame)
    labels = [g.label for g in card.generators]
    assert labels == [CLAUDE, f"{GPT} (other.csv)", f"{GPT} (sample)", LLAMA]
    assert {g.key for g in card.generators} >= {"g-gpt-other", f"g-{GPT}"}
    fits = {fit.label: fit for fit in card.generator_fits}
    assert fits[f"{GPT} (other.csv)"].n_items == 30 and fits[f"{GPT} (sample)"].n_items == 40
    for judge in JUDGES:
        mean = card.cell(label(judge), f"{GPT} (other.csv)").mean
        assert mean == pytest.approx(np.mean(list(other[(judge, GPT)].values())))
    table_ = pd.DataFrame(card.rows())
    assert set(table_["data"]) == {"sample", "other.csv"}


def test_a_rerun_of_one_generation_counts_once() -> None:
    cells = draw()
    rerun = draw(seed=5, generators=(GPT,))
    frame = pd.concat(
        [frame_of(cells), frame_of(rerun, run="run-again", log="again.eval", created="2026-02-01T00:00:00")],
        ignore_index=True,
    )
    card = from_frame(frame)
    assert [g.label for g in card.generators] == sorted(GENERATORS)
    assert {fit.n_items for fit in card.generator_fits} == {N_ITEMS}
    # The newer run, scored by as many judges, is the one read; the older is named as left out.
    again = pd.concat(
        [
            frame_of({k: v for k, v in cells.items() if k[1] != GPT}),
            frame_of(rerun, run="run-again", log="again.eval"),
        ]
    )
    assert card.cells == from_frame(again).cells
    assert any("left out 1 other run(s) of a generation already counted" in note for note in card.notes)


def test_judges_of_different_runs_of_one_generation_did_not_score_the_same_items() -> None:
    # A generation run twice, one judge on the rerun only: the rerun's explanations are other
    # texts, so that judge scored none of the items the others did. Refused, naming it.
    cells = draw()
    rerun = {cell: items for cell, items in draw(seed=5).items() if cell == (GEMINI_JUDGE, GPT)}
    frame = frame_of({cell: items for cell, items in cells.items() if cell != (GEMINI_JUDGE, GPT)})
    frame = pd.concat([frame, frame_of(rerun, run="run-again", log="again.eval")], ignore_index=True)
    with pytest.raises(SelfPreferenceError) as caught:
        from_frame(frame, source="logs/x")
    assert str(caught.value).startswith(
        f"no item is scored by every judge for every generator in logs/x: {label(GEMINI_JUDGE)} scored "
        f"another run of {GPT} than the other judges"
    )


def test_a_judged_copy_counts_once() -> None:
    cells = draw(shift={(0, 0): 1.0})
    copy = frame_of(cells, log="copy.eval", created="2026-01-01T00:00:00")  # same run, another file
    assert from_frame(pd.concat([frame_of(cells), copy], ignore_index=True)).cells == card_of(cells).cells


def test_epochs_of_a_sample_are_items_of_one_unit() -> None:
    cells = draw(judges=JUDGES, n=30)
    second = draw(judges=JUDGES, n=30, seed=2)
    frame = pd.concat([frame_of(cells), frame_of(second, epoch=2)], ignore_index=True)
    card = from_frame(frame, min_items=10)
    assert {fit.n_items for fit in card.generator_fits} == {60}
    cell = card.cell(label(GPT_JUDGE), GPT)
    both = [*cells[(GPT_JUDGE, GPT)].values(), *second[(GPT_JUDGE, GPT)].values()]
    assert cell.mean == pytest.approx(np.mean(both))


def test_a_model_with_two_prompts_is_two_generators() -> None:
    cells = draw(generators=(GPT, LLAMA))
    few_shot = {cell: items for cell, items in draw(generators=(GPT,), seed=4).items()}
    frame = pd.concat(
        [
            frame_of(cells),
            frame_of(few_shot, prompt="few_shot", generation="g-few", log="few.eval", run="r-few"),
        ],
        ignore_index=True,
    )
    card = from_frame(frame)
    assert [g.label for g in card.generators] == [f"{GPT} (few_shot)", f"{GPT} (zero_shot)", LLAMA]
    assert [g.family for g in card.generators] == ["openai", "openai", "meta"]


# --- families, panels, repeats, names -----------------------------------------------------------


def test_declared_family_overrides_the_inferred_one() -> None:
    cells = draw(shift={(0, 0): 1.0})
    card = card_of(cells, families={GPT_JUDGE: "other-lab"})
    assert card.flagged == () and not card.cell(label(GPT_JUDGE), GPT).own_family
    assert f"{label(GPT_JUDGE)}: other-lab (declared)" in card.markdown()
    local = "openai-api/local/my-tune"
    renamed = {(local if j == GPT_JUDGE else j, g): v for (j, g), v in cells.items()}
    unknown = card_of(renamed)
    assert unknown.flagged == ()
    assert f"family unknown for {label(local)}" in unknown.markdown()
    declared = card_of(renamed, families={local: "openai"})
    assert [(c.judge, c.generator) for c in declared.flagged] == [(label(local), GPT)]


def test_cells_of_an_unknown_family_have_their_own_shift_and_are_never_flagged() -> None:
    local = "openai-api/local/my-tune"
    biased = {(local if j == GPT_JUDGE else j, g): v for (j, g), v in draw(shift={(0, 0): 1.5}).items()}
    fair = {(local if j == GPT_JUDGE else j, g): v for (j, g), v in draw().items()}
    card, without = card_of(biased), card_of(fair)
    for cell in card.cells:
        if cell.judge == label(local):
            assert not cell.in_fit and cell.excess is None and not cell.flagged
        else:
            assert cell.excess == pytest.approx(without.cell(cell.judge, cell.generator).excess, abs=0.1)
    assert card.flagged == ()
    assert f"| {label(local)} (unknown) | n/a unknown |" in card.markdown()


def test_panels_and_repeated_judgements_are_left_out() -> None:
    cells = draw()
    frame = frame_of(cells)
    boosted = frame_of({(GPT_JUDGE, GPT): dict.fromkeys(range(1, N_ITEMS + 1), 5.0)}, repeat=1.0)
    panel = frame_of(
        {(GPT_JUDGE, g): cells[(GPT_JUDGE, g)] for g in GENERATORS}, judge="panel", strategy="panel"
    )
    panel["judge_model"] = None
    card = from_frame(pd.concat([frame, boosted, panel], ignore_index=True))
    assert [j.label for j in card.judges] == [label(m) for m in sorted(JUDGES)]
    assert card.cells == from_frame(frame).cells
    assert any("panel" in note for note in card.notes)
    assert any("repeated judgements" in note for note in card.notes)


def test_an_llm_judge_without_a_recorded_model_has_an_unknown_family_not_none() -> None:
    frame = frame_of(draw())
    frame.loc[frame["judge_model"] == GPT_JUDGE, ["judge", "judge_model"]] = ["judge_cot", None]
    card = from_frame(frame)
    assert {p.label: (p.family, p.source) for p in card.judges}["judge_cot"] == (None, "unknown")
    assert "family unknown for judge_cot" in card.markdown()


def test_names_from_logs_cannot_break_the_card_or_run_in_a_spreadsheet(tmp_path: Path) -> None:
    hostile = '=HYPERLINK("http://x")|a\nb'
    cells = {(j, g if g != LLAMA else hostile): v for (j, g), v in draw().items()}
    card = card_of(cells).write(tmp_path)
    written = pd.read_csv(tmp_path / "self_preference.csv", keep_default_na=False)
    assert set(written["generator"]) == {GPT, CLAUDE, "'" + hostile}
    rows = [line for line in card.markdown().splitlines() if line.startswith("| excess")]
    assert rows and rows[0].count(" | ") == len(GENERATORS)


def test_the_card_files_hold_every_cell_with_each_judges_scale(tmp_path: Path) -> None:
    cells = draw(shift={(0, 0): 1.0}, scales=(1.4, 1.0, 0.7), n=60)
    card = card_of(cells).write(tmp_path / "out")
    assert [p.name for p in card.files] == ["self_preference.md", "self_preference.csv"]
    assert (tmp_path / "out" / "self_preference.md").read_text("utf-8") == card.markdown()
    written = pd.read_csv(tmp_path / "out" / "self_preference.csv")
    assert len(written) == len(JUDGES) * len(GENERATORS)
    flagged = written[written["flagged"] == "yes"]
    assert [label(GPT_JUDGE), GPT, "openai"] in flagged[
        ["judge", "generator", "judge_family"]
    ].values.tolist()
    assert (written["n_items"] == 60).all()
    for column in (
        "leniency",
        "scale",
        "scale_ci_low",
        "scale_ci_high",
        "noise",
        "quality",
        "generation",
        "data",
    ):
        assert column in written.columns
    scales = written.drop_duplicates("judge").set_index("judge")["scale"]
    assert scales[label(GPT_JUDGE)] > scales[label(CLAUDE_JUDGE)] > scales[label(GEMINI_JUDGE)]
    assert (written["scale_ci_low"] < written["scale"]).all() and (
        written["scale"] < written["scale_ci_high"]
    ).all()
    markdown = card.markdown()
    assert "| judge | leniency | scale [95 % CI] | noise |" in markdown


def test_an_output_path_that_is_a_file_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "file.txt"
    target.write_text("x")
    with pytest.raises(SelfPreferenceError, match="is a file, not a folder"):
        card_of(draw()).write(target)


# --- the command's entry point on bad input ----------------------------------------------------


def _args(from_dir: Path | str, *family: str, out: Path | None = None) -> argparse.Namespace:
    return argparse.Namespace(
        from_dir=str(from_dir), family=list(family) or None, seed=0, out=str(out) if out else None
    )


@pytest.mark.parametrize("kind", ["missing", "file", "empty"])
def test_from_a_folder_without_logs_exits_2_naming_the_path(tmp_path: Path, kind: str, capsys) -> None:
    path = tmp_path / "logs"
    if kind == "file":
        path.write_text("not a folder")
    elif kind == "empty":
        path.mkdir()
    assert handle_from(_args(path)) == 2
    err = capsys.readouterr().err
    assert str(path) in err and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_bad_family_arguments_exit_2_one_line_each(tmp_path: Path, capsys) -> None:
    assert handle_from(_args(tmp_path, "gpt", "x=")) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 2 and all(line.startswith("vivid audit --from: --family") for line in lines)


@pytest.mark.parametrize("seed", [-1, 1.5, "7", True], ids=["negative", "fraction", "text", "bool"])
def test_a_bad_seed_exits_2_before_reading_any_log(tmp_path: Path, capsys, seed: object) -> None:
    args = _args(tmp_path / "nowhere")
    args.seed = seed
    assert handle_from(args) == 2
    assert (
        capsys.readouterr().err == f"vivid audit --from: seed = {seed!r}: must be a whole number, 0 or more\n"
    )


def test_a_negative_seed_on_the_command_line_is_refused_by_the_parser(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["audit", "--from", str(tmp_path / "nowhere"), "--seed", "-3"])
    assert (
        exited.value.code == 2 and "seed = -3: must be a whole number, 0 or more" in capsys.readouterr().err
    )


# --- real logs ------------------------------------------------------------------------------------

IDS = [i for i in range(1, 32) if i != 17]  # 17 is a demonstration: the task leaves it out
FAIR, STRICT, FAN = "mockllm/fair-judge", "mockllm/strict-judge", "mockllm/literal-fan"
_TAG = r"<{0}_\w+>\s*(.*?)\s*</{0}_\w+>"


def _text(tag: str, prompt: str) -> str:
    return nfc(re.findall(_TAG.format(tag), prompt, re.DOTALL)[-1])


def _draw(*parts: str) -> int:
    return int(hashlib.sha256("|".join(parts).encode("utf-8")).hexdigest()[:8], 16)


def grader(name: str) -> Model:
    """A judge reading an item's quality (shared by every judge) with noise of its own.

    The reference meaning is worth two points more than a literal reading; an idiom's own quality
    (0-2, from its reference) adds to both; each judge adds its own noise (-1, 0 or +1). The strict
    judge spreads its scores twice as widely; the fan gives a literal reading a point more.
    """

    def respond(
        messages: list[ChatMessage], tools: object, choice: object, config: GenerateConfig
    ) -> ModelOutput:
        prompt = "\n\n".join(m.text for m in messages if isinstance(m, ChatMessageUser))
        reference, candidate = _text("nghia_chuan", prompt), _text("giai_thich_can_cham", prompt)
        quality = (2 if candidate == reference else 0) + _draw("quality", reference) % 3
        if name == STRICT:
            quality = 2 * quality - 2
        value = 0.5 + quality + _draw(name, reference, candidate) % 3 - 1
        if name == FAN and candidate != reference:
            value += 1
        output = ModelOutput.from_content(model=name, content=str(int(min(5, max(0, value)))))
        output.usage = ModelUsage(input_tokens=10, output_tokens=1, total_tokens=11)
        return output

    return get_model(name, custom_outputs=respond, memoize=False)


@pytest.fixture(scope="module")
def real_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two generations judged by the fair judge, each judged again by two more (``inspect score``'s copies)."""
    root = tmp_path_factory.mktemp("self_preference_logs")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("INSPECT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        for generator in ("vivid/oracle", "vivid/literal"):
            logs = eval(
                explain(judge="aspect", data="sample"),
                model=generator,
                model_args={"data": "sample"},
                model_roles={"grader": grader(FAIR)},
                sample_id=IDS,
                log_dir=str(root),
                display="none",
            )
            assert logs[0].status == "success", logs[0].error
            for judge in (STRICT, FAN):
                judged = score(
                    logs[0],
                    [judge_scorer("aspect")],
                    model_roles={"grader": grader(judge)},
                    action="overwrite",
                    display="none",
                )
                name = Path(logs[0].location).name
                write_eval_log(judged, str(root / "judged" / judge.split("/")[1] / name))
    return root


@pytest.mark.slow
def test_real_logs_flag_a_judge_favouring_a_declared_family(real_logs: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "card"
    code = handle_from(_args(real_logs, f"{FAN}=lab", "vivid/literal=lab", out=out))
    printed = capsys.readouterr()
    assert code == 1, printed.out + printed.err
    assert f"**Flagged**: judge_aspect [{FAN}] scores vivid/literal, of its own family" in printed.out
    written = pd.read_csv(out / "self_preference.csv").set_index(["judge", "generator"])
    assert (written["n_items"] == len(IDS)).all()
    scales = written.groupby(level=0)["scale"].first()
    assert scales[f"judge_aspect [{STRICT}]"] > 1.3 * scales[f"judge_aspect [{FAIR}]"]
    assert list(written.loc[written["flagged"] == "yes"].index) == [
        (f"judge_aspect [{FAN}]", "vivid/literal")
    ]
    assert "wrote self_preference.md, self_preference.csv" in printed.err


@pytest.mark.slow
def test_vivid_audit_from_on_the_command_line(real_logs: Path, tmp_path: Path, capsys) -> None:
    argv = ["audit", "--from", str(real_logs), "--family", f"{FAN}=lab", "--family", "vivid/literal=lab"]
    assert main([*argv, "--out", str(tmp_path / "a")]) == 1
    assert "**Flagged**" in capsys.readouterr().out
    # The strict judge is no fan of anyone: declared of the literal baseline's family, not flagged.
    argv = ["audit", "--from", str(real_logs), "--family", f"{STRICT}=lab", "--family", "vivid/literal=lab"]
    assert main([*argv, "--out", str(tmp_path / "b")]) == 0
    assert "No judge is flagged" in capsys.readouterr().out
    assert main(["audit", "--from", str(tmp_path / "nowhere")]) == 2
    assert str(tmp_path / "nowhere") in capsys.readouterr().err


@pytest.mark.slow
def test_real_logs_of_offline_models_have_no_family_to_prefer(real_logs: Path, tmp_path: Path) -> None:
    card = run_self_preference(real_logs, out_dir=tmp_path)
    assert card.exit_code == 0 and card.n_tested == 0
    assert {p.family for p in (*card.judges, *card.generators)} == {"none"}
    assert [g.key for g in card.generators] and all(g.key.startswith("g") for g in card.generators)


@pytest.mark.slow
@pytest.mark.parametrize("tag", [AUDIT_TAG, SANITY_TAG], ids=["audit", "sanity"])
def test_audit_and_sanity_logs_in_the_folder_are_left_out(real_logs: Path, tmp_path: Path, tag: str) -> None:
    folder = tmp_path / "with_tagged"
    for log in sorted(real_logs.rglob("*.eval")):
        target = folder / log.relative_to(real_logs)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(log.read_bytes())
    source = read_eval_log(str(sorted(real_logs.glob("*.eval"))[0]))
    source.eval.tags = [tag]
    for sample in source.samples or []:
        for value in (sample.scores or {}).values():
            value.metadata = {**(value.metadata or {}), "judge_model": "mockllm/tagged"}
    write_eval_log(source, str(folder / "2026-01-01T00-00-00_explain_tagged.eval"))
    card = run_self_preference(folder, out_dir=tmp_path / "out")
    assert [j.label for j in card.judges] == [f"judge_aspect [{m}]" for m in (FAIR, FAN, STRICT)]
    kind = "audit" if tag == AUDIT_TAG else "sanity"
    assert card.notes[0].startswith(f"left out 1 {kind} log(s)")
    assert card.notes[0] in card.markdown()


@pytest.mark.slow
def test_a_copy_of_a_log_in_the_folder_counts_once(real_logs: Path, tmp_path: Path) -> None:
    folder = tmp_path / "copied"
    for log in sorted(real_logs.rglob("*.eval")):
        target = folder / log.relative_to(real_logs)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(log.read_bytes())
    first = sorted(real_logs.glob("*.eval"))[0]
    (folder / "copies").mkdir()
    (folder / "copies" / first.name).write_bytes(first.read_bytes())
    copied = run_self_preference(folder, out_dir=tmp_path / "a")
    alone = run_self_preference(real_logs, out_dir=tmp_path / "b")
    assert copied.cells == alone.cells


@pytest.mark.slow
@pytest.mark.parametrize(
    ("tags", "says"),
    [
        ([AUDIT_TAG], "it holds only 1 vivid audit log(s), "),
        ([SANITY_TAG], "it holds only 1 vivid sanity log(s), "),
        ([AUDIT_TAG, SANITY_TAG], "it holds only 1 vivid audit log(s) and 1 vivid sanity log(s), "),
    ],
    ids=["audit", "sanity", "both"],
)
def test_a_folder_of_audit_or_sanity_logs_only_says_so(
    real_logs: Path, tmp_path: Path, tags: list[str], says: str, capsys
) -> None:
    folder = tmp_path / "tagged_only"
    folder.mkdir()
    source = read_eval_log(str(sorted(real_logs.glob("*.eval"))[0]))
    for n, tag in enumerate(tags):
        source.eval.tags = [tag]
        write_eval_log(source, str(folder / f"2026-01-0{n + 1}T00-00-00_explain_{n}.eval"))
    assert handle_from(_args(folder)) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"vivid audit --from: no generation logs in {str(folder)!r}: {says}")
    assert "not a model's explanations; point --from at a vivid run folder" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_real_logs_with_each_judge_of_one_generators_family_exit_2(real_logs: Path, capsys) -> None:
    families = [f"{FAN}=lab", f"{STRICT}=lab", "vivid/literal=lab", f"{FAIR}=other", "vivid/oracle=other"]
    assert main(["audit", "--from", str(real_logs), *(x for f in families for x in ("--family", f))]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        f"vivid audit --from: cannot separate self-preference in {real_logs}"
    )
    assert lines[0].endswith("add a generator or a judge of another family, scored on the same items")


@pytest.mark.slow
def test_vivid_run_folder_with_families_declared_in_the_spec(tmp_path: Path, capsys) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "name: families\n"
        "data: sample\n"
        "log_dir: logs\n"
        "runs:\n"
        "  - tasks: [explain]\n"
        "    limit: 6\n"
        "    models:\n"
        "      - vivid/oracle\n"
        "      - {model: vivid/literal, family: Offline-Lab}\n"
        "judges:\n"
        "  - {name: chrf_aspect, strategy: aspect, model: vivid/chrf, family: offline-lab}\n"
        "  - {name: lexical, strategy: lexical}\n",
        encoding="utf-8",
    )
    assert main(["run", str(spec), "--display", "none"]) == 0
    capsys.readouterr()
    logs = tmp_path / "logs"
    assert spec_families(logs) == {
        "vivid/literal": "offline-lab",
        "vivid/chrf": "offline-lab",
        "chrf_aspect": "offline-lab",
    }
    # Two judges: their scales cannot be told from their noise, and the command says what to add.
    assert main(["audit", "--from", str(logs)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"vivid audit --from: cannot separate self-preference from scale in {logs}: ")
    assert "found 2 (chrf_aspect [vivid/chrf], lexical)" in err
