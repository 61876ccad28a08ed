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

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
import yaml

from tests.once import once_per_session
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


CASES: dict[str, Callable[..., Made]] = {
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


def _build(root: Path) -> None:
    """The base folder, then each case applied to its own copy; what each made, in ``made.json``.

    Built once per session (the cases' real ``inspect score`` commands take ~3 s each): a command
    whose log, action and strategy were seen before is not run again, its file is copied (the
    copy-of-a-copy case starts with the generation case's command on the same log).
    """
    spec = root / "spec.yaml"
    spec.write_text(yaml.safe_dump(SPEC | {"log_dir": str(root / "base")}), encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("INSPECT_CACHE_DIR", str(root / "cache"))
        assert main(["run", str(spec), "--display", "none", "--no-report"]) == 0
        explain_run("vivid/oracle", "sample", root / "base" / "by-hand", sample_id=list(range(1, 13)))
    done: dict[tuple[str, str, str], Path] = {}

    def score(log: Path, out: Path, *, action: str = "append", strategy: str = "aspect") -> Path:
        key = (hashlib.sha256(log.read_bytes()).hexdigest(), action, strategy)
        if key in done:
            return copy_file(done[key], out)
        done[key] = inspect_score(log, out, action=action, strategy=strategy)
        return done[key]

    made = {}
    for name, case in CASES.items():
        folder = Path(shutil.copytree(root / "base", root / name))
        more, less = case(folder) if case is _everything else case(folder, score)
        made[name] = [[path.relative_to(folder).as_posix() for path in paths] for paths in (more, less)]
    (root / "made.json").write_text(json.dumps(made), encoding="utf-8")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every case's folder, made once per session; read only (each test copies the one it needs)."""
    return once_per_session(tmp_path_factory, "report-copies", _build)


def _case(built: Path, case: str, to: Path) -> tuple[Path, list[Path], list[Path]]:
    """A private copy of a case's folder, the copies the case made and the files it made redundant."""
    folder = Path(shutil.copytree(built / case, to))
    made, redundant = json.loads((built / "made.json").read_text(encoding="utf-8"))[case]
    return folder, [folder / rel for rel in made], [folder / rel for rel in redundant]


@pytest.mark.slow
@pytest.mark.parametrize("case", list(CASES))
def test_copies_change_no_count_and_no_table(built: Path, tmp_path: Path, case: str) -> None:
    folder, made, redundant = _case(built, case, tmp_path / "logs")
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
def test_the_latest_judgement_is_the_one_read(built: Path, tmp_path: Path) -> None:
    folder, (copy,), _ = _case(built, "inspect-score-overwrite-of-a-judged-copy", tmp_path / "logs")
    report = _report(folder, tmp_path / "out")
    cells = report.table("table3_themes").csv_rows
    judged = _judged(folder, "chrf_aspect").relative_to(folder).as_posix()
    # The overwritten copy is written after the judged log it copies: it is read for that generation.
    assert copy.relative_to(folder).as_posix() in set(cells["log"])
    assert judged not in set(cells["log"])
