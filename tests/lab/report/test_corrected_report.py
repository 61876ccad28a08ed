"""Corrected means in the report: two generations, two human files, Tables 3 and 4 gain the corrected columns.

The folder holds two real generations (the offline literal baseline, zero-shot and few-shot, on
the bundled sample, judged by the lexical judge); each gets a human scores file written the way
people make one (``vivid annotate export``, two annotators fill the sheet, ``import``). The
report's corrected, human-only and bias columns must be :mod:`vivid_inspect.lab.report.stats.ppi` called on
the arrays of judge and human scores, cell by cell.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.recommended_commands import failing, recommended
from tests.report_runs import SAMPLE, explain_run
from vivid_inspect.lab.cli.main import main
from vivid_inspect.lab.humans.annotate.sheet_export import export_sheet
from vivid_inspect.lab.humans.sheet_import import import_sheets
from vivid_inspect.lab.report.build import Report, write_report
from vivid_inspect.lab.report.reading.logs import read_logs
from vivid_inspect.lab.report.stats.corrected import MIN_LABELLED, SCORE_RANGE
from vivid_inspect.lab.report.stats.ppi import Estimate, missed_spread, ppi_mean, sampled_mean
from vivid_inspect.lab.report.tables.corrected_tables import ASSUMPTION, CORRECTED_COLUMNS
from vivid_inspect.lab.report.tables.tables import CELL_COLUMNS

LITERAL = "vivid/literal"
ANNOTATORS = ("lan", "minh")
LABELLED = 30


@dataclass(frozen=True)
class Folder:
    root: Path
    logs: dict[str, Path]
    humans: dict[str, Path]


def _fill(sheet: Path, out: Path, annotator: str, shift: int) -> Path:
    """The sheet as one annotator filled it: a score from the id, moved by ``shift``."""
    with sheet.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        row["score"], row["annotator"] = str((int(row["id"]) * 7 + shift) % 6), annotator
    with out.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return out


def _human_file(logs: Path, log: Path, base: Path, n: int = LABELLED, seed: int = 0) -> Path:
    """Export a sheet (its draw seeded by ``seed``), two annotators fill it, import: a bound file."""
    sheet = base / f"{log.stem}.sheet.csv"
    export_sheet(logs, sheet, n=n, seed=seed, generation=log.name)
    filled = [
        _fill(sheet, base / f"{log.stem}.{name}.csv", name, 2 * seed + i) for i, name in enumerate(ANNOTATORS)
    ]
    human = base / f"{log.stem}.human.csv"
    import_sheets(filled, human)
    return human


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Folder:
    base = tmp_path_factory.mktemp("corrected")
    root = base / "logs"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("INSPECT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        logs = {
            prompt: explain_run(LITERAL, SAMPLE, root, prompt=prompt) for prompt in ("zero_shot", "few_shot")
        }
    # Each generation its own draw and its own scores, so that a mix-up of the two shows.
    humans = {prompt: _human_file(root, log, base, seed=i) for i, (prompt, log) in enumerate(logs.items())}
    return Folder(root, logs, humans)


def _report(folder: Folder, out: Path, humans: list[Path], **options: object) -> Report:
    return write_report(
        folder.root,
        out_dir=out,
        human=humans,
        judge="lexical",
        figures=False,
        **options,  # type: ignore[arg-type]
    )


@pytest.fixture(scope="module")
def report(folder: Folder, tmp_path_factory: pytest.TempPathFactory) -> Report:
    return _report(
        folder, tmp_path_factory.mktemp("out"), [folder.humans["zero_shot"], folder.humans["few_shot"]]
    )


def _judge_scores(folder: Folder) -> dict[str, dict[int, float]]:
    """The lexical judge's score of every item, per generation, read from the logs directly."""
    scores = read_logs(folder.root).scores
    lexical = scores[(scores["judge"] == "lexical") & scores["value"].notna()]
    return {
        str(generation): {int(i): float(v) for i, v in group.groupby("id")["value"].mean().items()}
        for generation, group in lexical.groupby("generation")
    }


def _humans(path: Path) -> tuple[str, dict[int, float]]:
    frame = pd.read_csv(path)
    return str(frame["generation"].iloc[0]), {
        int(i): float(v) for i, v in frame.groupby("id")["score"].mean().items()
    }


def _themes(folder: Folder) -> dict[int, str]:
    scores = read_logs(folder.root).scores
    return {int(i): str(t) for i, t in scores.drop_duplicates("id").set_index("id")["theme"].items()}


def test_both_bound_generations_are_corrected_as_ppi_on_the_arrays(folder: Folder, report: Report) -> None:
    cells = report.table("table3_themes").csv_rows
    assert list(cells.columns) == list(CELL_COLUMNS)
    judged = _judge_scores(folder)
    themes = _themes(folder)
    checked = 0
    for prompt, path in folder.humans.items():
        key, human = _humans(path)
        mine = cells[cells["generation"] == key]
        assert set(mine["prompt"]) == {prompt}
        for row in mine.to_dict("records"):
            judge = judged[key]
            items = (
                sorted(judge)
                if row["cell"] == "Average"
                else sorted(i for i in judge if themes[i] == row["cell"])
            )
            labelled = [i for i in items if i in human]
            assert row["n_items"] == len(items) and row["n_human"] == len(labelled)
            if not labelled:
                assert (
                    pd.isna(row["corrected_mean"])
                    and row["corrected_note"] == "no human scores on this cell's items"
                )
                continue
            y, yhat = np.array([human[i] for i in labelled]), np.array([judge[i] for i in labelled])
            rest = np.array([judge[i] for i in items if i not in human])
            corrected = ppi_mean(y, yhat, rest, bounds=SCORE_RANGE)
            every = np.concatenate([yhat, rest])
            judge_mean = float(every.mean())
            flipped = (
                (None, None)
                if corrected.lo is None
                else (judge_mean - corrected.hi, judge_mean - corrected.lo)
            )
            expected = {
                "corrected_mean": corrected,
                "human_mean": sampled_mean(
                    y, len(items), bounds=SCORE_RANGE, extra=missed_spread(yhat, every)
                ),
                # the bias: the judge's exact mean minus the corrected mean, its interval mirrored
                "bias": Estimate(judge_mean - (corrected.estimate or 0.0), *flipped, None, 0.0, 0, 0),
            }
            for name, estimate in expected.items():
                assert row[name] == pytest.approx(estimate.estimate, abs=1e-12)
                if len(labelled) >= MIN_LABELLED:
                    assert row[f"{name}_lo"] == pytest.approx(estimate.lo, abs=1e-12)
                    assert row[f"{name}_hi"] == pytest.approx(estimate.hi, abs=1e-12)
                else:  # below the documented threshold the cell says so instead of an interval
                    assert pd.isna(row[f"{name}_lo"]) and pd.isna(row[f"{name}_hi"])
                    assert (
                        f"too few labelled items for an interval ({len(labelled)}; printed from {MIN_LABELLED})"
                        in row["corrected_note"]
                    )
            checked += 1
        average = mine[mine["cell"] == "Average"].iloc[0]
        assert average["n_human"] == LABELLED and average["corrected_mean_lo"] < average["corrected_mean_hi"]
    assert checked >= 4
    averages = cells[(cells["cell"] == "Average") & cells["n_human"].notna()]
    assert averages["corrected_mean"].nunique() == 2  # two generations, two different corrections


def test_the_csv_files_carry_the_columns_for_both_generations(folder: Folder, report: Report) -> None:
    out = report.files[0].parent
    for name in ("table3_themes", "table4_traits"):
        frame = pd.read_csv(out / f"{name}.csv")
        for column in ("judge_mean", "human_mean", "corrected_mean", "bias"):
            assert {column, f"{column}_lo", f"{column}_hi"} <= set(frame.columns)
        assert {"n_human", "n_items", "corrected_note"} <= set(frame.columns)
        keys = {_humans(path)[0] for path in folder.humans.values()}
        corrected = frame[frame["corrected_mean"].notna()]
        assert set(corrected["generation"]) == keys
    # the view printed under each table writes no file of its own
    assert not (out / "table3_themes_corrected.csv").exists()


def test_a_generation_without_human_scores_leaves_the_columns_empty(folder: Folder, tmp_path: Path) -> None:
    only = _report(folder, tmp_path, [folder.humans["zero_shot"]])
    cells = only.table("table3_themes").csv_rows
    key, _ = _humans(folder.humans["zero_shot"])
    other = cells[cells["generation"] != key]
    assert not other.empty
    assert other[list(CORRECTED_COLUMNS[:-1])].isna().all().all()
    assert (other["corrected_note"].fillna("") == "").all()
    assert cells[cells["generation"] == key]["corrected_mean"].notna().any()


def test_the_terminal_shows_the_corrected_view_with_the_estimand_and_the_draw(
    folder: Folder, report: Report
) -> None:
    markdown = report.markdown
    for number in ("Table 3", "Table 4"):
        assert f"### {number} corrected by the human scores" in markdown
    view = report.table("table3_themes_corrected").frame
    assert set(view["prompt"]) == {"zero_shot", "few_shot"}
    average = view[view["cell"] == "Average"]
    assert average["corrected_ci"].str.match(r"^\[-?\d+\.\d\d, -?\d+\.\d\d\]$").all()
    assert ASSUMPTION in markdown and "estimates of the mean human score over every item" in markdown
    # each file says how its items were drawn (export's record, kept by import)
    for path in folder.humans.values():
        assert f"{path.name}: how its items were drawn: drawn by `vivid annotate export`" in markdown


def test_the_bias_per_generation_is_in_the_table1_story(folder: Folder, report: Report) -> None:
    bias = report.table("judge_bias").frame
    lexical = bias[bias["judge"] == "lexical"]
    assert set(lexical["generation"]) == {_humans(p)[0] for p in folder.humans.values()}
    names = [t.name for t in report.tables]
    assert names.index("judge_bias") == names.index("table1_judges") + 1
    assert any("judge_bias below" in note for note in report.table("table1_judges").notes)
    out = report.files[0].parent
    assert (out / "judge_bias.csv").exists()


def test_two_annotators_give_the_alt_test_and_the_judge_card(folder: Folder, report: Report) -> None:
    out = report.files[0].parent
    alt = pd.read_csv(out / "alt_test.csv")
    lexical = alt[alt["judge"] == "lexical"]
    assert set(lexical["generation"]) == {_humans(p)[0] for p in folder.humans.values()}
    assert (lexical["annotators"] == 2).all() and (lexical["items"] == LABELLED).all()
    card = (out / "judge_card.md").read_text(encoding="utf-8")
    assert "# Judge card: lexical" in card and "Can replace the annotators on this data:" in card
    assert card == report.cards
    # two annotators: below the authors' minimum, never passed=yes (issue 29.1)
    assert lexical["passed"].str.startswith("below the paper's minimum").all()


def test_every_command_the_report_with_human_scores_recommends_parses(report: Report) -> None:
    written = [path for path in report.files if path.suffix == ".md"]
    assert recommended(report.cards) and failing(written) == {}


def test_no_alt_test_without_two_annotators(folder: Folder, tmp_path: Path) -> None:
    one = tmp_path / "one.csv"
    frame = pd.read_csv(folder.humans["zero_shot"])
    frame[frame["annotator"] == "lan"].to_csv(one, index=False)
    (tmp_path / "one.csv.generation.json").write_bytes(
        Path(str(folder.humans["zero_shot"]) + ".generation.json").read_bytes()
    )
    made = _report(folder, tmp_path / "out", [one])
    assert not (tmp_path / "out" / "alt_test.csv").exists()
    assert "alt_test" not in [t.name for t in made.tables]
    assert "needs two or more annotators" in made.cards


def test_a_file_of_the_first_ids_is_warned_about(folder: Folder, tmp_path: Path) -> None:
    """A hand-made file of the first 25 ids: not a uniform draw, and the report says so."""
    picked = tmp_path / "first.csv"
    picked.write_text("id,score\n" + "".join(f"{i},{i % 6}\n" for i in range(1, 26)), encoding="utf-8")
    made = _report(folder, tmp_path / "out", [picked], human_generation=["zero_shot"])
    assert (
        "first.csv: how its items were drawn: the file does not say how its items were chosen"
        in made.markdown
    )
    assert "first.csv: warning: the labelled items sit early in the generation's id order" in made.markdown


def test_two_files_of_one_generation_are_refused(folder: Folder, tmp_path: Path) -> None:
    copy = tmp_path / "copy.csv"
    copy.write_bytes(folder.humans["zero_shot"].read_bytes())
    with pytest.raises(ValueError, match="are both bound to generation"):
        _report(folder, tmp_path / "out", [folder.humans["zero_shot"], copy])
    with pytest.raises(ValueError, match="is given twice"):
        _report(folder, tmp_path / "out", [folder.humans["zero_shot"], folder.humans["zero_shot"]])


def test_selectors_pair_with_the_files(folder: Folder, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="one --human-generation per --human"):
        _report(folder, tmp_path, list(folder.humans.values()), human_generation=["zero_shot"])


def _exit(argv: list[str]) -> int:
    """What the console script exits with: main's code, or argparse's own exit code."""
    try:
        return main(argv)
    except SystemExit as exit:
        return int(exit.code or 0)


@pytest.mark.slow  # a full report with three human files
def test_the_command_line_takes_human_repeated(
    folder: Folder, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    command = ["report", str(folder.root), "--out", str(tmp_path), "--judge", "lexical", "--no-figures"]
    for path in folder.humans.values():
        command += ["--human", str(path)]
    code = _exit([*command, "--alt-test-epsilon", "crowd"])
    out, err = capsys.readouterr()
    assert code == 0, err[-2000:]
    assert "### Table 3 corrected by the human scores" in out
    assert "### Table 4 corrected by the human scores" in out
    assert (pd.read_csv(tmp_path / "alt_test.csv")["epsilon"] == 0.1).all()
    code = _exit([*command, "--alt-test-epsilon", "2"])
    assert code == 2 and "epsilon must be a number" in capsys.readouterr().err
