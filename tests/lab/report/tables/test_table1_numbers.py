"""Table 1's numbers cannot mislead.

Paired means with n, the rounding rule beside its alternative, agreement that rounds nothing, and
no stray mean without human scores.

Expected values are computed here from the inputs (scikit-learn and ``krippendorff`` on the raw
scores), never read back from the report's own code.
"""

from __future__ import annotations

import math
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from tests.lab.report.tables.test_report_units import _frame, _rows
from vivid_inspect.data.sources import hf_label
from vivid_inspect.generation_key import Generation
from vivid_inspect.lab.report.reading.log_refs import LogRef
from vivid_inspect.lab.report.tables.judges import choose_judge
from vivid_inspect.lab.report.tables.paper_tables import PAPER_ITEMS, comparisons
from vivid_inspect.lab.report.tables.reliability import build_reliability
from vivid_inspect.lab.report.tables.tables import table3, table4, table5

LABELS = list(range(6))


def _table1(rows: pd.DataFrame, humans: pd.DataFrame | None) -> pd.DataFrame:
    result = build_reliability(rows, humans, n_boot=100)
    return result.tables[0].frame.set_index("judge")


def _annotations(**by_annotator: dict[int, int]) -> pd.DataFrame:
    records = [(item, score, name) for name, scores in by_annotator.items() for item, score in scores.items()]
    return pd.DataFrame(records, columns=["id", "score", "annotator"]).astype(
        {"id": "int64", "score": "int64"}
    )


# --- 11.2: the judge's mean over the items the humans scored ---------------------------------


def test_judge_and_human_means_are_over_the_same_paired_items() -> None:
    # 1,000 judged items; the humans scored 200 of them, on which the judge agrees with them
    # exactly. On the other 800 the judge gives low scores, so its all-items mean is far lower.
    human = {i: (i * 7) % 6 for i in range(1, 201)}
    judge = {i: float(human[i]) if i in human else float(i % 2) for i in range(1, 1001)}
    table = _table1(_frame(_rows(judge)), _annotations(a=human))
    row = table.loc["judge_aspect"]

    paired_mean = np.mean([judge[i] for i in human])
    assert row["n"] == 200 and row["scored"] == 1000
    assert row["judge_mean"] == pytest.approx(paired_mean)
    assert row["human_mean"] == pytest.approx(np.mean(list(human.values())))
    assert row["judge_mean"] == pytest.approx(row["human_mean"])
    assert row["mean_all_items"] == pytest.approx(np.mean(list(judge.values())))
    assert abs(row["mean_all_items"] - row["judge_mean"]) > 1.5
    assert "mean" not in table.columns  # no column whose items are left unsaid


def test_comparison_with_the_paper_uses_the_paired_judge_mean() -> None:
    human = {i: (i * 7) % 6 for i in range(1, 41)}
    judge = {i: float(human[i]) if i in human else 0.0 for i in range(1, 201)}
    rows = _frame(_rows(judge, model="openai/gpt-4.1"))
    result = build_reliability(rows, _annotations(a=human), n_boot=0)
    chosen, why = choose_judge(rows)
    # The paper's setting: GPT-4o's zero-shot explanations of the pinned release (200 of its items).
    identity = Generation("explain", "2", "openai/gpt-4o", "zero_shot", hf_label(), tuple(range(1, 201)))
    ref = LogRef(
        Path("gen.eval"),
        "gen.eval",
        "explain",
        "openai/gpt-4o",
        "zero_shot",
        None,
        "success",
        "",
        None,
        "gen.eval",
        None,
        identity=identity,
        data_items=PAPER_ITEMS,
        kept_items=1630,
    )
    found = comparisons(
        result.tables[0],
        table3(rows, chosen, why),
        table4(rows, chosen, why),
        table5(rows),
        refs={"gen.eval": ref},
        judge=chosen,
        strategy="aspect",
        language="vi",
        table1_generation=result.generation,
    )
    frame = next(t for t in found.tables if t.name == "table1_vs_paper").frame
    means = frame[frame["column"] == "mean"].set_index("prompt")["ours"]
    assert means["aspect"] == pytest.approx(np.mean([judge[i] for i in human]))
    assert means["human"] == pytest.approx(np.mean(list(human.values())))


# --- without human scores: nothing that reads like the judge's overall mean ------------------


@pytest.mark.parametrize(
    "values",
    [
        pytest.param({i: 5.0 for i in range(1, 11)}, id="oracle-all-fives"),
        pytest.param({1: 0.0, 2: 3.0, 3: math.nan}, id="mixed-with-unscored"),
        pytest.param({1: math.nan}, id="only-unscored"),
    ],
)
def test_without_humans_table1_shows_no_mean(values: dict[int, float]) -> None:
    result = build_reliability(
        _frame(_rows(values), _rows(values, judge="lexical", strategy="lexical")), None, n_boot=0
    )
    table = result.tables[0]
    for column in ("mean_all_items", "judge_mean", "human_mean", "n", "kappa", "kappa_per_annotator"):
        assert table.frame[column].isna().all(), column
    assert any("judge summary" in note for note in table.notes)


# --- 11.5: rounding the mean of two annotators, and agreement that needs no rounding ---------

# Two annotators, one point apart on items 1-6, so those means land on .5.
A = {1: 2, 2: 3, 3: 4, 4: 1, 5: 2, 6: 4, 7: 0, 8: 5, 9: 3, 10: 2}
B = {1: 3, 2: 4, 3: 3, 4: 2, 5: 1, 6: 5, 7: 0, 8: 5, 9: 3, 10: 2}
JUDGE = {1: 3.0, 2: 3.0, 3: 4.0, 4: 2.0, 5: 2.0, 6: 4.0, 7: 1.0, 8: 5.0, 9: 3.0, 10: 2.0}


def test_two_annotators_on_halves_get_both_roundings_and_rater_agreement() -> None:
    table = _table1(_frame(_rows(JUDGE)), _annotations(a=A, b=B))
    row = table.loc["judge_aspect"]
    ids = sorted(A)
    means = [(A[i] + B[i]) / 2 for i in ids]
    judge = [JUDGE[i] for i in ids]
    up = [math.floor(m + 0.5) for m in means]
    down = [math.ceil(m - 0.5) for m in means]

    assert row["kappa"] == pytest.approx(cohen_kappa_score(up, judge, labels=LABELS), abs=1e-12)
    assert row["kappa_half_down"] == pytest.approx(cohen_kappa_score(down, judge, labels=LABELS), abs=1e-12)
    assert row["kappa"] != pytest.approx(row["kappa_half_down"])
    per_annotator = [cohen_kappa_score([s[i] for i in ids], judge, labels=LABELS) for s in (A, B)]
    assert row["kappa_per_annotator"] == pytest.approx(np.mean(per_annotator), abs=1e-12)
    # 10 items per annotator: below the per-annotator interval's fewest (docs/reports.md), so none.
    assert pd.isna(row["kappa_per_annotator_lo"]) and "too few items" in row["kappa_per_annotator_ci"]
    matrix = np.array([[A[i] for i in ids], [B[i] for i in ids], judge], dtype=float)
    alpha = krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal", value_domain=LABELS)
    assert row["alpha_raters"] == pytest.approx(alpha, abs=1e-12)
    assert "6 score(s) end in .5" in row["notes"]
    between = table.loc["human (annotator vs annotator)"]
    humans_only = krippendorff.alpha(
        reliability_data=matrix[:2], level_of_measurement="ordinal", value_domain=LABELS
    )
    assert between["alpha_raters"] == pytest.approx(humans_only, abs=1e-12)


def test_a_file_without_annotators_is_one_rater_and_needs_no_rounding() -> None:
    human = pd.DataFrame({"id": list(A), "score": list(A.values())}).astype("int64")
    row = _table1(_frame(_rows(JUDGE)), human).loc["judge_aspect"]
    assert row["kappa_half_down"] == pytest.approx(row["kappa"])
    assert row["kappa_per_annotator"] == pytest.approx(row["kappa"])


def test_the_report_documents_how_means_and_rounding_are_computed() -> None:
    result = build_reliability(_frame(_rows(JUDGE)), _annotations(a=A, b=B), n_boot=0)
    notes = " ".join(result.tables[0].notes)
    for phrase in ("same n items", "rounded half up", "kappa_half_down rounds halves down", "alpha_raters"):
        assert phrase in notes


# --- Tables 3 and 4 count items, not item x epoch rows ---------------------------------------


@pytest.mark.parametrize("epochs", [1, 2, 3])
def test_tables_3_and_4_count_items_and_report_epochs(epochs: int) -> None:
    values = {1: 4.0, 2: 2.0, 3: 3.0, 4: math.nan}
    rows = _frame(*(_rows(values, epoch=e) for e in range(1, epochs + 1)))
    judge, why = choose_judge(rows)
    for table in (table3(rows, judge, why), table4(rows, judge, why)):
        record = table.frame.iloc[0]
        assert record["n"] == 3, table.name
        assert record["epochs"] == epochs, table.name
        assert record["unscored"] == epochs, table.name  # judgements (item x epoch) with no score


@pytest.mark.parametrize("epochs", [1, 2, 3])
def test_table5_counts_items_and_reports_epochs(epochs: int) -> None:
    records = []
    for task, scorer in (("topic", "topic_match"), ("traits", "traits_match")):
        for epoch in range(1, epochs + 1):
            for row in _rows({1: 1.0, 2: 0.0, 3: 1.0, 4: 0.0}, epoch=epoch):
                records.append(
                    row | {"task": task, "scorer": scorer, "judge": None, "judge_model": None, "shots": 3}
                )
    frame = pd.DataFrame(records)
    record = table5(frame).frame.iloc[0]
    assert (record["n_topic"], record["n_traits"], record["epochs"]) == (4, 4, epochs)
    assert record["topic"] == pytest.approx(0.5)
