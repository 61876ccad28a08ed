"""``vivid plan``: what a run would do, without doing it.

Every generation, judge and panel cell with its status (done, or to run), the calls still to
make per model, tokens estimated from the real prompts rendered on the real items, and a cost
when the spec gives prices. Nothing is called; existing logs are only read.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field, replace
from typing import Literal

import anyio
from inspect_ai.dataset import Sample

from vivid_inspect.data import VividDataError
from vivid_inspect.lab.audit.plan import make_audit_plan
from vivid_inspect.lab.audit.run import audit_id, prepare_items
from vivid_inspect.lab.runner.audits import AUDITS_DIR, complete_paths, judge_identity
from vivid_inspect.lab.runner.catalog import render_task_prompt
from vivid_inspect.lab.runner.cells import GenerationCell, JudgeCell, PanelCell
from vivid_inspect.lab.runner.generate import reuse_conflicts
from vivid_inspect.lab.runner.layout import FoundLog, foreign_logs, latest_log, read_generation_logs
from vivid_inspect.lab.runner.prepare.prepared import Prepared, PreparedBlock, prepare, task_key
from vivid_inspect.lab.runner.spec.load import LoadedSpec
from vivid_inspect.lab.runner.spec.model import Price
from vivid_inspect.lab.runner.status import generation_done, judged_done, panel_waits
from vivid_inspect.lab.usage_events import tokens
from vivid_inspect.log_contract import sample_idiom, sample_meaning
from vivid_inspect.redact import redact
from vivid_inspect.scorers.judge_prompts import judge_template, render_judge_prompt

FULL_DATA_ROWS = 1636
"""Rows of the published VIVID data (the paper), for counts when the data cannot be read."""

Role = Literal["generation", "judge", "panel", "audit"]


@dataclass(frozen=True)
class CellPlan:
    """One cell of the plan.

    Attributes:
        role: ``generation``, ``judge``, ``panel`` or ``audit`` (a spec's ``audits:`` entry).
        label: What the cell is.
        model: The model called (empty for a panel and the lexical judge, which call none).
        items: Items per epoch.
        calls: Calls the cell makes when run (one per item and epoch).
        max_calls: Calls with every judge retry used.
        input_tokens: Estimated prompt tokens of those calls.
        output_tokens: Output tokens at most (``max_tokens`` per call).
        price: The model's price, if the spec gives one.
        done: The cell's output exists and is current: a run makes none of its calls.
    """

    role: Role
    label: str
    model: str
    items: int
    calls: int
    max_calls: int
    input_tokens: int
    output_tokens: int
    price: Price | None
    done: bool

    @property
    def cost(self) -> float | None:
        """US dollars for the cell's calls, when priced."""
        if self.price is None:
            return None
        return (self.input_tokens * self.price.input + self.output_tokens * self.price.output) / 1e6


@dataclass(frozen=True)
class ModelTotal:
    """Calls still to make for one model in one role."""

    model: str
    role: Role
    calls: int = 0
    max_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = None


@dataclass
class Plan:
    """The whole plan of a spec."""

    loaded: LoadedSpec
    cells: list[CellPlan] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def totals(self) -> list[ModelTotal]:
        """Per (model, role), the calls, tokens and cost of cells not yet done that call a model."""
        totals: dict[tuple[str, Role], ModelTotal] = {}
        for cell in self.cells:
            if cell.done or not cell.model:
                continue
            key = (cell.model, cell.role)
            old = totals.get(key, ModelTotal(cell.model, cell.role))
            cost = (
                None
                if old.cost is None and (old.calls or cell.cost is None)
                else (old.cost or 0) + (cell.cost or 0)
            )
            totals[key] = ModelTotal(
                cell.model,
                cell.role,
                old.calls + cell.calls,
                old.max_calls + cell.max_calls,
                old.input_tokens + cell.input_tokens,
                old.output_tokens + cell.output_tokens,
                cost,
            )
        return list(totals.values())


def _mean_tokens(texts: list[str]) -> float:
    return statistics.fmean(tokens(text) for text in texts) if texts else 0.0


def _items(samples: list[Sample]) -> list[tuple[str, str]]:
    return [(sample_idiom(s.input, s.metadata), sample_meaning(s.target, s.metadata)) for s in samples]


def _generation_cells(
    prepared: Prepared, block: PreparedBlock, counts: dict[int, int], logs: list[FoundLog]
) -> tuple[list[CellPlan], dict[GenerationCell, FoundLog]]:
    run_block = prepared.loaded.spec.runs[block.index]
    plans: list[CellPlan] = []
    found: dict[GenerationCell, FoundLog] = {}
    for cell in block.cells:
        key = task_key(cell)
        items = counts.get(block.index, block.item_count(cell))
        calls = items * run_block.epochs
        prompt = _mean_tokens(
            [render_task_prompt(cell.task, cell.args, idiom) for idiom, _ in _items(block.samples[key])]
        )
        max_tokens = run_block.generate.get("max_tokens") or block.tasks[key].config.max_tokens or 1024
        log = latest_log(cell, logs)
        done = generation_done(log, calls)
        if log and done:
            found[cell] = log
        plans.append(
            CellPlan(
                "generation",
                cell.label,
                cell.model.model,
                items,
                calls,
                calls,
                round(prompt * calls),
                max_tokens * calls,
                cell.model.price,
                done,
            )
        )
    return plans, found


def _judge_plan(cell: JudgeCell, block: PreparedBlock, items: int, epochs: int, done: bool) -> CellPlan:
    label = f"{cell.label} ({cell.judge.strategy}) × {cell.generation.label}"
    if cell.lexical:
        # chrF is computed here, on the machine: no call, no token, no cost.
        return CellPlan("judge", label, "", items, 0, 0, 0, 0, None, done)
    template = judge_template(cell.judge.strategy, cell.judge.language)
    # The explanation is not known before generation; the reference meaning stands in for it.
    samples = _items(block.samples[task_key(cell.generation)])
    prompt = _mean_tokens(
        [render_judge_prompt(template, idiom=i, reference=m, candidate=m) for i, m in samples]
    )
    calls = items * epochs
    return CellPlan(
        "judge",
        label,
        cell.judge.model or "",
        items,
        calls,
        calls * (1 + cell.judge.retries),
        round(prompt * calls),
        cell.max_tokens * calls,
        cell.judge.price,
        done,
    )


async def _judged_done(prepared: Prepared, cell: JudgeCell | PanelCell, log: FoundLog | None) -> bool:
    if log is None:
        return False
    return await judged_done(prepared.loaded.log_dir, cell, log.path, log.header)


def _prepare_for_plan(loaded: LoadedSpec, notes: list[str]) -> tuple[Prepared, dict[int, int]]:
    try:
        return prepare(loaded), {}
    except VividDataError as error:
        reason = str(error).splitlines()[0]
        reason = reason if len(reason) <= 160 else reason[:157] + "..."
        notes.append(
            f"data {loaded.data or '(default)'} could not be read ({reason}); counts use the spec's "
            f"numbers, or {FULL_DATA_ROWS:,} items (the published data) where it names none; token "
            "estimates use the bundled sample's prompts"
        )
    # Prompts come from the bundled sample, so every item of it serves: the spec's own
    # selection (ids of the real data) need not exist there.
    runs = [
        block.model_copy(update={"limit": None, "sample_ids": None, "sample": None})
        for block in loaded.spec.runs
    ]
    prepared = prepare(replace(loaded, spec=loaded.spec.model_copy(update={"runs": runs})), data="sample")
    counts = {}
    for block in prepared.blocks:
        run_block = loaded.spec.runs[block.index]
        counts[block.index] = (
            run_block.sample.n
            if run_block.sample
            else len(run_block.sample_ids)
            if run_block.sample_ids
            else run_block.limit or FULL_DATA_ROWS
        )
    return prepared, counts


def make_plan(loaded: LoadedSpec) -> Plan:
    """Work out every cell of a spec, its status and its calls.

    Args:
        loaded: The validated spec.

    Returns:
        The plan. When the data cannot be read (``hf`` offline), counts come from the spec and
        the published data size, and the plan's notes say so.

    Raises:
        SpecError: A listed item id is not in the data.
    """
    plan = Plan(loaded)
    prepared, counts = _prepare_for_plan(loaded, plan.notes)
    foreign = foreign_logs(loaded.log_dir, list(prepared.cells.generations))
    if foreign:
        plan.notes.append(
            f"{len(foreign)} log(s) in {loaded.log_dir / 'generations'} belong to no cell of this spec "
            "(another spec, or a cell since removed); the report reads them too"
        )
    if not counts:  # items known (not estimated from the bundled sample)
        plan.notes += [f"a run would refuse to start: {p.render()}" for p in reuse_conflicts(prepared)]
    logs = read_generation_logs(loaded.log_dir)
    blocks = {block.index: block for block in prepared.blocks}
    found: dict[GenerationCell, FoundLog] = {}
    for block in prepared.blocks:
        cells, block_found = _generation_cells(prepared, block, counts, logs)
        plan.cells += cells
        found.update(block_found)
    judged: dict[JudgeCell, bool] = {}
    for cell in prepared.cells.judges:
        block = blocks[cell.generation.block]
        items = counts.get(block.index, block.item_count(cell.generation))
        judged[cell] = anyio.run(_judged_done, prepared, cell, found.get(cell.generation))
        plan.cells.append(_judge_plan(cell, block, items, loaded.spec.runs[block.index].epochs, judged[cell]))
    for panel in prepared.cells.panels:
        block = blocks[panel.generation.block]
        items = counts.get(block.index, block.item_count(panel.generation))
        generation = found.get(panel.generation)
        current = {member for member in panel.members if judged[member]}
        done = panel_waits(panel, current, generation.path if generation else None) is None and anyio.run(
            _judged_done, prepared, panel, generation
        )
        members = ", ".join(panel.panel.members)
        label = f"{panel.panel.name} ({panel.panel.aggregate} of {members}) × {panel.generation.label}"
        plan.cells.append(CellPlan("panel", label, "", items, 0, 0, 0, 0, None, done))
    audits, notes = _audit_cells(loaded)
    plan.cells += audits
    plan.notes += notes
    return plan


def _audit_cells(loaded: LoadedSpec) -> tuple[list[CellPlan], list[str]]:
    """``vivid plan``'s view of the spec's audits: the judge calls of each, and whether it is done.

    Args:
        loaded: The spec.

    Returns:
        One plan cell per audit (done when its complete probe logs are in its folder), and a note
        for each audit that cannot be planned (its data cannot be read).
    """
    by_name = {judge.name: judge for judge in loaded.spec.judges}
    cells: list[CellPlan] = []
    notes: list[str] = []
    for entry in loaded.spec.audits:
        judge = by_name[entry.judge]
        model = str(judge.model)
        try:
            planned = make_audit_plan(
                model,
                strategy=judge.strategy,
                language=judge.language,
                data=loaded.data,
                limit=entry.limit,
                seed=entry.seed,
                probes=entry.probes,
                retries=judge.retries,
            )
            prepared = prepare_items(
                data=loaded.data, limit=entry.limit, seed=entry.seed, probes=entry.probes, translator=None
            )
        except ValueError as error:
            notes.append(f"audit of {judge.name} not planned: {' '.join(redact(str(error)).split())}")
            continue
        identity = audit_id(
            judge_identity(loaded, judge),
            judge.strategy,
            judge.language,
            prepared,
            entry.seed,
            None,
            judge.retries,
        )
        done = set(prepared.probes) <= set(complete_paths(loaded.log_dir / AUDITS_DIR / judge.name, identity))
        grader = planned.roles[0]
        label = f"audit of {judge.name}: {planned.items} items × {len(planned.probes)} probes"
        cells.append(
            CellPlan(
                "audit",
                label,
                model,
                planned.items,
                grader.calls,
                grader.max_calls,
                grader.input_tokens,
                grader.output_tokens,
                judge.price,
                done,
            )
        )
    return cells, notes
