"""Table 1 and the judge tables print only intervals that hold, and say what misleads (issue 21.4, 21.8, 23).

- every interval cell is an interval or the reason there is none (too few items, identical judges);
- two judges that are one function of the text are named as such, not shown as agreement;
- the human reference row has no kappa against itself and counts only items a judge could score;
- the terminal view of Table 1 is compact; CSV and LaTeX keep every column;
- the agreement plot lists the judges it leaves out.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.lab.report.tables.test_report_units import _frame, _rows
from vivid_inspect.lab.report import plots
from vivid_inspect.lab.report.stats.agreement import agreement
from vivid_inspect.lab.report.stats.intervals import RULES, too_few
from vivid_inspect.lab.report.tables.judges import JudgeKey
from vivid_inspect.lab.report.tables.reliability import build_reliability
from vivid_inspect.lab.report.tables.render import to_csv, to_latex, to_markdown
from vivid_inspect.lab.report.tables.table1 import TABLE1_COLUMNS, TABLE1_TERMINAL


def _annotations(**by_annotator: dict[int, int]) -> pd.DataFrame:
    records = [(item, score, name) for name, scores in by_annotator.items() for item, score in scores.items()]
    return pd.DataFrame(records, columns=["id", "score", "annotator"]).astype(
        {"id": "int64", "score": "int64"}
    )


def _tables(rows: pd.DataFrame, humans: pd.DataFrame | None) -> dict[str, pd.DataFrame]:
    return {table.name: table.frame for table in build_reliability(rows, humans).tables}


HUMAN = {i: (i * 7) % 6 for i in range(1, 201)}
NOISY = {
    i: float(min(5, max(0, v + (1 if i % 3 == 0 else -1 if i % 5 == 0 else 0)))) for i, v in HUMAN.items()
}


# --- intervals in the cells ------------------------------------------------------------------


@pytest.mark.parametrize("n", [5, 6, 7])
def test_a_small_overlap_says_too_few_instead_of_an_interval(n: int) -> None:
    # The README's `vivid annotate serve --overlap 5`: two annotators share 5 items.
    a = {i: HUMAN[i] for i in range(1, n + 1)}
    b = {i: int(NOISY[i]) for i in range(1, n + 1)}
    rows = _frame(_rows({i: float(v) for i, v in a.items()}))
    table1 = _tables(rows, _annotations(a=a, b=b))["table1_judges"].set_index("judge")
    for judge in ("human (annotator vs annotator)", "judge_aspect"):
        row = table1.loc[judge]
        assert row["kappa"] is not None and not math.isnan(row["kappa"])
        assert _missing(row["kappa_lo"]) and _missing(row["kappa_hi"])
        assert row["kappa_ci"] == too_few(n)
        assert row["weighted_kappa_ci"] == too_few(n)


def test_perfect_agreement_on_eight_items_prints_no_one_to_one_interval() -> None:
    human = {i: HUMAN[i] for i in range(1, 9)}
    rows = _frame(_rows({i: float(v) for i, v in human.items()}))
    result = build_reliability(rows, _annotations(a=human))
    table1 = next(t for t in result.tables if t.name == "table1_judges")
    row = table1.frame.set_index("judge").loc["judge_aspect"]
    assert row["kappa"] == 1.0
    assert "[1.000, 1.000]" not in to_markdown(table1) + to_csv(table1)
    assert row["kappa_ci"] == too_few(8) or row["kappa_lo"] < 1.0


def test_enough_items_print_the_interval_in_its_cell() -> None:
    rows = _frame(_rows(NOISY))
    row = _tables(rows, _annotations(a=HUMAN))["table1_judges"].set_index("judge").loc["judge_aspect"]
    assert row["n"] == 200 >= max(rule.min_n for rule in RULES.values())
    assert row["kappa_lo"] < row["kappa"] < row["kappa_hi"]
    assert row["kappa_ci"] == f"[{row['kappa_lo']:.3f}, {row['kappa_hi']:.3f}]"
    assert row["judge_mean_lo"] < row["judge_mean"] < row["judge_mean_hi"]
    assert row["weighted_kappa_lo"] < row["weighted_kappa"] < row["weighted_kappa_hi"]
    assert row["kappa_per_annotator_lo"] < row["kappa_per_annotator"] < row["kappa_per_annotator_hi"]


def test_the_strategy_differences_and_self_consistency_show_their_interval_cells() -> None:
    rows = _frame(
        _rows(NOISY), _rows({i: float(v) for i, v in HUMAN.items()}, judge="judge_cot", strategy="cot")
    )
    tables = _tables(rows, _annotations(a=HUMAN))
    difference = tables["judge_differences"].iloc[0]
    assert difference["n"] == 200
    assert difference["mean_diff_ci"].startswith("[")
    assert difference["kappa_diff_ci"].startswith("[")
    repeated = _frame(_rows(NOISY), *(_rows(NOISY) for _ in range(1)))
    assert "mean_kappa_ci" in _tables(repeated, None)["judge_consistency"].columns


# --- 21.8: the same function of the text, the human row --------------------------------------


def test_two_judges_with_identical_scores_are_named_as_one_function_of_the_text() -> None:
    chrf = {i: float(v) for i, v in NOISY.items()}
    rows = _frame(
        _rows(chrf, judge="judge_aspect", model="vivid/chrf"),
        _rows(chrf, judge="lexical", model="chrF", strategy="lexical"),
        _rows({i: float(v) for i, v in HUMAN.items()}, judge="judge_cot", strategy="cot"),
    )
    result = build_reliability(rows, _annotations(a=HUMAN))
    table1 = next(t for t in result.tables if t.name == "table1_judges")
    frame = table1.frame.set_index("judge")
    assert frame.loc["judge_aspect", "same_scores_as"] == "lexical [chrF]"
    assert frame.loc["lexical", "same_scores_as"] == "judge_aspect [vivid/chrf]"
    assert _missing(frame.loc["judge_cot", "same_scores_as"])
    assert any("identical scores on all 200 items" in note for note in table1.notes)
    pairs = next(t for t in result.tables if t.name == "judge_pairs").frame
    same = pairs[
        (pairs["judge_a"].str.startswith("judge_aspect")) & (pairs["judge_b"].str.startswith("lexical"))
    ]
    same = same if not same.empty else pairs[pairs["judge_b"].str.startswith("judge_aspect")]
    row = same.iloc[0]
    assert bool(row["same_scores"]) and _missing(row["kappa"])
    assert "same function of the text" in row["notes"]
    other = pairs[~pairs["same_scores"].fillna(False).astype(bool)]
    assert other["kappa"].notna().all()
    differences = next(t for t in result.tables if t.name == "judge_differences").frame
    twin = differences[differences["judge_a"].str.startswith(("judge_aspect", "lexical"))]
    twin = twin[twin["judge_b"].str.startswith(("judge_aspect", "lexical"))].iloc[0]
    assert twin["kappa_diff"] == 0.0 and _missing(twin["kappa_diff_lo"])
    assert "identical item for item" in twin["kappa_diff_ci"]


def test_the_human_reference_row_has_no_kappa_against_itself() -> None:
    rows = _frame(_rows(NOISY))
    row = _tables(rows, _annotations(a=HUMAN))["table1_judges"].set_index("judge").loc["human"]
    assert _missing(row["kappa"])
    assert "no kappa against itself" in row["notes"]


def test_the_human_row_counts_only_items_a_judge_could_score() -> None:
    # Items 201-204 were scored by the humans but left out of the generation (demonstration idioms).
    humans = {**HUMAN, 201: 5, 202: 5, 203: 5, 204: 5}
    rows = _frame(_rows(NOISY))
    result = build_reliability(rows, _annotations(a=humans, b=humans))
    table1 = next(t for t in result.tables if t.name == "table1_judges")
    frame = table1.frame.set_index("judge")
    assert frame.loc["human", "n"] == 200 and frame.loc["human", "scored"] == 200
    assert frame.loc["human", "human_mean"] == pytest.approx(np.mean(list(HUMAN.values())))
    assert frame.loc["human (annotator vs annotator)", "n"] == 200
    assert any(
        "4 human-scored item(s) are not in the generation" in note and "201, 202, 203, 204" in note
        for note in table1.notes
    )


# --- issue 23: Table 1 in the terminal -------------------------------------------------------


def test_the_terminal_view_of_table1_is_compact_and_the_files_keep_every_column() -> None:
    rows = _frame(_rows(NOISY))
    table1 = next(
        t for t in build_reliability(rows, _annotations(a=HUMAN)).tables if t.name == "table1_judges"
    )
    markdown = to_markdown(table1)
    header = next(line for line in markdown.splitlines() if line.startswith("| judge"))
    assert [cell.strip() for cell in header.strip("|").split("|")] == list(TABLE1_TERMINAL)
    assert len(TABLE1_TERMINAL) <= 10
    assert (
        f"{len(TABLE1_TERMINAL)} of {len(TABLE1_COLUMNS)} columns shown; every column is in table1_judges.csv"
        in markdown
    )
    assert to_csv(table1).splitlines()[0].split(",") == list(TABLE1_COLUMNS)
    latex_header = next(line for line in to_latex(table1).splitlines() if line.startswith("judge &"))
    assert latex_header.count("&") == len(TABLE1_COLUMNS) - 1


# --- the agreement plot lists what it leaves out ---------------------------------------------


def test_the_agreement_plot_lists_the_judges_it_leaves_out(tmp_path: Path) -> None:
    good = agreement(NOISY, HUMAN)
    constant = agreement({i: 3.0 for i in HUMAN}, HUMAN)
    agreements = {JudgeKey("judge_aspect", "m"): good, JudgeKey("judge_constant", "m"): constant}
    assert plots.agreement_left_out(agreements) == [
        "judge_constant [m]: kappa undefined: all judge scores are 3"
    ]
    figure = plots.agreement_figure(agreements)
    texts = [text.get_text() for text in figure.texts]
    assert any("judge_constant [m]: kappa undefined: all judge scores are 3" in text for text in texts)
    assert plots.agreement_plot(agreements, tmp_path / "a.png") == tmp_path / "a.png"
    alone = plots.agreement_figure({JudgeKey("judge_aspect", "m"): good})
    assert not alone.texts


def _missing(value: object) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))
