"""Logs written by hand, by other Inspect versions or crafted: what the report reads of each, and what it says.

The logs are real ones (the offline ``vivid/literal`` model on eight items of the bundled sample,
judged by the lexical judge) with their JSON edited, in both formats: an ``.eval`` zip (its
``header.json`` and ``summaries.json``) and a ``.json`` log (Inspect's own writer, then edited).

- A sample held twice (``1`` and ``1``, ``1`` and ``"1"``: one item) is read once, the last, and
  named; a repeated JSON key skips the log (which value counts?).
- A sample the run did not plan (an id its header does not list, an epoch past its epochs) is
  named and read by no table; a VIVID log whose ids are not its data's (``"abc"``, 0, ``"01"``) is
  skipped with its reason, and the report is written for the others. Ids written as text
  (``"3"``) are the same items.
- A panel's value may be a mean of its members' whole scores; no other fraction.
- A log missing fields, with ``scores`` or ``choices`` null, truncated, or not an object: read
  when Inspect could have written it, else skipped on one line; never a traceback.
- A ``.json`` log over ``VIVID_MAX_LOG_BYTES`` is skipped by its size before anything reads it; under
  it, its samples are streamed one at a time.
"""

from __future__ import annotations

import copy
import json
import math
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import read_eval_log, write_eval_log

from tests.report_runs import explain_run, judged_copy
from vivid_inspect.lab.bounded_zip import MAX_INFLATED_ENV, max_inflated
from vivid_inspect.lab.cli.main import main
from vivid_inspect.lab.report.build import write_report
from vivid_inspect.lab.report.reading import log_files
from vivid_inspect.lab.report.reading.logs import read_logs, read_summaries
from vivid_inspect.lab.report.tables.usage import usage_table
from vivid_inspect.size_caps import SizeCapError

IDS = list(range(1, 9))
NAME = "2026-01-01T00-00-00-00-00_explain_crafted"
Content = Callable[[Any], Any]


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hand")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("INSPECT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        return explain_run("vivid/literal", "sample", root / "explain", sample_id=IDS)


@pytest.fixture(scope="module")
def clean(source: Path) -> dict[int, float]:
    scores = read_logs(source.parent).scores
    return dict(zip(scores["id"], scores["value"], strict=True))


def write_log(
    source: Path,
    folder: Path,
    fmt: str,
    *,
    samples: Content | None = None,
    header: Content | None = None,
    text: Callable[[str], str] | None = None,
) -> Path:
    """A copy of ``source`` in ``fmt`` with its samples (the summaries of an ``.eval``) and header edited.

    ``samples`` and ``header`` edit parsed JSON (returning None keeps the object edited in place);
    ``text`` edits the JSON text of the summaries (``.eval``) or of the whole log (``.json``).
    """
    folder.mkdir(parents=True, exist_ok=True)
    if fmt == "eval":
        target = folder / f"{NAME}.eval"
        with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as new:
            for info in old.infolist():
                data = old.read(info)
                if info.filename in ("header.json", "_journal/start.json") and header is not None:
                    data = json.dumps(_apply(header, json.loads(data))).encode()
                elif info.filename == "summaries.json" and (samples is not None or text is not None):
                    edited = json.dumps(_apply(samples, json.loads(data)) if samples else json.loads(data))
                    data = (text(edited) if text else edited).encode()
                new.writestr(info.filename, data)
        return target
    target = folder / f"{NAME}.json"
    write_eval_log(read_eval_log(str(source)), str(target))
    content = json.loads(target.read_text(encoding="utf-8"))
    if header is not None:
        content = _apply(header, content)
    if samples is not None:
        content["samples"] = _apply(samples, content["samples"])
    edited = json.dumps(content)
    target.write_text(text(edited) if text else edited, encoding="utf-8")
    return target


def _apply(edit: Content | None, content: Any) -> Any:
    if edit is None:
        return content
    result = edit(content)
    return content if result is None else result


def _good(source: Path, folder: Path) -> None:
    """The clean log beside the crafted one: the report is written for it whatever the crafted one holds."""
    (folder / "good").mkdir(parents=True, exist_ok=True)
    (folder / "good" / source.name).write_bytes(source.read_bytes())


def _scored(logset: Any) -> tuple[int, float]:
    """Items scored and their mean, as Table 3 counts them."""
    rows = logset.scores[~logset.scores["error"]]
    return rows["id"].nunique(), float(rows["value"].mean())


FORMATS = pytest.mark.parametrize("fmt", ["eval", "json"])


# --- one item held twice -----------------------------------------------------------------------------


def _held_twice(first: object, second: object) -> Content:
    """Sample 1 written twice, with ids ``first`` and ``second``: the first copy scored 5, the second 0."""

    def edit(rows: list[dict[str, Any]]) -> None:
        one = next(row for row in rows if row["id"] == 1)
        again = copy.deepcopy(one)
        one["id"], again["id"] = first, second
        one["scores"]["lexical"]["value"], again["scores"]["lexical"]["value"] = 5, 0
        rows.append(again)

    return edit


@FORMATS
@pytest.mark.parametrize(
    ("first", "second"),
    [
        pytest.param(1, 1, id="1-and-1"),
        pytest.param(1, "1", id="1-and-text-1"),
        pytest.param("1", 1, id="text-1-and-1"),
    ],
)
def test_a_sample_held_twice_is_read_once_the_last_and_named(
    source: Path, clean: dict[int, float], tmp_path: Path, fmt: str, first: object, second: object
) -> None:
    folder = tmp_path / "logs"
    log = write_log(source, folder, fmt, samples=_held_twice(first, second))
    logset = read_logs(folder)
    assert logset.skipped == () and sorted(logset.scores["id"]) == IDS
    assert logset.scores.set_index("id").loc[1, "value"] == 0  # the last, Inspect's rule for a rerun sample
    (note,) = [n for n in logset.counted_once if "twice" in n]
    assert note == (
        f"counted once: {log.name} holds a sample twice, the last read: sample {first!r} epoch 1 is held 2 "
        f"times (ids {first!r}, {second!r})"
    )
    n, mean = _scored(logset)
    assert n == len(IDS) and mean == pytest.approx((sum(clean.values()) - clean[1]) / len(IDS))


# --- a repeated key: which value counts? -------------------------------------------------------------


def _repeat_first(key: str, value: str) -> Callable[[str], str]:
    """The first ``"key": ...`` of the JSON text written twice, the first time with ``value``."""

    def edit(text: str) -> str:
        at = text.index(f'"{key}": ')
        return text[:at] + f'"{key}": {value}, ' + text[at:]

    return edit


@FORMATS
@pytest.mark.parametrize(
    ("key", "value"),
    [
        pytest.param("value", "5", id="a-score-value"),
        pytest.param("scores", '{"lexical": {"value": 5}}', id="the-scores"),
        pytest.param("id", "2", id="the-id"),
        pytest.param("epoch", "1", id="the-epoch"),
        pytest.param("theme", '"Virtues"', id="a-metadata-key"),
    ],
)
def test_a_repeated_key_skips_the_log_with_its_name(
    source: Path, tmp_path: Path, fmt: str, key: str, value: str
) -> None:
    folder = tmp_path / "logs"
    # in a .json log the samples follow the header: find the key inside them
    edit = _repeat_first(key, value)
    text = edit if fmt == "eval" else _in_samples(edit)
    log = write_log(source, folder / "crafted", fmt, text=text)
    _good(source, folder)
    (skipped,) = read_logs(folder).skipped
    assert skipped == f"crafted/{log.name}: the key {key!r} is repeated in one object (which value counts?)"


def _in_samples(edit: Callable[[str], str]) -> Callable[[str], str]:
    def apply(text: str) -> str:
        at = text.index('"samples": ')
        return text[:at] + edit(text[at:])

    return apply


def test_a_repeated_top_level_key_of_a_json_log_skips_it(source: Path, tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    log = write_log(source, folder, "json", text=lambda text: text[:-1] + ', "samples": []}')
    (skipped,) = read_logs(folder).skipped
    assert skipped == f"{log.name}: the key 'samples' is repeated in the log (which value counts?)"


@pytest.mark.parametrize(
    ("key", "value"),
    [
        pytest.param("epochs", "1000", id="the-epoch-count"),
        pytest.param("vivid_judge", '{"name": "other"}', id="a-judge-record"),
        pytest.param("task", '"explain"', id="the-task"),
    ],
)
def test_a_repeated_key_in_an_eval_header_skips_the_log(
    source: Path, tmp_path: Path, key: str, value: str
) -> None:
    def header(content: dict[str, Any]) -> None:
        content["eval"].setdefault("metadata", {}).setdefault("vivid_judge", {"name": "lexical"})

    log = write_log(source, tmp_path, "eval", header=header)
    with zipfile.ZipFile(log) as archive:
        members = {info.filename: archive.read(info) for info in archive.infolist()}
    members["header.json"] = _repeat_first(key, value)(members["header.json"].decode()).encode()
    with zipfile.ZipFile(log, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    (skipped,) = read_logs(tmp_path).skipped
    assert skipped == f"{log.name}: the key {key!r} is repeated in one object (which value counts?)"


# --- samples the run did not plan, and ids that are not the data's ------------------------------------


def _add(make: Callable[[dict[str, Any]], None]) -> Content:
    def edit(rows: list[dict[str, Any]]) -> None:
        extra = copy.deepcopy(rows[0])
        make(extra)
        extra["scores"]["lexical"]["value"] = 5
        rows.append(extra)

    return edit


STRANGERS = [
    pytest.param(
        _add(lambda s: s.update(id=9)), "sample 9 (not one of the 8 ids it planned)", id="an-id-in-the-data"
    ),
    pytest.param(
        _add(lambda s: s.update(id="17")),
        "sample '17' (not one of the 8 ids it planned)",
        id="a-left-out-id-as-text",
    ),
    pytest.param(
        _add(lambda s: s.update(epoch=2)), "sample 1 epoch 2 (it ran 1 epoch(s))", id="an-extra-epoch"
    ),
    pytest.param(
        _add(lambda s: s.update(id=9, epoch=3)), "sample 9 (not one of the 8 ids it planned)", id="both"
    ),
]


@FORMATS
@pytest.mark.parametrize(("edit", "named"), STRANGERS)
def test_a_sample_the_run_did_not_plan_is_named_and_not_counted(
    source: Path, clean: dict[int, float], tmp_path: Path, fmt: str, edit: Content, named: str
) -> None:
    folder = tmp_path / "logs"
    log = write_log(source, folder, fmt, samples=edit)
    logset = read_logs(folder)
    assert logset.skipped == () and sorted(logset.scores["id"]) == IDS and set(logset.scores["epoch"]) == {1}
    note = f"not counted: {log.name} holds samples its run did not plan: {named}"
    assert note in logset.counted_once
    n, mean = _scored(logset)
    assert n == len(IDS) and mean == pytest.approx(sum(clean.values()) / len(IDS))


def test_many_strangers_make_one_line(source: Path, tmp_path: Path) -> None:
    def edit(rows: list[dict[str, Any]]) -> None:
        for epoch in range(2, 30):
            rows.append(copy.deepcopy(rows[0]) | {"epoch": epoch})

    log = write_log(source, tmp_path, "eval", samples=edit)
    (note,) = [n for n in read_logs(tmp_path).counted_once if n.startswith("not counted")]
    assert note.startswith(f"not counted: {log.name} holds samples its run did not plan: sample 1 epoch 2 (")
    assert note.endswith("and 23 more") and "\n" not in note


NOT_DATA_IDS = [
    pytest.param("abc", id="abc"),
    pytest.param(0, id="zero"),
    pytest.param(-1, id="negative"),
    pytest.param("01", id="leading-zero"),
    pytest.param(" 1", id="a-space"),
    pytest.param("1.0", id="a-decimal-text"),
    pytest.param(48, id="past-the-data"),
    pytest.param("१", id="a-devanagari-digit"),
]


@FORMATS
@pytest.mark.parametrize("bad", NOT_DATA_IDS)
def test_a_vivid_log_whose_ids_are_not_its_datas_is_skipped_and_the_report_written(
    source: Path, tmp_path: Path, fmt: str, bad: object
) -> None:
    folder = tmp_path / "logs"

    def edit(rows: list[dict[str, Any]]) -> None:
        rows[0]["id"] = bad

    log = write_log(source, folder / "stray", fmt, samples=edit)
    _good(source, folder)
    (skipped,) = read_logs(folder).skipped
    assert skipped == (
        f"stray/{log.name}: sample id {bad!r} is not an id of its data (a whole number from 1 to 47): "
        "not a log of VIVID's items"
    )


@pytest.mark.parametrize("bad", ["abc", 0, 48])
def test_a_header_that_plans_ids_not_in_the_data_skips_the_log(
    source: Path, tmp_path: Path, bad: object
) -> None:
    def edit(header: dict[str, Any]) -> None:
        header["eval"]["dataset"]["sample_ids"][0] = bad

    log = write_log(source, tmp_path, "eval", header=edit)
    (skipped,) = read_logs(tmp_path).skipped
    assert skipped.startswith(f"{log.name}: planned sample id {bad!r} is not an id of its data")


@pytest.mark.slow
def test_a_stray_log_with_text_ids_leaves_the_cli_report_at_exit_0(
    source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "logs"

    def edit(rows: list[dict[str, Any]]) -> None:
        rows[0]["id"] = "abc"

    log = write_log(source, folder / "stray", "eval", samples=edit)
    _good(source, folder)
    code = main(["report", str(folder), "--out", str(tmp_path / "out"), "--no-figures"])
    out, err = capsys.readouterr()
    assert code == 0 and "Traceback" not in err and "invalid literal" not in out + err
    assert f"vivid report: skipped stray/{log.name}: sample id 'abc' is not an id of its data" in err


@FORMATS
def test_ids_written_as_text_are_the_same_items_in_numeric_order(
    source: Path, clean: dict[int, float], tmp_path: Path, fmt: str
) -> None:
    def samples(rows: list[dict[str, Any]]) -> None:
        for row in rows:
            row["id"] = str(row["id"])

    def header(content: dict[str, Any]) -> None:
        content["eval"]["dataset"]["sample_ids"] = [str(i) for i in content["eval"]["dataset"]["sample_ids"]]

    write_log(source, tmp_path / "logs", fmt, samples=samples, header=header)
    logset = read_logs(tmp_path / "logs")
    assert logset.skipped == () and not any("not counted" in n or "twice" in n for n in logset.counted_once)
    assert dict(zip(logset.scores["id"], logset.scores["value"], strict=True)) == clean
    assert sorted(logset.scores["id"]) == IDS  # 1, 2, ..., never "1", "10", "2"
    assert {type(i) for i in logset.scores["id"]} == {int}


# --- a panel's values ---------------------------------------------------------------------------------


def _as_panel(value: float, members: int) -> dict[str, Content]:
    """The lexical column renamed ``judge_panel`` under a panel's record of ``members`` members."""

    def header(content: dict[str, Any]) -> None:
        record = {"name": "panel", "strategy": "panel", "members": [f"m{i}" for i in range(members)]}
        content["eval"].setdefault("metadata", {})["vivid_judge"] = record
        for scorer in content["eval"].get("scorers") or []:
            scorer["name"] = "judge_panel"
        for score in (content.get("results") or {}).get("scores") or []:
            score["name"] = score["scorer"] = "judge_panel"

    def samples(rows: list[dict[str, Any]]) -> None:
        for row in rows:
            row["scores"] = {"judge_panel": row["scores"]["lexical"]}
        rows[0]["scores"]["judge_panel"]["value"] = value

    return {"header": header, "samples": samples}


@pytest.mark.parametrize(
    ("value", "members", "kept"),
    [
        pytest.param(14 / 3, 3, True, id="a-mean-of-three"),
        pytest.param(2.5, 3, True, id="a-median-of-two"),
        pytest.param(4, 3, True, id="whole"),
        pytest.param(4.75, 3, False, id="a-mean-of-four-from-three"),
        pytest.param(4.75, 4, True, id="a-mean-of-four"),
        pytest.param(4.999, 3, False, id="4.999"),
        pytest.param(1e-320, 3, False, id="subnormal"),
    ],
)
def test_a_panel_value_is_a_mean_of_its_members_whole_scores(
    source: Path, tmp_path: Path, value: float, members: int, kept: bool
) -> None:
    write_log(source, tmp_path, "eval", **_as_panel(value, members))
    logset = read_logs(tmp_path)
    first = logset.scores.set_index("id").loc[1]
    assert first["judge"] == "panel" and bool(first["refused"]) is not kept
    if kept:
        assert first["value"] == pytest.approx(value)
    else:
        (refused,) = logset.refused
        assert f"is not a mean of at most {members} whole scores from 0 to 5" in refused


# --- logs by hand and by other versions: read, or skipped on one line ---------------------------------


def _first(edit: Callable[[dict[str, Any]], Any]) -> Content:
    def apply(rows: list[dict[str, Any]]) -> None:
        edit(rows[0])

    return apply


def _header_pop(*path: str) -> Content:
    def edit(content: dict[str, Any]) -> None:
        node = content
        for key in path[:-1]:
            node = node.get(key) or {}
        node.pop(path[-1], None)

    return edit


READ = None
HAND_WRITTEN = [
    # shapes Inspect writes (an errored sample, a run without scoring, older headers): read
    pytest.param({"samples": _first(lambda s: s.update(scores=None))}, READ, id="scores-null"),
    pytest.param({"samples": _first(lambda s: s.pop("scores"))}, READ, id="no-scores"),
    pytest.param({"samples": _first(lambda s: s["scores"].update(lexical=None))}, READ, id="a-score-null"),
    pytest.param({"samples": _first(lambda s: s.update(choices=None))}, READ, id="choices-null"),
    pytest.param({"samples": _first(lambda s: s.pop("input"))}, READ, id="no-input"),
    pytest.param({"samples": _first(lambda s: s.pop("metadata"))}, READ, id="no-metadata"),
    pytest.param({"samples": _first(lambda s: s.update(epoch=None))}, READ, id="epoch-null"),
    pytest.param({"header": _header_pop("results")}, READ, id="no-results"),
    # Inspect's own .json header reader asserts it has a 'stats': an older .json log is skipped
    pytest.param({"header": _header_pop("stats")}, {"json": "stats"}, id="no-stats"),
    pytest.param({"header": _header_pop("eval", "dataset", "sample_ids")}, READ, id="no-planned-ids"),
    # shapes Inspect could not have written: skipped, one line naming why
    pytest.param({"samples": _first(lambda s: s.pop("id"))}, "sample id None", id="no-id"),
    pytest.param({"samples": _first(lambda s: s.update(scores=[5]))}, "scores is a list", id="scores-a-list"),
    pytest.param(
        {"samples": _first(lambda s: s["scores"].update(lexical=5))},
        "score 'lexical' is a int",
        id="a-bare-score",
    ),
    pytest.param(
        {"samples": _first(lambda s: s["scores"]["lexical"].update(metadata=[1]))},
        "score 'lexical''s metadata is not an object",
        id="score-metadata-a-list",
    ),
    pytest.param(
        {"samples": _first(lambda s: s.update(metadata="x"))}, "metadata is a str", id="metadata-a-string"
    ),
    pytest.param({"samples": lambda rows: [*rows, 5]}, "a sample summary is a int", id="a-sample-a-number"),
    pytest.param({"header": _header_pop("eval")}, "eval", id="no-eval"),
    pytest.param({"header": _header_pop("eval", "model")}, "model", id="no-model"),
]


@FORMATS
@pytest.mark.parametrize(("edits", "skipped_for"), HAND_WRITTEN)
def test_a_hand_written_log_is_read_or_skipped_on_one_line(
    source: Path,
    tmp_path: Path,
    fmt: str,
    edits: dict[str, Content],
    skipped_for: str | dict[str, str] | None,
) -> None:
    if isinstance(skipped_for, dict):
        skipped_for = skipped_for.get(fmt)
    folder = tmp_path / "logs"
    log = write_log(source, folder / "hand", fmt, **edits)
    _good(source, folder)
    logset = read_logs(folder)
    if skipped_for is None:
        assert logset.skipped == () and f"hand/{log.name}" in {ref.rel for ref in logset.logs}
    else:
        (skipped,) = logset.skipped
        assert skipped.startswith(f"hand/{log.name}: ") and skipped_for in skipped and "\n" not in skipped
    assert sorted(set(logset.scores["id"])) == IDS


DAMAGED = [
    pytest.param("eval", lambda data: data[: len(data) // 2], "BadZipFile", id="eval-truncated"),
    pytest.param("eval", lambda data: b"", "BadZipFile", id="eval-empty"),
    pytest.param("json", lambda data: data[: len(data) * 3 // 4], "not JSON", id="json-truncated-in-samples"),
    pytest.param("json", lambda data: data[:200], "Unable to read log file", id="json-truncated-in-header"),
    pytest.param("json", lambda data: b"", "Unable to read log file", id="json-empty"),
    # Inspect's .json reader crashed the process (a segmentation fault) on such a number.
    pytest.param(
        "json",
        lambda data: data.replace(b'"status": "success"', b'"status": "success", "n": ' + b"9" * 5000, 1),
        "more than 4,300 digits",
        id="json-a-5000-digit-number",
    ),
    pytest.param(
        "json",
        lambda data: data.replace(
            b'"status": "success"', b'"status": "success", "n": [-' + b"1" * 4301 + b"]", 1
        ),
        "more than 4,300 digits",
        id="json-a-4301-digit-negative-in-a-list",
    ),
    pytest.param("json", lambda data: b"[]", "Unable to read log file", id="json-a-list"),
    pytest.param("json", lambda data: b"null", "Unable to read log file", id="json-null"),
    pytest.param("json", lambda data: b'"log"', "Unable to read log file", id="json-a-string"),
    pytest.param(
        "json",
        lambda data: data.replace(b'"samples": [', b'"samples": {"a": [', 1),
        "",
        id="json-samples-an-object",
    ),
    pytest.param(
        "json", lambda data: data.replace(b'"status"', b'"st\xffatus"', 1), "UTF8", id="json-not-utf-8"
    ),
]


@pytest.mark.parametrize(("fmt", "damage", "named"), DAMAGED)
def test_a_damaged_log_is_skipped_on_one_line_and_the_report_written(
    source: Path, tmp_path: Path, fmt: str, damage: Callable[[bytes], bytes], named: str
) -> None:
    folder = tmp_path / "logs"
    log = write_log(source, folder / "hand", fmt)
    log.write_bytes(damage(log.read_bytes()))
    _good(source, folder)
    (skipped,) = read_logs(folder).skipped
    assert skipped.startswith(f"hand/{log.name}: ") and named in skipped and "\n" not in skipped
    assert str(tmp_path) not in skipped  # the file is named once, by its place in the folder


# --- all of them in one folder: the report says what it did with each ------------------------------


@pytest.mark.slow
def test_the_report_names_each_crafted_log_and_counts_each_item_once(source: Path, tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    twice = write_log(source, folder / "twice", "json", samples=_held_twice(1, "1"))
    stranger = write_log(source, folder / "stranger", "eval", samples=_add(lambda s: s.update(id=9)))
    repeated = write_log(source, folder / "repeated", "eval", text=_repeat_first("value", "5"))

    def abc(rows: list[dict[str, Any]]) -> None:
        rows[0]["id"] = "abc"

    stray = write_log(source, folder / "stray", "json", samples=abc)
    damaged = write_log(source, folder / "damaged", "eval")
    damaged.write_bytes(damaged.read_bytes()[:500])
    _good(source, folder)

    report = write_report(folder, out_dir=tmp_path / "out", formats=("md",), figures=False)

    lines = report.markdown.splitlines()
    assert (
        f"- counted once: twice/{twice.name} holds a sample twice, the last read: sample 1 epoch 1 is held 2 times (ids 1, '1')"
        in lines
    )
    assert (
        f"- not counted: stranger/{stranger.name} holds samples its run did not plan: sample 9 (not one of the 8 ids it planned)"
        in lines
    )
    assert (
        f"- skipped: repeated/{repeated.name}: the key 'value' is repeated in one object (which value counts?)"
        in lines
    )
    assert any(
        line.startswith(f"- skipped: stray/{stray.name}: sample id 'abc' is not an id of its data")
        for line in lines
    )
    assert any(line.startswith(f"- skipped: damaged/{damaged.name}: BadZipFile") for line in lines)
    assert len(report.skipped) == 3
    row = report.table("table3_themes").frame.iloc[0]
    assert row["n"] == len(IDS) and row["refused"] == 0


# --- one size cap for both formats ---------------------------------------------------------------------


def _eval_bytes(source: Path) -> int:
    """What a report inflates of the ``.eval``: its header, reductions and summaries."""
    with zipfile.ZipFile(source) as archive:
        return sum(archive.getinfo(n).file_size for n in ("header.json", "reductions.json", "summaries.json"))


@pytest.mark.slow
def test_a_json_log_over_the_cap_is_skipped_by_its_size_before_it_is_read(
    source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "logs"
    log = write_log(source, folder / "big", "json")
    # broken after its first bytes: a reader that parsed before checking the size would say so instead
    log.write_bytes(log.read_bytes()[:100] + b"\x00" * (log.stat().st_size - 100))
    _good(source, folder)
    size, cap = log.stat().st_size, _eval_bytes(source) + 1000
    assert cap < size
    monkeypatch.setenv(MAX_INFLATED_ENV, str(cap))
    code = main(["report", str(folder), "--out", str(tmp_path / "out"), "--no-figures"])
    out, err = capsys.readouterr()
    line = (
        f"big/{log.name}: InflationError: {log.name} is {size:,} bytes, over the {cap:,} bytes a report "
        f"reads from one log (set {MAX_INFLATED_ENV} to read a larger one)"
    )
    assert code == 0 and f"- skipped: {line}" in (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert f"vivid report: skipped {line}" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("cap", "read"), [("1M", True), ("1K", False), ("1 MiB", True), ("120k", True), ("90k", False)]
)
def test_the_cap_takes_units_and_holds_for_both_formats(
    source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cap: str, read: bool
) -> None:
    write_log(source, tmp_path / "a", "json")
    write_log(source, tmp_path / "b", "eval")
    monkeypatch.setenv(MAX_INFLATED_ENV, cap)
    logset = read_logs(tmp_path)
    # the .json log is about 91 KiB on disk, the .eval's header and summaries inflate to about 40 KiB
    if cap == "90k":
        assert [ref.rel for ref in logset.logs] == [f"b/{NAME}.eval"]
        assert [line.split(":")[0] for line in logset.skipped] == [f"a/{NAME}.json"]
    else:
        assert len(logset.logs) == (2 if read else 0) and len(logset.skipped) == (0 if read else 2)


@pytest.mark.parametrize("value", ["ten", "-5", "0", "1e9"])
def test_a_cap_that_is_not_a_size_is_one_line_and_exit_2(
    source: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    value: str,
) -> None:
    _good(source, tmp_path)
    monkeypatch.setenv(MAX_INFLATED_ENV, value)
    code = main(["report", str(tmp_path), "--out", str(tmp_path / "out"), "--no-figures"])
    err = capsys.readouterr().err
    assert code == 2 and f"{MAX_INFLATED_ENV}={value!r} is not a size" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("chunk", [1, 7, 4096])
def test_a_json_logs_samples_stream_in_any_chunks_to_what_the_eval_holds(
    source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    log = write_log(source, tmp_path, "json")
    whole = read_summaries(log)
    monkeypatch.setattr(log_files, "_CHUNK", chunk)  # a sample, a number, a UTF-8 sequence cut anywhere
    assert read_summaries(log) == whole
    keys = ("id", "epoch", "input", "target", "metadata", "scores")
    assert [{k: s.get(k) for k in keys} for s in whole] == [
        {k: s.get(k) for k in keys} for s in read_summaries(source)
    ]
    assert all(not math.isnan(s["scores"]["lexical"]["value"]) for s in whole)


def test_a_json_judged_logs_usage_is_read_a_sample_at_a_time_as_the_evals(
    source: Path, tmp_path: Path
) -> None:
    """The usage table reads the judge's model events of a ``.json`` judged copy as it reads an ``.eval``'s."""
    judged = judged_copy(source, tmp_path / "scored.eval")
    log = read_eval_log(str(judged))
    record = {"name": "aspect-b", "strategy": "aspect", "model": "vivid/chrf", "generation_log": source.name}
    log.eval.metadata = {**(log.eval.metadata or {}), "vivid_judge": record}  # no usage: events are read
    tables = {}
    for fmt in ("eval", "json"):
        folder = tmp_path / fmt
        (folder / "judged").mkdir(parents=True)
        (folder / source.name).write_bytes(source.read_bytes())
        write_eval_log(log, str(folder / "judged" / f"{NAME}.{fmt}"))
        tables[fmt] = usage_table(read_logs(folder)).frame
    judge = tables["json"][tables["json"]["judge"] == "aspect-b"]
    assert len(judge) == 1 and judge["calls"].iloc[0] == len(IDS)
    assert tables["json"].equals(tables["eval"])


def test_a_cap_that_is_not_a_size_leaves_other_readers_on_the_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only the report refuses it: a run's credential scrubbing must not stop on a mistyped cap."""
    monkeypatch.setenv(MAX_INFLATED_ENV, "ten")
    assert max_inflated() == 128 * 2**20
    with pytest.raises(SizeCapError, match=f"{MAX_INFLATED_ENV}='ten' is not a size"):
        max_inflated(strict=True)


def test_digits_inside_a_text_are_no_number_and_the_log_is_read(source: Path, tmp_path: Path) -> None:
    """A model may well write 5,000 digits in its answer: only a number where JSON puts one is refused."""
    folder = tmp_path / "logs"
    log = write_log(source, folder / "hand", "json")
    data = log.read_bytes()
    log.write_bytes(
        data.replace(b'"status": "success"', b'"status": "success", "note": "' + b"7" * 5000 + b'"', 1)
    )
    assert read_logs(folder).skipped == ()
