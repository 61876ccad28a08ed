"""The layout's promises, checked on the source: who may import whom, and where the log contract lives.

- the report and the runner agree on logs through :mod:`vivid_inspect.log_contract` alone: the
  report imports nothing from the runner, the runner only the report's entry point;
- the contract's names are defined once, in the contract module;
- Inspect's private modules are imported by the adapter alone (:mod:`vivid_inspect.inspect_private`);
- nothing below the report's adapters (its statistics, tables and cards) imports a VIVID benchmark
  module (`BENCHMARK`): what VIVID-only tables need of the benchmark comes through VIVID's adapter
  side, :mod:`vivid_inspect.lab.report.reading.vivid`, and the generation key through the contract;
- no import cycle between modules, nor between packages, and no package importing one on a floor
  above its own (`FLOORS`), counting imports inside functions and type-only imports under
  ``if TYPE_CHECKING:`` (a type names the module it comes from as much as a call does).
"""

from __future__ import annotations

import ast
import graphlib
from collections.abc import Iterator
from functools import cache
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


@pytest.mark.parametrize("path", _modules("lab/report"), ids=_rel)
def test_the_report_imports_nothing_from_the_runner(path: Path) -> None:
    assert [m for m in _imports(path) if m.startswith("vivid_inspect.lab.runner")] == []


@pytest.mark.parametrize("path", _modules("lab/runner"), ids=_rel)
def test_the_runner_imports_only_the_reports_entry_point(path: Path) -> None:
    reached = [m for m in _imports(path) if m.startswith("vivid_inspect.lab.report")]
    assert set(reached) <= {"vivid_inspect.lab.report.build"}


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


BENCHMARK = (
    "vivid_inspect.taxonomy",
    "vivid_inspect.judge_id",
    "vivid_inspect.log_contract",
    "vivid_inspect.generation_key",
    "vivid_inspect.sample_texts",
    "vivid_inspect.data",
    "vivid_inspect.scorers",
    "vivid_inspect.solvers",
    "vivid_inspect.tasks",
    "vivid_inspect.baselines",
)
"""VIVID's benchmark modules (and packages): read by the report's adapters (``lab/report/reading``) only.

Shared helpers of the core that know nothing of VIVID (``text``, ``bounds``) are not listed.
"""
BELOW_THE_ADAPTERS = ("lab/report/stats", "lab/report/tables", "lab/report/cards")
"""No exception: the paper's tables, the audit cards and the choice of the paper's judge take the
taxonomy, judge strategies and audit records from `vivid_inspect.lab.report.reading.vivid`."""


def _core_imports(path: Path) -> Iterator[str]:
    """Every module of the package a file imports, at any depth; ``from vivid_inspect import x`` names ``x``."""
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == "vivid_inspect":
            yield from (f"vivid_inspect.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


def _benchmark(module: str) -> bool:
    return any(module == name or module.startswith(f"{name}.") for name in BENCHMARK)


@pytest.mark.parametrize("path", [p for f in BELOW_THE_ADAPTERS for p in _modules(f)], ids=_rel)
def test_nothing_below_the_adapters_imports_a_vivid_benchmark_module(path: Path) -> None:
    assert [module for module in _core_imports(path) if _benchmark(module)] == []


def test_the_benchmark_rule_sees_every_spelling(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "from vivid_inspect import taxonomy, text\n"
        "import vivid_inspect.judge_id\n"
        "if TYPE_CHECKING:\n    from vivid_inspect.generation_key import Generation\n"
        "def f():\n    from vivid_inspect.data.sources import hf_label\n"
        "    from vivid_inspect.lab.report.reading.vivid import THEME_NAMES\n",
        "utf-8",
    )
    assert [m for m in _core_imports(source) if _benchmark(m)] == [
        "vivid_inspect.taxonomy",
        "vivid_inspect.judge_id",
        "vivid_inspect.generation_key",
        "vivid_inspect.data.sources",
    ]


def _name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _package_imports(path: Path, known: set[str]) -> Iterator[str]:
    """The package's modules a file imports, at any depth and for types too; ``from pkg import mod`` names ``mod``."""

    def walk(node: ast.AST) -> Iterator[str]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ImportFrom) and child.module:
                for alias in child.names:
                    yield (
                        f"{child.module}.{alias.name}"
                        if f"{child.module}.{alias.name}" in known
                        else child.module
                    )
            elif isinstance(child, ast.Import):
                yield from (alias.name for alias in child.names)
            yield from walk(child)

    yield from (name for name in walk(ast.parse(path.read_text("utf-8"))) if name in known)


@cache
def _module_graph() -> dict[str, frozenset[str]]:
    paths = {_name(path): path for path in _modules()}
    known = set(paths)
    return {name: frozenset(_package_imports(path, known)) - {name} for name, path in paths.items()}


def _package(module: str) -> str:
    """A module's package: ``data``, ``scorers`` on the core floor, ``lab.runner`` on the laboratory's.

    A module at the top of either floor is its own package.
    """
    parts = module.split(".")
    if len(parts) > 3 and parts[1:4] == ["lab", "humans", "annotate"]:
        return "lab.humans.annotate"  # making human scores sits above the report; reading them below
    if len(parts) > 4 and parts[1:3] == ["lab", "report"]:
        return f"lab.report.{parts[3]}"  # the report's floors: reading and statistics, tables, cards
    if len(parts) > 2 and parts[1] == "lab":
        return f"lab.{parts[2]}"
    return parts[1] if len(parts) > 1 else module


def _in_cycles(graph: dict[str, frozenset[str]]) -> set[frozenset[str]]:
    """Each set of nodes that import each other, directly or through others (more than one node)."""

    def reach(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for nxt in graph.get(todo.pop(), frozenset()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    reached = {node: reach(node) for node in graph}
    return {
        frozenset({node, *(other for other in reached[node] if node in reached[other])})
        for node in graph
        if node in reached[node]
    }


def test_no_import_cycle_between_modules() -> None:
    try:
        graphlib.TopologicalSorter(_module_graph()).prepare()
    except graphlib.CycleError as error:
        pytest.fail(f"modules import each other: {' -> '.join(error.args[1])}")


FLOORS: tuple[frozenset[str], ...] = (
    frozenset(
        {
            "lab.bounded_zip",
            "lab.folder_lock",
            "lab.interrupt",
            "lab.output_root",
            "lab.ticker",
            "lab.unscored",
            "lab.usage_events",
            "lab.writable",
        }
    ),
    frozenset({"lab.humans", "lab.audit", "lab.report.reading", "lab.report.stats"}),
    frozenset({"lab.report.tables"}),
    frozenset({"lab.report.cards"}),
    frozenset({"lab.report"}),
    frozenset({"lab.self_preference", "lab.humans.annotate"}),
    frozenset({"lab.runner"}),
    frozenset({"lab.cli"}),
)
"""The laboratory's floors, bottom first, above the core (every package outside ``lab``, floor 0).

Shared laboratory helpers; reading human scores and logs (the report's adapters), the statistics
(pure functions of scores) and the audit's probes and card; the report's tables; its cards; the
report's entry point and figures;
what reads a log folder through the report (``vivid audit --from``, ``vivid annotate``); the
runner, which calls the report at the end of a run; the command line. A package imports from its
own floor or below, never from above.
"""


def _floor(package: str) -> int:
    if not package.startswith("lab."):
        return 0
    (floor,) = [number for number, floor in enumerate(FLOORS, start=1) if package in floor]
    return floor


def _package_graph() -> dict[str, frozenset[str]]:
    packages: dict[str, set[str]] = {}
    for module, imported in _module_graph().items():
        packages.setdefault(_package(module), set()).update(
            _package(other) for other in imported if _package(other) != _package(module)
        )
    return {name: frozenset(imports) for name, imports in packages.items()}


def test_no_import_cycle_between_packages() -> None:
    cycles = _in_cycles(_package_graph())
    assert cycles == set(), [sorted(cycle) for cycle in cycles]


def test_every_laboratory_package_has_a_floor() -> None:
    listed = frozenset().union(*FLOORS)
    assert {name for name in _package_graph() if name.startswith("lab.")} == listed


def test_the_floors_run_from_the_core_up_to_the_command_line() -> None:
    order = ["data", "lab.ticker", "lab.audit", "lab.report", "lab.self_preference", "lab.runner", "lab.cli"]
    assert [_floor(name) for name in order] == sorted({_floor(name) for name in order})


def test_no_package_imports_from_a_floor_above_its_own() -> None:
    upward = sorted(
        f"{name} (floor {_floor(name)}) imports {other} (floor {_floor(other)})"
        for name, imports in _package_graph().items()
        for other in imports
        if _floor(other) > _floor(name)
    )
    assert upward == []


@pytest.mark.parametrize(
    ("imports", "cycle"),
    [
        pytest.param({"a": {"b"}, "b": {"a"}, "c": set()}, {frozenset({"a", "b"})}, id="pair"),
        pytest.param({"a": {"b"}, "b": {"c"}, "c": {"a"}}, {frozenset({"a", "b", "c"})}, id="circle"),
        pytest.param({"a": {"b"}, "b": {"c"}, "c": set()}, set(), id="chain"),
    ],
)
def test_the_cycle_finder_finds_pairs_and_circles(
    imports: dict[str, set[str]], cycle: set[frozenset[str]]
) -> None:
    assert _in_cycles({name: frozenset(them) for name, them in imports.items()}) == cycle


def test_lazy_and_type_only_imports_are_read_with_the_rest(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "import vivid_inspect.text\n"
        "if TYPE_CHECKING:\n    from vivid_inspect.lab.report.reading import logs\n"
        "def f():\n    from vivid_inspect.lab.runner import plan\n    from vivid_inspect import log_contract\n",
        "utf-8",
    )
    known = {
        "vivid_inspect",
        "vivid_inspect.text",
        "vivid_inspect.lab.report.reading.logs",
        "vivid_inspect.lab.runner.plan",
        "vivid_inspect.log_contract",
    }
    assert set(_package_imports(source, known)) == {
        "vivid_inspect.text",
        "vivid_inspect.lab.report.reading.logs",
        "vivid_inspect.lab.runner.plan",
        "vivid_inspect.log_contract",
    }


def _floor_imports(path: Path) -> Iterator[str]:
    """Every ``vivid_inspect.lab`` module a file imports, however it is spelt, at any depth."""
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = (
                [f"{node.module}.{alias.name}" for alias in node.names]
                if node.module == "vivid_inspect"
                else [node.module]
            )
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        yield from (
            name for name in names if name == "vivid_inspect.lab" or name.startswith("vivid_inspect.lab.")
        )


CORE = [path for path in _modules() if path.relative_to(PACKAGE).parts[0] != "lab"]


@pytest.mark.parametrize("path", CORE, ids=_rel)
def test_the_benchmark_core_imports_nothing_from_the_laboratory(path: Path) -> None:
    """The core floor could go upstream on its own: nothing in it reaches up into the laboratory.

    The core is tasks, data, solvers, scorers, baselines, the log contract and the endpoint check.
    """
    assert list(_floor_imports(path)) == []


def test_the_floor_rule_sees_every_spelling_of_an_upward_import(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "import vivid_inspect.lab.report.build\n"
        "from vivid_inspect import lab\n"
        "def f():\n    from vivid_inspect.lab.runner import plan\n    from vivid_inspect import text\n",
        "utf-8",
    )
    assert list(_floor_imports(source)) == [
        "vivid_inspect.lab.report.build",
        "vivid_inspect.lab",
        "vivid_inspect.lab.runner",
    ]


def test_the_core_is_where_the_documentation_says() -> None:
    """The two floors, as docs/architecture.md draws them: the laboratory is one folder."""
    assert (PACKAGE / "lab").is_dir() and (PACKAGE / "tasks.py").is_file()
    assert {
        path.name for path in (PACKAGE / "lab").iterdir() if path.is_dir() and path.name != "__pycache__"
    } >= {
        "runner",
        "report",
        "audit",
        "humans",
        "cli",
    }
