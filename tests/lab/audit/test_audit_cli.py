"""``vivid audit`` on the command line: bad input exits 2 with one clear line, --plan calls nothing."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest

from vivid_inspect.lab.audit.probes import PROBES
from vivid_inspect.lab.cli.audit import model_arg
from vivid_inspect.lab.cli.main import main

SAMPLE_ROWS = """Idiom_Proverb,Meaning,Linguistic_Complexity_Taxonomy_1,Linguistic_Complexity_Taxonomy_2,Linguistic_Complexity_Taxonomy_3,Linguistic_Complexity_Taxonomy_4,Linguistic_Complexity_Taxonomy_5,Semantic_Theme
Một câu chưa có bản dịch,"Nghĩa thứ nhất của câu này.",0,0,0,0,0,2
Một câu khác chưa dịch,"Nghĩa thứ hai, khác hẳn nghĩa trên.",0,0,0,0,0,2
"""


@pytest.fixture(autouse=True)
def _quiet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("INSPECT_DISPLAY", "none")
    monkeypatch.setenv("VIVID_OUTPUT_DIR", str(tmp_path))  # the cards in tmp_path/audit, tmp_path/sanity
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
        pytest.param(["vivid/chrf", "--limit", "0"], "limit 0 must be between 1 and 100000", id="limit-zero"),
        pytest.param(
            ["vivid/chrf", "--limit", "1" + "0" * 30],
            "must be between 1 and 100000",
            id="limit-past-the-bound",
        ),
        pytest.param(
            ["vivid/chrf", "--seed", str(2**40)], "must be at most 4294967295", id="seed-past-the-bound"
        ),
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
def test_english_named_without_translations_names_the_translator_option(
    untranslated: Path, plan: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        _exit(["audit", "vivid/chrf", "--data", str(untranslated), "--probes", "english,hedge", *plan]) == 2
    )
    err = capsys.readouterr().err
    assert "--translator MODEL" in err
    assert "--probes retest,reference,hedge" in err
    assert not Path("audit").exists()  # nothing ran, nothing written


LEFT_OUT = (
    "vivid audit: english left out: only the bundled sample ships English meanings, not {data}; add it "
    "with --translator MODEL (one call per item, cached), or choose the probes with --probes A,B\n"
)


@pytest.mark.slow
def test_by_default_every_probe_the_data_allows_runs_and_one_line_says_english_was_left_out(
    untranslated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = _exit(["audit", "vivid/chrf", "--data", str(untranslated), "--threshold", "min_items=1"])
    out = capsys.readouterr()
    assert code in (0, 1), out.err
    assert out.err == LEFT_OUT.format(data=untranslated)
    with (Path("audit") / "audit.csv").open(encoding="utf-8", newline="") as file:
        probes = [row["probe"] for row in csv.DictReader(file)]
    assert probes == [name for name in PROBES if name != "english"]
    assert "english left out" in (Path("audit") / "audit.md").read_text("utf-8")


def test_the_plan_of_a_default_audit_says_english_was_left_out(
    untranslated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _exit(["audit", "vivid/chrf", "--data", str(untranslated), "--plan"]) == 0
    out = capsys.readouterr().out
    assert f"english left out: only the bundled sample ships English meanings, not {untranslated}" in out
    assert "2 items" in out and "× 11 probes" in out


def test_with_a_translator_english_is_not_left_out(
    untranslated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = _exit(
        ["audit", "vivid/chrf", "--data", str(untranslated), "--plan", "--translator", "openai/gpt-4.1-mini"]
    )
    out = capsys.readouterr().out
    assert code == 0 and "left out" not in out and "english" in out


def test_leaving_english_out_runs_on_untranslated_data(
    untranslated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = _exit(["audit", "vivid/chrf", "--data", str(untranslated), "--probes", "partial,hedge", "--plan"])
    assert code == 0
    assert "2 items" in capsys.readouterr().out


def test_plan_prints_calls_tokens_and_cost_and_calls_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    # A paid judge with no API key: --plan must not build it, let alone call it.
    code = _exit(["audit", "openai/gpt-4.1", "--limit", "10", "--translator", "openai/gpt-4.1-mini"])
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
    # 10 items x 12 probes (the control among them), less the 2 Literal items left out of the literal probe.
    assert "| grader | openai/gpt-4.1 | 118 | 236 |" in out.out
    assert "| translator | openai/gpt-4.1-mini | 10 | 30 |" in out.out
    assert "$" in out.out and "nothing has been called" in out.out
    assert not Path("logs").exists() and not Path("audit").exists()


def test_plan_counts_items_times_probes() -> None:
    from vivid_inspect.lab.audit.plan import Price, make_audit_plan

    plan = make_audit_plan("vivid/chrf", limit=5, probes="padding", price=Price(1, 2))
    (grader,) = plan.roles
    assert (plan.items, plan.probes) == (5, ("retest", "reference", "partial", "padding"))
    assert (grader.calls, grader.max_calls, grader.output_tokens) == (20, 40, 20 * 10)
    # Padding makes the longest prompts; each prompt's estimate is at least its template's.
    assert grader.input_tokens > 20 * 300
    assert grader.cost == pytest.approx((grader.input_tokens * 1 + grader.output_tokens * 2) / 1e6)


@pytest.mark.slow
def test_cli_runs_the_audit_writes_the_card_and_exits_1_on_a_failed_probe(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "card"
    code = _exit(["audit", "vivid/chrf", "--limit", "10", "--probes", "english,hedge", "--out", str(out)])
    printed = capsys.readouterr().out
    assert code == 1  # chrF cannot read English
    assert "## Judge audit: FAIL" in printed and "`english`" in printed
    assert sorted(path.name for path in out.iterdir()) == ["audit.csv", "audit.md", "audit_shifts.png"]


@pytest.mark.slow
def test_cli_exit_0_when_no_probe_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 40 items: equal scores bound a shift to about ±0.34, inside the ±0.5 tolerance (10 items: ±1.35).
    code = _exit(["audit", "vivid/chrf", "--limit", "40", "--probes", "spelling,wrong"])
    assert code == 0, capsys.readouterr().err
    assert (Path("audit") / "audit.md").read_text("utf-8").startswith("## Judge audit: PASS")


def _refused_before_any_call(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> str:
    """Run ``vivid audit ARGV``: exit 2, one line per problem naming it, nothing run or written."""
    code = _exit(["audit", *argv])
    err = capsys.readouterr().err
    assert code == 2, err
    assert message in err, err
    assert "Traceback" not in err
    # Inspect writes a log for every task it starts: no log folder means no task, hence no call.
    assert not Path("logs").exists() and not Path("audit").exists()
    return err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        pytest.param(
            ["vivid/chrf", "--seed", "-1", "--probes", "partial"],
            "seed = -1: must be a whole number, 0 or more",
            id="run",
        ),
        pytest.param(
            ["vivid/chrf", "--seed", "-1", "--plan"],
            "seed = -1: must be a whole number, 0 or more",
            id="plan",
        ),
        pytest.param(
            ["--from", "logs", "--seed", "-1"], "seed = -1: must be a whole number, 0 or more", id="from"
        ),
        pytest.param(
            ["vivid/chrf", "--seed", "-7000000000000"],
            "must be a whole number, 0 or more",
            id="large-negative",
        ),
        pytest.param(["vivid/chrf", "--seed", "1.5"], "seed '1.5' is not a whole number", id="not-whole"),
    ],
)
def test_a_bad_seed_is_refused_before_any_call(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _refused_before_any_call(argv, message, capsys)


@pytest.mark.parametrize(
    "seed", [-1, -(2**40), True, 1.0, "0"], ids=["minus-one", "large", "bool", "float", "text"]
)
def test_run_audit_refuses_a_bad_seed_from_python(seed: object) -> None:
    from vivid_inspect.lab.audit.run import run_audit

    with pytest.raises(ValueError, match="seed = .*: must be a whole number, 0 or more"):
        run_audit("vivid/chrf", limit=2, probes="wrong", seed=seed, display="none")  # type: ignore[arg-type]
    assert not Path("logs").exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        pytest.param(
            ["vivid/chrf", "--plan", "--threshold", "foo=1"], "threshold 'foo' is unknown", id="unknown"
        ),
        pytest.param(
            ["vivid/chrf", "--plan", "--threshold", "min_rate=2"], "Thresholds.min_rate", id="off-range"
        ),
        pytest.param(["vivid/chrf", "--plan", "--threshold", "min_rate"], "min_rate", id="no-value"),
        pytest.param(["vivid/chrf", "--plan", "--price", "nan,nan"], "is not INPUT,OUTPUT", id="price-nan"),
        pytest.param(["vivid/chrf", "--plan", "--price", "inf,1"], "is not INPUT,OUTPUT", id="price-inf"),
        pytest.param(
            ["vivid/chrf", "--plan", "--price", "1,-inf"], "is not INPUT,OUTPUT", id="price-minus-inf"
        ),
        pytest.param(["vivid/chrf", "--plan", "--price=-1,2"], "is not INPUT,OUTPUT", id="price-negative"),
        pytest.param(
            ["vivid/chrf", "--price", "2,8"], "--price applies only with --plan", id="price-without-plan"
        ),
        pytest.param(
            ["vivid/chrf", "--family", "a=b"], "--family applies only with --from", id="family-without-from"
        ),
        pytest.param(
            ["vivid/chrf", "-M", "data=sample"], "-M data: vivid/chrf takes no model argument", id="M-vivid"
        ),
        pytest.param(
            ["vivid/chrf", "--plan", "-M", "base_url=http://x/v1"],
            "-M base_url: vivid/chrf",
            id="M-vivid-plan",
        ),
    ]
    + [
        pytest.param(
            ["--from", "logs", *option], f"{option[0]} does not apply with --from", id=f"from-{option[0]}"
        )
        for option in (
            ["--plan"],
            ["--probes", "wrong"],
            ["--threshold", "min_rate=0.5"],
            ["--limit", "3"],
            ["--data", "sample"],
            ["--strategy", "aspect"],
            ["--language", "vi"],
            ["--translator", "openai/gpt-4.1-mini"],
            ["-M", "base_url=http://x/v1"],
            ["--log-dir", "elsewhere"],
        )
    ],
)
def test_an_option_that_does_not_apply_or_a_bad_value_is_refused(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _refused_before_any_call(argv, message, capsys)


def test_every_option_the_mode_ignores_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    err = _refused_before_any_call(
        ["--from", "logs", "--plan", "--probes", "wrong", "--limit", "3"], "--plan does not apply", capsys
    )
    assert [line.split()[2] for line in err.splitlines()] == ["--plan", "--probes", "--limit"]


@pytest.fixture
def a_file(tmp_path: Path) -> Path:
    path = tmp_path / "afile.txt"
    path.write_text("not a folder\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("option", "where", "message"),
    [
        pytest.param("--out", "{file}", "is a file, not a folder", id="out-is-a-file"),
        pytest.param("--out", "{file}/sub", "is a file, not a folder", id="out-under-a-file"),
        pytest.param("--log-dir", "{file}", "is a file, not a folder", id="log-dir-is-a-file"),
        pytest.param("--log-dir", "{file}/sub/deeper", "is a file, not a folder", id="log-dir-under-a-file"),
        pytest.param("--out", "/sys/vivid-audit-card", "cannot write in /sys", id="out-read-only"),
        pytest.param("--log-dir", "/proc/vivid-audit-logs", "cannot write in /proc", id="log-dir-read-only"),
    ],
)
def test_an_unusable_out_or_log_folder_is_refused_before_any_call(
    a_file: Path, option: str, where: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = where.format(file=a_file)
    err = _refused_before_any_call(
        ["vivid/chrf", "--limit", "2", "--probes", "wrong", option, path], message, capsys
    )
    assert err.count("\n") == 1 and f"{option} {path}" in err


@pytest.mark.slow
@pytest.mark.parametrize(
    "error",
    [
        pytest.param(OSError(28, "No space left on device", "audit/audit_shifts.png"), id="disk-full"),
        pytest.param(PermissionError(13, "Permission denied", "audit/audit.md"), id="permission"),
        pytest.param(NotADirectoryError(20, "Not a directory", "audit"), id="folder-replaced"),
    ],
)
def test_an_error_while_writing_the_card_is_one_line_exit_2(
    error: OSError, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from vivid_inspect.lab.audit.card import AuditCard

    def fail(self: AuditCard, out_dir: Path) -> dict[str, Path]:
        raise error

    monkeypatch.setattr(AuditCard, "write", fail)
    assert _exit(["audit", "vivid/chrf", "--limit", "2", "--probes", "wrong"]) == 2
    err = capsys.readouterr().err
    assert err == f"vivid audit: cannot write {error.filename}: {error.strerror}\n"


@pytest.mark.parametrize("command", ["audit", "sanity"])
@pytest.mark.parametrize("key", ["bogus_arg", "temprature", "base-urll"])
def test_an_unknown_model_argument_is_one_line_naming_key_and_model(
    command: str, key: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LOCAL_API_KEY", "dummy")
    argv = [command, "openai-api/local/m", "-M", "base_url=http://127.0.0.1:9/v1", "-M", f"{key}=1"]
    assert _exit(argv) == 2
    err = capsys.readouterr().err
    name = key.replace("-", "_")  # as Inspect reads -M keys
    assert err == f"vivid {command}: -M {name}: not a model argument of openai-api/local/m\n"
    assert not Path("logs").exists()


@pytest.mark.parametrize("command", ["audit", "sanity"])
def test_a_missing_api_key_is_one_line(
    command: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("LOCAL_API_KEY", raising=False)
    assert _exit([command, "openai-api/local/m", "-M", "base_url=http://127.0.0.1:9/v1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "LOCAL_API_KEY" in err and err.startswith(f"vivid {command}: ")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        pytest.param(
            ["vivid/chrf", "--translator", "vivid/chrf"],
            "--translator vivid/chrf: an offline vivid model",
            id="chrf",
        ),
        pytest.param(
            ["vivid/chrf", "--translator", "vivid/oracle", "--plan"],
            "--translator vivid/oracle",
            id="oracle-plan",
        ),
        pytest.param(["vivid/oracle"], "vivid/oracle cannot judge", id="oracle-judge"),
        pytest.param(["vivid/literal", "--plan"], "vivid/literal cannot judge", id="literal-judge-plan"),
        pytest.param(["none/none"], "none/none cannot judge", id="none-judge"),
    ],
)
def test_an_offline_model_in_a_role_it_cannot_play_is_a_set_up_error(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _refused_before_any_call([*argv, "--limit", "2"], message, capsys)
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    ("argv", "env", "model"),
    [
        pytest.param(
            ["openai-api/local/m", "-M", "base_url=http://127.0.0.1:9/v1"],
            {"LOCAL_API_KEY": "dummy"},
            "judge openai-api/local/m",
            id="judge",
        ),
        pytest.param(
            ["vivid/chrf", "--translator", "openai-api/local/t", "--data", "{data}"],
            {"LOCAL_API_KEY": "dummy", "LOCAL_BASE_URL": "http://127.0.0.1:9/v1"},
            "translator openai-api/local/t",
            id="translator",
        ),
    ],
)
def test_a_dead_endpoint_is_named_with_its_cause_before_any_call(
    argv: list[str],
    env: dict[str, str],
    model: str,
    untranslated: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    argv = [arg.format(data=untranslated) for arg in argv]
    err = _refused_before_any_call(
        [*argv, "--limit", "2"], f"{model}: no connection to http://127.0.0.1:9/v1/models", capsys
    )
    assert "Connection refused" in err and err.count("\n") == 1 and "RetryError" not in err


# --- one progress bar, not Inspect's task panels -----------------------------------------------------


@pytest.mark.slow
def test_the_audit_prints_its_card_and_no_task_panels(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    env = {key: value for key, value in os.environ.items() if key != "INSPECT_DISPLAY"}
    done = subprocess.run(
        [sys.executable, "-m", "vivid_inspect.lab.cli.main", "audit", "vivid/chrf", "--limit", "12"]
        + ["--probes", "spelling,hedge", "--out", str(tmp_path / "out"), "--log-dir", str(tmp_path / "logs")],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("## Judge audit: ")
    # Inspect's display would print a panel per probe's task (about 380 lines for the full audit);
    # off a terminal the one bar draws nothing, so the card is all there is (standard error keeps
    # the data layer's one line naming the item it leaves out: the demonstration itself).
    for printed in (done.stdout, done.stderr):
        assert "samples" not in printed and "╭" not in printed and "audit_hedge" not in printed
    assert len(done.stderr.splitlines()) <= 1, done.stderr
    card = (tmp_path / "out" / "audit.md").read_text("utf-8")
    assert (
        done.stdout
        == card + "\nWritten to " + str(tmp_path / "out") + ": audit.md, audit.csv, audit_shifts.png\n"
    )


@pytest.mark.slow
def test_on_a_terminal_one_bar_counts_every_candidate_of_the_audit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    from rich.console import Console

    from vivid_inspect.lab.audit import progress
    from vivid_inspect.lab.audit.run import run_audit

    screen = io.StringIO()
    monkeypatch.setattr(
        progress, "Console", lambda **kwargs: Console(file=screen, force_terminal=True, width=120, **kwargs)
    )
    card = run_audit("vivid/chrf", limit=4, probes="hedge", log_dir=str(tmp_path / "logs"), progress=True)
    assert [r.probe for r in card.results] == ["reference", "hedge"]
    from rich.text import Text

    drawn = Text.from_ansi(screen.getvalue()).plain
    assert "vivid audit judging 2 probes with vivid/chrf" in drawn
    assert "8/8 candidates" in drawn
    assert progress._active is None  # the counters are gone once the audit ends


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("base_url=http://localhost:8000/v1", ("base_url", "http://localhost:8000/v1"), id="url"),
        pytest.param("max-retries=0", ("max_retries", 0), id="dash-to-underscore-and-yaml-int"),
        pytest.param("query=a=b", ("query", "a=b"), id="value-keeps-equals"),
    ],
)
def test_model_arg(text: str, expected: tuple[str, Any]) -> None:
    assert model_arg(text) == expected
