"""A griffe extension for the API pages: a parameter whose default is a module constant shows its value.

``load_items(..., leakage_threshold=NEAR_DUPLICATE_THRESHOLD)`` reads as ``= 0.75`` on the page,
which is what a reader needs; the code keeps the named constant as the one place the value lives.
Only plain literals (numbers, strings, booleans, None) are shown; anything else keeps its name.
"""

from __future__ import annotations

import ast
from typing import Any

import griffe


class ConstantDefaults(griffe.Extension):
    """Replace a default that names a module-level literal constant by that literal."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:  # noqa: ARG002 - griffe's hook signature
        """Once the whole package is loaded, so that every constant can be looked up."""
        self._walk(pkg, pkg)

    def _walk(self, obj: griffe.Object | griffe.Alias, pkg: griffe.Module) -> None:
        if obj.is_alias:
            return
        for member in list(obj.members.values()):
            if member.is_alias:
                continue
            if member.is_function:
                self._inline(member, pkg)  # type: ignore[arg-type]
            if member.is_module or member.is_class:
                self._walk(member, pkg)

    @staticmethod
    def _inline(func: griffe.Function, pkg: griffe.Module) -> None:
        for parameter in func.parameters:
            default = parameter.default
            if not isinstance(default, griffe.ExprName):
                continue
            try:
                target = pkg.modules_collection.get_member(default.canonical_path)
            except (KeyError, ValueError, griffe.AliasResolutionError, griffe.CyclicAliasError):
                continue
            value = getattr(target, "value", None)
            if value is None:
                continue
            try:
                literal = ast.literal_eval(str(value))
            except (ValueError, SyntaxError):
                continue
            if isinstance(literal, (int, float, str, bool)) or literal is None:
                parameter.default = repr(literal)
