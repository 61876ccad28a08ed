"""Idioms shown to a model or a judge as worked examples, and the items too close to them to score.

A model tested on an idiom it was just shown with its answer, or a judge grading an item whose
idiom is one of its own calibration examples (with the answer key in view), measures recall of
the prompt, not understanding. A variant of a shown idiom leaks the answer as well: ``Ăn cháo đái
bát`` beside the demonstration ``Ăn cháo đá bát`` with its label, ``Mèo lại khen mèo dài đuôi``
beside the few-shot ``Mèo khen mèo dài đuôi``. The tasks pass the shown idioms to
[`vivid_inspect.data.load_vivid`][vivid_inspect.data.load_vivid], which leaves out every item whose `similarity` to one
of them reaches the threshold (`NEAR_DUPLICATE_THRESHOLD`, the tasks' ``-T
leakage_threshold``) and records each with the idiom it resembles (a
`LeftOutEntry` of the task metadata ``leakage``).

The measure works on syllables, the unit in which idiom variants differ: a syllable inserted,
dropped or replaced (``đá``/``đái``, ``miệng``/``mồm``, ``về``/``vào``), the two halves of a
proverb swapped, a tone mark or a regional spelling of one syllable (``đổ``/``đỗ``,
``gió``/``dó``/``ró``). A character measure cannot weigh these alike: ``miệng``/``mồm`` share almost
no letters while ``mèo``/``chó`` are as far apart as any two words.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from rapidfuzz.distance import Levenshtein

from vivid_inspect.data.normalise import idiom_key

NEAR_DUPLICATE_THRESHOLD = 0.75
"""Similarity from which an item is a near-duplicate of a shown idiom and is left out.

0.75 is one whole syllable of four inserted, dropped or replaced (the shortest shown idioms have
four), two of eight, or every syllable of four spelled as it sounds in a region. On the bundled
sample and the 1,636-row synthetic file no unrelated idiom reaches it (``bench/leakage_pairs.py``
and ``docs/tasks.md`` give the measured pairs); an unrelated idiom sharing two syllables of four
with a shown one is at 0.5.
"""

THRESHOLD_RANGE = (0.6, 1.0)
"""The ``leakage_threshold`` values a task accepts: 1.0 leaves out only the same idiom (in any
spelling, or with its halves swapped); below 0.6 idioms that share only a frame with a shown one
(two syllables of four, ``Há miệng mắc quai`` beside ``Há miệng chờ sung``) would be left out."""

SOUND_ALIKE_COST = 0.25
"""What replacing a syllable by a sound-alike one costs (`sound_alike`: another tone mark, a
regional spelling), against 1 for any other syllable inserted, dropped or replaced. A quarter, so
that an idiom written wholly in a regional spelling (``Tráy nhà da mặt truột``) is still within
0.75 of its standard one: such a writer says the same words."""

ShownAs = Literal["demonstration", "judge_example"]
"""Where an idiom is shown: a task's demonstration, or a graded example in a judge template."""


@dataclass(frozen=True)
class Shown:
    """An idiom a prompt shows with its answer.

    Attributes:
        idiom: The idiom as the prompt shows it.
        shown_as: ``demonstration`` (the task's own prompt) or ``judge_example`` (a judge template).
    """

    idiom: str
    shown_as: ShownAs


@dataclass(frozen=True)
class Resemblance:
    """A shown idiom an item is too close to, and how close.

    Attributes:
        resembles: The shown idiom, as the prompt shows it.
        shown_as: Where it is shown (`ShownAs`).
        similarity: `similarity` of the item's idiom and ``resembles``, 1.0 for the same idiom.
    """

    resembles: str
    shown_as: ShownAs
    similarity: float


def check_threshold(value: object) -> float:
    """The ``leakage_threshold`` a task was given, checked against `THRESHOLD_RANGE`.

    Args:
        value: What the task received (``-T leakage_threshold=0.8`` arrives as a float).

    Returns:
        The threshold as a float.

    Raises:
        ValueError: It is not a number within the range.
    """
    low, high = THRESHOLD_RANGE
    number = float(value) if isinstance(value, int | float) and not isinstance(value, bool) else math.nan
    if not low <= number <= high:
        raise ValueError(
            f"leakage_threshold must be a number from {low:g} to {high:g} (default "
            f"{NEAR_DUPLICATE_THRESHOLD:g}; 1 leaves out only the shown idioms themselves), got {value!r}"
        )
    return number


def shown_idioms(demonstrations: Iterable[str], judge_examples: Iterable[str] = ()) -> tuple[Shown, ...]:
    """The idioms a task shows, each once: its demonstrations first, then the judges' examples.

    Args:
        demonstrations: The idioms of the task's own prompt.
        judge_examples: The idioms of the judges' graded examples.

    Returns:
        One `Shown` per idiom key; a judge example that is also a demonstration counts as one.
    """
    seen: dict[str, Shown] = {}
    for idiom in demonstrations:
        seen.setdefault(idiom_key(idiom), Shown(idiom, "demonstration"))
    for idiom in judge_examples:
        seen.setdefault(idiom_key(idiom), Shown(idiom, "judge_example"))
    return tuple(seen.values())


_TONES = re.compile("[\u0300\u0301\u0303\u0309\u0323]")
_VOWELS = "aeiouy"
# Initials that regional pronunciation merges and spelling confuses: d/gi/r (all /z/ in the
# north), s/x and ch/tr (merged in the north), l/n (merged in parts of the north).
_INITIAL_SOUNDS = (("gi", "z"), ("d", "z"), ("r", "z"), ("x", "s"), ("tr", "ch"), ("n", "l"))
# Finals the south merges: -n/-ng/-nh, -t/-c/-ch.
_FINAL_SOUNDS = (("ng", "n"), ("nh", "n"), ("ch", "t"), ("c", "t"))


@lru_cache(maxsize=1 << 16)
def sound_alike(syllable: str) -> str:
    """A syllable as it may be heard: tone mark dropped, regionally merged consonants merged.

    ``đổ``/``đỗ`` (hỏi/ngã), ``gió``/``dó``/``ró`` (d/gi/r), ``xa``/``sa``, ``trâu``/``châu``,
    ``nắng``/``lắng``, ``bát``/``bác``, ``đàn``/``đàng`` share a form. Vowel quality (``mắt``/``mát``,
    ``tơ``/``to``), ``đ`` against ``d`` and the initials ``g``, ``ng``, ``nh`` stay apart.

    Args:
        syllable: One syllable of an idiom key (lower case).

    Returns:
        Its sound-alike form, NFC.
    """
    text = _TONES.sub("", unicodedata.normalize("NFD", syllable))
    for spelt, heard in _INITIAL_SOUNDS:
        if text.startswith(spelt) and not text.startswith(("ng", "nh")):
            rest = text[len(spelt) :]
            # "gì", "gìn": the i of gi is also the vowel.
            if spelt == "gi" and not rest.startswith(tuple(_VOWELS)):
                rest = "i" + rest
            text = heard + rest
            break
    for spelt, heard in _FINAL_SOUNDS:
        if text.endswith(spelt) and len(text) > len(spelt):
            text = text[: -len(spelt)] + heard
            break
    return unicodedata.normalize("NFC", text)


@dataclass(frozen=True)
class _Profile:
    exact: tuple[str, ...]
    loose: tuple[str, ...]
    exact_bag: Counter[str]
    loose_bag: Counter[str]


@lru_cache(maxsize=1 << 14)
def _profile(text: str) -> _Profile:
    exact = tuple(idiom_key(text).split())
    loose = tuple(sound_alike(syllable) for syllable in exact)
    return _Profile(exact, loose, Counter(exact), Counter(loose))


def _cost(exact_distance: float, loose_distance: float) -> float:
    # Each edit that sound-alike forms do not explain costs 1, each they explain SOUND_ALIKE_COST:
    # a convex mix of two Levenshtein distances, so still a distance.
    return (1 - SOUND_ALIKE_COST) * loose_distance + SOUND_ALIKE_COST * exact_distance


def similarity(one: str, other: str, *, floor: float = 0.0) -> float:
    """How alike two idioms are, from 0 (no syllable shared) to 1 (the same idiom).

    Both are compared as their [`idiom_key`][vivid_inspect.data.normalise.idiom_key] syllables (so case,
    punctuation, spacing, Unicode form, tone-mark placement and final y/i never count). The
    distance is the syllable edit distance (insert, drop or replace one syllable: 1 each), where a
    syllable replaced by a sound-alike one (`sound_alike`) costs `SOUND_ALIKE_COST`;
    the similarity is one less that distance over the longer idiom's syllable count, at the best
    rotation of either idiom, so a proverb with its halves swapped is the same proverb (1.0).
    Symmetric.

    Args:
        one: An idiom.
        other: Another.
        floor: A similarity below which the exact value does not matter: a pair that cannot reach
            it returns 0.0 at once (the near-duplicate search passes its threshold).

    Returns:
        The similarity in [0, 1] (0.0 when it is below ``floor``).
    """
    a, b = _profile(one), _profile(other)
    if not a.exact or not b.exact:
        return 1.0 if a.exact == b.exact else 0.0
    if a.exact == b.exact:
        return 1.0
    longest = max(len(a.exact), len(b.exact))
    # No rotation does better than aligning every shared syllable, nor than the length difference.
    unshared = _cost(
        longest - sum((a.exact_bag & b.exact_bag).values()),
        longest - sum((a.loose_bag & b.loose_bag).values()),
    )
    if 1 - max(unshared, abs(len(a.exact) - len(b.exact))) / longest < floor - 1e-9 or unshared >= longest:
        return 0.0
    best = 0.0
    for x, y in ((a, b), (b, a)):
        for turn in range(len(x.exact)):
            exact = Levenshtein.distance(x.exact[turn:] + x.exact[:turn], y.exact)
            loose = Levenshtein.distance(x.loose[turn:] + x.loose[:turn], y.loose)
            best = max(best, 1 - _cost(exact, loose) / longest)
    return best


def resemblance(
    idiom: str, shown: Sequence[Shown], threshold: float = NEAR_DUPLICATE_THRESHOLD
) -> Resemblance | None:
    """The shown idiom closest to ``idiom``, if it is at least ``threshold`` alike.

    Args:
        idiom: An item's idiom.
        shown: The idioms a task shows (`shown_idioms`), demonstrations first.
        threshold: The similarity from which an item is a near-duplicate.

    Returns:
        The closest shown idiom and the similarity (the first in ``shown`` on a tie, so a
        demonstration before a judge example), or None when none reaches the threshold.
    """
    # Cached: one command builds the same task several times (vivid plan, each run block).
    return _resemblance(idiom, tuple(shown), threshold)


@lru_cache(maxsize=1 << 15)
def _resemblance(idiom: str, shown: tuple[Shown, ...], threshold: float) -> Resemblance | None:
    key = idiom_key(idiom)
    best: Resemblance | None = None
    for candidate in shown:
        score = (
            1.0 if idiom_key(candidate.idiom) == key else similarity(idiom, candidate.idiom, floor=threshold)
        )
        if score >= threshold - 1e-9 and (best is None or score > best.similarity):
            best = Resemblance(candidate.idiom, candidate.shown_as, score)
    return best
