"""What the coverage sections share: a result table and the header of a coverage run."""

from __future__ import annotations

import math
import platform
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


@dataclass
class CoverageTable:
    """One table of a section: a title, column names, rows of cells, and notes under it."""

    title: str
    columns: Sequence[str]
    rows: list[Sequence[object]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def markdown(self) -> list[str]:
        """The table as markdown lines (a blank line after)."""
        lines = [f"### {self.title}", "", "| " + " | ".join(self.columns) + " |"]
        lines.append("| " + " | ".join("---" for _ in self.columns) + " |")
        lines.extend("| " + " | ".join(fmt(cell) for cell in row) + " |" for row in self.rows)
        lines.append("")
        lines.extend(f"- {note}" for note in self.notes)
        if self.notes:
            lines.append("")
        return lines


def fmt(cell: object) -> str:
    """A cell as text: rates and coverages to 3 decimals, None as an empty cell."""
    if cell is None:
        return ""
    if isinstance(cell, float):
        return "" if math.isnan(cell) else f"{cell:.3f}"
    return str(cell)


def wilson(successes: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson 95 % interval of a simulated rate (coverage, false-positive rate, power)."""
    if n == 0:
        return (math.nan, math.nan)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (centre - half, centre + half)


def header_lines(quick: bool) -> list[str]:
    """The run's date, commit and machine, as the first lines of the markdown."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True, timeout=10
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = "unknown"
    mode = "quick" if quick else "full"
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return [
        f"# Coverage ({mode}): {when}, commit {commit}, {platform.machine()} Python {platform.python_version()}",
        "",
    ]
