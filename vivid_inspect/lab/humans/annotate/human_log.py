"""``--write-log``: copies of the generation's logs with the human scores as score columns.

Written through Inspect's public score-editing API (`inspect_ai.log.edit_score`), so that
``inspect view`` shows the human scores beside the judges' and each carries its provenance (who
scored, when, from which generation): one column ``human_NAME`` per annotator and ``human``,
their mean. Every log of the generation is copied, the generation log and each judged copy of it
(``vivid run`` keeps the judges' scores in the judged copies), so each judge's column sits beside
the humans'. Only the first epoch is scored (the sheet is drawn from it).

The copies go to ``human-logs/`` in the annotation folder, never beside the originals: they share
the generation's key, and a report folder that held both would see the generation twice.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import pandas as pd
from inspect_ai.log import ProvenanceData, edit_score, read_eval_log, write_eval_log
from inspect_ai.scorer import ScoreEdit

from vivid_inspect.atomic_write import replacing
from vivid_inspect.generation_key import generation_of
from vivid_inspect.lab.bounded_zip import Budget, InflationError, check_members, check_size, max_inflated
from vivid_inspect.lab.humans.annotate.sheet_export import log_header
from vivid_inspect.lab.humans.binding import names_generation
from vivid_inspect.lab.humans.scores_file import SCALE_KEY
from vivid_inspect.lab.report.reading.log_files import not_generations
from vivid_inspect.lab.report.reading.logs import find_log_files

HUMAN_SCORE = "human"
AUTHOR = "vivid annotate serve"
LOGS_FOLDER = "human-logs"


def generation_logs(record: dict[str, Any] | None, root: Path | None, folder: Path) -> dict[Path, Path]:
    """Every log of the scored generation under ``root``, each with where its copy goes.

    Args:
        record: The sheet's generation record (``generation``, ``log``).
        root: The folder to look in (the log folder served); None looks beside the recorded log.
        folder: The annotation folder.

    Returns:
        Original log to its copy in ``folder/human-logs/`` (same relative path).

    Raises:
        ValueError: The sheet names no generation (or another eval's), or no log of it is found.
    """
    if record is None:
        raise ValueError(
            "--write-log needs a sheet that names its generation (one written by `vivid annotate export`)"
        )
    if SCALE_KEY in record:
        raise ValueError(
            "--write-log copies VIVID's logs only; another eval's human scores are in humans.csv"
        )
    recorded = Path(str(record.get("log") or ""))
    base = root if root is not None else recorded.parent
    found: dict[Path, Path] = {}
    if base.is_dir():
        for log in find_log_files(base, exclude=[folder]):
            header = log_header(log)
            # An audit or sanity log judged made-up answers: never a log of the scored generation.
            if header is None or not_generations(header) is not None:
                continue
            # Binding decides (its key, or its key before data digests were recorded).
            if names_generation(str(record["generation"]), generation_of(header)):
                found[log] = folder / LOGS_FOLDER / log.relative_to(base)
    if not found:
        raise ValueError(
            f"--write-log: no log of generation {record['generation']} under {str(base)!r} "
            f"(the sheet's record names {str(recorded)!r}); serve the log folder itself"
        )
    for log in found:
        _check_fits(log)
    return found


def _check_fits(log: Path) -> None:
    """Refuse a log whose copy would inflate past the log cap (it is read whole to be copied).

    Raises:
        ValueError: The log inflates past the cap (`vivid_inspect.lab.bounded_zip`).
    """
    budget = Budget(max_inflated())
    try:
        if log.suffix == ".eval":
            with zipfile.ZipFile(log) as archive:
                names = archive.namelist()
            check_members(log, names, budget)
        else:
            check_size(log, budget)
    except (InflationError, zipfile.BadZipFile) as error:
        raise ValueError(f"--write-log: {log}: {error}") from None


def write_human_log(log: Path, scores: pd.DataFrame, out: Path, key: str) -> None:
    """Write a copy of one log of the generation with the human scores as score columns.

    Args:
        log: A log of the generation (the generation log or a judged copy).
        scores: Human scores (``id``, ``score``, ``annotator``) as read by ``read_human_scores``.
        out: The copy to write (written beside, then renamed: whole or absent).
        key: The generation key, recorded in each score's provenance.
    """
    copy = read_eval_log(str(log))
    for item, rows in scores.groupby("id", sort=True):
        sample_id = int(str(item))
        given = dict(zip(rows["annotator"].astype(str), rows["score"].astype(int), strict=True))
        for name, value in sorted(given.items()):
            provenance = ProvenanceData(
                author=name, reason="human score", metadata={"generation": key, "tool": AUTHOR}
            )
            edit = ScoreEdit(value=value, explanation=f"scored {value} by {name}", provenance=provenance)
            edit_score(copy, sample_id, f"{HUMAN_SCORE}_{name}", edit, recompute_metrics=False, epoch=1)
        mean = sum(given.values()) / len(given)
        provenance = ProvenanceData(
            author=AUTHOR,
            reason="mean of the annotators' scores",
            metadata={"generation": key, "annotators": sorted(given)},
        )
        edit = ScoreEdit(
            value=mean, explanation=f"mean over {len(given)} annotator(s)", provenance=provenance
        )
        edit_score(copy, sample_id, HUMAN_SCORE, edit, recompute_metrics=False, epoch=1)
    out.parent.mkdir(parents=True, exist_ok=True)
    # not fsynced: the copy is made again from the scores file at the next save
    with replacing(out, fsync=False) as temporary:
        write_eval_log(copy, str(temporary), format="json" if out.suffix == ".json" else "eval")
