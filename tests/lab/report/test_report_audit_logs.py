"""Audit and sanity logs in a run folder are never read as generations.

`vivid audit` (and `vivid sanity`, its literal probe) writes one log per probe, judged by the audited judge; the former `vivid sanity` wrote the
judged explanations of the oracle and the literal baselines. Both hold judge scores of made-up
candidates, so in a `vivid run` folder they must not become a model's row in Tables 3 and 4, a
judge's rows in the reliability tables, a line of the usage table, a candidate generation for the
human scores, or the generation `vivid annotate export` draws its sheet from.

The folder is a small offline run (one explanation generation judged by the chrF grader and the
lexical judge, and a topic run). Each intruder is one of its judged logs rewritten as the other
tool writes it, under another model's name so that, read as a generation, it would change the
tables.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
import yaml
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log

from vivid_inspect.lab.audit.card import AuditCard
from vivid_inspect.lab.audit.run import run_audit
from vivid_inspect.lab.cli.main import main
from vivid_inspect.lab.humans.annotate.sheet_export import export_sheet
from vivid_inspect.lab.report.build import Report, write_report
from vivid_inspect.lab.report.cards.audit_tables import AUDIT_COLUMNS
from vivid_inspect.lab.report.reading.logs import generations_in, read_logs
from vivid_inspect.log_contract import AUDIT_TAG, SANITY_TAG, VIVID_JUDGE_KEY, AuditRecord, read_audit_record

INTRUDER = "mockllm/intruder"
RECORD = AuditRecord(
    audit_id="audit-1",
    probe="reference",
    comparison=None,
    expectation="high",
    judge="vivid/chrf",
    strategy="aspect",
    language="vi",
    data="sample",
    seed=0,
    probe_version=1,
)


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small offline run folder, made once for the module."""
    root = tmp_path_factory.mktemp("audit-logs")
    spec = {
        "name": "audit_logs",
        "data": "sample",
        "log_dir": "logs",
        "runs": [
            {
                "name": "explanations",
                "tasks": ["explain"],
                "prompts": ["zero_shot"],
                "models": ["vivid/oracle"],
                "sample": {"n": 10, "by": "theme", "seed": 0},
            },
            {
                "name": "classification",
                "tasks": ["topic"],
                "models": ["vivid/oracle"],
                "sample": {"n": 10, "by": "theme", "seed": 0},
            },
        ],
        "judges": [
            {"name": "chrf_aspect", "strategy": "aspect", "model": "vivid/chrf"},
            {"name": "lexical", "strategy": "lexical"},
        ],
    }
    path = root / "spec.yaml"
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    log_dir = root / "logs"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("INSPECT_CACHE_DIR", str(root / "cache"))
        assert main(["run", str(path), "--log-dir", str(log_dir), "--display", "none", "--no-report"]) == 0
    return log_dir


def _as_other_model(log: EvalLog) -> None:
    """A new eval of another model: read as a generation, it would be a row of its own."""
    log.eval.model = INTRUDER
    log.eval.eval_id = "intruder-eval"
    log.eval.run_id = "intruder-run"
    log.eval.metadata = {k: v for k, v in (log.eval.metadata or {}).items() if k != VIVID_JUDGE_KEY}


def _audit_tag_and_record(log: EvalLog) -> None:
    log.eval.tags = [AUDIT_TAG]
    log.eval.metadata = (log.eval.metadata or {}) | RECORD.metadata()


def _audit_record_only(log: EvalLog) -> None:
    log.eval.metadata = (log.eval.metadata or {}) | RECORD.metadata()


def _audit_tag_only(log: EvalLog) -> None:
    log.eval.tags = [*(log.eval.tags or []), AUDIT_TAG]


def _audit_task(log: EvalLog) -> None:
    """As `vivid audit` names its tasks: ``audit_<probe>``, run with no model of its own."""
    _audit_tag_and_record(log)
    log.eval.task = "audit_reference"
    log.eval.task_registry_name = None
    log.eval.task_file = None
    log.eval.model = "none/none"


def _sanity(log: EvalLog) -> None:
    log.eval.tags = [SANITY_TAG]
    log.eval.metadata = (log.eval.metadata or {}) | {
        "sanity_judge": "vivid/chrf",
        "sanity_strategy": "aspect",
    }


SHAPES: dict[str, tuple[Callable[[EvalLog], None], str]] = {
    "audit-tag-and-record": (_audit_tag_and_record, "audit"),
    "audit-record-only": (_audit_record_only, "audit"),
    "audit-tag-only": (_audit_tag_only, "audit"),
    "audit-task-name": (_audit_task, "audit"),
    "sanity-tag": (_sanity, "sanity"),
}


def _judged_log(log_dir: Path) -> Path:
    """The chrF grader's judged copy of the explanation generation."""
    found = [
        path
        for path in sorted(log_dir.rglob("*.eval"))
        if (read_eval_log(str(path), header_only=True).eval.metadata or {})
        .get(VIVID_JUDGE_KEY, {})
        .get("name")
        == "chrf_aspect"
    ]
    assert len(found) == 1, found
    return found[0]


def _with_intruder(base: Path, tmp_path: Path, shape: str) -> tuple[Path, str]:
    folder = Path(shutil.copytree(base, tmp_path / "logs"))
    log = read_eval_log(str(_judged_log(folder)))
    _as_other_model(log)
    SHAPES[shape][0](log)
    target = folder / "elsewhere" / "2026-01-01T00-00-00+00-00_intruder.eval"
    target.parent.mkdir()
    write_eval_log(log, str(target))
    return folder, target.relative_to(folder).as_posix()


def _report(folder: Path, out: Path) -> Report:
    return write_report(folder, out_dir=out, formats=["md"], figures=False)


def _same_tables(expected: Report, got: Report) -> None:
    by_name = {table.name: table for table in got.tables}
    for table in expected.tables:
        assert table.name in by_name, table.name
        pd.testing.assert_frame_equal(by_name[table.name].frame, table.frame, obj=table.name)
        assert by_name[table.name].notes == table.notes, table.name
    # Only the audit's own tables may be added.
    added = set(by_name) - {table.name for table in expected.tables}
    assert all(name.startswith("audit") for name in added), added


@pytest.mark.slow
@pytest.mark.parametrize("shape", list(SHAPES))
def test_the_report_tables_are_the_same_with_the_log_in_the_folder(
    base: Path, tmp_path: Path, shape: str
) -> None:
    folder, rel = _with_intruder(base, tmp_path, shape)
    expected = _report(base, tmp_path / "expected")
    got = _report(folder, tmp_path / "got")
    _same_tables(expected, got)
    assert expected.skipped == ()
    if shape == "audit-tag-only":  # no record: which audit it belongs to cannot be read
        assert got.skipped == (
            f"{rel}: tagged as an audit log but has no audit record (vivid_audit) to read",
        )
    else:
        assert got.skipped == ()  # set aside, not warned about
    assert INTRUDER not in got.markdown.split("### ", 1)[-1]
    kind = SHAPES[shape][1]
    assert any(kind in line and rel in line for line in got.markdown.splitlines() if line.startswith("- "))


@pytest.mark.slow
@pytest.mark.parametrize("shape", list(SHAPES))
def test_the_log_is_set_aside_not_read_as_a_generation(base: Path, tmp_path: Path, shape: str) -> None:
    folder, rel = _with_intruder(base, tmp_path, shape)
    logset = read_logs(folder)
    assert rel not in {ref.rel for ref in logset.logs}
    assert INTRUDER not in set(logset.scores["model"])
    assert logset.skipped == ()
    kind = SHAPES[shape][1]
    set_aside = logset.audits if kind == "audit" else logset.sanity
    assert [path.relative_to(folder).as_posix() for path in set_aside] == [rel]
    assert generations_in(logset) == generations_in(read_logs(base))


@pytest.mark.slow
@pytest.mark.parametrize("shape", list(SHAPES))
def test_annotate_export_draws_from_the_one_generation(base: Path, tmp_path: Path, shape: str) -> None:
    folder, _ = _with_intruder(base, tmp_path, shape)
    expected = export_sheet(base, tmp_path / "expected.csv", n=5)
    got = export_sheet(folder, tmp_path / "got.csv", n=5)
    pd.testing.assert_frame_equal(got, expected)
    assert (tmp_path / "got.csv").read_bytes() == (tmp_path / "expected.csv").read_bytes()


@pytest.mark.slow
@pytest.mark.parametrize("shape", list(SHAPES))
def test_annotate_export_refuses_the_log_given_as_a_file(base: Path, tmp_path: Path, shape: str) -> None:
    folder, rel = _with_intruder(base, tmp_path, shape)
    kind = SHAPES[shape][1]
    with pytest.raises(ValueError, match=f"{kind} log") as raised:
        export_sheet(folder / rel, tmp_path / "sheet.csv", n=5)
    assert "\n" not in str(raised.value)
    assert not (tmp_path / "sheet.csv").exists()


# --- the audit tables -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def audited(base: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, AuditCard]]:
    """The run folder with two real audits of the chrF grader (seeds 0 and 1) in it, by audit id."""
    folder = Path(shutil.copytree(base, tmp_path_factory.mktemp("audited") / "logs"))
    cards: dict[str, AuditCard] = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("INSPECT_CACHE_DIR", str(folder.parent / "cache"))
        for seed in (0, 1):
            card = run_audit(
                "vivid/chrf",
                data="sample",
                limit=6,
                seed=seed,
                probes=["partial", "wrong"],
                log_dir=str(folder / "audits"),
                display="none",
            )
            header = read_eval_log(card.log_locations[0], header_only=True)
            record = read_audit_record(header.eval.metadata)
            assert record is not None and record.audit_id
            cards[record.audit_id] = card
    assert len(cards) == 2
    return folder, cards


def _plain(value: object) -> object:
    """A cell as compared: a missing number (NaN, None, pandas' NA) is None."""
    return None if value is None or (not isinstance(value, str) and pd.isna(value)) else value


@pytest.mark.slow
def test_the_report_adds_each_audits_card_as_a_table(
    audited: tuple[Path, dict[str, AuditCard]], tmp_path: Path
) -> None:
    folder, cards = audited
    report = _report(folder, tmp_path / "report")
    tables = {table.name: table for table in report.tables if table.name.startswith("audit")}
    assert len(tables) == 2
    for identity, card in cards.items():
        (table,) = [table for name, table in tables.items() if identity in name]
        # The card `vivid audit` printed, read back from its logs by the report.
        expected = [{column: _plain(row[column]) for column in AUDIT_COLUMNS} for row in card.rows()]
        got = [{k: _plain(v) for k, v in row.items()} for row in table.frame.to_dict("records")]
        assert got == expected
        assert [row["probe"] for row in got] == ["reference", "partial", "wrong"]
        # The means the table shows beside a shift are the ones it is the difference of.
        for row in got:
            if row["shift"] is not None:
                assert row["paired_mean"] - row["comparison_mean"] == pytest.approx(row["shift"])
        assert f"{identity}: {card.verdict.upper()}" in table.title and "vivid/chrf" in table.title
        assert f"### {table.title}" in report.markdown
    assert report.skipped == ()
    assert "their cards are the audit tables" in report.markdown


@pytest.mark.slow
def test_real_audit_logs_leave_the_generation_tables_as_they_were(
    base: Path, audited: tuple[Path, dict[str, AuditCard]], tmp_path: Path
) -> None:
    folder, _ = audited
    _same_tables(_report(base, tmp_path / "expected"), _report(folder, tmp_path / "got"))
    assert generations_in(read_logs(folder)) == generations_in(read_logs(base))


def _one_audit(audited: tuple[Path, dict[str, AuditCard]], tmp_path: Path) -> tuple[Path, AuditCard]:
    folder, cards = audited
    copy = Path(shutil.copytree(folder, tmp_path / "logs"))
    return copy, next(iter(cards.values()))


@pytest.mark.slow
def test_an_audit_whose_probe_log_did_not_complete_gives_no_card_and_says_why(
    audited: tuple[Path, dict[str, AuditCard]], tmp_path: Path
) -> None:
    folder, card = _one_audit(audited, tmp_path)
    location = next(loc for loc in card.log_locations if "audit-partial" in loc)
    copy = folder / Path(location).relative_to(audited[0])
    log = read_eval_log(str(copy))
    log.status = "error"
    write_eval_log(log, str(copy))
    report = _report(folder, tmp_path / "report")
    assert len([t for t in report.tables if t.name.startswith("audit")]) == 1  # the other audit's
    (entry,) = report.skipped
    rel = copy.relative_to(folder).as_posix()
    assert "no card" in entry and f"the partial probe's log {rel} did not complete (error)" in entry
    assert f"- skipped: {entry}" in report.markdown


@pytest.mark.slow
def test_a_probe_run_again_replaces_its_earlier_log(
    audited: tuple[Path, dict[str, AuditCard]], tmp_path: Path
) -> None:
    folder, card = _one_audit(audited, tmp_path)
    location = next(loc for loc in card.log_locations if "audit-wrong" in loc)
    log = read_eval_log(location)
    older = folder / "audits" / "2000-01-01T00-00-00+00-00_audit-wrong_old.eval"
    log.status = "error"
    log.eval.created = "2000-01-01T00:00:00+00:00"
    write_eval_log(log, str(older))
    report = _report(folder, tmp_path / "report")
    assert report.skipped == ()
    assert len([t for t in report.tables if t.name.startswith("audit")]) == 2


@pytest.mark.slow
@pytest.mark.parametrize("shape", [s for s in SHAPES if s != "audit-task-name"])
def test_write_log_copies_no_audit_or_sanity_log_of_the_same_generation(
    base: Path, tmp_path: Path, shape: str
) -> None:
    from vivid_inspect.lab.humans.annotate.human_log import generation_logs

    folder = Path(shutil.copytree(base, tmp_path / "logs"))
    judged = _judged_log(folder)
    log = read_eval_log(str(judged))
    SHAPES[shape][0](log)  # the same generation's key: only the tag or record tells it apart
    intruder = folder / "elsewhere" / "2026-01-01T00-00-00+00-00_intruder.eval"
    intruder.parent.mkdir()
    write_eval_log(log, str(intruder))
    (key,) = {generation.key for generation in generations_in(read_logs(folder))}
    found = generation_logs({"generation": key, "log": str(judged)}, folder, tmp_path / "annotation")
    assert intruder not in found
    alone = generation_logs({"generation": key, "log": str(judged)}, base, tmp_path / "annotation")
    assert {p.relative_to(folder) for p in found} == {p.relative_to(base) for p in alone}
