"""Which generation a log holds, which one a set of human scores belongs to, and how a user names one.

A generation is identified by its content, read from its log header: the task (and its version),
the model, the prompt style (for a classification task, its number of demonstrations), the data
and the planned sample ids. The data is identified by the digest of its items that the task
records (``data_sha256``, see `vivid_inspect.data.digest`), so two data files of one name
are two generations; a log written before the digest was recorded is identified by the data's
name, as it was then. Their hash, a short hex *generation key*, keys every row of the report's
tables and is what an annotation sheet and a human scores file carry: opaque to annotators,
identical for a generation log and every judged copy of it, and unchanged when ``eval_set``
replaces a log file on resume. The eval id is kept beside it as a check, never as the key.

`Generation.legacy_key` is the key as it was computed before the digest was part of it
(the data's name in its place): a human scores file bound under it is still recognised (see
`vivid_inspect.lab.humans.binding`).

Users name a generation with a *selector*: whitespace-separated terms, each of which must match
the generation's key (or a prefix of it), its model (with or without the provider), its prompt,
or part of its log path. ``"vivid/literal zero_shot"`` names one generation of the offline job.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # only a type here: validating a spec need not import Inspect's log module
    from inspect_ai.log import EvalLog

KEY_LENGTH = 12
# A letter first: a spreadsheet that re-saves a sheet would turn an all-digit key (or 1234e567...)
# into a number in scientific notation.
KEY_PREFIX = "g"
_MIN_KEY_PREFIX = 4
# Data labels that are already location-independent; anything else is a local path, reduced to its
# file name so that a folder of logs keeps its keys when the data file moves.
_PORTABLE_DATA = ("hf:", "http://", "https://", "vivid_inspect sample")
_SAMPLE_DATA = "vivid_inspect sample"
DIGEST_KEY = "data_sha256"
"""Task metadata key of the digest of the data's items (`vivid_inspect.data.digest`)."""
ITEMS_KEY = "data_items"
"""Task metadata key of the number of items the data file holds, before any is left out."""
SHORT_DIGEST = 8
CLASSIFICATION_TASKS = ("topic", "traits")
DEFAULT_SHOTS = 3
_DIGEST_CHARS = frozenset("0123456789abcdef")


@dataclass(frozen=True)
class Generation:
    """One generation (of explanations, or of classification answers), as its log header describes it.

    Attributes:
        task: Task name without the package prefix (``explain``, ``topic``, ``traits``).
        task_version: The task's version.
        model: The model that generated.
        prompt: Prompt style (``zero_shot``, ``few_shot``); for a classification task its number
            of demonstrations (``3 shots``).
        data: The data source (a local file by its name only).
        sample_ids: The planned sample ids, as the header lists them.
        eval_id: Inspect's eval id; a check, not part of the key.
        log: Where the log is (relative to the folder it was found in), for messages.
        data_digest: SHA-256 of the data's items as the task loaded them (task metadata
            ``data_sha256``); empty for a log written before it was recorded.
    """

    task: str
    task_version: str
    model: str
    prompt: str
    data: str
    sample_ids: tuple[Any, ...]
    eval_id: str = ""
    log: str = ""
    data_digest: str = ""

    @cached_property
    def key(self) -> str:
        """The generation key: ``g`` and 12 hex digits of a hash of what identifies the content.

        The data is identified by its digest when the log records one, else by its name.
        """
        data = f"sha256:{self.data_digest}" if self.data_digest else self.data
        return _hashed([self.task, self.task_version, self.model, self.prompt, data, self._ids()])

    @cached_property
    def legacy_key(self) -> str:
        """The key as computed before the data's digest was part of it: the data's name in its place.

        Equal to `key` for a log that records no digest.
        """
        return _hashed([self.task, self.task_version, self.model, self.prompt, self.data, self._ids()])

    def _ids(self) -> list[str]:
        return sorted(map(str, self.sample_ids))

    @property
    def data_label(self) -> str:
        """The data's short name and the first digits of its digest: ``sample 1a2b3c4d``."""
        name = short_data_name(self.data)
        return f"{name} {self.data_digest[:SHORT_DIGEST]}" if self.data_digest else name

    @property
    def label(self) -> str:
        """``KEY  MODEL  PROMPT  LOG``, one line of a candidate list."""
        return f"{self.key}  {self.model}  {self.prompt}  {self.log or '(no log)'}"

    def record(self) -> dict[str, Any]:
        """Everything known about the generation, for a record beside a sheet or a scores file."""
        return {
            "generation": self.key,
            "task": self.task,
            "task_version": self.task_version,
            "model": self.model,
            "prompt": self.prompt,
            "data": self.data,
            DIGEST_KEY: self.data_digest,
            "eval_id": self.eval_id,
            "log": self.log,
            "sample_ids": list(self.sample_ids),
        }


def _hashed(content: list[Any]) -> str:
    digest = hashlib.sha256(json.dumps(content, ensure_ascii=False).encode("utf-8")).hexdigest()
    return KEY_PREFIX + digest[:KEY_LENGTH]


class GenerationChoiceError(ValueError):
    """A selector that matches no generation or several; the message lists the candidates."""


def generation_of(header: EvalLog, log: str = "", default_prompt: str = "zero_shot") -> Generation:
    """The generation a log header describes (a judged copy describes its generation).

    Args:
        header: The log header (``read_eval_log(..., header_only=True)``).
        log: The log's path for messages.
        default_prompt: The prompt when an explanation log names none (the task's default).

    Returns:
        The generation. A classification log's prompt is its number of demonstrations
        (``3 shots``); a digest that is not 64 hex digits is not a digest and is ignored.
    """
    spec = header.eval
    args = spec.task_args or {}
    metadata = spec.metadata or {}
    task = spec.task.replace("@", "/").rsplit("/", 1)[-1]
    if task in CLASSIFICATION_TASKS:
        shots = args.get("shots", metadata.get("shots"))
        prompt: object = f"{DEFAULT_SHOTS if shots is None else shots} shots"
    else:
        prompt = args.get("prompt", metadata.get("prompt")) or default_prompt
    data = metadata.get("data") or spec.dataset.location or args.get("data") or ""
    digest = metadata.get(DIGEST_KEY)
    return Generation(
        task=task,
        task_version=str(spec.task_version),
        model=spec.model,
        prompt=str(prompt),
        data=portable_data(str(data)),
        sample_ids=tuple(spec.dataset.sample_ids or ()),
        eval_id=spec.eval_id,
        log=log,
        data_digest=str(digest) if is_digest(digest) else "",
    )


def is_digest(value: object) -> bool:
    """Whether a value read from a log is a digest the data layer could have written (64 hex digits)."""
    return isinstance(value, str) and len(value) == 64 and set(value) <= _DIGEST_CHARS


def portable_data(source: str) -> str:
    """A data label that does not depend on where the data file is: local paths keep their name."""
    if source.startswith(_PORTABLE_DATA) or not source:
        return source
    return PurePath(source.replace("\\", "/")).name


def short_data_name(data: str) -> str:
    """A data label short enough for a table cell: ``sample``, ``hf@daf3862423a8``, a file name.

    Args:
        data: A portable data label (`portable_data`).

    Returns:
        ``sample`` for the bundled sample, ``hf@REVISION`` for a hub release, a URL's or a
        path's last segment otherwise.
    """
    if data.startswith(_SAMPLE_DATA):
        return "sample"
    if data.startswith("hf:"):
        revision = data.partition("@")[2].split("/", 1)[0]
        return f"hf@{revision}" if revision else "hf"
    if data.startswith(("http://", "https://")):
        return PurePath(data.split("?", 1)[0].rstrip("/")).name or data
    return data


def matches(generation: Generation, selector: str) -> bool:
    """Whether every term of ``selector`` names this generation.

    Args:
        generation: A candidate.
        selector: Whitespace-separated terms: the key or a prefix of at least 4 characters, the
            model (``vivid/literal`` or ``literal``), the prompt, or part of the log path.

    Returns:
        True when every term matches; False for an empty selector.
    """
    terms = selector.split()
    return bool(terms) and all(_term_matches(generation, term) for term in terms)


def names_cell(selector: str, model: str, prompt: str) -> bool:
    """Whether every term of ``selector`` is the model (with or without provider) or the prompt.

    A spec names its generation before any log exists, so only these two terms can be checked.

    Args:
        selector: Whitespace-separated terms.
        model: The cell's model.
        prompt: The cell's prompt.

    Returns:
        True when every term matches; False for an empty selector.
    """
    terms = selector.split()
    return bool(terms) and all(term in (model, model.split("/", 1)[-1], prompt) for term in terms)


def _term_matches(generation: Generation, term: str) -> bool:
    model_name = generation.model.split("/", 1)[-1]
    return (
        (len(term) >= _MIN_KEY_PREFIX and generation.key.startswith(term.lower()))
        or term in (generation.model, model_name, generation.prompt)
        or (bool(generation.log) and term in generation.log)
    )


def choose(candidates: Sequence[Generation], selector: str, *, option: str) -> Generation:
    """The one candidate a selector names.

    Args:
        candidates: Generations to choose from.
        selector: See `matches`.
        option: How the user gives a selector (``--generation``), for the message.

    Returns:
        The candidate.

    Raises:
        GenerationChoiceError: No candidate or several match; the message lists the candidates.
    """
    found = [g for g in candidates if matches(g, selector)]
    if len(found) == 1:
        return found[0]
    if not found:
        raise GenerationChoiceError(
            f"{option} {selector!r} matches none of the {len(candidates)} explanation generation(s)"
            + candidate_list(candidates, option)
        )
    raise GenerationChoiceError(
        f"{option} {selector!r} matches {len(found)} explanation generations" + candidate_list(found, option)
    )


def candidate_list(candidates: Sequence[Generation], option: str | None) -> str:
    """The candidates, one per line (key, model, prompt, log), with how to pick one.

    Args:
        candidates: The generations to list.
        option: The option that picks one; None lists them without saying how to pick.

    Returns:
        Text to append to a message: ``"; ..."`` and the list.
    """
    if not candidates:
        return "; there is none (no explanation log)"
    ordered = sorted(candidates, key=lambda g: (g.model, g.prompt, g.log))
    lines = "\n".join(f"  - {g.label}" for g in ordered)
    if option is None:
        return f"; the folder holds:\n  key  model  prompt  log\n{lines}"
    # a model and prompt two candidates share (another eval's tasks) selects neither: the key does
    shared = sum((g.model, g.prompt) == (ordered[0].model, ordered[0].prompt) for g in ordered) > 1
    example = f"{option} {ordered[0].key}" if shared else f'{option} "{ordered[0].model} {ordered[0].prompt}"'
    return (
        f"; choose one with {option} KEY, MODEL, PROMPT, part of the log path, or several of these "
        f"(e.g. {example}):\n  key  model  prompt  log\n{lines}"
    )
