"""The plan as plain text: cell tables, then calls, tokens and cost per model."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from vivid_inspect.lab.runner.plan import CellPlan, Plan
from vivid_inspect.lab.runner.prepare.preflight import planned
from vivid_inspect.lab.usage_events import CHARS_PER_TOKEN
from vivid_inspect.text import printable

FOOTNOTE = (
    "Input tokens: the real prompts rendered on the items at {chars} characters per token (judge "
    "prompts with the reference meaning standing in for the explanation). Output tokens: max_tokens "
    "per call, an upper bound. Cost: the spec's prices in USD per million tokens. A cell resumed "
    "from a partial log reuses its finished samples, so it makes fewer calls than shown."
)


def table(header: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[int] = ()) -> list[str]:
    """Align columns; the columns whose indexes are in ``right`` are right-aligned (numbers)."""
    header, rows = [printable(v) for v in header], [[printable(v) for v in row] for row in rows]
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]

    def line(row: Sequence[str]) -> str:
        cells = [
            str(v).rjust(w) if i in right else str(v).ljust(w)
            for i, (v, w) in enumerate(zip(row, widths, strict=True))
        ]
        return "  " + "  ".join(cells).rstrip()

    return [line(header), *(line(row) for row in rows)]


def count(value: int) -> str:
    """``12,345``."""
    return f"{value:,}"


def approx(value: int) -> str:
    """``≈ 9.6k`` / ``≈ 1.2M``."""
    if value >= 1_000_000:
        return f"≈ {value / 1e6:.1f}M"
    if value >= 1_000:
        return f"≈ {value / 1e3:.1f}k"
    return f"≈ {value}"


def money(value: float | None) -> str:
    """``$1.23``, or ``-`` without a price."""
    return "-" if value is None else f"${value:,.2f}"


NO_MODEL = "none (chrF)"
"""The judge-model column of the lexical judge, which scores by chrF and calls no model."""


def _status(cell: CellPlan) -> str:
    return "done" if cell.done else "to run"


def render_plan(plan: Plan) -> str:
    """The plan as text for the terminal.

    Args:
        plan: The plan.

    Returns:
        Cell tables, the per-model totals of the work still to do, and notes.
    """
    loaded = plan.loaded
    lines = [
        f"Plan for {loaded.spec.name} ({loaded.source})",
        f"  log dir: {loaded.log_dir}",
        f"  data: {loaded.data or '$VIVID_DATA, else hf'}",
    ]
    lines += [f"  note: {note}" for note in plan.notes]
    lines += _cell_tables(plan)
    lines += ["", "Preflight (vivid run checks these endpoints before generating)", *planned(plan)]
    lines += ["", "Calls a run would make, per model", *_totals(plan)]
    return "\n".join(printable(line) for line in lines)  # a name from the spec cannot add a line


def _cell_tables(plan: Plan) -> list[str]:
    """One table per kind of cell (generation, judge, panel), each with its status."""
    generation = [c for c in plan.cells if c.role == "generation"]
    judges = [c for c in plan.cells if c.role == "judge"]
    panels = [c for c in plan.cells if c.role == "panel"]
    lines = ["", f"Generation cells ({len(generation)})"]
    lines += table(
        ["status", "cell", "items", "calls"],
        [[_status(c), c.label, count(c.items), count(c.calls)] for c in generation],
        right=(2, 3),
    )
    if judges:
        lines += ["", f"Judge cells ({len(judges)})"]
        rows = [
            [_status(c), c.label, c.model or NO_MODEL, count(c.calls), count(c.max_calls)] for c in judges
        ]
        lines += table(["status", "cell", "judge model", "calls", "with retries"], rows, right=(3, 4))
    if panels:
        lines += ["", f"Panel cells ({len(panels)}; no model calls)"]
        lines += table(
            ["status", "cell", "items"], [[_status(c), c.label, count(c.items)] for c in panels], right=(2,)
        )
    audits = [c for c in plan.cells if c.role == "audit"]
    if audits:
        lines += ["", f"Audits ({len(audits)}; after the judges)"]
        rows = [[_status(c), c.label, c.model, count(c.calls), count(c.max_calls)] for c in audits]
        lines += table(["status", "audit", "judge model", "calls", "with retries"], rows, right=(3, 4))
    return lines


def _totals(plan: Plan) -> list[str]:
    """Calls, tokens and cost per model of the cells still to run, a total row and the footnote."""
    totals = plan.totals()
    if not totals:
        left = any(not c.done for c in plan.cells)
        return ["  none: the cells still to run call no model" if left else "  none: every cell is done"]
    rows = [
        [
            t.model,
            t.role,
            count(t.calls),
            count(t.max_calls),
            approx(t.input_tokens),
            approx(t.output_tokens),
            money(t.cost),
        ]
        for t in totals
    ]
    priced = [t.cost for t in totals if t.cost is not None]
    rows.append(
        [
            "total",
            "",
            count(sum(t.calls for t in totals)),
            count(sum(t.max_calls for t in totals)),
            approx(sum(t.input_tokens for t in totals)),
            approx(sum(t.output_tokens for t in totals)),
            money(sum(priced)) + (" (priced models only)" if len(priced) < len(totals) and priced else "")
            if priced
            else "-",
        ]
    )
    lines = table(
        ["model", "role", "calls", "with retries", "input tokens", "output tokens", "cost"],
        rows,
        right=(2, 3, 4, 5),
    )
    return [
        *lines,
        "",
        *textwrap.wrap(
            FOOTNOTE.format(chars=CHARS_PER_TOKEN), 100, initial_indent="  ", subsequent_indent="  "
        ),
    ]
