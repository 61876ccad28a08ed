"""``vivid sanity JUDGE``: the audit's literal probe under its old name, with the audit's preflight and card.

The command used to run its own check (about 830 lines); it is now ``vivid audit JUDGE --probes
literal --limit 40``: the reference, vivid/literal's word-for-word restatement and their verdicts.
What it kept: its name, its options (``--strategy``, ``--data``, ``--limit`` 40, ``--seed``,
``--log-dir``, ``-M``), its exit codes (0 pass, 1 fail or unfinished, 2 bad arguments or set-up; now 3 when the judge's replies were unreadable)
and a markdown card. What it gained: the endpoint check before any call (a closed port took 98 s
and 849 lines of tracebacks; now one line at once), the progress bar and the card's files. Logs
of the former command (tagged ``vivid-sanity``) are still set aside by the report
(tests/lab/report/test_report_audit_logs.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import read_eval_log

from tests.dead_endpoints import closed_port
from vivid_inspect.baselines.chrf_judge import judge_fields
from vivid_inspect.lab.cli.audit import SANITY_LIMIT
from vivid_inspect.lab.cli.main import build_parser, main
from vivid_inspect.log_contract import AUDIT_TAG
from vivid_inspect.testing.openai_server import FakeOpenAIServer
from vivid_inspect.text import nfc

FAST = 15.0
"""Seconds a refused sanity check may take at most, on a loaded machine (it makes no judge call)."""


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The judge scorer caches replies by model name and prompt: scripted judges that share a
    # name would otherwise replay each other's verdicts.
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("INSPECT_DISPLAY", "none")
    monkeypatch.setenv("VIVID_OUTPUT_DIR", str(tmp_path))  # the cards in tmp_path/audit, tmp_path/sanity
    monkeypatch.chdir(tmp_path)


def _exit(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exit:  # argparse's own errors
        return int(exit.code or 0)


def _is_reference(prompt: str) -> bool:
    fields = judge_fields(prompt)
    assert fields is not None, "the judge was sent something that is not a VIVID judge prompt"
    reference, candidate = fields
    return nfc(reference).strip() == nfc(candidate).strip()


def discriminating(prompt: str) -> str:
    return "5" if _is_reference(prompt) else "0"


def constant(prompt: str) -> str:
    return "3"


def inverted(prompt: str) -> str:
    return "0" if _is_reference(prompt) else "5"


def mute(prompt: str) -> str:
    return "Tôi không thể chấm bài này."


# --- the alias runs the audit's literal probe ---------------------------------------------------------


def test_the_offline_chrf_grader_passes_with_the_audits_card_and_logs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _exit(["sanity", "vivid/chrf", "--log-dir", str(tmp_path / "logs")]) == 0
    out = capsys.readouterr().out
    assert f"on {SANITY_LIMIT} items of vivid_inspect sample" in out
    assert "| `reference` | high (≥ 4.00) |" in out and "| `literal` | at most 1 (≤ 1.00) |" in out
    assert "0 fail" in out and "`partial`" not in out and "`wrong`" not in out  # those probes only
    assert sorted(p.name for p in (tmp_path / "sanity").iterdir()) == [
        "audit.csv",
        "audit.md",
        "audit_shifts.png",
    ]
    logs = list((tmp_path / "logs").glob("*.eval"))
    assert sorted(log.name.split("_audit-")[1].split("_")[0] for log in logs) == ["literal", "reference"]
    for log in logs:
        header = read_eval_log(str(log), header_only=True)
        assert AUDIT_TAG in (header.eval.tags or [])  # set aside by the report as an audit


@pytest.mark.slow  # 80 requests to a server; the unreadable judge is asked again after 1, 2, 4 s
@pytest.mark.parametrize(
    ("answer", "code", "verdicts"),
    [
        pytest.param(discriminating, 0, {"reference": "pass", "literal": "pass"}, id="discriminating-passes"),
        pytest.param(constant, 1, {"reference": "**FAIL**", "literal": "**FAIL**"}, id="constant-3-fails"),
        pytest.param(inverted, 1, {"reference": "**FAIL**", "literal": "**FAIL**"}, id="inverted-fails"),
        pytest.param(
            mute, 3, {"reference": "inconclusive", "literal": "inconclusive"}, id="unreadable-judge"
        ),
    ],
)
def test_a_judge_behind_a_base_url_is_judged_by_the_reference_and_literal_probes(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    answer: Callable[[str], str],
    code: int,
    verdicts: dict[str, str],
) -> None:
    def respond(model: str, messages: list[dict[str, Any]]) -> str:
        return answer("\n\n".join(m["content"] for m in messages if m["role"] == "user"))

    with FakeOpenAIServer(responder=respond) as server:
        # Only the key comes from the environment: the address must come from -M base_url.
        monkeypatch.setenv("FAKE_API_KEY", server.env()["FAKE_API_KEY"])
        monkeypatch.delenv("FAKE_BASE_URL", raising=False)
        argv = ["sanity", "openai-api/fake/judge", "-M", f"base_url={server.base_url}", "-M", "max_retries=0"]
        got = _exit([*argv, "--seed", "1", "--log-dir", str(tmp_path / "logs")])  # 40 items
        judged = server.model_counts.get("judge", 0)
    out, err = capsys.readouterr()
    for probe, verdict in verdicts.items():
        assert any(
            line.startswith(f"| `{probe}` |") and line.endswith(f"| {verdict} |") for line in out.splitlines()
        ), out
    assert got == code, err
    if answer is mute:
        # every verdict unreadable, each asked again: inconclusive everywhere, for that reason (exit 3)
        assert (
            "vivid sanity: INCONCLUSIVE because the judge's replies were unreadable: more than 10 % of the items "
            "unscored in 2 of 2 probes (reference, literal)" in err
        )
        assert judged > 2 * SANITY_LIMIT
    else:
        assert (
            SANITY_LIMIT < judged < 2 * SANITY_LIMIT
        )  # the reference and the literal reading (Literal items left out)


def test_strategy_language_and_seed_reach_the_audit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["sanity", "vivid/chrf", "--strategy", "cot", "--language", "en", "--limit", "12", "--seed", "5"]
    assert _exit([*argv, "--out", str(tmp_path / "card"), "--log-dir", str(tmp_path / "logs")]) in (0, 1)
    out = capsys.readouterr().out
    assert "(strategy `cot`, instructions in `en`) on 12 items" in out
    assert (tmp_path / "card" / "audit.md").read_text(encoding="utf-8").strip() in out


# --- it fails fast -------------------------------------------------------------------------------------


def test_a_closed_port_stops_at_the_preflight_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The former `vivid sanity` had no preflight: 98 s of retries and 849 lines of tracebacks.
    monkeypatch.setenv("LOCAL_API_KEY", "dummy")
    url = f"http://127.0.0.1:{closed_port()}/v1"
    started = time.monotonic()
    code = _exit(
        ["sanity", "openai-api/local/judge", "-M", f"base_url={url}", "--log-dir", str(tmp_path / "logs")]
    )
    elapsed = time.monotonic() - started
    out, err = capsys.readouterr()
    assert code == 2 and elapsed < FAST
    assert (
        err
        == f"vivid sanity: judge openai-api/local/judge: no connection to {url}/models (Connection refused)\n"
    )
    assert out == "" and "Traceback" not in err
    assert not (tmp_path / "logs").exists() and not (tmp_path / "sanity").exists()


@pytest.mark.slow  # every call is retried, and Inspect renders each failure
@pytest.mark.usefixtures("no_retry_waits")  # each call still fails 4 times, without 21 s of back-off
def test_a_run_that_cannot_finish_exits_1_naming_the_failed_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(model: str, messages: list[dict[str, Any]]) -> str:
        raise RuntimeError("the judge server is down")

    with FakeOpenAIServer(responder=broken) as server:
        monkeypatch.setenv("FAKE_API_KEY", server.env()["FAKE_API_KEY"])
        argv = ["sanity", "openai-api/fake/judge", "-M", f"base_url={server.base_url}", "-M", "max_retries=0"]
        assert _exit([*argv, "--limit", "2", "--log-dir", str(tmp_path / "logs")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("vivid sanity: FAIL: ") and "did not complete" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        pytest.param(["vivid/chrf", "--limit", "0"], "limit 0 must be between 1 and 100000", id="zero-items"),
        pytest.param(
            ["vivid/chrf", "--strategy", "lexical"], "invalid choice: 'lexical'", id="not-an-llm-strategy"
        ),
        pytest.param(["vivid/chrf", "-M", "base_url"], "is not key=value", id="model-arg-without-value"),
        pytest.param([], "the following arguments are required: JUDGE", id="no-judge"),
        pytest.param(
            ["vivid/chrf", "--probes", "wrong"], "unrecognized arguments: --probes", id="probes-are-fixed"
        ),
        pytest.param(["nope/judge"], "not recognized", id="unknown-provider"),
        pytest.param(["vivid/chrf", "--data", "/no/such/file.csv"], "no such data file", id="missing-data"),
        pytest.param(
            ["vivid/chrf", "-M", "colour=blue"], "takes only the model argument", id="bad-model-arg"
        ),
        pytest.param(["vivid/chrf", "--threshold", "ceiling=9"], "ceiling", id="threshold-off-its-range"),
        pytest.param(
            ["vivid/chrf", "--min-gap", "1.5"],
            "--min-gap: gone, vivid sanity is now the audit's literal probe",
            id="min-gap",
        ),
        pytest.param(
            ["vivid/chrf", "--min-share", "0.8", "--max-unscored", "0.1"],
            "--min-share, --max-unscored: gone",
            id="min-share",
        ),
    ],
)
def test_bad_arguments_and_set_up_exit_2_before_any_call(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _exit(["sanity", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "logs").exists() and not (tmp_path / "sanity").exists()


def test_a_missing_api_key_is_a_set_up_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("OPENAI_API_KEY", "AZUREAI_OPENAI_API_KEY", "AZURE_OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    assert _exit(["sanity", "openai/gpt-4.1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("vivid sanity: ") and "OPENAI_API_KEY" in err and "[bold]" not in err


def test_the_defaults_are_the_documented_ones() -> None:
    args = build_parser().parse_args(["sanity", "vivid/chrf"])
    assert (args.limit, args.seed, args.probes, args.translator) == (40, 0, "literal", None)
    assert args.model_args == [] and args.strategy is None  # aspect, filled in as the audit does
