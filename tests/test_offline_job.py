"""The README's first set-up command: `vivid run experiments/offline.yaml` gives meaningful tables offline."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from vivid_inspect.cli.main import main

REPO = Path(__file__).resolve().parents[1]
THEMES = ["Love", "Virtues", "Criticism", "Work and Nature", "Social Relationships", "Life Lessons", "Other"]


@pytest.mark.slow
def test_offline_main_job_puts_the_oracle_far_above_the_literal_floor(tmp_path: Path, capsys) -> None:
    code = main(
        ["run", str(REPO / "experiments" / "offline.yaml"), "--log-dir", str(tmp_path), "--display", "none"]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "Table 3" in printed and "Table 5" in printed

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
