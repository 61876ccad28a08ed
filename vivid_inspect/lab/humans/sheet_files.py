"""Writing annotation sheets and human scores files safely.

Three rules, whatever the user types: a cell that a spreadsheet would evaluate is written as
text (`neutralise`); an existing file is replaced only when asked and an input is never
written over (`check_output`); a file is written whole or not at all
(`vivid_inspect.atomic_write.write_atomic`).
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Iterable
from pathlib import Path

# Excel's limit on the characters of one cell; longer text is cut there, not split over cells.
MAX_CELL = 32_767
_FORMULA_MARKS = frozenset("=+-@")
# Characters that start a formula, or that a spreadsheet drops before reading one (tab, CR, LF).
_LEADING_CONTROLS = frozenset("\t\r\n")
_MINUS_SIGN = "\u2212"


class OutputError(ValueError):
    """An output path that would overwrite an existing file or an input."""


def neutralise(cell: str) -> str:
    r"""A cell as a spreadsheet shows it, never evaluates it: a leading ``'`` when needed.

    A cell needs it when it starts with ``=``, ``+``, ``-``, ``@`` (or their full-width and
    small forms, or a minus sign), a tab, CR or LF, including after leading spaces or invisible
    characters that a spreadsheet, or a user tidying the sheet, would strip (``"\t=1+1"``).

    Args:
        cell: The text of a cell.

    Returns:
        The cell, prefixed with ``'`` when it could run as a formula.
    """
    for char in cell:
        if _starts_formula(char) or char in _LEADING_CONTROLS:
            return "'" + cell
        if not _ignorable(char):
            return cell
    return cell


def _starts_formula(char: str) -> bool:
    return char == _MINUS_SIGN or unicodedata.normalize("NFKC", char)[:1] in _FORMULA_MARKS


def _ignorable(char: str) -> bool:
    # Spaces of every kind, control characters and invisible format characters (zero-width space, BOM).
    return char.isspace() or unicodedata.category(char) in ("Cc", "Cf", "Zs")


def cut(cell: str, limit: int = MAX_CELL) -> str:
    """A cell cut to what a spreadsheet keeps in one cell, saying how much was left out."""
    if len(cell) <= limit:
        return cell
    marker = f" … [cut: {len(cell) - limit:,} more characters not shown]"
    return cell[: limit - len(marker)] + marker


def check_output(out: Path, inputs: Iterable[Path], *, force: bool) -> None:
    """Refuse to write ``out`` over an input, or over an existing file unless ``force``.

    Args:
        out: The file to write.
        inputs: Files (or folders) the command reads; ``out`` may be none of them, by any name
            (a symbolic link, a relative path, a hard link).
        force: Replace an existing ``out`` that is not an input.

    Raises:
        OutputError: ``out`` is an input, a folder, or exists and ``force`` is not given.
    """
    for source in inputs:
        if _same(out, source):
            raise OutputError(f"{out}: is the input {source}; never written over, choose another --out")
    if out.is_dir():
        raise OutputError(f"{out}: is a folder; --out names the file to write")
    if (out.exists() or out.is_symlink()) and not force:
        raise OutputError(f"{out}: already exists; pass --force to replace it")


def _same(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        # One of them does not exist (yet): compare where they would be.
        return a.resolve() == b.resolve()
