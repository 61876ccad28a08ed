"""Spelling variants of Vietnamese: tone-mark placement (old/new style) and the idiom key."""

from __future__ import annotations

import unicodedata

import pytest

from vivid_inspect.data.normalise import idiom_key, unify_tone_marks


@pytest.mark.parametrize(
    ("old", "new"),
    [
        pytest.param("hòa", "hoà", id="oa-grave"),
        pytest.param("hóa", "hoá", id="oa-acute"),
        pytest.param("hỏa", "hoả", id="oa-hook"),
        pytest.param("xõa", "xoã", id="oa-tilde"),
        pytest.param("họa", "hoạ", id="oa-dot"),
        pytest.param("lòa", "loà", id="loa"),
        pytest.param("góa", "goá", id="goa"),
        pytest.param("khỏe", "khoẻ", id="oe-hook"),
        pytest.param("lòe", "loè", id="oe-grave"),
        pytest.param("thủy", "thuỷ", id="uy-hook"),
        pytest.param("tùy", "tuỳ", id="uy-grave"),
        pytest.param("lũy", "luỹ", id="uy-tilde"),
        pytest.param("ủy ban", "uỷ ban", id="uy-at-syllable-start"),
        pytest.param("Hòa", "Hoà", id="capitalised"),
        pytest.param("HÒA BÌNH", "HOÀ BÌNH", id="upper-case"),
        pytest.param("Ủy", "Uỷ", id="upper-first-vowel"),
        pytest.param("khỏe.", "khoẻ.", id="before-punctuation"),
        pytest.param("văn hóa dân gian, thủy chung", "văn hoá dân gian, thuỷ chung", id="in-a-sentence"),
    ],
)
def test_old_style_tone_marks_move_to_the_new_place(old: str, new: str) -> None:
    assert unify_tone_marks(old) == new
    assert unify_tone_marks(new) == new
    assert unify_tone_marks(unicodedata.normalize("NFD", old)) == new


@pytest.mark.parametrize(
    "word",
    [
        pytest.param("mùa", id="ua-is-not-a-diphthong-of-the-rule"),
        pytest.param("múa", id="ua-acute"),
        pytest.param("mía", id="ia"),
        pytest.param("hoàng", id="oa-with-final-consonant"),
        pytest.param("toán", id="oa-with-final-n"),
        pytest.param("thuyền", id="uye"),
        pytest.param("khuyết", id="uye-final-t"),
        pytest.param("huỳnh", id="uy-with-final-consonant"),
        pytest.param("hoài", id="oai"),
        pytest.param("xoáy", id="oay"),
        pytest.param("ngoẹo", id="oeo"),
        pytest.param("khuya", id="uya"),
        pytest.param("quý", id="qu-y"),
        pytest.param("của", id="ua-hook"),
        pytest.param("hoặc", id="oa-breve"),
        pytest.param("Bán anh em xa", id="no-diphthong"),
    ],
)
def test_words_with_one_spelling_are_unchanged(word: str) -> None:
    assert unify_tone_marks(word) == word


def test_unify_returns_nfc() -> None:
    assert unicodedata.is_normalized(
        "NFC", unify_tone_marks(unicodedata.normalize("NFD", "Đầu voi đuôi chuột hòa"))
    )


SAME_IDIOM = "Bán anh em xa, mua láng giềng gần"


@pytest.mark.parametrize(
    "variant",
    [
        pytest.param("bán anh em xa, mua láng giềng gần", id="lower-case"),
        pytest.param("BÁN ANH EM XA, MUA LÁNG GIỀNG GẦN", id="upper-case"),
        pytest.param("Bán anh em xa, mua láng giềng gần.", id="trailing-period"),
        pytest.param("Bán anh em xa,  mua láng giềng  gần", id="double-spaces"),
        pytest.param("Bán anh em xa mua láng giềng gần", id="no-comma"),
        pytest.param("Bán anh em xa,mua láng giềng gần", id="comma-without-space"),
        pytest.param("  Bán anh em xa, mua láng giềng gần  ", id="surrounding-spaces"),
        pytest.param("“Bán anh em xa, mua láng giềng gần”", id="typographic-quotes"),
        pytest.param("Bán anh em xa; mua láng giềng gần!", id="other-punctuation"),
        pytest.param("Bán anh em xa,\tmua\nláng giềng gần", id="tabs-and-newlines"),
        pytest.param(unicodedata.normalize("NFD", SAME_IDIOM), id="nfd"),
    ],
)
def test_idiom_key_ignores_case_punctuation_spacing_and_normalisation(variant: str) -> None:
    assert idiom_key(variant) == idiom_key(SAME_IDIOM) == "bán anh em xa mua láng giềng gần"


@pytest.mark.parametrize(
    ("one", "other"),
    [
        pytest.param("Nước chảy hòa đá mòn", "nước chảy hoà đá mòn", id="oa"),
        pytest.param("Khỏe như voi", "khoẻ như voi", id="oe"),
        pytest.param("Thủy chung như nhất", "Thuỷ chung như nhất.", id="uy"),
    ],
)
def test_idiom_key_unifies_tone_mark_placement(one: str, other: str) -> None:
    assert idiom_key(one) == idiom_key(other)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        pytest.param("Gieo gió gặt bão", "Gieo gió", id="prefix"),
        pytest.param("Gieo gió gặt bão", "Gieo gió gặt bão to", id="longer"),
        pytest.param("Mùa", "Múa", id="different-tone"),
        pytest.param("Ma", "Mà", id="tone-is-meaning"),
        pytest.param("Đa", "Da", id="d-bar-is-a-letter"),
    ],
)
def test_idiom_key_keeps_different_idioms_apart(one: str, other: str) -> None:
    assert idiom_key(one) != idiom_key(other)


# --- y/i: one syllable, two accepted spellings ----------------------------------------------------


@pytest.mark.parametrize(
    ("one", "other"),
    [
        pytest.param("kỹ", "kĩ", id="k-tilde"),
        pytest.param("lý", "lí", id="l-acute"),
        pytest.param("mỹ", "mĩ", id="m-tilde"),
        pytest.param("sỹ", "sĩ", id="s-tilde"),
        pytest.param("tỷ", "tỉ", id="t-hook"),
        pytest.param("kỳ", "kì", id="k-grave"),
        pytest.param("kỵ", "kị", id="k-dot"),
        pytest.param("hy", "hi", id="no-tone"),
        pytest.param("vy", "vi", id="v"),
        pytest.param("thy", "thi", id="two-letter-initial"),
        pytest.param("quý", "quí", id="qu-initial"),
        pytest.param("quy", "qui", id="qu-no-tone"),
        pytest.param("Mỹ", "mĩ", id="capital"),
        pytest.param("KỸ", "kĩ", id="upper-case"),
        pytest.param("Kỹ càng, tỷ mỉ", "kĩ càng tỉ mỉ", id="two-syllables-in-a-phrase"),
        pytest.param("Lý lẽ", "lí lẽ.", id="with-punctuation"),
        pytest.param("Mỹ nhân", unicodedata.normalize("NFD", "mĩ nhân"), id="nfd"),
        pytest.param("Kỹ", unicodedata.normalize("NFD", "Kĩ"), id="nfd-both-sides"),
    ],
)
def test_idiom_key_unifies_final_y_and_i_after_a_consonant(one: str, other: str) -> None:
    assert idiom_key(one) == idiom_key(other)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        pytest.param("tay", "tai", id="ay-is-not-ai"),
        pytest.param("cây", "câi", id="ay-after-a-circumflex"),
        pytest.param("tuy", "tui", id="uy-is-not-ui"),
        pytest.param("thủy", "thủi", id="uy-tone"),
        pytest.param("y tá", "i tá", id="syllable-initial-y"),
        pytest.param("yêu", "iêu", id="ye-at-the-start"),
        pytest.param("khuyên", "khuiên", id="y-inside-a-rhyme"),
        pytest.param("kỹ", "kỉ", id="different-tone"),
        pytest.param("ly", "lý", id="tone-is-kept"),
        pytest.param("mì", "mỳ ăn", id="different-length"),
    ],
)
def test_idiom_key_keeps_y_and_i_apart_where_they_are_different_letters(one: str, other: str) -> None:
    assert idiom_key(one) != idiom_key(other)


@pytest.mark.parametrize(
    "word",
    [
        pytest.param("tay", id="ay"),
        pytest.param("thuỷ", id="uy"),
        pytest.param("yêu", id="ye"),
        pytest.param("ý", id="lone-y"),
        pytest.param("khuyên", id="uye"),
        pytest.param("huỳnh", id="uy-final-consonant"),
    ],
)
def test_idiom_key_keeps_y_where_it_is_not_a_lone_final_vowel(word: str) -> None:
    assert "y" in unicodedata.normalize("NFD", idiom_key(word))


def test_unify_final_y_is_public_and_keeps_other_text() -> None:
    from vivid_inspect.data.normalise import unify_final_y

    assert unify_final_y("Kỹ sư Mỹ, tay thủy") == "Kĩ sư Mĩ, tay thủy"
    assert unicodedata.is_normalized("NFC", unify_final_y(unicodedata.normalize("NFD", "lý")))
