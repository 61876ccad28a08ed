"""Who scores which items, and in which order.

The first ``overlap`` items of the sheet (already in a seeded random order, stratified by theme)
are shared: every annotator scores them, for agreement. The others are dealt out in turn, so each
annotator scores a different part of the rest. Each annotator's queue (shared and own items
mixed) is then shuffled with a seed of its own, drawn from the sample's seed and the annotator's
name, so that annotators do not meet the shared items in the same order and a restart gives the
same queues.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vivid_inspect.lab.humans.annotators import annotator_key

MAX_NAME = 40
# An annotator's name becomes a file name: letters (any script), digits, '_' and '-' only.
_NAME = re.compile(r"[^\W_][\w-]*")
RESERVED_NAMES = frozenset({"sheet", "humans", "plan"})
"""Names of the server's own files in the annotation folder."""


@dataclass(frozen=True)
class Plan:
    """Every annotator's queue.

    Attributes:
        ids: The sheet's items, in the sheet's order.
        annotators: Annotators, as given.
        overlap: How many items every annotator scores.
        seed: Seed of the queue orders.
        shared: The shared items.
        queues: Annotator to their items, in the order they are shown.
    """

    ids: tuple[int, ...]
    annotators: tuple[str, ...]
    overlap: int
    seed: int
    shared: tuple[int, ...]
    queues: dict[str, tuple[int, ...]]


def check_annotators(names: Sequence[str]) -> list[str]:
    """Problems with a list of annotator names, one message each (empty when all is well).

    A name must be 1-40 letters, digits, ``_`` or ``-`` (it names the annotator's file), start
    with a letter or digit, not be one of the server's own file names, and be another annotator
    than every other name by the one rule of `vivid_inspect.lab.humans.annotators.annotator_key`
    (case, Unicode and compatibility forms do not make two annotators).
    """
    problems: list[str] = []
    seen: dict[str, str] = {}
    if not names:
        return ["--annotators names no annotator; give one or more names separated by commas"]
    for name in names:
        if not name:
            problems.append("--annotators has an empty name (two commas in a row, or one at an end)")
        elif len(name) > MAX_NAME or not _NAME.fullmatch(name):
            problems.append(
                f"annotator {name[:MAX_NAME]!r}: a name is 1-{MAX_NAME} letters, digits, '_' or '-', "
                "starting with a letter or digit (it names the annotator's file)"
            )
        elif annotator_key(name) in RESERVED_NAMES:
            problems.append(
                f"annotator {name!r}: the name is taken by the server's own file {annotator_key(name)}.csv"
            )
        elif annotator_key(name) in seen:
            problems.append(f"annotator {name!r} is named twice (as {seen[annotator_key(name)]!r})")
        else:
            seen[annotator_key(name)] = name
    return problems


def assign(ids: Sequence[int], annotators: Sequence[str], *, overlap: int = 0, seed: int = 0) -> Plan:
    """Deal the items out to the annotators.

    Args:
        ids: The items, in the sheet's (random) order.
        annotators: Valid, distinct names (see `check_annotators`).
        overlap: Items every annotator scores (the first ``overlap`` of ``ids``).
        seed: Seed of the queue orders.

    Returns:
        The plan.

    Raises:
        ValueError: ``overlap`` is negative, larger than the number of items, or positive with a
            single annotator.
    """
    if overlap < 0:
        raise ValueError(f"--overlap must be 0 or more, got {overlap}")
    if overlap > len(ids):
        raise ValueError(f"--overlap {overlap} is more than the {len(ids)} item(s) of the sheet")
    if overlap and len(annotators) < 2:
        raise ValueError("--overlap shares items between annotators; it needs at least two in --annotators")
    shared = tuple(ids[:overlap])
    rest = list(ids[overlap:])
    queues: dict[str, tuple[int, ...]] = {}
    for index, name in enumerate(annotators):
        own = list(shared) + rest[index :: len(annotators)]
        order = np.random.default_rng([seed, _name_seed(name)]).permutation(len(own))
        queues[name] = tuple(own[int(i)] for i in order)
    return Plan(tuple(ids), tuple(annotators), overlap, seed, shared, queues)


def _name_seed(name: str) -> int:
    # Python's hash() changes between processes; a restart must give the same order.
    return int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:8], "big")
