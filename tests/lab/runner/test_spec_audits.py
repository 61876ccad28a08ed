"""A spec's ``audits:``: `vivid run` audits the judges it lists, in the same run.

Validation: every bad entry is one problem at its YAML path, in the same pass as the rest of the
spec. Running: an offline spec audits the chrF grader; the card is the one `vivid audit` gives on
the same settings, the report shows it, and a second run rebuilds it from its logs without a call.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.recommended_commands import failing
from vivid_inspect.lab.audit.run import run_audit
from vivid_inspect.lab.cli.main import main
from vivid_inspect.lab.runner import audits as runner_audits
from vivid_inspect.lab.runner.audits import AUDITS_DIR, CARD_DIR
from vivid_inspect.lab.runner.execute import run_spec
from vivid_inspect.lab.runner.spec.load import load_spec
from vivid_inspect.lab.runner.spec.problems import SpecError, format_path

AUDIT = {"judge": "chrf_aspect", "probes": ["partial", "wrong"], "limit": 6}


def _spec(**changes: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "name": "audited",
        "data": "sample",
        "log_dir": "logs",
        "runs": [
            {
                "tasks": ["explain"],
                "prompts": ["zero_shot"],
                "models": ["vivid/oracle"],
                "sample": {"n": 8, "by": "theme", "seed": 0},
            }
        ],
        "judges": [
            {"name": "chrf_aspect", "strategy": "aspect", "model": "vivid/chrf"},
            {"name": "lexical", "strategy": "lexical"},
        ],
        "audits": [copy.deepcopy(AUDIT)],
    }
    return spec | changes


def _write(tmp_path: Path, data: dict[str, Any]) -> Path:
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def _problems(tmp_path: Path, data: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(SpecError) as caught:
        load_spec(_write(tmp_path, data))
    return {format_path(p.path): p.message for p in caught.value.problems}


def test_a_spec_with_audits_is_valid(tmp_path: Path) -> None:
    loaded = load_spec(_write(tmp_path, _spec()))
    (audit,) = loaded.spec.audits
    assert (audit.judge, audit.probes, audit.limit, audit.seed) == ("chrf_aspect", ["partial", "wrong"], 6, 0)


def _audit(**changes: Any) -> list[dict[str, Any]]:
    return [copy.deepcopy(AUDIT) | changes]


CASES = [
    pytest.param(_audit(judge="nobody"), "audits[0].judge", "no judge is named 'nobody'", id="unknown-judge"),
    pytest.param(_audit(judge="lexical"), "audits[0].judge", "calls no model", id="lexical-judge"),
    pytest.param([AUDIT, AUDIT], "audits[1].judge", "already audited by audits[0]", id="judge-audited-twice"),
    pytest.param(
        _audit(probes=["partial", "flattery"]), "audits[0].probes[1]", "unknown probe", id="unknown-probe"
    ),
    pytest.param(_audit(probes=["wrong", "wrong"]), "audits[0].probes[1]", "listed twice", id="probe-twice"),
    pytest.param(_audit(probes=[]), "audits[0].probes", "at least 1 item", id="no-probes"),
    pytest.param(_audit(limit=0), "audits[0].limit", "greater than or equal to 1", id="zero-limit"),
    pytest.param(_audit(limit="6"), "audits[0].limit", "valid integer", id="limit-not-a-number"),
    pytest.param(_audit(probe=["wrong"]), "audits[0].probe", "unknown key", id="unknown-key"),
    pytest.param([{"probes": ["wrong"]}], "audits[0].judge", "required", id="no-judge"),
    pytest.param(_audit(seed=-1), "audits[0].seed", "greater than or equal to 0", id="negative-seed"),
    pytest.param(
        _audit(seed=-(2**40)), "audits[0].seed", "greater than or equal to 0", id="large-negative-seed"
    ),
    pytest.param(_audit(seed=1.5), "audits[0].seed", "valid integer", id="fractional-seed"),
    pytest.param(_audit(seed="x"), "audits[0].seed", "valid integer", id="seed-not-a-number"),
]


@pytest.mark.parametrize(("audits", "where", "message"), CASES)
def test_a_bad_audit_is_reported_at_its_yaml_path(
    tmp_path: Path, audits: list[Any], where: str, message: str
) -> None:
    problems = _problems(tmp_path, _spec(audits=audits))
    assert where in problems, problems
    assert message in problems[where]
    assert len(problems) == 1, problems


@pytest.mark.parametrize(
    "probes",
    [pytest.param(["wrong", "english"], id="english-listed"), pytest.param(["english"], id="english-only")],
)
def test_the_english_probe_named_on_other_data_needs_the_bundled_samples_translations(
    tmp_path: Path, probes: list[str]
) -> None:
    (tmp_path / "items.csv").write_text("x\n", encoding="utf-8")  # exists: only the audit is checked
    problems = _problems(tmp_path, _spec(data="items.csv", audits=_audit(probes=probes)))
    assert list(problems) == ["audits[0].probes"], problems
    assert "English meanings, shipped only with data: sample" in problems["audits[0].probes"]


def test_an_audit_without_probes_on_other_data_runs_every_probe_the_data_allows(tmp_path: Path) -> None:
    # As `vivid audit` does: english is left out (with a line in the card), not refused.
    (tmp_path / "items.csv").write_text("x\n", encoding="utf-8")
    loaded = load_spec(_write(tmp_path, _spec(data="items.csv", audits=_audit(probes=None))))
    assert loaded.spec.audits[0].probes is None


def test_validate_lists_a_bad_audit_beside_other_problems_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _spec(audits=_audit(judge="nobody"))
    data["runs"][0]["prompts"] = ["zero_shot", "none_shot"]
    assert main(["validate", str(_write(tmp_path, data))]) == 2
    err = capsys.readouterr().err
    assert "audits[0].judge" in err and "runs[0].prompts" in err and "Traceback" not in err


def test_a_bad_audit_is_reported_beside_a_type_error_elsewhere(tmp_path: Path) -> None:
    data = _spec(audits=_audit(judge="nobody"))
    data["runs"][0]["epochs"] = "two"
    problems = _problems(tmp_path, data)
    assert set(problems) == {"runs[0].epochs", "audits[0].judge"}, problems


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any, Any]:
    """The spec run twice (the second run resumes a complete folder)."""
    root = tmp_path_factory.mktemp("spec-audits")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("INSPECT_CACHE_DIR", str(root / "cache"))
        loaded = load_spec(_write(root, _spec()))
        first = run_spec(loaded, display="none", quiet=True, preflight=False)
        folder = loaded.log_dir / AUDITS_DIR / "chrf_aspect"
        logs = sorted(p.name for p in folder.glob("*.eval"))
        second = run_spec(loaded, display="none", quiet=True, preflight=False)
        assert sorted(p.name for p in folder.glob("*.eval")) == logs  # nothing written again
    return loaded.log_dir, first, second


@pytest.mark.slow
def test_vivid_run_audits_the_listed_judge_as_vivid_audit_does(
    run: tuple[Path, Any, Any], tmp_path: Path
) -> None:
    log_dir, first, _ = run
    assert first.ok
    (result,) = first.audits
    assert result.ok and not result.reused and result.judge == "chrf_aspect"
    folder = log_dir / AUDITS_DIR / "chrf_aspect"
    assert len(list(folder.glob("*.eval"))) == 3  # reference, partial, wrong
    assert sorted(p.name for p in (folder / CARD_DIR).iterdir()) == [
        "audit.csv",
        "audit.md",
        "audit_shifts.png",
    ]
    alone = run_audit(
        "vivid/chrf",
        data="sample",
        limit=6,
        probes=["partial", "wrong"],
        log_dir=str(tmp_path),
        display="none",
    )
    assert result.card is not None and result.card.rows() == alone.rows()


@pytest.mark.slow
def test_the_report_of_the_run_shows_the_card(run: tuple[Path, Any, Any]) -> None:
    log_dir, first, _ = run
    text = (log_dir / "report" / "report.md").read_text(encoding="utf-8")
    assert "### Judge audit " in text and "judge vivid/chrf (strategy aspect" in text
    assert "set aside 3 audit log(s)" in text
    assert first.report is not None and "### Judge audit " in first.report
    written = [*(log_dir / "report").glob("*.md"), *log_dir.rglob("audit.md")]
    assert failing(written) == {}  # every command the report, the judge card and the audit recommend parses


@pytest.mark.slow
def test_a_second_run_rebuilds_the_card_from_its_logs_without_a_call(run: tuple[Path, Any, Any]) -> None:
    _, first, second = run
    (result,) = second.audits
    assert second.ok and result.reused
    assert result.card is not None and first.audits[0].card is not None
    assert result.card.rows() == first.audits[0].card.rows()
    assert second.progress.total_calls == 0


@pytest.mark.slow
def test_an_audit_whose_judge_failed_leaves_the_run_incomplete_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from vivid_inspect.lab.audit import run as audit_run

    def failing(*args: Any, **kwargs: Any) -> Any:
        raise audit_run.AuditError("the audit's wrong probe judged by vivid/chrf did not complete: HTTP 500")

    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    # The runner calls the audit through its own module-level import.
    monkeypatch.setattr(runner_audits, "run_audit", failing)
    spec = _write(tmp_path, _spec())
    assert main(["run", str(spec), "--display", "none", "--no-report", "--no-preflight"]) == 1
    err = capsys.readouterr().err
    assert "audit of chrf_aspect failed: AuditError: the audit's wrong probe" in err
    assert "some cells (or audits) are incomplete" in err
    assert "Traceback" not in err
    assert not (tmp_path / "logs" / AUDITS_DIR / "chrf_aspect" / CARD_DIR).exists()


@pytest.mark.slow
def test_vivid_plan_counts_each_audits_judge_calls_until_it_is_done(
    run: tuple[Path, Any, Any], tmp_path: Path
) -> None:
    from vivid_inspect.lab.runner.plan import make_plan
    from vivid_inspect.lab.runner.plan_text import render_plan

    log_dir, _, _ = run
    fresh = load_spec(_write(tmp_path, _spec()))
    (cell,) = [c for c in make_plan(fresh).cells if c.role == "audit"]
    # 6 items x 3 probes (partial and wrong, and the reference they compare with), one retry each.
    assert (cell.calls, cell.max_calls, cell.items, cell.model, cell.done) == (18, 36, 6, "vivid/chrf", False)
    assert cell.input_tokens > 18 * 100 and cell.output_tokens > 0
    text = render_plan(make_plan(fresh))
    assert "Audits (1; after the judges)" in text and "audit of chrf_aspect: 6 items × 3 probes" in text
    assert any(t.role == "audit" and t.calls == 18 for t in make_plan(fresh).totals())
    done = load_spec(_write(tmp_path, _spec(log_dir=str(log_dir))))
    (cell,) = [c for c in make_plan(done).cells if c.role == "audit"]
    assert cell.done and not any(t.role == "audit" for t in make_plan(done).totals())


@pytest.mark.slow
@pytest.mark.parametrize("retries", [0, 1, 3])
def test_an_audit_runs_with_its_judges_retries_as_vivid_plan_counts_them(
    retries: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vivid_inspect.lab.audit import run as audit_run
    from vivid_inspect.lab.runner.plan import make_plan

    seen: dict[str, Any] = {}
    real = audit_run.run_audit

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.update(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(runner_audits, "run_audit", spy)
    data = _spec(audits=_audit(limit=2, probes=["wrong"]))
    data["runs"][0]["sample"]["n"] = 2
    data["judges"][0]["retries"] = retries
    loaded = load_spec(_write(tmp_path, data))
    (cell,) = [c for c in make_plan(loaded).cells if c.role == "audit"]
    assert run_spec(loaded, display="none", quiet=True, preflight=False).ok
    # The audit asks as often as the judge phase (test_audit_run.py checks the calls of each retries).
    assert seen["retries"] == retries
    assert (cell.calls, cell.max_calls) == (4, 4 * (1 + retries))


def _judge_changed(log_dir: Path, **changes: Any) -> dict[str, Any]:
    data = _spec(log_dir=str(log_dir))
    data["judges"][0] |= changes
    return data


@pytest.mark.slow
@pytest.mark.parametrize(
    ("changes", "done"),
    [
        pytest.param({}, True, id="unchanged"),
        pytest.param({"generate": {"temperature": 0.5}}, False, id="temperature"),
        pytest.param({"generate": {"max_tokens": 77}}, False, id="max-tokens"),
        pytest.param({"retries": 3}, False, id="retries"),
        pytest.param({"language": "en"}, False, id="language"),
        pytest.param({"model_args": {"data": "hf"}}, False, id="model-args"),
        pytest.param({"generate": {"max_connections": 3}}, True, id="transport-only"),
    ],
)
def test_a_changed_judge_is_audited_again_not_rebuilt_from_old_logs(
    run: tuple[Path, Any, Any], tmp_path: Path, changes: dict[str, Any], done: bool
) -> None:
    from vivid_inspect.lab.runner.audits import _from_logs, judge_identity
    from vivid_inspect.lab.runner.plan import make_plan

    log_dir, _, _ = run
    loaded = load_spec(_write(tmp_path, _judge_changed(log_dir, **changes)))
    (cell,) = [c for c in make_plan(loaded).cells if c.role == "audit"]
    assert cell.done is done
    # vivid run decides with the same id as vivid plan: it rebuilds the card exactly when done.
    from vivid_inspect.lab.audit.run import prepare_items

    (entry,) = loaded.spec.audits
    (judge,) = [j for j in loaded.spec.judges if j.name == entry.judge]
    prepared = prepare_items(
        data=loaded.data, limit=entry.limit, seed=entry.seed, probes=entry.probes, translator=None
    )
    folder = log_dir / AUDITS_DIR / judge.name
    assert (
        _from_logs(folder, prepared, judge, judge_identity(loaded, judge), entry.seed) is not None
    ) is done
