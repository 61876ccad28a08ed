"""One name per theme and one name per judge, from the task metrics through the report."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pandas as pd
import pytest
from inspect_ai import eval, score_async
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log
from inspect_ai.model import get_model

from vivid_inspect.lab.report.build import write_report
from vivid_inspect.lab.report.reading.logs import read_logs
from vivid_inspect.lab.report.tables.judges import JudgeKey, judge_keys, judge_rows
from vivid_inspect.lab.report.tables.paper import compare, paper_value
from vivid_inspect.scorers.lexical import lexical
from vivid_inspect.tasks import explain
from vivid_inspect.taxonomy import PAPER_HEADINGS, THEME_NAMES

# Items of the bundled sample covering every theme (17, a demonstration idiom, is left out).
IDS = [1, 3, 5, 6, 7, 9, 11, 12, 13, 15, 18, 20, 21, 22, 24, 25, 35, 36]


def _generate(root: Path, judge: str) -> EvalLog:
    log = eval(
        explain(prompt="zero_shot", judge=judge, data="sample"),
        model=get_model("vivid/oracle", data="sample"),
        sample_id=IDS,
        log_dir=str(root),
        display="none",
    )[0]
    assert log.status == "success", log.error
    return log


def _rescored(root: Path, generation: EvalLog, target: Path, vivid_judge: dict[str, object] | None) -> None:
    """The generation scored again by the lexical judge, as `inspect score` or the runner writes it."""
    scored = asyncio.run(score_async(read_eval_log(generation.location), [lexical()], action="overwrite"))
    if vivid_judge is not None:
        rel = Path(generation.location).relative_to(root).as_posix()
        scored.eval.metadata = {
            **(scored.eval.metadata or {}),
            "vivid_judge": {**vivid_judge, "generation_log": rel},
        }
    target.parent.mkdir(parents=True, exist_ok=True)
    write_eval_log(scored, str(target))


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("names")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("INSPECT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        _generate(root / "eval", "lexical")  # the lexical judge inside `inspect eval`
        generation = _generate(root / "gen", "none")
        _rescored(root, generation, root / "scored" / "inspect_score.eval", None)  # `inspect score`
        runner = {"name": "lexical", "strategy": "lexical", "model": None}
        _rescored(root, generation, root / "judged" / "lexical" / "run.eval", runner)  # `vivid run`
    return root


@pytest.mark.parametrize(
    "where",
    [
        pytest.param("eval", id="inspect-eval"),
        pytest.param("scored", id="inspect-score"),
        pytest.param("judged", id="vivid-run"),
        pytest.param("", id="all-together"),
    ],
)
def test_the_lexical_judge_has_one_key_however_its_log_was_written(folder: Path, where: str) -> None:
    rows = judge_rows(read_logs(folder / where if where else folder).scores)
    assert judge_keys(rows) == [JudgeKey("lexical", "")]


def test_the_report_lists_the_lexical_judge_once(folder: Path, tmp_path: Path) -> None:
    report = write_report(folder, out_dir=tmp_path, formats=("md",), figures=False)
    summary = report.table("judge_summary").frame
    assert list(summary["judge"]) == ["lexical"] and list(summary["judge_model"]) == [""]
    # The three logs hold one generation (same task, model, prompt, data and items), run twice: one
    # generation, read from its latest run, not three.
    assert summary.iloc[0]["generations"] == 1


@pytest.mark.slow
def test_one_name_per_theme_in_metrics_viewer_metadata_and_tables(folder: Path, tmp_path: Path) -> None:
    log = read_eval_log(next((folder / "eval").glob("*.eval")).as_posix())
    metrics = {name for score in log.results.scores for name in score.metrics}  # type: ignore[union-attr]
    metric_themes = {name.removeprefix("theme/") for name in metrics if name.startswith("theme/")}
    viewer_themes = {str((sample.metadata or {})["theme"]) for sample in log.samples or []}
    assert metric_themes == viewer_themes == set(THEME_NAMES)
    report = write_report(folder, out_dir=tmp_path, formats=("md", "csv"), figures=False)
    table3 = report.table("table3_themes").frame
    assert [c for c in table3.columns if c in metric_themes or c in PAPER_HEADINGS.values()] == list(
        THEME_NAMES
    )
    assert not set(PAPER_HEADINGS.values()) & set(report.markdown.replace("|", " ").split("  "))
    cells = pd.read_csv(tmp_path / "table3_themes.csv")
    assert list(cells["cell"]) == [*THEME_NAMES, "Average"]


@pytest.mark.parametrize(("ours", "heading"), sorted(PAPER_HEADINGS.items()))
def test_paper_comparison_finds_the_papers_heading_for_our_theme_name(ours: str, heading: str) -> None:
    frame = pd.DataFrame([{"model": "openai/gpt-4o", "prompt": "zero_shot", ours: 1.0}])
    compared = compare("table3", frame, model="model", prompt="prompt", columns=[ours])
    published = paper_value("table3", "GPT-4o", "zero_shot", heading)
    assert published is not None
    assert compared.to_dict("records") == [
        {
            "model": "openai/gpt-4o",
            "paper_model": "GPT-4o",
            "prompt": "zero_shot",
            "column": ours,
            "ours": 1.0,
            "paper": published,
            "diff": pytest.approx(1.0 - published),
            "n": None,
        }
    ]
