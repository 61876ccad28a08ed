"""Where a VIVID sample keeps its item's texts: the idiom is the input, the meaning the target.

Each text is stored once per sample. The meaning is the target of the explanation task, and sample
metadata ``meaning`` where the target is a label (topic, traits). Logs written before this held
both texts in the metadata as well; the readers here accept both shapes, and a dataset whose input
is something else (a whole prompt) can keep the idiom in metadata ``idiom``.

Part of `vivid_inspect.log_contract`, kept free of pydantic so that the data layer, which the
CLI imports at start-up, can use it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

IDIOM_KEY = "idiom"
"""Sample metadata key of the idiom in logs written before the input became its only copy."""
MEANING_KEY = "meaning"
"""Sample metadata key of the reference meaning where the sample's target is not the meaning."""
THEME_KEY = "theme"
"""Sample metadata key of the item's theme (English name): every VIVID sample has it."""


def is_item_sample(metadata: Mapping[str, Any] | None) -> bool:
    """Whether a sample is a VIVID item: it has the taxonomy's ``theme``, or an ``idiom`` of its own.

    A sample of some other task (an ``inspect score`` on a foreign log) has neither, and its input
    is not an idiom.
    """
    return THEME_KEY in (metadata or {}) or _stored_text(metadata, IDIOM_KEY) is not None


def sample_idiom(input: str | Sequence[Any], metadata: Mapping[str, Any] | None) -> str:
    """The idiom of a VIVID sample: its ``idiom`` metadata where a log has one, else its input.

    Only a non-blank string counts as stored metadata: a blank or non-text value (a damaged or
    hostile log) gives way to the input, which is the idiom's canonical copy.

    Args:
        input: The sample's input (``Sample.input``, ``TaskState.input``): the idiom as text, or
            chat messages, of which the last user message's text is the idiom (as Inspect's
            ``TaskState.input_text``); no user message gives "".
        metadata: The sample's metadata.

    Returns:
        The idiom as stored (callers normalise it).
    """
    stored = _stored_text(metadata, IDIOM_KEY)
    if stored is not None:
        return stored
    if isinstance(input, str):
        return input
    user = [message for message in input if getattr(message, "role", None) == "user"]
    return str(getattr(user[-1], "text", "")) if user else ""


def sample_meaning(target: str | Sequence[str], metadata: Mapping[str, Any] | None) -> str:
    """The reference meaning of a VIVID sample: its ``meaning`` metadata where it has one, else its target.

    Only a non-blank string counts as stored metadata, as for `sample_idiom`.

    Args:
        target: The sample's target (``Sample.target``, or ``Target.text``); a list is joined as
            Inspect's ``Target.text`` joins it.
        metadata: The sample's metadata.

    Returns:
        The reference meaning as stored (callers normalise it).
    """
    stored = _stored_text(metadata, MEANING_KEY)
    if stored is not None:
        return stored
    return target if isinstance(target, str) else "".join(target)


def _stored_text(metadata: Mapping[str, Any] | None, key: str) -> str | None:
    value = (metadata or {}).get(key)
    return value if isinstance(value, str) and value.strip() else None
