"""The VIVID data layer: read a source, validate it, and turn rows into Inspect samples."""

from __future__ import annotations

import logging
import shlex
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from inspect_ai.dataset import MemoryDataset, Sample

from vivid_inspect.data.csv_format import (
    COLUMNS,
    Duplicate,
    VividDataError,
    VividItem,
    find_duplicates,
    parse_vivid_csv,
    parse_vivid_file,
)
from vivid_inspect.data.digest import DIGEST_KEY, ITEMS_KEY, items_digest
from vivid_inspect.data.leakage import NEAR_DUPLICATE_THRESHOLD, check_threshold, resemblance, shown_idioms
from vivid_inspect.data.normalise import idiom_key, unify_tone_marks
from vivid_inspect.data.prevalence import warn_if_contradicted
from vivid_inspect.data.sources import (
    DATA_ENV,
    DataSourceError,
    data_cap,
    keep_in_cache,
    local_file,
    read_source,
    resolve_data_spec,
)
from vivid_inspect.log_contract import LeftOutEntry
from vivid_inspect.sample_texts import MEANING_KEY, THEME_KEY
from vivid_inspect.taxonomy import THEME_BY_CODE, TRAIT_BY_CODE

__all__ = [
    "COLUMNS",
    "DATA_ENV",
    "DIGEST_KEY",
    "ITEMS_KEY",
    "DataSourceError",
    "Duplicate",
    "VividData",
    "VividDataError",
    "VividItem",
    "find_duplicates",
    "idiom_key",
    "item_metadata",
    "items_digest",
    "load_items",
    "load_vivid",
    "unify_tone_marks",
]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class VividData:
    """A loaded data set ready for a task.

    Attributes:
        dataset: One Sample per kept item; ``id`` is the 1-based data-row number.
        source: Printable name of where the data came from.
        left_out: Ids of items left out because their idiom is, or is a near-duplicate of, one of
            the task's demonstrations.
        judge_examples_left_out: Ids of items left out because their idiom is, or is a
            near-duplicate of, a graded example of a judge prompt (closer to it than to any
            demonstration).
        leakage: Every item left out, in data order, with the shown idiom it resembles and the
            similarity.
        threshold: The similarity from which an item was left out.
        digest: SHA-256 of the data file's items as loaded (`items_digest`), whatever
            was left out.
        items: How many items the data file holds, whatever was left out.
    """

    dataset: MemoryDataset
    source: str
    left_out: list[int] = field(default_factory=list)
    judge_examples_left_out: list[int] = field(default_factory=list)
    leakage: list[LeftOutEntry] = field(default_factory=list)
    threshold: float = NEAR_DUPLICATE_THRESHOLD
    digest: str = ""
    items: int = 0

    def leakage_record(self) -> dict[str, object]:
        """What the task metadata ``leakage`` holds: the threshold and each left-out item's entry."""
        return {"threshold": self.threshold, "left_out": [entry.model_dump() for entry in self.leakage]}

    @property
    def provenance(self) -> dict[str, object]:
        """What a task records of its data in its metadata: the source, the digest, the item count."""
        return {"data": self.source, DIGEST_KEY: self.digest, ITEMS_KEY: self.items}


@lru_cache(maxsize=8)
def _load_cached(spec: str) -> tuple[str, tuple[VividItem, ...], str]:
    path = local_file(spec)
    if path is not None:
        # A local file is parsed as it is read: its bytes are never held beside the items.
        source, items = str(path), tuple(parse_vivid_file(path, str(path), data_cap()))
    else:
        source, items = _load_bytes(spec)
    _warn_duplicates(find_duplicates(list(items)), source, spec)
    if source not in _TAXONOMY_CHECKED:
        _TAXONOMY_CHECKED.add(source)
        warn_if_contradicted(items, source, f"vivid data check --data {shlex.quote(spec)}")
    # Once per source and process, beside the parse it follows (a few milliseconds at 1,636 items).
    return source, items, items_digest(items)


def _load_bytes(spec: str) -> tuple[str, tuple[VividItem, ...]]:
    """The bundled sample or a download (kept in the cache once it is valid), parsed."""
    raw = read_source(spec)
    try:
        items = tuple(parse_vivid_csv(raw.content, raw.source))
    except VividDataError as exc:
        if raw.from_cache:
            raise VividDataError(
                f"{exc}\n(read from the cached copy {raw.cache_path}; delete it to download again)"
            ) from None
        raise
    keep_in_cache(raw)
    return raw.source, items


# Sources whose label prevalences were already compared with the taxonomy in this process.
_TAXONOMY_CHECKED: set[str] = set()


SHOWN_DUPLICATES = 5
"""How many repeated idioms a load lists; ``vivid data check --duplicates`` lists them all."""

SHOWN_LEFT_OUT = 5
"""How many left-out items a load's warning lists; ``vivid data leakage`` lists them all."""


def _warn_duplicates(duplicates: list[Duplicate], source: str, spec: str) -> None:
    # One warning for the whole file: a flood of repeats must not flood the terminal.
    if not duplicates:
        return
    count = len(duplicates)
    rows = f"{count:,} rows repeat" if count > 1 else "1 row repeats"
    lines = [f"{source}: {rows} the idiom of an earlier row; every row is kept:"]
    lines += [f"  - {duplicate.describe()}" for duplicate in duplicates[:SHOWN_DUPLICATES]]
    if count > SHOWN_DUPLICATES:
        lines.append(
            f"  … and {count - SHOWN_DUPLICATES:,} more: "
            f"`vivid data check --data {shlex.quote(spec)} --duplicates` lists them all"
        )
    logger.warning("\n".join(lines))


def load_items(data: str | None = None) -> tuple[str, tuple[VividItem, ...]]:
    """Read and validate the VIVID rows a data spec names.

    Args:
        data: ``sample``, ``hf``, an http(s) URL or a path; None means ``$VIVID_DATA``, else ``hf``.

    Returns:
        The printable source name and the validated items in file order.

    Raises:
        VividDataError: The source cannot be read or its content is invalid.
    """
    source, items, _ = _load_cached(resolve_data_spec(data))
    return source, items


def item_metadata(item: VividItem) -> dict[str, object]:
    """The taxonomy of an item, as sample metadata: theme and traits by name and by code.

    The idiom is the sample's input and the meaning its target (or, where the target is a label,
    metadata ``meaning``), never repeated here: Inspect copies, diffs and shortens every metadata
    string of every sample several times, and the log would hold each text twice
    (`vivid_inspect.log_contract`).
    """
    return {
        THEME_KEY: THEME_BY_CODE[item.theme_id].name,
        "theme_id": item.theme_id,
        "traits": [TRAIT_BY_CODE[code].name for code in item.trait_ids],
        "trait_ids": list(item.trait_ids),
    }


_warned: set[str] = set()


def _warn_once(message: str, *args: object) -> None:
    # One command builds the same task several times (vivid plan, each run block, the offline
    # models): the same warning once per process is enough; the report's notes keep it.
    text = message % args
    if text not in _warned:
        _warned.add(text)
        logger.warning(text)


def load_vivid(
    data: str | None = None,
    *,
    exclude_idioms: Iterable[str] = (),
    exclude_judge_examples: Iterable[str] = (),
    target: Callable[[VividItem], str] | None = None,
    threshold: float = NEAR_DUPLICATE_THRESHOLD,
) -> VividData:
    """Load the VIVID data as an Inspect dataset.

    Args:
        data: ``sample``, ``hf``, an http(s) URL or a path; None means ``$VIVID_DATA``, else ``hf``.
        exclude_idioms: Demonstration idioms; items with the same idiom, or a near-duplicate of one,
            are left out so that no model is scored on an example it was shown. The same idiom is
            the same `idiom_key` (NFC, case, punctuation, spacing, tone-mark placement and
            final y/i ignored); a near-duplicate is one whose
            `similarity` reaches ``threshold``.
        exclude_judge_examples: Idioms of the judges' graded examples
            (`vivid_inspect.scorers.judge_prompts.judge_example_idioms`); matching items are left out
            the same way and recorded apart, so that no item is judged with its own answer key in
            the judge's prompt.
        target: The sample target of an item; defaults to its reference meaning. The input is
            always the idiom: solvers render the real prompt from it. A sample whose target is
            not the meaning keeps the meaning as metadata ``meaning``.
        threshold: The similarity from which an item is left out, within
            `THRESHOLD_RANGE`.

    Returns:
        The dataset, its source name, the ids left out by reason, and each left-out item with the
        shown idiom it resembles.

    Raises:
        ValueError: ``threshold`` is outside its range.
    """
    threshold = check_threshold(threshold)
    source, items, digest = _load_cached(resolve_data_spec(data))
    shown = shown_idioms(exclude_idioms, exclude_judge_examples)
    samples: list[Sample] = []
    leakage: list[LeftOutEntry] = []
    for item in items:
        close = resemblance(item.idiom, shown, threshold)
        if close is not None:
            leakage.append(
                LeftOutEntry(
                    id=item.id,
                    idiom=item.idiom,
                    resembles=close.resembles,
                    shown_as=close.shown_as,
                    similarity=round(close.similarity, 3),
                )
            )
            continue
        metadata = item_metadata(item)
        if target is not None:
            # The target is a label: the meaning is kept once, here.
            metadata[MEANING_KEY] = item.meaning
        gold = target(item) if target else item.meaning
        samples.append(Sample(id=item.id, input=item.idiom, target=gold, metadata=metadata))
    demonstrations = [entry for entry in leakage if entry.shown_as == "demonstration"]
    judge_examples = [entry for entry in leakage if entry.shown_as == "judge_example"]
    for entries, what in (
        (demonstrations, "a demonstration of the prompt"),
        (judge_examples, "a graded example in a judge prompt"),
    ):
        if entries:
            _warn_once("%s", _left_out_warning(source, entries, what, threshold, data))
    return VividData(
        MemoryDataset(samples, name="vivid", location=source),
        source,
        [entry.id for entry in demonstrations],
        [entry.id for entry in judge_examples],
        leakage,
        threshold,
        digest=digest,
        items=len(items),
    )


def _left_out_warning(
    source: str, entries: list[LeftOutEntry], what: str, threshold: float, data: str | None
) -> str:
    lines = [
        f"{source}: left out {len(entries)} item(s) whose idiom is {what} or a near-duplicate of one "
        f"(similarity >= {threshold:g}): ids {[entry.id for entry in entries]}"
    ]
    # A shown idiom itself (in any spelling) needs no pairing; a near-duplicate is shown with what it
    # resembles. So the bundled sample's one demonstration stays one line, which keeps a plain
    # `inspect eval` failure within its five lines.
    near = [entry for entry in entries if entry.similarity is None or entry.similarity < 1]
    lines += [f"  - {entry.describe()}" for entry in near[:SHOWN_LEFT_OUT]]
    if len(near) > SHOWN_LEFT_OUT:
        spec = f" --data {shlex.quote(data)}" if data else ""
        lines.append(f"  … and {len(near) - SHOWN_LEFT_OUT} more: `vivid data leakage{spec}` lists them all")
    return "\n".join(lines)
