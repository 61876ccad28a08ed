"""``vivid report --group KEY``: another eval's judge means per label of a sample metadata key.

The groups are Tables 3 and 4 for any eval: the generic adapter fills a group column per key the
user names (`vivid_inspect.lab.report.reading.any_eval.group_rows`) and the table builder of VIVID's
themes and traits reads it. The tasks are defined here and run in this process with mockllm.
"""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from inspect_ai import Task, eval, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessage, ModelOutput, get_model
from inspect_ai.scorer import Score, Target, mean, scorer
from inspect_ai.solver import TaskState, generate

from tests.scripted import output
from tests.test_doc_commands import page_commands
from vivid_inspect.lab.cli.main import main as vivid_main
from vivid_inspect.lab.report.build import Report, write_report
from vivid_inspect.lab.report.reading.any_eval import group_column, group_rows
from vivid_inspect.lab.report.stats.intervals import MIN_N_MEAN
from vivid_inspect.lab.report.tables.corrected_tables import MIN_LABELLED

ITEMS = 40
REGIONS = ("north", "south")


def _region(n: int) -> str:
    """North: 2 items in 3 (20 of the 30 the humans scored), south the others."""
    return "north" if n % 3 else "south"


def _tags(n: int) -> list[str]:
    """A list value: item n counts toward each of its tags (10, 20 and 30 toward both)."""
    return [tag for tag, divisor in (("even", 2), ("five", 5)) if n % divisor == 0]


def _rubric_score(n: int) -> int:
    return n % 10 + 1


def _letter_score(n: int) -> float:
    return 1.0 if n % 2 else 0.0


def _grade(messages: list[ChatMessage], *_: Any) -> ModelOutput:
    return output(str(_rubric_score(int(messages[-1].text.rsplit(" ", 1)[-1]))))


@scorer(metrics=[mean()])
def rubric() -> Any:
    async def score(state: TaskState, target: Target) -> Score:
        reply = await get_model(role="grader").generate(f"Rate 1-10. Item {state.input_text}")
        return Score(value=int(reply.completion))

    return score


@scorer(metrics=[mean()])
def letters() -> Any:
    async def score(state: TaskState, target: Target) -> Score:
        return Score(value="C" if _letter_score(int(state.input_text)) else "I")

    return score


def _samples() -> list[Sample]:
    return [
        Sample(
            id=f"s{n}",
            input=str(n),
            target="x",
            # level: a number, a label as text; note: None on most items, which are in no group of it
            metadata={
                "region": _region(n),
                "tags": _tags(n),
                "level": n % 2,
                "note": "odd" if n == 7 else None,
            },
        )
        for n in range(1, ITEMS + 1)
    ]


@task
def grouped_two_judges() -> Task:
    return Task(dataset=_samples(), solver=generate(), scorer=[rubric(), letters()])


@task
def grouped_rubric() -> Task:
    return Task(dataset=_samples(), solver=generate(), scorer=rubric())


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("groups")
    solver = get_model("mockllm/model", custom_outputs=lambda *_: output("x"), memoize=False)
    grader = get_model("mockllm/grader", custom_outputs=_grade, memoize=False)
    for made, where in ((grouped_two_judges, "two"), (grouped_rubric, "one")):
        (log,) = eval(
            made(), model=solver, model_roles={"grader": grader}, log_dir=str(root / where), display="none"
        )
        assert log.status == "success", log.error
    return root


@pytest.fixture(scope="module")
def report(folder: Path) -> Report:
    return write_report(folder / "two", groups=["region", "tags", "level", "note"], figures=False)


HUMANS = range(1, 31)
"""The items the humans scored: s1 to s30 (20 of them north, 10 south)."""


@pytest.fixture(scope="module")
def human_report(folder: Path, tmp_path_factory: pytest.TempPathFactory) -> Report:
    human = tmp_path_factory.mktemp("humans") / "humans.csv"
    rows = [f"s{n},{min(10, _rubric_score(n) + k % 2)},{name}" for k, name in enumerate("ab") for n in HUMANS]
    human.write_text("id,score,annotator\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return write_report(folder / "one", human=human, groups=["region", "tags"], figures=False)


def _cells(report: Report, key: str) -> pd.DataFrame:
    return report.table(f"group_{key}").csv_rows


@pytest.mark.parametrize(
    ("key", "label", "members"),
    [
        ("region", "north", [n for n in range(1, ITEMS + 1) if _region(n) == "north"]),
        ("region", "south", [n for n in range(1, ITEMS + 1) if _region(n) == "south"]),
        ("tags", "even", [n for n in range(1, ITEMS + 1) if n % 2 == 0]),
        ("tags", "five", list(range(5, ITEMS + 1, 5))),
        ("level", "0", [n for n in range(1, ITEMS + 1) if n % 2 == 0]),
        ("note", "odd", [7]),
    ],
)
@pytest.mark.parametrize(("judge", "value"), [("rubric", _rubric_score), ("letters", _letter_score)])
def test_each_judge_gets_its_mean_and_interval_per_label(
    report: Report, key: str, label: str, members: list[int], judge: str, value: Any
) -> None:
    cells = _cells(report, key)
    (cell,) = cells[(cells["judge"] == judge) & (cells["cell"] == label)].to_dict("records")
    expected = sum(value(n) for n in members) / len(members)
    assert cell["judge_mean"] == pytest.approx(expected, abs=1e-12)
    assert cell["n_items"] == len(members)
    if len(members) >= MIN_N_MEAN:
        assert cell["judge_mean_lo"] <= cell["judge_mean"] <= cell["judge_mean_hi"]
    else:
        assert pd.isna(cell["judge_mean_lo"]) and cell["note"]


def test_the_cells_are_the_labels_seen_and_a_list_counts_toward_each(report: Report) -> None:
    assert sorted(set(_cells(report, "region")["cell"])) == sorted(REGIONS)
    assert set(_cells(report, "tags")["cell"]) == {"even", "five"}  # an item with no tag counts toward none
    assert set(_cells(report, "note")["cell"]) == {"odd"}  # None is no label
    tags = _cells(report, "tags")
    counted = tags[tags["judge"] == "rubric"]["n_items"].sum()
    assert counted == 20 + 8  # 10, 20, 30 and 40 counted in both cells


def test_one_row_per_generation_and_judge_named_when_several(report: Report) -> None:
    table = report.table("group_region")
    assert list(table.frame["judge"]) == ["letters [mockllm/grader]", "rubric [mockllm/grader]"]
    assert list(table.frame.columns[:3]) == ["model", "prompt", "judge"]
    assert "Mean judge score (0-1) by region" not in table.title  # two scales: each judge's
    assert table.title == "Mean judge score (on each judge's scale) by region"
    assert "| region |" not in report.markdown and "### Mean judge score" in report.markdown


def test_the_human_scores_give_the_corrected_mean_per_label_as_table_3_per_theme(
    human_report: Report,
) -> None:
    cells = _cells(human_report, "region").set_index("cell")
    north, south = cells.loc["north"], cells.loc["south"]
    assert north["n_human"] == MIN_LABELLED == 20
    assert north["corrected_mean_lo"] <= north["corrected_mean"] <= north["corrected_mean_hi"]
    assert north["human_mean"] == pytest.approx(
        sum(min(10, _rubric_score(n) + k) for n in HUMANS if n % 3 for k in (0, 1)) / 40, abs=1e-12
    )
    # below the statistic's minimum: no interval, and the note says why
    assert south["n_human"] == 10 and pd.isna(south["corrected_mean_lo"])
    assert "too few labelled items" in south["corrected_note"]
    # the same builder as Table 3: a group of every item is its Average cell
    average = human_report.table("table3_themes").csv_rows.set_index("cell").loc["Average"]
    assert (
        average["n_human"] == len(HUMANS)
        and _cells(human_report, "tags").set_index("cell").loc["even", "n_human"] == 15
    )
    assert human_report.table("group_region_corrected").frame["cell"].tolist() == list(REGIONS)


def test_the_same_builder_fills_a_label_every_item_has_as_table_3s_average(folder: Path) -> None:
    rows = write_report(folder / "one", groups=["region"], figures=False, formats="csv")
    average = rows.table("table3_themes").csv_rows.set_index("cell").loc["Average"]
    cells = _cells(rows, "region")
    assert cells["n_items"].sum() == average["n_items"] == ITEMS


def test_a_key_named_twice_gives_one_table(folder: Path) -> None:
    report = write_report(folder / "one", groups=["region", "region"], figures=False, formats="csv")
    assert [table.name for table in report.tables].count("group_region") == 1


def test_a_key_no_sample_has_is_one_line_naming_the_keys(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(ValueError, match=r"--group 'regoin': no judged sample's metadata has this key"):
        write_report(folder / "two", groups=["regoin"], figures=False)
    assert vivid_main(["report", str(folder / "two"), "--group", "region", "--group", "regoin"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line == (
        "vivid report: --group 'regoin': no judged sample's metadata has this key; "
        "its keys: 'level', 'note', 'region', 'tags'"
    )


@pytest.mark.parametrize(
    ("metadata", "labels"),
    [
        ({"k": "a"}, ("a",)),
        ({"k": 3}, ("3",)),
        ({"k": ["a", "b", "a"]}, ("a", "b")),
        ({"k": []}, ()),
        ({"k": None}, ()),
        ({"other": 1}, ()),
        (None, ()),
    ],
)
def test_the_labels_of_one_metadata_value(metadata: Any, labels: tuple[str, ...]) -> None:
    rows = pd.DataFrame({"metadata": [metadata, {"k": "z"}]})
    assert group_rows(rows, ["k"])[group_column("k")].iloc[0] == labels


PAGE = Path(__file__).resolve().parents[4] / "docs" / "any-eval.md"


def test_the_groups_section_of_the_any_eval_page_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commands = page_commands(PAGE)
    (grouped,) = [c for c in commands if "--group" in c.words]
    monkeypatch.chdir(tmp_path)
    for name, text in commands[0].files:
        (tmp_path / name).write_text(text, encoding="utf-8")
    runpy.run_path(commands[0].words[1], run_name="__main__")
    assert vivid_main(list(grouped.words[1:])) == 0
    report = (tmp_path / grouped.words[2] / "report" / "report.md").read_text(encoding="utf-8")
    assert "### Mean judge score (2-10) by continent" in report
    assert "### Mean judge score (2-10) by languages" in report
    assert "| model | prompt | Africa | America | Asia | Europe | Oceania | n |" in report
    # Kenya, Canada and Australia speak English: a list counts toward each of its labels
    assert "| English | French | Japanese | Quechua | Spanish | Swahili | Vietnamese | n |" in report
    cells = pd.read_csv(tmp_path / grouped.words[2] / "report" / "group_languages.csv").set_index("cell")
    assert cells.loc["English", "n_items"] == 3 and cells.loc["French", "n_items"] == 2
