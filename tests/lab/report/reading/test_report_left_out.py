"""The report says in one place what each generation left out and why: ids, the shown idiom, similarity."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.model import get_model

from vivid_inspect.data import COLUMNS, _load_cached
from vivid_inspect.lab.report.build import write_report
from vivid_inspect.log_contract import read_leakage_record
from vivid_inspect.tasks import explain, topic


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
    path = tmp_path / "variants.csv"
    path.write_text(out.getvalue(), encoding="utf-8")
    return path


def notes(log_dir: Path) -> list[str]:
    write_report(log_dir, formats=("md",), figures=False)
    markdown = (log_dir / "report" / "report.md").read_text(encoding="utf-8")
    return [line for line in markdown.splitlines() if line.startswith("- left out")]


def test_the_report_lists_each_left_out_item_with_what_it_resembles(tmp_path: Path) -> None:
    path = data_file(
        tmp_path, ["Ăn cháo đái bát", "Nước chảy đá mòn", "Há mồm chờ sung", "Mèo lại khen mèo dài đuôi"]
    )
    log_dir = tmp_path / "logs"
    eval(
        [topic(data=str(path)), explain(data=str(path), judge="none", prompt="few_shot")],
        model=get_model("vivid/oracle", data=str(path)),
        log_dir=str(log_dir),
        display="none",
    )

    block = notes(log_dir)

    assert block == [
        "- left out of explain (few_shot) (2 item(s), no score counts them): the idiom is, or is a "
        "near-duplicate of (similarity >= 0.75), one shown with its answer: "
        "id 3 «Há mồm chờ sung» ~ judge example «Há miệng chờ sung» (0.750); "
        "id 4 «Mèo lại khen mèo dài đuôi» ~ demonstration «Mèo khen mèo dài đuôi» (0.833)",
        "- left out of topic (3 shots) (1 item(s), no score counts them): the idiom is, or is a "
        "near-duplicate of (similarity >= 0.75), one shown with its answer: "
        "id 1 «Ăn cháo đái bát» ~ demonstration «Ăn cháo đá bát» (0.750)",
    ]


def test_the_log_header_names_the_ids_the_binding_message_needs(tmp_path: Path) -> None:
    path = data_file(tmp_path, ["Ăn cháo đái bát", "Nước chảy đá mòn"])
    [log] = eval(
        topic(data=str(path)),
        model=get_model("vivid/oracle", data=str(path)),
        log_dir=str(tmp_path / "logs"),
        display="none",
    )

    record = read_leakage_record(log.eval.metadata)

    assert record.threshold == 0.75
    assert record.ids == (1,)
    assert record.left_out[0].describe() == "id 1 «Ăn cháo đái bát» ~ demonstration «Ăn cháo đá bát» (0.750)"
    assert list(log.eval.dataset.sample_ids or []) == [2]
    # Ids an older generation scored and this one does not, each with why.
    assert record.why(["1", 2]) == ["id 1 «Ăn cháo đái bát» ~ demonstration «Ăn cháo đá bát» (0.750)"]


def test_an_older_log_with_ids_only_is_named_by_its_ids() -> None:
    record = read_leakage_record({"left_out_ids": [17], "judge_examples_left_out_ids": [3, 40]})

    assert record.ids == (3, 17, 40)
    assert [entry.describe() for entry in record.left_out] == ["id 3", "id 17", "id 40"]
    assert [entry.shown_as for entry in record.left_out] == [
        "judge_example",
        "demonstration",
        "judge_example",
    ]


@pytest.mark.parametrize(
    "value",
    [
        pytest.param({"left_out": [{"id": "x"}]}, id="bad-id"),
        pytest.param({"left_out": "17"}, id="not-a-list"),
        pytest.param("17", id="not-a-record"),
    ],
)
def test_a_malformed_record_falls_back_to_the_ids(value: object) -> None:
    assert read_leakage_record({"leakage": value, "left_out_ids": [17]}).ids == (17,)


def test_an_older_generation_log_is_noted_by_its_ids_and_says_why_no_pairs() -> None:
    from types import SimpleNamespace

    from vivid_inspect.lab.report.build import _left_out_notes
    from vivid_inspect.lab.report.reading.log_refs import LogRef

    def ref(task: str, prompt: str | None, shots: int | None, metadata: dict[str, object]) -> LogRef:
        return LogRef(
            path=Path(f"{task}.eval"),
            rel=f"{task}.eval",
            task=task,
            model="vivid/oracle",
            prompt=prompt,
            shots=shots,
            status="success",
            created="2026-01-01",
            vivid_judge=None,
            generation_log=f"{task}.eval",
            judge_model_role=None,
            leakage=read_leakage_record(metadata),
        )

    logs = [
        ref("explain", "zero_shot", None, {"left_out_ids": [17], "judge_examples_left_out_ids": [3]}),
        ref("topic", None, 3, {}),
    ]

    assert _left_out_notes(SimpleNamespace(logs=logs)) == [  # type: ignore[arg-type]
        "- left out of explain (zero_shot) (2 item(s), no score counts them): the idiom is a demonstration "
        "or a judge's graded example (logged before task version 3, which recorded the ids only): ids 3, 17"
    ]
