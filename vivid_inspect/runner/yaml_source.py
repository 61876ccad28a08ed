"""Read a spec file as YAML, remembering the line of every value and refusing duplicate keys.

PyYAML keeps the last of two equal keys without a word, so a spec with two ``judges:`` blocks
would silently lose one. The node tree (``yaml.compose``) has both keys and their positions, so
one pass over it finds duplicates and maps each YAML path to its line for error messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from vivid_inspect.runner.problems import PathPart, Problem, SpecError


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
    if isinstance(node, yaml.MappingNode):
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


def read_yaml(path: str | Path) -> YamlSource:
    """Parse a spec file.

    Args:
        path: The YAML file.

    Returns:
        The document and the line of each value.

    Raises:
        SpecError: The file is missing or unreadable, is not YAML, is not a mapping at the top,
            or repeats a key.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise SpecError([Problem((), "spec file not found")], str(path), locate=False) from None
    except (OSError, UnicodeDecodeError) as error:
        raise SpecError([Problem((), f"cannot read spec file: {error}")], str(path), locate=False) from None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        reason = getattr(error, "problem", None) or str(error)
        raise SpecError([Problem((), f"not valid YAML: {reason}", line)], str(path), locate=False) from None
    lines: dict[tuple[PathPart, ...], int] = {}
    problems: list[Problem] = []
    if node is not None:
        _walk(node, (), lines, problems)
    if not isinstance(data, dict):
        problems.append(
            Problem(
                (),
                f"a spec is a YAML mapping of keys (name, runs, judges, ...), got {type(data).__name__}",
                1,
            )
        )
    if problems:
        raise SpecError(problems, str(path), locate=False)
    return YamlSource(data, lines, path)
