"""The README's first set-up command: `vivid run offline` gives meaningful tables offline, from any folder."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from tests.recommended_commands import failing

REPO = Path(__file__).resolve().parents[3]

THEMES = ["Love", "Virtues", "Criticism", "Work and Nature", "Social Relationships", "Life Lessons", "Other"]


# The job is tests/conftest.py's offline_job, run once per session for every module that reads it.


@pytest.fixture
def job(offline_job: tuple[Path, str]) -> tuple[Path, str]:
    """The offline job run once: its log folder and what it printed."""
    return offline_job


@pytest.mark.slow
def test_offline_main_job_puts_the_oracle_far_above_the_literal_floor(job: tuple[Path, str]) -> None:
    tmp_path, printed = job
    report = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    assert "Table 3" in report and "Table 5" in report

    # One row per generation and cell (a theme or Average), with its interval and n.
    cells = pd.read_csv(tmp_path / "report" / "table3_themes.csv").set_index(["model", "prompt", "cell"])
    for prompt in ("zero_shot", "few_shot"):
        oracle = cells.loc[("vivid/oracle", prompt), "judge_mean"].loc[THEMES]
        literal = cells.loc[("vivid/literal", prompt), "judge_mean"].loc[THEMES]
        assert (oracle == 5.0).all(), oracle
        assert (literal < 1.0).all(), literal
        # 47 items, one is a few-shot demonstration
        assert cells.loc[("vivid/oracle", prompt, "Average"), "n_items"] == 46

    classification = pd.read_csv(tmp_path / "report" / "table5_classification.csv").set_index("model")
    assert classification.loc["vivid/oracle", ["topic", "traits"]].tolist() == [1.0, 1.0]
    assert (classification.loc["vivid/literal", ["topic", "traits"]] < 0.5).all()


@pytest.mark.slow
def test_offline_main_job_writes_the_judge_card_saying_what_is_missing(job: tuple[Path, str]) -> None:
    """No human scores in the offline job: the card says so and how to collect them; nothing stands in for people."""
    tmp_path, _ = job
    card = (tmp_path / "report" / "judge_card.md").read_text(encoding="utf-8")
    pages = card.split("\n---\n")
    assert len(pages) == 2  # chrf_aspect and lexical
    for page in pages:
        assert "**Can replace the annotators on this data: not enough evidence.**" in page
        assert "There are no human scores in this report" in page
        assert f"vivid annotate serve {tmp_path}" in page and "--annotators A,B,C" in page
        assert "No human scores: the judge's bias cannot be measured." in page
    cells = pd.read_csv(tmp_path / "report" / "table3_themes.csv")
    assert cells[["human_mean", "corrected_mean", "bias", "n_human"]].isna().all().all()
    for absent in ("alt_test.csv", "judge_bias.csv"):
        assert not (tmp_path / "report" / absent).exists()


@pytest.mark.slow
def test_the_terminal_gets_the_summary_not_the_tables(job: tuple[Path, str]) -> None:
    """A first run opens with its result: headline means, then what is missing; the tables stay in report.md."""
    tmp_path, printed = job
    summary = printed[printed.index("## Summary") :]
    assert "Table 1" not in summary and "| judge |" not in summary
    assert "  - vivid/oracle zero_shot: 5.00 [" in summary and "n=46" in summary
    assert "- missing: human scores" in summary
    assert len(summary.splitlines()) <= 16  # the summary, then where the report and the logs are
    assert (
        max(len(line) for line in summary.splitlines() if "`" not in line and "vivid run:" not in line) <= 120
    )
    assert (
        (tmp_path / "report" / "report.md")
        .read_text(encoding="utf-8")
        .startswith("# VIVID report\n\n## Summary")
    )


PROGRESS = re.compile(r"^vivid .* — cells ")


def _masked(line: str) -> str:
    """A progress line's counts depend on the cache and the order cells finish in: compare its words."""
    return re.sub(r"\d+", "N", line) if PROGRESS.match(line) else line


@pytest.mark.slow
def test_the_readmes_excerpt_is_what_the_job_prints(job: tuple[Path, str]) -> None:
    """Every line of README.md's excerpt (but "...") is a line of the real run, the checkout's path swapped in."""
    log_dir, printed = job
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    excerpt = readme[readme.index("```text\nvivid offline:") + len("```text\n") :]
    excerpt = excerpt[: excerpt.index("```")]
    here = str(log_dir.parents[1])
    lines = {_masked(line) for line in printed.splitlines()}
    for line in excerpt.splitlines():
        if line != "...":
            assert _masked(line.replace("/home/me/vivid-inspect", here)) in lines, line


@pytest.mark.slow
def test_every_command_the_offline_report_recommends_parses(job: tuple[Path, str]) -> None:
    """The card once recommended `vivid audit lexical --strategy lexical` (exit 2): each runs as written."""
    tmp_path, printed = job
    report = tmp_path / "report"
    assert failing([report / "judge_card.md", report / "report.md", printed]) == {}
