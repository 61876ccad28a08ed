"""No item is scored with its own answer in view: few-shot idioms and the judges' graded examples."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from vivid_inspect.data import COLUMNS, _load_cached, load_vivid
from vivid_inspect.data.leakage import NEAR_DUPLICATE_THRESHOLD
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


# --- near-duplicates: left out by default, each with what it resembles ----------------------------


def rows_file(tmp_path: Path, idioms: list[str], name: str = "near.csv") -> Path:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows([[idiom, "Một nghĩa.", "0.0", "0.0", "0.0", "0.0", "1.0", "3.0"] for idiom in idioms])
    path = tmp_path / name
    path.write_text(out.getvalue(), encoding="utf-8")
    return path


NEAR_EXPLAIN = [
    "Mèo lại khen mèo dài đuôi",  # 1: few-shot "Mèo khen mèo dài đuôi", a syllable inserted
    "Mua láng giềng gần, bán anh em xa",  # 2: few-shot, halves swapped
    "Há mồm chờ sung",  # 3: judge example "Há miệng chờ sung", a syllable replaced
    "Chở củi về rừng",  # 4: judge example itself
    "Nước chảy đá mòn",  # 5: unrelated
    "Đẽo cày giữa đàng",  # 6: judge example "Đẽo cày giữa đường"
    "Ăn cơm không rau như đau không thuốc men",  # 7: few-shot, a syllable added at the end
]


def test_explain_leaves_out_near_duplicates_of_few_shot_idioms_and_judge_examples(tmp_path: Path) -> None:
    task = explain(judge="none", data=str(rows_file(tmp_path, NEAR_EXPLAIN)))

    assert [sample.id for sample in task.dataset] == [5]
    metadata = task.metadata or {}
    assert (metadata["left_out"], metadata["left_out_ids"]) == (3, [1, 2, 7])
    assert (metadata["judge_examples_left_out"], metadata["judge_examples_left_out_ids"]) == (3, [3, 4, 6])
    record = metadata["leakage"]
    assert record["threshold"] == NEAR_DUPLICATE_THRESHOLD
    by_id = {entry["id"]: entry for entry in record["left_out"]}
    assert sorted(by_id) == [1, 2, 3, 4, 6, 7]
    assert by_id[1] == {
        "id": 1,
        "idiom": "Mèo lại khen mèo dài đuôi",
        "resembles": "Mèo khen mèo dài đuôi",
        "shown_as": "demonstration",
        "similarity": 0.833,
    }
    assert (by_id[2]["resembles"], by_id[2]["similarity"]) == ("Bán anh em xa, mua láng giềng gần", 1.0)
    assert (by_id[3]["resembles"], by_id[3]["shown_as"], by_id[3]["similarity"]) == (
        "Há miệng chờ sung",
        "judge_example",
        0.75,
    )
    assert (by_id[4]["similarity"], by_id[6]["resembles"]) == (1.0, "Đẽo cày giữa đường")


@pytest.mark.parametrize("kind", ["topic", "traits"])
def test_classification_leaves_out_near_duplicates_of_the_demonstrations_shown(
    tmp_path: Path, kind: str
) -> None:
    from vivid_inspect.tasks import topic, traits

    build = topic if kind == "topic" else traits
    path = rows_file(
        tmp_path, ["Ăn cháo đái bát", "Gieo gió thì gặt bão", "Nước chảy đá mòn", "Bà nguyệt ông tơ"]
    )

    three = build(shots=3, data=str(path))
    assert [sample.id for sample in three.dataset] == [3, 4]
    metadata = three.metadata or {}
    assert metadata["left_out_ids"] == [1, 2]
    assert [(e["id"], e["resembles"], e["similarity"]) for e in metadata["leakage"]["left_out"]] == [
        (1, "Ăn cháo đá bát", 0.75),
        (2, "Gieo gió gặt bão", 0.8),
    ]

    five = build(shots=5, data=str(path))
    assert (five.metadata or {})["left_out_ids"] == [1, 2, 4]
    none = build(shots=0, data=str(path))
    assert [sample.id for sample in none.dataset] == [1, 2, 3, 4]
    assert (none.metadata or {})["leakage"]["left_out"] == []


def test_the_threshold_is_a_task_parameter(tmp_path: Path) -> None:
    from vivid_inspect.tasks import topic

    path = rows_file(tmp_path, ["Ăn cháo đái bát", "Ăn cháo đá bát.", "Gieo gió thì gặt bão"])

    strict = topic(shots=3, data=str(path), leakage_threshold=1.0)
    assert [sample.id for sample in strict.dataset] == [1, 3]
    assert (strict.metadata or {})["leakage"] == {
        "threshold": 1.0,
        "left_out": [
            {
                "id": 2,
                "idiom": "Ăn cháo đá bát.",
                "resembles": "Ăn cháo đá bát",
                "shown_as": "demonstration",
                "similarity": 1.0,
            }
        ],
    }
    loose = topic(shots=3, data=str(path), leakage_threshold=0.8)
    assert [sample.id for sample in loose.dataset] == [1]


@pytest.mark.parametrize("value", [0.5, 1.5, "high"])
@pytest.mark.parametrize("task_name", ["explain", "topic", "traits"])
def test_a_threshold_out_of_range_names_the_task_and_the_range(task_name: str, value: object) -> None:
    from vivid_inspect import tasks
    from vivid_inspect.inspect_private import TaskArgumentError

    with pytest.raises(
        TaskArgumentError, match=rf"{task_name}: leakage_threshold must be a number from 0\.6 to 1"
    ):
        getattr(tasks, task_name)(data="sample", leakage_threshold=value)


def test_the_load_warning_lists_each_pair_with_its_similarity(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = rows_file(tmp_path, ["Ăn cháo đái bát", "Nước chảy đá mòn"], name="warned.csv")

    with caplog.at_level("WARNING", logger="vivid_inspect.data"):
        load_vivid(str(path), exclude_idioms=["Ăn cháo đá bát"])

    text = caplog.text
    assert (
        "left out 1 item(s) whose idiom is a demonstration of the prompt or a near-duplicate of one" in text
    )
    assert "id 1 «Ăn cháo đái bát» ~ demonstration «Ăn cháo đá bát» (0.750)" in text


def test_the_load_warning_is_one_line_when_only_shown_idioms_themselves_are_left_out(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = rows_file(tmp_path, ["ăn cháo đá bát!", "Nước chảy đá mòn", "Ăn cháo đái bát"], name="warned.csv")

    with caplog.at_level("WARNING", logger="vivid_inspect.data"):
        load_vivid(str(path), exclude_idioms=["Ăn cháo đá bát"])

    [message] = [record.getMessage() for record in caplog.records]
    lines = message.splitlines()
    assert "left out 2 item(s)" in lines[0] and "ids [1, 3]" in lines[0]
    # The idiom itself is not paired again; its near-duplicate is, with the similarity.
    assert lines[1:] == ["  - id 3 «Ăn cháo đái bát» ~ demonstration «Ăn cháo đá bát» (0.750)"]


def test_near_duplicates_follow_the_closest_shown_idiom(tmp_path: Path) -> None:
    # Closer to the judge example than to the demonstration: recorded as a judge example.
    path = rows_file(tmp_path, ["Há miệng chờ sung", "Há miệng chờ sung rụng"])

    loaded = load_vivid(
        str(path), exclude_idioms=["Há miệng chờ xung quanh"], exclude_judge_examples=["Há miệng chờ sung"]
    )

    assert loaded.judge_examples_left_out == [1, 2]
    assert loaded.left_out == []
    assert [(e.id, e.shown_as, e.similarity) for e in loaded.leakage] == [
        (1, "judge_example", 1.0),
        (2, "judge_example", 0.8),
    ]


def test_the_bundled_sample_loses_only_the_demonstration_it_holds() -> None:
    task = explain(judge="none", data="sample")

    metadata = task.metadata or {}
    assert metadata["left_out_ids"] == [17]
    assert metadata["judge_examples_left_out_ids"] == []
    assert [entry["id"] for entry in metadata["leakage"]["left_out"]] == [17]
    assert len(task.dataset) == 46
