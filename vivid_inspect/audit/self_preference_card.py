"""The self-preference card: each judge's excess score of each generator, who is flagged, its files.

Built by :mod:`vivid_inspect.audit.self_preference`; printed by ``vivid audit --from LOG_DIR`` and
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

from vivid_inspect.audit.family import NO_FAMILY
from vivid_inspect.report.render import Table, to_csv

MARKDOWN_FILE = "self_preference.md"
CSV_FILE = "self_preference.csv"
EXIT_CLEAR, EXIT_FLAGGED = 0, 1


class SelfPreferenceError(ValueError):
    """The folder cannot answer the question: no logs, too few judges or generators, or inseparable cells.

    Inseparable: no item scored in every cell, or own-family cells the other cells cannot separate.
    """


@dataclass(frozen=True)
class Participant:
    """A judge or a generator of the estimate.

    Attributes:
        label: How the card names it (``judge_aspect [openai/gpt-4.1]``, ``openai/gpt-4o``).
        model: Its model; None for a judge that calls none (lexical, panel).
        family: Its family; :data:`~vivid_inspect.audit.family.NO_FAMILY` for none, None when unknown.
        source: Where the family came from: ``declared``, ``inferred`` or ``unknown``.
    """

    label: str
    model: str | None
    family: str | None
    source: str

    @property
    def has_family(self) -> bool:
        """Whether it belongs to a family that can be its own (not none, not unknown)."""
        return self.family is not None and self.family != NO_FAMILY


@dataclass(frozen=True)
class CellResult:
    """One (judge, generator) cell.

    Attributes:
        judge: The judge's label.
        generator: The generator's label.
        mean: ``m[j, g]``, the judge's mean score of the generator on the shared items.
        expected: ``mu + a[j] + b[g]``, what the judge's leniency and the generator's quality,
            fitted on the cells of different families, predict; None where the fit cannot.
        excess: ``mean − expected``: for an own-family cell, the self-preference estimate; for a
            fitted cell, how far the additive model misses it. None where ``expected`` is.
        ci_low: Lower end of the excess's 95 % interval (None with a single item or no excess).
        ci_high: Upper end.
        own_family: Whether judge and generator share a family.
        in_fit: Whether the cell is one the leniency and quality are fitted on (judge and
            generator known to be of different families, or either of none).
        flag_low: Lower end of the interval a flag needs: the own-family cells' intervals hold
            jointly at 95 % (Bonferroni; the 95 % interval itself when there is one such cell).
            None for other cells and with a single item.
        flag_high: Its upper end.
        flagged: Own family and the flag's interval above 0.
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


@dataclass(frozen=True)
class SelfPreferenceCard:
    """Each judge's excess score of each generator in one folder, and which judges are flagged.

    Attributes:
        source: The log folder (or what the scores came from).
        judges: The judges, in the card's row order.
        generators: The generators, in column order.
        cells: One per (judge, generator), judges outer.
        n_items: Items every cell scored (the ones every mean is over).
        left_out: Items scored by some cells but not all, left out.
        seed: Seed of the bootstrap.
        n_boot: Bootstrap resamples.
        notes: What else the reader must know (rows left out, unknown families).
        files: Files written (empty until :meth:`write`).
    """

    source: str
    judges: tuple[Participant, ...]
    generators: tuple[Participant, ...]
    cells: tuple[CellResult, ...]
    n_items: int
    left_out: int
    seed: int
    n_boot: int
    notes: tuple[str, ...] = ()
    files: tuple[Path, ...] = field(default=())

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

    def rows(self) -> list[dict[str, Any]]:
        """One row per cell: the CSV."""
        judges = {p.label: p for p in self.judges}
        generators = {p.label: p for p in self.generators}
        return [
            {
                "judge": cell.judge,
                "judge_family": judges[cell.judge].family,
                "generator": cell.generator,
                "generator_family": generators[cell.generator].family,
                "n_items": self.n_items,
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
            for cell in self.cells
        ]

    @property
    def n_tested(self) -> int:
        """Own-family cells: the ones a flag can come from."""
        return sum(cell.own_family for cell in self.cells)

    def markdown(self) -> str:
        """The card: verdict, excess table, mean score table, how to read them, families, notes."""
        lines = ["## Self-preference: does a judge favour its own model family?", ""]
        if self.flagged:
            lines += [
                f"**Flagged**: {cell.judge} scores {cell.generator}, of its own family, "
                f"{_signed(cell.excess)} [{_signed(cell.flag_low)}, {_signed(cell.flag_high)}] "
                "above what its leniency and the generator's quality predict."
                for cell in self.flagged
            ]
        elif self.n_tested:
            lines.append(
                "No judge is flagged: no judge scores a generator of its own family above what its "
                "leniency and the generator's quality predict, beyond the interval."
            )
        else:
            lines.append("No judge is flagged: no judge shares a family with a generator, so none can be.")
        joint = (
            f" A flag needs the interval above 0 jointly over the {self.n_tested} own-family cells (each at "
            f"{100 - 5 / self.n_tested:.2f} %, Bonferroni), shown after `own`."
            if self.n_tested > 1
            else ""
        )
        lines += [
            "",
            "How to read it: each judge's leniency and each generator's quality are estimated only from "
            "the cells where judge and generator are of different families (assumed free of "
            "self-preference), as mean = overall + leniency + quality, by least squares. A cell's "
            "excess is its mean score minus that prediction: for a judge's own family it is the "
            "self-preference estimate, which no other judge's preference can move; for the other cells "
            "it shows how well the prediction fits (near 0 when it does). A lenient judge, high on "
            "every generator, has no excess.",
            "",
            f"Means over {self.n_items} items scored in every cell ({self.left_out} left out: not scored in "
            f"every cell); paired bootstrap 95 % interval over items, {self.n_boot} resamples, seed "
            f"{self.seed}, every cell and the fit recomputed on each. Own family: `own`; flagged: "
            f"`FLAGGED`; left out of the fit as its family is unknown: `unknown`; n/a: the fit cannot "
            f"predict the cell.{joint}",
            "",
            *self._matrix("excess [95 % CI]", lambda cell: _excess_text(cell, self.n_tested > 1)),
            "",
            *self._matrix("mean score", lambda cell: f"{cell.mean:.2f}", means=True),
            "",
            "Families: "
            + "; ".join(
                f"{p.label}: {p.family or 'unknown'} ({p.source})" for p in (*self.judges, *self.generators)
            )
            + ".",
        ]
        if self.notes:
            lines += ["", *(f"- {note}" for note in self.notes)]
        return "\n".join(lines).rstrip("\n") + "\n"

    def _matrix(self, title: str, text: Any, *, means: bool = False) -> list[str]:
        header = [title, *(f"{g.label} ({g.family or 'unknown'})" for g in self.generators)]
        if means:
            header.append("judge mean")
        lines = [
            "| " + " | ".join(_md(h) for h in header) + " |",
            "|---" + "|---:" * (len(header) - 1) + "|",
        ]
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
            The card with :attr:`files` set.

        Raises:
            SelfPreferenceError: If ``out_dir`` is a file or cannot be created.
        """
        from vivid_inspect.atomic_write import write_atomic
        from vivid_inspect.report.sheet_files import neutralise

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
    ci = "" if cell.ci_low is None else f" [{_signed(cell.ci_low)}, {_signed(cell.ci_high)}]"
    marks = " own" if cell.own_family else "" if cell.in_fit else " unknown"
    if joint and cell.flag_low is not None:
        marks += f" [{_signed(cell.flag_low)}, {_signed(cell.flag_high)}]"
    marks += " FLAGGED" if cell.flagged else ""
    return f"{_signed(cell.excess)}{ci}{marks}"


def _signed(value: float | None) -> str:
    if value is None or math.isnan(value):
        return "n/a"
    text = f"{value:+.2f}"
    return "+0.00" if text == "-0.00" else text


def _md(text: str) -> str:
    # One table cell, whatever a log's model name holds.
    return " ".join(text.split()).replace("|", "\\|")
