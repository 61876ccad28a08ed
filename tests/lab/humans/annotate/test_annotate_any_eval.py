"""`vivid annotate serve` and `export` on logs of plain Inspect tasks this project did not write.

Two tasks are defined here and run in this process with Inspect's mockllm model: one whose
grader rates each answer 1-10 (a range nobody declares: the annotators get the range of the
judge's scores) and one whose scorer gives Inspect's letters (the declared 0-1 scale, levels 0,
0.5 and 1). The server is driven in-process, as the other annotate tests do, and its human
scores file goes to `vivid report` as the page's command says, with no other option.
"""

from __future__ import annotations

import json
import math
import re
import shlex
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from inspect_ai import Task, eval, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessage, ModelOutput, get_model
from inspect_ai.scorer import Score, Target, mean, scorer
from inspect_ai.solver import TaskState, generate
from starlette.testclient import TestClient

from tests.lab.humans.annotate.test_annotate_browser import (  # noqa: F401 - driver is a fixture
    driver,
    keys,
    loaded,
    progress,
    serving_in_process,
    text,
)
from tests.scripted import output
from vivid_inspect.lab.cli.main import main as vivid_main
from vivid_inspect.lab.humans.annotate.app import TOKEN_HEADER, create_app
from vivid_inspect.lab.humans.annotate.items import ANY_COLUMNS, read_sheet
from vivid_inspect.lab.humans.annotate.opening import open_workspace
from vivid_inspect.lab.humans.annotate.sheet_export import export_sheet
from vivid_inspect.lab.humans.annotate.workspace import Workspace
from vivid_inspect.lab.humans.scores_file import HumanScoresError, read_generation_record, record_path
from vivid_inspect.lab.humans.sheet_import import import_sheets

ITEMS = 24
"""The rated task's items, ``q1`` to ``q24``."""
LABELLED = 21
"""Items the humans score: enough for a corrected mean with its interval (20)."""


def judge(n: int) -> int:
    """The grader's rating of item n: 1 to 10."""
    return n % 10 + 1


def human(n: int) -> int:
    """The humans' score of item n: one above the judge's, 10 at most."""
    return min(10, judge(n) + 1)


def _grade(messages: list[ChatMessage], *_: Any) -> ModelOutput:
    return output(str(judge(int(re.findall(r"Item (\d+)", messages[-1].text)[0]))))


@scorer(metrics=[mean()])
def rubric() -> Any:
    async def score(state: TaskState, target: Target) -> Score:
        reply = await get_model(role="grader").generate(f"Rate 1-10. {state.input_text}")
        return Score(value=int(reply.completion))

    return score


@scorer(metrics=[mean()])
def letters() -> Any:
    async def score(state: TaskState, target: Target) -> Score:
        return Score(value="CPI"[int(state.input_text.split()[-1]) % 3])

    return score


@task
def rated() -> Task:
    samples = [Sample(id=f"q{n}", input=f"Item {n}", target=f"answer {n}") for n in range(1, ITEMS + 1)]
    return Task(dataset=samples, solver=generate(), scorer=rubric())


@task
def lettered() -> Task:
    return Task(
        dataset=[Sample(id=n, input=f"Item {n}") for n in range(1, 7)], solver=generate(), scorer=letters()
    )


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("any_annotate")
    answerer = get_model("mockllm/model", custom_outputs=lambda *_: output("My answer."), memoize=False)
    grader = get_model("mockllm/grader", custom_outputs=_grade, memoize=False)
    for made in (rated, lettered):
        (log,) = eval(
            made(),
            model=answerer,
            model_roles={"grader": grader},
            log_dir=str(root / made.__name__),
            display="none",
        )
        assert log.status == "success", log.error
    return {"rated": root / "rated", "lettered": root / "lettered"}


def served(folder: Path, out: Path, names: tuple[str, ...] = ("ann", "bob"), overlap: int = 2) -> Workspace:
    return open_workspace(folder, list(names), overlap=overlap, folder=out)


def post(client: TestClient, space: Workspace, name: str, item: Any, value: Any) -> Any:
    headers = {TOKEN_HEADER: space.url_token(name), "Content-Type": "application/json"}
    # json.dumps writes NaN, as a careless client could send it
    return client.post("/api/score", headers=headers, content=json.dumps({"id": item, "score": value}))


def number(item: Any) -> int:
    return int(str(item).removeprefix("q"))


def test_serve_on_a_plain_tasks_logs_then_its_command_reports_a_corrected_mean(
    logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    space = open_workspace(logs["rated"], ["ann", "bob"], overlap=2, n=LABELLED, folder=tmp_path / "ann")
    with TestClient(create_app(space)) as client:
        for name in ("ann", "bob"):
            for item in space.plan.queues[name]:
                assert post(client, space, name, item, human(number(item))).status_code == 200
    scores = pd.read_csv(space.humans_path, dtype=str)
    assert list(scores.columns) == ["id", "score", "annotator", "generation"]
    assert set(scores["id"]) == {item.id for item in space.sheet.items}  # ids as the task wrote them
    command = shlex.split(space.report_command())
    assert command[:2] == ["vivid", "report"] and command[3:] == ["--human", str(space.humans_path.resolve())]
    labelled = sorted(number(str(item.id)) for item in space.sheet.items)
    space.close()

    assert vivid_main([*command[1:], "--out", str(tmp_path / "report"), "--no-figures"]) == 0
    bias = pd.read_csv(tmp_path / "report" / "judge_bias.csv").iloc[0]
    # the finite-population estimate: the humans' mean, corrected by the judge on every item
    every = [judge(n) for n in range(1, ITEMS + 1)]
    expected = sum(map(human, labelled)) / len(labelled) + bias["lam"] * (
        sum(every) / ITEMS - sum(map(judge, labelled)) / len(labelled)
    )
    assert bias["corrected_mean"] == pytest.approx(expected, abs=1e-4)  # the CSV's 4 decimals
    shown = f"{bias['corrected_mean']:.2f} [{bias['corrected_mean_lo']:.2f}, {bias['corrected_mean_hi']:.2f}]"
    assert f"corrected by {LABELLED} human labels: {shown}" in capsys.readouterr().out


def test_scores_are_kept_on_disk_and_read_back_after_a_restart(logs: dict[str, Path], tmp_path: Path) -> None:
    space = served(logs["rated"], tmp_path / "ann")
    item = space.plan.queues["ann"][0]
    with TestClient(create_app(space)) as client:
        assert post(client, space, "ann", item, 7.5).json()["score"] == 7.5
    space.close()
    again = served(logs["rated"], tmp_path / "ann")
    assert again.annotators["ann"].scores == {item: 7.5}
    sheet = pd.read_csv(again.annotators["ann"].path, dtype=str, keep_default_na=False)
    assert list(sheet.columns) == ["id", *ANY_COLUMNS, "score", "annotator", "generation"]
    again.close()


def test_the_page_is_blind_and_shows_input_output_and_target(logs: dict[str, Path], tmp_path: Path) -> None:
    space = served(logs["rated"], tmp_path / "ann")
    state = space.state("ann")
    space.close()
    item = state["items"][0]
    assert set(item) == {"id", "input", "target", "output", "score"}
    n = number(item["id"])
    assert (item["input"], item["target"], item["output"]) == (f"Item {n}", f"answer {n}", "My answer.")
    sent = json.dumps(state)
    for secret in ("mockllm", "grader", "rubric", "judge_model"):  # no model, scorer or judge
        assert secret not in sent
    assert state["guidelines"] is None


@pytest.mark.parametrize(
    ("task", "scale"),
    [
        (
            "rated",  # no scale declared: the range of the judge's scores, said so on the page
            {
                "low": 1.0,
                "high": 10.0,
                "levels": None,
                "rule": "score must be a number from 1 to 10",
                "note": "scale 1-10: the range of the judge's scores (no scale was declared)",
            },
        ),
        (
            "lettered",  # Inspect's letters: the declared 0-1, levels I, P, C
            {
                "low": 0.0,
                "high": 1.0,
                "levels": [0.0, 0.5, 1.0],
                "rule": "score must be one of 0, 0.5, 1",
                "note": None,
            },
        ),
    ],
)
def test_the_page_offers_the_judges_scale(
    logs: dict[str, Path], tmp_path: Path, task: str, scale: Any
) -> None:
    space = served(logs[task], tmp_path / "ann")
    state = json.loads(json.dumps(space.state("ann")))
    space.close()
    assert state["scale"] == scale
    if task == "lettered":
        assert {item["target"] for item in state["items"]} == {
            ""
        }  # no target: an empty one, hidden by the page


@pytest.mark.parametrize(
    ("task", "value", "kept"),
    [
        ("rated", 1, True),
        ("rated", 10, True),
        ("rated", 7.5, True),
        ("rated", 0, False),
        ("rated", 11, False),
        ("rated", 10.5, False),
        ("rated", "7", False),
        ("rated", True, False),
        ("rated", None, False),
        ("rated", math.nan, False),
        ("lettered", 0.5, True),
        ("lettered", 1, True),
        ("lettered", 0, True),
        ("lettered", 0.25, False),
        ("lettered", 2, False),
        ("lettered", -1, False),
    ],
)
def test_a_score_off_the_judges_scale_is_refused(
    logs: dict[str, Path], tmp_path: Path, task: str, value: Any, kept: bool
) -> None:
    space = served(logs[task], tmp_path / "ann", names=("ann",), overlap=0)
    item = space.plan.queues["ann"][0]
    with TestClient(create_app(space)) as client:
        response = post(client, space, "ann", item, value)
    space.close()
    assert response.status_code == (200 if kept else 400)
    assert space.annotators["ann"].scores == ({item: value} if kept else {})
    if not kept:
        assert response.json()["error"].startswith("score must be ")


def test_an_id_of_another_type_or_item_is_refused(logs: dict[str, Path], tmp_path: Path) -> None:
    space = served(logs["lettered"], tmp_path / "ann", names=("ann",), overlap=0)
    with TestClient(create_app(space)) as client:
        # the items' ids are the whole numbers 1-6: "1" (text), 1.0 and 7 are none of them
        codes = [post(client, space, "ann", item, 1).status_code for item in ("1", 1.0, 7, 1)]
    space.close()
    assert codes == [400, 400, 400, 200]


def test_write_log_is_refused_on_another_evals_logs_with_a_one_line_reason(
    logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    command = ["annotate", "serve", str(logs["rated"]), "--annotators", "ann", "--write-log"]
    assert vivid_main([*command, "--out-dir", str(tmp_path / "ann")]) == 2
    assert capsys.readouterr().err == (
        "vivid annotate serve: --write-log copies VIVID's logs only; another eval's human scores are in humans.csv\n"
    )


def test_export_writes_another_evals_sheet_with_the_scale_in_its_record(
    logs: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "sheet.csv"
    sheet = export_sheet(logs["rated"], out, n=5, seed=3)
    assert list(sheet.columns) == ["id", *ANY_COLUMNS, "score", "annotator", "generation"] and len(sheet) == 5
    record = read_generation_record(out)
    assert record is not None and record["scale"] == {
        "low": 1.0,
        "high": 10.0,
        "ordinal": False,
        "declared": False,
    }
    assert [item.id for item in read_sheet(out).items] == list(sheet["id"])
    # a log file given on its own is read as the folder's reading reads it
    (log,) = logs["lettered"].glob("*.eval")
    export_sheet(log, tmp_path / "letters.csv", n=3)
    assert read_generation_record(tmp_path / "letters.csv")["scale"]["ordinal"] is True  # type: ignore[index]


def test_import_checks_another_evals_ids_and_scale(logs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "sheet.csv"
    export_sheet(logs["rated"], out, n=4, seed=1)
    rows = pd.read_csv(out, dtype=str, keep_default_na=False)
    rows["annotator"] = "ann"
    rows["score"] = ["3", "10", "0", "x"]
    rows.loc[1, "id"] = "q99"
    rows.to_csv(out, index=False)
    with pytest.raises(ValueError) as caught:
        import_sheets([out], tmp_path / "humans.csv")
    message = str(caught.value)
    assert "data row 2 (line 3), column 'id': id 'q99' is not a sample of generation" in message
    assert "data row 3 (line 4), column 'score': score must be a number from 1 to 10, found '0'" in message
    assert "data row 4 (line 5), column 'score': score must be a number from 1 to 10, found 'x'" in message


@pytest.mark.parametrize(
    ("scale", "said"),
    [
        (None, "no record of generation"),
        ({"low": 5, "high": 1}, "is not a scale"),
        ({"low": "one", "high": 10}, "is not a scale"),
        ([1, 10], "is not a scale"),
        ({"low": 1, "high": 10, "colour": "red"}, "is not a scale"),
    ],
)
def test_another_evals_sheet_without_a_readable_scale_is_refused(
    logs: dict[str, Path], tmp_path: Path, scale: Any, said: str
) -> None:
    out = tmp_path / "sheet.csv"
    export_sheet(logs["rated"], out, n=3)
    record = json.loads(record_path(out).read_text(encoding="utf-8"))
    if scale is None:
        record_path(out).unlink()
    else:
        record_path(out).write_text(json.dumps(record | {"scale": scale}), encoding="utf-8")
    with pytest.raises(HumanScoresError) as caught:
        read_sheet(out)
    assert str(out) in str(caught.value) and said in str(caught.value)


@pytest.mark.slow
def test_the_page_in_a_browser_offers_the_range_and_scores_with_buttons_keys_and_the_field(
    logs: dict[str, Path],
    tmp_path: Path,
    driver: Any,  # noqa: F811 - the browser test's fixture
) -> None:
    from selenium.webdriver.common.by import By

    space = open_workspace(logs["rated"], ["lan"], n=5, folder=tmp_path / "ann")
    with serving_in_process(space) as url:
        loaded(driver, url)
        assert text(driver, "label-idiom").lower().startswith("đầu vào") and text(driver, "idiom").startswith(
            "Item "
        )
        assert text(driver, "reference").startswith("answer ") and text(driver, "explanation") == "My answer."
        buttons = driver.find_elements(By.CSS_SELECTOR, "button.score")
        assert [button.text for button in buttons] == [str(n) for n in range(1, 11)]
        assert "the range of the judge's scores (no scale was declared)" in text(driver, "scale-note")
        driver.find_element(By.CSS_SELECTOR, 'button.score[data-score="10"]').click()
        progress(driver, 1, 5)
        keys(driver, "3")
        progress(driver, 2, 5)
        driver.find_element(By.ID, "free-value").send_keys("7.5")
        driver.find_element(By.CSS_SELECTOR, "#free-score button").click()
        progress(driver, 3, 5)
    space.close()
    assert sorted(space.annotators["lan"].scores.values()) == [3, 7.5, 10]
