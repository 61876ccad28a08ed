"""Build what a spec runs, before anything runs: its tasks and each run block's items.

Data that cannot be read and ids that are not in the data fail here, before the first call
(models are created in `vivid_inspect.lab.runner.prepare.models`, also beforehand).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from inspect_ai import Task
from inspect_ai.dataset import Sample

from vivid_inspect.lab.runner.catalog import build_task
from vivid_inspect.lab.runner.cells import Cells, GenerationCell, expand
from vivid_inspect.lab.runner.prepare.items import Selection, select_items
from vivid_inspect.lab.runner.spec.load import LoadedSpec


def task_key(cell: GenerationCell) -> str:
    """Cells that share a task (same task and arguments, any model) share one Task object."""
    return f"{cell.task}:{json.dumps(cell.args, sort_keys=True, default=str)}"


@dataclass(frozen=True)
class PreparedBlock:
    """One run block ready for ``eval_set``.

    Attributes:
        index: Index in ``runs``.
        cells: Its generation cells.
        tasks: Its distinct tasks by `task_key`.
        selection: Its items.
        samples: Each task's selected samples (for estimates), by task key.
    """

    index: int
    cells: list[GenerationCell]
    tasks: dict[str, Task]
    selection: Selection
    samples: dict[str, list[Sample]]

    def item_count(self, cell: GenerationCell) -> int:
        """Items one cell generates for (per epoch)."""
        return len(self.selection.ids[task_key(cell)])


@dataclass(frozen=True)
class Prepared:
    """A spec with its cells, tasks and items."""

    loaded: LoadedSpec
    cells: Cells
    blocks: list[PreparedBlock]


def prepare(loaded: LoadedSpec, *, data: str | None = None) -> Prepared:
    """Build every task of a spec and resolve each block's items.

    Args:
        loaded: The validated spec.
        data: Build the tasks on this data instead of the spec's (``vivid plan`` uses the
            bundled sample when the real data cannot be read).

    Returns:
        The prepared spec.

    Raises:
        SpecError: A listed item id is not in the data.
        VividDataError: The data cannot be read.
    """
    cells = expand(loaded)
    blocks: list[PreparedBlock] = []
    for index, block in cells.blocks.items():
        block_cells = cells.block_cells(index)
        tasks: dict[str, Task] = {}
        for cell in block_cells:
            key = task_key(cell)
            if key not in tasks:
                args = cell.args if data is None else {**cell.args, "data": data}
                tasks[key] = build_task(cell.task, args)
        datasets = {key: list(task.dataset) for key, task in tasks.items()}
        selection = select_items(index, block, datasets, str(loaded.source))
        samples = {key: [s for s in datasets[key] if s.id in set(selection.ids[key])] for key in tasks}
        blocks.append(PreparedBlock(index, block_cells, tasks, selection, samples))
    return Prepared(loaded, cells, blocks)
