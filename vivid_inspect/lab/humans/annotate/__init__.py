"""``vivid annotate serve``: a small local web page for scoring outputs one at a time.

VIVID's explanations are scored 0-5; another eval's outputs on its judge's scale (`.items`).

The server reuses the annotation sheets of `vivid_inspect.lab.humans.annotate.sheet_export`: it serves the
items of an exported sheet (or exports one from a generation log first), keeps each annotator's
scores in a sheet of their own in the format ``vivid annotate import`` reads, and writes the human
scores file for ``vivid report --human`` with that same import, bound to its generation.

Modules: `.guidelines` (the rubric shown beside each item), `.queues` (who scores
what, in which order), `.workspace` (the files on disk, scores and undo),
`.app` (the HTTP application and its safety rules) and `.serve` (start-up).
"""
