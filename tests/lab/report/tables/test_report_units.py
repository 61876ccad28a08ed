"""Report building blocks without Inspect runs.

The paper's numbers, model matching, formatting, judge choice, reliability statistics against
library values, degenerate inputs, sampling.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from vivid_inspect.lab.humans.annotate.sheet_export import stratified_ids
from vivid_inspect.lab.report.reading.judged import VIVID_SCALE
from vivid_inspect.lab.report.reading.logs import SCORE_COLUMNS
from vivid_inspect.lab.report.tables.judges import JudgeKey, choose_judge, judge_rows, latest
from vivid_inspect.lab.report.tables.paper import compare, paper_model, paper_results, paper_value
from vivid_inspect.lab.report.tables.reliability import build_reliability
from vivid_inspect.lab.report.tables.render import (
    Table,
    format_value,
    latex_escape,
    parse_formats,
    to_csv,
    to_latex,
    to_markdown,
)
from vivid_inspect.lab.report.tables.tables import table3

# --- the paper's numbers ----------------------------------------------------------------------


def test_paper_results_cover_tables_1_3_4_5() -> None:
    frame = paper_results()
    assert Counter(frame["table"]) == {"table1": 10, "table3": 128, "table4": 80, "table5": 16}
    assert not frame.duplicated(["table", "model", "prompt", "column"]).any()
    assert frame["value"].between(0, 5).all()


@pytest.mark.parametrize(
    ("table", "model", "prompt", "column", "value"),
    [
        pytest.param("table1", "GPT-4.1", "aspect", "kappa", 0.792, id="t1-aspect-kappa"),
        pytest.param("table1", "GPT-4.1", "human", "mean", 3.47, id="t1-human-mean"),
        pytest.param("table3", "GPT-4o", "zero_shot", "Average", 2.46, id="t3-gpt4o-average"),
        pytest.param("table3", "Gemini Flash 2.5", "few_shot", "Average", 2.6, id="t3-gemini-few"),
        pytest.param(
            "table4", "Llama-4-Scout-17B-16E", "few_shot", "Sino-Vietnamese", 1.50, id="t4-scout-sino"
        ),
        pytest.param("table5", "Gemini Flash 2.5", "", "topic", 0.535, id="t5-gemini-topic"),
        pytest.param("table5", "Vinallama-7b-chat", "", "traits", 0.016, id="t5-vinallama-traits"),
    ],
)
def test_paper_values_as_published(table: str, model: str, prompt: str, column: str, value: float) -> None:
    assert paper_value(table, model, prompt, column) == value


def test_table3_average_lies_within_its_theme_range() -> None:
    frame = paper_results()
    wide = frame[frame["table"] == "table3"].pivot_table(
        index=["model", "prompt"], columns="column", values="value"
    )
    themes = wide.drop(columns="Average")
    assert ((wide["Average"] >= themes.min(axis=1)) & (wide["Average"] <= themes.max(axis=1))).all()
    assert len(wide) == 16


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        pytest.param("openai/gpt-4o", "GPT-4o", id="openai"),
        pytest.param("openai/azure/gpt-4o-2024-08-06", "GPT-4o", id="dated"),
        pytest.param("openai/gpt-4o-mini", None, id="mini-is-another-model"),
        pytest.param("google/gemini-2.5-flash", "Gemini Flash 2.5", id="gemini"),
        pytest.param("hf/Qwen/Qwen3-14B", "Qwen-3-14B", id="hf-path"),
        pytest.param("ollama/qwen3:14b", "Qwen-3-14B", id="ollama-tag"),
        pytest.param(
            "vllm/meta-llama/Llama-4-Scout-17B-16E-Instruct", "Llama-4-Scout-17B-16E", id="instruct"
        ),
        pytest.param("hf/vilm/vinallama-7b-chat", "Vinallama-7b-chat", id="vinallama"),
        pytest.param("mockllm/model", None, id="unknown"),
    ],
)
def test_paper_model_matching(model: str, expected: str | None) -> None:
    assert paper_model(model) == expected


def test_compare_gives_ours_paper_and_difference_only_for_matched_models() -> None:
    ours = pd.DataFrame(
        {
            "model": ["openai/gpt-4o", "mockllm/x"],
            "prompt": ["few_shot", "few_shot"],
            "Love": [2.0, 1.0],
            "n_love": [12, 3],
        }
    )
    frame = compare("table3", ours, model="model", prompt="prompt", columns=["Love"], n={"Love": "n_love"})
    assert frame.to_dict("records") == [
        {
            "model": "openai/gpt-4o",
            "paper_model": "GPT-4o",
            "prompt": "few_shot",
            "column": "Love",
            "ours": 2.0,
            "paper": 1.75,
            "diff": 0.25,
            "n": 12,
        }
    ]


# --- formatting -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "decimals", "text"),
    [
        pytest.param(2.456, 2, "2.46", id="rounded"),
        pytest.param(-0.0001, 2, "0.00", id="no-negative-zero"),
        pytest.param(np.float64(0.5), 3, "0.500", id="numpy-float"),
        pytest.param(np.int64(7), 3, "7", id="numpy-int"),
        pytest.param(None, 2, "", id="none"),
        pytest.param(math.nan, 2, "", id="nan"),
        pytest.param(pd.NA, 2, "", id="pandas-na"),
        pytest.param(True, 2, "yes", id="true"),
        pytest.param(False, 2, "", id="false"),
        pytest.param("Thành ngữ", 2, "Thành ngữ", id="text"),
    ],
)
def test_format_value(value: object, decimals: int, text: str) -> None:
    assert format_value(value, decimals) == text


def test_table_text_forms_escape_and_fix_decimals() -> None:
    frame = pd.DataFrame({"judge": ["a|b", "judge_x & 50%"], "mean": [1.23456, None], "n": [3, None]})
    table = Table("t", "Title_1", frame, decimals=2, notes=("a note",), counts=("n",))
    markdown = to_markdown(table)
    assert "| a\\|b | 1.23 | 3 |" in markdown and "|---|---:|---:|" in markdown and "- a note" in markdown
    assert to_csv(table) == "judge,mean,n\na|b,1.2346,3\njudge_x & 50%,,\n"
    latex = to_latex(table)
    assert (
        "judge\\_x \\& 50\\%" in latex
        and "\\caption{Title\\_1}" in latex
        and "\\begin{tabular}{lrr}" in latex
    )
    assert latex_escape("{~^\\}") == "\\{\\textasciitilde{}\\textasciicircum{}\\textbackslash{}\\}"


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        pytest.param("md,csv", ("md", "csv"), id="two"),
        pytest.param("tex, MD", ("md", "tex"), id="canonical-order-and-case"),
        pytest.param(("csv",), ("csv",), id="tuple"),
    ],
)
def test_parse_formats(spec: str | tuple[str, ...], expected: tuple[str, ...]) -> None:
    assert parse_formats(spec) == expected


@pytest.mark.parametrize("spec", [pytest.param("md,pdf", id="unknown"), pytest.param("", id="empty")])
def test_parse_formats_rejects(spec: str) -> None:
    with pytest.raises(ValueError, match="md, csv, tex"):
        parse_formats(spec)


# --- synthetic score rows ---------------------------------------------------------------------


def _rows(
    values: dict[int, float],
    *,
    judge: str = "judge_aspect",
    model: str = "m/judge",
    strategy: str = "aspect",
    log: str = "gen.eval",
    generation: str = "gen.eval",
    epoch: int = 1,
    status: str = "success",
    created: str = "2026-01-01",
    generator: str = "m/x",
) -> list[dict[str, object]]:
    return [
        {
            "log": log,
            "generation": generation,
            "task": "explain",
            "model": generator,
            "prompt": "zero_shot",
            "shots": None,
            "status": status,
            "created": created,
            "id": item,
            "epoch": epoch,
            "theme": "Love" if item % 2 else "Criticism",
            "traits": ("Literal",) if item % 3 == 0 else (),
            "scorer": judge,
            "judge": judge,
            "judge_model": model,
            "strategy": strategy,
            "value": value,
            "unscored": math.isnan(value),
            "error": False,
            "parse_status": "ok",
            "retried": False,
            "lenient": math.nan,
            "scale": VIVID_SCALE,  # VIVID's judges declare 0-5 (the contract)
        }
        for item, value in values.items()
    ]


def _frame(*groups: list[dict[str, object]]) -> pd.DataFrame:
    return judge_rows(pd.DataFrame([row for group in groups for row in group], columns=list(SCORE_COLUMNS)))


def _humans(scores: dict[int, int]) -> pd.DataFrame:
    return pd.DataFrame({"id": list(scores), "score": list(scores.values())}).astype("int64")


JUDGE_A = {1: 0.0, 2: 1.0, 3: 2.0, 4: 3.0, 5: 4.0, 6: 5.0, 7: 3.0, 8: math.nan}
JUDGE_B = {1: 1.0, 2: 1.0, 3: 2.0, 4: 4.0, 5: 4.0, 6: 5.0, 7: 2.0, 8: 3.0}
HUMAN = {1: 0, 2: 1, 3: 3, 4: 3, 5: 4, 6: 4, 7: 3, 8: 2}


def _table(result: object, name: str) -> pd.DataFrame:
    return next(t for t in result.tables if t.name == name).frame  # type: ignore[attr-defined]


def test_table1_kappa_and_unscored_against_scikit_learn() -> None:
    rows = _frame(_rows(JUDGE_A), _rows(JUDGE_B, judge="judge_cot", strategy="cot"))
    result = build_reliability(rows, _humans(HUMAN), n_boot=50)
    table = _table(result, "table1_judges").set_index("judge")
    paired = [i for i in HUMAN if not math.isnan(JUDGE_A[i])]
    expected = cohen_kappa_score([HUMAN[i] for i in paired], [int(JUDGE_A[i]) for i in paired])
    assert table.loc["judge_aspect", "kappa"] == pytest.approx(expected, abs=1e-12)
    assert table.loc["judge_aspect", "unscored"] == 1 and table.loc["judge_aspect", "scored"] == 7
    assert table.loc["judge_aspect", "mean_all_items"] == pytest.approx(np.nanmean(list(JUDGE_A.values())))
    assert table.loc["judge_aspect", "judge_mean"] == pytest.approx(np.mean([JUDGE_A[i] for i in paired]))
    assert table.loc["judge_aspect", "human_mean"] == pytest.approx(np.mean([HUMAN[i] for i in paired]))
    assert list(table.index) == ["human", "judge_cot", "judge_aspect"]  # the paper's strategy order
    differences = _table(result, "judge_differences")
    assert len(differences) == 1 and differences.iloc[0]["n"] == 7


@pytest.mark.parametrize(
    ("judge", "human", "note"),
    [
        pytest.param({i: 3.0 for i in HUMAN}, HUMAN, "all judge scores are 3", id="constant-judge"),
        pytest.param(JUDGE_A, {i: 2 for i in HUMAN}, "all human scores are 2", id="constant-humans"),
        pytest.param(JUDGE_A, {100: 3, 101: 4}, "no items scored by both", id="no-overlap"),
        pytest.param(JUDGE_A, {1: 0}, "only 1 paired item", id="one-item"),
    ],
)
def test_table1_degenerate_inputs_are_reported(
    judge: dict[int, float], human: dict[int, int], note: str
) -> None:
    result = build_reliability(_frame(_rows(judge)), _humans(human), n_boot=20)
    row = _table(result, "table1_judges").set_index("judge").loc["judge_aspect"]
    assert pd.isna(row["kappa"]) and note in row["notes"]


def test_one_judge_and_no_humans() -> None:
    result = build_reliability(_frame(_rows(JUDGE_A)), None, n_boot=20)
    notes = {t.name: " ".join(t.notes) for t in result.tables}
    assert "no human scores given" in notes["table1_judges"]
    assert "needs human scores" in notes["judge_differences"]
    assert "found 1 judge" in notes["judge_pairs"]
    assert "no judge was run more than once" in notes["judge_consistency"]
    assert result.agreements == {}


def test_no_judge_at_all() -> None:
    result = build_reliability(_frame(), _humans(HUMAN), n_boot=20)
    assert list(_table(result, "table1_judges")["judge"]) == ["human"]
    assert result.generation is None


def test_self_consistency_of_a_judge_run_twice() -> None:
    first = _rows(JUDGE_A, log="judged/a/run1.eval", created="2026-01-01")
    second = _rows(JUDGE_B, log="judged/a/run2.eval", created="2026-01-02")
    result = build_reliability(_frame(first, second), None, n_boot=20)
    row = _table(result, "judge_consistency").iloc[0]
    both = [i for i in JUDGE_A if not math.isnan(JUDGE_A[i])]
    expected = cohen_kappa_score(
        [JUDGE_A[i] for i in both], [JUDGE_B[i] for i in both], labels=list(range(6))
    )
    assert row["runs_from"] == "repeated logs" and row["runs"] == 2 and row["n"] == len(both)
    assert row["mean_kappa"] == pytest.approx(expected, abs=1e-12)
    assert row["flip_rate"] == pytest.approx(np.mean([JUDGE_A[i] != JUDGE_B[i] for i in both]))
    # The tables use one run: the newer log.
    summary = _table(result, "judge_summary").iloc[0]
    assert summary["samples"] == len(JUDGE_B) and summary["unscored"] == 0


def test_self_consistency_over_epochs_says_what_it_mixes() -> None:
    rows = _frame(_rows(JUDGE_A, epoch=1), _rows(JUDGE_B, epoch=2))
    row = _table(build_reliability(rows, None, n_boot=20), "judge_consistency").iloc[0]
    assert row["runs_from"] == "epochs" and "re-generate the explanation" in row["notes"]


def test_latest_prefers_a_score_then_a_finished_log_then_the_newest() -> None:
    old = _rows({1: 1.0, 2: 1.0}, log="a.eval", created="2026-01-01")
    failed = _rows({1: 2.0}, log="b.eval", created="2026-01-03", status="error")
    new = _rows({1: 3.0}, log="c.eval", created="2026-01-02")
    chosen = latest(_frame(old, failed, new), ["judge", "judge_model"])
    assert dict(zip(chosen["id"], chosen["value"], strict=True)) == {1: 3.0, 2: 1.0}


def test_table3_flags_rows_from_an_unfinished_log() -> None:
    rows = _frame(_rows({1: 4.0, 2: 2.0, 3: math.nan}, status="started"))
    judge, why = choose_judge(rows)
    frame = table3(rows, judge, why).frame
    record = frame.iloc[0]
    assert record["incomplete"] and record["Love"] == 4.0 and record["Criticism"] == 2.0
    assert record["Average"] == 3.0 and record["unscored"] == 1 and record["n"] == 2


# --- choosing the judge of Tables 3 and 4 -----------------------------------------------------


def _judges() -> pd.DataFrame:
    return _frame(
        _rows({1: 1.0}, judge="judge_cot", strategy="cot"),
        _rows({1: 2.0}, judge="judge_aspect", model="openai/gpt-4.1"),
        _rows({1: 3.0}, judge="cheap", model="openai/gpt-4o-mini", strategy="aspect"),
    )


@pytest.mark.parametrize(
    ("requested", "expected"),
    [
        pytest.param(None, JudgeKey("judge_aspect", "openai/gpt-4.1"), id="default-aspect-paper-model"),
        pytest.param("cot", JudgeKey("judge_cot", "m/judge"), id="by-strategy"),
        pytest.param("cheap", JudgeKey("cheap", "openai/gpt-4o-mini"), id="by-name"),
        pytest.param(
            "aspect@openai/gpt-4o-mini", JudgeKey("cheap", "openai/gpt-4o-mini"), id="name-at-model"
        ),
    ],
)
def test_choose_judge(requested: str | None, expected: JudgeKey) -> None:
    assert choose_judge(_judges(), requested)[0] == expected


def test_choose_judge_rejects_an_unknown_name_listing_the_judges() -> None:
    with pytest.raises(ValueError, match="available: judge_cot@m/judge"):
        choose_judge(_judges(), "nobody")
    assert choose_judge(_frame(), None) == (None, "no judge scores in the logs")


# --- annotation sample ------------------------------------------------------------------------


def test_stratified_sample_is_proportional_and_seeded() -> None:
    themes = {i: ("Criticism" if i <= 60 else "Love" if i <= 90 else "Other") for i in range(1, 101)}
    chosen = stratified_ids(themes, 20, seed=1)
    assert Counter(themes[i] for i in chosen) == {"Criticism": 12, "Love": 6, "Other": 2}
    assert len(set(chosen)) == 20 and stratified_ids(themes, 20, seed=1) == chosen
    assert stratified_ids(themes, 20, seed=2) != chosen
    assert sorted(stratified_ids(themes, 500)) == list(range(1, 101))
    with pytest.raises(ValueError, match="positive"):
        stratified_ids(themes, 0)


# --- a judge that cannot score is never silently chosen (issue 29 section 4) -------------------

GOOD = {i: float(i % 6) for i in range(1, 26)}
ECHO = dict.fromkeys(range(1, 26), math.nan)  # echoes the prompt: 100 % unscored
MOSTLY = {i: (3.0 if i <= 6 else math.nan) for i in range(1, 26)}  # 76 % unscored


def _three(good: str, echo: str, mostly: str, order: tuple[int, ...]) -> pd.DataFrame:
    groups = [
        _rows(GOOD, judge=good, model="vivid/chrf"),
        _rows(ECHO, judge=echo, model="mockllm/echo"),
        _rows(MOSTLY, judge=mostly, model="mockllm/mostly", strategy="cot"),
    ]
    return _frame(*(groups[i] for i in order))


@pytest.mark.parametrize("order", [(0, 1, 2), (1, 0, 2), (2, 1, 0), (1, 2, 0)])
@pytest.mark.parametrize(
    ("good", "echo", "mostly"),
    [("good", "echo", "mostly"), ("zz_good", "aa_echo", "mm"), ("judge_aspect", "a", "judge_cot")],
)
def test_choose_judge_sets_aside_a_judge_that_cannot_score(
    good: str, echo: str, mostly: str, order: tuple[int, ...]
) -> None:
    judge, why = choose_judge(_three(good, echo, mostly, order))
    assert judge == JudgeKey(good, "vivid/chrf")
    assert why.startswith(f"Tables 3 and 4 use judge {good} [vivid/chrf]: the aspect-based judge")
    aside = why.split("set aside as unable to score (unscored above 20%): ")[1]
    assert f"{echo} [mockllm/echo] (100% of 25 unscored)" in aside
    assert f"{mostly} [mockllm/mostly] (76% of 25 unscored)" in aside


def test_choose_judge_prefers_a_scoring_judge_of_another_strategy() -> None:
    rows = _frame(_rows(ECHO, judge="echo", model="m/echo"), _rows(GOOD, judge="cot", strategy="cot"))
    judge, why = choose_judge(rows)
    assert judge == JudgeKey("cot", "m/judge") and "the only judge that can score" in why
    assert "set aside as unable to score" in why and "echo [m/echo] (100% of 25 unscored)" in why


def test_choose_judge_ranks_by_scored_coverage() -> None:
    # Both under the limit (aa 10 % unscored); zz scores more (model, prompt) rows though it judged fewer.
    few = _rows(dict.fromkeys(range(1, 10), 2.0), judge="aa") + _rows(
        {1: math.nan}, judge="aa", generator="m/y", generation="y.eval"
    )
    many = _rows({1: 2.0}, judge="zz") + _rows({1: 2.0}, judge="zz", generator="m/y", generation="y.eval")
    judge, why = choose_judge(_frame(few, many))
    assert judge is not None and judge.name == "zz" and "set aside" not in why


@pytest.mark.parametrize("order", [(1, 2), (2, 1)])
def test_choose_judge_says_when_no_judge_can_score(order: tuple[int, ...]) -> None:
    judge, why = choose_judge(_three("good", "echo", "mostly", order))
    assert judge == JudgeKey("echo", "mockllm/echo")  # chosen as before: the aspect-based judge
    assert "no judge can score (unscored above 20%): echo [mockllm/echo] (100% of 25 unscored), " in why
    assert "mostly [mockllm/mostly] (76% of 25 unscored)" in why and "set aside" not in why


@pytest.mark.parametrize(
    ("requested", "expected", "noted"),
    [
        ("echo", JudgeKey("echo", "mockllm/echo"), "this judge cannot score (100% of 25 unscored)"),
        ("cot", JudgeKey("mostly", "mockllm/mostly"), "this judge cannot score (76% of 25 unscored)"),
        ("good", JudgeKey("good", "vivid/chrf"), None),
    ],
)
def test_choose_judge_honours_judge_even_one_that_cannot_score(
    requested: str, expected: JudgeKey, noted: str | None
) -> None:
    judge, why = choose_judge(_three("good", "echo", "mostly", (0, 1, 2)), requested)
    assert judge == expected and why.startswith(
        f"Tables 3 and 4 use judge {expected.label}: chosen with --judge"
    )
    assert (noted in why) if noted else "cannot score" not in why
    assert "set aside as unable to score" in why and f"{expected.label} (" not in why.split("set aside")[1]
