"""With ``INSPECT_DISPLAY=none``, an ``inspect eval`` that VIVID stops still says why, on standard error.

Inspect's exception hook prints a ``PrerequisiteError`` through rich's global console, which display
``none`` makes quiet: the eval exited 1 with no word. Every plain error made while Inspect builds
a VIVID task or model (the endpoint check, a task argument, the task's data, a ``vivid/*`` model)
now writes its message to standard error exactly when that console is quiet, so never twice. Run in
this process, as ``eval("vivid_inspect/explain", ...)`` builds the task the way ``inspect eval`` does.
"""

from __future__ import annotations

from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.model import get_model
from rich import get_console

from tests.dead_endpoints import closed_port
from vivid_inspect.inspect_private import PlainError, TaskArgumentError
from vivid_inspect.tasks import explain


def _dead_model() -> Any:
    return get_model(
        "openai-api/dead/m", base_url=f"http://127.0.0.1:{closed_port()}/v1", api_key="k", memoize=False
    )


SHAPES = [
    pytest.param(
        lambda: {"model": _dead_model(), "task_args": {"judge": "none"}},
        "failed its endpoint check",
        id="endpoint",
    ),
    pytest.param(lambda: {"task_args": {"judge": "aspekt"}}, "unknown judge", id="task-argument"),
    pytest.param(lambda: {"task_args": {"data": "nosuch.csv"}}, "no such data file", id="task-data"),
    pytest.param(lambda: {"model": "vivid/oracel"}, "did you mean vivid/oracle?", id="vivid-model"),
    pytest.param(
        lambda: {"model_roles": {"grader": "vivid/chrff"}}, "did you mean vivid/chrf?", id="vivid-grader-role"
    ),
]


def _stopped(display: str, options: dict[str, Any]) -> str:
    """The message of the error that stops ``eval`` of the explain task by name."""
    task_args = {"data": "sample", **options.pop("task_args", {})}
    model = options.pop("model", None) or get_model("vivid/oracle", data="sample", memoize=False)
    with pytest.raises(PlainError) as caught:
        eval("vivid_inspect/explain", model=model, task_args=task_args, limit=1, display=display, **options)
    return str(caught.value)


@pytest.mark.parametrize(("make", "fragment"), SHAPES)
def test_display_none_prints_the_message_to_stderr_once(
    make: Any, fragment: str, capsys: pytest.CaptureFixture[str]
) -> None:
    message = _stopped("none", make())
    assert fragment in message
    assert get_console().quiet  # what Inspect's hook prints through: nothing
    err = capsys.readouterr().err
    assert err.count(message) == 1, err


@pytest.mark.parametrize(("make", "fragment"), SHAPES[:2])
def test_a_display_that_speaks_leaves_the_message_to_inspects_hook(
    make: Any, fragment: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(get_console(), "quiet", False)  # as a fresh `inspect eval` with display plain
    message = _stopped("plain", make())
    assert not get_console().quiet  # the hook prints the message: it is not written twice
    assert message not in capsys.readouterr().err


def test_python_code_that_builds_the_task_itself_gets_the_error_alone(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(get_console(), "quiet", True)
    with pytest.raises(TaskArgumentError, match="unknown judge"):
        explain(judge="aspekt", data="sample")
    assert capsys.readouterr().err == ""
