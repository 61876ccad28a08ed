"""Who an annotator is: the one rule for telling two names apart, wherever names are read.

Two names are the same annotator when they differ only by Unicode form (NFC or NFD), letter case,
full-width or other compatibility forms, invisible characters (zero-width spaces and joiners,
byte-order marks, direction marks, soft hyphens, control characters), spacing, or Cyrillic and
Greek letters drawn like Latin ones (Cyrillic ``аn`` is ``an``). ``vivid annotate
serve`` refuses such a pair in ``--annotators`` ("named twice"); a human scores file and the
sheets ``vivid annotate import`` reads accept one spelling of each annotator (NFD and NFC are one
spelling: names are kept in NFC) and refuse a second one naming both, since no one can tell by
looking whether ``Lan`` and ``La\u200bn`` were meant as one person or two.
"""

from __future__ import annotations

import re
import unicodedata

from vivid_inspect.text import nfc

# Cyrillic and Greek letters (after case folding) that are drawn like a Latin letter in one of
# their cases, as Unicode's confusables list pairs them: `аn` and `an` look alike and are one name.
_LOOK_LATIN = str.maketrans(
    "аеорсухѕіјԁԛԝһӏвкмнт" + "αβεζηικμνορτυχ",
    "aeopcyxsijdqwhlbkmht" + "abezhikmnoptyx",
)


# Default-ignorable characters that are not format characters (Cf): the combining grapheme joiner,
# Hangul fillers, Khmer inherent vowels, variation selectors. They show nothing either.
_IGNORABLE = re.compile(
    "[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\ufe00-\ufe0f\uffa0\U000e0100-\U000e01ef]"
)


def annotator_name(name: str) -> str:
    """A name as it is kept: NFC, without surrounding spaces."""
    return nfc(name).strip()


def annotator_key(name: str) -> str:
    """What identifies an annotator: compatibility form, invisible characters and spacing removed, case folded.

    Args:
        name: An annotator's name as written.

    Returns:
        The key; names with the same key are one annotator. Empty for a name with nothing visible.
    """
    folded = unicodedata.normalize("NFKC", name)
    visible = _IGNORABLE.sub(
        "", "".join(char for char in folded if unicodedata.category(char) not in ("Cf", "Cc"))
    )
    cased = unicodedata.normalize("NFKD", " ".join(visible.split()).casefold())
    return unicodedata.normalize("NFKC", cased.translate(_LOOK_LATIN))  # marks kept: Lân is not Lan


def spelled_apart(first: str, second: str) -> str:
    """Why two spellings of one annotator are refused, naming both (``first`` was met first)."""
    return (
        f"annotator {second!r} is {first!r} written differently (letter case, invisible characters, "
        "spacing or character forms); one annotator is written one way: use one spelling"
    )
