"""The audit's forest plot (``audit_shifts.png``): each probe's shift and mean with its interval.

One row per probe, two panels sharing the rows. The left panel shows the shift against the
comparison (``probe - comparison``) with its paired interval; the right one the probe's
own mean score with its interval. The statistic that decides a probe's verdict is drawn filled, in
the verdict's colour, over a band marking its accepted range; the other one is drawn hollow and
grey, for information. The figure is drawn like the report's (`vivid_inspect.lab.report.plots`):
without pyplot, in matplotlib's default style, at a fixed DPI and without the "Software" chunk, so
the same card gives the same bytes. Every text is wrapped to the width it has, so none runs past the
canvas (``tests/lab/audit/test_audit_card.py`` checks each text's extent on long names).
"""

from __future__ import annotations

import io
import math
import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING

from vivid_inspect.lab.audit.verdicts import EXPECTS, OWN_SCORE, ProbeResult, share_text
from vivid_inspect.scorers.judge_parse import MAX_SCORE

# matplotlib is imported where a plot is drawn: the report and `vivid audit --plan` read cards
# without drawing one.
if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

DPI = 100
WIDTH = 12.0
"""Figure width in inches; the texts are wrapped to fit it."""
_CHARS_PER_INCH = 11  # DejaVu Sans at 10 pt averages under 7 px a character at 100 dpi
COLOURS = {"pass": "#1a9850", "fail": "#d73027", "inconclusive": "#f28e2b"}
"""Verdict colours: green, red, orange (told apart by lightness as well as hue)."""
_INFO = "#9e9e9e"
_BAND = "#1a9850"


def label(result: ProbeResult) -> str:
    """A row's label: the probe and what it expects (``padding: not higher than partial``)."""
    return f"{result.probe}: {EXPECTS[result.expectation].format(c=result.comparison)}"


def render_png(results: Sequence[ProbeResult], confidence: float, title: str) -> bytes:
    """The forest plot of an audit card's probes, as PNG bytes.

    Args:
        results: The card's probe results (at least one).
        confidence: The card's confidence level (0.95), named on the axes.
        title: The figure's title (the card's judge and data).

    Returns:
        The PNG file's bytes.
    """
    import matplotlib.style

    with matplotlib.style.context("default"):
        figure = build_figure(results, confidence, title)
        buffer = io.BytesIO()
        figure.savefig(buffer, dpi=DPI, format="png", metadata={"Software": None})
    return buffer.getvalue()


def _wrap(text: str, inches: float) -> str:
    return textwrap.fill(text, width=max(20, int(inches * _CHARS_PER_INCH)), break_on_hyphens=False)


def build_figure(results: Sequence[ProbeResult], confidence: float, title: str) -> Figure:
    """The forest plot as a matplotlib figure, drawn on an Agg canvas (call in a style context).

    Args:
        results: The card's probe results (at least one).
        confidence: The card's confidence level.
        title: The figure's title.

    Returns:
        The figure.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    rows = len(results)
    figure = Figure(figsize=(WIDTH, 0.5 * rows + 2.6), layout="constrained")
    FigureCanvasAgg(figure)
    shift_axes, mean_axes = figure.subplots(1, 2, sharey=True, width_ratios=(3, 2))
    for index, result in enumerate(results):
        y = rows - 1 - index
        decides_mean = result.expectation in OWN_SCORE
        _row(shift_axes, y, result, result.shift, (result.ci_low, result.ci_high), not decides_mean)
        _row(mean_axes, y, result, result.mean, (result.mean_ci_low, result.mean_ci_high), decides_mean)
    shift_axes.axvline(0.0, color="black", linewidth=0.8)
    shift_axes.set_xlim(*_shift_limits(results))
    level = share_text(confidence)
    # The labels are wrapped to their panel's share of the width (the tick labels take about a
    # quarter of it), so the right one no longer runs past the canvas.
    shift_axes.set_xlabel(
        _wrap(
            f"shift: probe − comparison over the paired items (0-{MAX_SCORE} points), {level} CI",
            WIDTH * 0.55,
        )
    )
    mean_axes.set_xlim(-0.2, MAX_SCORE + 0.2)
    mean_axes.set_xlabel(
        _wrap(f"probe's own mean over its scored items (0-{MAX_SCORE}), {level} CI", WIDTH * 0.28)
    )
    shift_axes.set_yticks(range(rows), labels=[_wrap(label(r), WIDTH * 0.32) for r in reversed(results)])
    shift_axes.set_ylim(-0.6, rows - 0.4)
    for axes in (shift_axes, mean_axes):
        axes.grid(axis="x", color="#e0e0e0", linewidth=0.6)
        axes.set_axisbelow(True)
    handles = [
        Line2D([], [], marker="o", linestyle="", color=colour, label=verdict)
        for verdict, colour in COLOURS.items()
    ] + [
        Line2D([], [], marker="o", linestyle="", markerfacecolor="white", color=_INFO, label="not decisive"),
        Patch(color=_BAND, alpha=0.15, label="accepted range"),
    ]
    figure.legend(handles=handles, loc="outside lower center", ncols=len(handles), frameon=False)
    figure.suptitle(_wrap(title, WIDTH * 0.95))
    return figure


def _row(
    axes: Axes, y: float, result: ProbeResult, value: float, interval: tuple[float, float], decides: bool
) -> None:
    """One probe's point and interval on one panel; the band of its accepted range when it decides."""
    if decides:
        low = max(result.bound_low, -MAX_SCORE - 0.5)
        axes.fill_betweenx([y - 0.35, y + 0.35], low, result.bound_high, color=_BAND, alpha=0.15, linewidth=0)
        # The band's open ends (-5, 0, 5) are the scale's edges; only the others are decision bounds.
        bounds = [b for b in (result.bound_low, result.bound_high) if b not in (0.0, MAX_SCORE, -MAX_SCORE)]
        axes.vlines(bounds, y - 0.35, y + 0.35, colors=_BAND, linestyles="--", linewidth=1.0)
    if math.isnan(value):
        text = "no comparison" if result.comparison is None else "n/a"
        axes.text(0.5, y, text, transform=axes.get_yaxis_transform(), ha="center", va="center", color=_INFO)
        return
    colour = COLOURS[result.verdict] if decides else _INFO
    low, high = interval
    error = None if math.isnan(low) else [[value - low], [high - value]]
    axes.errorbar(
        [value],
        [y],
        xerr=error,
        fmt="o",
        color=colour,
        markerfacecolor=colour if decides else "white",
        markersize=7 if decides else 5,
        capsize=3,
        linewidth=1.6 if decides else 1.0,
    )


def _shift_limits(results: Sequence[ProbeResult]) -> tuple[float, float]:
    """Room for every finite shift, interval and bound, with a margin, within ±5 points."""
    ends = [0.0]
    for r in results:
        ends += [v for v in (r.shift, r.ci_low, r.ci_high) if not math.isnan(v)]
        if r.expectation not in OWN_SCORE:
            ends += [v for v in (r.bound_low, r.bound_high) if abs(v) < MAX_SCORE]
    low, high = min(ends) - 0.5, max(ends) + 0.5
    return max(low, -MAX_SCORE - 0.5), min(high, MAX_SCORE + 0.5)
