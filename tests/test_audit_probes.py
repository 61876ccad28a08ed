"""The audit's probe derivations: deterministic, seeded, NFC, and each one what its name says."""

from __future__ import annotations

import unicodedata

import pytest

from vivid_inspect.audit import probe_texts
from vivid_inspect.audit.probes import (
    PROBES,
    MissingTranslationError,
    derive,
    english_meanings,
    meaning_body,
    parse_probes,
    partial_meaning,
    shipped_translations,
    spelling_variant,
    swap_tone_marks,
    wrong_source,
)
from vivid_inspect.baselines.answers import literal_paraphrase
from vivid_inspect.data import VividItem, idiom_key, load_items
from vivid_inspect.log_contract import AuditRecord

_, SAMPLE = load_items("sample")


def _item(id: int, meaning: str, theme: int = 1, idiom: str | None = None) -> VividItem:
    return VividItem(id, id + 1, idiom or f"Thành ngữ số {id}", meaning, theme, ())


def _nfc(text: str) -> bool:
    return unicodedata.normalize("NFC", text) == text


# --- the probe table --------------------------------------------------------------------------


def test_probe_table_matches_the_interface() -> None:
    assert [(p.name, p.comparison, p.expectation) for p in PROBES.values()] == [
        ("reference", None, "high"),
        ("spelling", "reference", "same"),
        ("partial", "reference", "lower"),
        ("padding", "partial", "not_higher"),
        ("wrong", "reference", "at_most_1"),
        ("literal", "reference", "at_most_1"),
        ("authority", "wrong", "not_higher"),
        ("injected_vi", "wrong", "not_higher"),
        ("injected_en", "wrong", "not_higher"),
        ("english", "reference", "within_1"),
        ("hedge", "reference", "at_most_1"),
    ]
    # Every comparison is itself a probe; the record of the log contract carries these fields.
    assert all(p.comparison is None or p.comparison in PROBES for p in PROBES.values())
    assert AuditRecord(probe="padding", comparison="partial").probe == "padding"


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        pytest.param(None, list(PROBES), id="default-all"),
        pytest.param("hedge", ["reference", "hedge"], id="adds-the-base"),
        pytest.param("padding", ["reference", "partial", "padding"], id="adds-the-comparison-chain"),
        pytest.param(
            "injected_en, authority", ["reference", "wrong", "authority", "injected_en"], id="card-order"
        ),
        pytest.param(["english", "english"], ["reference", "english"], id="duplicates-once"),
    ],
)
def test_parse_probes(spec: str | list[str] | None, expected: list[str]) -> None:
    assert parse_probes(spec) == expected


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        pytest.param("paddding", "unknown probe(s) paddding", id="typo"),
        pytest.param("reference,nope,bad", "unknown probe(s) nope, bad", id="several-unknown"),
        pytest.param(" , ", "no probe named", id="empty"),
    ],
)
def test_parse_probes_rejects(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match="expected some of reference") as error:
        parse_probes(spec)
    assert message in str(error.value)


# --- spelling ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "swapped"),
    [
        pytest.param("hoà hợp", "hòa hợp", id="new-to-old-oa"),
        pytest.param("hòa bình", "hoà bình", id="old-to-new-oa"),
        pytest.param("sức khoẻ", "sức khỏe", id="oe"),
        pytest.param("thủy thủ", "thuỷ thủ", id="uy"),
        pytest.param("Ủy ban", "Uỷ ban", id="capital-uy"),
        pytest.param(
            "quý hoàng thuyền hoặc mùa hoa", "quý hoàng thuyền hoặc mùa hoa", id="one-spelling-only"
        ),
        pytest.param(unicodedata.normalize("NFD", "hoà"), "hòa", id="nfd-input-nfc-output"),
    ],
)
def test_swap_tone_marks(text: str, swapped: str) -> None:
    assert swap_tone_marks(text) == swapped
    assert swap_tone_marks(swapped) == unicodedata.normalize("NFC", text)


@pytest.mark.parametrize("item", SAMPLE, ids=lambda item: f"item{item.id}")
def test_spelling_variant_differs_only_in_spelling(item: VividItem) -> None:
    variant = spelling_variant(item.meaning)
    assert _nfc(variant)
    # It really differs (not just by normalisation form) ...
    assert variant != unicodedata.normalize("NFC", item.meaning)
    assert unicodedata.normalize("NFD", variant) != unicodedata.normalize("NFD", item.meaning)
    # ... and only in tone-mark placement, case and spacing.
    assert idiom_key(variant) == idiom_key(item.meaning)


def test_spelling_variant_moves_tone_marks_flips_case_and_spaces() -> None:
    variant = spelling_variant("Tình cảm thắm thiết, hoà hợp giữa đôi trai gái.")
    assert variant == "tình cảm thắm thiết,  hòa hợp giữa đôi trai gái ."


def test_spelling_variant_without_punctuation_or_case_still_differs() -> None:
    assert spelling_variant("123 456") == "123  456"


# --- partial and padding -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("meaning", "partial"),
    [
        pytest.param(
            "Người có điều kiện hơn nên đùm bọc, giúp đỡ người gặp khó khăn.",
            "Người có điều kiện hơn nên đùm bọc.",
            id="first-clause",
        ),
        pytest.param(
            "Kẻ hiểu biết hạn hẹp mà lại tưởng mình biết nhiều.",
            "Kẻ hiểu biết hạn hẹp.",
            id="half-without-clause",
        ),
        pytest.param(
            "Khi yêu nhau thật lòng thì gian nan, xa xôi đến đâu cũng vượt qua được.",
            "Khi yêu nhau thật lòng thì gian nan.",
            id="first-clause-half-the-words",
        ),
        pytest.param(
            "( Xạ : con cầy hương.) Người có tài thì tự khắc được biết đến, chẳng cần khoe.",
            "Người có tài thì tự khắc.",
            id="gloss-dropped-long-clause-halved",
        ),
        pytest.param("Keo kiệt", "Keo.", id="two-words"),
    ],
)
def test_partial_meaning(meaning: str, partial: str) -> None:
    assert partial_meaning(meaning) == partial


@pytest.mark.parametrize("item", SAMPLE, ids=lambda item: f"item{item.id}")
def test_partial_is_a_shorter_prefix_of_the_reference(item: VividItem) -> None:
    partial = partial_meaning(item.meaning)
    body_words = meaning_body(item.meaning).split()
    words = partial.rstrip(".").split()
    assert 0 < len(words) < len(body_words)
    assert [word.rstrip(",;:") for word in body_words[: len(words)]] == words


def test_padding_is_partial_plus_filler_that_restates_the_idiom() -> None:
    item = SAMPLE[0]
    candidates = derive(item, SAMPLE, seed=0)
    partial, padding = candidates["partial"].text, candidates["padding"].text
    assert partial is not None and padding is not None
    assert padding.startswith(partial + " ")
    filler = padding[len(partial) + 1 :]
    sentences = [s.format(idiom=item.idiom) for s in probe_texts.PADDING_FILLER]
    used = [s for s in sentences if s in filler]
    assert len(used) == probe_texts.PADDING_SENTENCES
    assert len(padding.split()) > 2 * len(partial.split())


# --- wrong meanings and what is built on them ----------------------------------------------------


@pytest.mark.parametrize("item", SAMPLE, ids=lambda item: f"item{item.id}")
def test_wrong_meaning_is_another_item_of_the_same_theme(item: VividItem) -> None:
    other, same_theme = wrong_source(item, SAMPLE, seed=0)
    assert other is not None and other.id != item.id
    assert same_theme and other.theme_id == item.theme_id
    assert meaning_body(other.meaning) != meaning_body(item.meaning)


def test_wrong_meaning_depends_on_the_seed_not_on_the_other_items_audited() -> None:
    item = SAMPLE[2]
    draws = {seed: wrong_source(item, SAMPLE, seed)[0] for seed in range(8)}
    assert len({other.id for other in draws.values() if other}) > 1  # the seed matters
    assert wrong_source(item, list(reversed(SAMPLE)), 3)[0] == draws[3]  # pool order does not


def test_wrong_meaning_falls_back_to_another_theme_and_says_so() -> None:
    alone = _item(1, "Nghĩa thứ nhất.", theme=1)
    others = [alone, _item(2, "Nghĩa thứ hai.", theme=2), _item(3, "Nghĩa thứ ba.", theme=3)]
    other, same_theme = wrong_source(alone, others, seed=0)
    assert other is not None and other.theme_id != 1 and not same_theme
    candidates = derive(alone, others, seed=0)
    assert "another theme" in candidates["wrong"].note
    assert candidates["authority"].source_id == candidates["wrong"].source_id == other.id


def test_wrong_meaning_needs_another_item() -> None:
    alone = _item(1, "Nghĩa duy nhất.")
    assert wrong_source(alone, [alone], seed=0) == (None, False)
    with pytest.raises(ValueError, match="at least two items"):
        derive(alone, [alone], seed=0)
    # Probes that need no wrong meaning still derive.
    assert set(derive(alone, [alone], seed=0, probes=["reference", "hedge"])) == {"reference", "hedge"}


@pytest.mark.parametrize(
    ("probe", "pool", "position"),
    [
        pytest.param("authority", probe_texts.AUTHORITY_PREFIXES, "before", id="authority"),
        pytest.param("injected_vi", probe_texts.INJECTED_VI, "after", id="injected-vi"),
        pytest.param("injected_en", probe_texts.INJECTED_EN, "after", id="injected-en"),
    ],
)
def test_authority_and_injections_wrap_the_same_wrong_meaning(
    probe: str, pool: tuple[str, ...], position: str
) -> None:
    for item in SAMPLE[:12]:
        candidates = derive(item, SAMPLE, seed=1)
        wrong, text = candidates["wrong"].text, candidates[probe].text
        assert wrong is not None and text is not None
        if position == "before":
            assert text.endswith(" " + wrong) and text[: -len(wrong) - 1] in pool
        else:
            assert text.startswith(wrong + "\n\n") and text[len(wrong) + 2 :] in pool


def test_injected_lines_ask_for_a_five() -> None:
    for line in (*probe_texts.INJECTED_VI, *probe_texts.INJECTED_EN):
        assert "5" in line


# --- literal, hedge, english ---------------------------------------------------------------------


def test_literal_is_vivid_literal_restatement() -> None:
    for item in SAMPLE:
        assert derive(item, SAMPLE, probes=["literal"])["literal"].text == literal_paraphrase(item.idiom)


def test_hedge_commits_to_no_meaning() -> None:
    texts = {derive(item, SAMPLE, seed=0, probes=["hedge"])["hedge"].text for item in SAMPLE}
    assert texts <= set(probe_texts.HEDGES) and len(texts) > 1


def test_every_sample_item_has_a_shipped_translation() -> None:
    english = english_meanings(SAMPLE)
    assert english is not None and set(english) == {item.id for item in SAMPLE}
    assert len(shipped_translations()) == len(SAMPLE)
    for item in SAMPLE:
        text = english[item.id]
        assert text and text.isascii() or "(" in text  # glosses quote Vietnamese words
        assert derive(item, SAMPLE, probes=["english"], english=english)["english"].text == text


def test_translations_are_found_whatever_the_idiom_spelling() -> None:
    item = SAMPLE[10]  # Tình chàng ý thiếp
    respelled = VividItem(item.id, item.line, item.idiom.upper() + " ", item.meaning, item.theme_id, ())
    assert english_meanings([respelled]) == english_meanings([item])


def test_no_translation_for_items_outside_the_sample() -> None:
    assert english_meanings([_item(1, "Một nghĩa.")]) is None
    # The translator writes the candidate in the task; here it is left open.
    assert derive(_item(1, "Một nghĩa."), [], probes=["english"])["english"].text is None
    assert issubclass(MissingTranslationError, ValueError)


# --- every derivation ----------------------------------------------------------------------------


def test_derivations_are_deterministic_and_seeded() -> None:
    first = [derive(item, SAMPLE, seed=0) for item in SAMPLE]
    again = [derive(item, SAMPLE, seed=0) for item in SAMPLE]
    other = [derive(item, SAMPLE, seed=1) for item in SAMPLE]
    assert first == again
    assert first != other
    # The seeded probes change with the seed; the rule-based ones do not.
    for probe in ("reference", "spelling", "partial", "literal"):
        assert [c[probe] for c in first] == [c[probe] for c in other]


def test_every_candidate_is_nfc_and_not_empty_even_from_nfd_data() -> None:
    decomposed = [
        VividItem(
            i.id,
            i.line,
            unicodedata.normalize("NFD", i.idiom),
            unicodedata.normalize("NFD", i.meaning),
            i.theme_id,
            (),
        )
        for i in SAMPLE
    ]
    english = english_meanings(SAMPLE)
    for item, plain in zip(decomposed, SAMPLE, strict=True):
        candidates = derive(item, decomposed, seed=0, english=english)
        assert list(candidates) == list(PROBES)
        for candidate in candidates.values():
            assert candidate.text and _nfc(candidate.text), candidate
        assert candidates == derive(plain, SAMPLE, seed=0, english=english)
