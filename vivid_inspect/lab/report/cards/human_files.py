"""Several human scores files in one report: each read, bound to the generation it scored, and checked.

``vivid report --human A.csv --human B.csv`` (and a spec's ``human:`` list) give one file per
generation the humans scored. Each is bound on its own, as a single file is
(`vivid_inspect.lab.humans.binding.bind_generation`), with its own ``--human-generation``
selector when it names no generation. Two files bound to one generation are refused: one file
holds one generation (``vivid annotate import`` merges the sheets of several annotators).

For each bound file the report says how its items were drawn (the record beside it, or the
assumption of a uniform draw) and warns when they do not look like a uniform draw within the
generation (`vivid_inspect.lab.report.stats.draw_check`): the corrected means rest on that draw.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from vivid_inspect.lab.humans.binding import Binding, bind_generation
from vivid_inspect.lab.humans.scores_file import (
    HumanScoresError,
    ItemRules,
    read_generation_record,
    read_human_scores,
)
from vivid_inspect.lab.report.cards.judge_card import SINGLE, HumanLabels
from vivid_inspect.lab.report.reading.judged import Generation, item_key
from vivid_inspect.lab.report.stats.draw_check import check_draw, how_drawn
from vivid_inspect.lab.report.stats.humans import human_means
from vivid_inspect.lab.report.stats.score_stats import sorted_ids

OPTION = "--human-generation"


@dataclass(frozen=True)
class HumanFile:
    """One human scores file as read.

    Attributes:
        path: The file.
        scores: Its rows (as from ``read_human_scores``).
        record: The generation record beside it, or None.
        selector: The generation it belongs to when it names none (``--human-generation``).
        refused: Why VIVID's rules refuse its ids or scores (then ``scores`` keeps ids as text):
            raised unless it is bound to another eval's generation (`bind_files`).
    """

    path: Path
    scores: pd.DataFrame
    record: dict[str, object] | None = None
    selector: str | None = None
    refused: HumanScoresError | None = None

    @property
    def name(self) -> str:
        """The file's name, as report.md names it."""
        return self.path.name


@dataclass(frozen=True)
class BoundFile:
    """A human scores file and the generation it is bound to (or why it is compared with none)."""

    file: HumanFile
    binding: Binding

    @property
    def compared(self) -> bool:
        """Whether the file is bound to a generation of the folder."""
        return self.binding.compared and self.binding.generation is not None


def read_human_files(
    paths: Sequence[str | os.PathLike[str]], selectors: Sequence[str | None] = ()
) -> list[HumanFile]:
    """Read every human scores file with its record, pairing each with its selector.

    Args:
        paths: The files, in the order given.
        selectors: None, or one selector per file in the same order (None for a file that
            needs none); a single selector with a single file.

    Returns:
        The files, in order.

    Raises:
        ValueError: The selectors do not pair with the files, or a file is given twice.
        vivid_inspect.lab.humans.scores_file.HumanScoresError: A file (or its record) is invalid.
    """
    given = list(selectors)
    if given and len(given) != len(paths):
        raise ValueError(
            f"{OPTION} given {len(given)} time(s) for {len(paths)} --human file(s): give one {OPTION} per --human, "
            "in the same order (or none: a file written by `vivid annotate import` names its generation)"
        )
    seen: dict[Path, str] = {}
    for path in paths:
        resolved = Path(path).resolve()
        if resolved in seen:
            raise ValueError(f"human scores file {path} is given twice; give each file once")
        seen[resolved] = str(path)
    return [_read(path, given[i] if given else None) for i, path in enumerate(paths)]


def _read(path: str | os.PathLike[str], selector: str | None) -> HumanFile:
    """The file under VIVID's rules; when only its ids or scores break them, as another eval's file.

    A file bad both ways gets the reading with fewer problems (VIVID's on a tie): text ids name
    another eval's items, and its bad scores are then what is wrong.
    """
    try:
        scores, refused = read_human_scores(path), None
    except HumanScoresError as error:
        if not error.problems or any(problem.column not in ("id", "score") for problem in error.problems):
            raise
        try:
            scores, refused = read_human_scores(path, ItemRules()), error
        except HumanScoresError as other:
            raise (other if len(other.problems) < len(error.problems) else error) from None
    return HumanFile(Path(path), scores, read_generation_record(path), selector, refused)


def bind_files(
    generations: Sequence[Generation],
    judged: Collection[tuple[str, str]],
    files: Sequence[HumanFile],
    rows: pd.DataFrame | None = None,
    generic: Collection[str] = (),
) -> list[BoundFile]:
    """Bind each file to the generation it scored, and read it under that generation's rules.

    Args:
        generations: Every run of every generation (``logs.generations_in``).
        judged: (generation key, run) of the runs some judge scored.
        files: The human files.
        rows: The judge rows of every generation (another eval's ids and declared scales).
        generic: The keys of another eval's generations: a file bound to one is read again with
            its ids and scale (`ItemRules`).

    Returns:
        One binding per file, in order.

    Raises:
        ValueError: Two files are bound to one generation.
        vivid_inspect.generation_key.GenerationChoiceError: A file's generation cannot be told
            (its message names the file).
        HumanScoresError: A file breaks VIVID's rules and is not bound to another eval's
            generation, or breaks the rules of the one it is bound to.
    """
    bound: list[BoundFile] = []
    for file in files:
        try:
            binding = bind_generation(generations, judged, file.scores, file.record, file.selector)
        except ValueError as error:
            raise type(error)(f"{file.path}: {error}") from error
        if binding.compared and binding.generation in generic and rows is not None:
            mine = rows[rows["generation"] == binding.generation]
            scales = set(mine["scale"])  # a range every judge declares holds the humans' scores too
            rules = ItemRules(
                frozenset(map(item_key, mine["id"])), scales.pop() if len(scales) == 1 else None
            )
            file = replace(file, scores=read_human_scores(file.path, rules), refused=None)
        elif file.refused is not None:
            raise file.refused
        bound.append(BoundFile(file, binding))
    by_generation: dict[str, list[str]] = {}
    for entry in bound:
        if entry.compared:
            by_generation.setdefault(str(entry.binding.generation), []).append(str(entry.file.path))
    for key, names in by_generation.items():
        merge = (  # `vivid annotate import` merges VIVID's sheets; another eval's are rows of one CSV
            "put every annotator's rows in one file, with the annotator column"
            if key in generic
            else "`vivid annotate import SHEET... --out FILE` merges several annotators' sheets"
        )
        if len(names) > 1:
            raise ValueError(
                f"human scores files {' and '.join(names)} are both bound to generation {key}: one file holds one "
                f"generation's scores ({merge})"
            )
    return bound


def labels_of(bound: BoundFile, generations: Sequence[Generation]) -> HumanLabels:
    """The file's scores by annotator, for the judge card and the alternative annotator test."""
    scores = bound.file.scores
    if "annotator" in scores.columns:
        annotators: dict[str, Mapping[int, float]] = {
            str(name): human_means(group) for name, group in scores.groupby("annotator", sort=True)
        }
    else:
        annotators = {SINGLE: human_means(scores)}
    key = str(bound.binding.generation)
    found = next((g for g in generations if g.key == key), None)
    label = f"{found.model} {found.prompt}" if found is not None else key
    return HumanLabels(key, label, annotators, how_drawn(bound.file.record))


def draw_lines(bound: BoundFile, rows: pd.DataFrame) -> list[str]:
    """What report.md says of how the file's items were drawn, and any warning that they were not uniform.

    Args:
        bound: A file bound to a generation.
        rows: The score rows of that generation by the judge of Tables 3 and 4 (one per item and
            epoch).

    Returns:
        One line on the draw, then one per failed test.
    """
    present = rows[~rows["error"].astype(bool)]
    judge = present.groupby("id", sort=True)["value"].mean().dropna()
    themes = rows.drop_duplicates("id").set_index("id")["theme"]
    ids = sorted_ids(map(item_key, rows["id"].unique()))
    labelled = sorted_ids(human_means(bound.file.scores))
    check = check_draw(
        ids,
        {item_key(i): float(v) for i, v in judge.items()},
        {item_key(i): str(t) for i, t in themes.items()},
        labelled,
        drawn=how_drawn(bound.file.record),
    )
    name = bound.file.name
    lines = [f"{name}: how its items were drawn: {check.drawn}"]
    lines.extend(f"{name}: warning: {warning}" for warning in check.warnings)
    return lines
