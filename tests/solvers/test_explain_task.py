"""The explanation task: prompts, solver, leakage rule, generation defaults, run on the sample data."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, ModelUsage, get_model
from inspect_ai.solver import generate

from vivid_inspect.solvers.explain import explain_prompt
from vivid_inspect.solvers.explain_prompts import (
    EXPLAIN_DEMONSTRATIONS,
    FEW_SHOT,
    ZERO_SHOT,
    render_explain_prompt,
)
from vivid_inspect.solvers.markers import item_block, last_item
from vivid_inspect.tasks import explain
from vivid_inspect.text import nfc

IDIOM = "Đầu voi đuôi chuột"


@pytest.fixture(autouse=True)
def _isolated_inspect(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECT_LOG_DIR", str(tmp_path / "logs"))
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))


def _output(text: str) -> ModelOutput:
    output = ModelOutput.from_content(model="mockllm", content=text)
    output.usage = ModelUsage(input_tokens=10, output_tokens=len(text), total_tokens=10 + len(text))
    return output


class Recorder:
    """A mockllm model that answers with a fixed text and records every request."""

    def __init__(self, name: str, answer: str) -> None:
        self.calls: list[tuple[list[ChatMessage], GenerateConfig]] = []
        self._answer = answer
        self.model = get_model(f"mockllm/{name}", custom_outputs=self._generate, memoize=False)

    def _generate(
        self, messages: list[ChatMessage], tools: object, tool_choice: object, config: GenerateConfig
    ) -> ModelOutput:
        self.calls.append((list(messages), config))
        return _output(self._answer)


@pytest.mark.parametrize("style", ["zero_shot", "few_shot"])
def test_prompt_ends_with_the_item_under_test(style: str) -> None:
    prompt = render_explain_prompt(style, IDIOM)  # type: ignore[arg-type]
    assert prompt.endswith(item_block(IDIOM, "explain"))
    assert last_item(prompt) == (IDIOM, "explain")


def test_zero_shot_is_minimal() -> None:
    assert render_explain_prompt("zero_shot", IDIOM) == f"{ZERO_SHOT}\n\n{item_block(IDIOM, 'explain')}"
    assert "tiếng Việt" in ZERO_SHOT and "ngắn gọn" in ZERO_SHOT


def test_few_shot_sets_the_expert_role_and_shows_three_demonstrations() -> None:
    prompt = render_explain_prompt("few_shot", IDIOM)
    assert prompt.startswith(FEW_SHOT) and "chuyên gia ngôn ngữ tiếng Việt" in FEW_SHOT
    assert len(EXPLAIN_DEMONSTRATIONS) == 3
    for demo, answer in EXPLAIN_DEMONSTRATIONS:
        assert item_block(demo, "explain", answer) in prompt
        assert demo == nfc(demo) and answer == nfc(answer)


def test_unknown_style_raises() -> None:
    with pytest.raises(ValueError, match="one_shot"):
        explain_prompt("one_shot")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="one_shot"):
        render_explain_prompt("one_shot", IDIOM)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="one_shot"):
        explain(prompt="one_shot", data="sample")


def test_solver_renders_the_prompt_from_metadata(tmp_path: Path) -> None:
    solver = Recorder("solver", "Làm thì to tát lúc đầu, về sau chẳng ra gì.")
    sample = Sample(id=7, input="không dùng", metadata={"idiom": IDIOM})
    task = Task(dataset=MemoryDataset([sample]), solver=[explain_prompt("few_shot"), generate()])
    [log] = eval(task, model=solver.model, log_dir=str(tmp_path / "logs"), display="none")

    assert log.status == "success", log.error
    [(messages, _)] = solver.calls
    assert [m.text for m in messages] == [render_explain_prompt("few_shot", IDIOM)]


def test_explain_task_on_sample_data(tmp_path: Path) -> None:
    solver = Recorder("solver", "Khởi đầu rầm rộ nhưng kết thúc nhỏ bé, chẳng ra gì.")
    grader = Recorder("grader", "Điểm: 3")  # the one reply both the CoT and the bare grammar read
    task = explain(prompt="few_shot", judge="cot,aspect", data="sample")

    # Leakage rule: the sample data holds one demonstration idiom, which is left out and recorded.
    assert task.metadata is not None
    assert task.metadata["left_out"] == 1 and len(task.metadata["left_out_ids"]) == 1
    idioms = {nfc(s.input) for s in task.dataset if s.metadata}
    assert not idioms & {nfc(demo) for demo, _ in EXPLAIN_DEMONSTRATIONS}
    assert task.metadata["judge_strategies"] == ["cot", "aspect"]

    [log] = eval(
        task,
        model=solver.model,
        model_roles={"grader": grader.model},
        limit=3,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )

    assert log.status == "success", log.error
    assert len(solver.calls) == 3 and len(grader.calls) == 6
    # Paper generation defaults reach the model under test.
    assert {(c.temperature, c.max_tokens) for _, c in solver.calls} == {(0.7, 150)}
    assert log.results is not None
    # each LLM judge's unscored share follows the judges' columns
    assert [s.name for s in log.results.scores] == [
        "judge_cot",
        "judge_aspect",
        "unscored_cot",
        "unscored_aspect",
    ]
    assert [s.metrics["unscored"].value for s in log.results.scores[2:]] == [0.0, 0.0]
    aspect = log.results.scores[1]
    assert aspect.metrics["mean"].value == 3.0 and aspect.metrics["correctness"].value == pytest.approx(0.6)
    assert any(name.startswith("theme/") for name in aspect.metrics)


def test_cli_generation_options_override_the_task_defaults(tmp_path: Path) -> None:
    solver = Recorder("solver", "Khởi đầu rầm rộ nhưng kết thúc nhỏ bé.")
    grader = Recorder("grader", "4")
    task = explain(data="sample")
    [log] = eval(
        task,
        model=solver.model,
        model_roles={"grader": grader.model},
        limit=1,
        temperature=0.1,
        max_tokens=64,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )

    assert log.status == "success", log.error
    assert {(c.temperature, c.max_tokens) for _, c in solver.calls} == {(0.1, 64)}
    # The judge keeps its own settings: a role's model does not take the task's generate config.
    assert {(c.temperature, c.max_tokens) for _, c in grader.calls} == {(0.0, 10)}
