"""The adapter over Inspect's private names: each function does what its callers rely on.

If an Inspect upgrade moves or changes one of these, this file fails first, naming the use.
"""

from __future__ import annotations

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import GenerateConfig, ModelConfig, ModelOutput, ModelUsage, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from vivid_inspect.inspect_private import (
    PrerequisiteError,
    TaskArgumentError,
    active_generate_config,
    configured_async_backend,
    model_providers,
    model_roles_config,
)


def test_model_providers_lists_builtin_and_entry_point_providers() -> None:
    providers = model_providers()
    # Built in to Inspect, and registered by this package's entry point (vivid/oracle, ...).
    assert {"openai", "anthropic", "mockllm", "none", "vivid"} <= providers
    assert all("/" not in name for name in providers)  # the provider part of a model name only


def test_model_roles_config_records_what_a_log_header_holds() -> None:
    outputs = iter([ModelOutput.from_content("mockllm/model", "x")])
    model = get_model(
        "mockllm/model", config=GenerateConfig(temperature=0.3), custom_outputs=outputs, memoize=False
    )

    roles = model_roles_config({"grader": model})

    config = roles["grader"]
    assert isinstance(config, ModelConfig)
    assert config.model == "mockllm/model"
    assert config.config.temperature == 0.3
    # A generator argument cannot go into a log: Inspect leaves it out, and so must we.
    assert "custom_outputs" not in config.args


@pytest.mark.parametrize(
    ("value", "backend"),
    [("trio", "trio"), ("asyncio", "asyncio"), ("", "asyncio")],
    ids=["trio", "asyncio", "unset"],
)
def test_configured_async_backend_follows_inspects_setting(
    monkeypatch: pytest.MonkeyPatch, value: str, backend: str
) -> None:
    monkeypatch.setenv("INSPECT_ASYNC_BACKEND", value)
    assert configured_async_backend() == backend


def test_active_generate_config_is_what_the_eval_gives_a_model_call() -> None:
    seen: list[GenerateConfig] = []

    @solver
    def record() -> Solver:
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            seen.append(active_generate_config())
            return state

        return solve

    task = Task(dataset=[Sample(input="q", id=1)], solver=record(), config=GenerateConfig(temperature=0.2))
    (log,) = eval(task, model="mockllm/model", attempt_timeout=77, display="none", log_dir=None)

    assert log.status == "success", log.error
    (config,) = seen
    # The eval's own option (attempt_timeout) over the task's config (temperature): both seen.
    assert (config.attempt_timeout, config.temperature) == (77, 0.2)


def test_task_argument_error_is_the_error_inspect_prints_without_a_traceback() -> None:
    error = TaskArgumentError("explain: unknown prompt [x]")
    assert isinstance(error, PrerequisiteError) and isinstance(error, ValueError)
    assert str(error) == "explain: unknown prompt [x]"


def test_a_plain_error_prints_brackets_as_written() -> None:
    # Inspect prints `.message` as rich markup: a URL or tag in brackets would vanish unescaped.
    from rich.console import Console

    from vivid_inspect.inspect_private import PlainError

    text = "HTTP 500 from http://h/v1/models: see [https://status.example] and [bold]x[/bold], ids [17]"
    error = PlainError(text)
    console = Console(record=True, width=500)
    console.print(error.message)
    assert console.export_text().strip() == text == str(error)
    assert isinstance(error, PrerequisiteError)


@pytest.mark.slow
def test_built_by_inspect_only_while_inspect_builds_a_task_from_its_name() -> None:
    from inspect_ai import task

    from vivid_inspect.inspect_private import active_model, built_by_inspect

    seen: list[tuple[bool, str | None]] = []

    @task
    def probe_task() -> Task:
        model = active_model()
        seen.append((built_by_inspect(), str(model) if model else None))
        return Task(dataset=[Sample(input="q", id=1)])

    probe_task()  # Python code builds it
    output = ModelOutput.from_content("mockllm/model", "a")
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # no tokenizer download
    model = get_model("mockllm/model", custom_outputs=[output], memoize=False)
    (log,) = eval("probe_task", model=model, display="none", log_dir=None)  # Inspect builds it by name

    assert log.status == "success", log.error
    # (The active model seen by the direct call is whatever an earlier eval_set in this process left
    # set: the reason the check asks built_by_inspect and not only active_model.)
    assert [built for built, _ in seen] == [False, True]
    assert seen[1] == (True, "mockllm/model")
    assert not built_by_inspect()
