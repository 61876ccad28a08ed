"""What `vivid run` prints, and judged logs that the viewer can tell apart.

It prints compact progress, one left-out warning and where the report went.

One small offline spec is run twice through the real ``vivid`` CLI in a process of its own (a first
run, then a rerun that has nothing to do; forked by tests/prewarmed.py, as only output and exit code
are read); each test reads what those runs printed and wrote.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from inspect_ai.log import list_eval_logs, read_eval_log

from tests import prewarmed
from tests.once import once_per_session
from vivid_inspect.lab.cli.main import main
from vivid_inspect.lab.runner.progress import COMPACT

LEFT_OUT = "left out 1 item(s) whose idiom is a demonstration of the prompt"
JUDGES = [
    {"name": "chrf_aspect", "strategy": "aspect", "model": "vivid/chrf"},
    {"name": "lexical", "strategy": "lexical"},
]


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    log_dir: Path


def _vivid(*args: str) -> tuple[int, str]:
    vivid = Path(sys.executable).with_name("vivid")
    done = prewarmed.run([str(vivid), *args], cwd=os.getcwd(), env=dict(os.environ), timeout=300)
    return done.returncode, done.stdout + done.stderr


def _run_twice(folder: Path) -> None:
    spec = {
        "name": "output",
        "data": "sample",
        "log_dir": "logs",
        "runs": [
            {
                "tasks": ["explain"],
                "prompts": ["zero_shot", "few_shot"],
                "models": ["vivid/oracle"],
                "limit": 3,
            },
            {"tasks": ["topic"], "models": ["vivid/oracle"], "limit": 3},
        ],
        "judges": JUDGES,
    }
    path = folder / "spec.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    printed = [_vivid("run", str(path)), _vivid("run", str(path))]
    (folder / "printed.json").write_text(json.dumps(printed), encoding="utf-8")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Run, Run]:
    """The first run and the rerun, once per session even when two workers share the module's tests."""
    folder = once_per_session(tmp_path_factory, "run-output", _run_twice)
    first, again = (
        Run(code, out, folder / "logs")
        for code, out in json.loads((folder / "printed.json").read_text(encoding="utf-8"))
    )
    return first, again


def _progress_lines(out: str) -> list[str]:
    # Everything but the report's markdown, which `vivid run` prints as `vivid report` does.
    start = out.find("# VIVID report")
    end = out.find("vivid run: report in")
    return (out[:start] + out[end:]).strip().splitlines() if start >= 0 and end >= 0 else out.splitlines()


@pytest.mark.slow
def test_first_run_prints_compact_progress_not_inspect_panels(runs: tuple[Run, Run]) -> None:
    first, _ = runs
    assert first.code == 0, first.out
    lines = _progress_lines(first.out)
    assert len(lines) < 25, "\n".join(lines)
    assert not any(ch in first.out for ch in "╭╰│"), "Inspect's task panels were printed"
    assert "inspect_ai v" not in first.out
    assert "vivid generating runs[0], runs[1]" in first.out
    assert "vivid finished" in first.out


@pytest.mark.slow
@pytest.mark.parametrize("which", [0, 1], ids=["first-run", "rerun"])
def test_the_left_out_warning_is_printed_once_per_command(runs: tuple[Run, Run], which: int) -> None:
    # The report's own note (a markdown bullet) says it again, with the numbers.
    warnings = [
        line for line in runs[which].out.splitlines() if LEFT_OUT in line and not line.startswith("- ")
    ]
    assert len(warnings) == 1, runs[which].out


@pytest.mark.slow
@pytest.mark.parametrize("which", [0, 1], ids=["first-run", "rerun"])
def test_run_ends_saying_where_the_report_files_and_logs_are(runs: tuple[Run, Run], which: int) -> None:
    run = runs[which]
    report = run.log_dir / "report"
    tail = run.out.strip().splitlines()[-3:]
    csv, png = len(list(report.glob("*.csv"))), len(list(report.glob("*.png")))
    assert csv and png
    assert tail[0] == (
        f"vivid run: report in {report}: report.md and judge_card.md; {csv} tables (.csv), {png} figures (.png)"
    ), tail
    assert tail[1] == f"vivid run: logs in {run.log_dir}"
    assert f"inspect view --log-dir {run.log_dir}" in tail[2]


@pytest.mark.slow
def test_a_rerun_with_nothing_to_do_does_not_say_generating(runs: tuple[Run, Run]) -> None:
    _, again = runs
    assert again.code == 0, again.out
    assert "generating" not in again.out
    # said once they are counted: not "cells 0/..." while they are all done
    assert "runs[0], runs[1]: all 3 generation cells are already done — cells 3/" in again.out
    assert "0 calls" in again.out.split("vivid finished")[1].splitlines()[0]


@pytest.mark.slow
def test_the_report_notes_the_items_left_out(runs: tuple[Run, Run]) -> None:
    markdown = (runs[0].log_dir / "report" / "report.md").read_text(encoding="utf-8")
    notes = [line for line in markdown.splitlines() if line.startswith("- left out")]
    assert notes == [
        "- left out of explain (few_shot), explain (zero_shot) (1 item(s), no score counts them): the "
        "idiom is, or is a near-duplicate of (similarity >= 0.75), one shown with its answer: id 17 "
        "«Bán anh em xa, mua láng giềng gần» ~ demonstration «Bán anh em xa, mua láng giềng gần» (1.000)"
    ]


@pytest.mark.slow
def test_judged_logs_are_tagged_with_their_judge(runs: tuple[Run, Run]) -> None:
    judged = [
        read_eval_log(info, header_only=True) for info in list_eval_logs(str(runs[0].log_dir / "judged"))
    ]
    assert len(judged) == len(JUDGES) * 2  # every judge on both explanation generations
    seen = set()
    for log in judged:
        name = log.eval.metadata["vivid_judge"]["name"]  # type: ignore[index]
        judge = next(j for j in JUDGES if j["name"] == name)
        model = judge.get("model") or "none"
        assert log.eval.tags is not None
        assert {"judged", f"judge:{name}", f"strategy:{judge['strategy']}", f"judge_model:{model}"} <= set(
            log.eval.tags
        )
        assert (
            log.eval.task_display_name is not None
            and f"judge {name} ({judge['strategy']}" in log.eval.task_display_name
        )
        seen.add((log.eval.task_display_name, log.eval.task_args.get("prompt")))
    assert len(seen) == len(judged), "two judged logs look the same in the viewer's list"


@pytest.mark.parametrize(
    ("argv", "display"),
    [
        pytest.param([], COMPACT, id="default-compact"),
        pytest.param(["--display", "full"], "full", id="full-on-request"),
        pytest.param(["--display", "none"], "none", id="none"),
    ],
)
def test_display_option_reaches_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str], display: str
) -> None:
    from vivid_inspect.lab.runner import execute

    seen: dict[str, object] = {}

    def fake_run_spec(loaded: object, **kwargs: object) -> object:
        seen.update(kwargs)
        raise KeyboardInterrupt  # stop here: only the arguments matter

    monkeypatch.setattr(execute, "run_spec", fake_run_spec)
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        yaml.safe_dump(
            {
                "name": "d",
                "data": "sample",
                "log_dir": "logs",
                "runs": [{"tasks": ["topic"], "models": ["vivid/oracle"]}],
            }
        ),
        encoding="utf-8",
    )
    assert main(["run", str(spec), *argv]) == 130
    assert seen["display"] == display
