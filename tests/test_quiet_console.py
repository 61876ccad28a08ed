"""conftest.py's shortcut: a quiet rich console skips the layout of what it would throw away.

Inspect's display "none" makes rich's console quiet; rich still laid out every print (the results
table of each in-process eval) before discarding it. What a console prints or records is the same
with the shortcut as without it: only the wasted layout is gone.
"""

from __future__ import annotations

import io

from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table


class Counted:
    """A renderable that counts how often rich lays it out."""

    def __init__(self) -> None:
        self.layouts = 0

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        self.layouts += 1
        yield "laid out"


def _table() -> Table:
    table = Table("task", "mean")
    table.add_row("explain", "3.5")
    return table


def test_a_quiet_console_does_not_lay_out_what_it_prints() -> None:
    renderable = Counted()
    Console(file=io.StringIO(), quiet=True).print(renderable)
    assert renderable.layouts == 0


def test_a_quiet_console_still_prints_and_records_nothing() -> None:
    out = io.StringIO()
    console = Console(file=out, quiet=True, record=True)
    console.print(_table())
    console.print("[bold]plain[/bold] text")
    assert out.getvalue() == "" and console.export_text() == ""


def test_a_console_that_is_not_quiet_prints_and_records_as_before() -> None:
    renderable, out = Counted(), io.StringIO()
    console = Console(file=out, record=True, width=40)
    console.print(renderable)
    console.print(_table())
    assert renderable.layouts == 1
    printed = out.getvalue()
    assert printed.startswith("laid out\n") and "explain" in printed and "3.5" in printed
    assert console.export_text() == printed


def test_a_console_made_quiet_for_a_while_prints_again_afterwards() -> None:
    out = io.StringIO()
    console = Console(file=out, width=40)
    console.quiet = True
    console.print("hidden")
    console.quiet = False
    console.print("shown")
    assert out.getvalue() == "shown\n"
