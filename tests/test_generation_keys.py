"""The generation key: what it hashes, how it tells data files apart, and the key before digests."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log

from tests.report_runs import sample_rows, write_data
from vivid_inspect.data import DIGEST_KEY, ITEMS_KEY, _load_cached, items_digest, load_items, load_vivid
from vivid_inspect.generation_key import Generation, generation_of, short_data_name
from vivid_inspect.tasks import explain, topic, traits

BASE = Generation("explain", "2", "vivid/literal", "zero_shot", "data.csv", (1, 2, 3), data_digest="a" * 64)


def _old_formula(g: Generation) -> str:
    """The key as computed before the data's digest was part of it (what older sheets carry)."""
    content = [g.task, g.task_version, g.model, g.prompt, g.data, sorted(map(str, g.sample_ids))]
    return "g" + hashlib.sha256(json.dumps(content, ensure_ascii=False).encode("utf-8")).hexdigest()[:12]


def test_two_data_files_of_one_name_are_two_generations() -> None:
    assert replace(BASE, data_digest="b" * 64).key != BASE.key


def test_the_same_items_under_another_name_are_one_generation() -> None:
    assert replace(BASE, data="elsewhere.csv").key == BASE.key


@pytest.mark.parametrize(
    "other",
    [
        pytest.param(replace(BASE, task_version="3"), id="task-version"),
        pytest.param(replace(BASE, sample_ids=(1, 2)), id="sample-ids"),
        pytest.param(replace(BASE, prompt="few_shot"), id="prompt"),
        pytest.param(replace(BASE, model="vivid/oracle"), id="model"),
        pytest.param(replace(BASE, task="topic", prompt="3 shots"), id="task"),
    ],
)
def test_the_key_still_changes_with_the_rest(other: Generation) -> None:
    assert other.key != BASE.key


def test_a_log_without_a_digest_keeps_its_key_as_it_was() -> None:
    old = replace(BASE, data_digest="")
    assert old.key == old.legacy_key == _old_formula(old)
    assert BASE.legacy_key == _old_formula(BASE) != BASE.key


@pytest.mark.parametrize(
    ("data", "short"),
    [
        ("vivid_inspect sample (vivid_inspect/data/sample.csv)", "sample"),
        ("hf:LakoreAI/vivid-vietnamese-idioms@daf3862423a8/VIVID_Dataset.csv", "hf@daf3862423a8"),
        ("https://example.org/files/VIVID_Dataset.csv?download=1", "VIVID_Dataset.csv"),
        ("my_data.csv", "my_data.csv"),
    ],
)
def test_the_data_label_is_short(data: str, short: str) -> None:
    assert short_data_name(data) == short
    assert replace(BASE, data=data).data_label == f"{short} {'a' * 8}"
    assert replace(BASE, data=data, data_digest="").data_label == short


def test_the_digest_is_of_the_items_not_the_bytes(tmp_path: Path) -> None:
    rows = sample_rows()
    plain = write_data(tmp_path / "plain.csv", rows)
    crlf = tmp_path / "crlf.csv"
    crlf.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes().replace(b"\n", b"\r\n"))  # BOM, CRLF
    digest = items_digest(load_items(str(plain))[1])
    assert items_digest(load_items(str(crlf))[1]) == digest
    changed = [list(row) for row in rows]
    changed[3][1] = changed[3][1] + " (khác)"
    assert items_digest(load_items(str(write_data(tmp_path / "meaning.csv", changed)))[1]) != digest
    traits_changed = [list(row) for row in rows]
    traits_changed[0][2] = "1.0" if traits_changed[0][2] == "0.0" else "0.0"
    assert items_digest(load_items(str(write_data(tmp_path / "trait.csv", traits_changed)))[1]) != digest
    assert items_digest(load_items(str(write_data(tmp_path / "order.csv", rows[::-1])))[1]) != digest


def test_a_file_changed_in_place_is_read_again(tmp_path: Path) -> None:
    path = write_data(tmp_path / "data.csv", sample_rows())
    first = load_vivid(str(path)).digest
    write_data(path, sample_rows()[:-1])
    _load_cached.cache_clear()
    assert load_vivid(str(path)).digest != first


@pytest.mark.parametrize("task", [explain, topic, traits], ids=["explain", "topic", "traits"])
def test_every_task_records_the_digest_and_the_item_count(task: object) -> None:
    built = task(data="sample")  # type: ignore[operator]
    metadata = built.metadata or {}
    _, items = load_items("sample")
    assert metadata[DIGEST_KEY] == items_digest(items) and metadata[ITEMS_KEY] == len(items)


@pytest.mark.slow
def test_generation_of_reads_the_digest_and_a_classification_logs_shots(tmp_path: Path) -> None:
    from tests.report_runs import classification_runs, explain_run

    explained = read_eval_log(
        str(explain_run("vivid/literal", "sample", tmp_path, sample_id=[1, 2])), header_only=True
    )
    found = generation_of(explained)
    assert found.data_digest == (explained.eval.metadata or {})[DIGEST_KEY]
    classified = read_eval_log(
        str(classification_runs("vivid/literal", "sample", tmp_path, shots=0)[0]), header_only=True
    )
    assert generation_of(classified).prompt == "0 shots"
    classified.eval.metadata = {**(classified.eval.metadata or {}), DIGEST_KEY: "not a digest"}
    assert generation_of(classified).data_digest == ""
