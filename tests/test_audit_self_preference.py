"""Self-preference from logs: each judge's excess score of a generator, its paired CI, who is flagged.

Synthetic score frames (the report's tidy frame) carry known effects: every score is an item's
difficulty plus the generator's quality plus the judge's leniency plus a cell's own noise, plus the
effect under test. Expected excesses are computed here from the scores by another method
(backfitting the additive model on the other-family cells), never read back from the module's own
arithmetic. Real logs come from the offline generators (vivid/oracle,
vivid/literal) judged by scripted mockllm graders, and from `vivid run` on an offline spec.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from inspect_ai import eval
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

from vivid_inspect.audit.self_preference import (
    Participant,
    SelfPreferenceCard,
    SelfPreferenceError,
    estimate,
    excess,
    from_frame,
    run_self_preference,
)
from vivid_inspect.cli.audit_from import handle_from
from vivid_inspect.cli.main import main
from vivid_inspect.log_contract import AUDIT_TAG
from vivid_inspect.report.logs import SCORE_COLUMNS
from vivid_inspect.report.score_stats import resamples
from vivid_inspect.sanity import SANITY_TAG
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


def label(judge_model: str) -> str:
    return f"judge_aspect [{judge_model}]"


def _row(judge_model: str, model: str, item: int, value: float, **extra: object) -> dict[str, object]:
    row: dict[str, object] = dict.fromkeys(SCORE_COLUMNS)
    row |= {
        "log": f"{model}.eval",
        "generation": f"{model}.eval",
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


Effect = Callable[[str, str, int], float]


def scores(effect: Effect | None = None, *, judges=JUDGES, generators=GENERATORS, seed: int = 1) -> dict:
    """(judge, generator) -> item -> 0-5 score: difficulty + quality + leniency + noise + effect."""
    rng = np.random.default_rng(seed)
    difficulty = rng.integers(0, 2, size=N_ITEMS)  # 0 or 1, shared by every cell
    quality = {GPT: 1, CLAUDE: 1, LLAMA: 0}
    out: dict[tuple[str, str], dict[int, float]] = {}
    for judge in judges:
        for model in generators:
            noise = rng.integers(0, 2, size=N_ITEMS)  # 0 or 1, the cell's own
            values = {}
            for item in range(1, N_ITEMS + 1):
                value = 1 + quality[model] + difficulty[item - 1] + noise[item - 1]
                value += effect(judge, model, item) if effect else 0
                assert 0 <= value <= 5, "the scripted scores must not be clipped, or effects would blur"
                values[item] = float(value)
            out[(judge, model)] = values
    return out


def frame_of(cells: Mapping[tuple[str, str], Mapping[int, float]], **extra: object) -> pd.DataFrame:
    rows = [
        _row(j, g, item, value, **extra) for (j, g), items in cells.items() for item, value in items.items()
    ]
    return pd.DataFrame(rows, columns=list(SCORE_COLUMNS))


def _family(model: str) -> str | None:
    return {GPT_JUDGE: "openai", GPT: "openai", CLAUDE_JUDGE: "anthropic", CLAUDE: "anthropic"}.get(model)


def by_hand(cells: Mapping[tuple[str, str], Mapping[int, float]], judge: str, model: str, items) -> float:
    """The cell's mean minus mu + a[j] + b[g], backfitted on the cells of different families."""
    judges = sorted({j for j, _ in cells})
    models = sorted({g for _, g in cells})
    m = {(j, g): float(np.mean([cells[(j, g)][i] for i in items])) for j in judges for g in models}
    fit = [(j, g) for j in judges for g in models if _family(j) is None or _family(j) != _family(g)]
    mu, a, b = 0.0, dict.fromkeys(judges, 0.0), dict.fromkeys(models, 0.0)
    for _ in range(5000):  # alternating means: converges to the least-squares fit
        mu = float(np.mean([m[c] - a[c[0]] - b[c[1]] for c in fit]))
        a = {j: float(np.mean([m[c] - mu - b[c[1]] for c in fit if c[0] == j])) for j in judges}
        b = {g: float(np.mean([m[c] - mu - a[c[0]] for c in fit if c[1] == g])) for g in models}
    return m[(judge, model)] - (mu + a[judge] + b[model])


def card_of(cells, **options) -> SelfPreferenceCard:
    return from_frame(frame_of(cells), n_boot=500, **options)


def test_a_self_preferring_judge_is_flagged_on_its_own_family_only() -> None:
    # GPT judge adds 1 to GPT's explanations on odd items: half a point on average.
    cells = scores(lambda judge, model, item: float(judge == GPT_JUDGE and model == GPT and item % 2))
    card = card_of(cells)
    own = card.cell(label(GPT_JUDGE), GPT)
    assert own.excess == pytest.approx(by_hand(cells, GPT_JUDGE, GPT, range(1, N_ITEMS + 1)))
    assert own.own_family and own.flagged and own.ci_low > 0
    assert [(c.judge, c.generator) for c in card.flagged] == [(label(GPT_JUDGE), GPT)]
    assert card.exit_code == 1
    markdown = card.markdown()
    assert f"**Flagged**: {label(GPT_JUDGE)} scores {GPT}, of its own family" in markdown
    assert "FLAGGED" in markdown


@pytest.mark.parametrize("shift", [1.0, -1.0], ids=["lenient", "harsh"])
def test_a_lenient_or_harsh_judge_is_not_self_preferring(shift: float) -> None:
    # The GPT judge is one point off on every generator, its own family included.
    cells = scores(lambda judge, model, item: shift if judge == GPT_JUDGE else 0.0)
    card = card_of(cells)
    own = card.cell(label(GPT_JUDGE), GPT)
    assert own.own_family and not own.flagged
    assert own.ci_low < 0 < own.ci_high
    assert card.flagged == () and card.exit_code == 0
    # the leniency shows in its means, not in the excess
    means = {c.generator: c.mean for c in card.cells if c.judge == label(GPT_JUDGE)}
    others = {c.generator: c.mean for c in card.cells if c.judge == label(CLAUDE_JUDGE)}
    assert np.mean(list(means.values())) - np.mean(list(others.values())) == pytest.approx(shift, abs=0.2)


def test_no_effect_flags_nobody() -> None:
    card = card_of(scores())
    assert card.flagged == () and card.exit_code == 0
    assert "No judge is flagged" in card.markdown()
    assert all(c.ci_low <= c.excess <= c.ci_high for c in card.cells)


def test_a_judge_preferring_another_family_is_not_self_preferring() -> None:
    # The GPT judge favours Claude's explanations: an interaction, but not with its own family.
    cells = scores(lambda judge, model, item: float(judge == GPT_JUDGE and model == CLAUDE))
    card = card_of(cells)
    other = card.cell(label(GPT_JUDGE), CLAUDE)
    assert other.ci_low > 0 and not other.own_family and not other.flagged
    assert card.exit_code == 0
    # The fit the own-family estimates rest on misses that cell, and the card says so.
    assert "leniency and quality do not explain every cell of different families: " in card.markdown()
    assert f"{label(GPT_JUDGE)} × {CLAUDE} (+" in card.markdown()


def test_identical_judges_give_no_interaction_and_no_rounding_flag() -> None:
    # Every judge gives the same scores: the interaction is 0 up to float rounding, never "above 0".
    base = scores(judges=(GPT_JUDGE,))
    cells = {(j, g): base[(GPT_JUDGE, g)] for j in JUDGES for g in GENERATORS}
    card = card_of(cells)
    assert all(abs(c.excess) < 1e-12 for c in card.cells)
    assert card.flagged == ()


def test_the_excess_is_the_textbook_interaction_when_no_cell_is_left_out_of_the_fit() -> None:
    means = np.array([[4.0, 3.0], [3.0, 1.0]])
    everything = np.ones((2, 2), dtype=bool)
    np.testing.assert_allclose(excess(means, everything), [[-0.25, 0.25], [0.25, -0.25]])
    # One cell left out: it is compared with its row, its column and the cell opposite (4 - 3 - 3 + 1).
    np.testing.assert_allclose(
        excess(means, ~np.eye(2, dtype=bool) | [[False, False], [False, True]])[0, 0], -1.0
    )
    # Both diagonal cells left out: nothing links a judge to its own generator, no prediction.
    assert np.isnan(excess(means, ~np.eye(2, dtype=bool))[[0, 1], [0, 1]]).all()


def test_every_cell_is_resampled_on_the_same_items() -> None:
    # Scores are an item's weight x_i times the cell's factor w[j, g] (the GPT judge's is 1.25 on
    # GPT). On a resample drawn once for all cells, every cell mean is mean(x) * w[j, g], so the
    # interaction is mean(x) * I(w): its interval is I(w) times the interval of mean(x) over the
    # same draws. Cells resampled apart would each get their own mean(x) and a wider interval.
    x = {item: float(1 + item % 4) for item in range(1, N_ITEMS + 1)}
    w = {
        (j, g): 1.25 if (j, g) == (GPT_JUDGE, GPT) else 1.0
        for j in (GPT_JUDGE, GEMINI_JUDGE)
        for g in GENERATORS
    }
    cells = {cell: {i: xi * factor for i, xi in x.items()} for cell, factor in w.items()}
    n_boot, seed = 400, 5
    card = from_frame(frame_of(cells), n_boot=n_boot, seed=seed)
    weights = np.array([x[i] for i in sorted(x)])
    means = weights[resamples(N_ITEMS, n_boot, seed)].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    i_w = 0.25  # the excess of w for the GPT judge on GPT: every other cell (the fit's) is 1
    own = card.cell(label(GPT_JUDGE), GPT)
    assert own.excess == pytest.approx(i_w * weights.mean())
    assert (own.ci_low, own.ci_high) == pytest.approx((i_w * low, i_w * high))
    assert own.flagged


def test_the_bootstrap_is_seeded() -> None:
    cells = scores(lambda judge, model, item: float(judge == GPT_JUDGE and model == GPT and item % 3 == 0))
    first, again, other = card_of(cells, seed=3), card_of(cells, seed=3), card_of(cells, seed=4)
    assert first.cells == again.cells
    assert [c.ci_low for c in first.cells] != [c.ci_low for c in other.cells]


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
    cells = scores(judges=judges, generators=generators)
    with pytest.raises(SelfPreferenceError) as caught:
        from_frame(frame_of(cells), source="logs/x")
    message = str(caught.value)
    assert message.startswith("nothing to separate in logs/x: ")
    assert found in message


@pytest.mark.slow
def test_only_items_scored_in_every_cell_count() -> None:
    cells = scores(lambda judge, model, item: float(judge == GPT_JUDGE and model == GPT and item % 2))
    # Items 1-5 are missing for one cell, item 6 is unscored (NaN) in another.
    del_items = range(1, 6)
    cells[(CLAUDE_JUDGE, LLAMA)] = {
        i: v for i, v in cells[(CLAUDE_JUDGE, LLAMA)].items() if i not in del_items
    }
    cells[(GEMINI_JUDGE, GPT)][6] = float("nan")
    card = card_of(cells)
    shared = range(7, N_ITEMS + 1)
    assert (card.n_items, card.left_out) == (len(shared), 6)
    for judge in JUDGES:
        for model in GENERATORS:
            cell = card.cell(label(judge), model)
            assert cell.mean == pytest.approx(np.mean([cells[(judge, model)][i] for i in shared]))
            assert cell.excess == pytest.approx(by_hand(cells, judge, model, shared))
    assert f"Means over {len(shared)} items scored in every cell (6 left out" in card.markdown()


def test_no_item_shared_by_every_cell_is_refused() -> None:
    cells = scores(judges=(GPT_JUDGE, CLAUDE_JUDGE), generators=(GPT, CLAUDE))
    cells[(GPT_JUDGE, GPT)] = {i: v for i, v in cells[(GPT_JUDGE, GPT)].items() if i <= 20}
    cells[(CLAUDE_JUDGE, CLAUDE)] = {i: v for i, v in cells[(CLAUDE_JUDGE, CLAUDE)].items() if i > 20}
    with pytest.raises(SelfPreferenceError) as caught:
        card_of(cells)
    assert str(caught.value) == (
        "no item is scored by every judge for every generator: 40 items are each scored by some cells only"
    )


def test_cells_without_any_score_are_named() -> None:
    # The paper's folders: four judges on GPT-4o only, one judge on every model.
    cells = scores(judges=(GPT_JUDGE, CLAUDE_JUDGE, GEMINI_JUDGE), generators=GENERATORS)
    for judge in (CLAUDE_JUDGE, GEMINI_JUDGE):
        for model in (CLAUDE, LLAMA):
            del cells[(judge, model)]
    with pytest.raises(SelfPreferenceError) as caught:
        from_frame(frame_of(cells), source="logs/paper")
    assert str(caught.value) == (
        "no item is scored by every judge for every generator in logs/paper: no scores for "
        f"{label(CLAUDE_JUDGE)} × {CLAUDE}, {label(CLAUDE_JUDGE)} × {LLAMA}, "
        f"{label(GEMINI_JUDGE)} × {CLAUDE}, {label(GEMINI_JUDGE)} × {LLAMA}"
    )  # judges by name then model, generators by name


def test_one_shared_item_gives_no_interval_and_no_flag() -> None:
    cells = {(j, g): {1: 5.0 if (j, g) == (GPT_JUDGE, GPT) else 2.0} for j in JUDGES for g in GENERATORS}
    card = card_of(cells)
    own = card.cell(label(GPT_JUDGE), GPT)
    assert own.excess > 0 and own.ci_low is None and not own.flagged
    assert "one shared item: no interval" in card.markdown()


def test_declared_family_overrides_the_inferred_one() -> None:
    cells = scores(lambda judge, model, item: float(judge == GPT_JUDGE and model == GPT and item % 2))
    # Declared as another lab's model, the GPT judge's preference is no longer for its own family...
    card = card_of(cells, families={GPT_JUDGE: "other-lab"})
    assert card.flagged == () and not card.cell(label(GPT_JUDGE), GPT).own_family
    assert f"{label(GPT_JUDGE)}: other-lab (declared)" in card.markdown()
    # ...and a judge whose name says nothing is checked once its family is declared.
    local = "openai-api/local/my-tune"
    renamed = {(local if j == GPT_JUDGE else j, g): v for (j, g), v in cells.items()}
    unknown = card_of(renamed)
    assert unknown.flagged == ()
    assert f"family unknown for {label(local)}" in unknown.markdown()
    declared = card_of(renamed, families={local: "openai"})
    assert [(c.judge, c.generator) for c in declared.flagged] == [(label(local), GPT)]


def test_panels_and_repeated_judgements_are_left_out() -> None:
    cells = scores(judges=(GPT_JUDGE, CLAUDE_JUDGE), generators=(GPT, LLAMA))
    frame = frame_of(cells)
    # A repeat that would flag the GPT judge, and a panel that would be a third judge.
    boosted = frame_of({(GPT_JUDGE, GPT): {i: 5.0 for i in range(1, N_ITEMS + 1)}}, repeat=1.0)
    panel = frame_of(
        {(GPT_JUDGE, g): cells[(GPT_JUDGE, g)] for g in (GPT, LLAMA)}, judge="panel", strategy="panel"
    )
    panel["judge_model"] = None
    card = from_frame(pd.concat([frame, boosted, panel], ignore_index=True), n_boot=200)
    assert [j.label for j in card.judges] == [label(CLAUDE_JUDGE), label(GPT_JUDGE)]  # by name, then model
    assert card.cells == from_frame(frame, n_boot=200).cells
    assert any("panel" in note for note in card.notes)
    assert any("repeated judgements" in note for note in card.notes)


def test_epochs_of_an_item_are_averaged_before_the_excess() -> None:
    cells = scores(judges=(GPT_JUDGE, CLAUDE_JUDGE), generators=(GPT, LLAMA))
    second = {k: {i: min(5.0, v + 1) for i, v in items.items()} for k, items in cells.items()}
    frame = pd.concat([frame_of(cells), frame_of(second, epoch=2)], ignore_index=True)
    card = from_frame(frame, n_boot=200)
    mean = {k: {i: (cells[k][i] + second[k][i]) / 2 for i in items} for k, items in cells.items()}
    assert card.n_items == N_ITEMS
    cell = card.cell(label(GPT_JUDGE), GPT)
    assert cell.mean == pytest.approx(np.mean(list(mean[(GPT_JUDGE, GPT)].values())))
    assert cell.excess == pytest.approx(by_hand(mean, GPT_JUDGE, GPT, range(1, N_ITEMS + 1)))


def test_a_model_with_two_prompts_is_two_generators() -> None:
    cells = scores(judges=(GPT_JUDGE, CLAUDE_JUDGE), generators=(GPT, LLAMA))
    few_shot = {cell: items for cell, items in cells.items() if cell[1] == GPT}
    frame = pd.concat([frame_of(cells), frame_of(few_shot, prompt="few_shot")], ignore_index=True)
    card = from_frame(frame, n_boot=100)
    assert [g.label for g in card.generators] == [f"{GPT} (few_shot)", f"{GPT} (zero_shot)", LLAMA]
    assert [g.family for g in card.generators] == ["openai", "openai", "meta"]


def test_the_card_files_hold_every_cell(tmp_path: Path) -> None:
    cells = scores(lambda judge, model, item: float(judge == GPT_JUDGE and model == GPT and item % 2))
    card = card_of(cells).write(tmp_path / "out")
    assert [p.name for p in card.files] == ["self_preference.md", "self_preference.csv"]
    assert (tmp_path / "out" / "self_preference.md").read_text("utf-8") == card.markdown()
    table = pd.read_csv(tmp_path / "out" / "self_preference.csv")
    assert len(table) == len(JUDGES) * len(GENERATORS)
    flagged = table[table["flagged"] == "yes"]
    assert flagged[["judge", "generator", "judge_family"]].values.tolist() == [
        [label(GPT_JUDGE), GPT, "openai"]
    ]
    assert (table["n_items"] == N_ITEMS).all()


def test_an_output_path_that_is_a_file_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "file.txt"
    target.write_text("x")
    with pytest.raises(SelfPreferenceError, match="is a file, not a folder"):
        card_of(scores()).write(target)


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


# --- real logs ------------------------------------------------------------------------------------

IDS = [1, 3, 5, 6, 7, 9, 11, 12, 13, 15]
FAIR, FAN = "mockllm/fair-judge", "mockllm/literal-fan"
_TAG = r"<{0}_\w+>\s*(.*?)\s*</{0}_\w+>"


def _text(tag: str, prompt: str) -> str:
    return nfc(re.findall(_TAG.format(tag), prompt, re.DOTALL)[-1])


def grader(name: str) -> Model:
    """A judge: 4 for the reference meaning, 1 otherwise; the fan gives a literal reading 1-2 more."""

    def respond(
        messages: list[ChatMessage], tools: object, choice: object, config: GenerateConfig
    ) -> ModelOutput:
        prompt = "\n\n".join(m.text for m in messages if isinstance(m, ChatMessageUser))
        reference, candidate = _text("nghia_chuan", prompt), _text("giai_thich_can_cham", prompt)
        value = 4 if candidate == reference else 1
        if name == FAN and value == 1:
            value += 1 + len(reference) % 2
        output = ModelOutput.from_content(model=name, content=str(value))
        output.usage = ModelUsage(input_tokens=10, output_tokens=1, total_tokens=11)
        return output

    return get_model(name, custom_outputs=respond, memoize=False)


@pytest.fixture(scope="module")
def real_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("self_preference_logs")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("INSPECT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        for generator in ("vivid/oracle", "vivid/literal"):
            for judge in (FAIR, FAN):
                logs = eval(
                    explain(judge="aspect", data="sample"),
                    model=generator,
                    model_args={"data": "sample"},
                    model_roles={"grader": grader(judge)},
                    sample_id=IDS,
                    log_dir=str(root),
                    display="none",
                )
                assert logs[0].status == "success", logs[0].error
    return root


@pytest.mark.slow
def test_real_logs_flag_a_judge_favouring_a_declared_family(real_logs: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "card"
    code = handle_from(_args(real_logs, f"{FAN}=lab", "vivid/literal=lab", out=out))
    printed = capsys.readouterr()
    assert code == 1
    assert f"**Flagged**: judge_aspect [{FAN}] scores vivid/literal, of its own family" in printed.out
    table = pd.read_csv(out / "self_preference.csv").set_index(["judge", "generator"])
    assert table["n_items"].iloc[0] == len(IDS)
    assert table.loc[(f"judge_aspect [{FAIR}]", "vivid/oracle"), "mean"] == 4.0
    assert table.loc[(f"judge_aspect [{FAIR}]", "vivid/literal"), "mean"] == 1.0
    assert table.loc[(f"judge_aspect [{FAN}]", "vivid/literal"), "mean"] > 2.0
    assert "wrote self_preference.md, self_preference.csv" in printed.err


@pytest.mark.slow
def test_vivid_audit_from_on_the_command_line(real_logs: Path, tmp_path: Path, capsys) -> None:
    argv = ["audit", "--from", str(real_logs), "--family", f"{FAN}=lab", "--family", "vivid/literal=lab"]
    assert main([*argv, "--out", str(tmp_path / "a"), "--seed", "7"]) == 1
    flagged = capsys.readouterr().out
    assert "**Flagged**" in flagged and "seed 7" in flagged
    assert main(["audit", "--from", str(real_logs), "--out", str(tmp_path / "b")]) == 0
    assert "No judge is flagged" in capsys.readouterr().out
    assert main(["audit", "--from", str(tmp_path / "nowhere")]) == 2
    assert str(tmp_path / "nowhere") in capsys.readouterr().err


@pytest.mark.slow
def test_real_logs_of_offline_models_have_no_family_to_prefer(real_logs: Path, tmp_path: Path) -> None:
    card = run_self_preference(real_logs, out_dir=tmp_path)
    fan = card.cell(f"judge_aspect [{FAN}]", "vivid/literal")
    assert fan.ci_low > 0 and not fan.own_family  # a real interaction, but mockllm and vivid/* have no family
    assert card.exit_code == 0
    assert {p.family for p in (*card.judges, *card.generators)} == {"none"}


@pytest.mark.slow
@pytest.mark.parametrize("tag", [AUDIT_TAG, SANITY_TAG], ids=["audit", "sanity"])
def test_audit_and_sanity_logs_in_the_folder_are_left_out(real_logs: Path, tmp_path: Path, tag: str) -> None:
    folder = tmp_path / "with_tagged"
    folder.mkdir()
    for log in sorted(real_logs.glob("*.eval")):
        (folder / log.name).write_bytes(log.read_bytes())
    # A log of made-up answers: the fair judge's scores relabelled as a third judge's, tagged.
    source = read_eval_log(str(sorted(real_logs.glob("*.eval"))[0]))
    source.eval.tags = [tag]
    for sample in source.samples or []:
        for score in (sample.scores or {}).values():
            score.metadata = {**(score.metadata or {}), "judge_model": "mockllm/tagged"}
    write_eval_log(source, str(folder / "2026-01-01T00-00-00_explain_tagged.eval"))
    card = run_self_preference(folder, out_dir=tmp_path / "out")
    assert [j.label for j in card.judges] == [f"judge_aspect [{FAIR}]", f"judge_aspect [{FAN}]"]
    kind = "audit" if tag == AUDIT_TAG else "sanity"
    assert card.notes[0].startswith(f"left out 1 {kind} log(s)")
    assert card.notes[0] in card.markdown()


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
    card = run_self_preference(logs)
    assert [p.name for p in card.files] == ["self_preference.md", "self_preference.csv"]
    assert card.files[0].parent == logs
    families = {p.label: (p.family, p.source) for p in (*card.judges, *card.generators)}
    assert families == {
        "chrf_aspect [vivid/chrf]": ("offline-lab", "declared"),
        "lexical": ("none", "inferred"),
        "vivid/literal": ("offline-lab", "declared"),
        "vivid/oracle": ("none", "inferred"),
    }
    own = card.cell("chrf_aspect [vivid/chrf]", "vivid/literal")
    # Both judges score by chrF: no interaction, so the declared own family is not flagged.
    assert own.own_family and abs(own.excess) < 1e-12 and not own.flagged
    assert card.exit_code == 0


def test_many_empty_cells_are_counted_past_the_first_four() -> None:
    judges = [Participant(label(j), j, None, "unknown") for j in JUDGES]
    generators = [Participant(g, g, None, "unknown") for g in GENERATORS]
    only_diagonal = {(label(j), g): {1: 3.0} for j, g in zip(JUDGES, GENERATORS, strict=True)}
    with pytest.raises(SelfPreferenceError) as caught:
        estimate(only_diagonal, judges, generators)
    message = str(caught.value)
    assert message.count(" × ") == 4 and message.endswith(" and 2 more")


def test_names_from_logs_cannot_break_the_card_or_run_in_a_spreadsheet(tmp_path: Path) -> None:
    hostile = '=HYPERLINK("http://x")|a\nb'
    cells = {(j, g if g != LLAMA else hostile): v for (j, g), v in scores().items()}
    card = card_of(cells).write(tmp_path)
    table = pd.read_csv(tmp_path / "self_preference.csv", keep_default_na=False)
    assert set(table["generator"]) == {GPT, CLAUDE, "'" + hostile}
    rows = [line for line in card.markdown().splitlines() if line.startswith("| excess")]
    assert rows and rows[0].count(" | ") == len(GENERATORS)  # the name's | and newline stay in one cell


def test_an_llm_judge_without_a_recorded_model_has_an_unknown_family_not_none() -> None:
    cells = scores(judges=(GPT_JUDGE, CLAUDE_JUDGE), generators=(GPT, CLAUDE))
    frame = frame_of(cells)
    frame.loc[frame["judge_model"] == GPT_JUDGE, ["judge", "judge_model"]] = ["judge_cot", None]
    lexical = frame[frame["judge_model"] == CLAUDE_JUDGE].assign(
        judge="lexical", judge_model=None, strategy="lexical"
    )
    card = from_frame(pd.concat([frame, lexical], ignore_index=True), n_boot=100)
    families = {p.label: (p.family, p.source) for p in card.judges}
    assert families["judge_cot"] == (None, "unknown")
    assert families["lexical"] == ("none", "inferred")
    assert "family unknown for judge_cot" in card.markdown()


@pytest.mark.slow
def test_many_own_family_cells_do_not_flag_by_chance() -> None:
    # 40 folders of pure noise where three judges and six generators are OpenAI's (two Gemini
    # judges and two Llama generators anchor the fit): 18 own-family cells each. At 95 % apiece
    # about a third of the folders would flag someone; jointly at 95 % about 1 in 20.
    judges = [Participant(f"j{i}", f"openai/gpt-j{i}", "openai", "inferred") for i in range(3)]
    judges += [Participant(f"j{i}", GEMINI_JUDGE, "google", "inferred") for i in (3, 4)]
    generators = [Participant(f"g{i}", f"openai/gpt-g{i}", "openai", "inferred") for i in range(6)]
    generators += [Participant(f"g{i}", LLAMA, "meta", "inferred") for i in (6, 7)]
    flagged = one_at_a_time = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        noise = {
            (j.label, g.label): {i: float(rng.integers(0, 6)) for i in range(40)}
            for j in judges
            for g in generators
        }
        card = estimate(noise, judges, generators, n_boot=1000)
        flagged += bool(card.flagged)
        one_at_a_time += any(cell.ci_low > 0 for cell in card.cells if cell.own_family)
    assert flagged <= 3
    assert one_at_a_time >= 8
    assert "jointly over the 18 own-family cells (each at 99.72 %, Bonferroni)" in card.markdown()


def test_with_one_own_family_cell_the_flag_uses_the_95_interval() -> None:
    cells = scores(
        lambda judge, model, item: float(judge == GPT_JUDGE and model == GPT),
        judges=(GPT_JUDGE, GEMINI_JUDGE),
        generators=(GPT, LLAMA),
    )
    card = card_of(cells)
    own = card.cell(label(GPT_JUDGE), GPT)
    assert card.n_tested == 1 and (own.flag_low, own.flag_high) == (own.ci_low, own.ci_high)
    assert own.flagged and "jointly" not in card.markdown()
    # with two own-family cells the flag's interval is wider than the 95 % one
    two = card_of(scores())
    for cell in two.cells:
        assert cell.own_family == (cell.flag_low is not None)
        if cell.own_family:
            assert cell.flag_low < cell.ci_low <= cell.ci_high < cell.flag_high


def test_a_folder_where_no_judge_shares_a_family_says_so() -> None:
    card = card_of(scores(judges=(GEMINI_JUDGE, CLAUDE_JUDGE), generators=(GPT, LLAMA)))
    assert card.n_tested == 0 and card.exit_code == 0
    assert "no judge shares a family with a generator, so none can be" in card.markdown()


# --- self-preference apart from the other judges' preferences (no leak between cells) -------------

SHAPES = {
    # judge families; generator families (a judge's own family is the generator of the same family)
    "2x2-one-own": (("openai", "google"), ("openai", "meta")),
    "3x2": (("openai", "qwen", "anthropic"), ("openai", "qwen")),
    "3x3": (("openai", "anthropic", "google"), ("openai", "anthropic", "google")),
    "4x4": (("openai", "anthropic", "google", "qwen"), ("openai", "anthropic", "google", "qwen")),
}
N_TABLE_ITEMS = 60


def participants(judge_families, generator_families):
    judges = [
        Participant(f"judge-{f}-{i}", f"{f}/judge", f, "declared") for i, f in enumerate(judge_families)
    ]
    generators = [
        Participant(f"gen-{f}-{i}", f"{f}/gen", f, "declared") for i, f in enumerate(generator_families)
    ]
    return judges, generators


def table(judges, generators, biased=frozenset(), *, seed: int = 3) -> dict:
    """Scores 1-5: difficulty + noise (0/1 each) + quality + leniency (0/1 by index) + 1 on biased cells."""
    rng = np.random.default_rng(seed)
    difficulty = rng.integers(0, 2, size=N_TABLE_ITEMS)
    out = {}
    for a, judge in enumerate(judges):
        for b, generator in enumerate(generators):
            noise = rng.integers(0, 2, size=N_TABLE_ITEMS)
            shift = 1 + a % 2 + b % 2 + (1.0 if (a, b) in biased else 0.0)
            out[(judge.label, generator.label)] = {
                item: float(shift + difficulty[item] + noise[item]) for item in range(N_TABLE_ITEMS)
            }
    return out


CASES = [
    pytest.param(shape, biased, id=f"{shape}-{name}")
    for shape, (judge_families, _) in SHAPES.items()
    for name, biased in (("one-judge", {(0, 0)}), ("two-judges", {(0, 0), (1, 1)}))
    if len(biased) <= min(2, sum(f == g for f, g in zip(judge_families, SHAPES[shape][1], strict=False)))
]


@pytest.mark.parametrize(("shape", "biased"), CASES)
def test_a_self_preferring_judge_is_flagged_and_its_preference_does_not_leak(shape: str, biased) -> None:
    # Judge a adds one point to generator a (same family) for each (a, a) in `biased`. Its excess
    # moves by exactly that point; every other cell's stays where it was without the bias.
    judges, generators = participants(*SHAPES[shape])
    fair = estimate(table(judges, generators), judges, generators, n_boot=1000)
    card = estimate(table(judges, generators, biased), judges, generators, n_boot=1000)
    own = {(a, b) for a, j in enumerate(judges) for b, g in enumerate(generators) if j.family == g.family}
    assert own >= set(biased)
    assert {(c.judge, c.generator) for c in card.flagged} == {
        (judges[a].label, generators[b].label) for a, b in biased
    }
    assert card.exit_code == 1
    for a, judge in enumerate(judges):
        for b, generator in enumerate(generators):
            moved = (
                card.cell(judge.label, generator.label).excess
                - fair.cell(judge.label, generator.label).excess
            )
            assert moved == pytest.approx(1.0 if (a, b) in biased else 0.0, abs=1e-9), (
                judge.label,
                generator.label,
            )
    assert fair.flagged == () and fair.exit_code == 0


@pytest.mark.parametrize(
    "biased", [set(), {(0, 0)}, {(0, 0), (1, 1)}], ids=["no-bias", "one-judge", "two-judges"]
)
def test_two_judges_each_of_a_generators_family_cannot_be_separated(biased) -> None:
    # GPT judge and Qwen judge, GPT and Qwen generators: one judge's preference for its own family
    # and the other's look the same in these four cells, whatever the scores. Refused, never guessed.
    judges, generators = participants(("openai", "qwen"), ("openai", "qwen"))
    with pytest.raises(SelfPreferenceError) as caught:
        estimate(table(judges, generators, biased), judges, generators, source="logs/x", n_boot=200)
    message = str(caught.value)
    assert message.startswith("cannot separate self-preference in logs/x: ")
    assert "add a generator or a judge of another family" in message
    assert "\n" not in message


def test_cells_of_an_unknown_family_are_left_out_of_the_fit_and_never_flagged() -> None:
    # A judge whose family nobody knows may be a GPT model favouring GPT: its cells must not move
    # the leniency and quality the known judges are measured against.
    local = "openai-api/local/my-tune"
    bias = scores(lambda judge, model, item: float(judge == GPT_JUDGE and model == GPT))
    renamed = {(local if j == GPT_JUDGE else j, g): v for (j, g), v in bias.items()}
    fair = {(local if j == GPT_JUDGE else j, g): v for (j, g), v in scores().items()}
    card, without = card_of(renamed), card_of(fair)
    for cell in card.cells:
        if cell.judge == label(local):
            assert not cell.in_fit and cell.excess is None and not cell.flagged
        else:
            assert cell.excess == pytest.approx(without.cell(cell.judge, cell.generator).excess, abs=1e-9)
    assert card.flagged == ()
    assert f"| {label(local)} (unknown) | n/a unknown |" in card.markdown()


@pytest.mark.parametrize("seed", [-1, 1.5, "7", True], ids=["negative", "fraction", "text", "bool"])
def test_a_bad_seed_exits_2_before_reading_any_log(tmp_path: Path, capsys, seed: object) -> None:
    # The folder does not exist: the seed is refused first, so nothing was read. One rule, the
    # audit's (audit.verdicts.seed_problem), whichever way the seed comes in.
    args = _args(tmp_path / "nowhere")
    args.seed = seed
    assert handle_from(args) == 2
    assert (
        capsys.readouterr().err == f"vivid audit --from: seed = {seed!r}: must be a whole number, 0 or more\n"
    )
    with pytest.raises(SelfPreferenceError, match="must be a whole number, 0 or more"):
        run_self_preference(tmp_path / "nowhere", seed=seed)  # type: ignore[arg-type]


def test_a_negative_seed_on_the_command_line_is_refused_by_the_parser(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit) as exited:  # the parser's own check, before --from is looked at
        main(["audit", "--from", str(tmp_path / "nowhere"), "--seed", "-3"])
    assert (
        exited.value.code == 2 and "seed = -3: must be a whole number, 0 or more" in capsys.readouterr().err
    )


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
    families = [f"{FAN}=lab", "vivid/literal=lab", f"{FAIR}=other", "vivid/oracle=other"]
    assert main(["audit", "--from", str(real_logs), *(x for f in families for x in ("--family", f))]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        f"vivid audit --from: cannot separate self-preference in {real_logs}"
    )
    assert lines[0].endswith("add a generator or a judge of another family, scored on the same items")


@pytest.mark.parametrize(
    ("judge_families", "generator_families", "why"),
    [
        (("openai", "openai"), ("openai", "meta"), "no judge of another family scores gen-openai-0"),
        (("openai", "qwen"), ("openai", "openai"), "judge-openai-0 scores no generator of another family"),
    ],
    ids=["generator-seen-only-by-its-family", "judge-seeing-only-its-family"],
)
def test_an_own_family_cell_without_other_family_cells_around_it_is_refused(
    judge_families, generator_families, why: str
) -> None:
    judges, generators = participants(judge_families, generator_families)
    with pytest.raises(SelfPreferenceError) as caught:
        estimate(table(judges, generators, {(0, 0)}), judges, generators, n_boot=100)
    assert why in str(caught.value)
