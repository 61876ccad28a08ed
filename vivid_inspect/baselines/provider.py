"""Registers the ``vivid`` model provider with Inspect (imported by the entry point)."""

from __future__ import annotations

from inspect_ai.model import ModelAPI, modelapi


@modelapi(name="vivid")
def vivid() -> type[ModelAPI]:
    """The ``vivid/oracle`` and ``vivid/literal`` reference baselines."""
    # Imported when Inspect asks for the provider (its @modelapi idiom): registering loads no model.
    from vivid_inspect.baselines.model import BaselineModel

    return BaselineModel
