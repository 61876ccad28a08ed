"""Annotation sheets read by `vivid annotate import` and `vivid annotate serve`: one rule with the scores files.

The same absurd ids (5,000 digits, zero, negative, fractions, other scripts' digits) and the same
annotator spellings are refused in a filled sheet, in the sheet a server serves and in an
annotator's own sheet, each naming the file and the row; a second score by one annotator for one
item is refused within a sheet and across sheets. Nothing is written when a sheet is refused.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from tests.lab.humans.test_humans import ABSURD_IDS, SPELLINGS
from vivid_inspect.lab.cli.main import main
from vivid_inspect.lab.humans.annotate.items import read_sheet
from vivid_inspect.lab.humans.annotate.workspace import _read_scores
from vivid_inspect.lab.humans.scores_file import HumanScoresError
from vivid_inspect.lab.humans.sheet_import import import_sheets


def sheet(folder: Path, name: str, rows: str, header: str = "id,score,annotator") -> Path:
    path = folder / name
    path.write_text(f"{header}\n{rows}", encoding="utf-8")
    return path


@pytest.mark.parametrize(("cell", "said"), list(ABSURD_IDS.values()), ids=list(ABSURD_IDS))
def test_import_refuses_an_absurd_id_naming_the_sheet_and_row(
    tmp_path: Path, cell: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    filled = sheet(tmp_path, "lan.csv", f"1,4,lan\n{cell},3,lan\n")
    out = tmp_path / "humans.csv"
    assert main(["annotate", "import", str(filled), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{filled}: 1 problem(s)" in err and "data row 2 (line 3), column 'id': " in err and said in err
    assert "Traceback" not in err and all(len(line) < 300 for line in err.splitlines())
    assert not out.exists()


@pytest.mark.parametrize(("cell", "said"), list(ABSURD_IDS.values()), ids=list(ABSURD_IDS))
def test_the_server_refuses_an_absurd_id_in_the_sheet_it_serves(tmp_path: Path, cell: str, said: str) -> None:
    served = sheet(
        tmp_path,
        "sheet.csv",
        f"1,Ăn quả,Biết ơn,Ý nói\n{cell},Nước chảy,Kiên trì,Ý nói\n",
        "id,idiom,reference_meaning,explanation",
    )
    with pytest.raises(HumanScoresError) as caught:
        read_sheet(served)
    assert "data row 2 (line 3), column 'id': " in str(caught.value) and said in str(caught.value)


@pytest.mark.parametrize(("cell", "said"), list(ABSURD_IDS.values()), ids=list(ABSURD_IDS))
def test_an_annotators_own_sheet_with_an_absurd_id_is_named(tmp_path: Path, cell: str, said: str) -> None:
    own = sheet(tmp_path, "lan.csv", f"1,4,lan\n{cell},3,lan\n")
    with pytest.raises(HumanScoresError) as caught:
        _read_scores(own, {1, 2})
    assert "data row 2 (line 3), column 'id': " in str(caught.value) and said in str(caught.value)


@pytest.mark.parametrize(("first", "second"), list(SPELLINGS.values()), ids=list(SPELLINGS))
def test_import_refuses_two_spellings_of_one_annotator_across_sheets(
    tmp_path: Path, first: str, second: str
) -> None:
    one = sheet(tmp_path, "one.csv", f"1,4,{first}\n")
    two = sheet(tmp_path, "two.csv", f"2,3,{second}\n")
    out = tmp_path / "humans.csv"
    with pytest.raises(ValueError) as caught:
        import_sheets([one, two], out)
    message = str(caught.value)
    assert f"{two}: 1 problem(s)" in message and "data row 1 (line 2), column 'annotator'" in message
    assert repr(unicodedata.normalize("NFC", second).strip()) in message and repr(first) in message
    assert "(first in one.csv data row 1)" in message
    assert not out.exists()


def test_import_refuses_sheets_named_two_spellings_of_one_annotator(tmp_path: Path) -> None:
    # Rows without an annotator are the sheet's file name's: Lan.csv and lan.csv are one annotator.
    one = sheet(tmp_path, "Lan.csv", "1,4\n", header="id,score")
    folder = tmp_path / "other"
    folder.mkdir()
    two = sheet(folder, "lan.csv", "2,3\n", header="id,score")
    with pytest.raises(ValueError, match=r"annotator 'lan' is 'Lan' written differently"):
        import_sheets([one, two], tmp_path / "humans.csv")


@pytest.mark.parametrize(
    ("sheets", "expected"),
    [
        pytest.param(
            {"lan.csv": "1,4,lan\n2,3,lan\n1,5,lan\n"},
            "lan.csv: 1 problem(s) in human scores file:\n  - data row 3 (line 4), column 'id': id 1 scored again by 'lan' (first in lan.csv data row 1)",
            id="within-a-sheet",
        ),
        pytest.param(
            {"a.csv": "1,4,lan\n", "b.csv": "2,4,minh\n1,2,lan\n"},
            "b.csv: 1 problem(s) in human scores file:\n  - data row 2 (line 3), column 'id': id 1 scored again by 'lan' (first in a.csv data row 1)",
            id="across-sheets",
        ),
        pytest.param(
            {"a.csv": "1,4,Hương\n", "b.csv": "1,2," + unicodedata.normalize("NFD", "Hương") + "\n"},
            "id 1 scored again by 'Hương' (first in a.csv data row 1)",
            id="nfd-across-sheets",
        ),
        pytest.param(
            {"lan.csv": "1,4\n", "copy.csv": "1,4,lan\n"},
            "id 1 scored again by 'lan' (first in lan.csv data row 1)",
            id="the-file-name-and-a-cell",
        ),
    ],
)
def test_import_refuses_a_second_score_by_one_annotator_for_one_item(
    tmp_path: Path, sheets: dict[str, str], expected: str
) -> None:
    paths = [sheet(tmp_path, name, rows) for name, rows in sheets.items()]
    with pytest.raises(ValueError) as caught:
        import_sheets(paths, tmp_path / "humans.csv")
    assert expected in str(caught.value)
    assert not (tmp_path / "humans.csv").exists()


def test_an_annotators_own_sheet_that_lists_an_item_twice_is_refused(tmp_path: Path) -> None:
    own = sheet(tmp_path, "lan.csv", "1,4,lan\n2,,lan\n1,5,lan\n")
    with pytest.raises(
        HumanScoresError,
        match=r"data row 3 \(line 4\), column 'id': id 1 appears again \(first in data row 1, line 2\)",
    ):
        _read_scores(own, {1, 2})


def test_a_sheet_of_many_bad_rows_lists_fifty_and_counts_the_rest(tmp_path: Path) -> None:
    filled = sheet(tmp_path, "lan.csv", "x,9,lan\n" * 20_000)
    with pytest.raises(ValueError) as caught:
        import_sheets([filled], tmp_path / "humans.csv")
    message = str(caught.value)
    assert "40,000 problem(s)" in message and "… and 39,950 more" in message
    assert message.count("\n  - ") == 50
