"""The self-preference card: each judge's excess score of each generator, who is flagged, its files.

Built by [`vivid_inspect.lab.self_preference.run`][vivid_inspect.lab.self_preference.run]; printed by ``vivid audit --from LOG_DIR`` and
written as ``self_preference.md`` and ``self_preference.csv``.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from vivid_inspect.atomic_write import write_atomic
from vivid_inspect.lab.audit.family import NO_FAMILY
from vivid_inspect.lab.humans.sheet_files import neutralise
from vivid_inspect.lab.report.tables.render import Table, to_csv

MARKDOWN_FILE = "self_preference.md"
CSV_FILE = "self_preference.csv"
EXIT_CLEAR, EXIT_FLAGGED = 0, 1


class SelfPreferenceError(ValueError):
    """The folder cannot answer the question: no logs, too few judges or generators, or inseparable cells.

    Inseparable: a generator with no item every judge scored, own-family cells the other cells
    cannot separate, fewer than three judges (their scales cannot be told from their noise), or
    scores that do not vary enough to fit a judge's scale.
    """


@dataclass(frozen=True)
class Participant:
    """A judge or a generator of the estimate.

    Attributes:
        label: How the card names it (``judge_aspect [openai/gpt-4.1]``, ``openai/gpt-4o``).
        model: Its model; None for a judge that calls none (lexical, panel).
        family: Its family; `NO_FAMILY` for none, None when unknown.
        source: Where the family came from: ``declared``, ``inferred`` or ``unknown``.
        key: A generator's generation key (`vivid_inspect.generation_key.Generation.key`);
            empty for a judge.
        data: A generator's data (its name), empty for a judge.
    """

    label: str
    model: str | None
    family: str | None
    source: str
    key: str = ""
    data: str = ""

    @property
    def has_family(self) -> bool:
        """Whether it belongs to a family that can be its own (not none, not unknown)."""
        return self.family is not None and self.family != NO_FAMILY


@dataclass(frozen=True)
class JudgeFit:
    """What the fit says of one judge.

    Attributes:
        label: The judge's label.
        leniency: Its latent score of the average generator (score points, before the 0-5 bound).
        scale: How widely it spreads what it sees, relative to the judges' geometric mean (1.00):
            1.40 spreads both generators and items 1.4 times as widely.
        scale_low: Lower end of the scale's 95 % interval (None with too few items).
        scale_high: Upper end.
        noise: Its noise, the standard deviation of its scores of one item around what the
            item's quality predicts, averaged over the generators.
    """

    label: str
    leniency: float
    scale: float
    scale_low: float | None
    scale_high: float | None
    noise: float


@dataclass(frozen=True)
class GeneratorFit:
    """What the fit says of one generator.

    Attributes:
        label: The generator's label.
        quality: Its latent quality, in score points of a judge of scale 1, centred on 0.
        spread: How much its items differ (standard deviation, same units).
        n_items: Items every judge scored (epochs of one sample are items of their own).
        left_out: Items some judges scored but not all, left out.
    """

    label: str
    quality: float
    spread: float
    n_items: int
    left_out: int


@dataclass(frozen=True)
class CellResult:
    """One (judge, generator) cell.

    Attributes:
        judge: The judge's label.
        generator: The generator's label.
        mean: The judge's mean score of the generator's items every judge scored.
        expected: The mean score the fitted leniency, scale and quality give the cell without a
            shift of its own (the 0-5 bound and rounding included); None where the fit cannot
            predict it.
        excess: For a cell that may hold self-preference (own or unknown family), its shift:
            how much higher the judge scores the generator than leniency, scale and quality
            predict, in score points before the 0-5 bound (the self-preference estimate of an
            own-family cell). For a fitted cell, ``mean - expected``: how far the model misses
            it. None where the fit does not determine it.
        ci_low: Lower end of the excess's 95 % interval (None with too few items or no excess).
        ci_high: Upper end.
        own_family: Whether judge and generator share a family.
        in_fit: Whether the cell is one leniency, scale and quality are fitted on (judge and
            generator known to be of different families, or either of none).
        flag_low: Lower end of the interval a flag needs: the own-family cells are flagged jointly
            at 5 % (Holm's step-down: the clearest at ``1 - 0.05/k``, the next at ``1 - 0.05/(k-1)``
            once the first is flagged, ...; the 95 % interval itself when there is one such cell).
            None for other cells and with too few items.
        flag_high: Its upper end.
        flagged: Own family and the flag's interval above 0.
        n_items: Items the cell's mean is over (the generator's items every judge scored).
    """

    judge: str
    generator: str
    mean: float
    expected: float | None
    excess: float | None
    ci_low: float | None
    ci_high: float | None
    own_family: bool
    in_fit: bool
    flag_low: float | None
    flag_high: float | None
    flagged: bool
    n_items: int = 0


@dataclass(frozen=True)
class SelfPreferenceCard:
    """Each judge's excess score of each generator in one folder, and which judges are flagged.

    Attributes:
        source: The log folder (or what the scores came from).
        judges: The judges, in the card's row order.
        generators: The generators, in column order.
        cells: One per (judge, generator), judges outer.
        judge_fits: Each judge's fitted leniency, scale and noise, in row order.
        generator_fits: Each generator's fitted quality and items, in column order.
        min_items: Fewest items for which intervals are printed and flags raised.
        notes: What else the reader must know (rows left out, unknown families).
        files: Files written (empty until `write`).
    """

    source: str
    judges: tuple[Participant, ...]
    generators: tuple[Participant, ...]
    cells: tuple[CellResult, ...]
    judge_fits: tuple[JudgeFit, ...]
    generator_fits: tuple[GeneratorFit, ...]
    min_items: int
    notes: tuple[str, ...] = ()
    files: tuple[Path, ...] = field(default=())

    @property
    def n_items(self) -> int:
        """Fewest items of a generator that every judge scored."""
        return min((fit.n_items for fit in self.generator_fits), default=0)

    @property
    def left_out(self) -> int:
        """Items scored by some judges of a generator but not all, left out, over every generator."""
        return sum(fit.left_out for fit in self.generator_fits)

    @property
    def has_intervals(self) -> bool:
        """Whether every generator has enough items for the intervals (and so for a flag)."""
        return self.n_items >= self.min_items

    @property
    def flagged(self) -> tuple[CellResult, ...]:
        """The flagged cells."""
        return tuple(cell for cell in self.cells if cell.flagged)

    @property
    def exit_code(self) -> int:
        """0 when no judge is flagged, 1 when one is."""
        return EXIT_FLAGGED if self.flagged else EXIT_CLEAR

    def cell(self, judge: str, generator: str) -> CellResult:
        """The cell of one judge and one generator, by label."""
        for cell in self.cells:
            if cell.judge == judge and cell.generator == generator:
                return cell
        raise KeyError((judge, generator))

    def judge_fit(self, judge: str) -> JudgeFit:
        """The fit of one judge, by label."""
        return next(fit for fit in self.judge_fits if fit.label == judge)

    def rows(self) -> list[dict[str, Any]]:
        """One row per cell, with its judge's leniency and scale and its generator's quality: the CSV."""
        judges = {p.label: p for p in self.judges}
        generators = {p.label: p for p in self.generators}
        judge_fits = {fit.label: fit for fit in self.judge_fits}
        generator_fits = {fit.label: fit for fit in self.generator_fits}
        rows = []
        for cell in self.cells:
            judge, generator = judge_fits[cell.judge], generator_fits[cell.generator]
            rows.append(
                {
                    "judge": cell.judge,
                    "judge_family": judges[cell.judge].family,
                    "leniency": judge.leniency,
                    "scale": judge.scale,
                    "scale_ci_low": judge.scale_low,
                    "scale_ci_high": judge.scale_high,
                    "noise": judge.noise,
                    "generator": cell.generator,
                    "generator_family": generators[cell.generator].family,
                    "generation": generators[cell.generator].key,
                    "data": generators[cell.generator].data,
                    "quality": generator.quality,
                    "n_items": cell.n_items,
                    "mean": cell.mean,
                    "expected": cell.expected,
                    "excess": cell.excess,
                    "ci_low": cell.ci_low,
                    "ci_high": cell.ci_high,
                    "own_family": cell.own_family,
                    "in_fit": cell.in_fit,
                    "flag_ci_low": cell.flag_low,
                    "flag_ci_high": cell.flag_high,
                    "flagged": cell.flagged,
                }
            )
        return rows

    @property
    def n_tested(self) -> int:
        """Own-family cells: the ones a flag can come from."""
        return sum(cell.own_family for cell in self.cells)

    def markdown(self) -> str:
        """The card: verdict, excess table, judges' leniency and scale, mean scores, families, notes."""
        lines = ["## Self-preference: does a judge favour its own model family?", ""]
        if self.flagged:
            lines += [
                f"**Flagged**: {cell.judge} scores {cell.generator}, of its own family, "
                f"{signed_text(cell.excess)} [{signed_text(cell.flag_low)}, {signed_text(cell.flag_high)}] "
                "above what its leniency, its scale and the generator's quality predict."
                for cell in self.flagged
            ]
        elif not self.n_tested:
            lines.append("No judge is flagged: no judge shares a family with a generator, so none can be.")
        elif not self.has_intervals:
            lines.append(
                f"No judge is flagged: too few items for a 95 % interval (n={self.n_items}; "
                f"{self.min_items} items of every generator are needed), so none can be."
            )
        else:
            lines.append(
                "No judge is flagged: no judge scores a generator of its own family above what its "
                "leniency, its scale and the generator's quality predict, beyond the interval."
            )
        joint = (
            f" Flags are made jointly at 5 % over the {self.n_tested} own-family cells (Holm: the clearest cell "
            f"at {100 - 5 / self.n_tested:.2f} %, the next at {100 - 5 / (self.n_tested - 1):.2f} % once the "
            "first is flagged, and so on to 95 %); the interval each cell was held to is shown after `own`."
            if self.n_tested > 1
            else ""
        )
        items = ", ".join(f"{fit.label} {fit.n_items}" for fit in self.generator_fits)
        lines += [
            "",
            "How to read it: each judge reads an item's quality through its leniency (where it starts) "
            "and its scale (how widely it spreads what it sees); the scales come from how the judges' "
            "scores of the same items vary together, leniency and the generators' quality from the "
            "cells where judge and generator are of different families (assumed free of "
            "self-preference). A cell's excess is what remains: for a judge's own family, its "
            "self-preference in score points before the 0-5 bound; for the other cells, how far the "
            "fit misses the cell's mean (near 0 when it fits). A lenient judge, or one that spreads "
            "its scores widely, has no excess.",
            "",
            f"Items every judge scored, per generator: {items} ({self.left_out} left out: not scored by "
            f"every judge). Intervals: 95 %, Wald with the variance over items (an item of the data "
            f"counts once across generators and epochs), printed from {self.min_items} items. Own "
            f"family: `own`; flagged: `FLAGGED`; a shift of its own as its family is unknown: "
            f"`unknown`; n/a: the fit cannot predict the cell.{joint}",
            "",
            *self._matrix("excess [95 % CI]", lambda cell: _excess_text(cell, self.n_tested > 1)),
            "",
            *self._judges_table(),
            "",
            *self._matrix("mean score", lambda cell: f"{cell.mean:.2f}", means=True),
            "",
            "Families: "
            + "; ".join(
                f"{p.label}: {p.family or 'unknown'} ({p.source})" for p in (*self.judges, *self.generators)
            )
            + ".",
        ]
        extra = list(self.notes)
        if not self.has_intervals:
            extra.insert(0, f"too few items for a 95 % interval (n={self.n_items}): no interval, no flag")
        if extra:
            lines += ["", *(f"- {note}" for note in extra)]
        return "\n".join(lines).rstrip("\n") + "\n"

    def _judges_table(self) -> list[str]:
        lines = ["| judge | leniency | scale [95 % CI] | noise |", "|---|---:|---:|---:|"]
        for fit in self.judge_fits:
            ci = "" if fit.scale_low is None else f" [{fit.scale_low:.2f}, {fit.scale_high:.2f}]"
            lines.append(f"| {_md(fit.label)} | {fit.leniency:.2f} | {fit.scale:.2f}{ci} | {fit.noise:.2f} |")
        return lines

    def _matrix(self, title: str, text: Any, *, means: bool = False) -> list[str]:
        header = [title, *(f"{g.label} ({g.family or 'unknown'})" for g in self.generators)]
        if means:
            header.append("judge mean")
        lines = ["| " + " | ".join(_md(h) for h in header) + " |", "|---" + "|---:" * (len(header) - 1) + "|"]
        for judge in self.judges:
            row = [self.cell(judge.label, g.label) for g in self.generators]
            cells = [text(cell) for cell in row]
            if means:
                cells.append(f"{float(np.mean([cell.mean for cell in row])):.2f}")
            lines.append(
                "| "
                + " | ".join(_md(c) for c in [f"{judge.label} ({judge.family or 'unknown'})", *cells])
                + " |"
            )
        if means:
            columns = [
                float(np.mean([self.cell(j.label, g.label).mean for j in self.judges]))
                for g in self.generators
            ]
            overall = float(np.mean(columns))
            lines.append(
                "| " + " | ".join(["generator mean", *(f"{v:.2f}" for v in columns), f"{overall:.2f}"]) + " |"
            )
        return lines

    def write(self, out_dir: str | os.PathLike[str]) -> SelfPreferenceCard:
        """Write ``self_preference.md`` and ``self_preference.csv`` into ``out_dir``, atomically.

        Returns:
            The card with `files` set.

        Raises:
            SelfPreferenceError: If ``out_dir`` is a file or cannot be created.
        """
        out = Path(out_dir)
        if out.exists() and not out.is_dir():
            raise SelfPreferenceError(f"output folder {str(out)!r} is a file, not a folder")
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise SelfPreferenceError(
                f"output folder {str(out)!r} cannot be created: {error.strerror}"
            ) from None
        # Names come from logs: a spreadsheet must show a model named "=HYPERLINK(...)", not run it.
        rows = [
            {k: neutralise(v) if isinstance(v, str) else v for k, v in row.items()} for row in self.rows()
        ]
        table = Table(name="self_preference", title="Self-preference", frame=pd.DataFrame(rows))
        files = (out / MARKDOWN_FILE, out / CSV_FILE)
        write_atomic(files[0], self.markdown())
        write_atomic(files[1], to_csv(table))
        return replace(self, files=files)


def _excess_text(cell: CellResult, joint: bool) -> str:
    ci = "" if cell.ci_low is None else f" [{signed_text(cell.ci_low)}, {signed_text(cell.ci_high)}]"
    marks = " own" if cell.own_family else "" if cell.in_fit else " unknown"
    if joint and cell.flag_low is not None:
        marks += f" [{signed_text(cell.flag_low)}, {signed_text(cell.flag_high)}]"
    marks += " FLAGGED" if cell.flagged else ""
    return f"{signed_text(cell.excess)}{ci}{marks}"


def signed_text(value: float | None) -> str:
    """A signed value with two decimals (``+0.42``; ``+0.00``, never ``-0.00``), ``n/a`` for None or NaN."""
    if value is None or math.isnan(value):
        return "n/a"
    text = f"{value:+.2f}"
    return "+0.00" if text == "-0.00" else text


def _md(text: str) -> str:
    # One table cell, whatever a log's model name holds.
    return " ".join(text.split()).replace("|", "\\|")
