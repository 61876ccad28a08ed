"""The log contract: column names, task names and the judged record the runner writes and the report reads."""

from __future__ import annotations

from typing import Any

import pytest

from vivid_inspect.log_contract import (
    VIVID_JUDGE_KEY,
    JudgedRecord,
    JudgeId,
    is_judge_column,
    read_judged_record,
    short_task,
)


@pytest.mark.parametrize(
    ("strategy", "column"),
    [("aspect", "judge_aspect"), ("cot", "judge_cot"), ("panel", "judge_panel"), ("lexical", "lexical")],
    ids=["llm", "cot", "panel", "lexical"],
)
def test_judge_column_round_trips(strategy: str, column: str) -> None:
    assert JudgeId.of(strategy).column == column
    assert is_judge_column(column)
    assert JudgeId.from_column(column).strategy == strategy


@pytest.mark.parametrize("name", ["accuracy", "topic_f1", "judgement"], ids=["accuracy", "f1", "near-prefix"])
def test_other_columns_are_not_judges(name: str) -> None:
    assert not is_judge_column(name)


@pytest.mark.parametrize(
    ("task", "short"),
    [
        ("vivid_inspect/explain", "explain"),
        ("tasks.py@topic", "topic"),
        ("src/vivid/tasks.py@traits", "traits"),
        ("explain", "explain"),
    ],
    ids=["registry", "file-at", "path-at", "bare"],
)
def test_short_task(task: str, short: str) -> None:
    assert short_task(task) == short


@pytest.mark.parametrize(
    "record",
    [
        {"name": "a", "strategy": "aspect", "model": "m/x", "generation_log": "generations/g.eval"},
        {"name": "a", "strategy": "aspect", "model": "m/x", "generation_log": "g.eval", "config_hash": "ab"},
        {"name": "p", "strategy": "panel", "model": None, "members": ["a", "b"], "aggregate": "mean"},
    ],
    ids=["before-repeats", "before-usage", "panel"],
)
def test_older_records_read_with_defaults(record: dict[str, Any]) -> None:
    read = read_judged_record({VIVID_JUDGE_KEY: record, "other": 1})
    assert read is not None
    assert (read.name, read.strategy, read.model) == (record["name"], record["strategy"], record["model"])
    assert (read.repeat, read.temperature, read.usage, read.skipped_errored_samples) == (None, None, None, 0)


@pytest.mark.parametrize(
    "metadata",
    [None, {}, {"prompt": "few_shot"}, {VIVID_JUDGE_KEY: "aspect"}, {VIVID_JUDGE_KEY: {"repeat": "first"}}],
    ids=["no-metadata", "empty", "plain-log", "not-a-dict", "wrong-type"],
)
def test_logs_without_a_usable_record_read_as_plain_logs(metadata: dict[str, Any] | None) -> None:
    assert read_judged_record(metadata) is None


def test_written_record_reads_back_unchanged_and_keeps_unknown_fields() -> None:
    written = JudgedRecord(
        name="coin",
        strategy="aspect",
        model="openai/judge",
        repeat=1,
        temperature=[0.0, 0.7],
        generation_log="generations/g.eval",
        config_hash="0123",
        config={"strategy": "aspect"},
        usage={"judge_aspect": {"usage": None, "calls": 2, "cached_calls": 1}},
    )
    metadata = written.metadata()
    assert set(metadata) == {VIVID_JUDGE_KEY}
    assert "members" not in metadata[VIVID_JUDGE_KEY]  # unset fields are not written
    assert read_judged_record(metadata) == written
    newer = read_judged_record({VIVID_JUDGE_KEY: {**metadata[VIVID_JUDGE_KEY], "added_later": 3}})
    assert newer is not None and newer.model_dump()["added_later"] == 3
