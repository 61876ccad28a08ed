"""Where a VIVID sample keeps its item's texts: the idiom is the input, the meaning the target.

Each text is stored once per sample. The meaning is the target of the explanation task, and sample
metadata ``meaning`` where the target is a label (topic, traits). Logs written before this held
both texts in the metadata as well; the readers here accept both shapes, and a dataset whose input
is something else (a whole prompt) can keep the idiom in metadata ``idiom``.

Part of :mod:`vivid_inspect.log_contract`, kept free of pydantic so that the data layer, which the
CLI imports at start-up, can use it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

IDIOM_KEY = "idiom"
"""Sample metadata key of the idiom in logs written before the input became its only copy."""
MEANING_KEY = "meaning"
"""Sample metadata key of the reference meaning where the sample's target is not the meaning."""


def sample_idiom(input: str | Sequence[Any], metadata: Mapping[str, Any] | None) -> str:
    """The idiom of a VIVID sample: its ``idiom`` metadata where a log has one, else its input.

    Args:
        input: The sample's input (``Sample.input``, ``TaskState.input``): the idiom as text, or
            chat messages whose text is joined.
        metadata: The sample's metadata.

    Returns:
        The idiom as stored (callers normalise it).
    """
    stored = (metadata or {}).get(IDIOM_KEY)
    if stored:
        return str(stored)
    if isinstance(input, str):
        return input
    return "\n".join(str(getattr(message, "text", "")) for message in input)


def sample_meaning(target: str | Sequence[str], metadata: Mapping[str, Any] | None) -> str:
    """The reference meaning of a VIVID sample: its ``meaning`` metadata where it has one, else its target.

    Args:
        target: The sample's target (``Sample.target``, or ``Target.text``).
        metadata: The sample's metadata.

    Returns:
        The reference meaning as stored (callers normalise it).
    """
    stored = (metadata or {}).get(MEANING_KEY)
    if stored:
        return str(stored)
    return target if isinstance(target, str) else "".join(target)
