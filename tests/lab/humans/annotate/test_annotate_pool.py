"""`vivid annotate serve LOG_DIR --generations`: one blind queue across generations, labels by Neyman allocation.

The folder holds three real generations (the offline oracle and literal baselines on the bundled
sample, judged by the lexical judge). People score the oracle's explanations almost all 5 (the
judge agrees: a residual that hardly varies) and the literal baseline's all over the scale (a
residual that varies a lot). The first batch gives every generation the minimum; the rest must go
where :func:`vivid_inspect.lab.report.stats.allocation.allocate` puts it for the spreads the first batch
shows, computed here from the bound files and the judge's scores read from the logs.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from starlette.testclient import TestClient

from tests.report_runs import SAMPLE, explain_run
from vivid_inspect.lab.cli.main import main
from vivid_inspect.lab.humans.annotate.app import TOKEN_HEADER, create_app
from vivid_inspect.lab.humans.annotate.pool import HUMANS_PREFIX, POOL_FILE, open_pool
from vivid_inspect.lab.humans.scores_file import read_generation_record, read_human_scores, record_path
from vivid_inspect.lab.report.build import write_report
from vivid_inspect.lab.report.reading.logs import read_logs
from vivid_inspect.lab.report.stats.allocation import Stratum, allocate
from vivid_inspect.lab.report.stats.ppi import residual_spread

ANNOTATORS = ["lan", "minh"]
BUDGET = 100
MINIMUM = 20


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    logs = tmp_path_factory.mktemp("pool") / "logs"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("INSPECT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        explain_run("vivid/oracle", SAMPLE, logs)
        explain_run("vivid/literal", SAMPLE, logs)
        explain_run("vivid/literal", SAMPLE, logs, prompt="few_shot")
    return logs


def _keys(root: Path) -> dict[str, str]:
    """``MODEL PROMPT`` of each generation key."""
    scores = read_logs(root).scores
    return {
        str(key): f"{group['model'].iloc[0]} {group['prompt'].iloc[0]}"
        for key, group in scores.groupby("generation")
    }


def _human(label: str, item: int) -> int:
    """What the people give: the oracle 5 (4 on every tenth item), the literal baseline anything."""
    if label.startswith("vivid/oracle"):
        return 4 if item % 10 == 0 else 5
    return (item * 7) % 6


def _score_all(space, pool_items: dict[str, list], labels: dict[str, str]) -> None:
    for name, annotator in space.annotators.items():
        for number in annotator.queue:
            key, item = pool_items[str(number)]
            space.score(name, number, _human(labels[key], item))


def _state(folder: Path) -> dict:
    return json.loads((folder / POOL_FILE).read_text(encoding="utf-8"))


def _judge(root: Path) -> dict[str, dict[int, float]]:
    scores = read_logs(root).scores
    lexical = scores[(scores["judge"] == "lexical") & scores["value"].notna()]
    return {
        str(key): {int(i): float(v) for i, v in group.groupby("id")["value"].mean().items()}
        for key, group in lexical.groupby("generation")
    }


@pytest.fixture(scope="module")
def first(root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A pool folder whose first batch every annotator has scored."""
    folder = tmp_path_factory.mktemp("out") / "pool"
    space = open_pool(
        root, ANNOTATORS, generations="all", overlap=5, n=BUDGET, folder=folder, judge="lexical"
    )
    try:
        _score_all(space, _state(folder)["items"], _keys(root))
    finally:
        space.close()
    return folder


def test_the_first_batch_gives_every_generation_the_minimum_blind(root: Path, tmp_path: Path) -> None:
    space = open_pool(
        root, ANNOTATORS, generations="all", overlap=5, n=BUDGET, folder=tmp_path, judge="lexical"
    )
    try:
        state = _state(tmp_path)
        keys = _keys(root)
        (round1,) = state["rounds"]
        assert round1["kind"] == "first batch" and round1["new"] == dict.fromkeys(sorted(keys), MINIMUM)
        assert len(space.plan.ids) == MINIMUM * len(keys)
        # blind: the round's sheet names no generation, and the page shows the texts only
        header = (tmp_path / "round1" / "sheet.csv").read_text(encoding="utf-8-sig").splitlines()[0]
        assert header == "id,idiom,reference_meaning,explanation,score,annotator"
        client = TestClient(create_app(space))
        page = client.get("/api/state", headers={TOKEN_HEADER: space.url_token("lan")}).json()
        assert set(page["items"][0]) == {"id", "idiom", "reference_meaning", "explanation", "score"}
        assert not any(
            name in json.dumps(page) for name in ("vivid/oracle", "vivid/literal", "zero_shot", *keys)
        )
        # the generations are mixed: the first ten items shown come from more than one
        shown = [state["items"][str(item["id"])][0] for item in page["items"][:10]]
        assert len(set(shown)) > 1
        assert "round 1 (first batch) of a pool of 3 generations" in space.description()
    finally:
        space.close()


def test_finished_scores_are_one_bound_file_per_generation(root: Path, first: Path) -> None:
    keys = _keys(root)
    state = _state(first)
    for key, label in keys.items():
        path = first / f"{HUMANS_PREFIX}{key}.csv"
        scores = read_human_scores(path)
        assert set(scores["generation"]) == {key}
        assert scores["id"].nunique() == MINIMUM
        mine = {item for k, item in state["items"].values() if k == key}
        assert set(scores["id"]) == mine  # the sample ids, not the pool's numbers
        assert all(
            score == _human(label, item) for item, score in zip(scores["id"], scores["score"], strict=True)
        )
        record = read_generation_record(path)
        assert record is not None and record["generation"] == key and record["pool"] is True
    # the five shared items were scored by both annotators
    round1 = read_human_scores(first / "round1" / "humans.csv")
    assert (round1.groupby("id")["annotator"].nunique() == 2).sum() == 5


def test_the_rest_follows_neyman_allocation_of_the_first_batch(root: Path, first: Path) -> None:
    keys = _keys(root)
    judge = _judge(root)
    strata = []
    for key in sorted(keys):
        human = read_human_scores(first / f"{HUMANS_PREFIX}{key}.csv").groupby("id")["score"].mean()
        items = [int(i) for i in human.index]
        spread = residual_spread(human.to_numpy(dtype=float), np.array([judge[key][i] for i in items]))
        size = sum(
            1
            for row in csv.DictReader((first / "generations" / f"{key}.sheet.csv").open(encoding="utf-8-sig"))
        )
        strata.append(Stratum(key, size, MINIMUM, spread))
    expected = allocate(strata, BUDGET - MINIMUM * len(keys))
    # a restart once the first batch is scored deals the rest
    space = open_pool(root, ANNOTATORS, generations="all", overlap=5, n=BUDGET, folder=first, judge="lexical")
    try:
        state = _state(first)
        assert len(state["rounds"]) == 2 and state["rounds"][1]["kind"] == "neyman"
        assert state["rounds"][1]["new"] == {share.key: share.new for share in expected.shares}
        assert sum(state["rounds"][1]["new"].values()) == BUDGET - MINIMUM * len(keys)
        oracle = next(k for k, label in keys.items() if label.startswith("vivid/oracle"))
        assert state["rounds"][1]["new"][oracle] < min(
            v for k, v in state["rounds"][1]["new"].items() if k != oracle
        )
        # within a generation: the next items of its order, none labelled twice
        for key in keys:
            order = [
                int(row["id"])
                for row in csv.DictReader(
                    (first / "generations" / f"{key}.sheet.csv").open(encoding="utf-8-sig")
                )
            ]
            dealt = [
                item
                for number, (k, item) in sorted(state["items"].items(), key=lambda kv: int(kv[0]))
                if k == key
            ]
            assert dealt == order[: len(dealt)]
        assert "round 2 (Neyman allocation)" in space.description()
    finally:
        space.close()


def test_the_bound_files_give_corrected_means_drawn_by_the_pool(
    root: Path, first: Path, tmp_path: Path
) -> None:
    files = sorted(first.glob(f"{HUMANS_PREFIX}*.csv"))
    report = write_report(root, out_dir=tmp_path, human=files, judge="lexical", figures=False)
    cells = report.table("table3_themes").csv_rows
    average = cells[cells["cell"] == "Average"]
    assert (average["n_human"] >= MINIMUM).all() and average["corrected_mean_lo"].notna().all()
    for path in files:
        assert (
            f"{path.name}: how its items were drawn: drawn by `vivid annotate serve --generations`"
            in report.markdown
        )


def test_plan_prints_the_next_round_and_writes_nothing(root: Path, tmp_path: Path, capsys) -> None:
    folder = tmp_path / "never"
    command = [
        "annotate",
        "serve",
        str(root),
        "--generations",
        "all",
        "--plan",
        "-n",
        str(BUDGET),
        "--out-dir",
        str(folder),
    ]
    assert main(command) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("round 1:\n")
    assert f"{MINIMUM * 3} new label(s) (first batch)" in printed
    for label in _keys(root).values():
        assert label in printed
    assert not folder.exists()


def test_plan_after_the_first_batch_is_the_neyman_plan(
    root: Path, first: Path, capsys, tmp_path: Path
) -> None:
    copy = tmp_path / "copy"
    import shutil

    shutil.copytree(first, copy)
    state = _state(copy)
    state["rounds"] = state["rounds"][:1]
    first_ids = set(state["rounds"][0]["ids"])
    state["items"] = {k: v for k, v in state["items"].items() if int(k) in first_ids}
    (copy / POOL_FILE).write_text(json.dumps(state), encoding="utf-8")
    command = ["annotate", "serve", str(root), "--generations", "all", "--plan", "-n", str(BUDGET)]
    assert main([*command, "--out-dir", str(copy), "--judge", "lexical"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("round 2:\n") and "(neyman)" in printed and "objective" in printed


def test_bad_pool_options_are_refused(root: Path, first: Path, tmp_path: Path, capsys) -> None:
    with pytest.raises(ValueError, match="was started with other options: n 100"):
        open_pool(root, ANNOTATORS, generations="all", overlap=5, n=BUDGET + 1, folder=first, judge="lexical")
    with pytest.raises(ValueError, match="a pool spreads labels over two or more"):
        open_pool(root, ANNOTATORS, generations="vivid/oracle", folder=tmp_path / "one")
    assert main(["annotate", "serve", str(root), "--plan"]) == 2
    assert "give --generations" in capsys.readouterr().err
    served = [
        "annotate",
        "serve",
        str(root),
        "--generations",
        "all",
        "--annotators",
        "a",
        "--generation",
        "x",
    ]
    assert main(served) == 2
    assert "--generation and --write-log are for one" in capsys.readouterr().err


def test_records_are_kept_beside_every_bound_file(first: Path) -> None:
    for path in first.glob(f"{HUMANS_PREFIX}*.csv"):
        assert record_path(path).exists()
        assert pd.read_csv(path).columns.tolist() == ["id", "score", "annotator", "generation"]


def test_an_undo_takes_the_scores_out_of_the_generation_files(root: Path, tmp_path: Path) -> None:
    """The per-generation files hold finished annotators only, as a single generation's humans.csv does."""
    space = open_pool(root, ANNOTATORS, generations="all", n=BUDGET, folder=tmp_path, judge="lexical")
    try:
        items, labels = _state(tmp_path)["items"], _keys(root)
        for number in space.annotators["lan"].queue:
            key, item = items[str(number)]
            space.score("lan", number, _human(labels[key], item))
        files = sorted(tmp_path.glob(f"{HUMANS_PREFIX}*.csv"))
        assert files and all(set(read_human_scores(f)["annotator"]) == {"lan"} for f in files)
        space.undo("lan")
        assert not list(tmp_path.glob(f"{HUMANS_PREFIX}*.csv"))
        assert not [p for p in (tmp_path / "generations").glob("*.lan.csv")]
    finally:
        space.close()
