"""Which generation Table 1 compares the human scores with: the one they were drawn from.

A human scores file written by ``vivid annotate import`` names its generation by key (see
:mod:`vivid_inspect.generation_key`); the report compares with that generation, whatever else
the folder holds, and checks the eval id of the record beside the file. A hand-made file names
none: with one judged generation in the folder that is the one, with several the report stops
and lists them, with the option that picks one. It never guesses.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import pandas as pd

from vivid_inspect.generation_key import (
    Generation,
    GenerationChoiceError,
    candidate_list,
    choose,
    matches,
)
from vivid_inspect.inputs.human_scores import generation_key
from vivid_inspect.report.logs import LogSet

OPTION = "--human-generation"


def generations_in(logset: LogSet) -> dict[str, Generation]:
    """Every explanation generation of a log folder, by the key the score rows use (``generation``).

    Args:
        logset: The logs read.

    Returns:
        The generation's identity for each generation log, or for the judged copies of one
        whose own log is not in the folder.
    """
    found: dict[str, Generation] = {}
    for ref in sorted(logset.logs, key=lambda ref: ref.rel != ref.generation):  # a generation log first
        if ref.identity is not None:
            found.setdefault(ref.generation, ref.identity)
    return found


def bind_generation(
    generations: Mapping[str, Generation],
    judged: Collection[str],
    humans: pd.DataFrame | None,
    record: Mapping[str, Any] | None = None,
    selector: str | None = None,
) -> tuple[str | None, str | None]:
    """The generation to compare the human scores with, and a note saying how it was chosen.

    Args:
        generations: Explanation generations by score-row key (see :func:`generations_in`).
        judged: Keys of the generations some judge scored.
        humans: The human scores, or None.
        record: The generation record beside the human file, if any (its eval id is checked).
        selector: ``--human-generation`` (or the spec's ``human.generation``): a key, model,
            prompt, part of the log path, or several of these.

    Returns:
        The chosen generation's key and the note; ``(None, None)`` when there is nothing to
        choose (no human scores and no selector: the report ranks the judged generations).

    Raises:
        GenerationChoiceError: The humans' generation is not in the folder or the selector names
            another; or the file names no generation, several are judged and no selector picks one.
    """
    key = generation_key(humans) if humans is not None else None
    if key is not None:
        return _bound(
            generations, key, record if record and record.get("generation") == key else None, selector
        )
    candidates = [generations[name] for name in sorted(judged) if name in generations]
    if selector:
        chosen = choose(candidates, selector, option=OPTION)
        return (
            chosen.log,
            f"generation named {selector!r} ({OPTION} or the spec's human.generation): {_describe(chosen)}",
        )
    if humans is None:
        return None, None
    if len(candidates) == 1:
        return candidates[
            0
        ].log, f"the only judged generation ({_describe(candidates[0])}); the human file names none"
    if not candidates:
        return None, None
    raise GenerationChoiceError(
        f"the human scores name no generation and {len(candidates)} generations are judged; the report never "
        "guesses which one the humans scored (`vivid annotate import` records it)"
        + candidate_list(candidates, OPTION)
    )


def _bound(
    generations: Mapping[str, Generation], key: str, record: Mapping[str, Any] | None, selector: str | None
) -> tuple[str, str]:
    drawn = f"the human scores were drawn from generation {key}"
    found = [g for g in generations.values() if g.key == key]
    if not found:
        raise GenerationChoiceError(
            f"{drawn}{_recorded(record)}, which no log in this folder holds (its model, prompt, data or samples differ)"
            + candidate_list(list(generations.values()), None)
        )
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
            f"{drawn}, and {len(found)} logs hold that generation (repeated runs of one cell)"
            + candidate_list(found, OPTION)
        )
    chosen = found[0]
    note = f"{drawn} ({chosen.model} {chosen.prompt}, {chosen.log}), named in the human file"
    if eval_id and chosen.eval_id != eval_id:
        note += f"; its eval id is {chosen.eval_id}, not {eval_id} as at export: the log was resumed or re-run since"
    return chosen.log, note


def _recorded(record: Mapping[str, Any] | None) -> str:
    return (
        f" ({record.get('model')} {record.get('prompt')}, {record.get('log')})" if record is not None else ""
    )


def _describe(generation: Generation) -> str:
    return f"key {generation.key}, {generation.model} {generation.prompt}, {generation.log}"
