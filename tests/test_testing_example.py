"""The "Test a judge's reply format offline" example of docs/judges.md runs as written and prints what it says.

The example is the documentation of ``vivid_inspect.testing`` for users, so it is executed verbatim
from docs/judges.md: an edit that breaks it, or changes what it prints, fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[1] / "docs" / "judges.md"
SECTION = "## Test a judge's reply format offline"


def documented_example() -> tuple[str, str]:
    """The section's Python block, and the output its ``print`` line promises in a comment."""
    text = PAGE.read_text(encoding="utf-8")
    assert SECTION in text, f"docs/judges.md has no section {SECTION!r}"
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.DOTALL)
    assert len(blocks) == 1, f"expected one python block in the section, found {len(blocks)}"
    promised = re.search(r"^\s*print\(.*\)\s*#\s*(?P<output>.+)$", blocks[0], re.MULTILINE)
    assert promised, "the example's print line should say what it prints in a trailing comment"
    return blocks[0], promised["output"].strip()


@pytest.mark.slow
def test_documented_testing_example_prints_what_it_promises(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, promised = documented_example()
    monkeypatch.chdir(tmp_path)  # nothing the example writes lands in the checkout

    exec(compile(code, f"{PAGE}:{SECTION}", "exec"), {"__name__": "documented_example"})

    printed = capsys.readouterr().out.strip().splitlines()
    assert printed[-1] == promised
