"""Which items a run block generates on: all, the first N, listed ids, or a stratified sample.

Listed and sampled ids are given to ``eval_set`` as ``sample_id``, so the log records them and a
rerun selects the same items. A sample is drawn from the items that *every* task of the block
keeps (a task leaves out the idioms of its demonstrations), so all cells see the same items.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from inspect_ai.dataset import Sample

from vivid_inspect.lab.runner.prepare.sampling import stratified_sample
from vivid_inspect.lab.runner.spec.model import RunBlock
from vivid_inspect.lab.runner.spec.problems import Problem, SpecError
from vivid_inspect.lab.runner.spec.yaml_source import with_lines


@dataclass(frozen=True)
class Selection:
    """The items of one run block.

    Attributes:
        sample_id: Ids for ``eval_set(sample_id=...)``, or None.
        limit: ``eval_set(limit=...)``, or None.
        ids: The ids each task of the block runs, keyed like the ``datasets`` argument.
    """

    sample_id: list[int] | None
    limit: int | None
    ids: dict[str, list[int]]


def _id(sample: Sample) -> int:
    # VIVID sample ids are 1-based data-row numbers (the data layer's contract).
    if not isinstance(sample.id, int):
        raise TypeError(f"expected an integer sample id, got {sample.id!r}")
    return sample.id


def _theme(sample: Sample) -> str:
    return str((sample.metadata or {}).get("theme", ""))


def select_items(
    block_index: int, block: RunBlock, datasets: Mapping[str, Sequence[Sample]], source: str | None = None
) -> Selection:
    """Resolve a block's item selection against the datasets of its tasks.

    Args:
        block_index: The block's index in ``runs``, for messages.
        block: The run block.
        datasets: Each distinct task of the block (any key) with its dataset's samples.
        source: The spec file, for messages.

    Returns:
        The selection.

    Raises:
        SpecError: Listed ids that some task of the block does not have.
    """
    all_ids = {key: [_id(s) for s in samples] for key, samples in datasets.items()}
    if block.limit is not None:
        return Selection(None, block.limit, {key: ids[: block.limit] for key, ids in all_ids.items()})
    if block.sample_ids is not None:
        problems = []
        for k, item_id in enumerate(block.sample_ids):
            missing = [key for key, ids in all_ids.items() if item_id not in ids]
            if missing:
                problems.append(
                    Problem(
                        ("runs", block_index, "sample_ids", k),
                        f"item {item_id} is not in the data of {', '.join(missing)} (it may be one "
                        "of the task's demonstrations)",
                    )
                )
        if problems:
            raise SpecError(with_lines(source, problems) if source else problems, source)
        chosen = sorted(block.sample_ids)
        return Selection(chosen, None, {key: chosen for key in all_ids})
    if block.sample is not None:
        common = set.intersection(*(set(ids) for ids in all_ids.values()))
        first = next(iter(datasets.values()))
        pairs = [(_id(s), _theme(s)) for s in first if s.id in common]
        chosen = stratified_sample(pairs, block.sample.n, block.sample.seed)
        return Selection(chosen, None, {key: chosen for key in all_ids})
    return Selection(None, None, all_ids)
