"""The report's figures (PNG): theme heatmap, per-trait bars, judge-human agreement, confusion matrices.

Figures are drawn without pyplot (no global state, no display needed) on matplotlib's Agg
canvas, in matplotlib's default style whatever the user's settings, at a fixed DPI and without
the "Software" text chunk, so the same tables give byte-identical files.

A figure never fails on degenerate data (a missing value, one item, a constant rater, an interval
that does not contain its estimate): it is drawn with what is defined, or not drawn, and then
`Drawn` says why, for the report to print.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from pathlib import Path

import matplotlib
import matplotlib.style
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure

from vivid_inspect.lab.report.stats.agreement import Agreement
from vivid_inspect.lab.report.stats.score_stats import SCORES
from vivid_inspect.lab.report.tables.judges import JudgeKey, rank_in
from vivid_inspect.lab.report.tables.tables import AVERAGE, PROMPT_ORDER, THEME_COLUMNS, TRAIT_COLUMNS
from vivid_inspect.text import printable

DPI = 100
_PNG_METADATA: dict[str, str | None] = {"Software": None}


@dataclass(frozen=True)
class Drawn:
    """One figure of the report: its file, or why it was not drawn.

    Attributes:
        file: File name (``themes_heatmap.png``).
        title: What the figure shows.
        path: The file written, or None.
        reason: Why the figure was not drawn (None when it was).
    """

    file: str
    title: str
    path: Path | None
    reason: str | None = None


FIGURES: dict[str, str] = {
    "themes_heatmap.png": "Mean judge score by theme (Table 3)",
    "traits_bars.png": "Mean judge score by complexity trait (Table 4)",
    "judge_agreement.png": "Cohen's kappa of each judge with the human scores, 95% CI",
    "judge_confusion.png": "Human against judge score, one confusion matrix per judge",
}


def draw_figures(
    out: Path,
    table3: pd.DataFrame,
    table4: pd.DataFrame,
    agreements: dict[JudgeKey, Agreement],
    has_humans: bool,
    judge: str = "",
) -> list[Drawn]:
    """Every figure of the report, in report order, each drawn or with the reason it is not.

    Args:
        out: Folder the PNG files go to.
        table3: Table 3's frame.
        table4: Table 4's frame.
        agreements: Table 1's agreement of each judge with the humans.
        has_humans: Whether human scores were given.
        judge: The label of the judge whose scores Tables 3 and 4 hold, named in their figures.

    Returns:
        One entry per figure of `FIGURES`; the titles of the Table 3 and 4 figures name
        the judge.
    """
    no_humans = "no human scores (--human FILE)"
    drawers = {
        "themes_heatmap.png": lambda path: theme_heatmap(table3, path, judge),
        "traits_bars.png": lambda path: trait_bars(table4, path, judge),
        "judge_agreement.png": lambda path: agreement_plot(agreements, path) if has_humans else no_humans,
        "judge_confusion.png": lambda path: confusion_plot(agreements, path) if has_humans else no_humans,
    }
    drawn: list[Drawn] = []
    for file, title in FIGURES.items():
        if judge and file in ("themes_heatmap.png", "traits_bars.png"):
            title = f"{title}, judge {judge}"
        result = drawers[file](out / file)
        if isinstance(result, Path):
            drawn.append(Drawn(file, title, result))
        else:
            (out / file).unlink(missing_ok=True)  # a figure from an earlier run would no longer match
            drawn.append(Drawn(file, title, None, result))
    return drawn


def _save(figure: Figure, path: Path) -> Path:
    FigureCanvasAgg(figure)
    # A missing glyph's warning would print a raw character (an escape in a name) on the terminal.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .*missing from", category=UserWarning)
        figure.savefig(path, dpi=DPI, format="png", metadata=_PNG_METADATA)
    return path


def _row_labels(frame: pd.DataFrame) -> list[str]:
    """``model / prompt``, with the data (and the generation key) where the table shows them."""
    shown = [c for c in ("model", "prompt", "data", "generation") if c in frame.columns]
    rows = frame[shown].itertuples(index=False, name=None)
    return [printable(" / ".join(str(v) for v in values)) for values in rows]  # names from the logs, shown


def _judged_by(title: str, judge: str) -> str:
    return f"{title}\njudge: {printable(judge)}" if judge else title


def theme_heatmap(table3: pd.DataFrame, path: Path, judge: str = "") -> Path | str:
    """Model x prompt against theme heatmap of Table 3 (mean judge score, 0-5), values written in.

    Args:
        table3: Table 3's frame.
        path: The PNG file.
        judge: The judge's label, named in the title.

    Returns:
        The file, or why it was not drawn.
    """
    if table3.empty:
        return "Table 3 has no rows (no judge scores of explanations)"
    columns = [*THEME_COLUMNS, AVERAGE]
    values = table3[columns].astype(float).to_numpy()
    if not np.isfinite(values).any():
        return "every mean of Table 3 is missing (no item has a judge score)"
    with matplotlib.style.context("default"):
        figure = Figure(figsize=(1.0 * len(columns) + 3.5, 0.4 * len(table3) + 1.8))
        axes = figure.add_subplot()
        image = axes.imshow(np.ma.masked_invalid(values), cmap="viridis", vmin=0, vmax=5, aspect="auto")
        axes.set_xticks(range(len(columns)), labels=columns, rotation=30, ha="right")
        axes.set_yticks(range(len(table3)), labels=_row_labels(table3))
        for (i, j), value in np.ndenumerate(values):
            if not math.isnan(value):
                _cell_text(axes, i, j, f"{value:.2f}", dark=value < 2.5)
        figure.colorbar(image, ax=axes, label="mean judge score (0-5)")
        axes.set_title(_judged_by("Mean judge score by theme (Table 3)", judge))
        figure.tight_layout()
        return _save(figure, path)


def trait_bars(table4: pd.DataFrame, path: Path, judge: str = "") -> Path | str:
    """Grouped bars of Table 4: one group per trait, one bar per model x prompt, values written on top.

    The prompts of one model share its hue, lighter for the zero-shot prompt and darker for the
    few-shot one. A mean of 0 is drawn as a thick line on the axis so that it reads as 0, not as
    missing; a missing mean gets "n/a" and no bar. The title names the judge.

    Returns:
        The file, or why it was not drawn.
    """
    if table4.empty:
        return "Table 4 has no rows (no judge scores of explanations)"
    values = table4[list(TRAIT_COLUMNS)].astype(float).to_numpy()
    if not np.isfinite(values).any():
        return "every mean of Table 4 is missing (no item with a trait has a judge score)"
    rows, traits = values.shape
    width = 0.84 / rows
    colours = _paired_colours(table4)
    label_size = 8 if rows <= 4 else 7
    vertical = rows > 4
    with matplotlib.style.context("default"):
        figure = Figure(
            figsize=(min(16.0, max(9.0, 2.2 + traits * (0.42 * rows + 0.5))), 6.0), layout="constrained"
        )
        axes = figure.add_subplot()
        for i, label in enumerate(_row_labels(table4)):
            face, edge = colours[i]
            x = np.arange(traits) + (i - (rows - 1) / 2) * width
            heights = values[i]
            drawn = np.where(np.isfinite(heights), heights, 0.0)
            axes.bar(x, drawn, width * 0.92, label=label, color=face, edgecolor=edge, linewidth=0.8)
            for position, value in zip(x, heights, strict=True):
                if not math.isfinite(value):
                    text, top, colour = "n/a", 0.05, "dimgrey"
                else:
                    text, top, colour = f"{value:.2f}", value + 0.05, "black"
                    if value == 0:
                        axes.hlines(
                            0.0, position - width * 0.46, position + width * 0.46, colors=edge, linewidth=3
                        )
                axes.text(
                    position,
                    top,
                    text,
                    ha="center",
                    va="bottom",
                    fontsize=label_size,
                    color=colour,
                    rotation=90 if vertical else 0,
                )
        names = [name.replace(" ", "\n", 1) if len(name) > 12 else name for name in TRAIT_COLUMNS]
        axes.set_xticks(range(traits), labels=names, fontsize=10)
        axes.set_xlim(-0.5, traits - 0.5)
        axes.set_ylim(-0.08, 5.9 if vertical else 5.5)
        axes.set_yticks(range(6))
        axes.axhline(0, color="black", linewidth=0.8)
        axes.grid(axis="y", color="lightgrey", linewidth=0.6)
        axes.set_axisbelow(True)
        axes.set_ylabel("mean judge score (0-5)", fontsize=10)
        axes.set_title(_judged_by("Mean judge score by complexity trait (Table 4)", judge), fontsize=12)
        figure.legend(loc="outside right upper", fontsize=10, title="model / prompt", title_fontsize=10)
        return _save(figure, path)


Rgb = tuple[float, float, float]


def _paired_colours(table: pd.DataFrame) -> list[tuple[Rgb, Rgb]]:
    """(face, edge) colour per row: one hue per model (and data), a lighter shade for earlier prompts."""
    palette = matplotlib.colormaps["tab10"]
    hue = table["model"].astype(str)
    if "data" in table.columns:
        hue = hue + " / " + table["data"].astype(str)
    models = list(dict.fromkeys(hue))
    prompts_of: dict[str, list[str]] = {}
    for model, prompt in zip(hue, table["prompt"], strict=True):
        prompts_of.setdefault(str(model), []).append(str(prompt))
    colours = []
    for model, prompt in zip(hue, table["prompt"], strict=True):
        base = np.array(to_rgb(palette(models.index(str(model)) % 10)))
        mine = sorted(prompts_of[str(model)], key=lambda p: rank_in(p, PROMPT_ORDER))
        # The last prompt (few-shot) is the full hue; each earlier one mixes in more white.
        steps = len(mine) - 1
        lightness = 0.0 if steps == 0 else 0.55 * (steps - mine.index(str(prompt))) / steps
        face_r, face_g, face_b = (float(c) for c in base + (1 - base) * lightness)
        edge_r, edge_g, edge_b = (float(c) for c in base * 0.75)
        face, edge = (face_r, face_g, face_b), (edge_r, edge_g, edge_b)
        colours.append((face, edge))
    return colours


def agreement_plot(agreements: dict[JudgeKey, Agreement], path: Path) -> Path | str:
    """Cohen's kappa of each judge with the humans, with its 95% interval where one is printed.

    An interval that does not contain its estimate (rounding) is widened to contain it; a judge
    with no interval (too few items) is a point. A judge whose kappa is undefined is left out and
    listed under the plot with the reason.

    Returns:
        The file, or why it was not drawn.
    """
    if not any(_finite(result.kappa) for result in agreements.values()):
        return _no_kappa_reason(agreements)
    with matplotlib.style.context("default"):  # saving reads rcParams too
        return _save(agreement_figure(agreements), path)


def agreement_left_out(agreements: dict[JudgeKey, Agreement]) -> list[str]:
    """One line per judge the agreement plot leaves out because its kappa is undefined."""
    return [
        f"{key.label}: {_kappa_reason(result)}"
        for key, result in agreements.items()
        if not _finite(result.kappa)
    ]


def agreement_figure(agreements: dict[JudgeKey, Agreement]) -> Figure:
    """The agreement plot's figure (at least one judge must have a defined kappa)."""
    keys = [key for key, result in agreements.items() if _finite(result.kappa)]
    left_out = agreement_left_out(agreements)
    footer = 0.22 * (len(left_out) + 1) if left_out else 0.0
    with matplotlib.style.context("default"):
        figure = Figure(figsize=(7.0, 0.5 * len(keys) + 1.5 + footer))
        axes = figure.add_subplot()
        lows: list[float] = []
        for y, key in enumerate(keys):
            result = agreements[key]
            kappa = float(result.kappa)  # type: ignore[arg-type]
            if _finite(result.kappa_lo) and _finite(result.kappa_hi):
                low, high = min(float(result.kappa_lo), kappa), max(float(result.kappa_hi), kappa)  # type: ignore[arg-type]
                lows.append(low)
                error = [[max(0.0, kappa - low)], [max(0.0, high - kappa)]]
                axes.errorbar(kappa, y, xerr=error, fmt="o", color="tab:blue", capsize=4)
            else:
                axes.plot(kappa, y, "o", color="tab:blue")
            lows.append(kappa)
            axes.annotate(
                f"{kappa:.3f} (n={result.n})",
                (kappa, y),
                xytext=(0, 7),
                textcoords="offset points",
                ha="center",
                fontsize=8,
            )
        axes.set_yticks(range(len(keys)), labels=[key.label for key in keys])
        axes.set_ylim(len(keys) - 0.3, -0.7)  # Table 1's order, top to bottom
        axes.set_xlim(min(-0.1, *lows) - 0.05, 1.05)
        axes.axvline(0, color="grey", linewidth=0.8)
        axes.set_xlabel("Cohen's kappa with human scores (95% CI)")
        axes.set_title("Judge-human agreement")
        if left_out:
            text = "Left out, kappa undefined:\n" + "\n".join(left_out)
            figure.text(0.01, 0.01, text, fontsize=7, va="bottom", ha="left")
        figure.tight_layout(rect=(0, footer / (0.5 * len(keys) + 1.5 + footer), 1, 1))
        return figure


def confusion_plot(agreements: dict[JudgeKey, Agreement], path: Path) -> Path | str:
    """One 6x6 confusion matrix per judge: rows human score, columns judge score.

    Returns:
        The file, or why it was not drawn.
    """
    keys = [key for key, result in agreements.items() if result.n > 0]
    if not all(result.confusion for result in agreements.values()):
        return "no confusion matrix: the judges' scale is not declared as ordinal levels"
    if not keys:
        return "no judge scored any item the humans scored"
    cols = min(4, len(keys))
    rows = math.ceil(len(keys) / cols)
    with matplotlib.style.context("default"):
        figure = Figure(figsize=(3.4 * cols, 3.3 * rows))
        for index, key in enumerate(keys):
            axes = figure.add_subplot(rows, cols, index + 1)
            matrix = np.array(agreements[key].confusion)
            axes.imshow(matrix, cmap="Blues", vmin=0, vmax=max(1, int(matrix.max())))
            for (i, j), count in np.ndenumerate(matrix):
                if count:
                    _cell_text(axes, i, j, str(count), dark=count > matrix.max() / 2)
            axes.set_xticks(range(len(SCORES)), labels=[str(s) for s in SCORES])
            axes.set_yticks(range(len(SCORES)), labels=[str(s) for s in SCORES])
            axes.set_xlabel("judge score")
            axes.set_ylabel("human score")
            axes.set_title(key.label, fontsize=8)
        figure.suptitle("Human (rows) against judge (columns)")
        figure.tight_layout()
        return _save(figure, path)


def _cell_text(axes: Axes, row: int, column: int, text: str, *, dark: bool) -> None:
    """A heatmap cell's value, written in its middle: white on a dark cell."""
    axes.text(column, row, text, ha="center", va="center", fontsize=8, color="white" if dark else "black")


def _finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)


def _no_kappa_reason(agreements: dict[JudgeKey, Agreement]) -> str:
    if not agreements:
        return "no judge could be compared with the humans (see Table 1's notes)"
    reasons = [f"{key.label}: {_kappa_reason(result)}" for key, result in agreements.items()]
    return "every judge's kappa with the humans is undefined (" + "; ".join(reasons) + ")"


def _kappa_reason(result: Agreement) -> str:
    return next(
        (
            note
            for note in result.notes
            if note.startswith(("kappa undefined", "only 1 paired", "no items scored"))
        ),
        "kappa undefined",
    )
