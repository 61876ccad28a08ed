"""A synthetic VIVID data file: 1,636 rows in the real release's format, in our own words.

The benchmarks need the full data size offline, and the real file cannot be fetched on these
machines. This writes a deterministic stand-in that stresses the same code paths as the release:
float label codes (``1.0``), meanings quoted because they hold commas, meanings with a leading
space, a parenthesised gloss of rare words, typographic quotes and a trailing ``( cd )`` source tag.
Themes and traits follow the paper's proportions (``docs/data.md``), rounded by largest
remainder so the counts add up exactly.

    python bench/synthetic.py OUT.csv [--rows 1636] [--seed 0]
"""

from __future__ import annotations

import argparse
import csv
import random
from collections.abc import Sequence
from pathlib import Path

from vivid_inspect.data import COLUMNS
from vivid_inspect.taxonomy import THEME_BY_CODE, TRAIT_BY_CODE

FULL_ROWS = 1636

THEME_SHARE: dict[int, float] = {1: 0.070, 2: 0.031, 3: 0.288, 4: 0.166, 5: 0.095, 6: 0.244, 7: 0.105}
"""Share of rows per theme code (paper: Criticism 28.8 %, Life Lessons 24.4 %, ...)."""

TRAIT_SHARE: dict[int, float] = {1: 0.165, 2: 0.402, 3: 0.461, 4: 0.189, 5: 0.469}
"""Share of rows carrying each trait code; traits are independent, so a row may have none or several."""

# Syllables of everyday Vietnamese, combined into idioms that are distinct but not real ones.
_SUBJECTS = (
    "Con trâu",
    "Cái cày",
    "Hạt lúa",
    "Bát cơm",
    "Giọt mưa",
    "Cánh cò",
    "Con đò",
    "Mái đình",
    "Bờ tre",
    "Gốc đa",
    "Chum tương",
    "Nồi canh",
    "Con mèo",
    "Con chó",
    "Con gà",
    "Ngọn đèn",
    "Chiếc nón",
    "Tấm áo",
    "Lưỡi dao",
    "Hòn đá",
    "Ao bèo",
    "Cây cau",
    "Nắm muối",
    "Đôi đũa",
)
_VERBS = (
    "nhớ",
    "chờ",
    "theo",
    "xa",
    "gần",
    "giữ",
    "bỏ",
    "tìm",
    "đợi",
    "thương",
    "trông",
    "ghét",
    "mượn",
    "trả",
    "nhường",
    "khoe",
)
_OBJECTS = (
    "bến cũ",
    "ruộng sâu",
    "trăng rằm",
    "gió bấc",
    "nước lũ",
    "sân đình",
    "chợ phiên",
    "nắng hạ",
    "mạ non",
    "lửa rơm",
    "rượu nhạt",
    "sương sớm",
    "đất khách",
    "quê nhà",
    "lối mòn",
    "mùa gặt",
    "bạn cũ",
    "lời thề",
)
_TAILS = ("", "", "", ", chớ quên ngày sau", ", ai ơi", ", mấy ai hay", ", khó lòng yên")

_OPENINGS = (
    "Chỉ người",
    "Nói về kẻ",
    "Ví như người",
    "Khuyên ai",
    "Chê kẻ",
    "Ý nói người",
)
_MIDDLES = (
    "làm việc gì cũng vội vàng, không nghĩ trước nghĩ sau",
    "biết ơn những ai đã giúp mình lúc khó khăn, hoạn nạn",
    "ham cái lợi nhỏ trước mắt mà quên cái hại lâu dài",
    "giữ trọn tình nghĩa với bà con, làng xóm dù đi xa",
    "chăm chỉ cày cấy, thuận theo mùa vụ và thời tiết",
    "khoe khoang điều mình không có, để rồi bị người khác chê cười",
    "sống thật thà, nói sao làm vậy, không hai lòng",
    "gặp chuyện nhỏ mà làm to, gây phiền cho người xung quanh",
)
_ENDINGS = (
    "; lời khuyên nên sống có trước có sau.",
    ", thường dùng với ý mỉa mai.",
    "; kinh nghiệm dân gian truyền từ đời này sang đời khác.",
    ". Câu này nhắc người ta nhìn xa trông rộng.",
    ", hàm ý chê trách nhẹ nhàng.",
)
_GLOSSES = ("( Khán : xem; Tử : con.) ", "( Bấc : gió mùa đông bắc.) ", "( Tương : nước chấm làm từ đậu.) ")


def largest_remainder(shares: dict[int, float], total: int) -> dict[int, int]:
    """Whole counts proportional to ``shares`` that add up to ``total`` exactly."""
    raw = {code: share / sum(shares.values()) * total for code, share in shares.items()}
    counts = {code: int(value) for code, value in raw.items()}
    by_remainder = sorted(raw, key=lambda code: (-(raw[code] - counts[code]), code))
    for code in by_remainder[: total - sum(counts.values())]:
        counts[code] += 1
    return counts


def idioms(rows: int) -> list[str]:
    """``rows`` distinct idioms, in a fixed order."""
    out: list[str] = []
    for n in range(rows):
        subject = _SUBJECTS[n % len(_SUBJECTS)]
        verb = _VERBS[(n // len(_SUBJECTS)) % len(_VERBS)]
        obj = _OBJECTS[(n // (len(_SUBJECTS) * len(_VERBS))) % len(_OBJECTS)]
        tail = _TAILS[n % len(_TAILS)]
        out.append(f"{subject} {verb} {obj}{tail}")
    if len(set(out)) != rows:
        raise ValueError(f"rows={rows} exceeds the {len(set(out))} distinct idioms the word lists make")
    return out


def meaning(rng: random.Random, idiom: str, theme: int) -> str:
    """A reference meaning with the quirks of the real file (some of them, at random)."""
    text = f"{rng.choice(_OPENINGS)} {rng.choice(_MIDDLES)}{rng.choice(_ENDINGS)}"
    roll = rng.random()
    if roll < 0.10:
        text = rng.choice(_GLOSSES) + text
    elif roll < 0.20:
        text = f"“{idiom}” — {text[0].lower()}{text[1:]}"
    if rng.random() < 0.08:
        text += " ( cd )"
    if rng.random() < 0.15:
        text = " " + text
    return f"{text} Chủ đề gần với {THEME_BY_CODE[theme].vi.lower()}."


def rows(count: int = FULL_ROWS, seed: int = 0) -> list[list[str]]:
    """The data rows (without header) of the synthetic file."""
    rng = random.Random(seed)
    themes = [code for code, n in largest_remainder(THEME_SHARE, count).items() for _ in range(n)]
    rng.shuffle(themes)
    traits: dict[int, set[int]] = {}
    for code, share in TRAIT_SHARE.items():
        traits[code] = set(rng.sample(range(count), round(share * count)))
    out = []
    for n, (idiom, theme) in enumerate(zip(idioms(count), themes, strict=True)):
        flags = [f"{float(n in traits[code]):.1f}" for code in TRAIT_BY_CODE]
        out.append([idiom, meaning(rng, idiom, theme), *flags, f"{float(theme):.1f}"])
    return out


def write_synthetic(path: Path, count: int = FULL_ROWS, seed: int = 0) -> Path:
    """Write the synthetic CSV (UTF-8, LF, the release's header) and return its path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(COLUMNS)
        writer.writerows(rows(count, seed))
    return path


def main(argv: Sequence[str] | None = None) -> int:
    """Write the file named on the command line."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("out", type=Path)
    parser.add_argument("--rows", type=int, default=FULL_ROWS)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    write_synthetic(args.out, args.rows, args.seed)
    print(f"wrote {args.rows} rows to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
