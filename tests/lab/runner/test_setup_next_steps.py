"""A model that cannot be created for a missing setting: the message ends with the next step, once per cause."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from vivid_inspect.lab.runner.prepare.models import build_models
from vivid_inspect.lab.runner.spec.load import load_spec
from vivid_inspect.lab.runner.spec.problems import SetupError

SERVER = "`python -m vivid_inspect.testing` starts the project's test server"
OFFLINE = "no key is needed by `vivid run offline`"


def _refused(tmp_path: Path, models: list[str], judge: str | None = None) -> list[str]:
    """The lines after the model list of build_models' error for a spec with these models."""
    judges = f"judges:\n  - name: j\n    strategy: aspect\n    model: {judge}\n" if judge else ""
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "name: t\ndata: sample\nlog_dir: logs\nruns:\n  - name: r\n    tasks: [explain]\n"
        f"    prompts: [zero_shot]\n    models: [{', '.join(models)}]\n{judges}",
        encoding="utf-8",
    )
    with pytest.raises(SetupError) as caught:
        build_models(load_spec(spec))
    lines = str(caught.value).splitlines()
    listed = [line for line in lines[1:] if line.startswith("  ")]
    assert len(listed) == len(models) + bool(judge) - models.count("vivid/oracle")
    return [line for line in lines[1:] if not line.startswith("  ")]


@pytest.fixture(autouse=True)
def _no_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("LOCAL_API_KEY", "LOCAL_BASE_URL", "VLLM_API_KEY", "VLLM_BASE_URL", "TOGETHER_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def test_a_missing_local_key_names_the_test_server_once_for_every_model(tmp_path: Path) -> None:
    steps = _refused(
        tmp_path, ["openai-api/local/generator", "openai-api/local/other"], "openai-api/local/judge"
    )
    assert len(steps) == 1
    assert SERVER in steps[0] and "LOCAL_BASE_URL and LOCAL_API_KEY" in steps[0]
    assert "docs/recipes/local-model.md" in steps[0]


def test_a_missing_base_url_is_the_same_cause(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOCAL_API_KEY", "local")
    [step] = _refused(tmp_path, ["openai-api/local/generator"])
    assert SERVER in step


def test_another_service_gets_the_server_with_its_service_name(tmp_path: Path) -> None:
    steps = _refused(tmp_path, ["openai-api/vllm/qwen", "openai-api/local/m"])
    assert any("`python -m vivid_inspect.testing --service vllm`" in step for step in steps)
    assert any(SERVER in step for step in steps)
    assert len(steps) == 2


def test_a_paid_providers_missing_key_points_to_the_offline_models_once(tmp_path: Path) -> None:
    [step] = _refused(
        tmp_path, ["openai/gpt-4o", "openai/gpt-4.1-mini", "together/meta/llama"], "openai/gpt-4.1"
    )
    assert OFFLINE in step and "vivid/oracle" in step and "vivid/chrf" in step
    assert "OPENAI_API_KEY, TOGETHER_API_KEY" in step and SERVER not in step


def test_both_causes_each_get_their_step_and_offline_models_need_none(tmp_path: Path) -> None:
    steps = _refused(tmp_path, ["openai/gpt-4o", "openai-api/local/m", "vivid/oracle"])
    assert len(steps) == 2 and SERVER in steps[0] and OFFLINE in steps[1]


def test_a_package_to_install_gets_no_step_of_ours(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Inspect's own message already says what to install; the package is hidden, installed or not."""
    monkeypatch.setitem(sys.modules, "anthropic", None)  # `import anthropic` fails as if not installed
    assert _refused(tmp_path, ["anthropic/claude-3-5-haiku-latest"]) == []
