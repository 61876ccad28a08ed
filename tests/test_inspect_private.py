"""The adapter over Inspect's private names: each function does what its callers rely on.

If an Inspect upgrade moves or changes one of these, this file fails first, naming the use.
"""

from __future__ import annotations

import pytest
from inspect_ai.model import GenerateConfig, ModelConfig, ModelOutput, get_model

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


def test_active_generate_config_outside_an_eval_is_an_empty_config() -> None:
    config = active_generate_config()
    assert isinstance(config, GenerateConfig)
    assert config.attempt_timeout is None and config.batch is None


def test_task_argument_error_is_the_error_inspect_prints_without_a_traceback() -> None:
    error = TaskArgumentError("explain: unknown prompt [x]")
    assert isinstance(error, PrerequisiteError) and isinstance(error, ValueError)
    assert str(error) == "explain: unknown prompt [x]"
