"""The report's figures (PNG): theme heatmap, per-trait bars, judge-human agreement, confusion matrices.

Figures are drawn without pyplot (no global state, no display needed) on matplotlib's Agg
canvas, in matplotlib's default style whatever the user's settings, at a fixed DPI and without
the "Software" text chunk, so the same tables give byte-identical files.
"""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib
import matplotlib.style
import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from vivid_inspect.report.agreement import SCORES, Agreement
from vivid_inspect.report.judges import JudgeKey
from vivid_inspect.report.tables import AVERAGE, THEME_COLUMNS, TRAIT_COLUMNS

DPI = 100
_PNG_METADATA: dict[str, str | None] = {"Software": None}


def _save(figure: Figure, path: Path) -> Path:
    FigureCanvasAgg(figure)
    figure.savefig(path, dpi=DPI, format="png", metadata=_PNG_METADATA)
    return path


def _row_labels(frame: pd.DataFrame) -> list[str]:
    return [f"{model} / {prompt}" for model, prompt in zip(frame["model"], frame["prompt"], strict=True)]


def theme_heatmap(table3: pd.DataFrame, path: Path) -> Path | None:
    """Model x prompt against theme heatmap of Table 3 (mean judge score, 0-5), values written in.

    Returns:
        The file, or None when the table has no rows.
    """
    if table3.empty:
        return None
    columns = [*THEME_COLUMNS, AVERAGE]
    values = table3[columns].astype(float).to_numpy()
    with matplotlib.style.context("default"):
        figure = Figure(figsize=(1.0 * len(columns) + 3.5, 0.4 * len(table3) + 1.8))
        axes = figure.add_subplot()
        image = axes.imshow(np.ma.masked_invalid(values), cmap="viridis", vmin=0, vmax=5, aspect="auto")
        axes.set_xticks(range(len(columns)), labels=columns, rotation=30, ha="right")
        axes.set_yticks(range(len(table3)), labels=_row_labels(table3))
        for (i, j), value in np.ndenumerate(values):
            if not math.isnan(value):
                axes.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=8, color="white" if value < 2.5 else "black")
        figure.colorbar(image, ax=axes, label="mean judge score (0-5)")
        axes.set_title("Mean judge score by theme (Table 3)")
        figure.tight_layout()
        return _save(figure, path)


def trait_bars(table4: pd.DataFrame, path: Path) -> Path | None:
    """Grouped bars of Table 4: one group per trait, one bar per model x prompt.

    Returns:
        The file, or None when the table has no rows.
    """
    if table4.empty:
        return None
    values = table4[list(TRAIT_COLUMNS)].astype(float).to_numpy()
    rows, traits = values.shape
    width = 0.8 / rows
    with matplotlib.style.context("default"):
        figure = Figure(figsize=(12.0, 5.0))
        axes = figure.add_subplot()
        colors = matplotlib.colormaps["tab20"].resampled(max(rows, 2))
        for i, label in enumerate(_row_labels(table4)):
            heights = np.nan_to_num(values[i], nan=0.0)
            axes.bar(np.arange(traits) + (i - (rows - 1) / 2) * width, heights, width, label=label, color=colors(i))
        axes.set_xticks(range(traits), labels=list(TRAIT_COLUMNS))
        axes.set_ylim(0, 5)
        axes.set_ylabel("mean judge score (0-5)")
        axes.set_title("Mean judge score by complexity trait (Table 4)")
        axes.legend(fontsize=7, ncols=2 if rows > 8 else 1, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        figure.tight_layout()
        return _save(figure, path)


def agreement_plot(agreements: dict[JudgeKey, Agreement], path: Path) -> Path | None:
    """Cohen's kappa of each judge with the humans, with its 95% bootstrap interval.

    Returns:
        The file, or None when no judge has a defined kappa.
    """
    keys = [key for key, result in agreements.items() if result.kappa is not None]
    if not keys:
        return None
    with matplotlib.style.context("default"):
        figure = Figure(figsize=(7.0, 0.5 * len(keys) + 1.5))
        axes = figure.add_subplot()
        for y, key in enumerate(keys):
            result = agreements[key]
            kappa = float(result.kappa)  # type: ignore[arg-type]
            if result.kappa_lo is not None and result.kappa_hi is not None:
                error = [[kappa - result.kappa_lo], [result.kappa_hi - kappa]]
                axes.errorbar(kappa, y, xerr=error, fmt="o", color="tab:blue", capsize=4)
            else:
                axes.plot(kappa, y, "o", color="tab:blue")
            axes.annotate(f"{kappa:.3f} (n={result.n})", (kappa, y), xytext=(0, 7), textcoords="offset points", ha="center", fontsize=8)
        axes.set_yticks(range(len(keys)), labels=[key.label for key in keys])
        axes.set_ylim(len(keys) - 0.3, -0.7)  # Table 1's order, top to bottom
        axes.set_xlim(min(-0.1, *(agreements[k].kappa_lo or 0 for k in keys)) - 0.05, 1.05)
        axes.axvline(0, color="grey", linewidth=0.8)
        axes.set_xlabel("Cohen's kappa with human scores (95% bootstrap CI)")
        axes.set_title("Judge-human agreement")
        figure.tight_layout()
        return _save(figure, path)


def confusion_plot(agreements: dict[JudgeKey, Agreement], path: Path) -> Path | None:
    """One 6x6 confusion matrix per judge: rows human score, columns judge score.

    Returns:
        The file, or None when no judge shares items with the humans.
    """
    keys = [key for key, result in agreements.items() if result.n > 0]
    if not keys:
        return None
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
                    dark = count > matrix.max() / 2
                    axes.text(j, i, str(count), ha="center", va="center", fontsize=8, color="white" if dark else "black")
            axes.set_xticks(range(len(SCORES)), labels=[str(s) for s in SCORES])
            axes.set_yticks(range(len(SCORES)), labels=[str(s) for s in SCORES])
            axes.set_xlabel("judge score")
            axes.set_ylabel("human score")
            axes.set_title(key.label, fontsize=8)
        figure.suptitle("Human (rows) against judge (columns)")
        figure.tight_layout()
        return _save(figure, path)
