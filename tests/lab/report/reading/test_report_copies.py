"""A judgement held by several files is counted once: judged copies of every kind, copies of copies.

The base folder is what ``vivid run`` writes (generation logs and its judge phase's judged copies)
and a generation judged inside ``inspect eval`` (``-T judge=lexical``). Each case adds copies the way
a user makes them: ``inspect score LOG --action append --output-file COPY`` of that generation (the
documented way to add a judge: the copy holds the original's judge too), ``--action overwrite`` and
``append`` of a judged copy, a copy of a copy, a plain backup copy of a judged log. Counts, the judge
summary, Tables 3 and 4 and self-consistency must be those of the folder without the redundant files,
and report.md must say which file it read.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
import yaml

from tests.report_runs import copy_file, explain_run, inspect_score, judged_copy
from vivid_inspect.lab.cli.main import main
from vivid_inspect.lab.report.build import Report, write_report

SPEC = {
    "name": "copies",
    "data": "sample",
    "runs": [
        {
            "name": "explanations",
            "tasks": ["explain"],
            "prompts": ["zero_shot", "few_shot"],
            "models": ["vivid/literal"],
            "sample": {"n": 12, "by": "theme", "seed": 0},
        }
    ],
    "judges": [
        {"name": "chrf_aspect", "strategy": "aspect", "model": "vivid/chrf"},
        {"name": "lexical", "strategy": "lexical"},
    ],
}


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("copies")
    spec = root / "spec.yaml"
    spec.write_text(yaml.safe_dump(SPEC | {"log_dir": str(root / "logs")}), encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("INSPECT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        assert main(["run", str(spec), "--display", "none", "--no-report"]) == 0
        explain_run("vivid/oracle", "sample", root / "logs" / "by-hand", sample_id=list(range(1, 13)))
    return root / "logs"


def _by_hand(folder: Path) -> Path:
    return next((folder / "by-hand").glob("*.eval"))


def _judged(folder: Path, judge: str) -> Path:
    return sorted((folder / "judged" / judge).glob("*.eval"))[0]


Made = tuple[list[Path], list[Path]]
"""The copies a case made, and the files a folder holding the same judgements once would not hold."""

Score = Callable[..., Path]
"""``inspect_score`` (the real command) or ``judged_copy`` (what it writes, from Python)."""


def _generation_copy(folder: Path, score: Score = inspect_score) -> Made:
    original = _by_hand(folder)
    copy = score(original, folder / "by-hand" / "scored.eval")  # lexical (copied) + judge_aspect
    return [copy], [original]


def _append(folder: Path, score: Score = inspect_score) -> Made:
    judged = _judged(folder, "chrf_aspect")
    copy = score(judged, judged.with_name("appended.eval"), strategy="cot")
    return [copy], [copy]


def _overwrite(folder: Path, score: Score = inspect_score) -> Made:
    judged = _judged(folder, "chrf_aspect")
    copy = score(judged, judged.with_name("overwritten.eval"), action="overwrite")
    return [copy], [copy]


def _copy_of_copy(folder: Path, score: Score = inspect_score) -> Made:
    # The original is taken before the copy exists: once "scored.eval" is beside it, a glob of the
    # folder may list either first.
    (first,), (original,) = _generation_copy(folder, score)
    second = copy_file(first, folder / "elsewhere" / "copy-of-copy.eval")
    third = score(second, folder / "elsewhere" / "copy-of-copy-of-copy.eval", strategy="cot")
    return [first, second, third], [original, first, second]


def _backup(folder: Path, score: Score = inspect_score) -> Made:
    copy = copy_file(_judged(folder, "lexical"), folder / "backup" / "judged-lexical.eval")
    return [copy], [copy]


def _everything(folder: Path) -> Made:
    # Every kind at once. The cases above run the real `inspect score` for each kind; here the same
    # copies are written from Python (judged_copy), 4 command start-ups (~3 s each) fewer.
    made, redundant = [], []
    for case in (_copy_of_copy, _overwrite, _append, _backup):
        more, less = case(folder, judged_copy)
        made.extend(more)
        redundant.extend(less)
    return made, redundant


CASES: dict[str, Callable[[Path], Made]] = {
    "inspect-score-append-of-a-generation": _generation_copy,
    "inspect-score-append-of-a-judged-copy": _append,
    "inspect-score-overwrite-of-a-judged-copy": _overwrite,
    "copy-of-a-copy": _copy_of_copy,
    "backup-of-a-vivid-run-judged-log": _backup,
    "all-of-them": _everything,
}


def _report(folder: Path, out: Path) -> Report:
    return write_report(folder, out_dir=out, formats=("md", "csv"), figures=False, judge="chrf_aspect")


def _without_files(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.drop(columns=[c for c in ("logs", "log") if c in frame.columns]).reset_index(drop=True)


@pytest.mark.slow
@pytest.mark.parametrize("case", list(CASES))
def test_copies_change_no_count_and_no_table(base: Path, tmp_path: Path, case: str) -> None:
    folder = Path(shutil.copytree(base, tmp_path / "logs"))
    made, redundant = CASES[case](folder)
    once = Path(shutil.copytree(folder, tmp_path / "once"))
    for path in redundant:
        (once / path.relative_to(folder)).unlink()
    report, plain = _report(folder, tmp_path / "out"), _report(once, tmp_path / "out-once")
    for table in (
        "counts",
        "judge_summary",
        "table3_themes",
        "table4_traits",
        "table5_classification",
        "usage",
    ):
        pd.testing.assert_frame_equal(
            _without_files(report.table(table).frame), _without_files(plain.table(table).frame), obj=table
        )
    for table in ("table3_themes", "table4_traits"):
        pd.testing.assert_frame_equal(
            _without_files(report.table(table).csv_rows),
            _without_files(plain.table(table).csv_rows),
            obj=table,
        )
    assert report.table("judge_consistency").frame.empty  # a copy is no second judgement
    notes = [line for line in report.markdown.splitlines() if line.startswith("- counted once:")]
    for copy in made:
        rel = copy.relative_to(folder).as_posix()
        assert any(rel in line for line in notes), (rel, notes)
    counted = report.table("counts").frame
    assert (counted["logs"] > 1).any() and counted["log"].str.len().gt(0).all()


@pytest.mark.slow
def test_the_latest_judgement_is_the_one_read(base: Path, tmp_path: Path) -> None:
    folder = Path(shutil.copytree(base, tmp_path / "logs"))
    (copy,), _ = _overwrite(folder)
    report = _report(folder, tmp_path / "out")
    cells = report.table("table3_themes").csv_rows
    judged = _judged(folder, "chrf_aspect").relative_to(folder).as_posix()
    # The overwritten copy is written after the judged log it copies: it is read for that generation.
    assert copy.relative_to(folder).as_posix() in set(cells["log"])
    assert judged not in set(cells["log"])
