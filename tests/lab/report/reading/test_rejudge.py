"""The `inspect score` recipes of docs/judges.md: repeated judgements with `-S repeat=r`, re-judging in place.

Each command is run as written, through Inspect's own command line (in this process, with click's
runner), on a log of the offline ``vivid/literal`` explanations judged by the offline ``vivid/chrf``
grader, so no key and no network are needed.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from inspect_ai import eval as inspect_eval
from inspect_ai._cli.main import inspect as inspect_cli
from inspect_ai.log import read_eval_log, write_eval_log

from vivid_inspect.lab.report.build import write_report
from vivid_inspect.lab.report.reading.logs import SCORE_COLUMNS
from vivid_inspect.lab.report.reading.versions import stale_judgements
from vivid_inspect.scorers.judge_parse import JUDGE_PARSER_VERSION
from vivid_inspect.scorers.judge_prompts import JUDGE_PROMPT_VERSION
from vivid_inspect.tasks import explain

ITEMS = 8
GRADER = "grader=vivid/chrf"
STALE = "judge scores not made under the current judge prompt"


def _generate(folder: Path, judge: str) -> Path:
    (log,) = inspect_eval(
        explain(data="sample", judge=judge, judge_model="vivid/chrf"),
        model="vivid/literal",
        model_args={"data": "sample"},
        limit=ITEMS,
        log_dir=str(folder),
        display="none",
    )
    assert log.status == "success", log.error
    return Path(log.location)


def _inspect(*args: str) -> None:
    result = CliRunner().invoke(inspect_cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output


def _score(log: Path, *args: str) -> None:
    _inspect(
        "score",
        str(log),
        "--scorer",
        "vivid_inspect/judge",
        "-S",
        "strategy=aspect",
        "--model-role",
        GRADER,
        *args,
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("judge", "repeats"),
    [
        pytest.param("none", [0, 1, 2], id="generated-without-a-judge"),
        pytest.param("aspect", [1, 2], id="its-own-judge-column-is-repeat-0"),
    ],
)
def test_a_repeat_loop_gives_fresh_repeats_the_report_compares(
    tmp_path: Path, judge: str, repeats: list[int]
) -> None:
    log = _generate(tmp_path / "logs", judge=judge)
    # docs/judges.md: for r in 0 1 2; do inspect score LOG ... -S repeat=$r --action overwrite --output-file ...; done
    for repeat in repeats:
        copy = log.with_name(f"{log.stem}-repeat-{repeat}.eval")
        _score(log, "-S", f"repeat={repeat}", "--action", "overwrite", "--output-file", str(copy))

    for repeat in repeats:
        judged = read_eval_log(str(log.with_name(f"{log.stem}-repeat-{repeat}.eval")))
        scores = [sample.scores["judge_aspect"] for sample in judged.samples or []]
        assert len(scores) == ITEMS
        assert {(s.metadata["repeat"], s.metadata["cached"]) for s in scores} == {(repeat, False)}
    humans = tmp_path / "humans.csv"
    ids = [sample.id for sample in read_eval_log(str(log)).samples or []]
    humans.write_text("id,score\n" + "".join(f"{i},{n % 6}\n" for n, i in enumerate(ids)), encoding="utf-8")
    report = write_report(tmp_path / "logs", human=humans, figures=False)
    (row,) = report.table("judge_consistency").frame.to_dict("records")
    assert (row["runs_from"], row["runs"], row["n"], row["excluded"]) == ("repeats", 3, ITEMS, 0)
    assert row["flip_rate"] == 0.0  # chrF is deterministic: agreement here is real, not a replay
    # the first repeat alone fills Table 3 (one row, over the items once) and Table 1: the copies
    # holding further repeats are no candidate generation for the human scores
    (table3,) = report.table("table3_themes").frame.to_dict("records")
    assert table3["n"] == ITEMS
    table1 = report.table("table1_judges").frame.set_index("judge")
    assert table1.loc["judge_aspect", "n"] == ITEMS


@pytest.mark.slow
def test_scoring_again_without_a_new_repeat_is_a_replay_and_is_excluded(tmp_path: Path) -> None:
    # The case: three runs of the same command; the cache answers the second and third.
    log = _generate(tmp_path / "logs", judge="none")
    for run in range(3):
        _score(log, "--output-file", str(log.with_name(f"{log.stem}-run-{run}.eval")))

    report = write_report(tmp_path / "logs", figures=False)
    # Three files hold one judgement (one judge, one repeat, one generation): it is counted once,
    # from the latest written copy, and is no self-consistency run.
    assert report.table("judge_consistency").frame.empty
    (line,) = [line for line in report.markdown.splitlines() if line.startswith("- counted once:")]
    assert f"read {log.stem}-run-2.eval" in line and f"{log.stem}-run-0.eval" in line
    summary = report.table("judge_summary").frame.iloc[0]
    assert (summary["samples"], summary["generations"]) == (ITEMS, 1)


@pytest.mark.slow
@pytest.mark.parametrize("stale", ["both", "unrecorded"])
def test_rejudging_a_log_in_place_replaces_its_old_judgements(tmp_path: Path, stale: str) -> None:
    log = _generate(tmp_path / "logs", judge="aspect")
    assert STALE not in write_report(tmp_path / "logs", figures=False).markdown
    old = read_eval_log(str(log))
    # Judgements made under older rules: an older version (or none recorded), and a score the new
    # rules would not give.
    for sample in old.samples or []:
        score = sample.scores["judge_aspect"]
        for key in ("prompt_version", "parser_version"):
            if stale == "unrecorded":
                del score.metadata[key]
            else:
                score.metadata[key] = 0
        score.value = 0
    write_eval_log(old, str(log))
    # the report names them, with the command that judges them again
    before = write_report(tmp_path / "logs", figures=False).markdown
    (line,) = [line for line in before.splitlines() if STALE in line]
    assert f"{ITEMS} " in line and log.name in line and "--action overwrite --overwrite" in line

    # docs/judges.md: inspect score LOG --scorer vivid_inspect/judge -S strategy=aspect --model-role grader=... --action overwrite --overwrite
    _score(log, "--action", "overwrite", "--overwrite")

    new = read_eval_log(str(log))
    assert [s.name for s in new.results.scores] == ["judge_aspect"]  # type: ignore[union-attr]
    scores = [sample.scores["judge_aspect"] for sample in new.samples or []]
    assert {(s.metadata["prompt_version"], s.metadata["parser_version"]) for s in scores} == {
        (JUDGE_PROMPT_VERSION, JUDGE_PARSER_VERSION)
    }
    assert any(s.value != 0 for s in scores)  # the stale zeros are gone
    assert STALE not in write_report(tmp_path / "logs", figures=False).markdown


def _score_rows(*rows: tuple[str, object, object]) -> pd.DataFrame:
    """Score rows of one log: (strategy, prompt_version, parser_version) each."""
    records = [
        {
            "task": "explain",
            "log": "gen.eval",
            "strategy": strategy,
            "error": False,
            "prompt_version": prompt,
            "parser_version": parser,
        }
        for strategy, prompt, parser in rows
    ]
    return pd.DataFrame(records, columns=list(SCORE_COLUMNS))


NOW = (JUDGE_PROMPT_VERSION, JUDGE_PARSER_VERSION)


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        pytest.param([("aspect", *NOW), ("cot", *NOW)], None, id="current"),
        pytest.param(
            [("lexical", None, None), ("panel", None, None)], None, id="lexical-and-panel-use-no-prompt"
        ),
        pytest.param(
            [("aspect", NOW[0] - 1, NOW[1])],
            f"1 under older judge versions (prompt {NOW[0] - 1}/",
            id="older-prompt",
        ),
        pytest.param([("cot", NOW[0], NOW[1] - 1)], f"parser {NOW[1] - 1})", id="older-parser"),
        pytest.param(
            [("aspect", None, None), ("aspect", *NOW)], "1 that record no judge version", id="unrecorded"
        ),
    ],
)
def test_the_report_names_judge_scores_made_under_other_versions(
    rows: list[tuple[str, object, object]], expected: str | None
) -> None:
    found = stale_judgements(_score_rows(*rows))
    if expected is None:
        assert found is None
    else:
        assert (
            found is not None and expected in found and "gen.eval" in found and "vivid run SPEC.yaml" in found
        )
