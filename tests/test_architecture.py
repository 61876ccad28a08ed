"""The layout's promises, checked on the source: who may import whom, and where the log contract lives.

- the report and the runner agree on logs through :mod:`vivid_inspect.log_contract` alone: the
  report imports nothing from the runner, the runner only the report's entry point;
- the contract's names are defined once, in the contract module;
- Inspect's private modules are imported by the adapter alone (:mod:`vivid_inspect.inspect_private`).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "vivid_inspect"
CONTRACT_NAMES = ("VIVID_JUDGE_KEY", "GRADER_ROLE", "LEXICAL", "PANEL_STRATEGY", "JUDGE_PREFIX", "USAGE_KEY")


def _modules(folder: str = "") -> list[Path]:
    return sorted((PACKAGE / folder).rglob("*.py"))


def _imports(path: Path) -> Iterator[str]:
    """Every module a file imports, at any depth (lazy imports inside functions included)."""
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            yield node.module
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


def _rel(path: Path) -> str:
    return path.relative_to(PACKAGE.parent).as_posix()


@pytest.mark.parametrize("path", _modules("report"), ids=_rel)
def test_the_report_imports_nothing_from_the_runner(path: Path) -> None:
    assert [m for m in _imports(path) if m.startswith("vivid_inspect.runner")] == []


@pytest.mark.parametrize("path", _modules("runner"), ids=_rel)
def test_the_runner_imports_only_the_reports_entry_point(path: Path) -> None:
    reached = [m for m in _imports(path) if m.startswith("vivid_inspect.report")]
    assert set(reached) <= {"vivid_inspect.report.build"}


@pytest.mark.parametrize("path", _modules(), ids=_rel)
def test_contract_names_are_defined_only_in_the_contract(path: Path) -> None:
    # judge_id.py is the contract's pydantic-free part: a judge's names, for the command line too.
    if path.name in ("log_contract.py", "judge_id.py"):
        return
    tree = ast.parse(path.read_text("utf-8"))
    assigned = {
        target.id
        for node in tree.body
        if isinstance(node, ast.Assign | ast.AnnAssign)
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Name)
    }
    assert assigned.isdisjoint(CONTRACT_NAMES)
    literals = {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value == "vivid_judge"
    }
    assert not literals, "use log_contract.VIVID_JUDGE_KEY / read_judged_record"


@pytest.mark.parametrize("path", _modules(), ids=_rel)
def test_private_inspect_modules_only_through_the_adapter(path: Path) -> None:
    if path.name == "inspect_private.py":
        return
    private = [
        m
        for m in _imports(path)
        if m.startswith("inspect_ai") and any(p.startswith("_") for p in m.split("."))
    ]
    assert private == [], "import them through vivid_inspect.inspect_private, with the reason"
