"""A changed prompt, parser or data rule changes results: the task version says which rules a log used."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from vivid_inspect.tasks import explain, topic, traits

CHANGELOG = Path(__file__).resolve().parents[1] / "docs" / "changelog.md"

# Version 2: idiom-key demonstration exclusion, judge calibration idioms left out of explain,
# lenient traits that need codes 1-5, tone-mark-unified chrF. Version 3: near-duplicates of the
# shown idioms left out too, final y/i unified in the idiom key, the `leakage` record.
CURRENT = 3


@pytest.mark.parametrize(
    "build",
    [
        pytest.param(lambda: explain(data="sample", judge="none"), id="explain"),
        pytest.param(lambda: topic(data="sample"), id="topic"),
        pytest.param(lambda: traits(data="sample"), id="traits"),
    ],
)
def test_tasks_carry_the_current_version(build) -> None:
    assert build().version == CURRENT


def test_changelog_has_a_line_for_the_current_version() -> None:
    changelog = CHANGELOG.read_text(encoding="utf-8").split("# Changelog", 1)[1]
    line = next(line for line in changelog.splitlines() if line.startswith(f"- Task version {CURRENT} "))
    assert all(task in line for task in ("`explain`", "`topic`", "`traits`"))
    assert re.search(r"lenient", changelog) and re.search(r"tone", changelog)


def test_the_changelog_says_what_version_3_leaves_out_and_where_it_is_recorded() -> None:
    changelog = CHANGELOG.read_text(encoding="utf-8")
    line = changelog.split("- Task version 3 ", 1)[1].split("\n- ", 1)[0]
    assert all(
        word in line
        for word in ("near-duplicates", "leakage_threshold", "`leakage`", "kỹ", "generation keys")
    )
