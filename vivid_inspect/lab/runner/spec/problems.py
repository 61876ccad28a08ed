"""Spec problems: one message per thing wrong, each naming its YAML path (``judges[2].strategy``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

PathPart = str | int
"""A mapping key (str) or a list index (int) on the way from the spec root to a value."""


def format_path(path: Sequence[PathPart]) -> str:
    """Render a path the way a reader finds it in the YAML: ``runs[0].models[1].model_args.data``.

    Args:
        path: Keys and indexes from the root.

    Returns:
        The dotted path; ``(spec)`` for the root itself.
    """
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text or "(spec)"


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a spec.

    Attributes:
        path: Where in the YAML, as keys and list indexes from the root.
        message: What is wrong and, where it helps, what would be right.
        line: 1-based line of the value in the spec file, when known.
    """

    path: tuple[PathPart, ...]
    message: str
    line: int | None = None

    def render(self, source: str | None = None) -> str:
        """``file:line: path: message``, leaving out what is unknown."""
        where = ":".join(str(part) for part in (source, self.line) if part is not None)
        prefix = f"{where}: " if where else ""
        return f"{prefix}{format_path(self.path)}: {self.message}"


class SpecError(ValueError):
    """A spec that must not run. ``problems`` lists every problem found, not only the first.

    Args:
        problems: The problems, in the order they were found.
        source: The spec file, for messages (`vivid_inspect.lab.runner.spec.yaml_source.with_lines`
            gives problems their lines first).
    """

    what = ("problem", "problems")

    def __init__(self, problems: Iterable[Problem], source: str | None = None) -> None:
        self.problems = sorted(problems, key=lambda p: (p.line is None, p.line or 0, format_path(p.path)))
        self.source = source
        count = len(self.problems)
        lines = [problem.render(source) for problem in self.problems]
        header = f"{source or 'spec'}: {count} {self.what[count != 1]}"
        super().__init__("\n".join([header, *(f"  {line}" for line in lines)]))


class SetupError(SpecError):
    """A valid spec that cannot start here.

    A model that cannot be created (no API key, a provider package that is not installed). Like
    `SpecError`, nothing has run.
    """

    what = ("model cannot be created", "models cannot be created")
