"""Human annotation sheets: export a blind sample of explanations, import the filled sheets.

Export is `vivid_inspect.lab.humans.annotate.sheet_export`, import `vivid_inspect.lab.humans.sheet_import`;
their public names are importable from here.

The export draws a theme-stratified sample of generated explanations; the import turns the filled
sheets into a human scores file (``id, score, annotator, generation``).

A sheet shows what an annotator needs and nothing that reveals who wrote the explanation or what
a judge thought: ``id`` (the sample id), ``idiom``, ``reference_meaning``, ``explanation``, the
empty columns ``score`` (0-5) and ``annotator``, and ``generation``, the opaque key of the
generation the sheet was drawn from (`vivid_inspect.generation_key`). The rest (model,
prompt, data, log, eval id, sample ids) goes to a record beside the sheet,
``SHEET.csv.generation.json``, which annotators need not see; import reads it back to check the
ids and carries the key into the human scores file, so that ``vivid report`` compares the humans
with the generation they scored.

Sheets are UTF-8 with a byte-order mark so spreadsheet programs open the Vietnamese text
correctly. Every text cell that a spreadsheet would evaluate as a formula is written with a
leading ``'`` (`vivid_inspect.lab.humans.sheet_files.neutralise`); import reads only ids, scores,
annotators and the generation key, so this never changes what is scored.
"""

from __future__ import annotations

from vivid_inspect.lab.humans.annotate.sheet_export import (
    DEFAULT_N,
    SHEET_COLUMNS,
    export_sheet,
    find_generation,
    stratified_ids,
)
from vivid_inspect.lab.humans.sheet_import import HUMAN_COLUMNS, import_sheets

__all__ = [
    "DEFAULT_N",
    "HUMAN_COLUMNS",
    "SHEET_COLUMNS",
    "export_sheet",
    "find_generation",
    "import_sheets",
    "stratified_ids",
]
