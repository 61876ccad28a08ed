"""The near-duplicate check: how often it catches each shape of variant, how often it flags unrelated idioms.

Recall: seeded variants of the idioms the tasks show with their answers (the classification and
explain demonstrations, the judges' graded examples), one shape at a time at a random place, with
syllables drawn from the bundled sample and the synthetic file; the share each threshold flags, with
a Wilson interval. False flags: every idiom of the bundled sample and of the 1,636-row synthetic file
against every shown idiom, and every pair of the sample's own idioms (real idioms, each a stand-in
for a demonstration someone might add); the number of pairs each threshold flags, with the closest
ones. The synthetic file's own pairs are counted too: it is built from a 24 x 16 x 16 grid of
subjects, verbs and objects, so its rows differ from their grid neighbours by one syllable of five
and count as near-duplicates of each other by construction (full mode only: 1.3 million pairs).

All similarities are :func:`vivid_inspect.data.leakage.similarity`, the function the tasks call.
"""

from __future__ import annotations

import itertools
import random
import unicodedata
from collections.abc import Callable

from coverage_common import CoverageTable, wilson
from synthetic import FULL_ROWS, idioms

from vivid_inspect.data import load_items
from vivid_inspect.data.leakage import NEAR_DUPLICATE_THRESHOLD, similarity
from vivid_inspect.data.normalise import idiom_key
from vivid_inspect.scorers.judge_prompts import judge_example_idioms
from vivid_inspect.solvers.classify_prompts import DEMONSTRATIONS
from vivid_inspect.solvers.explain_prompts import EXPLAIN_DEMONSTRATIONS

REPS = 2000
QUICK_REPS = 200
THRESHOLDS = (0.6, 0.7, NEAR_DUPLICATE_THRESHOLD, 0.8, 0.9, 1.0)
SHOWN = tuple(
    dict.fromkeys(
        [demo.idiom for demo in DEMONSTRATIONS]
        + [idiom for idiom, _ in EXPLAIN_DEMONSTRATIONS]
        + list(judge_example_idioms())
    )
)
_TONES = "\u0300\u0301\u0303\u0309\u0323"
_REGIONAL = (
    ("gi", "d"),
    ("d", "r"),
    ("r", "gi"),
    ("x", "s"),
    ("s", "x"),
    ("tr", "ch"),
    ("ch", "tr"),
    ("l", "n"),
)

Shape = Callable[[random.Random, list[str], list[str]], list[str] | None]


def _insert(rng: random.Random, words: list[str], pool: list[str]) -> list[str]:
    at = rng.randrange(len(words) + 1)
    return words[:at] + [rng.choice(pool)] + words[at:]


def _delete(rng: random.Random, words: list[str], pool: list[str]) -> list[str]:
    at = rng.randrange(len(words))
    return words[:at] + words[at + 1 :]


def _substitute(rng: random.Random, words: list[str], pool: list[str]) -> list[str]:
    at = rng.randrange(len(words))
    other = rng.choice([word for word in pool if word != words[at]])
    return words[:at] + [other] + words[at + 1 :]


def _swap(rng: random.Random, words: list[str], pool: list[str]) -> list[str]:
    at = rng.randrange(1, len(words))
    return words[at:] + words[:at]


def _retone(rng: random.Random, words: list[str], pool: list[str]) -> list[str]:
    at = rng.randrange(len(words))
    bare = "".join(c for c in unicodedata.normalize("NFD", words[at]) if c not in _TONES)
    tone = rng.choice([t for t in ["", *_TONES] if unicodedata.normalize("NFC", bare + t) != words[at]])
    # The tone mark goes after the last vowel letter: good enough for a different spelling.
    vowels = [i for i, c in enumerate(bare) if c in "aeiouy"]
    place = (vowels[-1] + 1) if vowels else len(bare)
    while place < len(bare) and unicodedata.combining(bare[place]):
        place += 1
    changed = unicodedata.normalize("NFC", bare[:place] + tone + bare[place:])
    return words[:at] + [changed] + words[at + 1 :]


def _regional(rng: random.Random, words: list[str], pool: list[str]) -> list[str] | None:
    places = [
        (i, spelt, heard) for i, w in enumerate(words) for spelt, heard in _REGIONAL if w.startswith(spelt)
    ]
    if not places:
        return None
    at, spelt, heard = rng.choice(places)
    return words[:at] + [heard + words[at][len(spelt) :]] + words[at + 1 :]


def _two_substitutions(rng: random.Random, words: list[str], pool: list[str]) -> list[str]:
    return _substitute(rng, _substitute(rng, words, pool), pool)


# Real idioms that share a word, a frame or a length with a shown idiom, and mean something else:
# the hardest negatives we could write (the same pairs as tests/data/test_near_duplicates.py).
HARD_NEGATIVES = [
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

SHAPES: dict[str, Shape] = {
    "a syllable inserted": _insert,
    "a syllable deleted": _delete,
    "a syllable replaced": _substitute,
    "halves swapped (any split)": _swap,
    "one syllable's tone changed": _retone,
    "one regional initial (d/gi/r, s/x, ch/tr, l/n)": _regional,
    "two syllables replaced (not a variant of a 4-syllable idiom)": _two_substitutions,
}


def _recall(reps: int, seed: int, pool: list[str]) -> CoverageTable:
    table = CoverageTable(
        "Variants of the 13 shown idioms flagged, by shape",
        [
            "shape",
            "variants",
            *[f">= {t:g}" for t in THRESHOLDS],
            f"95 % interval at {NEAR_DUPLICATE_THRESHOLD:g}",
        ],
    )
    rng = random.Random(seed)
    for name, shape in SHAPES.items():
        scores: list[float] = []
        while len(scores) < reps:
            shown = rng.choice(SHOWN)
            variant = shape(rng, idiom_key(shown).split(), pool)
            if variant is not None and variant:
                scores.append(similarity(" ".join(variant), shown))
        caught = [sum(score >= t - 1e-9 for score in scores) for t in THRESHOLDS]
        low, high = wilson(caught[THRESHOLDS.index(NEAR_DUPLICATE_THRESHOLD)], len(scores))
        table.rows.append([name, len(scores), *[c / len(scores) for c in caught], f"[{low:.3f}, {high:.3f}]"])
    table.notes.append(
        "Share of variants at or above each threshold. Inserted and replacing syllables are drawn from the "
        "sample's and the synthetic file's syllables; the shortest shown idioms have 4 syllables, so a "
        "deletion there is exactly 0.75. Two replaced syllables are flagged only in the longer shown "
        "idioms (8 and 14 syllables), where the rest of the proverb still gives it away."
    )
    return table


def _flagged_pairs(pairs: list[tuple[str, str]], title: str, what: str) -> CoverageTable:
    scored = sorted(((similarity(a, b), a, b) for a, b in pairs), reverse=True)
    table = CoverageTable(title, ["threshold", "pairs", "flagged", "share"])
    for t in THRESHOLDS:
        flagged = sum(score >= t - 1e-9 for score, _, _ in scored)
        table.rows.append([f">= {t:g}", len(scored), flagged, flagged / len(scored)])
    closest = "; ".join(f"«{a}» ~ «{b}» {score:.3f}" for score, a, b in scored[:5])
    table.notes.append(f"{what} Closest pairs: {closest}.")
    return table


def run(reps: int, quick: bool, seed: int) -> list[CoverageTable]:
    """Recall per variant shape and flagged pairs on the sample and the synthetic file."""
    _, items = load_items("sample")
    sample = [item.idiom for item in items]
    synthetic = idioms(FULL_ROWS)
    pool = sorted({word for idiom in sample + synthetic for word in idiom_key(idiom).split()})
    # The sample's row 17 is the explain demonstration itself: a true pair, not an unrelated one.
    unrelated_sample = [(a, b) for a in sample for b in SHOWN if idiom_key(a) != idiom_key(b)]
    tables = [
        _recall(reps, seed, pool),
        _flagged_pairs(
            unrelated_sample,
            "Bundled sample against the shown idioms (unrelated pairs)",
            f"{len(sample)} idioms x {len(SHOWN)} shown, less the one true pair (row 17, the few-shot idiom itself).",
        ),
        _flagged_pairs(
            [(a, b) for a in synthetic for b in SHOWN],
            "Synthetic file (1,636 rows) against the shown idioms",
            "Every synthetic idiom against every shown idiom.",
        ),
        _flagged_pairs(
            HARD_NEGATIVES,
            "Hand-picked unrelated idioms that share a word or frame with a shown idiom",
            f"{len(HARD_NEGATIVES)} pairs.",
        ),
        _flagged_pairs(
            list(itertools.combinations(sample, 2)),
            "Bundled sample, every pair of its own idioms",
            "47 real idioms, each pair as if one of them were a demonstration.",
        ),
    ]
    if not quick:
        tables.append(
            _flagged_pairs(
                list(itertools.combinations(synthetic, 2)),
                "Synthetic file, every pair of its own rows",
                "Grid neighbours (one subject, verb or object apart, of five syllables) are 0.8 by construction.",
            )
        )
    return tables
