"""The report on logs of plain Inspect tasks this project did not write: the generic adapter.

The tasks are defined here (a few samples, ``generate()``, scorers of their own that ask the
``grader`` role's model, a mockllm model with scripted replies) and run in this process.
"""

from __future__ import annotations

import math
import re
import runpy
import shlex
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from inspect_ai import Task, eval, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessage, ModelOutput, get_model
from inspect_ai.scorer import Score, Target, mean, scorer
from inspect_ai.solver import TaskState, generate
from sklearn.metrics import cohen_kappa_score

from tests.recommended_commands import failing, recommended, vivid_only
from tests.scripted import output
from tests.test_doc_commands import page_commands
from vivid_inspect.generation_key import Generation
from vivid_inspect.lab.cli.main import main as vivid_main
from vivid_inspect.lab.humans.annotate.sheet_export import export_sheet
from vivid_inspect.lab.humans.scores_file import HumanScoresError
from vivid_inspect.lab.report.build import write_report
from vivid_inspect.lab.report.cards.human_files import bind_files, read_human_files
from vivid_inspect.lab.report.cards.judge_card import BIAS_TOLERANCE, CARD_FILE, JudgeScores
from vivid_inspect.lab.report.reading.judged import JUDGED_COLUMNS, LETTER_SCALE, VIVID_SCALE, Scale, scale_of
from vivid_inspect.lab.report.reading.logs import read_logs
from vivid_inspect.lab.report.reading.score_rows import SCORE_COLUMNS, any_value
from vivid_inspect.lab.report.stats.agreement import agreement

UNSCORED_ITEM = 3
"""The item whose grader reply holds no number (``Score.unscored``: NaN)."""
ITEMS = 40
"""The items of `capitals`: ids ``q1`` to ``q40``."""


def _grade(messages: list[ChatMessage], *_: Any) -> ModelOutput:
    """The grader: item n gets n mod 10 + 1, item 3 a reply with no number."""
    number = int(re.findall(r"Item (\d+)", messages[-1].text)[0])
    return output("no score" if number == UNSCORED_ITEM else f"{number % 10 + 1}")


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
    samples = [Sample(id=f"q{n}", input=str(n), target="Paris") for n in range(1, ITEMS + 1)]
    return Task(dataset=samples, solver=generate(), scorer=rubric())


@task
def two_judges() -> Task:
    samples = [Sample(id=n, input=str(n), target="x") for n in (1, 2, 10, 11)]
    return Task(dataset=samples, solver=generate(), scorer=[rubric(), letters()])


@task
def letters_only() -> Task:
    return Task(
        dataset=[Sample(id=n, input=str(n), target="x") for n in (1, 2)], solver=generate(), scorer=letters()
    )


@task
def dict_scores() -> Task:
    return Task(dataset=[Sample(id=1, input="1", target="x")], solver=generate(), scorer=several())


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("any_eval")
    solver = get_model("mockllm/model", custom_outputs=lambda *_: output("Paris"), memoize=False)
    grader = get_model("mockllm/grader", custom_outputs=_grade, memoize=False)
    made_in = (
        (capitals, "capitals"),
        (two_judges, "others"),
        (dict_scores, "others"),
        (letters_only, "letters"),
    )
    for made, where in made_in:
        (log,) = eval(
            made(), model=solver, model_roles={"grader": grader}, log_dir=str(root / where), display="none"
        )
        assert log.status == "success", log.error
    return root


def test_the_report_of_a_plain_task_prints_the_judge_mean_on_the_scale_seen(folder: Path) -> None:
    report = write_report(folder / "capitals", figures=False)

    scores = [n % 10 + 1 for n in range(1, ITEMS + 1) if n != UNSCORED_ITEM]
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
    assert set(strings["id"]) == {f"q{n}" for n in range(1, ITEMS + 1)}


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
    assert [c.words[:2] for c in commands] == [
        ("python", "any_eval_demo.py"),
        ("vivid", "report"),
        ("vivid", "report"),
        ("vivid", "report"),  # --group: tests/lab/report/reading/test_any_eval_groups.py runs it
    ]
    monkeypatch.chdir(tmp_path)
    for name, text in commands[0].files:
        (tmp_path / name).write_text(text, encoding="utf-8")
    runpy.run_path(commands[0].words[1], run_name="__main__")
    assert vivid_main(list(commands[1].words[1:])) == 0
    report = (tmp_path / commands[1].words[2] / "report" / "report.md").read_text(encoding="utf-8")
    assert "- headline means (judge score 2-10 over every item" in report
    assert "judge rubric [mockllm/model]" in report and "n=8" in report
    # the human step: 5 of the 8 items, two annotators, the sample ids as the task wrote them
    assert vivid_main(list(commands[2].words[1:])) == 0
    report = (tmp_path / commands[2].words[2] / "report" / "report.md").read_text(encoding="utf-8")
    assert "corrected by 5 human labels" in report and "### Alternative annotator test" in report
    card = (tmp_path / commands[2].words[2] / "report" / CARD_FILE).read_text(encoding="utf-8")
    assert "## Bias and the corrected means" in card and "| 5 | 8 |" in card


def test_the_score_rows_hold_every_column_of_the_contract() -> None:
    assert set(JUDGED_COLUMNS) <= set(SCORE_COLUMNS)


LABELLED = [n for n in range(1, 32) if n != UNSCORED_ITEM]
"""The items the humans scored: part of `capitals` (the unscored item left out)."""
ANNOTATORS = ("ann", "bob", "cy")


def _judge(n: int) -> int:
    return n % 10 + 1


def _human(n: int, k: int) -> int:
    """Annotator k's score of item n: the judge's, one up, or one down, within 1-10."""
    return min(10, max(1, _judge(n) + (n + k) % 3 - 1))


def _write_humans(path: Path, rows: list[str]) -> Path:
    path.write_text("id,score,annotator\n" + "".join(f"{row}\n" for row in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def human_report(folder: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    rows = [f"q{n},{_human(n, k)},{name}" for k, name in enumerate(ANNOTATORS) for n in LABELLED]
    human = _write_humans(tmp_path_factory.mktemp("humans") / "humans.csv", rows)
    return write_report(folder / "capitals", human=human, figures=False)


def test_human_scores_of_part_of_a_plain_task_give_the_ppi_py_corrected_mean(human_report: Any) -> None:
    with warnings.catch_warnings():
        from ppi_py import ppi as ppi_module

    bias = human_report.table("judge_bias").frame.iloc[0]
    y = np.array([np.mean([_human(n, k) for k in range(len(ANNOTATORS))]) for n in LABELLED])
    yhat = np.array([_judge(n) for n in LABELLED], dtype=float)
    every = np.array([_judge(n) for n in range(1, ITEMS + 1) if n != UNSCORED_ITEM], dtype=float)
    # the documented finite-population estimate: ppi_py's with every scored item as the judged set
    expected = ppi_module.ppi_mean_pointestimate(y, yhat, every, lam=bias["lam"])
    assert bias["corrected_mean"] == pytest.approx(float(np.asarray(expected).ravel()[0]), abs=1e-9)
    assert bias["n_human"] == len(LABELLED) and bias["n_items"] == ITEMS - 1
    assert bias["corrected_mean_lo"] < bias["corrected_mean"] < bias["corrected_mean_hi"]
    shown = f"{bias['corrected_mean']:.2f} [{bias['corrected_mean_lo']:.2f}, {bias['corrected_mean_hi']:.2f}]"
    assert f"corrected by {len(LABELLED)} human labels: {shown}" in human_report.summary


def test_the_card_the_alt_test_and_table_1_of_a_plain_task_with_humans(
    human_report: Any, folder: Path
) -> None:
    card = (folder / "capitals" / "report" / CARD_FILE).read_text(encoding="utf-8")
    assert card == human_report.cards
    assert (
        "**Its means are unbiased on these generations (bias inside ±0.36, 4% of the 1-10 range): yes.**"
        in card
    )
    alt = human_report.table("alt_test").frame
    assert list(alt["annotators_tested"]) == [len(ANNOTATORS)] and list(alt["items"]) == [len(LABELLED)]
    table1 = human_report.table("table1_judges").frame.set_index("judge")
    judge = table1.loc["rubric"]
    means = [np.mean([_human(n, k) for k in range(len(ANNOTATORS))]) for n in LABELLED]
    assert judge["n"] == len(LABELLED) and judge["human_mean"] == pytest.approx(np.mean(means), abs=1e-9)
    # 1-10 is no declared scale of ordinal levels: no kappa squeezed into 0-5's six categories, one note why
    assert pd.isna(judge["kappa"]) and pd.isna(judge["alpha"]) and judge["spearman"] > 0.9
    left_out = "kappa, weighted kappa, alpha, exact and within-1 agreement left out: scale 1-10"
    assert left_out in judge["notes"]
    notes = human_report.table("table1_judges").notes
    assert any(note.startswith(left_out) for note in notes) and not any("rounded half up" in n for n in notes)


@pytest.mark.parametrize(
    ("where", "row", "message"),
    [
        ("capitals", "q999,5,ann", "column 'id': id 'q999' is not an item of the generation"),
        ("capitals", "3,5,ann", "column 'id': id '3' is not an item of the generation"),
        ("capitals", "q1,abc,ann", "column 'score': score must be a number, found 'abc'"),
        ("capitals", "q1,nan,ann", "column 'score': score must be a number, found 'nan'"),
        ("capitals", "q1,inf,ann", "column 'score': score must be a number, found 'inf'"),
        ("capitals", "q1,1e3,ann", "column 'score': score must be a number, found '1e3'"),
        ("capitals", "q1,,ann", "column 'score': score must be a number, but it is empty"),
        ("capitals", "q1," + "9" * 400 + ",ann", "column 'score': score must be a number, found '99999"),
        ("others", "5,4,ann", "column 'id': id '5' is not an item of the generation"),
        (
            "letters",
            "1,2,bob",
            "column 'score': score must be a number from 0 to 1 (the judge's scale), found '2'",
        ),
        (
            "letters",
            "2,-0.5,ann",
            "column 'score': score must be a number from 0 to 1 (the judge's scale), found '-0.5'",
        ),
    ],
)
def test_a_bad_human_row_on_another_evals_generation_is_named(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str, row: str, message: str
) -> None:
    """The class of bad human inputs on a generic generation: each one line naming the file and the row."""
    first = "q2,4,ann" if where == "capitals" else "1,1,ann"
    human = _write_humans(tmp_path / "humans.csv", [first, row])
    assert (
        vivid_main(["report", str(folder / where), "--human", str(human), "--out", str(tmp_path / "out")])
        == 2
    )
    error = capsys.readouterr().err
    assert str(human) in error and f"data row 2 (line 3), {message}" in error


@pytest.mark.parametrize(
    ("scale", "kappa"),
    [
        (Scale(1, 5, ordinal=True), True),
        (LETTER_SCALE, True),
        (Scale(1, 10), False),
        (Scale(1, 10, ordinal=True), False),
    ],
)
def test_the_kappa_family_only_on_declared_ordinal_levels_that_fit(scale: Scale, kappa: bool) -> None:
    low, high = int(scale.low), int(scale.high)
    judge = {f"q{i}": float(low + i % (high - low + 1)) for i in range(12)}
    human = {key: float(min(high, value + (i % 2))) for i, (key, value) in enumerate(judge.items())}
    result = agreement(judge, human, scale=scale)
    assert result.mae == pytest.approx(np.mean([abs(judge[k] - human[k]) for k in judge]), abs=1e-12)
    if kappa:  # the levels from the scale's low end, as kappa's categories
        ids = sorted(judge)
        expected = cohen_kappa_score([human[i] for i in ids], [judge[i] for i in ids])
        assert result.kappa == pytest.approx(expected, abs=1e-12) and result.exact is not None
    else:  # never squeezed into 0-5's six categories: left out, one note why
        assert (result.kappa, result.alpha, result.exact, result.confusion) == (None, None, None, ())
        assert any(
            note.startswith(
                f"kappa, weighted kappa, alpha, exact and within-1 agreement left out: scale {scale.label}"
            )
            for note in result.notes
        )


def test_several_generations_of_other_evals_need_the_human_generation_selector(
    folder: Path, tmp_path: Path
) -> None:
    human = _write_humans(tmp_path / "humans.csv", [f"q{n},{_human(n, 0)},ann" for n in (1, 2, 4)])
    with pytest.raises(ValueError, match="--human-generation"):
        write_report(folder, human=human, out_dir=tmp_path / "out", figures=False)
    report = write_report(
        folder, human=human, human_generation="capitals", out_dir=tmp_path / "out", figures=False
    )
    bias = report.table("judge_bias").frame
    assert list(bias["n_human"]) == [3] and list(bias["judge"]) == ["rubric"]


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (["q1,4,ann"], "column 'id': id must be an integer, found 'q1'"),  # text ids on VIVID's generation
        (["1,7,ann"], "column 'score': score must be a whole number from 0 to 5, found '7'"),
        (
            ["1,abc,ann"],
            "column 'score': score must be a whole number from 0 to 5, found 'abc'",
        ),  # a tie: VIVID's
        (
            ["q1,abc,ann", "q2,x,ann"],
            "column 'score': score must be a number, found 'abc'",
        ),  # text ids: another eval's
    ],
)
def test_a_file_that_breaks_vivids_rules_keeps_vivids_message_unless_bound_to_another_eval(
    tmp_path: Path, rows: list[str], message: str
) -> None:
    vivid = Generation("explain", "1", "m/gen", "zero_shot", "sample", (1, 2), "E1", "gen.eval")
    human = _write_humans(tmp_path / "humans.csv", rows)
    with pytest.raises(HumanScoresError, match="problem") as raised:
        bind_files([vivid], {(vivid.key, "E1")}, read_human_files([human]))
    assert f"data row 1 (line 2), {message}" in str(raised.value)


@pytest.mark.parametrize("humans", [False, True])
def test_another_evals_report_recommends_only_commands_that_work_on_it(
    folder: Path, human_report: Any, tmp_path: Path, humans: bool
) -> None:
    """Issue 29's class on another eval's folder: every recommended command parses, none is VIVID-only."""
    out = folder / "capitals" / "report"  # human_report's
    if not humans:
        out = tmp_path / "out"
        write_report(folder / "capitals", out_dir=out, figures=False)
    written = [out / "report.md", out / CARD_FILE]
    assert failing(written) == {} and vivid_only(written) == []
    if not humans:  # the summary and the card both say how to add human scores, with the commands to run
        summary, card = (path.read_text(encoding="utf-8") for path in written)
        for text in (summary, card):
            (serve,) = [c for c in recommended(text) if c.startswith("vivid annotate serve")]
            words = shlex.split(serve)
            assert words[3] == str(folder / "capitals") and "--annotators" in words
            # the generation it names is the one `vivid annotate` draws the items of
            sheet = export_sheet(
                folder / "capitals", tmp_path / "sheet.csv", n=3, generation=words[5], force=True
            )
            assert len(sheet) == 3
            assert f"`vivid report {folder / 'capitals'} --human " in text
        assert "vivid audit probes VIVID's judges" in card


def test_the_summarys_human_command_runs_on_a_folder_of_several_generations_of_other_evals(
    folder: Path, tmp_path: Path
) -> None:
    """Several generations share ``mockllm/model -``: the command names the key, and runs as written."""
    report = write_report(folder, out_dir=tmp_path / "first", figures=False)
    (command,) = [c for c in recommended(report.summary) if c.startswith("vivid report")]
    words = shlex.split(command)[1:]
    assert words[:4] == ["report", str(folder), "--human", "humans.csv"] and words[4] == "--human-generation"
    human = _write_humans(
        tmp_path / "humans.csv",
        [f"q{n},{_human(n, k)},{a}" for k, a in enumerate(ANNOTATORS) for n in LABELLED],
    )
    assert vivid_main([*words[:3], str(human), *words[4:], "--out", str(tmp_path / "out")]) == 0
    bias = pd.read_csv(tmp_path / "out" / "judge_bias.csv")
    assert list(bias["n_human"]) == [len(LABELLED)] and list(bias["judge"]) == ["rubric"]


def test_two_files_of_one_generation_of_another_eval_are_told_to_merge_without_vivid_annotate(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An error message recommends only what works on another eval: one CSV, not `vivid annotate import`."""
    first, second = (_write_humans(tmp_path / f"{a}.csv", [f"q1,5,{a}", f"q2,4,{a}"]) for a in ANNOTATORS[:2])
    words = ["report", str(folder / "capitals"), "--human", str(first), "--human", str(second)]
    assert vivid_main([*words, "--out", str(tmp_path / "out")]) == 2
    error = capsys.readouterr().err
    assert "are both bound to generation" in error and "with the annotator column" in error
    assert failing([error]) == {} and vivid_only([error]) == [] and "annotate" not in error


def test_the_errors_example_selector_picks_one_of_several_generations_of_other_evals(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Three generations share ``mockllm/model -``: the error's example names a key, and it runs as written."""
    human = _write_humans(tmp_path / "humans.csv", ["q1,5,ann", "q2,4,ann"])  # capitals', the first listed
    assert vivid_main(["report", str(folder), "--human", str(human), "--out", str(tmp_path / "out")]) == 2
    example = re.search(r"\(e\.g\. (--human-generation [^)]*)\)", capsys.readouterr().err)
    assert example is not None and '"' not in example[1]
    words = [
        "report",
        str(folder),
        "--human",
        str(human),
        *shlex.split(example[1]),
        "--out",
        str(tmp_path / "o"),
    ]
    assert vivid_main(words) == 0
