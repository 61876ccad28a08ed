"""``vivid audit``'s one progress bar: candidates judged over the whole audit, not a panel per probe.

Inspect's own display draws a panel for each probe's task (about 380 lines for the twelve probes of
the bundled sample); ``vivid audit`` runs the tasks with Inspect's display off and shows this bar
instead, as ``vivid run`` shows its one progress line (`vivid_inspect.lab.runner.progress`). An
Inspect hook counts each sample that ends (a candidate judged, or failed) and each judge call that
reached a provider or came from Inspect's cache. On a terminal that is not interactive (a pipe, a
CI log) the bar draws nothing; there, one plain line is printed every 15 seconds instead
(`vivid_inspect.lab.ticker`), so a long audit is never silent.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from inspect_ai.hooks import Hooks, ModelCacheUsageData, ModelUsageData, SampleEnd, hooks
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from vivid_inspect.lab.ticker import rate_text, ticking

_active: AuditProgress | None = None


@dataclass
class AuditProgress:
    """Counters of one audit while it runs.

    Attributes:
        total: Candidates to judge: every probe's items, over all probes.
        done: Candidates whose sample ended.
        calls: Model calls that reached a provider.
        cached: Model calls answered from Inspect's cache.
        errors: Candidates whose sample ended in an error.
    """

    total: int
    done: int = 0
    calls: int = 0
    cached: int = 0
    errors: int = 0
    started: float = field(default_factory=time.monotonic)
    _bar: tuple[Progress, TaskID] | None = field(default=None, repr=False)

    def text(self) -> str:
        """``412 calls (+8 from cache)``: what the bar shows beside the count."""
        return f"{self.calls} calls" + (f" (+{self.cached} from cache)" if self.cached else "")

    def line(self, label: str) -> str:
        """The periodic line: ``judging ... — 12/240 candidates · 40 calls · 0 errors · 50s elapsed · 0.8 calls/s``."""
        errors = f"{self.errors} error{'s' if self.errors != 1 else ''}"
        return (
            f"vivid audit {label} — {self.done}/{self.total} candidates · {self.text()} · {errors} · "
            f"{rate_text(self.calls, self.started)}"
        )

    def refresh(self) -> None:
        """Redraw the bar, if one is showing."""
        if self._bar is not None:
            bar, task = self._bar
            bar.update(task, completed=self.done, calls=self.text())


@contextmanager
def showing(total: int, label: str, *, console: Console | None = None) -> Iterator[AuditProgress]:
    """Count the audit's judged candidates while the block runs, and draw one bar on an interactive terminal.

    Args:
        total: Candidates the audit judges.
        label: What the bar says it does (``judging 12 probes of mockllm/judge``).
        console: Where to draw (default: standard error, so the card on standard output stays clean).

    Yields:
        The counters.
    """
    global _active
    console = console or Console(stderr=True, highlight=False)
    tracker = AuditProgress(total)
    previous, _active = _active, tracker
    try:
        if not console.is_terminal:
            with ticking(
                lambda: console.print(tracker.line(label), markup=False, highlight=False, soft_wrap=True)
            ):
                yield tracker
            return
        columns = (
            TextColumn("[bold]vivid audit[/bold] {task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("candidates · {task.fields[calls]}"),
            TimeElapsedColumn(),
        )
        with Progress(*columns, console=console, transient=False) as bar:
            task = bar.add_task(label, total=total, calls=tracker.text())
            tracker._bar = (bar, task)
            try:
                yield tracker
            finally:
                tracker.refresh()
                tracker._bar = None
    finally:
        _active = previous


@hooks(name="vivid_audit_progress", description="Counts judged candidates for vivid audit's progress bar.")
class AuditProgressHooks(Hooks):
    """Feeds the active `AuditProgress`; idle (disabled) outside ``vivid audit``."""

    def enabled(self) -> bool:
        """Whether an audit is counting (Inspect calls no other hook otherwise)."""
        return _active is not None

    async def on_sample_end(self, data: SampleEnd) -> None:
        """Count a candidate whose sample ended (judged, or failed)."""
        if _active is not None:
            _active.done += 1
            _active.errors += data.sample.error is not None
            _active.refresh()

    async def on_model_usage(self, data: ModelUsageData) -> None:
        """Count a call that reached a provider."""
        if _active is not None:
            _active.calls += 1
            _active.refresh()

    async def on_model_cache_usage(self, data: ModelCacheUsageData) -> None:
        """Count a call answered from Inspect's cache."""
        if _active is not None:
            _active.cached += 1
            _active.refresh()
