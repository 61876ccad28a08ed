"""The report on logs of plain Inspect tasks this project did not write: the generic adapter.

The tasks are defined here (a few samples, ``generate()``, scorers of their own that ask the
``grader`` role's model, a mockllm model with scripted replies) and run in this process.
"""

from __future__ import annotations

import math
import re
import runpy
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task, eval, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import Score, Target, mean, scorer
from inspect_ai.solver import TaskState, generate

from tests.test_doc_commands import page_commands
from vivid_inspect.lab.cli.main import main as vivid_main
from vivid_inspect.lab.report.build import write_report
from vivid_inspect.lab.report.cards.judge_card import BIAS_TOLERANCE, CARD_FILE, JudgeScores
from vivid_inspect.lab.report.reading.judged import JUDGED_COLUMNS, LETTER_SCALE, VIVID_SCALE, Scale, scale_of
from vivid_inspect.lab.report.reading.logs import read_logs
from vivid_inspect.lab.report.reading.score_rows import SCORE_COLUMNS, any_value

UNSCORED_ITEM = 3
"""The item whose grader reply holds no number (``Score.unscored``: NaN)."""


def _output(text: str) -> ModelOutput:
    output = ModelOutput.from_content("mockllm/model", text)
    output.usage = ModelUsage(input_tokens=5, output_tokens=2, total_tokens=7)
    return output


def _grade(messages: list[ChatMessage], *_: Any) -> ModelOutput:
    """The grader: item n gets n mod 10 + 1, item 3 a reply with no number."""
    number = int(re.findall(r"Item (\d+)", messages[-1].text)[0])
    return _output("no score" if number == UNSCORED_ITEM else f"{number % 10 + 1}")


@scorer(metrics=[mean()])
def rubric() -> Any:
    async def score(state: TaskState, target: Target) -> Score:
        reply = await get_model(role="grader").generate(f"Rate 1-10. Item {state.input_text}")
        found = re.search(r"\d+", reply.completion)
        return Score(value=int(found.group())) if found else Score.unscored(reason="no number in the reply")

    return score


@scorer(metrics=[mean()])
def letters() -> Any:
    async def score(state: TaskState, target: Target) -> Score:
        return Score(value="C" if int(state.input_text) % 2 else "I")

    return score


@scorer(metrics=[])
def several() -> Any:
    async def score(state: TaskState, target: Target) -> Score:
        return Score(value={"fluency": 3, "accuracy": 4})

    return score


@task
def capitals() -> Task:
    samples = [Sample(id=f"q{n}", input=str(n), target="Paris") for n in range(1, 13)]
    return Task(dataset=samples, solver=generate(), scorer=rubric())


@task
def two_judges() -> Task:
    samples = [Sample(id=n, input=str(n), target="x") for n in (1, 2, 10, 11)]
    return Task(dataset=samples, solver=generate(), scorer=[rubric(), letters()])


@task
def dict_scores() -> Task:
    return Task(dataset=[Sample(id=1, input="1", target="x")], solver=generate(), scorer=several())


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("any_eval")
    solver = get_model("mockllm/model", custom_outputs=lambda *_: _output("Paris"), memoize=False)
    grader = get_model("mockllm/grader", custom_outputs=_grade, memoize=False)
    for made, where in ((capitals, "capitals"), (two_judges, "others"), (dict_scores, "others")):
        (log,) = eval(
            made(), model=solver, model_roles={"grader": grader}, log_dir=str(root / where), display="none"
        )
        assert log.status == "success", log.error
    return root


def test_the_report_of_a_plain_task_prints_the_judge_mean_on_the_scale_seen(folder: Path) -> None:
    report = write_report(folder / "capitals", figures=False)

    scores = [n % 10 + 1 for n in range(1, 13) if n != UNSCORED_ITEM]
    cell = report.table("table3_themes").csv_frame
    average = cell[cell["cell"] == "Average"].iloc[0]
    assert average["judge"] == "rubric" and average["judge_model"] == "mockllm/grader"
    assert average["judge_mean"] == pytest.approx(sum(scores) / len(scores), abs=1e-12)
    assert average["n_items"] == len(scores) and average["unscored"] == 1
    assert 1 <= average["judge_mean_lo"] < average["judge_mean"] < average["judge_mean_hi"] <= 10
    assert "- headline means (judge score 1-10 over every item" in report.markdown
    assert (
        "scale 1-10: taken from the values seen (the judge's and the humans'), not declared"
        in report.markdown
    )
    assert (folder / "capitals" / "report" / CARD_FILE).is_file()
    # the card's bias tolerance is 4 % of the range: 0.2 on VIVID's 0-5, 0.36 on 1-10
    assert "bias inside ±0.36, 4% of the 1-10 range" in report.cards


@pytest.mark.parametrize(
    ("scale", "tolerance"), [(VIVID_SCALE, BIAS_TOLERANCE), (Scale(1, 10), 0.36), (LETTER_SCALE, 0.04)]
)
def test_the_bias_tolerance_is_a_share_of_the_judges_range(scale: Scale, tolerance: float) -> None:
    judge = JudgeScores("rubric", "m", "", {}, scale=scale)
    assert judge.tolerance == pytest.approx(tolerance, abs=1e-12)


def test_string_and_integer_ids_two_scorers_and_letters(folder: Path) -> None:
    logset = read_logs(folder / "others")

    rows = logset.scores
    assert set(rows["judge"]) == {"rubric", "letters"}  # two scorers: two judges
    assert set(rows["id"]) == {1, 2, 10, 11}  # whole-number ids stay numbers (numeric order)
    mine = rows[rows["judge"] == "letters"].set_index("id")
    # C and I as value_to_float maps them
    assert mine["value"].to_dict() == {1: 1.0, 2: 0.0, 10: 0.0, 11: 1.0}
    assert scale_of(mine) == LETTER_SCALE
    graded = rows[rows["judge"] == "rubric"]
    assert set(graded["judge_model"]) == {"mockllm/grader"}  # the log's grader role
    assert scale_of(graded) == Scale(1.0, 3.0, declared=False)  # no range declared: the values seen
    assert len(set(rows["generation"])) == 1
    strings = read_logs(folder / "capitals").scores
    assert set(strings["id"]) == {f"q{n}" for n in range(1, 13)}


def test_a_log_whose_scores_are_no_number_is_skipped_with_its_scorer(folder: Path) -> None:
    logset = read_logs(folder / "others")

    (skipped,) = logset.skipped
    assert "no score is a number or one of Inspect's letters C/P/I/N (scorers: several)" in skipped


@pytest.mark.parametrize(
    ("value", "expected", "refused"),
    [
        (7, 7.0, False),
        (2.5, 2.5, False),
        (-1, -1.0, False),
        ("C", 1.0, False),
        ("P", 0.5, False),
        ("I", 0.0, False),
        ("N", 0.0, False),
        (None, math.nan, False),
        (math.nan, math.nan, False),
        ({"fluency": 3}, math.nan, True),
        ([1, 2], math.nan, True),
        ("yes", math.nan, True),
        ("7", math.nan, True),
        (math.inf, math.nan, True),
        (True, math.nan, True),
    ],
)
def test_any_scorer_value(value: Any, expected: float, refused: bool) -> None:
    number, was_refused = any_value(value)
    assert was_refused is refused
    assert (math.isnan(number) and math.isnan(expected)) or number == expected


PAGE = Path(__file__).resolve().parents[4] / "docs" / "any-eval.md"


def test_the_any_eval_page_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/any-eval.md: its file written, its commands run in this process, in order."""
    commands = page_commands(PAGE)
    assert [c.words[:2] for c in commands] == [("python", "any_eval_demo.py"), ("vivid", "report")]
    monkeypatch.chdir(tmp_path)
    for name, text in commands[0].files:
        (tmp_path / name).write_text(text, encoding="utf-8")
    runpy.run_path(commands[0].words[1], run_name="__main__")
    assert vivid_main(list(commands[1].words[1:])) == 0
    report = (tmp_path / commands[1].words[2] / "report" / "report.md").read_text(encoding="utf-8")
    assert "- headline means (judge score 2-10 over every item" in report
    assert "judge rubric [mockllm/model]" in report and "n=8" in report


def test_the_score_rows_hold_every_column_of_the_contract() -> None:
    assert set(JUDGED_COLUMNS) <= set(SCORE_COLUMNS)
