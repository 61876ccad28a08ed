"""The audit's probe derivations: deterministic, seeded, NFC, and each one what its name says."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log
from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput, get_model
from inspect_ai.tool import ToolChoice, ToolInfo

from tests.scripted import output, prompt_text
from vivid_inspect.baselines.answers import literal_paraphrase
from vivid_inspect.data import COLUMNS, VividItem, idiom_key, load_items
from vivid_inspect.lab.audit import probe_texts
from vivid_inspect.lab.audit.card import AuditCard
from vivid_inspect.lab.audit.probes import (
    LITERAL_ITEM,
    LITERAL_TRAIT,
    NEAR_DUPLICATE_CHRF,
    NO_WORD,
    NO_WRONG,
    ONE_WORD,
    PROBES,
    MissingTranslationError,
    derive,
    english_meanings,
    exclusion_notes,
    meaning_body,
    meaning_key,
    meaning_similarity,
    parse_probes,
    partial_meaning,
    shipped_translations,
    spelling_variant,
    swap_tone_marks,
    wrong_source,
)
from vivid_inspect.lab.audit.run import AuditError, run_audit
from vivid_inspect.lab.audit.task import TRANSLATION_ATTEMPTS, TRANSLATOR_MAX_TOKENS, translation_request
from vivid_inspect.log_contract import AuditRecord

_, SAMPLE = load_items("sample")


def _item(id: int, meaning: str, theme: int = 1, idiom: str | None = None) -> VividItem:
    return VividItem(id, id + 1, idiom or f"Thành ngữ số {id}", meaning, theme, ())


def _nfc(text: str) -> bool:
    return unicodedata.normalize("NFC", text) == text


def _csv(folder: Path, rows: list[tuple[str, str]], theme: int = 1) -> Path:
    """A data file of (idiom, meaning) rows, all of one theme and without traits."""
    path = folder / "items.csv"
    lines = [",".join(COLUMNS), *(f'"{idiom}","{meaning}",0,0,0,0,0,{theme}' for idiom, meaning in rows)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# --- the probe table --------------------------------------------------------------------------


def test_probe_table_matches_the_interface() -> None:
    assert [(p.name, p.comparison, p.expectation) for p in PROBES.values()] == [
        ("retest", "reference", "repeat"),
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
        pytest.param(
            "padding",
            ["retest", "reference", "partial", "padding"],
            id="adds-the-comparison-chain-and-control",
        ),
        pytest.param(
            "injected_en, authority",
            ["retest", "reference", "wrong", "authority", "injected_en"],
            id="card-order",
        ),
        pytest.param(["english", "english"], ["retest", "reference", "english"], id="duplicates-once"),
        pytest.param(
            "partial,wrong", ["reference", "partial", "wrong"], id="must-drop-probes-need-no-control"
        ),
        pytest.param("retest", ["retest", "reference"], id="the-control-alone"),
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
    with pytest.raises(ValueError, match="expected some of retest, reference") as error:
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
    candidates = derive(item, SAMPLE, seed=0).candidates
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
    alone = _item(1, "Cha mẹ thương con cái.", theme=1)
    others = [alone, _item(2, "Bạn bè giúp đỡ nhau.", theme=2), _item(3, "Trời mưa to, đường ngập.", theme=3)]
    other, same_theme = wrong_source(alone, others, seed=0)
    assert other is not None and other.theme_id != 1 and not same_theme
    candidates = derive(alone, others, seed=0).candidates
    assert "another theme" in candidates["wrong"].note
    assert candidates["authority"].source_id == candidates["wrong"].source_id == other.id


def test_wrong_meaning_needs_another_item() -> None:
    alone = _item(1, "Nghĩa duy nhất.")
    assert wrong_source(alone, [alone], seed=0) == (None, False)
    with pytest.raises(ValueError, match="at least two items"):
        derive(alone, [alone], seed=0)
    # Probes that need no wrong meaning still derive.
    assert set(derive(alone, [alone], seed=0, probes=["reference", "hedge"]).candidates) == {
        "reference",
        "hedge",
    }


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
        candidates = derive(item, SAMPLE, seed=1).candidates
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
        derivation = derive(item, SAMPLE, probes=["literal"])
        if LITERAL_TRAIT in item.trait_ids:
            continue  # left out: see test_literal_items_are_left_out_of_the_literal_probe
        assert derivation.candidates["literal"].text == literal_paraphrase(item.idiom)


def test_hedge_commits_to_no_meaning() -> None:
    texts = {derive(item, SAMPLE, seed=0, probes=["hedge"]).candidates["hedge"].text for item in SAMPLE}
    assert texts <= set(probe_texts.HEDGES) and len(texts) > 1


def test_every_sample_item_has_a_shipped_translation() -> None:
    english = english_meanings(SAMPLE)
    assert english is not None and set(english) == {item.id for item in SAMPLE}
    assert len(shipped_translations()) == len(SAMPLE)
    for item in SAMPLE:
        text = english[item.id]
        assert text and text.isascii() or "(" in text  # glosses quote Vietnamese words
        assert derive(item, SAMPLE, probes=["english"], english=english).candidates["english"].text == text


def test_translations_are_found_whatever_the_idiom_spelling() -> None:
    item = SAMPLE[10]  # Tình chàng ý thiếp
    respelled = VividItem(item.id, item.line, item.idiom.upper() + " ", item.meaning, item.theme_id, ())
    assert english_meanings([respelled]) == english_meanings([item])


def test_no_translation_for_items_outside_the_sample() -> None:
    assert english_meanings([_item(1, "Một nghĩa.")]) is None
    # The translator writes the candidate in the task; here it is left open.
    assert derive(_item(1, "Một nghĩa."), [], probes=["english"]).candidates["english"].text is None
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
        assert [c.candidates.get(probe) for c in first] == [c.candidates.get(probe) for c in other]


def test_every_candidate_is_nfc_and_not_empty_even_from_nfd_data() -> None:
    decomposed = [
        VividItem(
            i.id,
            i.line,
            unicodedata.normalize("NFD", i.idiom),
            unicodedata.normalize("NFD", i.meaning),
            i.theme_id,
            i.trait_ids,
        )
        for i in SAMPLE
    ]
    english = english_meanings(SAMPLE)
    for item, plain in zip(decomposed, SAMPLE, strict=True):
        derivation = derive(item, decomposed, seed=0, english=english)
        candidates = derivation.candidates
        # Only Literal items are left out of anything on the sample (of the literal probe).
        assert derivation.excluded == ({"literal": LITERAL_ITEM} if LITERAL_TRAIT in item.trait_ids else {})
        assert list(candidates) == [name for name in PROBES if name not in derivation.excluded]
        for candidate in candidates.values():
            assert candidate.text and _nfc(candidate.text), candidate
        assert derivation == derive(plain, SAMPLE, seed=0, english=english)


# --- no candidate equal to the reference, no empty one (review 15, finding 8) ------------------------

DEGENERATE = [
    pytest.param("Tốt.", {"partial", "padding"}, id="one-word"),
    pytest.param("A.", {"partial", "padding"}, id="one-letter"),
    pytest.param("Tốt", {"partial", "padding"}, id="one-word-no-stop"),
    pytest.param("  tốt!  ", {"partial", "padding"}, id="one-word-spaced-lowercase"),
    pytest.param("- Tốt -", {"partial", "padding"}, id="one-word-among-dashes"),
    pytest.param("… tốt …", {"partial", "padding"}, id="one-word-among-ellipses"),
    pytest.param("( Xạ : con cầy hương.) Thơm.", {"partial", "padding"}, id="gloss-then-one-word"),
    pytest.param("123", {"partial", "padding", "spelling"}, id="digits-only"),
    pytest.param("2024", {"partial", "padding", "spelling"}, id="year-only"),
    pytest.param("123.", {"partial", "padding"}, id="digits-and-stop"),
    pytest.param("…", {"partial", "padding", "spelling"}, id="ellipsis-only"),
    pytest.param("...", {"partial", "padding", "spelling"}, id="dots-only"),
    pytest.param("!?", {"partial", "padding", "spelling"}, id="punctuation-only"),
    pytest.param("123 456", set(), id="two-numbers"),
    pytest.param("Keo kiệt", set(), id="two-words"),
    pytest.param("Hoà", {"partial", "padding"}, id="one-word-with-tone-mark"),
]


def _reference_like(probe: str, text: str, reference: str) -> bool:
    # The same words as the reference: what a partial answer must never be.
    return idiom_key(text) in (idiom_key(reference), idiom_key(meaning_body(reference)))


@pytest.mark.parametrize(("meaning", "left_out"), DEGENERATE)
def test_a_meaning_that_cannot_make_a_candidate_is_left_out_of_that_probe(
    meaning: str, left_out: set[str]
) -> None:
    item = _item(1, meaning)
    pool = [item, _item(2, "Cha mẹ thương con cái hết lòng.")]
    english = {1: "Good.", 2: "Parents love their children."}
    derivation = derive(item, pool, seed=0, english=english)
    assert set(derivation.excluded) == left_out
    assert set(derivation.candidates) | set(derivation.excluded) == set(PROBES)
    reference = unicodedata.normalize("NFC", meaning).strip()
    for name, candidate in derivation.candidates.items():
        assert candidate.text and candidate.text.strip(), name  # never an empty candidate
        if name not in ("reference", "retest"):  # the control is the reference, judged again
            assert candidate.text != reference, name  # never the reference itself
    partial = derivation.candidates.get("partial")
    if partial is not None:
        assert partial.text is not None and not _reference_like("partial", partial.text, meaning)
        assert len(partial.text.split()) < len(meaning_body(meaning).split())
    spelling = derivation.candidates.get("spelling")
    if spelling is not None:
        assert spelling.text is not None and spelling.text != reference
        assert unicodedata.normalize("NFD", spelling.text) != unicodedata.normalize("NFD", reference)
        assert idiom_key(spelling.text) == idiom_key(reference)


@pytest.mark.parametrize(("meaning", "left_out"), DEGENERATE)
def test_partial_and_spelling_say_none_rather_than_repeat_the_reference(
    meaning: str, left_out: set[str]
) -> None:
    assert (partial_meaning(meaning) is None) == ("partial" in left_out)
    assert (spelling_variant(meaning) is None) == ("spelling" in left_out)


@pytest.mark.parametrize(
    ("reason", "meanings"),
    [
        pytest.param(ONE_WORD, ["Tốt.", "A."], id="one-word"),
        pytest.param(NO_WORD, ["…"], id="no-word"),
    ],
)
def test_left_out_items_are_named_in_the_notes(reason: str, meanings: list[str]) -> None:
    items = [_item(i, meaning) for i, meaning in enumerate(meanings, start=1)]
    excluded: dict[str, dict[int, str]] = {}
    for item in items:
        for probe, why in derive(item, items, seed=0, probes=["partial", "padding"]).excluded.items():
            excluded.setdefault(probe, {})[item.id] = why
    (note,) = exclusion_notes(excluded)
    ids = [item.id for item in items]
    assert note == f"partial, padding: {len(ids)} item(s) left out ({reason}): ids {ids}"


@pytest.mark.slow
def test_only_the_degenerate_items_are_left_out_of_an_audit_and_the_card_names_them(tmp_path: Path) -> None:
    data = _csv(
        tmp_path,
        [
            ("Con gà trống", "Tốt."),
            ("Con vịt bầu", "Người hiền lành, chăm chỉ thì được quý mến."),
            ("Số", "123"),
        ],
    )
    card = run_audit(
        "vivid/chrf",
        data=str(data),
        probes="spelling,partial",
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    results = {result.probe: result for result in card.results}
    assert results["reference"].n_items == 3
    assert results["partial"].n_items == 1  # the two-word-or-more meaning only
    assert results["spelling"].n_items == 2  # "123" has no other spelling
    assert results["partial"].mean < 5  # a real partial answer, not the reference again
    assert any(note.startswith("partial: 2 item(s) left out") and "ids [1, 3]" in note for note in card.notes)
    assert any(note.startswith("spelling: 1 item(s) left out") and "ids [3]" in note for note in card.notes)


@pytest.mark.slow
def test_a_probe_no_item_can_make_is_not_run_and_the_card_says_so(tmp_path: Path) -> None:
    data = _csv(tmp_path, [("Con gà trống", "Tốt.")])
    card = run_audit(
        "vivid/chrf", data=str(data), probes="partial", log_dir=str(tmp_path / "logs"), display="none"
    )
    assert [result.probe for result in card.results] == ["reference"]
    assert any("not run" in note and "partial" in note for note in card.notes)
    assert len(list((tmp_path / "logs").glob("*.eval"))) == 1


# --- the wrong meaning is never the item's own, nor a near-copy (review 15, finding 7) -----------

OWN = "Biết ơn người đã giúp đỡ mình."


@pytest.mark.parametrize(
    "copy",
    [
        pytest.param("Biết ơn người đã giúp đỡ mình!", id="other-punctuation"),
        pytest.param("Biết ơn người đã giúp đỡ mình", id="no-stop"),
        pytest.param("Biết  ơn   người đã giúp đỡ mình.", id="other-spacing"),
        pytest.param("BIẾT ƠN NGƯỜI ĐÃ GIÚP ĐỠ MÌNH.", id="upper-case"),
        pytest.param(unicodedata.normalize("NFD", OWN), id="nfd"),
        pytest.param("( Ơn : điều tốt được nhận.) Biết ơn người đã giúp đỡ mình.", id="with-a-gloss"),
        pytest.param("Biết ơn, người đã giúp đỡ mình…", id="comma-and-ellipsis"),
        pytest.param("Biết ơn người đã giúp đỡ cho mình.", id="one-word-added"),
        pytest.param("Biết ơn người đã giúp.", id="shortened"),
        pytest.param("Biết ơn người đã giúp đỡ mình, không bao giờ quên.", id="clause-added"),
        pytest.param("Luôn biết ơn những người đã giúp đỡ mình.", id="words-around"),
    ],
)
def test_a_wrong_meaning_is_never_the_items_own_meaning_or_a_near_copy(copy: str) -> None:
    item = _item(1, OWN, theme=3)
    different = _item(3, "Trời sắp mưa thì chuồn chuồn bay thấp.", theme=3)
    pool = [item, _item(2, copy, theme=3), different]
    for seed in range(12):
        other, same_theme = wrong_source(item, pool, seed)
        assert other == different and same_theme
    assert meaning_similarity(OWN, copy) >= NEAR_DUPLICATE_CHRF


@pytest.mark.parametrize(
    ("own", "copy"),
    [
        pytest.param("Hoà thuận trong gia đình.", "Hòa thuận trong gia đình.", id="old-new-tone-marks"),
        pytest.param("Sức khoẻ là vàng.", "sức khỏe là vàng!", id="tone-marks-case-punctuation"),
        pytest.param("Biết ơn.", "Biết  ơn", id="review-spacing"),
        pytest.param("Biết ơn.", "Biết ơn!", id="review-punctuation"),
    ],
)
def test_meanings_in_another_spelling_share_one_key(own: str, copy: str) -> None:
    assert meaning_key(own) == meaning_key(copy)
    assert meaning_similarity(own, copy) == 100.0


def test_with_only_copies_of_its_meaning_the_item_is_left_out_of_the_wrong_probes() -> None:
    item = _item(1, "Biết ơn.")
    pool = [item, _item(2, "Biết  ơn"), _item(3, "Biết ơn!")]
    assert wrong_source(item, pool, 0) == (None, False)
    derivation = derive(item, pool, seed=3)
    assert derivation.excluded == dict.fromkeys(
        ("wrong", "authority", "injected_vi", "injected_en"), NO_WRONG
    )
    assert not set(derivation.candidates) & {"wrong", "authority", "injected_vi", "injected_en"}


def test_copies_in_its_theme_send_the_wrong_meaning_to_another_theme() -> None:
    item = _item(1, "Biết ơn.", theme=1)
    pool = [item, _item(2, "Biết ơn!", theme=1), _item(3, "Trời mưa thì đường trơn.", theme=2)]
    other, same_theme = wrong_source(item, pool, 0)
    assert other is not None and other.id == 3 and not same_theme


@pytest.mark.slow
def test_sample_meanings_that_differ_stay_below_the_near_copy_bound() -> None:
    # The bound leaves every sample pair a wrong meaning can come from: it removes copies only.
    worst = max(
        meaning_similarity(one.meaning, two.meaning) for one in SAMPLE for two in SAMPLE if one.id < two.id
    )
    assert worst < NEAR_DUPLICATE_CHRF


def test_the_reviewers_duplicates_no_longer_score_a_wrong_meaning_5(tmp_path: Path) -> None:
    data = _csv(
        tmp_path,
        [("Con gà trống", "Biết ơn."), ("Con vịt bầu", "Biết  ơn"), ("Con mèo mướp", "Biết ơn!")],
    )
    card = run_audit(
        "vivid/chrf", data=str(data), probes="wrong", seed=3, log_dir=str(tmp_path / "logs"), display="none"
    )
    assert [result.probe for result in card.results] == ["reference"]
    assert any("wrong" in note and "not run" in note for note in card.notes)


# --- the literal probe leaves out Literal items (review 15, finding 13) ----------------------------


def test_literal_items_are_left_out_of_the_literal_probe() -> None:
    literal_ids = {item.id for item in SAMPLE if LITERAL_TRAIT in item.trait_ids}
    assert literal_ids  # the sample has some (as 16.5 % of the real data)
    for item in SAMPLE:
        derivation = derive(item, SAMPLE, seed=0, probes=["literal"])
        if item.id in literal_ids:
            assert derivation.excluded == {"literal": LITERAL_ITEM} and not derivation.candidates
        else:
            assert set(derivation.candidates) == {"literal"} and not derivation.excluded


@pytest.mark.parametrize(
    ("traits", "left_out"),
    [
        pytest.param((LITERAL_TRAIT,), True, id="literal-only"),
        pytest.param((LITERAL_TRAIT, 4), True, id="literal-and-folk-knowledge"),
        pytest.param((2, 5), False, id="other-traits"),
        pytest.param((), False, id="no-trait"),
    ],
)
def test_the_literal_trait_decides_the_literal_probe(traits: tuple[int, ...], left_out: bool) -> None:
    item = VividItem(1, 2, "Chuồn chuồn bay thấp thì mưa", "Trời sắp mưa.", 4, traits)
    derivation = derive(item, [item], probes=["literal"])
    assert ("literal" in derivation.excluded) == left_out
    assert ("literal" in derivation.candidates) != left_out


def test_an_audit_notes_the_literal_items_it_leaves_out() -> None:
    from vivid_inspect.lab.audit.run import prepare_items

    prepared = prepare_items(data="sample", limit=None, seed=0, probes="literal", translator=None)
    literal_ids = sorted(item.id for item in prepared.items if LITERAL_TRAIT in item.trait_ids)
    assert sorted(prepared.excluded["literal"]) == literal_ids
    assert set(prepared.candidates["literal"]).isdisjoint(literal_ids)
    (note,) = [note for note in prepared.notes if note.startswith("literal:")]
    assert f"ids {literal_ids}" in note and "Literal trait" in note


# --- an unusable translation does not poison the cache (review 15, finding 3) ----------------------

GOOD = "Be grateful to those who helped you."
UNUSABLE = [
    pytest.param(lambda: output("<think>…</think>  "), "empty translation", id="empty-after-reasoning"),
    pytest.param(lambda: output("   \n "), "empty translation", id="whitespace-only"),
    pytest.param(lambda: _cut("<think>First, the idiom means"), "cut off at max_tokens", id="cut-mid-think"),
    pytest.param(lambda: _cut("Be grateful to those"), "cut off at max_tokens", id="cut-mid-translation"),
]


def _cut(text: str) -> ModelOutput:
    result = output(text)
    result.choices[0].stop_reason = "max_tokens"
    return result


def _translator(reply: Callable[[int], ModelOutput], calls: list[int | None]) -> Model:
    """A scripted translator: ``reply(n)`` for the n-th ask about one meaning; ``calls`` gets each max_tokens."""
    asked: dict[str, int] = {}

    def respond(
        messages: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice, config: GenerateConfig
    ) -> ModelOutput:
        prompt = prompt_text(messages)
        asked[prompt] = asked.get(prompt, 0) + 1
        calls.append(config.max_tokens)
        return reply(asked[prompt] - 1)

    return get_model("mockllm/translator", custom_outputs=respond, memoize=False)


def _english_audit(translator: Model, logs: Path) -> AuditCard:
    return run_audit(
        "vivid/chrf", limit=2, probes="english", translator=translator, log_dir=str(logs), display="none"
    )


@pytest.mark.slow
@pytest.mark.parametrize(("bad", "message"), UNUSABLE)
def test_an_unusable_translation_is_asked_again_and_a_rerun_replays_the_good_one(
    bad: Callable[[], ModelOutput], message: str, tmp_path: Path
) -> None:
    first: list[int | None] = []
    card = _english_audit(_translator(lambda n: bad() if n == 0 else output(GOOD), first), tmp_path / "1")
    assert first == [400, 400, 800, 800]  # per item: the first ask, then a second one with more room
    english = read_eval_log(card.log_locations[-1])
    assert [sample.output.completion for sample in english.samples or []] == [GOOD, GOOD]
    again: list[int | None] = []
    rerun = _english_audit(_translator(lambda n: output("never asked"), again), tmp_path / "2")
    assert again == []  # both replies of each item come from the cache
    assert read_eval_log(rerun.log_locations[-1]).samples[0].output.completion == GOOD  # type: ignore[index]


@pytest.mark.slow
@pytest.mark.parametrize(("bad", "message"), UNUSABLE)
def test_a_translator_that_keeps_failing_is_a_clear_error_that_a_rerun_can_recover_from(
    bad: Callable[[], ModelOutput], message: str, tmp_path: Path
) -> None:
    failing: list[int | None] = []
    with pytest.raises(AuditError, match=f"english probe .*{message}") as error:
        _english_audit(_translator(lambda n: bad(), failing), tmp_path / "1")
    assert "of item" in str(error.value) and f"{TRANSLATION_ATTEMPTS} new calls in a row" in str(error.value)
    assert "re-run asks again" in str(error.value)
    assert len(failing) == 2 * TRANSLATION_ATTEMPTS  # bounded: 3 new calls per item
    # The translator now answers (the provider recovered, or --translator names a better one with the
    # same name): the cached unusable replies are replayed for free and the next scope is asked.
    recovered: list[int | None] = []
    card = _english_audit(_translator(lambda n: output(GOOD), recovered), tmp_path / "2")
    assert recovered == [TRANSLATOR_MAX_TOKENS] * 2  # one new call per item, under attempt scope 3
    assert [s.output.completion for s in read_eval_log(card.log_locations[-1]).samples or []] == [GOOD, GOOD]
    replayed: list[int | None] = []
    _english_audit(_translator(lambda n: output("never asked"), replayed), tmp_path / "3")
    assert replayed == []


def test_translation_requests_differ_in_scope_and_room() -> None:
    requests = [translation_request(attempt) for attempt in range(5)]
    assert [config.max_tokens for config, _ in requests] == [400, 800, 1600, 3200, 3200]
    assert [cache.scopes for _, cache in requests] == [{}, *({"attempt": str(n)} for n in range(1, 5))]
    assert all(not cache.per_epoch and config.temperature == 0.0 for config, cache in requests)
