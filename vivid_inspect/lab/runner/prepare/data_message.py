"""What ``vivid run`` says when its data cannot be read: where the spec chose it, and the spec's fix.

The data layer's own advice is written for ``inspect eval`` (``-T data=...`` or ``$VIVID_DATA``).
``vivid run`` takes no ``-T``, and ``$VIVID_DATA`` applies only to a spec without a ``data:`` key,
so for a spec that advice names the wrong fix: the spec's ``data:`` key is the one that works.
``vivid validate`` reads the data as ``vivid run`` would (`data_readiness`), so that it does
not call a spec valid whose run would stop at its data.
"""

from __future__ import annotations

import os

from vivid_inspect.data import DATA_ENV, DataSourceError, VividDataError, load_items
from vivid_inspect.lab.runner.spec.load import LoadedSpec
from vivid_inspect.lab.runner.spec.problems import Problem
from vivid_inspect.lab.runner.spec.yaml_source import with_lines

CHOOSE_WITH_THE_KEY = (
    "the spec's `data:` key, which chooses the data of every task and vivid/* model of the run "
    "(`vivid run` takes no `-T data`): a CSV path (relative to the spec file), an http(s) URL, `hf` "
    "(the pinned Hugging Face release, cached after its first download) or `data: sample` (the small "
    "sample bundled with vivid_inspect, which needs no network)."
)


def _where(loaded: LoadedSpec) -> str:
    """``spec.yaml:10: data`` for a spec that names its data; what it fell back to otherwise."""
    source = str(loaded.source)
    if loaded.spec.data is not None:
        [located] = with_lines(source, [Problem(("data",), "")])
        return located.render(source).removesuffix(": ")
    from_env = os.environ.get(DATA_ENV, "").strip()
    if from_env:
        return f"{source}: data (no `data:` key, so {DATA_ENV}={from_env})"
    return f"{source}: data (no `data:` key and no {DATA_ENV}, so hf)"


def _first_raised(error: VividDataError) -> VividDataError:
    """The data layer's own error, before a task put its name in front (``explain: ...``)."""
    cause = error.__cause__
    while isinstance(cause, VividDataError):
        error, cause = cause, cause.__cause__
    return error


def spec_data_message(loaded: LoadedSpec, error: VividDataError) -> str:
    """The message for data a spec's run cannot read.

    Args:
        loaded: The spec whose run read the data.
        error: What the data layer raised, possibly wrapped by a task (``explain: ...``).

    Returns:
        ``spec.yaml:LINE: data: <what went wrong>`` (or what the spec fell back to, when it has no
        ``data:`` key), then the fix in the spec: its ``data:`` key, with ``sample`` for working
        offline; ``$VIVID_DATA`` is offered too when the spec has no key.
    """
    error = _first_raised(error)
    if isinstance(error, DataSourceError):
        reason, fix = error.reason, f"Choose the data with {CHOOSE_WITH_THE_KEY}"
    else:  # the file was read, but its content is not VIVID data
        reason, fix = str(error), f"Fix the file, or choose other data with {CHOOSE_WITH_THE_KEY}"
    if loaded.spec.data is None:
        fix += (
            f" This spec has no `data:` key, so it read {DATA_ENV}, else hf: add the key, or set {DATA_ENV}."
        )
    return f"{_where(loaded)}: {reason}\n{fix}"


def data_readiness(loaded: LoadedSpec) -> tuple[bool, str] | None:
    """Whether ``vivid run`` could read the spec's data now, read as it reads it (a download is cached).

    Args:
        loaded: The spec.

    Returns:
        None when the data can be read; else ``(unreachable, message)``: ``unreachable`` when the
        source cannot be read now (offline, a failed download, a file that cannot be opened), which
        may change without editing the spec; False when it was read and is not VIVID data, which
        only a change of file or of the ``data:`` key mends. ``message`` is `spec_data_message`'s.
    """
    try:
        load_items(loaded.data)
    except VividDataError as error:
        return isinstance(_first_raised(error), DataSourceError), spec_data_message(loaded, error)
    return None
