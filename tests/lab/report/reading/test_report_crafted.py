"""Crafted and damaged logs: values no judge can give are refused, numbers no run can have skip the log.

The logs are real ones (the offline baselines on the bundled sample) with one field rewritten, in
both log formats: an ``.eval`` zip (its ``header.json`` and ``summaries.json`` members, which the
report reads) and a ``.json`` log (read as plain JSON, without Inspect's validation).

- A judge value outside 0-5 or not a finite number, or one the judge cannot give (2.5 from a judge
  of whole scores), a classification value other than correct/incorrect: refused with the log and
  sample named, counted apart, never averaged.
- An epoch, an epoch count, a shots value, a left-out id, a sample id or an item count that no
  run can have (10^30, -1, 2.5, a string, a bool): the log is skipped with a one-line reason, and
  ``vivid report``, ``vivid annotate export`` and ``vivid audit --from`` go on with the others.
"""

from __future__ import annotations

import json
import math
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import read_eval_log, write_eval_log

from tests.report_runs import explain_run, run
from vivid_inspect.lab.cli.main import main
from vivid_inspect.lab.humans.annotate.sheet_export import export_sheet
from vivid_inspect.lab.report.build import write_report
from vivid_inspect.lab.report.reading.logs import read_logs
from vivid_inspect.tasks import topic as topic_task

IDS = list(range(1, 9))
Edit = Callable[[dict[str, Any]], None]


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("crafted")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("INSPECT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        explain = explain_run("vivid/literal", "sample", root / "explain", sample_id=IDS)
        # the topic task alone, on the same items: no test reads a traits log or the other items
        (topic,) = run([topic_task(data="sample")], "vivid/literal", "sample", root / "classify", IDS)
    return {"explain": explain, "topic": Path(topic.location)}


def _edit_eval(source: Path, target: Path, header: Edit | None = None, summary: Edit | None = None) -> Path:
    """A copy of an ``.eval`` log with its header and each sample summary edited."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as new:
        for info in old.infolist():
            data = old.read(info)
            if info.filename in ("header.json", "_journal/start.json") and header is not None:
                content = json.loads(data)
                header(content)
                data = json.dumps(content).encode()
            elif info.filename == "summaries.json" and summary is not None:
                rows = json.loads(data)
                for row in rows:
                    summary(row)
                data = json.dumps(rows).encode()
            new.writestr(info.filename, data)
    return target


def _edit_json(source: Path, folder: Path, header: Edit | None = None, summary: Edit | None = None) -> Path:
    """The same log written as a ``.json`` log (Inspect's own writer), then edited as JSON."""
    target = folder / (source.stem + ".json")
    target.parent.mkdir(parents=True, exist_ok=True)
    write_eval_log(read_eval_log(str(source)), str(target))
    content = json.loads(target.read_text(encoding="utf-8"))
    if header is not None:
        header(content)
    for row in content.get("samples") or []:
        if summary is not None:
            summary(row)
    target.write_text(json.dumps(content), encoding="utf-8")
    return target


def _first_sample(edit: Callable[[dict[str, Any]], None]) -> Edit:
    def apply(row: dict[str, Any]) -> None:
        if row.get("id") == 1:
            edit(row)

    return apply


def _value(scorer: str, value: object) -> Edit:
    def edit(row: dict[str, Any]) -> None:
        row["scores"][scorer]["value"] = value

    return _first_sample(edit)


# --- values no judge or scorer can give --------------------------------------------------------------

JUDGE_VALUES = [
    pytest.param(99, id="99"),
    pytest.param(-3, id="minus-3"),
    pytest.param(5.5, id="above-5"),
    pytest.param(math.inf, id="inf"),
    pytest.param(-math.inf, id="minus-inf"),
    pytest.param(1e30, id="1e30"),
    pytest.param(10**30, id="int-10^30"),
    pytest.param("5", id="string"),
    pytest.param(True, id="bool"),
    pytest.param([5], id="list"),
    pytest.param({"score": 5}, id="mapping"),
    # in range, but no judge of this project writes them: the lexical and LLM judges give whole scores
    pytest.param(2.5, id="a-half"),
    pytest.param(0.1, id="0.1"),
    pytest.param(4.999, id="4.999"),
    pytest.param(1e-320, id="subnormal"),
    pytest.param(5 - 1e-15, id="just-under-5"),
]


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["eval", "json"])
@pytest.mark.parametrize("value", JUDGE_VALUES)
def test_a_judge_value_outside_0_to_5_is_refused_named_and_never_averaged(
    logs: dict[str, Path], tmp_path: Path, value: object, fmt: str
) -> None:
    edit = _value("lexical", value)
    folder = tmp_path / "logs"
    log = (
        _edit_eval(logs["explain"], folder / logs["explain"].name, summary=edit)
        if fmt == "eval"
        else _edit_json(logs["explain"], folder, summary=edit)
    )
    clean = read_logs(logs["explain"].parent).scores
    expected = clean[clean["id"] != 1]["value"].mean()
    report = write_report(folder, out_dir=tmp_path / "out", formats=("md",), figures=False)
    assert report.skipped == ()
    (refused,) = read_logs(folder).refused
    assert refused.startswith(f"{log.name}: sample 1 epoch 1, lexical: ") and "0 to 5" in refused
    assert refused in report.markdown
    row = report.table("table3_themes").frame.iloc[0]
    assert row["Average"] == pytest.approx(expected) and row["n"] == len(IDS) - 1 and row["refused"] == 1
    assert row["unscored"] == 0 and row["errors"] == 0
    counts = report.table("counts").frame.iloc[0]
    assert (counts["refused"], counts["scored"], counts["unscored"], counts["errors"]) == (
        1,
        len(IDS) - 1,
        0,
        0,
    )
    summary = report.table("judge_summary").frame.iloc[0]
    assert (summary["refused"], summary["mean"]) == (1, pytest.approx(expected))


@pytest.mark.slow
@pytest.mark.parametrize("value", [0, 5, 3, 0.0, 5.0, -0.0, math.nan])
def test_a_judge_value_in_range_or_unscored_is_kept(
    logs: dict[str, Path], tmp_path: Path, value: float
) -> None:
    folder = tmp_path / "logs"
    _edit_eval(logs["explain"], folder / logs["explain"].name, summary=_value("lexical", value))
    logset = read_logs(folder)
    assert logset.refused == () and not logset.scores["refused"].any()
    first = logset.scores[logset.scores["id"] == 1].iloc[0]
    # NaN is Inspect's unscored judgement: counted as unscored, not refused.
    assert math.isnan(first["value"]) == math.isnan(value) and bool(first["unscored"]) == math.isnan(value)


@pytest.mark.slow
@pytest.mark.parametrize("value", [2, -1, 0.5, "X", "P", True, 10**30, math.inf])
def test_a_classification_value_other_than_correct_or_incorrect_is_refused(
    logs: dict[str, Path], tmp_path: Path, value: object
) -> None:
    folder = tmp_path / "logs"
    _edit_eval(logs["topic"], folder / logs["topic"].name, summary=_value("topic_match", value))
    report = write_report(folder, out_dir=tmp_path / "out", formats=("md",), figures=False)
    (refused,) = read_logs(folder).refused
    assert "sample 1 epoch 1, topic_match" in refused and "neither correct nor incorrect" in refused
    clean = read_logs(logs["topic"].parent).scores
    clean = clean[clean["task"] == "topic"]
    row = report.table("table5_classification").frame.iloc[0]
    assert row["topic"] == pytest.approx(clean[clean["id"] != 1]["value"].mean())
    assert report.table("counts").frame.set_index("task").loc["topic", "refused"] == 1


@pytest.mark.slow
@pytest.mark.parametrize("value", ["C", "I", 1, 0, 1.0])
def test_correct_and_incorrect_in_either_form_are_read(
    logs: dict[str, Path], tmp_path: Path, value: object
) -> None:
    folder = tmp_path / "logs"
    _edit_eval(logs["topic"], folder / logs["topic"].name, summary=_value("topic_match", value))
    scores = read_logs(folder).scores
    first = scores[(scores["id"] == 1) & (scores["scorer"] == "topic_match")].iloc[0]
    assert first["value"] == (1.0 if value in ("C", 1) else 0.0) and not first["refused"]


# --- numbers no run can have: the log is skipped ------------------------------------------------------


def _summary_field(field: str, value: object) -> Edit:
    def edit(row: dict[str, Any]) -> None:
        row[field] = value

    return _first_sample(edit)


def _header_field(*path: str, value: object) -> Edit:
    def edit(content: dict[str, Any]) -> None:
        node = content["eval"]
        for key in path[:-1]:
            node = node.setdefault(key, {})
        node[path[-1]] = value

    return edit


SUMMARY_CASES = [
    pytest.param("epoch", 10**30, "epoch", id="epoch-10^30"),
    pytest.param("epoch", -1, "epoch", id="epoch-negative"),
    pytest.param("epoch", 0, "epoch", id="epoch-zero"),
    pytest.param("epoch", 2.5, "epoch", id="epoch-not-whole"),
    pytest.param("epoch", "1", "epoch", id="epoch-string"),
    pytest.param("epoch", True, "epoch", id="epoch-bool"),
    pytest.param("id", 10**30, "sample id", id="id-10^30"),
    pytest.param("id", True, "sample id", id="id-bool"),
    pytest.param("id", 2.5, "sample id", id="id-float"),
    pytest.param("id", "x" * 2000, "sample id", id="id-too-long"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("field", "value", "named"), SUMMARY_CASES)
def test_a_json_log_with_an_impossible_summary_number_is_skipped_with_its_reason(
    logs: dict[str, Path], tmp_path: Path, field: str, value: object, named: str
) -> None:
    folder = tmp_path / "logs"
    _edit_json(logs["explain"], folder / "crafted", summary=_summary_field(field, value))
    _keep_a_good_log(logs, folder)
    (skipped,) = read_logs(folder).skipped
    assert skipped.startswith("crafted/") and named in skipped and "\n" not in skipped
    _the_tools_go_on(folder, tmp_path, every_tool=value == 10**30)


@pytest.mark.slow
@pytest.mark.parametrize("value", [10**30, -1, 0])
def test_an_eval_log_with_an_impossible_epoch_is_skipped_with_its_reason(
    logs: dict[str, Path], tmp_path: Path, value: int
) -> None:
    folder = tmp_path / "logs"
    _edit_eval(logs["explain"], folder / "crafted" / "x.eval", summary=_summary_field("epoch", value))
    _keep_a_good_log(logs, folder)
    (skipped,) = read_logs(folder).skipped
    assert skipped.startswith("crafted/x.eval: ") and "epoch" in skipped
    _the_tools_go_on(folder, tmp_path, every_tool=value == 10**30)


HEADER_CASES = [
    pytest.param("explain", ("config", "epochs"), 10**30, "epochs", id="epochs-10^30"),
    pytest.param("explain", ("config", "epochs"), 0, "epochs", id="epochs-zero"),
    pytest.param("explain", ("metadata", "left_out_ids"), "17", "left_out_ids", id="left-out-a-string"),
    pytest.param("explain", ("metadata", "left_out_ids"), ["a"], "left_out_ids", id="left-out-not-ids"),
    pytest.param("explain", ("metadata", "left_out_ids"), [10**30], "left_out_ids", id="left-out-10^30"),
    pytest.param("explain", ("metadata", "data_items"), -1, "data_items", id="items-negative"),
    pytest.param("explain", ("metadata", "data_items"), "many", "data_items", id="items-string"),
    pytest.param("explain", ("dataset", "samples"), 10**30, "dataset.samples", id="samples-10^30"),
    pytest.param("topic", ("task_args", "shots"), "abc", "shots", id="shots-string"),
    pytest.param("topic", ("task_args", "shots"), 10**30, "shots", id="shots-10^30"),
    pytest.param("topic", ("task_args", "shots"), -1, "shots", id="shots-negative"),
    pytest.param("topic", ("task_args", "shots"), 2.5, "shots", id="shots-not-whole"),
]


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["eval", "json"])
@pytest.mark.parametrize(("task", "path", "value", "named"), HEADER_CASES)
def test_a_log_with_an_impossible_header_number_is_skipped_with_its_reason(
    logs: dict[str, Path],
    tmp_path: Path,
    task: str,
    path: tuple[str, ...],
    value: object,
    named: str,
    fmt: str,
) -> None:
    folder = tmp_path / "logs"
    edit = _header_field(*path, value=value)
    if fmt == "eval":
        _edit_eval(logs[task], folder / "crafted" / "x.eval", header=edit)
    else:
        _edit_json(logs[task], folder / "crafted", header=edit)
    _keep_a_good_log(logs, folder)
    (skipped,) = read_logs(folder).skipped
    assert skipped.startswith("crafted/") and "\n" not in skipped
    # Inspect's own reader refuses some shapes first; every other one names the field.
    assert named in skipped or "validation error" in skipped.lower(), skipped
    _the_tools_go_on(folder, tmp_path, every_tool=value == 10**30)


def _keep_a_good_log(logs: dict[str, Path], folder: Path) -> None:
    good = folder / "good" / logs["explain"].name
    good.parent.mkdir(parents=True, exist_ok=True)
    good.write_bytes(logs["explain"].read_bytes())


def _the_tools_go_on(folder: Path, tmp_path: Path, *, every_tool: bool) -> None:
    """Vivid report (and, for the 10^30 cases, annotate export and audit --from) read the good log."""
    report = write_report(folder, out_dir=tmp_path / "out", formats=("md",), figures=False)
    assert report.table("table3_themes").frame["n"].tolist() == [len(IDS)]
    assert any(line.startswith("- skipped: crafted/") for line in report.markdown.splitlines())
    if not every_tool:
        return
    assert main(["report", str(folder), "--out", str(tmp_path / "cli"), "--no-figures"]) == 0
    assert len(export_sheet(folder, tmp_path / "sheet.csv", n=3)) == 3
    # One judge on one generation cannot separate judges from generators: a clear refusal, exit 2.
    assert main(["audit", "--from", str(folder), "--out", str(tmp_path / "audit")]) == 2


def _stats_tokens(value: object) -> Edit:
    def edit(content: dict[str, Any]) -> None:
        for usage in ((content.get("stats") or {}).get("model_usage") or {}).values():
            usage["input_tokens"] = value

    return edit


def _judged_usage(calls: object) -> Edit:
    def edit(content: dict[str, Any]) -> None:
        record = {
            "name": "lexical",
            "strategy": "lexical",
            "usage": {"lexical": {"calls": calls, "cached_calls": 0}},
        }
        content["eval"].setdefault("metadata", {})["vivid_judge"] = record

    return edit


@pytest.mark.slow
@pytest.mark.parametrize(
    ("edit", "named"),
    [
        pytest.param(_stats_tokens(10**30), "input_tokens", id="tokens-10^30"),
        pytest.param(_stats_tokens(-5), "input_tokens", id="tokens-negative"),
        pytest.param(_judged_usage("many"), "calls", id="judge-calls-string"),
        pytest.param(_judged_usage(10**30), "calls", id="judge-calls-10^30"),
    ],
)
def test_a_log_with_impossible_usage_is_skipped_not_a_crash_of_the_usage_table(
    logs: dict[str, Path], tmp_path: Path, edit: Edit, named: str
) -> None:
    folder = tmp_path / "logs"
    _edit_json(logs["explain"], folder / "crafted", header=edit)
    _keep_a_good_log(logs, folder)
    (skipped,) = read_logs(folder).skipped
    assert skipped.startswith("crafted/") and named in skipped, skipped
    report = write_report(folder, out_dir=tmp_path / "out", formats=("md",), figures=False)
    assert report.table("usage").frame["input_tokens"].notna().all()
