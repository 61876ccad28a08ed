"""`vivid data check`: the label prevalences as evidence for the code order of taxonomy.py.

The real file cannot be fetched here, so the tests generate 1,636-row files in its exact format
(float codes, quoted commas, leading spaces, glosses) whose prevalences are the paper's figures:
one with the codes in taxonomy.py's order, others with two codes swapped.
"""

from __future__ import annotations

import csv
import io
import logging
import random
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from vivid_inspect.data import COLUMNS, _load_cached, load_vivid
from vivid_inspect.data.prevalence import (
    PAPER_THEME_PREVALENCE,
    PAPER_TRAIT_PREVALENCE,
    best_assignment,
)
from vivid_inspect.lab.cli.main import main
from vivid_inspect.taxonomy import THEME_NAMES, TRAIT_NAMES

ROWS = 1_636


@pytest.fixture(autouse=True)
def fresh_loader() -> Iterator[None]:
    _load_cached.cache_clear()
    yield
    _load_cached.cache_clear()


def release_like(trait_columns: Sequence[str], theme_codes: Sequence[str], rows: int = ROWS) -> bytes:
    """A file in the release's format, at the paper's prevalences, in a chosen code order.

    Its column k holds the trait ``trait_columns[k-1]`` and its theme code k means
    ``theme_codes[k-1]``.
    """
    rng = random.Random(1636)
    trait_counts = [round(PAPER_TRAIT_PREVALENCE[name] * rows / 100) for name in trait_columns]
    theme_counts = [round(PAPER_THEME_PREVALENCE[name] * rows / 100) for name in theme_codes]
    theme_counts[0] += rows - sum(theme_counts)
    themes = [code for code, count in enumerate(theme_counts, 1) for _ in range(count)]
    rng.shuffle(themes)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in range(rows):
        idiom = f"Câu thứ {row}, nói về làng {row % 13}" if row % 3 == 0 else f"Thành ngữ số {row}"
        meaning = (
            f"( Làng : xóm.) Nghĩa của câu {row}." if row % 5 == 0 else f" Nghĩa của câu {row}, có “ngoặc”."
        )
        traits = [
            "1.0" if (row + 331 * column) % rows < count else "0.0"
            for column, count in enumerate(trait_counts)
        ]
        writer.writerow([idiom, meaning, *traits, f"{themes[row]}.0"])
    return out.getvalue().encode("utf-8")


def swapped(names: Sequence[str], first: int, second: int) -> list[str]:
    result = list(names)
    result[first - 1], result[second - 1] = result[second - 1], result[first - 1]
    return result


def write(tmp_path: Path, content: bytes, name: str = "VIVID_Dataset.csv") -> Path:
    path = tmp_path / name
    path.write_bytes(content)
    return path


def check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["data", "check", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_paper_figures_name_every_label_of_the_taxonomy() -> None:
    assert set(PAPER_TRAIT_PREVALENCE) == set(TRAIT_NAMES)
    assert set(PAPER_THEME_PREVALENCE) == set(THEME_NAMES)
    assert sum(PAPER_THEME_PREVALENCE.values()) == pytest.approx(99.9)


def test_best_assignment_is_optimal_not_greedy() -> None:
    # Greedy in code order gives code 1 "a" (gap 0.5) and code 2 "b" (gap 10): 10.5 in all; the
    # optimum gives code 1 "b" (8.5) and code 2 "a" (1): 9.5.
    assert best_assignment({1: 11.5, 2: 10.0}, {"a": 11.0, "b": 20.0}) == {1: "b", 2: "a"}
    assert best_assignment({1: 46.1, 2: 46.9, 3: 40.2}, {"p": 46.9, "u": 46.1, "s": 40.2}) == {
        1: "u",
        2: "p",
        3: "s",
    }


def test_generated_file_has_the_paper_prevalences(tmp_path: Path) -> None:
    items = list(load_vivid(str(write(tmp_path, release_like(TRAIT_NAMES, THEME_NAMES)))).dataset)

    assert len(items) == ROWS
    for code, name in enumerate(TRAIT_NAMES, 1):
        share = 100 * sum(code in s.metadata["trait_ids"] for s in items) / ROWS
        assert share == pytest.approx(PAPER_TRAIT_PREVALENCE[name], abs=0.05)


def test_matching_file_agrees_and_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, release_like(TRAIT_NAMES, THEME_NAMES))

    code, out, err = check(capsys, "--data", str(path))

    assert code == 0, out + err
    assert f"{path}: 1,636 rows" in out
    assert "traits: the best-fitting assignment is the one in vivid_inspect/taxonomy.py" in out
    assert "themes: the best-fitting assignment is the one in vivid_inspect/taxonomy.py" in out
    assert "differs" not in out.lower()
    # Each code's row: its observed share, its taxonomy name and the paper's figure beside it.
    assert re.search(r"5\s+Linguistic_Complexity_Taxonomy_5\s+46\.9%\s+Pragmatic nuance\s+46\.9%", out)
    assert re.search(r"2\s+Semantic_Theme=2\s+3\.1%\s+Virtues\s+3\.1%", out)


@pytest.mark.parametrize(
    ("traits", "themes", "expected"),
    [
        pytest.param(
            swapped(TRAIT_NAMES, 2, 3),
            THEME_NAMES,
            [
                (
                    "traits: the best-fitting assignment DIFFERS from vivid_inspect/taxonomy.py: "
                    "code 2 fits 'Uncommon vocabulary' (taxonomy.py: 'Sino-Vietnamese'), "
                    "code 3 fits 'Sino-Vietnamese' (taxonomy.py: 'Uncommon vocabulary')."
                ),
                "themes: the best-fitting assignment is the one in",
            ],
            id="sino-vietnamese-and-uncommon-swapped",
        ),
        pytest.param(
            swapped(TRAIT_NAMES, 3, 5),
            THEME_NAMES,
            ["code 3 fits 'Pragmatic nuance'", "code 5 fits 'Uncommon vocabulary'"],
            id="close-figures-46.9-and-46.1-swapped",
        ),
        pytest.param(
            TRAIT_NAMES,
            swapped(THEME_NAMES, 1, 2),
            [
                "traits: the best-fitting assignment is the one in",
                (
                    "themes: the best-fitting assignment DIFFERS from vivid_inspect/taxonomy.py: "
                    "code 1 fits 'Virtues' (taxonomy.py: 'Love'), code 2 fits 'Love' (taxonomy.py: 'Virtues')."
                ),
            ],
            id="love-and-virtues-swapped",
        ),
    ],
)
def test_swapped_codes_exit_1_and_name_the_best_fit(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    traits: list[str],
    themes: list[str],
    expected: list[str],
) -> None:
    path = write(tmp_path, release_like(traits, themes))

    code, out, _ = check(capsys, "--data", str(path))

    assert code == 1
    for text in expected:
        assert text in out
    assert "reorder THEMES/TRAITS in vivid_inspect/taxonomy.py" in out


@pytest.mark.parametrize(
    ("spec", "rows"),
    [pytest.param("sample", 47, id="bundled-sample"), pytest.param("499", 499, id="just-under-500")],
)
def test_small_source_is_too_small_to_tell(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], spec: str, rows: int
) -> None:
    data = (
        spec
        if spec == "sample"
        else str(write(tmp_path, release_like(swapped(TRAIT_NAMES, 2, 3), THEME_NAMES, rows)))
    )

    code, out, _ = check(capsys, "--data", data)

    assert code == 0
    assert f"Too few rows to tell: {rows:,} rows, the check needs at least 500" in out
    assert "best fit" not in out and "DIFFERS" not in out


def test_500_rows_are_enough_to_decide(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, release_like(swapped(TRAIT_NAMES, 2, 3), THEME_NAMES, 500))

    assert check(capsys, "--data", str(path))[0] == 1


def test_unreadable_data_exits_2_with_the_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = check(capsys, "--data", str(tmp_path / "missing.csv"))

    assert code == 2
    assert "no such data file" in err and "Traceback" not in err + out


def test_duplicates_option_lists_every_repeat(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    header, *rows = release_like(TRAIT_NAMES, THEME_NAMES, 40).decode().splitlines()
    path = write(tmp_path, ("\n".join([header, *rows, *rows[:8]]) + "\n").encode())

    code, out, _ = check(capsys, "--data", str(path), "--duplicates")

    assert code == 0
    assert "Rows repeating an earlier idiom: 8" in out
    assert [line for line in out.splitlines() if line.startswith("  - row ")] == [
        f"  - row {41 + n} (line {42 + n}) repeats {load_vivid(str(path)).dataset[n].input!r} of row {n + 1}"
        for n in range(8)
    ]


def test_codes_that_cannot_be_told_apart_are_no_evidence_against_the_mapping(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    # Every row alike: traits 1-4 and themes other than 3 all at 0 %, so any order of them fits equally.
    header = ",".join(COLUMNS)
    rows = [f"Câu số {n},Nghĩa.,0.0,0.0,0.0,0.0,1.0,3.0" for n in range(600)]
    path = write(tmp_path, ("\n".join([header, *rows]) + "\n").encode())

    with caplog.at_level(logging.WARNING):
        load_vivid(str(path))
    code, out, _ = check(capsys, "--data", str(path))

    assert _taxonomy_warnings(caplog) == []
    assert code == 0
    assert "traits: the best-fitting assignment is the one in vivid_inspect/taxonomy.py" in out
    assert "this file does not look like the paper's data" in out


# --- the warning when a full-size source contradicts the mapping -------------------------------


def _taxonomy_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "taxonomy.py" in r.getMessage()]


def test_loading_a_contradicting_full_size_source_warns_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = write(tmp_path, release_like(swapped(TRAIT_NAMES, 2, 3), THEME_NAMES))

    with caplog.at_level(logging.WARNING):
        load_vivid(str(path))
        _load_cached.cache_clear()
        load_vivid(str(path))

    [message] = _taxonomy_warnings(caplog)
    assert message.startswith(
        f"{path}: the label prevalences fit another code order than vivid_inspect/taxonomy.py"
    )
    assert "traits: code 2 fits 'Uncommon vocabulary', not 'Sino-Vietnamese'" in message
    assert f"`vivid data check --data {path}` shows the evidence" in message


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(lambda: release_like(TRAIT_NAMES, THEME_NAMES), id="matching-full-size"),
        pytest.param(
            lambda: release_like(swapped(TRAIT_NAMES, 2, 3), THEME_NAMES, 120), id="swapped-but-small"
        ),
    ],
)
def test_no_warning_when_the_mapping_fits_or_the_source_is_small(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, content
) -> None:
    path = write(tmp_path, content())

    with caplog.at_level(logging.WARNING):
        load_vivid(str(path))

    assert _taxonomy_warnings(caplog) == []
