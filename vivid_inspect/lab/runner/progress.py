"""One concise progress line for a whole spec: cells done, model calls made, errors.

Inspect shows each task's own progress; this adds the view across the spec. Model calls and
sample errors are counted by an Inspect hook (``on_model_usage`` fires once per call that
reached a provider, not for cache hits), so generation and judge calls are counted the same way.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Literal

import rich
from inspect_ai.hooks import Hooks, ModelCacheUsageData, ModelUsageData, SampleEnd, hooks
from rich.console import Console
from rich.markup import escape
from rich.status import Status

from vivid_inspect.text import printable

CellKind = Literal["generation", "judge", "panel"]

COMPACT = "compact"
"""``vivid run``'s default display: Inspect's own display off, our progress lines and errors only."""

_active: Progress | None = None


@dataclass
class Progress:
    """Counters of one ``vivid run``.

    Attributes:
        totals: Cells of each kind in the spec.
        done: Cells of each kind finished (run now or found done).
        failed: Cells of each kind that did not finish.
        calls: Model calls that reached a provider, by model name.
        cached: Model calls answered from Inspect's cache, by model name.
        sample_errors: Samples that ended with an error.
        quiet: Print nothing (tests).
    """

    totals: dict[str, int] = field(default_factory=dict)
    done: Counter[str] = field(default_factory=Counter)
    failed: Counter[str] = field(default_factory=Counter)
    calls: Counter[str] = field(default_factory=Counter)
    cached: Counter[str] = field(default_factory=Counter)
    sample_errors: int = 0
    messages: list[str] = field(default_factory=list)
    quiet: bool = False
    # A console of our own: Inspect silences the shared one for `--display none`.
    console: Console = field(default_factory=lambda: Console(highlight=False, soft_wrap=True))
    _status: tuple[Status, str] | None = None

    @property
    def total_calls(self) -> int:
        """Calls that reached a provider, all models together."""
        return sum(self.calls.values())

    def line(self) -> str:
        """``cells 7/12 (generation 4/4, judge 3/6, panel 0/2) · 412 calls (+8 from cache) · 0 errors``."""
        parts = ", ".join(f"{kind} {self.done[kind]}/{total}" for kind, total in self.totals.items() if total)
        cells = f"cells {sum(self.done.values())}/{sum(self.totals.values())} ({parts})"
        errors = self.sample_errors + sum(self.failed.values())
        cached = sum(self.cached.values())
        calls = f"{self.total_calls} calls" + (f" (+{cached} from cache)" if cached else "")
        return f"{cells} · {calls} · {errors} error{'s' if errors != 1 else ''}"

    def note(self, message: str) -> None:
        """Print one progress message with the running totals."""
        self._print(f"[bold]vivid[/bold] {escape(printable(message))} — {escape(self.line())}")

    def error(self, message: str) -> None:
        """Print and keep an error message."""
        self.messages.append(printable(message))  # printed again at the end of the run
        self._print(f"[bold red]vivid[/bold red] {escape(self.messages[-1])}")

    def cell_done(self, kind: CellKind, *, ok: bool = True) -> None:
        """Count a finished (or failed) cell."""
        (self.done if ok else self.failed)[kind] += 1
        self.refresh()

    @contextmanager
    def live(self, label: str) -> Iterator[None]:
        """Show one status line (``label`` and the totals) that updates as calls and cells finish.

        Used where Inspect shows no display of its own (the judge phase); a terminal that is not
        interactive shows nothing.
        """
        if self.quiet:
            yield
            return
        with self.console.status(self._status_text(label)) as status:
            self._status = (status, label)
            try:
                yield
            finally:
                self._status = None

    def refresh(self) -> None:
        """Redraw the status line, if one is showing."""
        if self._status is not None:
            status, label = self._status
            status.update(self._status_text(label))

    def _status_text(self, label: str) -> str:
        return f"[bold]vivid[/bold] {escape(printable(label))} — {escape(self.line())}"

    def _print(self, text: str) -> None:
        if not self.quiet:
            self.console.print(text)


@contextmanager
def tracking(progress: Progress) -> Iterator[Progress]:
    """Count model calls and sample errors into ``progress`` while the block runs."""
    global _active
    previous, _active = _active, progress
    try:
        yield progress
    finally:
        _active = previous


@contextmanager
def inspect_console_quiet() -> Iterator[None]:
    """Silence Inspect's shared console for a while (its per-call progress bars of ``score``).

    The judge phase runs many ``score`` calls at once; their bars would bury the one status
    line. Our own console is separate, so progress lines still print.
    """
    console = rich.get_console()
    previous = console.quiet
    console.quiet = True
    try:
        yield
    finally:
        console.quiet = previous


@hooks(name="vivid_progress", description="Counts model calls and errors for vivid run's progress line.")
class ProgressHooks(Hooks):
    """Feeds the active :class:`Progress`; idle (disabled) outside ``vivid run``."""

    def enabled(self) -> bool:
        """Whether a ``vivid run`` is counting (Inspect calls no other hook otherwise)."""
        return _active is not None

    async def on_model_usage(self, data: ModelUsageData) -> None:
        """Count a call that reached a provider."""
        if _active is not None:
            _active.calls[data.model_name] += 1
            _active.refresh()

    async def on_model_cache_usage(self, data: ModelCacheUsageData) -> None:
        """Count a call answered from Inspect's cache."""
        if _active is not None:
            _active.cached[data.model_name] += 1

    async def on_sample_end(self, data: SampleEnd) -> None:
        """Count a sample that ended in an error."""
        if _active is not None and data.sample.error is not None:
            _active.sample_errors += 1
