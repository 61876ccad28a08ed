"""The report never crashes on degenerate data.

Each figure is drawn with what is defined, or is named in report.md with the reason it was not
drawn.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.image import imread

from tests.warnings_as_errors import warnings_as_errors
from vivid_inspect.lab.report import plots
from vivid_inspect.lab.report.build import _figures_markdown
from vivid_inspect.lab.report.stats.agreement import Agreement, agreement
from vivid_inspect.lab.report.tables.judges import JudgeKey
from vivid_inspect.lab.report.tables.tables import THEME_COLUMNS, TRAIT_COLUMNS
from vivid_inspect.text import printable

GOOD = agreement({1: 0, 2: 1, 3: 3, 4: 4, 5: 5, 6: 2}, {1: 0, 2: 2, 3: 3, 4: 4, 5: 5, 6: 2}, n_boot=50)
ONE_ITEM = agreement({1: 3}, {1: 3}, n_boot=50)
CONSTANT = agreement({1: 3, 2: 3, 3: 3}, {1: 1, 2: 4, 3: 5}, n_boot=50)
NO_OVERLAP = agreement({1: 3}, {2: 3}, n_boot=50)


def _with(kappa: float | None, lo: float | None, hi: float | None) -> Agreement:
    return replace(GOOD, kappa=kappa, kappa_lo=lo, kappa_hi=hi)


DRAWABLE = [
    pytest.param({"a": _with(-2e-16, 0.0, 0.0)}, id="estimate-just-below-a-zero-width-ci"),
    pytest.param({"a": _with(0.4, 0.5, 0.9)}, id="estimate-below-the-ci"),
    pytest.param({"a": _with(0.95, 0.2, 0.9)}, id="estimate-above-the-ci"),
    pytest.param({"a": _with(0.3, None, None)}, id="no-ci"),
    pytest.param({"a": _with(0.3, math.nan, math.nan)}, id="all-nan-ci"),
    pytest.param({"a": _with(0.3, math.nan, 0.5)}, id="half-nan-ci"),
    pytest.param({"a": _with(-0.8, -1.0, -0.5)}, id="negative-kappa"),
    pytest.param(
        {"a": GOOD, "b": ONE_ITEM, "c": CONSTANT, "d": _with(math.nan, None, None)}, id="some-undefined"
    ),
]


@pytest.mark.parametrize("agreements", DRAWABLE)
def test_agreement_plot_draws_every_defined_kappa(agreements: dict[str, Agreement], tmp_path: Path) -> None:
    keyed = {JudgeKey(name, "m"): result for name, result in agreements.items()}
    with warnings_as_errors():
        drawn = plots.agreement_plot(keyed, tmp_path / "a.png")
    assert drawn == tmp_path / "a.png" and imread(drawn).shape[2] == 4


@pytest.mark.parametrize(
    ("agreements", "reason"),
    [
        pytest.param({}, "no judge could be compared", id="no-judge"),
        pytest.param({"a": ONE_ITEM}, "a [m]: only 1 paired item", id="single-item"),
        pytest.param({"a": CONSTANT}, "a [m]: kappa undefined: all judge scores are 3", id="constant-judge"),
        pytest.param(
            {"a": NO_OVERLAP, "b": CONSTANT}, "a [m]: no items scored by both", id="no-overlap-and-constant"
        ),
        pytest.param({"a": _with(math.nan, 0.1, 0.2)}, "a [m]: kappa undefined", id="nan-kappa"),
    ],
)
def test_agreement_plot_without_any_kappa_says_why(
    agreements: dict[str, Agreement], reason: str, tmp_path: Path
) -> None:
    keyed = {JudgeKey(name, "m"): result for name, result in agreements.items()}
    result = plots.agreement_plot(keyed, tmp_path / "a.png")
    assert isinstance(result, str) and reason in result
    assert not (tmp_path / "a.png").exists()


def test_confusion_plot_without_shared_items_says_why(tmp_path: Path) -> None:
    result = plots.confusion_plot({JudgeKey("a", "m"): NO_OVERLAP}, tmp_path / "c.png")
    assert result == "no judge scored any item the humans scored"
    assert plots.confusion_plot({JudgeKey("a", "m"): ONE_ITEM}, tmp_path / "c.png") == tmp_path / "c.png"


def _table(columns: tuple[str, ...], rows: list[tuple[str, str, list[float]]]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"model": model, "prompt": prompt, **dict(zip(columns, values, strict=True))}
            for model, prompt, values in rows
        ]
    )


def _themes(rows: list[tuple[str, str, list[float]]]) -> pd.DataFrame:
    return _table((*THEME_COLUMNS, "Average"), rows)


NAN = math.nan
TABLES = [
    pytest.param([("m", "zero_shot", [3.0] * 8)], id="single-row-constant"),
    pytest.param([("m", "zero_shot", [0.0] * 8), ("m", "few_shot", [5.0] * 8)], id="zeros-and-fives"),
    pytest.param(
        [("m", "zero_shot", [NAN] * 8), ("m", "few_shot", [1.0, NAN, 2, NAN, 3, NAN, 4, 2.5])], id="nan-row"
    ),
    pytest.param(
        [(f"m{i}", p, [float(i % 6)] * 8) for i in range(12) for p in ("zero_shot", "few_shot")], id="24-rows"
    ),
    pytest.param([("m", "custom_prompt", [1.0] * 8), ("m", "zero_shot", [2.0] * 8)], id="unknown-prompt"),
]


@pytest.mark.slow
@pytest.mark.parametrize("rows", TABLES)
def test_theme_and_trait_figures_draw_degenerate_tables(
    rows: list[tuple[str, str, list[float]]], tmp_path: Path
) -> None:
    with warnings_as_errors():
        heatmap = plots.theme_heatmap(_themes(rows), tmp_path / "h.png")
        bars = plots.trait_bars(
            _table(TRAIT_COLUMNS, [(m, p, v[:5]) for m, p, v in rows]), tmp_path / "b.png"
        )
    assert heatmap == tmp_path / "h.png" and bars == tmp_path / "b.png"


@pytest.mark.parametrize("name", ["m\x1b[2J\x9b31m", "m\nforged", "m\u202eeno\r"])
def test_names_from_the_logs_are_drawn_escaped_and_no_warning_prints_them(name: str, tmp_path: Path) -> None:
    """A control character in a model or judge name is drawn as its escape; matplotlib's warning used to print it raw."""
    rows = [(name, "zero_shot", [3.0] * 8)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        plots.theme_heatmap(_themes(rows), tmp_path / "h.png", judge=name)
        plots.trait_bars(
            _table(TRAIT_COLUMNS, [(m, p, v[:5]) for m, p, v in rows]), tmp_path / "b.png", judge=name
        )
    raw = [str(w.message) for w in caught if any(c in str(w.message) for c in "\x1b\x9b\n\r\u202e")]
    assert raw == []
    assert plots._row_labels(_themes(rows))[0].startswith(printable(name))


@pytest.mark.parametrize(
    ("rows", "reason"),
    [
        pytest.param([], "has no rows", id="empty"),
        pytest.param([("m", "zero_shot", [NAN] * 8)], "every mean", id="all-missing"),
    ],
)
def test_theme_and_trait_figures_that_cannot_be_drawn_say_why(
    rows: list[tuple[str, str, list[float]]], reason: str, tmp_path: Path
) -> None:
    themes = _themes(rows) if rows else pd.DataFrame(columns=["model", "prompt", *THEME_COLUMNS, "Average"])
    traits = _table(TRAIT_COLUMNS, [(m, p, v[:5]) for m, p, v in rows]) if rows else themes.iloc[0:0]
    for result in (
        plots.theme_heatmap(themes, tmp_path / "h.png"),
        plots.trait_bars(traits, tmp_path / "b.png"),
    ):
        assert isinstance(result, str) and reason in result


@pytest.mark.slow
def test_report_md_names_each_figure_not_drawn_with_its_reason(tmp_path: Path) -> None:
    themes = _themes([("m", "zero_shot", [2.0] * 8)])
    traits = _table(TRAIT_COLUMNS, [("m", "zero_shot", [2.0] * 5)])
    (tmp_path / "judge_agreement.png").write_bytes(b"an old figure")
    drawn = plots.draw_figures(tmp_path, themes, traits, {JudgeKey("a", "m"): CONSTANT}, has_humans=True)
    text = _figures_markdown(drawn)
    assert "- `themes_heatmap.png`: Mean judge score by theme (Table 3)" in text
    assert (
        "- `judge_agreement.png`: not drawn: every judge's kappa with the humans is undefined "
        "(a [m]: kappa undefined: all judge scores are 3)"
    ) in text
    assert "- `judge_confusion.png`: Human against judge score" in text
    assert not (tmp_path / "judge_agreement.png").exists()  # no stale figure beside the report
    without = plots.draw_figures(tmp_path, themes, traits, {}, has_humans=False)
    assert [d.reason for d in without][2:] == ["no human scores (--human FILE)"] * 2


# --- traits_bars.png is readable at a glance --------------------------------------------------


@pytest.mark.slow
def test_trait_bars_pair_a_models_prompts_in_one_hue_and_mark_zero(tmp_path: Path) -> None:
    table = _table(
        TRAIT_COLUMNS,
        [
            ("a", "zero_shot", [0.0, 1, 2, 3, 4]),
            ("a", "few_shot", [1, 2, 3, 4, 5]),
            ("b", "zero_shot", [0.5] * 5),
        ],
    )
    colours = plots._paired_colours(table)
    (a_zero, _), (a_few, _), (b_zero, _) = colours
    hue = [np.argmax(c) for c in (a_zero, a_few)]
    assert hue[0] == hue[1] and a_zero != a_few  # same hue, two shades
    assert np.mean(a_zero) > np.mean(a_few)  # zero-shot is the lighter shade
    assert b_zero != a_few and b_zero != a_zero
    first = plots.trait_bars(table, tmp_path / "one.png")
    second = plots.trait_bars(table, tmp_path / "two.png")
    assert isinstance(first, Path) and first.read_bytes() == second.read_bytes()  # byte-identical reruns
