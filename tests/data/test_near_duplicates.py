"""Near-duplicates of what a model or a judge is shown: each shape of variant, on every shown idiom.

A variant of a demonstration or of a judge's calibration idiom leaks its answer as surely as the
idiom itself. Each test below applies one class of variant at every place it can go, to every
idiom the tasks show (the classification demonstrations, the explain few-shot idioms and the judge
templates' examples), and checks that :func:`similarity` puts it at or above the threshold; the
negative tests check that unrelated idioms, including those that share a word or a frame with a
shown idiom, stay below it.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterator

import pytest

from vivid_inspect.data.leakage import (
    NEAR_DUPLICATE_THRESHOLD,
    THRESHOLD_RANGE,
    Shown,
    check_threshold,
    resemblance,
    shown_idioms,
    similarity,
    sound_alike,
)
from vivid_inspect.data.normalise import idiom_key
from vivid_inspect.scorers.judge_prompts import judge_example_idioms
from vivid_inspect.solvers.classify_prompts import DEMONSTRATIONS
from vivid_inspect.solvers.explain_prompts import EXPLAIN_DEMONSTRATIONS

SHOWN = tuple(
    dict.fromkeys(
        [demo.idiom for demo in DEMONSTRATIONS]
        + [idiom for idiom, _ in EXPLAIN_DEMONSTRATIONS]
        + list(judge_example_idioms())
    )
)
T = NEAR_DUPLICATE_THRESHOLD


def words(idiom: str) -> list[str]:
    return idiom_key(idiom).split()


def flagged(variant: str, shown: str) -> bool:
    return similarity(variant, shown) >= T


def every_shown(make: Callable[[str], Iterator[str]]) -> list[object]:
    return [
        pytest.param(shown, variant, id=f"{shown[:24]}|{variant[:40]}")
        for shown in SHOWN
        for variant in make(shown)
    ]


# --- the shapes ---------------------------------------------------------------------------------


def insertions(idiom: str) -> Iterator[str]:
    syllables = words(idiom)
    for at in range(len(syllables) + 1):
        for extra in ("thì", "lại"):
            yield " ".join(syllables[:at] + [extra] + syllables[at:])


def deletions(idiom: str) -> Iterator[str]:
    syllables = words(idiom)
    for at in range(len(syllables)):
        yield " ".join(syllables[:at] + syllables[at + 1 :])


def substitutions(idiom: str) -> Iterator[str]:
    syllables = words(idiom)
    for at in range(len(syllables)):
        # A whole other syllable, sharing no letter with most: the worst case for a character measure.
        yield " ".join(syllables[:at] + ["phở"] + syllables[at + 1 :])


def swapped_halves(idiom: str) -> Iterator[str]:
    if "," in idiom:
        first, second = idiom.split(",", 1)
        yield f"{second.strip()}, {first.strip()}"
    syllables = words(idiom)
    middle = len(syllables) // 2
    yield " ".join(syllables[middle:] + syllables[:middle])


_RETONE = {"\u0300": "\u0301", "\u0301": "\u0300", "\u0303": "\u0309", "\u0309": "\u0303", "\u0323": ""}


def tone_variants(idiom: str) -> Iterator[str]:
    """One syllable's tone changed (hỏi/ngã swapped, grave/acute swapped, the dot dropped) or one added."""
    syllables = words(idiom)
    for at, syllable in enumerate(syllables):
        decomposed = unicodedata.normalize("NFD", syllable)
        tone = next((c for c in decomposed if c in _RETONE), None)
        if tone is None:
            changed = decomposed[0] + decomposed[1:] + "\u0301" if decomposed[-1] in "aeiouy" else None
            if changed is None:
                continue
        else:
            changed = decomposed.replace(tone, _RETONE[tone])
        yield " ".join(syllables[:at] + [unicodedata.normalize("NFC", changed)] + syllables[at + 1 :])


_REGIONAL = (
    ("gi", "d"),
    ("d", "gi"),
    ("r", "d"),
    ("d", "r"),
    ("gi", "r"),
    ("x", "s"),
    ("s", "x"),
    ("tr", "ch"),
    ("ch", "tr"),
)


def regional_spellings(idiom: str) -> Iterator[str]:
    """Each initial consonant spelled as its regional merger (d/gi/r, s/x, ch/tr), one syllable, then all."""
    syllables = words(idiom)
    every = list(syllables)
    for at, syllable in enumerate(syllables):
        for spelt, heard in _REGIONAL:
            if syllable.startswith(spelt):
                swapped = heard + syllable[len(spelt) :]
                every[at] = swapped
                yield " ".join(syllables[:at] + [swapped] + syllables[at + 1 :])
                break
    if every != syllables:
        yield " ".join(every)


def punctuation_and_case(idiom: str) -> Iterator[str]:
    yield idiom.upper()
    yield f"“{idiom.lower()}.”"
    yield idiom.replace(" ", ",  ", 1)
    yield unicodedata.normalize("NFD", idiom)


@pytest.mark.parametrize(("shown", "variant"), every_shown(insertions))
def test_a_syllable_inserted_anywhere_is_a_near_duplicate(shown: str, variant: str) -> None:
    assert flagged(variant, shown), similarity(variant, shown)


@pytest.mark.parametrize(("shown", "variant"), every_shown(deletions))
def test_a_syllable_deleted_anywhere_is_a_near_duplicate(shown: str, variant: str) -> None:
    assert flagged(variant, shown), similarity(variant, shown)


@pytest.mark.parametrize(("shown", "variant"), every_shown(substitutions))
def test_one_syllable_replaced_anywhere_is_a_near_duplicate(shown: str, variant: str) -> None:
    assert flagged(variant, shown), similarity(variant, shown)


@pytest.mark.parametrize(("shown", "variant"), every_shown(swapped_halves))
def test_swapped_halves_are_the_same_proverb(shown: str, variant: str) -> None:
    assert similarity(variant, shown) == 1.0


@pytest.mark.parametrize(("shown", "variant"), every_shown(tone_variants))
def test_a_tone_mark_changed_on_one_syllable_is_a_near_duplicate(shown: str, variant: str) -> None:
    assert flagged(variant, shown), similarity(variant, shown)


@pytest.mark.parametrize(("shown", "variant"), every_shown(regional_spellings))
def test_regional_spellings_of_initials_are_near_duplicates(shown: str, variant: str) -> None:
    assert flagged(variant, shown), similarity(variant, shown)


@pytest.mark.parametrize(("shown", "variant"), every_shown(punctuation_and_case))
def test_punctuation_case_and_normalisation_do_not_matter(shown: str, variant: str) -> None:
    assert similarity(variant, shown) == 1.0


def test_every_shape_has_variants_of_every_shown_idiom() -> None:
    # The shapes above must not silently make nothing (a generator that yields no variant tests nothing).
    for make in (insertions, deletions, substitutions, swapped_halves, tone_variants, punctuation_and_case):
        assert all(any(True for _ in make(shown)) for shown in SHOWN), make.__name__
    assert sum(1 for shown in SHOWN for _ in regional_spellings(shown)) >= 10


@pytest.mark.parametrize(
    ("variant", "shown"),
    [
        pytest.param("Ăn cháo đái bát", "Ăn cháo đá bát", id="issue-one-letter"),
        pytest.param("Mèo lại khen mèo dài đuôi", "Mèo khen mèo dài đuôi", id="issue-inserted"),
        pytest.param("Há mồm chờ sung", "Há miệng chờ sung", id="synonym-syllable"),
        pytest.param("Nước tới chân mới nhảy", "Nước đến chân mới nhảy", id="synonym-verb"),
        pytest.param("Đẽo cày giữa đàng", "Đẽo cày giữa đường", id="old-word"),
        pytest.param("Môn đương hộ đối", "Môn đăng hộ đối", id="known-variant"),
        pytest.param("Bà nguyệt ông tơ", "Ông tơ bà nguyệt", id="pairs-swapped"),
        pytest.param(
            "Mua láng giềng gần, bán bà con xa", "Bán anh em xa, mua láng giềng gần", id="swap-and-two-words"
        ),
        pytest.param("Reo ró gặt bão", "Gieo gió gặt bão", id="r-for-gi-twice"),
        pytest.param("Nước đến chân thì mới nhảy", "Nước đến chân mới nhảy", id="inserted-thi"),
        pytest.param("Chở củi vào rừng", "Chở củi về rừng", id="preposition"),
        pytest.param("Kỹ càng chở củi", "kĩ càng chở củi", id="y-i"),
        pytest.param(
            "Ăn cơm không rau như đau mà không thuốc",
            "Ăn cơm không rau như đau không thuốc",
            id="long-inserted",
        ),
    ],
)
def test_known_variants_are_near_duplicates(variant: str, shown: str) -> None:
    assert flagged(variant, shown), similarity(variant, shown)


UNRELATED = [
    # Each shares a word, a frame or a length with a shown idiom, and is another idiom.
    ("Ăn cây nào rào cây ấy", "Ăn cháo đá bát"),
    ("Ăn quả nhớ kẻ trồng cây", "Ăn cháo đá bát"),
    ("Ăn ngay nói thật", "Ăn cháo đá bát"),
    ("Mèo mả gà đồng", "Mèo khen mèo dài đuôi"),
    ("Chó treo mèo đậy", "Mèo khen mèo dài đuôi"),
    ("Ông nói gà bà nói vịt", "Ông tơ bà nguyệt"),
    ("Nước đổ đầu vịt", "Nước đến chân mới nhảy"),
    ("Nước chảy đá mòn", "Nước đến chân mới nhảy"),
    ("Cháy nhà hàng xóm bình chân như vại", "Cháy nhà ra mặt chuột"),
    ("Đầu voi đuôi chuột", "Cháy nhà ra mặt chuột"),
    ("Gieo nhân nào gặt quả nấy", "Gieo gió gặt bão"),
    ("Gần mực thì đen, gần đèn thì sáng", "Bán anh em xa, mua láng giềng gần"),
    ("Anh em như thể tay chân", "Bán anh em xa, mua láng giềng gần"),
    ("Chở che đùm bọc", "Chở củi về rừng"),
    ("Há miệng mắc quai", "Há miệng chờ sung"),
    ("Môn đệ hộ thân", "Môn đăng hộ đối"),
    ("Ông ăn chả, bà ăn nem", "Ông tơ bà nguyệt"),
    ("Đường đi hay tối, nói dối hay cùng", "Đẽo cày giữa đường"),
    ("Ăn cơm nhà vác tù và hàng tổng", "Ăn cơm không rau như đau không thuốc"),
    ("Tháng chín mưa rươi, tháng mười mưa cữ", "Mồng chín tháng chín có mưa, thì con sắm sửa cày bừa làm ăn"),
]


@pytest.mark.parametrize(("other", "shown"), [pytest.param(o, s, id=o) for o, s in UNRELATED])
def test_unrelated_idioms_that_share_a_word_are_not_near_duplicates(other: str, shown: str) -> None:
    assert similarity(other, shown) < T


def test_no_bundled_sample_idiom_but_the_shown_one_resembles_a_shown_idiom() -> None:
    from vivid_inspect.data import load_items

    _, items = load_items("sample")
    close = {(item.idiom, shown) for item in items for shown in SHOWN if similarity(item.idiom, shown) >= T}
    # Row 17 is the explain demonstration itself, in the same spelling.
    assert close == {("Bán anh em xa, mua láng giềng gần", "Bán anh em xa, mua láng giềng gần")}


def test_no_synthetic_idiom_resembles_a_shown_idiom() -> None:
    from bench.synthetic import FULL_ROWS, idioms

    close = [
        (idiom, shown) for idiom in idioms(FULL_ROWS) for shown in SHOWN if similarity(idiom, shown) >= T
    ]
    assert close == []


# --- the measure's properties ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("Ăn cháo đái bát", "Ăn cháo đá bát"),
        ("Mèo lại khen mèo dài đuôi", "Mèo khen mèo dài đuôi"),
        ("Mua láng giềng gần, bán anh em xa", "Bán anh em xa, mua láng giềng gần hơn"),
        ("Reo ró gặt bão", "Gieo gió gặt"),
        ("Ăn cây nào rào cây ấy", "Ăn cháo đá bát"),
    ],
)
def test_similarity_is_symmetric_and_between_zero_and_one(one: str, other: str) -> None:
    assert similarity(one, other) == similarity(other, one)
    assert 0.0 <= similarity(one, other) < 1.0


def test_similarity_is_one_for_the_same_key_and_zero_for_nothing_shared() -> None:
    assert similarity("Gieo gió gặt bão", "gieo gió, gặt bão!") == 1.0
    assert similarity("Gieo gió gặt bão", "Uống nước nhớ nguồn") == 0.0
    assert similarity("", "Gieo gió gặt bão") == 0.0


def test_a_sound_alike_syllable_costs_a_quarter_of_a_different_one() -> None:
    # One syllable of four: replaced, 0.75; only its tone or regional initial differs, 0.9375.
    assert similarity("Gieo gió gặt bão", "Gieo gió gặt phở") == pytest.approx(0.75)
    assert similarity("Gieo gió gặt bão", "Gieo gió gặt bảo") == pytest.approx(0.9375)
    assert similarity("Gieo gió gặt bão", "Gieo dó gặt bão") == pytest.approx(0.9375)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        pytest.param("gió", "dó", id="gi-d"),
        pytest.param("gió", "ró", id="gi-r"),
        pytest.param("dì", "gì", id="gi-before-i"),
        pytest.param("gìn", "dìn", id="gi-before-in"),
        pytest.param("xa", "sa", id="s-x"),
        pytest.param("trâu", "châu", id="ch-tr"),
        pytest.param("nắng", "lắng", id="l-n"),
        pytest.param("đổ", "đỗ", id="hoi-nga"),
        pytest.param("bát", "bác", id="final-t-c"),
        pytest.param("đàn", "đàng", id="final-n-ng"),
        pytest.param("bình", "bìn", id="final-nh-n"),
    ],
)
def test_sound_alike_forms(one: str, other: str) -> None:
    assert sound_alike(one) == sound_alike(other)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        pytest.param("đá", "da", id="d-bar-is-its-own-sound"),
        pytest.param("gà", "dà", id="g-is-not-gi"),
        pytest.param("ngà", "nà", id="ng-is-not-n"),
        pytest.param("nhà", "là", id="nh-is-not-l"),
        pytest.param("mắt", "mát", id="breve"),
        pytest.param("tơ", "to", id="horn"),
    ],
)
def test_sound_alike_keeps_other_sounds_apart(one: str, other: str) -> None:
    assert sound_alike(one) != sound_alike(other)


def test_resemblance_names_the_closest_shown_idiom_and_prefers_a_demonstration_on_a_tie() -> None:
    shown = [Shown("Ăn cháo đá bát", "demonstration"), Shown("Ăn cháo đái bát", "judge_example")]

    closest = resemblance("Ăn cháo đái bát", shown)
    assert closest is not None
    assert (closest.resembles, closest.shown_as, closest.similarity) == (
        "Ăn cháo đái bát",
        "judge_example",
        1.0,
    )

    tie = resemblance("Ăn cháo đáo bát", shown)
    assert tie is not None and tie.shown_as == "demonstration"
    assert resemblance("Uống nước nhớ nguồn", shown) is None


def test_shown_idioms_lists_demonstrations_before_judge_examples() -> None:
    listed = shown_idioms(["Gieo gió gặt bão"], ["Há miệng chờ sung", "Gieo gió gặt bão"])
    assert listed == (Shown("Gieo gió gặt bão", "demonstration"), Shown("Há miệng chờ sung", "judge_example"))


@pytest.mark.parametrize("value", [THRESHOLD_RANGE[0], T, THRESHOLD_RANGE[1]])
def test_thresholds_inside_the_range_are_accepted(value: float) -> None:
    assert check_threshold(value) == value


@pytest.mark.parametrize(
    "value",
    [
        pytest.param(THRESHOLD_RANGE[0] - 0.01, id="below"),
        pytest.param(1.01, id="above-one"),
        pytest.param(0.0, id="zero"),
        pytest.param(float("nan"), id="nan"),
        pytest.param("0.8", id="string"),
        pytest.param(True, id="bool"),
    ],
)
def test_thresholds_outside_the_range_are_refused_with_the_range(value: object) -> None:
    with pytest.raises(ValueError, match=r"leakage_threshold must be a number from 0\.6 to 1"):
        check_threshold(value)
