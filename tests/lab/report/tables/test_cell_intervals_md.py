"""Tables 3 and 4 in report.md: each cell prints its mean, 95 % interval and n, as the CSV holds them."""

from __future__ import annotations

import csv
import io
import math

import pandas as pd
import pytest

from vivid_inspect.lab.report.reading.logs import SCORE_COLUMNS
from vivid_inspect.lab.report.stats.intervals import MIN_N_MEAN
from vivid_inspect.lab.report.tables.judges import choose_judge, judge_rows
from vivid_inspect.lab.report.tables.render import estimate_text, to_csv, to_latex, to_markdown
from vivid_inspect.lab.report.tables.tables import table3, table4


def _rows(values: dict[int, float]) -> pd.DataFrame:
    rows = [
        {
            "log": "gen.eval",
            "generation": "gen.eval",
            "task": "explain",
            "model": "m/x",
            "prompt": "zero_shot",
            "shots": None,
            "status": "success",
            "created": "2026-01-01",
            "id": item,
            "epoch": 1,
            # 12 items of Love, 3 of Criticism: one cell above the interval's smallest n, one below.
            "theme": "Love" if item <= 12 else "Criticism",
            "traits": ("Literal",) if item % 2 else (),
            "scorer": "judge_aspect",
            "judge": "judge_aspect",
            "judge_model": "m/judge",
            "strategy": "aspect",
            "value": value,
            "unscored": math.isnan(value),
            "error": False,
            "parse_status": "ok",
            "retried": False,
            "lenient": math.nan,
        }
        for item, value in values.items()
    ]
    return judge_rows(pd.DataFrame(rows, columns=list(SCORE_COLUMNS)))


SCORES = {i: float((i * 7) % 6) for i in range(1, 16)}


@pytest.fixture(scope="module")
def tables() -> dict[str, object]:
    rows = _rows(SCORES)
    judge, why = choose_judge(rows)
    return {"table3": table3(rows, judge, why), "table4": table4(rows, judge, why)}


def _md_cells(markdown: str) -> dict[str, str]:
    lines = [line for line in markdown.splitlines() if line.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    values = [c.strip() for c in lines[2].strip("|").split("|")]
    return dict(zip(header, values, strict=True))


@pytest.mark.parametrize("name", ["table3", "table4"])
def test_each_markdown_cell_is_the_csv_mean_interval_and_n(tables: dict[str, object], name: str) -> None:
    table = tables[name]
    cells = _md_cells(to_markdown(table))  # type: ignore[arg-type]
    header = next(csv.reader(io.StringIO(to_csv(table))))  # type: ignore[arg-type]
    assert {"judge_mean", "judge_mean_lo", "judge_mean_hi", "n_items"} <= set(header)
    records = table.csv_rows.to_dict("records")  # type: ignore[attr-defined]
    assert records
    for record in records:
        mean, lo, hi, n = (record[k] for k in ("judge_mean", "judge_mean_lo", "judge_mean_hi", "n_items"))
        text = cells[record["cell"]]
        if mean is None or pd.isna(mean):
            assert text == ""
            continue
        expected = f"{mean:.2f}"
        if lo is not None and not pd.isna(lo):
            expected += f" [{lo:.2f}, {hi:.2f}]"
        assert text == f"{expected} n={n}"


def test_a_cell_below_the_smallest_n_shows_no_interval_and_the_note_says_why(
    tables: dict[str, object],
) -> None:
    markdown = to_markdown(tables["table3"])  # type: ignore[arg-type]
    cells = _md_cells(markdown)
    assert cells["Criticism"] == f"{sum(SCORES[i] for i in (13, 14, 15)) / 3:.2f} n=3"
    assert "[" in cells["Love"] and cells["Love"].endswith("n=12")
    assert f"no interval below n={MIN_N_MEAN}" in markdown


@pytest.mark.parametrize("name", ["table3", "table4"])
def test_the_frame_csv_and_latex_keep_numbers(tables: dict[str, object], name: str) -> None:
    table = tables[name]
    numbers = table.frame["Average" if name == "table3" else "Literal"]  # type: ignore[attr-defined]
    assert all(isinstance(v, float) for v in numbers)
    latex = to_latex(table)  # type: ignore[arg-type]
    body = latex[latex.index("\\midrule") : latex.index("\\bottomrule")]
    assert " n=" not in body and "[" not in body


@pytest.mark.parametrize(
    ("args", "text"),
    [
        ((3.4123, 3.2, 3.6249, 47), "3.41 [3.20, 3.62] n=47"),
        ((3.0, None, None, 3), "3.00 n=3"),
        ((None, None, None, 0), ""),
        ((float("nan"), None, None, 0), ""),
        ((0.0, 0.0, 0.512, 5), "0.00 [0.00, 0.51] n=5"),
        ((4.5, 4.1, None, 9), "4.50 n=9"),
    ],
)
def test_estimate_text(args: tuple[object, object, object, object], text: str) -> None:
    estimate, lo, hi, n = args
    assert estimate_text(estimate, lo, hi, n) == text
