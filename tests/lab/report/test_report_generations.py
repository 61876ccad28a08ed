"""One generation, one row: a folder of two data sets, reruns, a resumed run and judged copies.

The folder is made of real small runs (the offline ``vivid/literal`` baseline and the ``vivid/chrf``
grader, a mockllm generator for the resumed ``eval_set``): two data files of the same name whose
sample ids name other idioms, a run on ten items beside a run on all of them, the same cell run
again in another spec's folder, a failed attempt beside its retry, judged copies made by
``inspect score`` (append, overwrite, a copy of a copy, a plain backup copy), and the
classification tasks on both data sets and again. Every table must give the numbers each
generation gives when reported alone.
"""

from __future__ import annotations

import csv
import math
import shutil
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest
from inspect_ai import eval_set
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, get_model
from matplotlib.figure import Figure

from tests.report_runs import (
    classification_runs,
    copy_file,
    explain_run,
    failed_attempt,
    inspect_score,
    judged_copy,
    same_name_data,
)
from tests.scripted import output
from vivid_inspect.lab.humans.annotate.sheet_export import export_sheet
from vivid_inspect.lab.humans.sheet_import import import_sheets
from vivid_inspect.lab.report import plots
from vivid_inspect.lab.report.build import Report, write_report
from vivid_inspect.lab.report.reading.logs import read_logs
from vivid_inspect.lab.report.stats.intervals import mean_interval
from vivid_inspect.lab.report.tables.tables import CELL_COLUMNS
from vivid_inspect.tasks import explain

LITERAL = "vivid/literal"
RESUMED = "mockllm/resumed"
SUBSET = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]


@dataclass(frozen=True)
class Folder:
    root: Path
    data_a: Path
    data_b: Path
    zero_a: Path
    copy: Path
    rerun: Path
    human: Path


def _resumed(data: Path, log_dir: Path) -> None:
    """An eval_set interrupted by a failing call, then resumed: Inspect replaces the log."""

    def model(fail: bool) -> object:
        def respond(
            messages: list[ChatMessage], tools: object, choice: object, config: GenerateConfig
        ) -> ModelOutput:
            text = messages[-1].text
            if fail and "Đầu voi" in text:
                raise RuntimeError("interrupted")
            return output(f"Giải thích: {text[-40:]}")

        return get_model(RESUMED, custom_outputs=respond, memoize=False)

    for fail in (True, False):
        eval_set(
            [explain(judge="lexical", data=str(data))],
            model=model(fail),  # type: ignore[arg-type]
            log_dir=str(log_dir),
            retry_attempts=0,
            display="none",
            max_connections=1,
        )


def _fill(sheet: Path, out: Path) -> Path:
    with sheet.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        row["score"], row["annotator"] = str(int(row["id"]) % 6), "lan"
    with out.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return out


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Folder:
    base = tmp_path_factory.mktemp("mixed")
    data_a, data_b = same_name_data(base / "data")
    logs = base / "logs"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("INSPECT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        zero_a = explain_run(LITERAL, data_a, logs / "s1")
        copy = judged_copy(zero_a, logs / "s1" / "scored" / "copy.eval")  # append: lexical + judge_aspect
        judged_copy(copy, logs / "s1" / "scored" / "copy-of-copy.eval", action="overwrite")
        inspect_score(zero_a, logs / "s1" / "scored" / "cli-copy.eval")
        copy_file(copy, logs / "backup" / "copy.eval")
        failed_attempt(zero_a, logs / "s1" / "failed" / "attempt.eval", keep=10)
        explain_run(LITERAL, data_a, logs / "s1", prompt="few_shot")
        explain_run(LITERAL, data_b, logs / "s2")
        rerun = explain_run(LITERAL, data_a, logs / "s2")  # another spec's folder: the same cell again
        explain_run(LITERAL, data_a, logs / "s3", sample_id=SUBSET)
        _resumed(data_a, logs / "s4")
        classification_runs(LITERAL, data_a, logs / "s1")
        classification_runs(LITERAL, data_b, logs / "s2")
        classification_runs(LITERAL, data_a, logs / "s3")  # a rerun of both
    sheet = base / "sheet.csv"
    export_sheet(logs, sheet, n=20, generation=zero_a.name)  # the first run of zero-shot on A
    human = base / "human.csv"
    import_sheets([_fill(sheet, base / "filled.csv")], human)
    return Folder(logs, data_a, data_b, zero_a, copy, rerun, human)


def _report(root: Path, out: Path, **options: object) -> Report:
    return write_report(root, out_dir=out, formats=("md", "csv"), figures=False, **options)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def mixed(folder: Folder, tmp_path_factory: pytest.TempPathFactory) -> Report:
    return _report(folder.root, tmp_path_factory.mktemp("out"), judge="lexical", human=folder.human)


def _cells(report: Report, table: str) -> pd.DataFrame:
    return report.table(table).csv_rows


def _numbers(cells: pd.DataFrame) -> pd.DataFrame:
    """A generation's cells: the statistics, as floats (a missing one NaN), in cell order."""
    columns = ["judge_mean", "judge_mean_lo", "judge_mean_hi", "n_items", "unscored", "refused", "errors"]
    numbers = cells[columns].astype(object).where(cells[columns].notna(), math.nan).astype(float)
    return pd.concat([cells[["cell"]], numbers], axis=1).reset_index(drop=True)


# --- one generation, one row -------------------------------------------------------------------------


@pytest.mark.slow
def test_two_data_files_of_one_name_are_two_rows_labelled_with_their_data(mixed: Report) -> None:
    frame = mixed.table("table3_themes").frame
    zero = frame[(frame["model"] == LITERAL) & (frame["prompt"] == "zero_shot")]
    # A on every item, A on ten items, B: three generations of one model and prompt
    assert len(zero) == 3 and {"data", "generation"} <= set(frame.columns)
    labels = sorted(zero["data"])
    assert labels[0].startswith("data.csv ") and labels[0] != labels[-1]  # same name, other digest
    assert sorted(zero["n"]) == [10, 41, 46]


@pytest.mark.slow
def test_each_row_is_the_generation_alone(folder: Folder, mixed: Report, tmp_path: Path) -> None:
    cells = _cells(mixed, "table3_themes")
    traits = _cells(mixed, "table4_traits")
    assert list(cells.columns) == list(CELL_COLUMNS)
    for generation, group in cells.groupby("generation"):
        (log,) = set(group["log"])
        alone_dir = tmp_path / str(generation)
        copy_file(folder.root / str(log), alone_dir / Path(str(log)).name)
        alone = _report(alone_dir, tmp_path / f"{generation}-out", judge="lexical")
        mine = _cells(alone, "table3_themes")
        assert set(mine["generation"]) == {generation}
        pd.testing.assert_frame_equal(_numbers(group), _numbers(mine))
        theirs = _cells(alone, "table4_traits")
        pd.testing.assert_frame_equal(_numbers(traits[traits["generation"] == generation]), _numbers(theirs))
        counted = mixed.table("counts").frame
        row = counted[(counted["generation"] == generation) & (counted["judge"] == "lexical")].iloc[0]
        theirs_row = alone.table("counts").frame.iloc[0]
        assert (row["samples"], row["scored"], row["unscored"]) == (
            theirs_row["samples"],
            theirs_row["scored"],
            theirs_row["unscored"],
        )


@pytest.mark.slow
def test_a_rerun_is_one_row_from_its_latest_complete_log(folder: Folder, mixed: Report) -> None:
    cells = _cells(mixed, "table3_themes")
    zero = cells[
        (cells["model"] == LITERAL) & (cells["prompt"] == "zero_shot") & (cells["cell"] == "Average")
    ]
    full_a = zero[zero["n_items"] == 46]
    # The same cell in s1 (with a failed attempt and judged copies) and in s2: one row, the newest run.
    assert len(full_a) == 1
    assert full_a.iloc[0]["log"] == folder.rerun.relative_to(folder.root).as_posix()
    head = mixed.markdown.split("###")[0]
    assert "counted once: lexical on " in head and "an older or unfinished run" in head


@pytest.mark.slow
def test_the_resumed_run_is_one_generation(mixed: Report) -> None:
    cells = _cells(mixed, "table3_themes")
    resumed = cells[(cells["model"] == RESUMED) & (cells["cell"] == "Average")]
    assert len(resumed) == 1 and resumed.iloc[0]["n_items"] == 46


@pytest.mark.slow
def test_counts_and_judge_summary_count_each_judgement_once(
    folder: Folder, mixed: Report, tmp_path: Path
) -> None:
    counted = mixed.table("counts").frame
    lexical = counted[(counted["task"] == "explain") & (counted["judge"] == "lexical")]
    assert sorted(lexical["samples"]) == [10, 41, 46, 46, 46]  # no generation twice
    aspect = counted[counted["judge"] == "judge_aspect"]
    # one generation holds judge_aspect, in four files (two copies, a copy of a copy, a backup)
    (row,) = aspect.to_dict("records")
    assert (row["samples"], row["logs"]) == (46, 4)
    summary = mixed.table("judge_summary").frame.set_index("judge")
    assert summary.loc["lexical", "generations"] == 5 and summary.loc["lexical", "samples"] == 189
    assert summary.loc["judge_aspect", "samples"] == 46 and summary.loc["judge_aspect", "generations"] == 1
    assert mixed.table("judge_consistency").frame.empty  # a copy is no second judgement


@pytest.mark.slow
def test_table5_has_a_row_per_data_and_one_per_rerun(mixed: Report) -> None:
    table5 = mixed.table("table5_classification")
    assert "data" in table5.frame.columns
    full = table5.csv_rows
    assert len(full) == 2 and sorted(full["n_topic"]) == [42, 47]
    assert all(len(str(key).split(", ")) == 1 for key in full["topic_generation"])
    counted = mixed.table("counts").frame
    assert sorted(counted.loc[counted["task"] == "topic", "samples"]) == [42, 47]


@pytest.mark.slow
def test_table5_row_is_the_generation_alone(folder: Folder, mixed: Report, tmp_path: Path) -> None:
    for record in mixed.table("table5_classification").csv_rows.to_dict("records"):
        alone = tmp_path / str(record["topic_generation"])
        for log in (record["topic_log"], record["traits_log"]):
            copy_file(folder.root / str(log), alone / Path(str(log)).name)
        (theirs,) = (
            _report(alone, tmp_path / "out" / alone.name)
            .table("table5_classification")
            .csv_rows.to_dict("records")
        )
        for column in ("topic", "traits", "topic_lenient", "traits_lenient", "n_topic", "n_traits"):
            assert record[column] == pytest.approx(theirs[column]), column


@pytest.mark.slow
def test_table1_is_the_bound_run_alone(folder: Folder, mixed: Report, tmp_path: Path) -> None:
    ours = mixed.table("table1_judges").frame.set_index("judge")
    run = [f for f in (folder.root / "s1").rglob("*.eval") if f.parent.name != "failed"]
    alone = tmp_path / "alone"
    copy_file(folder.zero_a, alone / folder.zero_a.name)
    copy_file(folder.copy, alone / "copy.eval")
    theirs = _report(alone, tmp_path / "out", judge="lexical", human=folder.human).table("table1_judges")
    theirs_frame = theirs.frame.set_index("judge")
    assert run and {"lexical", "judge_aspect"} <= set(ours.index)
    for judge in ("lexical", "judge_aspect"):
        for column in ("n", "judge_mean", "human_mean", "kappa", "mae"):
            a, b = ours.loc[judge, column], theirs_frame.loc[judge, column]
            assert (a == pytest.approx(b)) or (pd.isna(a) and pd.isna(b)), (judge, column)


@pytest.mark.slow
def test_every_score_row_carries_its_generation_key(folder: Folder) -> None:
    logset = read_logs(folder.root)
    keys = {ref.rel: ref.key for ref in logset.logs}
    assert logset.scores["generation"].str.match(r"^g[0-9a-f]{12}$").all()
    assert all(
        keys[log] == key for log, key in zip(logset.scores["log"], logset.scores["generation"], strict=True)
    )


# --- the CSV schema of Tables 3 and 4 ------------------------------------------------------------------


@pytest.mark.slow
def test_cells_carry_the_interval_of_mean_interval_and_say_when_there_is_none(
    folder: Folder, mixed: Report
) -> None:
    cells = _cells(mixed, "table3_themes")
    scores = read_logs(folder.root).scores
    for record in cells.to_dict("records"):
        mine = scores[(scores["generation"] == record["generation"]) & (scores["judge"] == "lexical")]
        if record["cell"] != "Average":
            mine = mine[mine["theme"] == record["cell"]]
        expected = mean_interval(mine.groupby("id")["value"].mean())
        assert record["n_items"] == expected.n
        for ours, theirs in (
            (record["judge_mean"], expected.estimate),
            (record["judge_mean_lo"], expected.lo),
            (record["judge_mean_hi"], expected.hi),
        ):
            assert (ours is None or (isinstance(ours, float) and math.isnan(ours))) == (theirs is None)
            if theirs is not None:
                assert ours == pytest.approx(theirs)
        if expected.reason:
            assert expected.reason in record["note"]
    assert cells["note"].str.contains("too few items for a 95 % interval").any()


@pytest.mark.slow
def test_the_csv_file_is_the_long_schema_and_tex_still_works(folder: Folder, tmp_path: Path) -> None:
    report = write_report(
        folder.root, out_dir=tmp_path, formats=("csv", "tex"), figures=False, judge="lexical"
    )
    header = (tmp_path / "table3_themes.csv").read_text(encoding="utf-8").splitlines()[0]
    assert header == ",".join(CELL_COLUMNS)
    tex = (tmp_path / "table3_themes.tex").read_text(encoding="utf-8")
    assert tex.startswith("\\begin{table}") and "Average" in tex and "data.csv" in tex
    assert (tmp_path / "table4_traits.csv").read_text(encoding="utf-8").splitlines()[0] == header
    assert report.table("table4_traits").frame.columns[0] == "model"


@pytest.mark.slow
def test_a_folder_of_one_data_set_prints_no_data_column(folder: Folder, tmp_path: Path) -> None:
    alone = tmp_path / "one"
    copy_file(folder.zero_a, alone / folder.zero_a.name)
    frame = _report(alone, tmp_path / "out").table("table3_themes").frame
    assert list(frame.columns[:3]) == ["model", "prompt", "Love"]


@pytest.mark.slow
def test_figures_name_the_judge(folder: Folder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    titles: dict[str, str] = {}
    save = plots._save

    def keep_title(figure: Figure, path: Path) -> Path:
        titles[path.name] = " ".join(axes.get_title() for axes in figure.axes)
        return save(figure, path)

    monkeypatch.setattr(plots, "_save", keep_title)
    report = write_report(folder.root, out_dir=tmp_path, formats=("md",), judge="lexical")
    for figure in ("themes_heatmap.png", "traits_bars.png"):
        (line,) = [line for line in report.markdown.splitlines() if line.startswith(f"- `{figure}`")]
        assert line.endswith("judge lexical"), line
        assert "judge: lexical" in titles[figure] and (tmp_path / figure).exists()
    # two data sets: each row of a figure names its data
    assert "data.csv" in " ".join(str(t) for t in report.table("table3_themes").frame["data"])


@pytest.mark.slow
def test_copying_the_folder_keeps_the_files_read(folder: Folder, mixed: Report, tmp_path: Path) -> None:
    # The order of copies lives in the zips (when each was written), not only in the file times.
    moved = Path(shutil.copytree(folder.root, tmp_path / "moved"))
    again = _report(moved, tmp_path / "out", judge="lexical", human=folder.human)
    assert list(_cells(again, "table3_themes")["log"]) == list(_cells(mixed, "table3_themes")["log"])
