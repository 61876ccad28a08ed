"""Report tables and their text forms: markdown, CSV and LaTeX, byte-identical for the same input.

Every number is formatted with a fixed number of decimals (the table's own for markdown and
LaTeX, four for CSV so the files keep more precision than the printed report); a missing value is
an empty cell. Rows and columns are in the order the table builder gave, which is always an
explicit sort, never a dict's or a groupby's accident.

A wide table may name the columns its markdown shows (`Table.terminal`): the markdown is
what ``vivid report`` prints, and a terminal cannot show 35 columns. Its CSV and LaTeX keep every
column, and the markdown says so under the table.
"""

from __future__ import annotations

import csv
import io
import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import pandas as pd

Format = Literal["md", "csv", "tex"]
FORMATS: tuple[Format, ...] = ("md", "csv", "tex")
CSV_DECIMALS = 4

_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


@dataclass(frozen=True)
class Table:
    """One table of the report.

    Attributes:
        name: File stem (``table3_themes``) and LaTeX label.
        title: Heading in the markdown report and LaTeX caption.
        frame: The rows, in order; numbers as floats/ints, missing as None or NaN.
        decimals: Decimals of floats in markdown and LaTeX; a dict sets them per column
            (key ``"*"`` for the rest).
        notes: Lines printed under the table.
        counts: Columns of whole numbers, stored as nullable integers so a missing count is not a
            float (in both frames).
        csv_frame: The rows of the CSV file when they differ from the printed ones (a long
            schema, one row per cell, beside the wide table printed); None: ``frame``.
    """

    name: str
    title: str
    frame: pd.DataFrame
    decimals: int | dict[str, int] = 2
    notes: tuple[str, ...] = field(default=())
    counts: tuple[str, ...] = field(default=())
    csv_frame: pd.DataFrame | None = None
    terminal: tuple[str, ...] = field(default=())
    """The columns the markdown shows, in this order (empty: every column); CSV and LaTeX keep all."""
    files: bool = True
    """False for a view printed in the markdown only, whose numbers another table's files hold."""
    markdown_frame: pd.DataFrame | None = None
    """The rows the markdown prints when they differ from ``frame`` (same columns; cells as text,
    such as a mean with its interval and n, `estimate_text`); None: ``frame``."""

    def __post_init__(self) -> None:
        for name in ("frame", "csv_frame"):
            frame = getattr(self, name)
            present = [c for c in self.counts if frame is not None and c in frame.columns]
            if present:
                object.__setattr__(self, name, frame.astype({c: "Int64" for c in present}))

    @property
    def csv_rows(self) -> pd.DataFrame:
        """The rows the CSV file holds."""
        return self.csv_frame if self.csv_frame is not None else self.frame

    def markdown_columns(self) -> list[str]:
        """The columns the markdown (terminal) view shows."""
        shown = [c for c in self.terminal if c in self.frame.columns]
        return shown or [str(c) for c in self.frame.columns]

    def decimals_of(self, column: str) -> int:
        """Decimals used for one column in markdown and LaTeX."""
        if isinstance(self.decimals, int):
            return self.decimals
        return self.decimals.get(column, self.decimals.get("*", 2))


def interval_columns(name: str, text: bool = True) -> tuple[str, ...]:
    """A statistic's columns: its estimate, its interval's ends (``_lo``, ``_hi``) and, with ``text``, the cell ``_ci``."""
    return (name, f"{name}_lo", f"{name}_hi", *((f"{name}_ci",) if text else ()))


def format_value(value: object, decimals: int) -> str:
    """One cell as text: fixed decimals for floats, ``""`` for missing, ``yes`` for True.

    Args:
        value: The cell.
        decimals: Decimals for a float.

    Returns:
        The text; ``-0.00`` is written ``0.00``.
    """
    if value is None or value is pd.NA:
        return ""
    if isinstance(value, bool):
        return "yes" if value else ""
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        number = float(value)
        if math.isnan(number):
            return ""
        if math.isinf(number):
            return "inf" if number > 0 else "-inf"
        text = f"{number:.{decimals}f}"
        return text[1:] if text.startswith("-") and float(text) == 0 else text
    return str(value)


def _cells(
    table: Table, decimals: int | None, columns: list[str] | None = None, frame: pd.DataFrame | None = None
) -> tuple[list[str], list[list[str]]]:
    frame = table.frame if frame is None else frame
    header = [str(column) for column in frame.columns] if columns is None else columns
    frame = frame if columns is None else frame[columns]
    rows = [
        [
            format_value(value, decimals if decimals is not None else table.decimals_of(column))
            for column, value in zip(header, record, strict=True)
        ]
        for record in frame.itertuples(index=False, name=None)
    ]
    return header, rows


def estimate_text(estimate: object, lo: object, hi: object, n: object, decimals: int = 2) -> str:
    """A cell with its interval and n, compact: ``3.41 [3.20, 3.62] n=47``.

    Args:
        estimate: The estimate (missing: an empty cell).
        lo: Lower end of its 95 % interval (missing: no interval printed).
        hi: Upper end.
        n: Items it rests on.
        decimals: Decimals of the estimate and the ends.

    Returns:
        The text; without the brackets when there is no interval, ``""`` without an estimate.
    """
    mean = format_value(estimate, decimals)
    if not mean:
        return ""
    ends = [format_value(end, decimals) for end in (lo, hi)]
    interval = f" [{ends[0]}, {ends[1]}]" if all(ends) else ""
    count = format_value(n, 0)
    return f"{mean}{interval}" + (f" n={count}" if count else "")


def to_markdown(table: Table) -> str:
    """The table as a GitHub-flavoured markdown section: heading, table (its terminal columns), notes."""
    shown = table.markdown_columns()
    header, rows = _cells(table, None, shown, table.markdown_frame)
    numeric = _numeric_columns(table, shown)
    lines = [f"### {table.title}", ""]
    if rows:
        lines.append("| " + " | ".join(_md_escape(h) for h in header) + " |")
        lines.append("|" + "|".join("---:" if is_num else "---" for is_num in numeric) + "|")
        lines.extend("| " + " | ".join(_md_escape(c) for c in row) + " |" for row in rows)
    else:
        lines.append("(no rows)")
    notes = list(table.notes)
    if len(shown) < len(table.frame.columns):
        notes.append(
            f"{len(shown)} of {len(table.frame.columns)} columns shown; every column is in {table.name}.csv"
        )
    if notes:
        lines.append("")
        lines.extend(f"- {note}" for note in notes)
    return "\n".join(lines) + "\n"


def to_csv(table: Table) -> str:
    """The table as CSV (LF line ends, floats with four decimals, no notes; its `Table.csv_rows`)."""
    header, rows = _cells(table, CSV_DECIMALS, frame=table.csv_rows)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def to_latex(table: Table) -> str:
    """The table as a LaTeX ``table`` environment (booktabs rules), notes as a footnote-size paragraph."""
    header, rows = _cells(table, None)
    numeric = _numeric_columns(table)
    spec = "".join("r" if is_num else "l" for is_num in numeric) or "l"
    lines = [
        "\\begin{table}[ht]",
        "\\centering",
        f"\\caption{{{latex_escape(table.title)}}}",
        f"\\label{{tab:{table.name}}}",
        f"\\begin{{tabular}}{{{spec}}}",
        "\\toprule",
        " & ".join(latex_escape(h) for h in header) + " \\\\",
        "\\midrule",
    ]
    lines.extend(" & ".join(latex_escape(c) for c in row) + " \\\\" for row in rows)
    lines += ["\\bottomrule", "\\end{tabular}"]
    if table.notes:
        lines.append("\\par\\footnotesize " + " ".join(latex_escape(note) for note in table.notes))
    lines.append("\\end{table}")
    return "\n".join(lines) + "\n"


def _numeric_columns(table: Table, columns: list[str] | None = None) -> list[bool]:
    """Right-align a column whose values are all numbers (booleans and text are left-aligned)."""
    flags = []
    for column in table.frame.columns if columns is None else columns:
        values = [v for v in table.frame[column].tolist() if v is not None and v is not pd.NA]
        flags.append(all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in values))
    return flags


def latex_escape(text: str) -> str:
    """Escape LaTeX's special characters in plain text."""
    return "".join(_LATEX_SPECIALS.get(char, char) for char in text)


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def parse_formats(spec: str | Sequence[str]) -> tuple[Format, ...]:
    """Read ``md,csv,tex`` (or a sequence of names) into formats, in the canonical order.

    Raises:
        ValueError: A name is not one of ``md``, ``csv``, ``tex``, or none is given.
    """
    names = spec.split(",") if isinstance(spec, str) else list(spec)
    names = [name.strip().lower() for name in names if name.strip()]
    unknown = [name for name in names if name not in FORMATS]
    if unknown:
        raise ValueError(
            f"unknown report format(s) {', '.join(map(repr, unknown))}; expected some of {', '.join(FORMATS)}"
        )
    if not names:
        raise ValueError(f"no report format given; expected some of {', '.join(FORMATS)}")
    return tuple(fmt for fmt in FORMATS if fmt in names)
