"""Which generation Table 1 compares the human scores with: the one they were drawn from.

A human scores file written by ``vivid annotate import`` names its generation by key (see
`vivid_inspect.generation_key`); the report compares with that generation, whatever else
the folder holds, and with the run of it the record beside the file names (its eval id). A
hand-made file names none: with one judged generation in the folder that is the one, with several
the report stops and lists them, with the option that picks one. It never guesses.

A file bound to a key no generation of the folder has is never compared with another generation:

- when the key is a folder generation's key as computed before the data's digest was part of it
  (the same task version, data name and sample ids), that generation is the one the humans
  scored: it is bound, and the note says so;
- otherwise the human scores are not compared, and one line says what changed: the fields in
  which the record beside the file differs from the folder's generations of the same model and
  prompt (task version, data, data digest, sample ids).

This module alone decides whether a key names a generation (`names_generation`), for the
report and for ``vivid annotate serve --write-log``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from vivid_inspect.generation_key import (
    DIGEST_KEY,
    SHORT_DIGEST,
    Generation,
    GenerationChoiceError,
    candidate_list,
    choose,
    matches,
)
from vivid_inspect.lab.humans.scores_file import generation_key

OPTION = "--human-generation"
SHOWN_IDS = 5
NOT_COMPARED = "human scores not compared"
"""How the line saying why a human scores file was not compared begins."""


@dataclass(frozen=True)
class Binding:
    """The generation (and run of it) Table 1 compares the human scores with.

    Attributes:
        generation: The generation key; None when nothing is bound.
        run: The run of it (its eval id, see `vivid_inspect.lab.report.reading.log_refs.LogRef.run`).
        note: How it was chosen, or why the human scores are not compared.
        compared: False when the human scores name a generation the folder does not hold: the
            report runs without comparing them.
    """

    generation: str | None = None
    run: str | None = None
    note: str | None = None
    compared: bool = True


def names_generation(key: str, generation: Generation) -> bool:
    """Whether a key (a sheet's, a human scores file's) names this generation.

    Args:
        key: The key the file carries.
        generation: A generation found in a folder.

    Returns:
        True for its key, and for its key as computed before the data's digest was recorded.
    """
    return key in (generation.key, generation.legacy_key)


def bind_generation(
    generations: Sequence[Generation],
    judged: Collection[tuple[str, str]],
    humans: pd.DataFrame | None,
    record: Mapping[str, Any] | None = None,
    selector: str | None = None,
) -> Binding:
    """The generation to compare the human scores with, and a note saying how it was chosen.

    Args:
        generations: Every run of every explanation generation (see `generations_in`, in the report).
        judged: (generation key, run) of the runs some judge scored.
        humans: The human scores, or None.
        record: The generation record beside the human file, if any (its eval id names the run;
            its fields say what changed when the key is not found).
        selector: ``--human-generation`` (or the spec's ``human.generation``): a key, model,
            prompt, part of the log path, or several of these.

    Returns:
        The binding; empty when there is nothing to choose (no human scores and no selector:
        the report ranks the judged generations), not compared when the file's generation is not
        in the folder.

    Raises:
        GenerationChoiceError: The selector names another generation than the file's, or names
            none or several; or the file names no generation, several are judged and no
            selector picks one.
    """
    key = generation_key(humans) if humans is not None else None
    if key is not None:
        recorded = record if record and record.get("generation") == key else None
        return _bound(generations, judged, key, recorded, selector)
    candidates = [g for g in generations if (g.key, g.eval_id) in judged]
    if selector:
        chosen = choose(candidates, selector, option=OPTION)
        return Binding(
            chosen.key,
            chosen.eval_id,
            f"generation named {selector!r} ({OPTION} or the spec's human.generation): {_describe(chosen)}",
        )
    if humans is None or not candidates:
        return Binding()
    if len(candidates) == 1:
        only = candidates[0]
        return Binding(
            only.key,
            only.eval_id,
            f"the only judged generation ({_describe(only)}); the human file names none",
        )
    raise GenerationChoiceError(
        f"the human scores name no generation and {len(candidates)} generations are judged; the report never "
        "guesses which one the humans scored (`vivid annotate import` records it)"
        + candidate_list(candidates, OPTION)
    )


def _bound(
    generations: Sequence[Generation],
    judged: Collection[tuple[str, str]],
    key: str,
    record: Mapping[str, Any] | None,
    selector: str | None,
) -> Binding:
    drawn = f"the human scores were drawn from generation {key}"
    found = [g for g in generations if g.key == key]
    formula = not found
    if formula:
        found = [g for g in generations if names_generation(key, g)]
    if not found:
        return Binding(note=_not_held(drawn, record, generations), compared=False)
    # A run no judge scored (a generation log whose judged copies name another run) has nothing to compare.
    found = [g for g in found if (g.key, g.eval_id) in judged] or found
    if selector:
        narrowed = [g for g in found if matches(g, selector)]
        if not narrowed:
            raise GenerationChoiceError(
                f"{drawn}; {OPTION} {selector!r} names another" + candidate_list(found, OPTION)
            )
        found = narrowed
    eval_id = str(record.get("eval_id") or "") if record is not None else ""
    if len(found) > 1 and eval_id:
        found = [g for g in found if g.eval_id == eval_id] or found
    if len(found) > 1:
        raise GenerationChoiceError(
            f"{drawn}, and {len(found)} runs of that generation are in the folder (repeated runs of one cell)"
            + candidate_list(found, OPTION)
        )
    chosen = found[0]
    note = f"{drawn} ({chosen.model} {chosen.prompt}, {chosen.data_label}, {chosen.log}), named in the human file"
    if formula:
        note += (
            f"; bound under the key as computed before data digests were recorded: {key} is this generation's key "
            f"without its data's digest (same task version {chosen.task_version}, data {chosen.data}, "
            f"{len(chosen.sample_ids)} sample ids); its key is now {chosen.key}"
        )
    if eval_id and chosen.eval_id != eval_id:
        note += f"; its eval id is {chosen.eval_id}, not {eval_id} as at export: the log was resumed or re-run since"
    return Binding(chosen.key, chosen.eval_id, note)


def _not_held(drawn: str, record: Mapping[str, Any] | None, generations: Sequence[Generation]) -> str:
    """One line: the human scores are not compared, and what changed since they were drawn."""
    head = f"{NOT_COMPARED}: {drawn}"
    if record is None:
        return (
            f"{head}, which no log in this folder holds (its model, prompt, data or samples differ; the file has no "
            "generation record beside it to say which)"
        )
    model, prompt = str(record.get("model") or ""), str(record.get("prompt") or "")
    same = {
        g.key: g
        for g in generations
        if (g.model, g.prompt, g.task) == (model, prompt, str(record.get("task") or g.task))
    }
    if not same:
        held = ", ".join(sorted({f"{g.model} {g.prompt}" for g in generations})) or "none"
        return f"{head} ({model} {prompt}), which no log in this folder holds: it has no {model} {prompt} generation (it has: {held})"
    changes = [f"{g.key} ({g.log}) differs in {_differences(record, g)}" for g in same.values()]
    return (
        f"{head} ({model} {prompt}), which no log in this folder holds; the folder's {model} {prompt} generation "
        + "; ".join(changes)
    )


def _differences(record: Mapping[str, Any], generation: Generation) -> str:
    """The fields in which a generation record differs from a generation: task version, data, ids."""
    found: list[str] = []
    version = str(record.get("task_version") or "")
    if version != generation.task_version:
        found.append(f"task version ({version or 'unrecorded'} then, {generation.task_version} now)")
    data = str(record.get("data") or "")
    if data != generation.data:
        found.append(f"data ({data or 'unrecorded'} then, {generation.data} now)")
    digest = str(record.get(DIGEST_KEY) or "")
    if digest and generation.data_digest and digest != generation.data_digest:
        found.append(
            f"data digest ({digest[:SHORT_DIGEST]} then, {generation.data_digest[:SHORT_DIGEST]} now)"
        )
    then = {str(i) for i in record.get("sample_ids") or []}
    now = {str(i) for i in generation.sample_ids}
    if then != now:
        gone, new = sorted(then - now, key=id_order), sorted(now - then, key=id_order)
        parts = [f"{len(then)} then, {len(now)} now"]
        if gone:
            parts.append(f"no longer samples: {_listed(gone)}")
        if new:
            parts.append(f"new: {_listed(new)}")
        found.append(f"sample ids ({'; '.join(parts)})")
    return ", ".join(found) or "what its key hashes (the model or task name)"


def id_order(item: str) -> tuple[int, int, str]:
    """An id's place in a listing: whole numbers first, in numeric order, then other text."""
    return (0, int(item), "") if item.lstrip("-").isdigit() else (1, 0, item)


def _listed(ids: list[str]) -> str:
    shown = ", ".join(ids[:SHOWN_IDS])
    return shown + (f" and {len(ids) - SHOWN_IDS} more" if len(ids) > SHOWN_IDS else "")


def _describe(generation: Generation) -> str:
    return f"key {generation.key}, {generation.model} {generation.prompt}, {generation.data_label}, {generation.log}"
