"""Reading and validating VIVID CSV files in the real release's format, and the samples they become."""

from __future__ import annotations

import csv
import io
import logging
import unicodedata
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from tests.warnings_as_errors import warnings_as_errors
from vivid_inspect.data import (
    COLUMNS,
    VividDataError,
    VividItem,
    _load_cached,
    load_vivid,
)
from vivid_inspect.data.csv_format import parse_vivid_csv
from vivid_inspect.taxonomy import THEME_BY_CODE, THEME_NAMES, TRAIT_NAMES

FIXTURES = Path(__file__).parents[1] / "fixtures" / "data"
GOOD = FIXTURES / "good.csv"
BAD_ROWS = FIXTURES / "bad_rows.csv"
DUPLICATES = FIXTURES / "duplicate_idioms.csv"

HEADER = ",".join(COLUMNS)
T1, T2, T3, T4, T5 = COLUMNS[2:7]

# What good.csv must load as: (id, idiom, meaning, theme_id, theme, trait_ids, traits).
GOOD_ITEMS = [
    (
        1,
        "Gieo gió gặt bão",
        "Ai gây ra điều ác thì sẽ phải gánh lấy hậu quả còn nặng nề hơn gấp bội.",
        6,
        "Life Lessons",
        [],
        [],
    ),
    (
        2,
        "Ăn có nơi, chốn có chỗ",
        "Sống có nền nếp, làm gì cũng đâu ra đấy và biết giữ ý tứ.",
        2,
        "Virtues",
        [],
        [],
    ),
    (
        3,
        "Mẹ tròn con vuông",
        "( Tròn, vuông : trọn vẹn, đầy đủ.) Lời chúc người mẹ sinh nở bình an và đứa trẻ ra đời khoẻ mạnh.",
        5,
        "Social Relationships",
        [3],
        ["Uncommon vocabulary"],
    ),
    (
        4,
        "Thuận vợ thuận chồng tát biển Đông cũng cạn",
        "Vợ chồng đã “một lòng một dạ” thì việc khó đến mấy cũng làm xong. ( cd )",
        1,
        "Love",
        [4, 5],
        ["Folk knowledge", "Pragmatic nuance"],
    ),
    (
        5,
        "Tứ hải giai huynh đệ",
        "( Tứ hải : bốn biển; giai : đều; huynh đệ : anh em.) Người ở khắp nơi đều coi nhau như anh em một nhà.",
        7,
        "Other",
        [1, 2, 3, 4, 5],
        ["Literal", "Sino-Vietnamese", "Uncommon vocabulary", "Folk knowledge", "Pragmatic nuance"],
    ),
    (
        6,
        "Trông mặt mà bắt hình dong",
        "( Hình dong : dáng vẻ bề ngoài.) Chỉ nhìn vẻ ngoài mà vội đánh giá con người, dễ nhầm lẫn.",
        3,
        "Criticism",
        [3, 5],
        ["Uncommon vocabulary", "Pragmatic nuance"],
    ),
    (
        7,
        "Mưa tháng Ba hoa đất",
        "Mưa vào tháng Ba âm lịch rất quý cho cây trồng như hoa của đất.",
        4,
        "Work and Nature",
        [1, 4],
        ["Literal", "Folk knowledge"],
    ),
]
GOOD_IDS = [row[0] for row in GOOD_ITEMS]

# A valid row to build bad files from; each case below spoils one cell of it.
BASE_ROW = {
    "Idiom_Proverb": "Nước chảy chỗ trũng",
    "Meaning": " Của cải thường dồn về nơi đã sẵn của, người giàu càng thêm giàu.",
    T1: "0.0",
    T2: "0.0",
    T3: "0.0",
    T4: "0.0",
    T5: "1.0",
    "Semantic_Theme": "3.0",
}


@pytest.fixture(autouse=True)
def fresh_loader(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test reads its files anew, whatever ran before it."""
    monkeypatch.delenv("VIVID_DATA", raising=False)
    _load_cached.cache_clear()
    yield
    _load_cached.cache_clear()


def csv_text(rows: Sequence[dict[str, str]], columns: Sequence[str] = COLUMNS) -> str:
    """A CSV file as the release writes it: quotes only where needed, LF line ends."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([row.get(column, "") for column in columns])
    return out.getvalue()


def spoilt(column: str, value: str) -> dict[str, str]:
    return {**BASE_ROW, column: value}


def write(tmp_path: Path, content: str | bytes, name: str = "vivid.csv") -> Path:
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


def load_error(path: Path) -> str:
    with pytest.raises(VividDataError) as caught:
        load_vivid(str(path))
    return str(caught.value)


def summary(items: Sequence[VividItem]) -> list[tuple[int, str, str, int, tuple[int, ...]]]:
    return [(item.id, item.idiom, item.meaning, item.theme_id, item.trait_ids) for item in items]


def parse_file(path: Path) -> list[VividItem]:
    return parse_vivid_csv(path.read_bytes(), str(path))


# --- a good file -------------------------------------------------------------------------------


def test_good_fixture_loads_every_row_with_exact_fields() -> None:
    loaded = load_vivid(str(GOOD))

    got = [
        (
            s.id,
            s.input,
            s.target,
            s.metadata["theme_id"],
            s.metadata["theme"],
            s.metadata["trait_ids"],
            s.metadata["traits"],
        )
        for s in loaded.dataset
    ]
    expected = [
        (i, idiom, meaning, tid, theme, tids, traits)
        for i, idiom, meaning, tid, theme, tids, traits in GOOD_ITEMS
    ]
    assert got == expected
    assert loaded.source == str(GOOD)
    assert loaded.left_out == []


def test_sample_metadata_has_exactly_the_documented_keys() -> None:
    sample = load_vivid(str(GOOD)).dataset[3]

    assert sample.id == 4
    assert sample.input == "Thuận vợ thuận chồng tát biển Đông cũng cạn"
    assert sample.target == "Vợ chồng đã “một lòng một dạ” thì việc khó đến mấy cũng làm xong. ( cd )"
    # The idiom and meaning are the input and target, never repeated in the metadata.
    assert sample.metadata == {
        "theme": "Love",
        "theme_id": 1,
        "traits": ["Folk knowledge", "Pragmatic nuance"],
        "trait_ids": [4, 5],
    }
    assert isinstance(sample.id, int)


@pytest.mark.parametrize(
    ("sample_id", "idiom", "meaning_start"),
    [
        pytest.param(1, "Gieo gió gặt bão", "Ai gây", id="quoted-meaning-leading-space-stripped"),
        pytest.param(7, "Mưa tháng Ba hoa đất", "Mưa vào", id="unquoted-meaning-leading-space-stripped"),
        pytest.param(2, "Ăn có nơi, chốn có chỗ", "Sống có", id="quoted-comma-kept-in-idiom"),
        pytest.param(3, "Mẹ tròn con vuông", "( Tròn, vuông : trọn vẹn, đầy đủ.) Lời", id="gloss-kept"),
        pytest.param(5, "Tứ hải giai huynh đệ", "( Tứ hải : bốn biển;", id="gloss-with-semicolons-kept"),
    ],
)
def test_text_fields_keep_their_content(sample_id: int, idiom: str, meaning_start: str) -> None:
    by_id = {s.id: s for s in load_vivid(str(GOOD)).dataset}

    sample = by_id[sample_id]
    assert sample.input == idiom
    assert sample.target.startswith(meaning_start)
    assert sample.target == sample.target.strip()


def test_typographic_quotes_and_source_tag_survive() -> None:
    meaning = load_vivid(str(GOOD)).dataset[3].target

    assert "“một lòng một dạ”" in meaning
    assert meaning.endswith("( cd )")


def test_items_record_the_line_where_each_row_starts() -> None:
    items = parse_file(GOOD)

    assert [item.line for item in items] == [2, 3, 4, 5, 6, 7, 8]


def test_columns_in_another_order_are_read_by_name(tmp_path: Path) -> None:
    shuffled = [COLUMNS[-1], *reversed(COLUMNS[:-1])]
    path = write(tmp_path, csv_text([spoilt(T2, "1.0")], columns=shuffled))

    (item,) = parse_file(path)
    assert (item.idiom, item.theme_id, item.trait_ids) == ("Nước chảy chỗ trũng", 3, (2, 5))


@pytest.mark.parametrize(
    "written",
    [
        pytest.param("1", id="int"),
        pytest.param("1.00", id="two-decimals"),
        pytest.param(" 1.0 ", id="padded"),
    ],
)
def test_other_spellings_of_a_code_are_accepted(tmp_path: Path, written: str) -> None:
    path = write(tmp_path, csv_text([{**BASE_ROW, T1: written, "Semantic_Theme": written}]))

    (item,) = parse_file(path)
    assert (item.theme_id, item.trait_ids) == (1, (1, 5))


# --- encodings and line ends -------------------------------------------------------------------


def test_utf8_bom_is_ignored(tmp_path: Path) -> None:
    path = write(tmp_path, b"\xef\xbb\xbf" + GOOD.read_bytes())

    assert summary(parse_file(path)) == summary(parse_file(GOOD))


def test_crlf_line_ends_load_like_lf(tmp_path: Path) -> None:
    crlf = GOOD.read_bytes().replace(b"\n", b"\r\n")
    assert crlf.count(b"\r\n") == 8
    path = write(tmp_path, crlf)

    items = parse_file(path)
    assert summary(items) == summary(parse_file(GOOD))
    assert [item.line for item in items] == [2, 3, 4, 5, 6, 7, 8]
    assert not any("\r" in item.meaning for item in items)


def test_nfd_input_comes_out_nfc(tmp_path: Path) -> None:
    nfd = unicodedata.normalize("NFD", GOOD.read_text(encoding="utf-8"))
    assert nfd != GOOD.read_text(encoding="utf-8")
    path = write(tmp_path, nfd)

    samples = list(load_vivid(str(path)).dataset)
    for sample, (_, idiom, meaning, *_rest) in zip(samples, GOOD_ITEMS, strict=True):
        assert sample.input == unicodedata.normalize("NFC", idiom)
        assert sample.input == idiom
        assert sample.target == meaning
        assert unicodedata.is_normalized("NFC", sample.input)
        assert unicodedata.is_normalized("NFC", sample.target)


def test_blank_lines_are_skipped_without_shifting_ids(tmp_path: Path) -> None:
    lines = GOOD.read_text(encoding="utf-8").splitlines(keepends=True)
    # A blank line after data row 2, and a whitespace-only one after data row 5.
    with_blanks = "".join([*lines[:3], "\n", *lines[3:6], "   \n", *lines[6:], "\n"])
    path = write(tmp_path, with_blanks)

    items = parse_file(path)
    assert summary(items) == summary(parse_file(GOOD))
    assert [item.id for item in items] == GOOD_IDS
    assert [item.line for item in items] == [2, 3, 5, 6, 7, 9, 10]


def test_multiline_meaning_keeps_later_line_numbers_right(tmp_path: Path) -> None:
    two_lines = spoilt("Meaning", "Dòng thứ nhất,\ndòng thứ hai.")
    bad = spoilt("Semantic_Theme", "9.0")
    path = write(tmp_path, csv_text([two_lines, bad]))

    message = load_error(path)
    assert "row 2 (line 4), column Semantic_Theme: '9.0' is not a theme code 1-7" in message


# --- validation errors -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("column", "value", "problem"),
    [
        pytest.param(T2, "2.0", f"column {T2}: '2.0' is not 0 or 1", id="trait-2.0"),
        pytest.param(T4, "yes", f"column {T4}: 'yes' is not 0 or 1", id="trait-yes"),
        pytest.param(T1, "", f"column {T1}: '' is not 0 or 1", id="trait-empty"),
        pytest.param(T5, "0.5", f"column {T5}: '0.5' is not 0 or 1", id="trait-half"),
        pytest.param(
            "Semantic_Theme", "0.0", "column Semantic_Theme: '0.0' is not a theme code 1-7", id="theme-0"
        ),
        pytest.param(
            "Semantic_Theme", "8.0", "column Semantic_Theme: '8.0' is not a theme code 1-7", id="theme-8"
        ),
        pytest.param(
            "Semantic_Theme", "3.5", "column Semantic_Theme: '3.5' is not a theme code 1-7", id="theme-3.5"
        ),
        pytest.param(
            "Semantic_Theme", "", "column Semantic_Theme: '' is not a theme code 1-7", id="theme-empty"
        ),
        pytest.param("Idiom_Proverb", "", "column Idiom_Proverb: empty idiom", id="idiom-empty"),
        pytest.param("Idiom_Proverb", "   ", "column Idiom_Proverb: empty idiom", id="idiom-blank"),
        pytest.param("Meaning", "", "column Meaning: empty meaning", id="meaning-empty"),
        pytest.param("Meaning", "  ", "column Meaning: empty meaning", id="meaning-blank"),
    ],
)
def test_bad_cell_is_named_by_file_row_line_and_column(
    tmp_path: Path, column: str, value: str, problem: str
) -> None:
    path = write(tmp_path, csv_text([BASE_ROW, spoilt(column, value)]))

    message = load_error(path)
    assert message.startswith(f"{path}: 1 problem(s) in the data file:")
    assert f"row 2 (line 3), {problem}" in message


@pytest.mark.parametrize(
    ("header", "problem"),
    [
        pytest.param(
            [c for c in COLUMNS if c != "Semantic_Theme"], "missing column(s): Semantic_Theme", id="missing"
        ),
        pytest.param([*COLUMNS, "Notes"], "unexpected column(s): 'Notes'", id="unexpected"),
        pytest.param([*COLUMNS, "Meaning"], "repeated column(s): Meaning", id="repeated"),
        pytest.param(
            ["Idiom", *COLUMNS[1:]],
            "missing column(s): Idiom_Proverb; unexpected column(s): 'Idiom'",
            id="renamed",
        ),
    ],
)
def test_bad_header_is_named_by_file_line_and_column(tmp_path: Path, header: list[str], problem: str) -> None:
    path = write(tmp_path, csv_text([BASE_ROW], columns=header))

    message = load_error(path)
    assert message.startswith(f"{path}: line 1 (header): {problem}.")
    assert f"Expected exactly: {', '.join(COLUMNS)}" in message


def test_non_utf8_bytes_name_the_line(tmp_path: Path) -> None:
    # The second data row saved as Windows-1258, as a spreadsheet on a Vietnamese Windows might.
    legacy = "Ăn cháo đá bát,Ăn xong là quên ơn.,0.0,0.0,0.0,0.0,1.0,3.0\n".encode("cp1258")
    offset = len(csv_text([BASE_ROW]).encode("utf-8"))
    raw = csv_text([BASE_ROW]).encode("utf-8") + legacy
    # "Ă" is the single byte 0xC3 there: a UTF-8 lead byte that the following "n" cannot continue.
    assert raw[offset : offset + 2] == b"\xc3n"
    path = write(tmp_path, raw)

    message = load_error(path)
    assert message == f"{path}: line 3: byte 0xc3 at offset {offset} is not UTF-8; save the file as UTF-8"


@pytest.mark.parametrize(
    ("rows_after", "line"),
    [
        pytest.param([], 3, id="truncated-last-row"),
        pytest.param([BASE_ROW, BASE_ROW], 3, id="open-quote-swallows-later-rows"),
    ],
)
def test_unclosed_quote_is_named_by_line(tmp_path: Path, rows_after: list[dict[str, str]], line: int) -> None:
    good = csv_text([BASE_ROW])
    cut = '"Ăn vóc học hay,"Ăn uống đủ chất thì khoẻ.",0.0,0.0,0.0,0.0,0.0,6.0\n'
    later = "".join(csv_text(rows_after).splitlines(keepends=True)[1:])
    path = write(tmp_path, good + cut + later)

    message = load_error(path)
    assert message.startswith(f"{path}: 1 problem(s) in the data file:")
    assert f"line {line}: unreadable CSV (" in message
    assert "is a quote left open?" in message


def test_row_with_too_many_fields_is_named(tmp_path: Path) -> None:
    unquoted = "Khoai đất lạ, mạ đất quen,Trồng khoai chọn đất mới còn gieo mạ chọn đất quen.,1.0,0.0,0.0,1.0,0.0,4.0\n"
    path = write(tmp_path, csv_text([BASE_ROW]) + unquoted)

    message = load_error(path)
    assert "row 2 (line 3): has 9 fields, expected 8; is a comma unquoted?" in message


def test_row_with_too_few_fields_is_named(tmp_path: Path) -> None:
    path = write(
        tmp_path, csv_text([BASE_ROW]) + "Nước chảy đá mòn,Kiên trì thì việc gì cũng thành.,0.0,6.0\n"
    )

    assert "row 2 (line 3): has 4 fields, expected 8" in load_error(path)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        pytest.param(b"", "the file is empty; expected the header " + ", ".join(COLUMNS), id="empty"),
        pytest.param(b"\xef\xbb\xbf", "the file is empty", id="bom-only"),
        pytest.param((HEADER + "\n").encode(), "the file has a header but no data rows", id="header-only"),
        pytest.param(HEADER.encode(), "the file has a header but no data rows", id="header-no-newline"),
        pytest.param(
            (HEADER + "\n\n\n").encode(), "the file has a header but no data rows", id="header-blank-lines"
        ),
    ],
)
def test_file_without_rows_is_refused(tmp_path: Path, content: bytes, expected: str) -> None:
    path = write(tmp_path, content)

    message = load_error(path)
    assert message.startswith(f"{path}: {expected}")


def test_several_bad_rows_give_one_error_listing_all() -> None:
    with pytest.raises(VividDataError) as caught:
        load_vivid(str(BAD_ROWS))

    assert str(caught.value).splitlines() == [
        f"{BAD_ROWS}: 5 problem(s) in the data file:",
        f"  - row 2 (line 3), column {T2}: '2.0' is not 0 or 1 (0.0/1.0)",
        "  - row 3 (line 4), column Semantic_Theme: '8.0' is not a theme code 1-7",
        "  - row 4 (line 5), column Idiom_Proverb: empty idiom",
        "  - row 6 (line 7), column Meaning: empty meaning",
        f"  - row 6 (line 7), column {T1}: 'yes' is not 0 or 1 (0.0/1.0)",
    ]


def test_long_problem_lists_are_cut_with_a_count(tmp_path: Path) -> None:
    path = write(tmp_path, csv_text([spoilt("Semantic_Theme", "0.0")] * 60))

    lines = load_error(path).splitlines()
    assert lines[0] == f"{path}: 60 problem(s) in the data file:"
    assert len(lines) == 1 + 50 + 1
    assert lines[50] == "  - row 50 (line 51), column Semantic_Theme: '0.0' is not a theme code 1-7"
    assert lines[-1] == "  … and 10 more"


@pytest.mark.parametrize(
    "idiom",
    [pytest.param("Ăn «cháo» đá bát", id="guillemets"), pytest.param("Ăn cháo\nđá bát", id="line-break")],
)
def test_idiom_that_would_break_the_prompt_marker_is_refused(tmp_path: Path, idiom: str) -> None:
    path = write(tmp_path, csv_text([spoilt("Idiom_Proverb", idiom)]))

    assert "row 1 (line 2), column Idiom_Proverb: guillemets or line breaks are not allowed" in load_error(
        path
    )


# --- duplicates --------------------------------------------------------------------------------


def _duplicate_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno == logging.WARNING and "earlier row" in r.getMessage()
    ]


def test_duplicate_idioms_warn_naming_both_rows_and_keep_both(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        loaded = load_vivid(str(DUPLICATES))

    assert _duplicate_warnings(caplog) == [
        (
            f"{DUPLICATES}: 1 row repeats the idiom of an earlier row; every row is kept:\n"
            "  - row 3 (line 4) repeats 'Gieo gió gặt bão' of row 1"
        )
    ]
    samples = list(loaded.dataset)
    assert [s.id for s in samples] == [1, 2, 3]
    assert [s.metadata["theme"] for s in samples] == ["Life Lessons", "Social Relationships", "Criticism"]


@pytest.mark.parametrize(
    "variant",
    [
        pytest.param(unicodedata.normalize("NFD", "Đầu voi đuôi chuột"), id="nfd"),
        pytest.param("đầu voi đuôi chuột.", id="case-and-period"),
        pytest.param("Đầu voi,  đuôi chuột", id="comma-and-double-space"),
    ],
)
def test_duplicates_are_found_across_spellings(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, variant: str
) -> None:
    idiom = "Đầu voi đuôi chuột"
    path = write(
        tmp_path, csv_text([spoilt("Idiom_Proverb", idiom), BASE_ROW, spoilt("Idiom_Proverb", variant)])
    )

    with caplog.at_level(logging.WARNING):
        loaded = load_vivid(str(path))

    [message] = _duplicate_warnings(caplog)
    assert message.endswith(f"  - row 3 (line 4) repeats {unicodedata.normalize('NFC', variant)!r} of row 1")
    assert [s.input for s in loaded.dataset][:2] == [idiom, "Nước chảy chỗ trũng"]


def test_tone_mark_variants_are_duplicates(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = write(
        tmp_path, csv_text([spoilt("Idiom_Proverb", "Khoẻ như voi"), spoilt("Idiom_Proverb", "Khỏe như voi")])
    )

    with caplog.at_level(logging.WARNING):
        load_vivid(str(path))

    assert _duplicate_warnings(caplog)[0].endswith("  - row 2 (line 3) repeats 'Khỏe như voi' of row 1")


# --- the bundled sample ------------------------------------------------------------------------


def test_bundled_sample_loads_without_warnings() -> None:
    with warnings_as_errors():
        loaded = load_vivid("sample")

    assert loaded.source == "vivid_inspect sample (vivid_inspect/data/sample.csv)"
    assert len(loaded.dataset) >= 40
    assert [s.id for s in loaded.dataset] == list(range(1, len(loaded.dataset) + 1))


def test_bundled_sample_covers_every_label_and_format_feature() -> None:
    samples = list(load_vivid("sample").dataset)
    themes = {s.metadata["theme"] for s in samples}
    traits = {name for s in samples for name in s.metadata["traits"]}
    trait_counts = [len(s.metadata["trait_ids"]) for s in samples]

    assert themes == set(THEME_NAMES)
    assert traits == set(TRAIT_NAMES)
    assert 0 in trait_counts
    assert max(trait_counts) >= 2
    assert any("," in s.input for s in samples)
    assert any(s.target.startswith("( ") for s in samples)


def test_bundled_sample_file_is_in_the_release_format() -> None:
    import vivid_inspect.data as data_package

    raw = (Path(data_package.__file__).parent / "sample.csv").read_bytes()
    text = raw.decode("utf-8")
    rows = list(csv.reader(io.StringIO(text, newline="")))

    assert unicodedata.is_normalized("NFC", text)
    assert tuple(rows[0]) == COLUMNS
    # Codes are written as floats, as in the release.
    assert all(cell in ("0.0", "1.0") for row in rows[1:] for cell in row[2:7])
    assert {row[7] for row in rows[1:]} == {f"{code}.0" for code in THEME_BY_CODE}
    assert any(row[1].startswith(" ") for row in rows[1:])


# --- load_vivid options ------------------------------------------------------------------------


def test_excluded_idioms_are_left_out_and_other_ids_kept() -> None:
    nfd_idiom = unicodedata.normalize("NFD", "Mẹ tròn con vuông")
    assert nfd_idiom != "Mẹ tròn con vuông"

    loaded = load_vivid(
        str(GOOD), exclude_idioms=["Gieo gió gặt bão", nfd_idiom, "  Trông mặt mà bắt hình dong ", "Không có"]
    )

    assert loaded.left_out == [1, 3, 6]
    assert [s.id for s in loaded.dataset] == [2, 4, 5, 7]
    assert [s.input for s in loaded.dataset] == [GOOD_ITEMS[i - 1][1] for i in (2, 4, 5, 7)]


@pytest.mark.parametrize(
    "shown",
    [
        pytest.param("gieo gió gặt bão", id="lower-case"),
        pytest.param("GIEO GIÓ GẶT BÃO", id="upper-case"),
        pytest.param("Gieo gió gặt bão.", id="trailing-period"),
        pytest.param("Gieo gió  gặt bão", id="double-space"),
        pytest.param("Gieo gió, gặt bão!", id="punctuation"),
        pytest.param("“Gieo gió gặt bão”", id="quoted"),
        pytest.param(unicodedata.normalize("NFD", "gieo gió gặt bão."), id="nfd-lower-period"),
    ],
)
def test_exclusion_matches_spelling_variants_of_a_demonstration(shown: str) -> None:
    loaded = load_vivid(str(GOOD), exclude_idioms=[shown])

    assert loaded.left_out == [1]
    assert [s.id for s in loaded.dataset] == GOOD_IDS[1:]


@pytest.mark.parametrize(
    ("in_data", "shown"),
    [
        pytest.param("Nước chảy hòa đá mòn", "Nước chảy hoà đá mòn", id="old-style-in-data"),
        pytest.param("Khoẻ như voi", "khỏe như voi.", id="old-style-shown"),
        pytest.param("Thủy chung son sắt", "THUỶ CHUNG SON SẮT", id="uy-upper-case"),
    ],
)
def test_exclusion_unifies_tone_mark_placement(tmp_path: Path, in_data: str, shown: str) -> None:
    path = write(tmp_path, csv_text([spoilt("Idiom_Proverb", in_data), BASE_ROW]))

    loaded = load_vivid(str(path), exclude_idioms=[shown])

    assert loaded.left_out == [1]
    assert [s.id for s in loaded.dataset] == [2]


def test_exclusion_is_not_a_substring_match() -> None:
    # Half of an idiom, or one word of it, is not the idiom (similarity 0.5 and 0.25).
    loaded = load_vivid(str(GOOD), exclude_idioms=["Gieo gió", "gặt bão", "gió"])

    assert loaded.left_out == []
    assert [s.id for s in loaded.dataset] == GOOD_IDS


def test_at_threshold_one_a_syllable_more_or_less_is_another_idiom() -> None:
    # By default these are near-duplicates (tests/data/test_near_duplicates.py); at 1 only the key counts.
    shown = ["gió gặt bão", "Gieo gió gặt bão to"]

    assert load_vivid(str(GOOD), exclude_idioms=shown, threshold=1.0).left_out == []
    assert load_vivid(str(GOOD), exclude_idioms=shown).left_out == [1]


def test_target_callable_sets_the_sample_target() -> None:
    loaded = load_vivid(
        str(GOOD), target=lambda item: f"{item.theme_id}|{','.join(map(str, item.trait_ids))}"
    )

    assert [s.target for s in loaded.dataset] == ["6|", "2|", "5|3", "1|4,5", "7|1,2,3,4,5", "3|3,5", "4|1,4"]


def test_default_target_is_the_meaning() -> None:
    loaded = load_vivid(str(GOOD))

    assert [s.target for s in loaded.dataset] == [row[2] for row in GOOD_ITEMS]


def test_each_load_returns_fresh_samples() -> None:
    first = load_vivid(str(GOOD))
    first.dataset[0].metadata["theme"] = "changed by a solver"

    assert load_vivid(str(GOOD)).dataset[0].metadata["theme"] == "Life Lessons"


def test_row_of_empty_fields_is_an_error_not_a_blank_line(tmp_path: Path) -> None:
    lines = GOOD.read_text(encoding="utf-8").splitlines(keepends=True)
    path = write(tmp_path, "".join([*lines[:2], ",,,,,,,\n", *lines[2:]]))
    with pytest.raises(VividDataError, match=r"row 2 \(line 3\), column Idiom_Proverb: empty idiom"):
        parse_file(path)
