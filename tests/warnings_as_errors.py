"""Warnings raised inside a block are errors; what earlier tests left for the collector is not.

A test that turns warnings into errors must fail on its own warnings only. Objects other tests
left in reference cycles (an unclosed client's socket, say) warn when the collector frees them,
whenever that is: inside such a block, another test's socket became this test's error. The
garbage is collected first, with warnings ignored (tests/test_warnings_as_errors.py).
"""

from __future__ import annotations

import contextlib
import gc
import warnings
from collections.abc import Iterator


def collect_older_garbage() -> None:
    """Free what earlier tests left in reference cycles, ignoring the warnings that freeing raises."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gc.collect()


@contextlib.contextmanager
def warnings_as_errors() -> Iterator[None]:
    """Turn every warning raised inside the block into an error, after collecting older garbage."""
    collect_older_garbage()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield
