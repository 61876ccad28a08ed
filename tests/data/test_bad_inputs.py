"""Hand-edited inputs: every bad data CSV and human-score file fails with a message naming where.

Each case goes through a public entry point (``load_vivid``, which every task calls, and
``read_human_scores``) and must fail with one message that names the file and the row, line and
column (or header) of each problem, so it can be fixed in one pass. How ``vivid run`` reports them
(exit code 2, nothing written) is in ``test_reliability_runner.py``. Inputs that only
look odd (NFD text, a BOM and CRLF line ends) must load, normalised.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

from vivid_inspect.data import COLUMNS, VividDataError, load_vivid
from vivid_inspect.lab.humans.scores_file import HumanScoresError, read_human_scores

HEADER = ",".join(COLUMNS)
IDIOM, MEANING = COLUMNS[:2]
T1, T2, T3, T4, T5 = COLUMNS[2:7]
THEME = COLUMNS[7]
GOOD_ROW = 'Ăn quả nhớ kẻ trồng cây," Biết ơn người đã giúp mình, đem lại thành quả cho mình.",0.0,0.0,0.0,1.0,1.0,2.0'
ROW_2 = "Nước đổ đầu vịt,Nói mãi mà người nghe chẳng để vào tai.,0.0,0.0,0.0,0.0,1.0,3.0"


def _write(tmp_path: Path, content: str | bytes, name: str = "vivid.csv") -> Path:
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


def _rows(*rows: str, header: str = HEADER) -> str:
    return "\n".join([header, *rows]) + "\n"


DATA_CASES = [
    # the header
    pytest.param(
        _rows(GOOD_ROW, header=HEADER.replace(f",{THEME}", "")),
        f"line 1 (header): missing column(s): {THEME}",
        id="missing-column",
    ),
    pytest.param(
        _rows(GOOD_ROW + ",x", header=HEADER + ",Notes"),
        "line 1 (header): unexpected column(s): 'Notes'",
        id="unexpected-column",
    ),
    pytest.param(
        _rows(GOOD_ROW + ",Ăn", header=HEADER + f",{IDIOM}"),
        f"line 1 (header): repeated column(s): {IDIOM}",
        id="repeated-column",
    ),
    pytest.param(
        _rows(GOOD_ROW, header=HEADER.lower()),
        "line 1 (header): missing column(s)",
        id="header-in-lower-case",
    ),
    # values
    pytest.param(
        _rows(GOOD_ROW, ROW_2.replace(",1.0,3.0", ",2.0,3.0")),
        f"row 2 (line 3), column {T5}: '2.0' is not 0 or 1",
        id="trait-2",
    ),
    pytest.param(
        _rows(GOOD_ROW.replace(",0.0,0.0,0.0,1.0", ",yes,0.0,0.0,1.0")),
        f"row 1 (line 2), column {T1}: 'yes' is not 0 or 1",
        id="trait-word",
    ),
    pytest.param(
        _rows(GOOD_ROW.replace(",1.0,2.0", ",1.0,")),
        f"row 1 (line 2), column {THEME}: '' is not a theme code 1-7",
        id="theme-empty",
    ),
    pytest.param(
        _rows(ROW_2.replace(",3.0", ",8.0")),
        f"row 1 (line 2), column {THEME}: '8.0' is not a theme code 1-7",
        id="theme-8",
    ),
    pytest.param(
        _rows(ROW_2.replace(",3.0", ",2.5")),
        f"row 1 (line 2), column {THEME}: '2.5' is not a theme code 1-7",
        id="theme-2.5",
    ),
    pytest.param(
        _rows(GOOD_ROW, "  ," + ROW_2.split(",", 1)[1]),
        f"row 2 (line 3), column {IDIOM}: empty idiom",
        id="empty-idiom",
    ),
    pytest.param(
        _rows('Nước đổ đầu vịt,"  ",0.0,0.0,0.0,0.0,1.0,3.0'),
        f"row 1 (line 2), column {MEANING}: empty meaning",
        id="empty-meaning",
    ),
    pytest.param(_rows(",,,,,,,"), f"row 1 (line 2), column {IDIOM}: empty idiom", id="row-of-empty-fields"),
    pytest.param(
        _rows("«Nước đổ đầu vịt»" + ROW_2.removeprefix("Nước đổ đầu vịt")),
        f"row 1 (line 2), column {IDIOM}: guillemets",
        id="guillemets-in-idiom",
    ),
    pytest.param(
        _rows(GOOD_ROW, "Nước đổ đầu vịt,Nói mãi, chẳng nghe,0.0,0.0,0.0,0.0,1.0,3.0"),
        "row 2 (line 3): has 9 fields, expected 8",
        id="unquoted-comma",
    ),
    pytest.param(
        _rows(GOOD_ROW, ROW_2.rsplit(",", 1)[0]),
        "row 2 (line 3): has 7 fields, expected 8",
        id="missing-field",
    ),
    *(
        pytest.param(
            _rows(GOOD_ROW, f'"Nước đổ{char}đầu vịt"' + ROW_2.removeprefix("Nước đổ đầu vịt")),
            f"row 2 (line 3), column {IDIOM}: 'Nước đổ",  # the quote ends at a line break: U+0085 is one
            id=f"idiom-control-{ord(char):02x}",
        )
        for char in "\x00\x1b\x07\t\x08\x7f\x85\x9b\r"
    ),
    *(
        pytest.param(
            _rows(f'Nước đổ đầu vịt,"Nói mãi{char} mà chẳng nghe",0.0,0.0,0.0,0.0,1.0,3.0'),
            f"row 1 (line 2), column {MEANING}: ",
            id=f"meaning-control-{ord(char):02x}",
        )
        for char in "\x00\x1b\x0c\x7f"
    ),
    # the file as a whole
    pytest.param("", "the file is empty", id="empty-file"),
    pytest.param(HEADER + "\n", "the file has a header but no data rows", id="header-only"),
    pytest.param(
        _rows(GOOD_ROW, 'Nước đổ đầu vịt,"Nói mãi mà chẳng nghe,0.0,0.0,0.0,0.0,1.0,3.0'),
        "line 3: unreadable CSV (unexpected end of data); is a quote left open?",
        id="truncated-quote-at-end",
    ),
    pytest.param(
        _rows('Nước đổ đầu vịt,"Nói mãi,0.0,0.0,0.0,0.0,1.0,3.0', GOOD_ROW),
        "line 2: unreadable CSV",
        id="truncated-quote-mid-file",
    ),
    pytest.param(
        _rows(GOOD_ROW, f'Dài,"{"rất dài " * 20_000}",0.0,0.0,0.0,0.0,0.0,7.0'),
        "row 2 (line 3), column Meaning: 160,000 characters, more than the 131,072 a field may hold",
        id="huge-field",
    ),
    pytest.param(
        _rows(GOOD_ROW).encode() + b"C\xe0 ph\xea,\xe9,0,0,0,0,0,7\n", "line 3: byte 0x", id="not-utf8"
    ),
]


@pytest.mark.parametrize(("content", "where"), DATA_CASES)
def test_bad_data_file_names_file_and_row(tmp_path: Path, content: str | bytes, where: str) -> None:
    path = _write(tmp_path, content)
    with pytest.raises(VividDataError) as caught:
        load_vivid(str(path))
    message = str(caught.value)
    assert message.startswith(f"{path}: ")
    assert where in message
    if "control" in message:  # one problem, naming row, column, the cell and the character's code point
        assert message.count("holds the control character U+") == 1, message
        assert re.search(
            r"row \d+ \(line \d+\), column \w+: '.*' holds the control character U\+00[0-9A-F]{2};", message
        )


def test_every_problem_of_a_file_is_listed_at_once(tmp_path: Path) -> None:
    path = _write(tmp_path, _rows(GOOD_ROW.replace(",2.0", ",9.0"), ROW_2, ",,0.0,0.0,0.0,0.0,0.0,1.0"))
    with pytest.raises(VividDataError) as caught:
        load_vivid(str(path))
    lines = str(caught.value).splitlines()
    assert lines[0] == f"{path}: 3 problem(s) in the data file:"
    assert [line.split(":")[0].strip() for line in lines[1:]] == [
        f"- row 1 (line 2), column {THEME}",
        f"- row 3 (line 4), column {IDIOM}",
        f"- row 3 (line 4), column {MEANING}",
    ]


def test_missing_data_file_is_named_with_the_ways_to_choose_data(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.csv"
    with pytest.raises(VividDataError, match=rf"^{path}: no such data file\. .*data=sample"):
        load_vivid(str(path))


def test_a_meaning_keeps_its_line_breaks_and_tabs(tmp_path: Path) -> None:
    path = _write(tmp_path, _rows('Nước đổ đầu vịt,"Nói mãi\r\n\tmà chẳng nghe",0.0,0.0,0.0,0.0,1.0,3.0'))
    assert "\tmà chẳng nghe" in str(load_vivid(str(path)).dataset[0].target)


def test_nfd_bom_and_crlf_load_as_nfc(tmp_path: Path) -> None:
    content = _rows(unicodedata.normalize("NFD", GOOD_ROW), ROW_2).replace("\n", "\r\n")
    path = _write(tmp_path, b"\xef\xbb\xbf" + content.encode("utf-8"))
    samples = list(load_vivid(str(path)).dataset)
    assert [s.input for s in samples if s.metadata] == [
        "Ăn quả nhớ kẻ trồng cây",
        "Nước đổ đầu vịt",
    ]
    assert all(unicodedata.is_normalized("NFC", str(s.metadata)) for s in samples)


# -- human score files -----------------------------------------------------------------------------

SCORE_RULE = "score must be a whole number from 0 to 5"

HUMAN_CASES = [
    pytest.param("", "the file is empty", id="empty-file"),
    pytest.param("id,score\n", "no data rows below the header", id="header-only"),
    pytest.param("id,grade\n1,4\n", "header (line 1): missing column(s) 'score'", id="missing-column"),
    pytest.param(
        "id,score,note\n1,4,ok\n", "header (line 1): unexpected column(s) 'note'", id="unexpected-column"
    ),
    pytest.param(
        "id,score,score\n1,4,4\n",
        "header (line 1): column(s) 'score' appear more than once",
        id="repeated-column",
    ),
    pytest.param(
        "id,score\nabc,4\n",
        "data row 1 (line 2), column 'id': id must be an integer, found 'abc'",
        id="id-word",
    ),
    pytest.param(
        "id,score\n1,4\n2.5,3\n",
        "data row 2 (line 3), column 'id': id must be an integer, found '2.5'",
        id="id-fraction",
    ),
    pytest.param(
        "id,score\n1,6\n", f"data row 1 (line 2), column 'score': {SCORE_RULE}, found '6'", id="score-6"
    ),
    pytest.param(
        "id,score\n1,-1\n",
        f"data row 1 (line 2), column 'score': {SCORE_RULE}, found '-1'",
        id="score-negative",
    ),
    pytest.param(
        "id,score\n1,4.5\n",
        f"data row 1 (line 2), column 'score': {SCORE_RULE}, found '4.5'",
        id="score-half",
    ),
    pytest.param(
        "id,score\n1,\n",
        f"data row 1 (line 2), column 'score': {SCORE_RULE}, but it is empty",
        id="score-empty",
    ),
    pytest.param(
        "id,score\n1,bốn\n",
        f"data row 1 (line 2), column 'score': {SCORE_RULE}, found 'bốn'",
        id="score-word",
    ),
    pytest.param(
        "id,score,annotator\n1,4,\n",
        "data row 1 (line 2), column 'annotator': annotator is empty",
        id="annotator-empty",
    ),
    pytest.param(
        "id,score,annotator\n1,4,lan\n1,5,lan\n",
        "data row 2 (line 3), column 'id': id 1 scored by annotator 'lan' again",
        id="same-annotator-twice",
    ),
    pytest.param(
        "id,score\n3,4\n3,5\n",
        "data row 2 (line 3), column 'id': id 3 scored again (first in data row 1, line 2)",
        id="same-id-twice",
    ),
    pytest.param(
        "id,score\n1,4,extra\n",
        "data row 1 (line 2): expected 2 fields (id,score), found 3",
        id="extra-field",
    ),
    pytest.param('id,score\n1,"4\n2,5\n', "data row 1 (line 2)", id="truncated-quote"),
    pytest.param("id,score,annotator\n1,4,H\xe0\n".encode("latin-1"), "not UTF-8 text", id="not-utf8"),
]


@pytest.mark.parametrize(("content", "where"), HUMAN_CASES)
def test_bad_human_scores_name_file_and_row(tmp_path: Path, content: str | bytes, where: str) -> None:
    path = _write(tmp_path, content, name="humans.csv")
    with pytest.raises(HumanScoresError) as caught:
        read_human_scores(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ")
    assert where in message


def test_missing_human_scores_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "absent.csv"
    with pytest.raises(HumanScoresError, match=f"^{path}: human scores file not found"):
        read_human_scores(path)
