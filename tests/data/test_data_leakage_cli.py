"""`vivid data leakage`: the items of a data file each task leaves out, with what they resemble and how closely."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

import pytest

from vivid_inspect.data import COLUMNS, _load_cached
from vivid_inspect.lab.cli.main import main


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


IDIOMS = [
    "Ăn cháo đái bát",  # 1: topic/traits demonstration 1
    "Nước chảy đá mòn",  # 2: unrelated
    "Há mồm chờ sung",  # 3: judge example
    "Mèo lại khen mèo dài đuôi",  # 4: explain few-shot
    "Bà nguyệt ông tơ",  # 5: demonstration 5, halves swapped
    "Gieo gió",  # 6: half of demonstration 3 (0.5)
]


def test_every_left_out_item_is_listed_with_its_pair_similarity_and_tasks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["data", "leakage", "--data", str(data_file(tmp_path, IDIOMS))])

    out = capsys.readouterr().out
    assert code == 0, out
    lines = out.splitlines()
    assert "6 rows; 13 idioms shown with their answers, similarity >= 0.75" in lines[0]
    listed = [line for line in lines if line.startswith("  id ")]
    assert listed == [
        "  id 1  0.750  «Ăn cháo đái bát» ~ «Ăn cháo đá bát»: topic and traits demonstration 1 (shots >= 1)",
        "  id 3  0.750  «Há mồm chờ sung» ~ «Há miệng chờ sung»: explain judge example (every prompt)",
        "  id 4  0.833  «Mèo lại khen mèo dài đuôi» ~ «Mèo khen mèo dài đuôi»: explain few-shot demonstration (every prompt)",
        "  id 5  1.000  «Bà nguyệt ông tơ» ~ «Ông tơ bà nguyệt»: topic and traits demonstration 5 (shots >= 5)",
    ]
    assert "Left out: 4 of 6 rows" in out


def test_the_closest_pairs_below_the_threshold_are_shown_on_request(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["data", "leakage", "--data", str(data_file(tmp_path, IDIOMS)), "--closest", "1"])

    out = capsys.readouterr().out
    assert code == 0
    below = out.split("Closest below the threshold", 1)[1].splitlines()
    assert (
        below[1]
        == "  id 6  0.500  «Gieo gió» ~ «Gieo gió gặt bão»: topic and traits demonstration 3 (shots >= 3)"
    )


def test_a_threshold_changes_what_is_listed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["data", "leakage", "--data", str(data_file(tmp_path, IDIOMS)), "--threshold", "0.8"]) == 0

    listed = [line.split()[1] for line in capsys.readouterr().out.splitlines() if line.startswith("  id ")]
    assert listed == ["4", "5"]


def test_the_bundled_sample_lists_its_one_demonstration(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["data", "leakage", "--data", "sample"]) == 0

    out = capsys.readouterr().out
    assert [line for line in out.splitlines() if line.startswith("  id ")] == [
        "  id 17  1.000  «Bán anh em xa, mua láng giềng gần» ~ «Bán anh em xa, mua láng giềng gần»: "
        "explain few-shot demonstration (every prompt)"
    ]


@pytest.mark.parametrize("threshold", ["0.5", "2", "many"])
def test_a_threshold_out_of_range_exits_2_with_the_range(
    threshold: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["data", "leakage", "--data", "sample", "--threshold", threshold]) == 2
    err = capsys.readouterr().err
    assert "leakage_threshold must be a number from 0.6 to 1" in err or "--threshold" in err
    assert "Traceback" not in err


def test_unreadable_data_exits_2_naming_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("not,a,vivid,file\n", encoding="utf-8")

    assert main(["data", "leakage", "--data", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.csv" in err and "Traceback" not in err
