"""Reading and validating human score files; human means and the human-human ceiling."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from vivid_inspect.lab.humans.scores_file import HumanScoresError, read_human_scores, whole_number
from vivid_inspect.lab.report.stats.humans import human_ceiling, human_means


def write(tmp_path: Path, content: str | bytes, name: str = "humans.csv") -> Path:
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


def test_reads_a_valid_file(tmp_path: Path) -> None:
    path = write(tmp_path, "id,score,annotator\n1,4,lan\n1,5,minh\n2,0,lan\n3,3.0,minh\n")
    df = read_human_scores(path)
    assert list(df.columns) == ["id", "score", "annotator"]
    assert df["id"].tolist() == [1, 1, 2, 3]
    assert df["score"].tolist() == [4, 5, 0, 3]
    assert df["annotator"].tolist() == ["lan", "minh", "lan", "minh"]
    assert str(df["id"].dtype) == "int64" and str(df["score"].dtype) == "int64"


def test_accepts_bom_crlf_and_no_annotator_column(tmp_path: Path) -> None:
    path = write(tmp_path, b"\xef\xbb\xbfid,score\r\n7,2\r\n8,5\r\n\r\n")
    df = read_human_scores(path)
    assert list(df.columns) == ["id", "score"]
    assert df.to_dict("list") == {"id": [7, 8], "score": [2, 5]}


def test_annotator_names_are_nfc(tmp_path: Path) -> None:
    decomposed = unicodedata.normalize("NFD", "Hương")
    path = write(tmp_path, f"id,score,annotator\n1,4,{decomposed}\n1,3,Hương\n")
    with pytest.raises(HumanScoresError, match="scored by annotator 'Hương' again"):
        read_human_scores(path)


SCORE_RULE = "score must be a whole number from 0 to 5"
DUPLICATE = "id 1 scored by annotator 'lan' again (first in data row 1, line 2)"


@pytest.mark.parametrize(
    "content, expected",
    [
        pytest.param(
            "id,score\n1,4.5\n", f"data row 1 (line 2), column 'score': {SCORE_RULE}, found '4.5'", id="half"
        ),
        pytest.param(
            "id,score\n1,4\n2,six\n",
            f"data row 2 (line 3), column 'score': {SCORE_RULE}, found 'six'",
            id="word",
        ),
        pytest.param(
            "id,score\n1,7\n", f"data row 1 (line 2), column 'score': {SCORE_RULE}, found '7'", id="above-5"
        ),
        pytest.param(
            "id,score\n1,-1\n", f"data row 1 (line 2), column 'score': {SCORE_RULE}, found '-1'", id="below-0"
        ),
        pytest.param(
            "id,score\n1,\n",
            f"data row 1 (line 2), column 'score': {SCORE_RULE}, but it is empty",
            id="empty",
        ),
        pytest.param(
            "id,score\nx1,3\n",
            "data row 1 (line 2), column 'id': id must be an integer, found 'x1'",
            id="id-text",
        ),
        pytest.param(
            "id,score\n2.5,3\n",
            "data row 1 (line 2), column 'id': id must be an integer, found '2.5'",
            id="id-2.5",
        ),
        pytest.param(
            "id,score,annotator\n1,3,\n",
            "data row 1 (line 2), column 'annotator': annotator is empty",
            id="no-annotator",
        ),
        pytest.param(
            "id,score,annotator\n1,3,lan\n2,3,lan\n1,4,lan\n",
            f"data row 3 (line 4), column 'id': {DUPLICATE}",
            id="duplicate-id-annotator",
        ),
        pytest.param(
            "id,score\n5,3\n\n5,4\n",
            "data row 2 (line 4), column 'id': id 5 scored again (first in data row 1, line 2)",
            id="duplicate-id-after-blank-line",
        ),
        pytest.param(
            "id,score\n1,3,extra\n",
            "data row 1 (line 2): expected 2 fields (id,score), found 3",
            id="extra-field",
        ),
        pytest.param(
            'id,score,annotator\n1,3,"lan\nnguyen"\n2,9,lan\n',
            f"data row 2 (line 4), column 'score': {SCORE_RULE}, found '9'",
            id="line-after-multiline-field",
        ),
    ],
)
def test_bad_rows_name_file_row_line_and_column(tmp_path: Path, content: str, expected: str) -> None:
    path = write(tmp_path, content)
    with pytest.raises(HumanScoresError) as caught:
        read_human_scores(path)
    message = str(caught.value)
    assert str(path) in message
    assert expected in message
    assert isinstance(caught.value, ValueError)


def test_all_row_problems_are_reported_at_once(tmp_path: Path) -> None:
    path = write(tmp_path, "id,score,annotator\n1,4.5,lan\nabc,3,lan\n3,six,\n4,2,lan\n")
    with pytest.raises(HumanScoresError) as caught:
        read_human_scores(path)
    problems = [(p.row, p.line, p.column) for p in caught.value.problems]
    assert problems == [(1, 2, "score"), (2, 3, "id"), (3, 4, "score"), (3, 4, "annotator")]
    assert "4 problem(s)" in str(caught.value)


@pytest.mark.parametrize(
    "content, expected",
    [
        pytest.param(
            "id,annotator\n1,lan\n", "header (line 1): missing column(s) 'score'", id="missing-score-column"
        ),
        pytest.param(
            "id,score,Score,note\n1,3,3,x\n", "unexpected column(s) 'Score', 'note'", id="unexpected-columns"
        ),
        pytest.param(
            "id,score,score\n1,3,3\n", "column(s) 'score' appear more than once", id="repeated-column"
        ),
        pytest.param("", "the file is empty", id="empty-file"),
        pytest.param("id,score\n", "no data rows below the header", id="header-only"),
        pytest.param(b"id,score\n1,\xff\n", "not UTF-8 text", id="not-utf8"),
    ],
)
def test_bad_files_name_the_file(tmp_path: Path, content: str | bytes, expected: str) -> None:
    path = write(tmp_path, content)
    with pytest.raises(HumanScoresError) as caught:
        read_human_scores(path)
    assert str(path) in str(caught.value)
    assert expected in str(caught.value)


def test_missing_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.csv"
    with pytest.raises(HumanScoresError, match=r"nowhere\.csv: human scores file not found"):
        read_human_scores(path)


def test_human_means_average_over_annotators() -> None:
    df = pd.DataFrame(
        {"id": [2, 1, 1, 2, 3], "score": [4, 3, 4, 4, 0], "annotator": ["a", "a", "b", "b", "a"]}
    )
    assert human_means(df) == {1: 3.5, 2: 4.0, 3: 0.0}


def test_human_means_needs_id_and_score() -> None:
    with pytest.raises(ValueError, match="lack column"):
        human_means(pd.DataFrame({"id": [1]}))


def test_human_ceiling_compares_the_first_two_annotators_on_shared_items() -> None:
    df = pd.DataFrame(
        {
            "id": [1, 2, 3, 4, 1, 2, 3, 5, 1],
            "score": [5, 3, 2, 4, 5, 2, 2, 1, 0],
            "annotator": ["lan", "lan", "lan", "lan", "binh", "binh", "binh", "binh", "tuan"],
        }
    )
    result = human_ceiling(df, n_boot=200)
    assert result is not None and result.n == 3
    # "binh" sorts first, so binh is in the human's place and lan in the judge's.
    assert result.kappa == pytest.approx(cohen_kappa_score([5, 2, 2], [5, 3, 2], labels=list(range(6))))
    assert result.human_mean == pytest.approx(3.0) and result.judge_mean == pytest.approx(10 / 3)
    assert result.notes[0] == (
        "annotator 'lan' is in the judge's place (columns), annotator 'binh' in the human's (rows)"
    )
    assert "annotators 'tuan' left out" in result.notes[1]


@pytest.mark.parametrize(
    "df",
    [
        pytest.param(pd.DataFrame({"id": [1, 2], "score": [3, 4], "annotator": ["a", "b"]}), id="no-overlap"),
        pytest.param(
            pd.DataFrame({"id": [1, 2], "score": [3, 4], "annotator": ["a", "a"]}), id="one-annotator"
        ),
        pytest.param(pd.DataFrame({"id": [1, 2], "score": [3, 4]}), id="no-annotator-column"),
    ],
)
def test_human_ceiling_is_none_without_two_annotators_on_one_item(df: pd.DataFrame) -> None:
    assert human_ceiling(df, n_boot=200) is None


def test_human_ceiling_rejects_an_annotator_scoring_twice() -> None:
    df = pd.DataFrame({"id": [1, 1, 1], "score": [3, 4, 3], "annotator": ["a", "a", "b"]})
    with pytest.raises(ValueError, match="annotator 'a' scored id 1 more than once"):
        human_ceiling(df)


def test_read_then_ceiling_end_to_end(tmp_path: Path) -> None:
    # 200 items: kappa's interval is printed from 100 (intervals.RULES).
    rows = "\n".join(f"{i},{i % 6},a\n{i},{(i + (i % 3 == 0)) % 6},b" for i in range(1, 201))
    df = read_human_scores(write(tmp_path, f"id,score,annotator\n{rows}\n"))
    result = human_ceiling(df, n_boot=200)
    assert result is not None and result.n == 200
    assert result.kappa_lo is not None and result.kappa_lo <= result.kappa <= result.kappa_hi
    assert len(human_means(df)) == 200


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        pytest.param("4", 4, id="plain"),
        pytest.param("4.0", 4, id="spreadsheet-float"),
        pytest.param("4.", 4, id="trailing-point"),
        pytest.param("+4", 4, id="plus-sign"),
        pytest.param("-1", -1, id="negative-is-read-then-range-checked"),
        pytest.param("4.5", None, id="half"),
        pytest.param("1e0", None, id="exponent"),
        pytest.param("4_0", None, id="underscore-digits"),
        pytest.param("four", None, id="word"),
        pytest.param("", None, id="empty"),
    ],
)
def test_one_whole_number_rule_for_every_reader_of_ids_and_scores(cell: str, expected: int | None) -> None:
    # Human scores files, annotation sheets and the annotation server all read cells with this rule.
    assert whole_number(cell) == expected


# --- absurd ids: the file and the row, never a traceback -------------------------------------------

FIVE_THOUSAND_DIGITS = "7" * 5000
ABSURD_IDS = {
    "5000-digits": (FIVE_THOUSAND_DIGITS, "found a number of 5,000 digits"),
    "19-digits": ("1" * 19, "found a number of 19 digits"),
    "above-the-largest": (
        str(10**15),
        "id must be an integer from 1 to 999,999,999,999,999, found '1000000000000000'",
    ),
    "zero": ("0", "id must be an integer from 1 to 999,999,999,999,999, found '0'"),
    "negative": ("-3", "id must be an integer from 1 to 999,999,999,999,999, found '-3'"),
    "negative-zero": ("-0", "found '-0'"),
    "fraction": ("2.5", "id must be an integer, found '2.5'"),
    "exponent": ("1e3", "id must be an integer, found '1e3'"),
    "infinity": ("inf", "id must be an integer, found 'inf'"),
    "nan": ("nan", "id must be an integer, found 'nan'"),
    "blank": ("", "id must be an integer, but it is empty"),
    "spaces": ("   ", "id must be an integer, but it is empty"),
    "arabic-indic-digits": ("\u0663\u0664", "id must be an integer written with the digits 0-9, found '٣٤'"),
    "full-width-digits": ("\uff13", "id must be an integer written with the digits 0-9, found '３'"),
    "devanagari-digits": ("\u0967\u0968", "written with the digits 0-9"),
    "superscript": ("\u00b2", "id must be an integer written with the digits 0-9, found '²'"),
    "hex": ("0x10", "id must be an integer, found '0x10'"),
    "underscores": ("1_000", "id must be an integer, found '1_000'"),
    "thousands-comma": ('"1,000"', "id must be an integer, found '1,000'"),
    "unicode-minus": ("\u22123", "id must be an integer, found '−3'"),
    "zero-width-space": ("\u200b7", "id must be an integer, found '\\u200b7'"),
}


@pytest.mark.parametrize(("cell", "said"), list(ABSURD_IDS.values()), ids=list(ABSURD_IDS))
def test_an_absurd_id_names_the_file_the_row_and_what_it_is(tmp_path: Path, cell: str, said: str) -> None:
    path = write(tmp_path, f"id,score,annotator\n1,4,lan\n{cell},3,lan\n")
    with pytest.raises(HumanScoresError) as caught:
        read_human_scores(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: 1 problem(s)")
    assert "data row 2 (line 3), column 'id': " in message and said in message
    assert all(len(line) < 300 for line in message.splitlines())  # a 5,000-digit cell is quoted short


@pytest.mark.parametrize(
    "cell", [FIVE_THOUSAND_DIGITS, "9" * 4300, "\u0665" * 50, "1" * 19], ids=["5000", "4300", "arabic", "19"]
)
def test_an_absurd_score_is_refused_the_same_way(tmp_path: Path, cell: str) -> None:
    path = write(tmp_path, f"id,score\n1,{cell}\n")
    with pytest.raises(
        HumanScoresError, match=r"data row 1 \(line 2\), column 'score': score must be a whole number"
    ):
        read_human_scores(path)


def test_the_largest_id_is_read(tmp_path: Path) -> None:
    df = read_human_scores(write(tmp_path, "id,score\n999999999999999,4\n+12,3\n7.0,2\n"))
    assert df["id"].tolist() == [999_999_999_999_999, 12, 7]


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        pytest.param("7" * 18, int("7" * 18), id="18-digits"),
        pytest.param("7" * 19, None, id="19-digits"),
        pytest.param(FIVE_THOUSAND_DIGITS, None, id="5000-digits"),
        pytest.param("\u0663", None, id="arabic-indic"),
        pytest.param("\uff14", None, id="full-width"),
        pytest.param("4.\u0660", None, id="arabic-zero-fraction"),
        pytest.param("-", None, id="sign-only"),
        pytest.param(".0", None, id="point-zero"),
    ],
)
def test_the_whole_number_rule_reads_ascii_digits_only_and_at_most_18(
    cell: str, expected: int | None
) -> None:
    assert whole_number(cell) == expected


# --- one annotator, one spelling ------------------------------------------------------------------------

SPELLINGS = {
    "case": ("Lan", "lan"),
    "upper-case": ("lan", "LAN"),
    "zero-width-space": ("Lan", "La\u200bn"),
    "zero-width-joiner": ("Lan", "L\u200dan"),
    "byte-order-mark": ("Lan", "\ufeffLan"),
    "soft-hyphen": ("Lan", "La\u00adn"),
    "direction-mark": ("Lan", "Lan\u200e"),
    "full-width": ("Lan", "Ｌａｎ"),
    "no-break-space": ("Nguyễn Lan", "Nguyễn\u00a0Lan"),
    "double-space": ("Nguyễn Lan", "Nguyễn  Lan"),
    "case-and-nfd": ("Hương", unicodedata.normalize("NFD", "hương")),
    "cyrillic-a": ("an", "\u0430n"),
    "cyrillic-a-first": ("\u0430n", "an"),
    "cyrillic-in-a-vietnamese-name": ("Lan", "L\u0430n"),
    "cyrillic-capitals": ("Hoa", "\u041d\u043e\u0430"),
    "cyrillic-whole-name": ("Apa", "\u0410\u0440\u0430"),
    "cyrillic-with-a-mark": ("Lân", "L\u0430\u0302n"),
    "greek-capitals": ("Kim", "\u039aim"),
    "greek-omicron": ("Son", "S\u03bfn"),
    # default-ignorable but not format characters: a mark that joins nothing, fillers, selectors
    "grapheme-joiner": ("an", "an\u034f"),
    "variation-selector": ("Lan", "La\ufe0fn"),
    "hangul-filler": ("Lan", "\u3164Lan"),
}


@pytest.mark.parametrize(("first", "second"), list(SPELLINGS.values()), ids=list(SPELLINGS))
def test_two_spellings_of_one_annotator_are_refused_naming_both(
    tmp_path: Path, first: str, second: str
) -> None:
    path = write(tmp_path, f"id,score,annotator\n1,4,{first}\n2,3,x\n3,5,{second}\n")
    with pytest.raises(HumanScoresError) as caught:
        read_human_scores(path)
    message = str(caught.value)
    assert "data row 3 (line 4), column 'annotator': " in message
    assert repr(unicodedata.normalize("NFC", second).strip()) in message and repr(first) in message
    assert "(first in data row 1)" in message


def test_nfd_and_nfc_are_one_spelling_of_one_annotator(tmp_path: Path) -> None:
    decomposed = unicodedata.normalize("NFD", "Hương")
    df = read_human_scores(write(tmp_path, f"id,score,annotator\n1,4,{decomposed}\n2,3,Hương\n"))
    assert df["annotator"].tolist() == ["Hương", "Hương"]


def test_different_letters_are_different_annotators(tmp_path: Path) -> None:
    df = read_human_scores(
        write(tmp_path, "id,score,annotator\n1,4,Lan\n1,3,Lân\n1,2,Lan2\n1,1,Đào\n1,0,Dao\n1,5,Лан\n")
    )
    assert df["annotator"].tolist() == ["Lan", "Lân", "Lan2", "Đào", "Dao", "Лан"]


@pytest.mark.parametrize("cell", ["\u200b", "\ufeff\u200d", "\u00ad"], ids=["zwsp", "bom-zwj", "soft-hyphen"])
def test_an_annotator_of_invisible_characters_only_is_refused(tmp_path: Path, cell: str) -> None:
    with pytest.raises(HumanScoresError, match="column 'annotator': annotator .* has no visible character"):
        read_human_scores(write(tmp_path, f"id,score,annotator\n1,4,{cell}\n"))


def test_the_server_and_the_files_share_one_rule() -> None:
    from vivid_inspect.lab.humans.annotate.queues import check_annotators

    for first, second in SPELLINGS.values():
        if (
            " " in first
            or "\u00a0" in second
            or any(c in second for c in "\u200b\u200d\ufeff\u00ad\u200e\u0302\u034f\ufe0f")
        ):
            continue  # not a valid server name at all (a file name): refused for that reason
        assert any(
            "is named twice" in p for p in check_annotators([first, unicodedata.normalize("NFC", second)])
        )


# --- a second score by one annotator for one item -----------------------------------------------------


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        pytest.param(
            "1,4,lan\n2,3,lan\n1,5,lan\n",
            "data row 3 (line 4), column 'id': id 1 scored by annotator 'lan' again (first in data row 1, line 2)",
            id="same-spelling",
        ),
        pytest.param(
            "7,4,Hương\n8,3,minh\n7,5," + unicodedata.normalize("NFD", "Hương") + "\n",
            "data row 3 (line 4), column 'id': id 7 scored by annotator 'Hương' again (first in data row 1, line 2)",
            id="nfd-of-the-same-name",
        ),
        pytest.param(
            '1,4,"lan"\n\n"2",3,minh\n"1",4,lan\n',
            "data row 3 (line 5), column 'id': id 1 scored by annotator 'lan' again (first in data row 1, line 2)",
            id="quoted-after-a-blank-line",
        ),
        pytest.param(
            '1,4,lan\n2,3,"a\nb"\n1.0,4,lan\n',
            "data row 3 (line 5), column 'id': id 1 scored by annotator 'lan' again (first in data row 1, line 2)",
            id="after-a-multiline-cell-and-written-as-a-float",
        ),
        pytest.param(
            "3,4,lan\n3,4,minh\n3,2,lan\n",
            "data row 3 (line 4), column 'id': id 3 scored by annotator 'lan' again (first in data row 1, line 2)",
            id="interleaved",
        ),
    ],
)
def test_a_second_score_by_one_annotator_names_the_file_both_rows_the_annotator_and_the_item(
    tmp_path: Path, rows: str, expected: str
) -> None:
    path = write(tmp_path, "id,score,annotator\n" + rows)
    with pytest.raises(HumanScoresError) as caught:
        read_human_scores(path)
    assert str(caught.value).startswith(f"{path}: ") and expected in str(caught.value)


def test_every_repeat_is_counted_and_the_first_listed_in_row_order(tmp_path: Path) -> None:
    rows = "".join(f"{i % 100 + 1},{i % 6},lan\n" for i in range(1000))  # 900 repeats
    path = write(tmp_path, "id,score,annotator\n" + rows + "abc,9,\n")
    with pytest.raises(HumanScoresError) as caught:
        read_human_scores(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: 903 problem(s)") and "… and 853 more" in message
    assert [p.row for p in caught.value.problems][:3] == [101, 102, 103] and len(caught.value.problems) == 50


def test_a_file_of_a_hundred_thousand_bad_rows_holds_fifty_messages(tmp_path: Path) -> None:
    path = write(tmp_path, "id,score\n" + "x,9\n" * 100_000)
    with pytest.raises(HumanScoresError) as caught:
        read_human_scores(path)
    assert len(caught.value.problems) == 50 and "200,000 problem(s)" in str(caught.value)
    assert "… and 199,950 more" in str(caught.value)
