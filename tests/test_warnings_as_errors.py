"""tests/warnings_as_errors.py: a test's own warnings are errors, another test's garbage is not."""

from __future__ import annotations

import gc
import sys
import warnings
from typing import Any

import pytest

from tests.warnings_as_errors import warnings_as_errors


class LeftOpen:
    """Warns when freed, as an unclosed socket does; a reference cycle leaves it to the collector."""

    def __init__(self) -> None:
        self.itself = self

    def __del__(self) -> None:
        warnings.warn("left open by an earlier test", ResourceWarning, stacklevel=1)


def test_garbage_left_before_the_block_is_not_an_error_inside_it(monkeypatch: pytest.MonkeyPatch) -> None:
    reported: list[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", reported.append)
    LeftOpen()
    with warnings_as_errors():
        gc.collect()  # the collector may run at any point of the block
    assert reported == []


def test_a_warning_raised_inside_the_block_is_an_error() -> None:
    with pytest.raises(RuntimeWarning, match="inside"), warnings_as_errors():
        warnings.warn("raised inside", RuntimeWarning, stacklevel=1)
