"""Spelling-insensitive forms of Vietnamese text: tone-mark placement, final y/i and the idiom key.

Vietnamese has two accepted places for the tone mark in the open diphthongs ``oa``, ``oe`` and
``uy``: the old style puts it on the first vowel (``hòa``, ``khỏe``, ``thủy``), the new style on
the second (``hoà``, ``khoẻ``, ``thuỷ``). Both spellings occur in dictionaries, in the data and in
model output, and NFC does not make them equal. `unify_tone_marks` rewrites the old style
into the new one.

A syllable whose only vowel is a final ``i`` or ``y`` after its initial consonant is also written
both ways (``kỹ``/``kĩ``, ``lý``/``lí``, ``mỹ``/``mĩ``, ``quý``/``quí``): the 1984 spelling rules
prefer ``i``, usage keeps ``y``. `unify_final_y` writes ``i`` there and nowhere else, because
everywhere else the two letters are different sounds or one spelling only: after a vowel (``tay``
is not ``tai``, ``tuy`` is not ``tui``, ``cây``), at the start of a syllable (``y``, ``ý``,
``yêu``) and inside a rhyme (``khuyên``, ``tiên``). `idiom_key` builds on both to decide when
two idioms are the same idiom.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# The five tone marks as combining characters (NFD): grave, acute, tilde, hook above, dot below.
_TONES = "\u0300\u0301\u0303\u0309\u0323"
# In NFD, an old-style open diphthong is: o/u, its tone mark, then a/e (after o) or y (after u),
# with no further letter or mark in the syllable. A syllable with a final consonant or a third
# vowel (hoàng, thuyền, hoài, khuya) has one spelling only and does not match.
_OLD_STYLE = re.compile(
    rf"(?P<first>[oO])(?P<tone>[{_TONES}])(?P<second>[aAeE])(?![\w\u0300-\u036f])"
    rf"|(?P<first_u>[uU])(?P<tone_u>[{_TONES}])(?P<second_u>[yY])(?![\w\u0300-\u036f])"
)
# A whole syllable (in NFD) made of an initial consonant, then a lone y or i and at most its tone
# mark. The initials are the 27 of Vietnamese spelling; "qu" counts as one (quý/quí are one word),
# and the longer digraphs come first so that "ngh" is not read as "n" + vowel.
_INITIALS = "ngh|ng|nh|ch|gh|gi|kh|ph|th|tr|qu|[bcdđghklmnprstvx]"
_FINAL_Y = re.compile(
    rf"(?<![\w\u0300-\u036f])(?P<initial>{_INITIALS})[yY](?P<tone>[{_TONES}]?)(?![\w\u0300-\u036f])",
    re.IGNORECASE,
)
# Everything that is not a letter or digit (punctuation, symbols, "_", whitespace) separates words.
_NOT_WORD = re.compile(r"[\W_]+")


def _to_new_style(match: re.Match[str]) -> str:
    if match.group("first") is not None:
        return match.group("first") + match.group("second") + match.group("tone")
    return match.group("first_u") + match.group("second_u") + match.group("tone_u")


def unify_tone_marks(text: str) -> str:
    """Move old-style tone marks of ``oa``, ``oe``, ``uy`` to the new-style place; NFC out.

    ``hòa`` → ``hoà``, ``khỏe`` → ``khoẻ``, ``thủy`` → ``thuỷ``, ``Ủy`` → ``Uỷ``; case, other
    letters and every other syllable are kept (``mùa``, ``hoàng``, ``thuyền``, ``quý`` have one
    spelling only).

    Args:
        text: Any text, in any Unicode normalisation form.

    Returns:
        The text in NFC with every open ``oa``/``oe``/``uy`` diphthong in the new style.
    """
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFC", _OLD_STYLE.sub(_to_new_style, decomposed))


def unify_final_y(text: str) -> str:
    """Write ``i`` for a syllable's lone final ``y`` after an initial consonant; NFC out.

    ``kỹ`` → ``kĩ``, ``Lý`` → ``Lí``, ``Mỹ`` → ``Mĩ``, ``quý`` → ``quí``, ``tỷ`` → ``tỉ``; the tone
    mark and case are kept. ``y`` after a vowel (``tay``, ``tuy``, ``thuỷ``, ``cây``), at the start
    of a syllable (``y``, ``ý``, ``yêu``) or followed by more letters (``khuyên``, ``huỳnh``) is
    another letter there and stays.

    Args:
        text: Any text, in any Unicode normalisation form.

    Returns:
        The text in NFC with every such ``y`` written ``i`` (``Y`` as ``I``).
    """
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFC", _FINAL_Y.sub(_to_i, decomposed))


def _to_i(match: re.Match[str]) -> str:
    y = match.group(0)[len(match.group("initial"))]
    return match.group("initial") + ("I" if y == "Y" else "i") + match.group("tone")


@lru_cache(maxsize=1 << 16)
def idiom_key(text: str) -> str:
    """The form under which two spellings of one idiom compare equal.

    NFC, tone-mark placement unified (`unify_tone_marks`), a lone final ``y`` after a
    consonant written ``i`` (`unify_final_y`: ``kỹ``/``kĩ``), case folded, punctuation and
    symbols dropped, runs of whitespace collapsed to one space, ends stripped. So
    ``"Bán anh em xa, mua láng giềng gần"``, ``"bán anh em xa  mua láng giềng gần."`` and an NFD
    copy share one key, while a shorter or longer idiom does not (how close two different keys
    are is `vivid_inspect.data.leakage.similarity`).

    Args:
        text: An idiom or proverb.

    Returns:
        Its comparison key (possibly empty for text made only of punctuation).
    """
    folded = unify_final_y(unicodedata.normalize("NFC", unify_tone_marks(text).casefold()))
    return _NOT_WORD.sub(" ", folded).strip()
