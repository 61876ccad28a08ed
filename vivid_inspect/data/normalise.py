"""Spelling-insensitive forms of Vietnamese text: tone-mark placement and the idiom key.

Vietnamese has two accepted places for the tone mark in the open diphthongs ``oa``, ``oe`` and
``uy``: the old style puts it on the first vowel (``hòa``, ``khỏe``, ``thủy``), the new style on
the second (``hoà``, ``khoẻ``, ``thuỷ``). Both spellings occur in dictionaries, in the data and in
model output, and NFC does not make them equal. :func:`unify_tone_marks` rewrites the old style
into the new one; :func:`idiom_key` builds on it to decide when two idioms are the same idiom.
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


@lru_cache(maxsize=1 << 16)
def idiom_key(text: str) -> str:
    """The form under which two spellings of one idiom compare equal.

    NFC, tone-mark placement unified (:func:`unify_tone_marks`), case folded, punctuation and
    symbols dropped, runs of whitespace collapsed to one space, ends stripped. So
    ``"Bán anh em xa, mua láng giềng gần"``, ``"bán anh em xa  mua láng giềng gần."`` and an NFD
    copy share one key, while a shorter or longer idiom does not.

    Args:
        text: An idiom or proverb.

    Returns:
        Its comparison key (possibly empty for text made only of punctuation).
    """
    folded = unicodedata.normalize("NFC", unify_tone_marks(text).casefold())
    return _NOT_WORD.sub(" ", folded).strip()
