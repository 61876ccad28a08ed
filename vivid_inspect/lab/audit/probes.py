"""The audit's probes: what each one asks the judge to score, and how its candidates are derived.

Each probe turns an item (idiom, reference meaning, theme) into one candidate explanation whose
right score is known relative to another probe's (``comparison``) or on the 0-5 scale itself
(``expectation``). Every derivation is deterministic and offline: the draws (which filler, which
other item's meaning, which injected line) come from `random.Random` seeded with the
audit's seed, the probe and the item id, so a re-run, or a run over more items, derives the same
candidate for the same item. The one exception is ``english`` without a shipped translation: the
``translator`` model role writes it (`vivid_inspect.lab.audit.task`).

The first probe, ``retest``, is the control: the reference judged again as a fresh call, in its own
cache scope. Its differences from the reference are the judge's test-retest noise on the same
items, the floor the invariance probes' flips are judged against
([`vivid_inspect.lab.audit.verdicts`][vivid_inspect.lab.audit.verdicts]); every invariance probe brings it.

All candidates are NFC. The spelling variant is not an NFD copy: the judge normalises NFD away
before the prompt, so an NFD variant would test nothing.

Some items cannot make some probes' candidates: a one-word meaning has no shorter part, ``123``
has no other spelling, an item with the Literal trait is rightly explained word for word, and an
item whose meaning every other item's nearly repeats has no wrong meaning. Such an item is left out
of those probes (`Derivation` ``excluded``, named in the card's notes by
`exclusion_notes`), never given a candidate equal to the reference or an empty one.
"""

from __future__ import annotations

import csv
import io
import random
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from vivid_inspect.baselines.answers import literal_paraphrase
from vivid_inspect.data import VividItem, idiom_key
from vivid_inspect.lab.audit import probe_texts
from vivid_inspect.lab.audit.verdicts import INVARIANCE
from vivid_inspect.scorers.lexical import chrf
from vivid_inspect.taxonomy import TRAIT_BY_CODE
from vivid_inspect.text import nfc

PROBE_VERSION = 3
"""Version of the derivations and texts below; recorded in every probe log (``probe_version``).

3: the ``retest`` control (the reference judged again); the invariance probes bring it."""


@dataclass(frozen=True)
class Probe:
    """One probe of the audit.

    Attributes:
        name: The probe's name (``reference``, ``padding``, ...), also its log's task name suffix.
        comparison: The probe whose scores this one's are compared with, item by item; None for
            the base.
        expectation: What a sound judge does: ``repeat`` (the control), ``high``, ``same``,
            ``lower``, ``not_higher``, ``at_most_1`` or ``within_1`` (see
            [`vivid_inspect.lab.audit.verdicts`][vivid_inspect.lab.audit.verdicts]).
        description: One line saying what the candidate is.
    """

    name: str
    comparison: str | None
    expectation: str
    description: str


PROBES: dict[str, Probe] = {
    probe.name: probe
    for probe in (
        Probe(
            "retest",
            "reference",
            "repeat",
            "the reference judged again as a fresh call: the judge's test-retest noise (the control)",
        ),
        Probe("reference", None, "high", "the reference meaning itself"),
        Probe(
            "spelling", "reference", "same", "the reference with tone marks moved, case and spacing changed"
        ),
        Probe("partial", "reference", "lower", "the reference cut to its first clause or half"),
        Probe("padding", "partial", "not_higher", "the partial answer plus filler that adds no meaning"),
        Probe("wrong", "reference", "at_most_1", "the reference of another item of the same theme"),
        Probe("literal", "reference", "at_most_1", "vivid/literal's word-for-word restatement"),
        Probe(
            "authority", "wrong", "not_higher", "the wrong meaning after an appeal to a dictionary or expert"
        ),
        Probe(
            "injected_vi",
            "wrong",
            "not_higher",
            "the wrong meaning then a verdict or order to give 5, in Vietnamese",
        ),
        Probe(
            "injected_en",
            "wrong",
            "not_higher",
            "the wrong meaning then a verdict or order to give 5, in English",
        ),
        Probe("english", "reference", "within_1", "the reference meaning in English"),
        Probe("hedge", "reference", "at_most_1", "a non-answer that commits to no meaning"),
    )
}
"""Every probe, in the card's order."""

ENGLISH = "english"
CONTROL_PROBE = "retest"
"""The control probe: every invariance probe's flips are counted beyond its flips."""
RETEST_REPEAT = 1
"""The judge's repeat number of the control's calls: the cache scope ``repeat=1``, apart from the
reference's own calls, so the control is a fresh call and never a replay of the reference's reply."""
WRONG_PROBES = ("wrong", "authority", "injected_vi", "injected_en")
"""The probes built on another item's meaning."""


def parse_probes(spec: str | Iterable[str] | None) -> list[str]:
    """The probes to run, in card order, with the probes they are compared with added.

    Args:
        spec: None (every probe), a comma list (``padding,english``) or names.

    Returns:
        Probe names in `PROBES` order; ``padding`` brings ``partial`` and ``reference``,
        ``authority`` brings ``wrong``, and so on, since a shift needs both sides; an invariance
        probe (``spelling``, ``padding``, ...) brings the ``retest`` control, its noise floor.

    Raises:
        ValueError: A name is unknown, or the list is empty.
    """
    if spec is None:
        return list(PROBES)
    names = [part.strip() for part in spec.split(",")] if isinstance(spec, str) else list(spec)
    names = [name for name in names if name]
    if not names:
        raise ValueError(f"no probe named; expected some of {', '.join(PROBES)}")
    unknown = [name for name in names if name not in PROBES]
    if unknown:
        raise ValueError(f"unknown probe(s) {', '.join(unknown)}; expected some of {', '.join(PROBES)}")
    wanted = set(names)
    if any(PROBES[name].expectation in INVARIANCE for name in names):
        wanted.add(CONTROL_PROBE)
    for name in list(wanted):
        comparison = PROBES[name].comparison
        while comparison is not None:
            wanted.add(comparison)
            comparison = PROBES[comparison].comparison
    return [name for name in PROBES if name in wanted]


class MissingTranslationError(ValueError):
    """The ``english`` probe has no translation to use: none shipped, and no translator model."""


# --- the shipped translations ------------------------------------------------------------------

TRANSLATIONS_FILE = "translations.csv"
"""Hand-written English meanings of every item of the bundled sample, keyed by idiom."""


@lru_cache(maxsize=1)
def shipped_translations() -> dict[str, str]:
    """The shipped English meanings, keyed by [`idiom_key`][vivid_inspect.data.idiom_key] of the idiom."""
    text = resources.files("vivid_inspect.lab.audit").joinpath(TRANSLATIONS_FILE).read_text("utf-8")
    return {idiom_key(row["idiom"]): nfc(row["english"]).strip() for row in csv.DictReader(io.StringIO(text))}


def english_meanings(items: Sequence[VividItem]) -> dict[int, str] | None:
    """The shipped English meaning of each item, or None when any item has none."""
    shipped = shipped_translations()
    found = {item.id: shipped.get(idiom_key(item.idiom)) for item in items}
    if any(text is None for text in found.values()):
        return None
    return {item_id: text for item_id, text in found.items() if text is not None}


# --- derivations ---------------------------------------------------------------------------------

_TONES = "\u0300\u0301\u0303\u0309\u0323"
# In NFD: an open diphthong oa/oe/uy with its tone mark after the first vowel (old style) or after
# the second (new style), and no letter or mark after it (hoàng, thuyền, hoặc have one spelling).
# `qu` + `y` is not the diphthong `uy` (quý has one spelling), hence the look-behind.
_DIPHTHONG = re.compile(
    rf"(?<![qQ])(?P<first>[oO](?=[{_TONES}]?[aAeE])|[uU](?=[{_TONES}]?[yY]))"
    rf"(?P<old>[{_TONES}]?)(?P<second>[aAeEyY])(?P<new>[{_TONES}]?)(?![\w\u0300-\u036f])"
)


def _swap(match: re.Match[str]) -> str:
    first, old, second, new = match.group("first", "old", "second", "new")
    if bool(old) == bool(new):  # no tone mark (hoa), or one on each vowel (not Vietnamese)
        return match.group(0)
    return first + second + old if old else first + new + second


def swap_tone_marks(text: str) -> str:
    """Move the tone mark of every open ``oa``/``oe``/``uy`` to its other accepted place.

    ``hoà`` → ``hòa`` and ``hòa`` → ``hoà``, ``thuỷ`` ↔ ``thủy``; syllables with one spelling only
    (``hoàng``, ``quý``, ``mùa``) are kept.

    Args:
        text: Any text.

    Returns:
        The text in NFC.
    """
    return unicodedata.normalize("NFC", _DIPHTHONG.sub(_swap, unicodedata.normalize("NFD", text)))


_SPACED_PUNCTUATION = re.compile(r"([,;:]) ")
_FINAL_STOP = re.compile(r"(\S)([.!?…])$")


def spelling_variant(reference: str) -> str | None:
    """The reference with another spelling and nothing else: tone marks moved, case and spacing changed.

    Tone marks of ``oa``/``oe``/``uy`` move to their other accepted place, the first letter's case
    flips, an extra space follows every comma, semicolon and colon, and a space comes before the
    final full stop (or, without punctuation, between the first two words). The words, their
    order and the meaning are untouched, so a judge should score it as the reference.

    Args:
        reference: The reference meaning.

    Returns:
        An NFC text that differs from the reference in NFC (not only in normalisation form) and
        has the same words ([`idiom_key`][vivid_inspect.data.idiom_key]); None when there is none: a
        meaning without any word (only punctuation), or one with no letter to re-case, no space and
        no final stop (``123``).
    """
    original = nfc(reference).strip()
    if not idiom_key(original):
        return None
    text = swap_tone_marks(original)
    for index, char in enumerate(text):
        if char.isalpha() and char.swapcase() != char:
            text = text[:index] + char.swapcase() + text[index + 1 :]
            break
    spaced = _FINAL_STOP.sub(r"\1 \2", _SPACED_PUNCTUATION.sub(r"\1  ", text))
    if spaced == text:
        spaced = text.replace(" ", "  ", 1)
    variant = nfc(spaced)
    # A swapcase that changes the key (a letter whose case pair folds differently) is not a respelling.
    if variant == original or idiom_key(variant) != idiom_key(original):
        return None
    return variant


_LEADING_GLOSS = re.compile(r"^\s*\([^()]*\)\s*")
_TRAILING_GLOSS = re.compile(r"\s*\([^()]*\)\s*$")
_CLAUSE_END = re.compile(r"[,;:.!?…]")


def meaning_body(meaning: str) -> str:
    """A meaning without the word glosses some references open or close with (``( Xạ : con cầy hương.)``)."""
    text = nfc(meaning).strip()
    body = _TRAILING_GLOSS.sub("", _LEADING_GLOSS.sub("", text)).strip()
    return body or text


def meaning_key(meaning: str) -> str:
    """The form under which two meanings are the same text: the body's [`idiom_key`][vivid_inspect.data.idiom_key].

    NFC, tone-mark placement unified, case folded, punctuation dropped, whitespace collapsed; so
    ``"Biết ơn."``, ``"biết  ơn"`` and ``"Biết ơn!"`` share one key.
    """
    return idiom_key(meaning_body(meaning))


def _words(text: str) -> list[str]:
    # A token of punctuation only ("-", "…", "(") is no word: it cannot carry part of a meaning.
    return [token for token in text.split() if any(char.isalnum() for char in token)]


def partial_meaning(meaning: str) -> str | None:
    """The reference cut to its first clause, or to its first half when that clause is too long.

    The first clause (up to the first ``,;:.!?…``) is used when it has at least 2 words and at most
    60 % of the words; otherwise the first half of the words (at least one word fewer than the
    whole). Word glosses are dropped first (`meaning_body`); tokens of punctuation only are
    not words.

    Args:
        meaning: The reference meaning.

    Returns:
        The partial answer, ending with a full stop, with fewer words than the reference and a
        different `meaning_key`; None when the meaning has fewer than two words (``Tốt.``,
        ``123``, ``…``): no shorter answer keeps part of it.
    """
    body = meaning_body(meaning)
    words = _words(body)
    if len(words) < 2:
        return None
    end = _CLAUSE_END.search(body)
    clause = _words(body[: end.start()]) if end else words
    kept = clause if 2 <= len(clause) <= 0.6 * len(words) else words[: len(words) // 2]
    partial = " ".join(kept).rstrip(",;:.!?… ") + "."
    key = idiom_key(partial)
    if not key or key in (meaning_key(meaning), idiom_key(meaning)):
        return None
    return partial


def _rng(probe: str, seed: int, item: VividItem) -> random.Random:
    # A string seed is hashed with SHA-512: the same draw in every process and Python version.
    return random.Random(f"vivid-audit:{probe}:{seed}:{item.id}")


def padded(partial: str, idiom: str, rng: random.Random) -> str:
    """The partial answer followed by filler sentences that add no meaning."""
    filler = rng.sample(probe_texts.PADDING_FILLER, probe_texts.PADDING_SENTENCES)
    return nfc(" ".join([partial, *(sentence.format(idiom=idiom) for sentence in filler)]))


NEAR_DUPLICATE_CHRF = 50.0
"""Two meanings whose keys (`meaning_key`) reach this chrF, either way round, are near-copies.

Measured on the keys: near-copies score well above it (one word changed in "Kiên trì, bền bỉ thì
việc khó đến đâu cũng làm được." 81.8; a clause added to "Người có tài thì tự khắc được biết
đến." 77.5; "Biết ơn." inside "Biết ơn người khác." 64.5), and the most alike meanings of the
bundled sample well below it (34.5 for two that say different things). Two wordings of one
meaning are not near-copies and stay below it too ("Kiên trì, bền bỉ thì việc khó đến đâu cũng
làm được." against "Kiên nhẫn, bền bỉ mãi thì việc khó mấy cũng thành." scores 38.3): no lexical
bound tells them from different meanings, which is the limit docs/audit.md states."""


def meaning_similarity(first: str, second: str) -> float:
    """The chrF (0-100) between two meanings' keys, the higher of the two directions.

    chrF weighs recall above precision, so one meaning contained in a longer one scores high one
    way round only; taking the higher of the two catches both.
    """
    one, two = meaning_key(first), meaning_key(second)
    if one == two:
        return 100.0
    if not one or not two:
        return 0.0
    return max(chrf(one, two), chrf(two, one))


def _differs(item: VividItem, other: VividItem) -> bool:
    # A meaning of punctuation only ("…") says nothing, so it tests no judge as a wrong meaning.
    return (
        bool(meaning_key(other.meaning))
        and meaning_key(other.meaning) != meaning_key(item.meaning)
        and meaning_similarity(item.meaning, other.meaning) < NEAR_DUPLICATE_CHRF
    )


def _draw(item: VividItem, choices: list[VividItem], rng: random.Random) -> VividItem | None:
    # Draw, then check: only the drawn meanings are compared (a pool of thousands stays fast), and
    # the draw depends on the seed and the sorted pool only.
    remaining = sorted(choices, key=lambda other: other.id)
    while remaining:
        other = rng.choice(remaining)
        if _differs(item, other):
            return other
        remaining.remove(other)
    return None


def wrong_source(item: VividItem, pool: Sequence[VividItem], seed: int) -> tuple[VividItem | None, bool]:
    """The item whose meaning is this item's wrong meaning.

    A wrong meaning is never the item's own meaning in another spelling, case, spacing or
    punctuation (`meaning_key`), nor a near-copy of it (`meaning_similarity` at least
    `NEAR_DUPLICATE_CHRF`). Two proverbs that say the same thing in different words are not
    told apart: that limit is documented in docs/audit.md.

    Args:
        item: The audited item.
        pool: Every item the meaning may come from (the whole loaded data, not only the audited ones,
            so that a small ``--limit`` still finds items of the same theme).
        seed: The audit's seed.

    Returns:
        ``(other, same_theme)``: another item of the same theme with a different meaning, drawn
        with the seed; when the theme has no other such item, any other such item, and
        ``same_theme`` is False; ``(None, False)`` when there is none at all.
    """
    others = [
        other for other in pool if other.id != item.id and idiom_key(other.idiom) != idiom_key(item.idiom)
    ]
    rng = _rng("wrong", seed, item)
    same = _draw(item, [other for other in others if other.theme_id == item.theme_id], rng)
    if same is not None:
        return same, True
    return _draw(item, [other for other in others if other.theme_id != item.theme_id], rng), False


LITERAL_TRAIT = next(code for code, label in TRAIT_BY_CODE.items() if label.name == "Literal")
"""The complexity trait of an idiom that means what its words say (``Nghĩa đen thuần tuý``)."""

NO_WORD = "its meaning has no word"
ONE_WORD = "its meaning has fewer than two words: no shorter answer keeps part of it"
NO_RESPELLING = "its meaning has no letter to re-case, no space and no final stop: no other spelling"
LITERAL_ITEM = (
    "it has the Literal trait: a word-for-word restatement is a right explanation, not one worth at most 1"
)
LITERAL_IS_REFERENCE = "the word-for-word restatement is the reference itself"
NO_WRONG = "every other item's meaning is the same as its own or a near-copy of it"


@dataclass(frozen=True)
class Candidate:
    """One probe's candidate explanation of one item.

    Attributes:
        probe: The probe.
        item_id: The item's id (its sample id).
        text: The candidate; None for ``english`` when the translator model writes it.
        source_id: For the probes built on a wrong meaning, the item it was borrowed from.
        note: Why the derivation departed from its rule, if it did (empty otherwise).
    """

    probe: str
    item_id: int
    text: str | None
    source_id: int | None = None
    note: str = ""


@dataclass(frozen=True)
class Derivation:
    """Every wanted probe's candidate for one item, and the probes the item is left out of.

    Attributes:
        candidates: Probe name -> candidate, in `PROBES` order.
        excluded: Probe name -> why this item has no candidate for it (one of the reasons above:
            `ONE_WORD`, `NO_RESPELLING`, `LITERAL_ITEM`, ...).
    """

    candidates: dict[str, Candidate]
    excluded: dict[str, str]


def derive(
    item: VividItem,
    pool: Sequence[VividItem],
    *,
    seed: int = 0,
    probes: Sequence[str] | None = None,
    english: Mapping[int, str] | None = None,
) -> Derivation:
    """Every probe's candidate for one item, or why the item is left out of a probe.

    Args:
        item: The audited item.
        pool: The items a wrong meaning may be borrowed from (see `wrong_source`).
        seed: Seed of every draw.
        probes: The probes wanted (default: all).
        english: Item id -> English meaning; None when the translator writes it (text None).

    Returns:
        The candidates and the exclusions; each wanted probe is in exactly one of them.

    Raises:
        ValueError: A wrong meaning is needed and the pool has no other item.
    """
    wanted = list(PROBES) if probes is None else [name for name in PROBES if name in probes]
    reference = nfc(item.meaning).strip()
    partial = partial_meaning(reference)
    texts: dict[str, str | None] = {
        CONTROL_PROBE: reference,
        "reference": reference,
        "spelling": spelling_variant(reference),
        "partial": partial,
        "padding": None if partial is None else padded(partial, item.idiom, _rng("padding", seed, item)),
        "literal": literal_paraphrase(item.idiom),
        "hedge": _rng("hedge", seed, item).choice(probe_texts.HEDGES),
        ENGLISH: None if english is None else english.get(item.id),
    }
    no_word = not meaning_key(reference)
    excluded: dict[str, str] = {}
    if texts["spelling"] is None:
        excluded["spelling"] = NO_WORD if no_word else NO_RESPELLING
    if partial is None:
        excluded["partial"] = excluded["padding"] = NO_WORD if no_word else ONE_WORD
    if LITERAL_TRAIT in item.trait_ids:
        excluded["literal"] = LITERAL_ITEM
    elif idiom_key(literal_paraphrase(item.idiom)) == idiom_key(reference):
        excluded["literal"] = LITERAL_IS_REFERENCE
    source_id: int | None = None
    note = ""
    if set(WRONG_PROBES) & set(wanted):
        other, same_theme = wrong_source(item, pool, seed)
        if other is None:
            if not any(
                candidate.id != item.id and idiom_key(candidate.idiom) != idiom_key(item.idiom)
                for candidate in pool
            ):
                raise ValueError(
                    f"item {item.id} ({item.idiom!r}): no other item to borrow a wrong meaning from; "
                    "the wrong, authority and injected probes need at least two items"
                )
            excluded |= dict.fromkeys(WRONG_PROBES, NO_WRONG)
        else:
            wrong = meaning_body(other.meaning)
            source_id = other.id
            if not same_theme:
                note = f"no other item of theme {item.theme_id}: wrong meaning from another theme"
            texts |= {
                "wrong": wrong,
                "authority": f"{_rng('authority', seed, item).choice(probe_texts.AUTHORITY_PREFIXES)} {wrong}",
                "injected_vi": f"{wrong}\n\n{_rng('injected_vi', seed, item).choice(probe_texts.INJECTED_VI)}",
                "injected_en": f"{wrong}\n\n{_rng('injected_en', seed, item).choice(probe_texts.INJECTED_EN)}",
            }
    candidates: dict[str, Candidate] = {}
    for name in wanted:
        if name in excluded:
            continue
        text = texts[name]
        borrowed = name in WRONG_PROBES
        candidates[name] = Candidate(
            name,
            item.id,
            None if text is None else nfc(text),
            source_id if borrowed else None,
            note if borrowed else "",
        )
    return Derivation(candidates, {name: excluded[name] for name in wanted if name in excluded})


def exclusion_notes(excluded: Mapping[str, Mapping[int, str]]) -> tuple[str, ...]:
    """The card's notes naming the items left out of probes, one line per reason and id list.

    Args:
        excluded: Probe -> item id -> reason (as `Derivation.excluded`, gathered over items).

    Returns:
        Lines such as ``partial, padding: 2 item(s) left out (its meaning has fewer than two
        words: ...): ids [3, 7]``, in `PROBES` order.
    """
    groups: dict[tuple[str, tuple[int, ...]], list[str]] = {}
    for probe in PROBES:
        by_reason: dict[str, list[int]] = {}
        for item_id, reason in (excluded.get(probe) or {}).items():
            by_reason.setdefault(reason, []).append(item_id)
        for reason, ids in by_reason.items():
            groups.setdefault((reason, tuple(sorted(ids))), []).append(probe)
    return tuple(
        f"{', '.join(probes)}: {len(ids)} item(s) left out ({reason}): ids {list(ids)}"
        for (reason, ids), probes in groups.items()
    )
