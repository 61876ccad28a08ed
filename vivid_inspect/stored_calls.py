r"""Make what a log stores of one model call writable, whatever the provider sent.

A provider can send text that UTF-8 cannot encode (a JSON ``"\ud800"`` escape decodes to a lone
surrogate). Stored as it is, such a reply makes Inspect fail to write the whole log, so one bad
reply would lose every other sample of the task or judge cell, and the cached reply would replay
the failure on every rerun. The judge scorer and the tasks' generate step pass every call they
make through `sanitize_call`, so only the sample that received the reply is affected.
"""

from __future__ import annotations

from inspect_ai.event import ModelEvent
from inspect_ai.log import transcript
from inspect_ai.model import ModelOutput
from pydantic import BaseModel
from pydantic_core import to_json

from vivid_inspect.text import sanitize


def model_event_of(output: ModelOutput) -> ModelEvent | None:
    """The transcript's event of the call that returned ``output`` (matched by message id).

    Args:
        output: What a ``generate`` call returned, inside a sample.

    Returns:
        The call's model event, or None when it cannot be found.
    """
    message_id = output.message.id if output.choices else None
    if message_id is None:
        return None

    def produced(event: object) -> bool:
        return (
            isinstance(event, ModelEvent)
            and bool(event.output.choices)
            and event.output.message.id == message_id
        )

    try:
        found = transcript().history.find_last(produced)
    except RuntimeError:  # a bounded transcript whose history is gone; nothing left to store
        return None
    return found if isinstance(found, ModelEvent) else None


def sanitized(model: BaseModel) -> BaseModel:
    """A copy of ``model`` with every lone surrogate replaced, or ``model`` itself when clean.

    Args:
        model: Any pydantic model holding text (a ``ModelOutput``, a chat message).

    Returns:
        A model whose text UTF-8 can encode.
    """
    if _encodes(model):
        return model
    dumped = model.model_dump()
    clean = sanitize(dumped)
    return model if clean == dumped else type(model).model_validate(clean)


def _encodes(value: object) -> bool:
    """Whether ``value`` serialises to UTF-8 JSON as it is (pydantic's serializer, in Rust).

    A lone surrogate fails, as does anything else the serializer cannot write; either way the
    caller sanitises, so this only decides whether the slower walk is needed.
    """
    try:
        to_json(value)
    except Exception:  # noqa: BLE001 - any failure means: take the careful path
        return False
    return True


def sanitize_event(event: ModelEvent) -> None:
    """Sanitise in place what the log will store of one call: its output and its raw request/response.

    Args:
        event: The call's model event.
    """
    if _encodes(event.output) and (event.call is None or _encodes([event.call.request, event.call.response])):
        return  # nearly every reply: one fast serialisation instead of a dump, walk and compare
    output = sanitized(event.output)
    if output is not event.output:
        assert isinstance(output, ModelOutput)
        event.output = output
    if event.call is not None:
        event.call.request = sanitize(event.call.request)
        event.call.response = sanitize(event.call.response)


def sanitize_call(output: ModelOutput) -> ModelOutput:
    """Sanitise one call's stored event and return its output in a form the log can hold.

    Args:
        output: What a ``generate`` call returned, inside a sample.

    Returns:
        ``output`` itself when clean, else a copy with lone surrogates replaced by U+FFFD.
    """
    event = model_event_of(output)
    if event is not None:
        sanitize_event(event)
    clean = sanitized(output)
    assert isinstance(clean, ModelOutput)
    return clean
