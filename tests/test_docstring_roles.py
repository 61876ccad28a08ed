"""Docstrings use what the API pages render: no Sphinx role (``:func:`x```) is left to show raw.

mkdocstrings reads Google-style docstrings as Markdown: a reference is ``[`name`][module.name]`` (a
link when the target has an API page) or plain inline code. ``.ci/run`` also greps the built pages.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "vivid_inspect"
ROLE = re.compile(r":(?:py:)?(?:func|class|mod|meth|data|attr|exc|obj|const):`")
MODULES = sorted(PACKAGE.rglob("*.py"))


def test_the_package_has_modules_to_check() -> None:
    assert len(MODULES) > 100


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(PACKAGE)) for p in MODULES])
def test_no_sphinx_role_in_a_docstring(path: Path) -> None:
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{number}: {line.strip()}"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if ROLE.search(line)
    ]
    assert not found, "\n".join(found)
