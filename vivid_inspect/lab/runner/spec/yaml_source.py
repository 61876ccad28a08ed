"""Read a spec file as YAML, remembering the line of every value and refusing duplicate keys.

PyYAML keeps the last of two equal keys without a word, so a spec with two ``judges:`` blocks
would silently lose one. The node tree (``yaml.compose``) has both keys and their positions, so
one pass over it finds duplicates and maps each YAML path to its line for error messages.

A spec is also hostile input. Before anything is built from it, a file over :data:`MAX_SPEC_BYTES`
is refused unread, nesting deeper than :data:`MAX_DEPTH` is refused from PyYAML's event stream
(its parser is iterative; its composer recurses and would raise ``RecursionError``), and aliases
are refused when the document they expand to has more than :data:`MAX_EXPANDED_NODES` nodes or
refers to itself (a 500-byte "billion laughs" expands to billions of nodes).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from vivid_inspect.lab.runner.spec.problems import PathPart, Problem, SpecError

MAX_SPEC_BYTES = 1_000_000
"""Largest spec file read: the shipped specs are under 5 kB."""
MAX_DEPTH = 50
"""Deepest nesting of mappings and lists: a spec needs about 6 levels."""
MAX_EXPANDED_NODES = 100_000
"""Most YAML nodes a spec may hold once its aliases are expanded."""
MAX_NUMBER_DIGITS = 1_000
"""Longest number a spec may write: no count needs more digits, and Python refuses to read an
integer of more than 4,300 (every count also has its own bound, :mod:`vivid_inspect.bounds`)."""
_INT_TAG = "tag:yaml.org,2002:int"


@dataclass(frozen=True)
class YamlSource:
    """A parsed spec file.

    Attributes:
        data: The parsed document (plain dicts, lists and scalars).
        lines: 1-based line of each value, keyed by its path with keys as strings.
        path: The file it came from.
    """

    data: Any
    lines: dict[tuple[PathPart, ...], int]
    path: Path

    def line(self, path: tuple[PathPart, ...]) -> int | None:
        """Line of the value at ``path``, or of its closest parent that has one."""
        key = tuple(part if isinstance(part, int) else str(part) for part in path)
        while key:
            if key in self.lines:
                return self.lines[key]
            key = key[:-1]
        return self.lines.get((), None)


def _walk(
    node: yaml.Node,
    path: tuple[PathPart, ...],
    lines: dict[tuple[PathPart, ...], int],
    problems: list[Problem],
) -> None:
    lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.ScalarNode) and node.tag == _INT_TAG and len(node.value) > MAX_NUMBER_DIGITS:
        message = (
            f"a number of {len(node.value):,} characters; a spec's numbers have at most "
            f"{MAX_NUMBER_DIGITS} digits and every count an upper bound (docs/experiments.md, Bounds)"
        )
        problems.append(Problem(path, message, node.start_mark.line + 1))
    elif isinstance(node, yaml.MappingNode):
        seen: dict[str, int] = {}
        for key_node, value_node in node.value:
            key = str(key_node.value)
            line = key_node.start_mark.line + 1
            if key in seen:
                problems.append(
                    Problem((*path, key), f"duplicate key (first given on line {seen[key]})", line)
                )
                continue
            seen[key] = line
            _walk(value_node, (*path, key), lines, problems)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk(item, (*path, index), lines, problems)


def _bounded_text(path: Path) -> str:
    size = path.stat().st_size
    if size > MAX_SPEC_BYTES:
        raise SpecError(
            [Problem((), f"spec file is {size:,} bytes; a spec may be at most {MAX_SPEC_BYTES:,} bytes")],
            str(path),
        )
    with path.open("rb") as handle:
        # A FIFO or a file growing while read has no honest size: read one byte past the bound.
        raw = handle.read(MAX_SPEC_BYTES + 1)
    if len(raw) > MAX_SPEC_BYTES:
        raise SpecError(
            [Problem((), f"spec file is over {MAX_SPEC_BYTES:,} bytes, the most a spec may be")],
            str(path),
        )
    return raw.decode("utf-8-sig")


def _check_depth(text: str) -> Problem | None:
    """The first place nesting goes deeper than :data:`MAX_DEPTH`, read from the event stream."""
    depth = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                line = event.start_mark.line + 1 if event.start_mark is not None else None
                return Problem((), f"nested more than {MAX_DEPTH} levels deep; a spec needs far fewer", line)
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
    return None


def _expanded_size(node: yaml.Node, sizes: dict[int, int], open_nodes: set[int]) -> int:
    """Nodes in ``node`` with every alias expanded, memoised per node; -1 for a self-reference.

    Depth is bounded by :func:`_check_depth`, so the recursion is too.
    """
    key = id(node)
    if key in sizes:
        return sizes[key]
    if key in open_nodes:
        return -1
    open_nodes.add(key)
    children: list[yaml.Node] = []
    if isinstance(node, yaml.MappingNode):
        children = [part for pair in node.value for part in pair]
    elif isinstance(node, yaml.SequenceNode):
        children = list(node.value)
    total = 1
    for child in children:
        size = _expanded_size(child, sizes, open_nodes)
        if size < 0:
            return -1
        total = min(total + size, MAX_EXPANDED_NODES + 1)  # capped: only "too many" matters
    open_nodes.discard(key)
    sizes[key] = total
    return total


def _longest_collection(root: yaml.Node) -> tuple[int, tuple[PathPart, ...], yaml.Node]:
    """Nodes written in the file (each alias's target once), and the longest list or mapping with its path."""
    written, longest = 0, root
    where: tuple[PathPart, ...] = ()
    seen: set[int] = set()
    stack: list[tuple[yaml.Node, tuple[PathPart, ...]]] = [(root, ())]
    while stack:
        node, path = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        written += 1
        if isinstance(node, yaml.MappingNode | yaml.SequenceNode) and len(node.value) > len(longest.value):
            longest, where = node, path
        if isinstance(node, yaml.MappingNode):
            stack += [(child, (*path, str(key.value))) for key, child in node.value]
            stack += [(key, path) for key, _ in node.value]
        elif isinstance(node, yaml.SequenceNode):
            stack += [(child, (*path, index)) for index, child in enumerate(node.value)]
    return written, where, longest


def _check_aliases(node: yaml.Node) -> Problem | None:
    size = _expanded_size(node, {}, set())
    if size < 0:
        return Problem((), "an alias refers to the node that contains it (a recursive alias)")
    if size <= MAX_EXPANDED_NODES:
        return None
    written, where, longest = _longest_collection(node)
    if written > MAX_EXPANDED_NODES:  # too long as written, whatever its aliases do
        kind = "mapping" if isinstance(longest, yaml.MappingNode) else "list"
        return Problem(
            where,
            f"a {kind} of {len(longest.value):,} entries; a spec holds at most {MAX_EXPANDED_NODES:,} values "
            "in all and each list far fewer (docs/experiments.md, Bounds)",
            longest.start_mark.line + 1,
        )
    return Problem(
        (),
        f"aliases (*name) expand the spec to more than {MAX_EXPANDED_NODES:,} values; "
        "write the values out instead of nesting aliases",
    )


def read_yaml(path: str | Path) -> YamlSource:
    """Parse a spec file.

    Args:
        path: The YAML file.

    Returns:
        The document and the line of each value.

    Raises:
        SpecError: The file is missing or unreadable, is too large, is not YAML, nests too deep,
            has aliases that expand too far, is not a mapping at the top, or repeats a key.
    """
    path = Path(path)
    try:
        text = _bounded_text(path)
    except FileNotFoundError:
        raise SpecError([Problem((), "spec file not found")], str(path)) from None
    except IsADirectoryError:
        raise SpecError([Problem((), "is a folder, not a spec file")], str(path)) from None
    except (OSError, UnicodeDecodeError) as error:
        raise SpecError([Problem((), f"cannot read spec file: {error}")], str(path)) from None
    try:
        too_deep = _check_depth(text)
        if too_deep is not None:
            raise SpecError([too_deep], str(path))
        loader = yaml.SafeLoader(text)
        lines: dict[tuple[PathPart, ...], int] = {}
        problems: list[Problem] = []
        try:
            node = loader.get_single_node()
            bomb = _check_aliases(node) if node is not None else None
            if bomb is not None:
                raise SpecError([bomb], str(path))
            if node is not None:
                _walk(node, (), lines, problems)
            if any("a number of" in p.message for p in problems):
                # before constructing: Python would refuse to read the number with a traceback
                raise SpecError(problems, str(path))
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        reason = getattr(error, "problem", None) or str(error)
        raise SpecError([Problem((), f"not valid YAML: {reason}", line)], str(path)) from None
    if not isinstance(data, dict):
        problems.append(
            Problem(
                (),
                f"a spec is a YAML mapping of keys (name, runs, judges, ...), got {type(data).__name__}",
                1,
            )
        )
    if problems:
        raise SpecError(problems, str(path))
    return YamlSource(data, lines, path)


def with_lines(source: str, problems: Iterable[Problem]) -> list[Problem]:
    """Give problems without a line the line of their YAML path in ``source``, where it can be read."""
    problems = list(problems)
    if all(p.line is not None for p in problems):
        return problems
    try:
        located = read_yaml(source)
    except (SpecError, OSError):
        return problems
    return [p if p.line is not None else Problem(p.path, p.message, located.line(p.path)) for p in problems]
