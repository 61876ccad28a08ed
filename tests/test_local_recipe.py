"""The offline judge ablation of docs/recipes/judge-ablation-own-server.md, run as a user runs it.

``python -m vivid_inspect.testing`` is started as a process, the spec's ``vivid run`` command runs
against it with the variables the server printed, and the report's tables are checked: four
judge strategies, every judgement read (none unscored), each score the scripted judge's rule for
its strategy, judges that differ, and a rerun that asks the server nothing. Ctrl-C then stops the
server with exit 0 and a count of what it was asked.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import socket
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from inspect_ai.log import read_eval_log

from tests.server_process import REPO, start_server
from vivid_inspect.baselines.chrf_judge import judge_fields
from vivid_inspect.log_contract import read_judged_record
from vivid_inspect.scorers.judge import judge_prompt_of
from vivid_inspect.scorers.lexical import chrf
from vivid_inspect.testing.__main__ import main as server_main
from vivid_inspect.testing.scripted import STRATEGY_RULES

RECIPE_COMMAND = "vivid run experiments/judge_ablation_local.yaml"
"""The recipe's command, as the page writes it (tests/test_doc_commands.py checks that it does)."""
ITEMS = 40  # the spec's sample: {n: 40}
STRATEGIES = ("zero_shot", "demonstration", "cot", "aspect")


def _run(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", command],
        cwd=cwd,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=900,
    )


@pytest.mark.slow
def test_the_offline_recipe_runs_the_four_strategies_against_the_test_server(tmp_path: Path) -> None:
    shutil.copytree(REPO / "experiments", tmp_path / "experiments")
    server = start_server(("--port", "0"))
    try:
        assert set(server.env) == {"LOCAL_BASE_URL", "LOCAL_API_KEY"}
        first = _run(RECIPE_COMMAND, tmp_path, server.env)
        assert first.returncode == 0, first.stderr
        again = _run(RECIPE_COMMAND, tmp_path, server.env)
        assert again.returncode == 0, again.stderr
    finally:
        code, said = server.interrupt()
    assert code == 0, said
    # 40 explanations and 4 x 40 judgements; the rerun asked nothing
    assert f"stopped after {ITEMS * 5} chat requests (generator {ITEMS}, judge {ITEMS * 4})" in said, said
    assert f"serving {server.base_url}" in said

    report = tmp_path / "logs" / "judge_ablation_local" / "report"
    summary = pd.read_csv(report / "judge_summary.csv").set_index("strategy")
    assert sorted(summary.index) == sorted(STRATEGIES)
    assert (summary["scored"] == ITEMS).all() and (summary["unscored"] == 0).all(), summary
    means = summary["mean"]
    # the scripted rules: cot >= demonstration >= zero_shot >= aspect item by item, and they differ
    assert means["cot"] > means["demonstration"] > means["zero_shot"] > means["aspect"], means

    pairs = pd.read_csv(report / "judge_pairs.csv")
    assert len(pairs) == 6 and (pairs["n"] == ITEMS).all()
    assert pairs["kappa"].notna().all() and (pairs["kappa"] < 1).all() and (pairs["kappa"] > 0).all(), pairs

    themes = pd.read_csv(report / "table3_themes.csv")  # one row per generation, judge and theme
    average = themes[themes["cell"] == "Average"]
    assert average[["model", "judge"]].values.tolist() == [["openai-api/local/generator", "local_aspect"]]
    assert average["judge_mean"].iloc[0] == pytest.approx(means["aspect"], abs=0.005)

    # every judgement is the rule of its strategy applied to the chrF of what the judge was shown
    judged = sorted((tmp_path / "logs" / "judge_ablation_local" / "judged").rglob("*.eval"))
    assert len(judged) == len(STRATEGIES)
    for path in judged:
        log = read_eval_log(str(path))
        record = read_judged_record(log.eval.metadata)
        assert record is not None
        column = f"judge_{record.strategy}"
        assert log.samples is not None and len(log.samples) == ITEMS
        for sample in log.samples:
            prompt = judge_prompt_of(sample, column)
            assert prompt is not None and sample.scores is not None
            reference, candidate = judge_fields(prompt) or ("", "")
            assert sample.scores[column].value == STRATEGY_RULES[record.strategy](chrf(candidate, reference))


def test_a_port_in_use_is_one_line_and_exit_2() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            code = server_main(["--port", str(port)])
    assert code == 2
    lines = err.getvalue().strip().splitlines()
    assert len(lines) == 1, lines
    assert f"cannot listen on 127.0.0.1:{port}" in lines[0] and "--port" in lines[0]


def test_data_that_cannot_be_read_is_one_line_and_exit_2(tmp_path: Path) -> None:
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = server_main(["--port", "0", "--data", str(tmp_path / "missing.csv")])
    assert code == 2
    assert "the data cannot be used" in err.getvalue() and "no such data file" in err.getvalue()


@pytest.mark.parametrize("port", ["70000", "65536", "-1", "99999999999999999999"])
def test_a_port_out_of_range_is_one_line_and_exit_2(port: str) -> None:
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = server_main([f"--port={port}"])
    assert code == 2
    (line,) = err.getvalue().strip().splitlines()
    assert line == (
        f"python -m vivid_inspect.testing: --port {port} is not a port: give 0 to 65535 (0 picks a free one)"
    )


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--service", "a b"], "--service 'a b' cannot name a variable"),
        (["--service", "x\x1b[2J"], "--service 'x\\\\x1b[2J' cannot name a variable"),
        (["--service", "1st"], "cannot name a variable"),
        (["--model", "gen\n\x1b[31mforged"], "--model 'gen\\\\n\\\\x1b[31mforged' holds a control character"),
        (["--model", " "], "holds a control character or nothing"),
    ],
)
def test_a_service_or_model_name_that_cannot_be_printed_is_one_line_and_exit_2(
    argv: list[str], says: str
) -> None:
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = server_main(["--port", "0", *argv])
    assert code == 2
    (line,) = err.getvalue().strip().splitlines()
    assert says in line and "\x1b" not in line


@pytest.mark.parametrize("port", ["٣٣٠٨٧", "８０８０", "१", "80 80", "0x10"])
def test_a_port_in_other_digits_is_refused_with_exit_2(port: str, capsys: pytest.CaptureFixture[str]) -> None:
    """int() reads Arabic-Indic or full-width digits; a port is written in 0-9 only."""
    with pytest.raises(SystemExit) as exit:
        server_main([f"--port={port}"])
    assert exit.value.code == 2
    assert "is not a port: give 0 to 65535 in the digits 0-9" in capsys.readouterr().err
