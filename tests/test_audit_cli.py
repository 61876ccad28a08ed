"""``vivid audit`` on the command line: bad input exits 2 with one clear line, --plan calls nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from vivid_inspect.audit.probes import PROBES
from vivid_inspect.cli.main import main

SAMPLE_ROWS = """Idiom_Proverb,Meaning,Linguistic_Complexity_Taxonomy_1,Linguistic_Complexity_Taxonomy_2,Linguistic_Complexity_Taxonomy_3,Linguistic_Complexity_Taxonomy_4,Linguistic_Complexity_Taxonomy_5,Semantic_Theme
Một câu chưa có bản dịch,"Nghĩa thứ nhất của câu này.",0,0,0,0,0,2
Một câu khác chưa dịch,"Nghĩa thứ hai, khác hẳn nghĩa trên.",0,0,0,0,0,2
"""


@pytest.fixture(autouse=True)
def _quiet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("INSPECT_DISPLAY", "none")
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def untranslated(tmp_path: Path) -> Path:
    path = tmp_path / "mine.csv"
    path.write_text(SAMPLE_ROWS, encoding="utf-8")
    return path


def _exit(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exit:  # argparse's own errors
        return int(exit.code or 0)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        pytest.param(["vivid/chrf", "--limit", "0"], "limit 0 must be 1 or more", id="limit-zero"),
        pytest.param(
            ["vivid/chrf", "--limit", "ten"], "limit 'ten' is not a whole number", id="limit-not-a-number"
        ),
        pytest.param(["vivid/chrf", "--strategy", "vibes"], "invalid choice: 'vibes'", id="unknown-strategy"),
        pytest.param(["vivid/chrf", "--language", "fr"], "invalid choice: 'fr'", id="unknown-language"),
        pytest.param(
            ["vivid/chrf", "--probes", "padding,vibes"], "unknown probe(s) vibes", id="unknown-probe"
        ),
        pytest.param(
            ["vivid/chrf", "--probes", "vibes", "--plan"], "unknown probe(s) vibes", id="unknown-probe-plan"
        ),
        pytest.param(
            ["vivid/chrf", "--threshold", "min_rate=2"], "Thresholds.min_rate", id="threshold-off-range"
        ),
        pytest.param(
            ["vivid/chrf", "--threshold", "nope=1"], "threshold 'nope' is unknown", id="unknown-threshold"
        ),
        pytest.param(["vivid/chrf", "--price", "cheap"], "is not INPUT,OUTPUT", id="bad-price"),
        pytest.param(["vivid/chrf", "-M", "novalue"], "is not key=value", id="bad-model-arg"),
        pytest.param(["vivid/nope"], "unknown vivid model", id="unknown-judge-model"),
        pytest.param(["vivid/chrf", "--data", "missing.csv"], "missing.csv", id="missing-data"),
        pytest.param([], "name the judge to audit", id="no-judge"),
        pytest.param(["vivid/chrf", "--from", "logs"], "not both", id="judge-and-from"),
    ],
)
def test_bad_arguments_exit_2_with_a_message(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _exit(["audit", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


@pytest.mark.parametrize("plan", [[], ["--plan"]], ids=["run", "plan"])
def test_english_without_translations_names_the_translator_option(
    untranslated: Path, plan: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert _exit(["audit", "vivid/chrf", "--data", str(untranslated), *plan]) == 2
    err = capsys.readouterr().err
    assert "--translator MODEL" in err
    assert "--probes " + ",".join(name for name in PROBES if name != "english") in err
    assert not Path("audit").exists()  # nothing ran, nothing written


def test_leaving_english_out_runs_on_untranslated_data(
    untranslated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = _exit(["audit", "vivid/chrf", "--data", str(untranslated), "--probes", "partial,hedge", "--plan"])
    assert code == 0
    assert "2 items" in capsys.readouterr().out


def test_plan_prints_calls_tokens_and_cost_and_calls_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    # A paid judge with no API key: --plan must not build it, let alone call it.
    code = _exit(
        ["audit", "openai/gpt-4.1", "--limit", "10", "--price", "2,8", "--translator", "openai/gpt-4.1-mini"]
    )
    out = capsys.readouterr()
    assert code == 2 and "OPENAI_API_KEY" in out.err  # without --plan it needs the key

    code = _exit(
        [
            "audit",
            "openai/gpt-4.1",
            "--limit",
            "10",
            "--plan",
            "--price",
            "2,8",
            "--translator",
            "openai/gpt-4.1-mini",
        ]
    )
    out = capsys.readouterr()
    assert code == 0, out.err
    # 10 items x 11 probes, less the 2 Literal items left out of the literal probe.
    assert "| grader | openai/gpt-4.1 | 108 | 216 |" in out.out
    assert "| translator | openai/gpt-4.1-mini | 10 | 30 |" in out.out
    assert "$" in out.out and "nothing has been called" in out.out
    assert not Path("logs").exists() and not Path("audit").exists()


def test_plan_counts_items_times_probes() -> None:
    from vivid_inspect.audit.plan import Price, make_audit_plan

    plan = make_audit_plan("vivid/chrf", limit=5, probes="padding", price=Price(1, 2))
    (grader,) = plan.roles
    assert (plan.items, plan.probes) == (5, ("reference", "partial", "padding"))
    assert (grader.calls, grader.max_calls, grader.output_tokens) == (15, 30, 15 * 10)
    # Padding makes the longest prompts; each prompt's estimate is at least its template's.
    assert grader.input_tokens > 15 * 300
    assert grader.cost == pytest.approx((grader.input_tokens * 1 + grader.output_tokens * 2) / 1e6)


def test_cli_runs_the_audit_writes_the_card_and_exits_1_on_a_failed_probe(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "card"
    code = _exit(["audit", "vivid/chrf", "--limit", "10", "--probes", "english,hedge", "--out", str(out)])
    printed = capsys.readouterr().out
    assert code == 1  # chrF cannot read English
    assert "## Judge audit: FAIL" in printed and "`english`" in printed
    assert sorted(path.name for path in out.iterdir()) == ["audit.csv", "audit.md", "audit_shifts.png"]


def test_cli_exit_0_when_no_probe_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = _exit(["audit", "vivid/chrf", "--limit", "10", "--probes", "spelling,wrong"])
    assert code == 0, capsys.readouterr().err
    assert (Path("audit") / "audit.md").read_text("utf-8").startswith("## Judge audit: PASS")
