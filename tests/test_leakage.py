"""No item is scored with its own answer in view: few-shot idioms and the judges' graded examples."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from vivid_inspect.data import COLUMNS, _load_cached, load_vivid
from vivid_inspect.scorers.judge_prompts import TEMPLATES, judge_example_idioms
from vivid_inspect.solvers.explain_prompts import EXPLAIN_DEMONSTRATIONS
from vivid_inspect.tasks import explain

NEUTRAL = ["Nước chảy đá mòn", "Bền bỉ thì nên việc.", "0.0", "0.0", "0.0", "0.0", "0.0", "6.0"]


@pytest.fixture(autouse=True)
def fresh_loader() -> Iterator[None]:
    _load_cached.cache_clear()
    yield
    _load_cached.cache_clear()


def data_file(tmp_path: Path, idioms: list[str]) -> Path:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows([[idiom, "Một nghĩa.", "0.0", "0.0", "0.0", "0.0", "1.0", "3.0"] for idiom in idioms])
    writer.writerow(NEUTRAL)
    path = tmp_path / "vivid.csv"
    path.write_text(out.getvalue(), encoding="utf-8")
    return path


def test_judge_example_idioms_are_read_from_every_template() -> None:
    idioms = judge_example_idioms()

    shown = {
        m
        for template in TEMPLATES.values()
        for m in re.findall(r"^Thành ngữ/tục ngữ: (.+)$", template, re.MULTILINE)
    }
    assert set(idioms) == shown
    assert {"Há miệng chờ sung", "Chở củi về rừng", "Đẽo cày giữa đường"} <= set(idioms)
    assert len(idioms) == len(set(idioms))


@pytest.mark.parametrize(
    "judge",
    [
        pytest.param("none", id="generate-only"),
        pytest.param("aspect", id="aspect"),
        pytest.param("zero_shot", id="judge-without-examples"),
        pytest.param("lexical", id="lexical"),
        pytest.param("all", id="all"),
    ],
)
def test_judge_examples_are_left_out_of_explain_for_every_judge(tmp_path: Path, judge: str) -> None:
    # Spelled as a user might: lower case, a trailing period, a double space.
    path = data_file(tmp_path, ["chở củi về rừng.", "Há miệng  chờ sung", EXPLAIN_DEMONSTRATIONS[0][0]])

    task = explain(judge=judge, data=str(path))

    assert [sample.id for sample in task.dataset] == [4]
    assert task.metadata is not None
    assert (task.metadata["left_out"], task.metadata["left_out_ids"]) == (1, [3])
    assert (task.metadata["judge_examples_left_out"], task.metadata["judge_examples_left_out_ids"]) == (
        2,
        [1, 2],
    )


def test_explain_on_the_sample_records_no_judge_example() -> None:
    task = explain(judge="none", data="sample")

    assert task.metadata is not None
    assert task.metadata["judge_examples_left_out"] == 0
    assert task.metadata["judge_examples_left_out_ids"] == []


def test_load_vivid_records_the_two_reasons_apart(tmp_path: Path) -> None:
    path = data_file(tmp_path, ["Gieo gió gặt bão", "Há miệng chờ sung"])

    loaded = load_vivid(
        str(path),
        exclude_idioms=["gieo gió gặt bão"],
        exclude_judge_examples=["Há miệng chờ sung", "Gieo gió gặt bão"],
    )

    assert loaded.left_out == [1]
    assert loaded.judge_examples_left_out == [2]
    assert [sample.id for sample in loaded.dataset] == [3]
