"""``vivid run`` end to end, offline: the smoke spec, reruns, an added judge, a kill and resume.

Model calls are counted by the runner's own hook (``RunResult.progress.calls``); the resume test
also counts them in a file written by the test model, because the first run is killed.
"""

from __future__ import annotations

import math
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import (
    ChatMessage,
    ChatMessageUser,
    GenerateConfig,
    ModelAPI,
    ModelName,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.scorer import Score, Target
from inspect_ai.solver import TaskState
from inspect_ai.tool import ToolChoice, ToolInfo

from vivid_inspect.lab.cli.main import main
from vivid_inspect.lab.runner.cells import expand
from vivid_inspect.lab.runner.execute import RunResult, run_spec
from vivid_inspect.lab.runner.generate import eval_set_groups
from vivid_inspect.lab.runner.judging.cell import write_log_atomic
from vivid_inspect.lab.runner.judging.panel import panel_scorer, run_panel_cell
from vivid_inspect.lab.runner.judging.phase import prune_orphans
from vivid_inspect.lab.runner.plan import make_plan
from vivid_inspect.lab.runner.plan_text import render_plan
from vivid_inspect.lab.runner.prepare.models import generate_config, make_judge_model
from vivid_inspect.lab.runner.prepare.prepared import prepare
from vivid_inspect.lab.runner.record import FREEZE_FILE
from vivid_inspect.lab.runner.spec.load import load_spec
from vivid_inspect.lab.runner.spec.problems import SpecError, format_path
from vivid_inspect.lab.usage_events import USAGE_KEY, read_usage_record, scorer_usage
from vivid_inspect.log_contract import SPEC_FILE
from vivid_inspect.scorers import judge_parse, judge_prompts
from vivid_inspect.scorers.lexical import bin_chrf, chrf
from vivid_inspect.solvers.markers import last_item
from vivid_inspect.testing.openai_server import FakeOpenAIServer

REPO = Path(__file__).resolve().parents[3]
SMOKE = REPO / "experiments" / "smoke.yaml"
CALLS_ENV = "VIVID_TEST_CALLS"
DEFAULT_CONFIG = GenerateConfig()
# Like Qwen3: reasoning (which mentions another score) in a <think> block, then the answer.
THINKING_REPLY = "<think>Nghĩa cốt lõi đúng, thiếu hàm ý. Điểm: 1 thì quá thấp.</think>\n\n4"


class CountingModel(ModelAPI):
    """Offline test models: ``vividtest/slow`` explains, ``vividtest/judge`` grades.

    Model args: ``delay`` (seconds per call) and ``think`` (the judge reasons in a ``<think>``
    block before its score, like Qwen3). When ``$VIVID_TEST_CALLS`` names a file, each call
    appends the item's idiom to it, so calls can be counted across a killed process.
    """

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = DEFAULT_CONFIG,
        delay: float = 0.0,
        think: bool = False,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        self.delay, self.think = delay, think

    async def generate(
        self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice, config: GenerateConfig
    ) -> ModelOutput:
        prompt = "\n\n".join(m.text for m in input if isinstance(m, ChatMessageUser))
        if self.delay:
            await anyio.sleep(self.delay)
        found = last_item(prompt)
        if os.environ.get(CALLS_ENV):
            async with await anyio.Path(os.environ[CALLS_ENV]).open("a", encoding="utf-8") as calls:
                await calls.write(f"{found[0] if found else '-'}\n")
        if self.model_name == "judge":
            text = THINKING_REPLY if self.think else "3"
        else:
            text = f"Câu «{found[0] if found else '?'}» khuyên người ta sống tử tế."
        output = ModelOutput.from_content(model=f"vividtest/{self.model_name}", content=text)
        output.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        return output

    def max_connections(self) -> int:
        return 4


@modelapi(name="vividtest")
def vividtest() -> type[ModelAPI]:
    """Registers the test models (also imported by the resume test's subprocess)."""
    return CountingModel


def _write_spec(path: Path, data: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def _judged(log_dir: Path, name: str) -> list[EvalLog]:
    return [read_eval_log(str(p)) for p in sorted((log_dir / "judged" / name).glob("*.eval"))]


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    # Judge replies are cached by Inspect; a fresh cache makes call counts exact.
    cache = tmp_path_factory.mktemp("inspect-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("INSPECT_CACHE_DIR", str(cache))
        yield cache


@pytest.fixture(scope="module")
def smoke(tmp_path_factory: pytest.TempPathFactory, cache_dir: Path) -> tuple[Path, RunResult]:
    """One run of the shipped smoke spec into a temporary log folder."""
    log_dir = tmp_path_factory.mktemp("smoke") / "logs"
    return log_dir, run_spec(load_spec(SMOKE, log_dir=log_dir), display="none", quiet=True)


@pytest.mark.slow
def test_smoke_run_completes_every_cell(smoke: tuple[Path, RunResult]) -> None:
    log_dir, result = smoke
    assert result.ok, result.progress.messages
    assert (len(result.generations), len(result.judged)) == (8, 12 + 4)  # 3 judges x 4 logs, 4 panels
    assert {g.cell.task for g in result.generations} == {"explain", "topic", "traits"}
    # 10 stratified items: explain zero/few-shot, topic and traits per generator
    assert result.progress.calls["vivid/oracle"] == result.progress.calls["vivid/literal"] == 40
    # two judges x four explanation logs x 10 items, some answered from the cache
    # (the oracle's zero- and few-shot explanations are the same text); the lexical judge calls none
    assert result.progress.calls["vivid/chrf"] + result.progress.cached["vivid/chrf"] == 80
    assert set(result.progress.calls) | set(result.progress.cached) == {
        "vivid/oracle",
        "vivid/literal",
        "vivid/chrf",
    }
    assert {g.log.parent for g in result.generations if g.log} == {log_dir / "generations"}
    # the report step ran on the finished folder, with the spec's human scores
    assert result.report is not None and (log_dir / "report" / "report.md").is_file()


@pytest.mark.slow
def test_judged_logs_say_which_judge_scored_them(smoke: tuple[Path, RunResult]) -> None:
    log_dir, _ = smoke
    for name, strategy in (("chrf_aspect", "aspect"), ("chrf_cot", "cot")):
        logs = _judged(log_dir, name)
        assert len(logs) == 4
        for log in logs:
            record = log.eval.metadata["vivid_judge"]
            assert (record["name"], record["strategy"], record["model"]) == (name, strategy, "vivid/chrf")
            assert (log_dir / record["generation_log"]).is_file()
            assert [s.name for s in log.results.scores] == [f"judge_{strategy}"]
            assert log.eval.model_roles["grader"].model == "vivid/chrf"
            assert len(log.samples) == 10


@pytest.mark.slow
def test_judged_logs_record_the_judge_calls_their_events_hold(smoke: tuple[Path, RunResult]) -> None:
    # The report reads these header totals instead of every sample's events.
    log_dir, _ = smoke
    for name, scorer, calls in (("chrf_aspect", "judge_aspect", 10), ("lexical", "lexical", 0)):
        for log in _judged(log_dir, name):
            recorded = log.eval.metadata["vivid_judge"][USAGE_KEY][scorer]
            events = [[event.model_dump(mode="json") for event in sample.events] for sample in log.samples]
            assert read_usage_record(recorded) == scorer_usage(events, scorer)
            assert recorded["calls"] == calls


@pytest.mark.slow
def test_the_lexical_judge_scores_by_chrf_without_a_model(smoke: tuple[Path, RunResult]) -> None:
    log_dir, _ = smoke
    logs = _judged(log_dir, "lexical")
    assert len(logs) == 4
    for log in logs:
        record = log.eval.metadata["vivid_judge"]
        assert (record["name"], record["strategy"], record["model"]) == ("lexical", "lexical", None)
        assert [s.name for s in log.results.scores] == ["lexical"]
        assert "grader" not in (log.eval.model_roles or {})
        assert len(log.samples) == 10
        for sample in log.samples:
            score = sample.scores["lexical"]
            expected = chrf(sample.output.completion, sample.target)
            assert score.value == bin_chrf(expected)
            assert math.isclose(score.metadata["chrf"], expected, abs_tol=1e-3)
    by_model = {log.eval.model: {s.scores["lexical"].value for s in log.samples} for log in logs}
    assert by_model["vivid/oracle"] == {5}  # the reference itself
    assert max(by_model["vivid/literal"]) <= 2


@pytest.mark.slow
def test_a_panel_may_aggregate_the_lexical_judge(smoke: tuple[Path, RunResult], tmp_path: Path) -> None:
    log_dir = tmp_path / "logs"
    shutil.copytree(smoke[0], log_dir)
    data = yaml.safe_load(SMOKE.read_text(encoding="utf-8"))
    data["human"]["file"] = str(SMOKE.parent / data["human"]["file"])
    data["panel"] = {"name": "mixed", "members": ["chrf_cot", "lexical"], "aggregate": "mean"}
    cells = expand(load_spec(_write_spec(tmp_path / "spec.yaml", data), log_dir=log_dir))
    panel = cells.panels[0]
    log = next(g.log for g in smoke[1].generations if g.cell.label == panel.generation.label)
    assert log is not None
    generation = log_dir / "generations" / log.name

    result = anyio.run(run_panel_cell, log_dir, panel, generation)

    assert result.status == "scored"

    def member(name: str, column: str) -> dict[Any, float]:
        judged = read_eval_log(str(log_dir / "judged" / name / generation.name))
        return {s.id: s.scores[column].as_float() for s in judged.samples}

    cot, lexical = member("chrf_cot", "judge_cot"), member("lexical", "lexical")
    mixed = read_eval_log(str(result.output)).samples
    assert len(mixed) == 10
    for sample in mixed:
        panel_score = sample.scores["judge_panel"]
        assert panel_score.metadata["members"] == {"chrf_cot": cot[sample.id], "lexical": lexical[sample.id]}
        assert math.isclose(panel_score.as_float(), (cot[sample.id] + lexical[sample.id]) / 2)


@pytest.mark.slow
def test_plan_shows_the_lexical_judge_with_no_calls(smoke: tuple[Path, RunResult], tmp_path: Path) -> None:
    log_dir = tmp_path / "logs"
    shutil.copytree(smoke[0], log_dir)
    shutil.rmtree(log_dir / "judged" / "lexical")
    data = yaml.safe_load(SMOKE.read_text(encoding="utf-8"))
    data["human"]["file"] = str(SMOKE.parent / data["human"]["file"])
    plan = make_plan(load_spec(_write_spec(tmp_path / "spec.yaml", data), log_dir=log_dir))
    to_run = [cell for cell in plan.cells if not cell.done]
    assert [cell.label.split(" ")[0] for cell in to_run] == ["lexical"] * 4
    assert {(c.model, c.calls, c.max_calls, c.input_tokens, c.output_tokens, c.cost) for c in to_run} == {
        ("", 0, 0, 0, 0, None)
    }
    assert plan.totals() == []
    text = render_plan(plan)
    assert "none: the cells still to run call no model" in text
    rows = [line.split() for line in text.splitlines() if line.strip().startswith("to run  lexical")]
    assert len(rows) == 4
    assert all(row[-4:] == ["none", "(chrF)", "0", "0"] for row in rows), rows


@pytest.mark.slow
def test_panel_holds_the_mean_of_its_members(smoke: tuple[Path, RunResult]) -> None:
    log_dir, _ = smoke
    panels = _judged(log_dir, "panel")
    assert len(panels) == 4
    for panel in panels:
        record = panel.eval.metadata["vivid_judge"]
        assert (record["strategy"], record["members"], record["aggregate"]) == (
            "panel",
            ["chrf_aspect", "chrf_cot"],
            "mean",
        )
        generation = Path(record["generation_log"]).name
        members = {
            name: read_eval_log(str(log_dir / "judged" / name / generation)) for name in record["members"]
        }
        for sample in panel.samples:
            expected = [
                next(s for s in log.samples if s.id == sample.id)
                .scores[f"judge_{log.eval.metadata['vivid_judge']['strategy']}"]
                .as_float()
                for log in members.values()
            ]
            assert list(sample.scores) == ["judge_panel"]
            assert math.isclose(sample.scores["judge_panel"].as_float(), sum(expected) / len(expected))


@pytest.mark.slow
def test_resolved_spec_and_package_freeze_are_saved(smoke: tuple[Path, RunResult]) -> None:
    log_dir, _ = smoke
    record = yaml.safe_load((log_dir / "vivid" / "smoke" / SPEC_FILE).read_text(encoding="utf-8"))
    assert all(len(block["sample_id"]) == 10 for block in record["blocks"])
    assert set(record["judges"]) == {"chrf_aspect", "chrf_cot", "lexical"}
    assert all(entry["status"] in ("success", "scored") for entry in record["outputs"].values())
    assert "inspect_ai==" in (log_dir / "vivid" / "smoke" / FREEZE_FILE).read_text(encoding="utf-8").replace(
        "-", "_"
    )


@pytest.mark.slow
def test_a_second_run_makes_no_model_calls(smoke: tuple[Path, RunResult]) -> None:
    log_dir, _ = smoke
    judged = {p: p.stat().st_mtime_ns for p in (log_dir / "judged").glob("*/*.eval")}
    again = run_spec(load_spec(SMOKE, log_dir=log_dir), display="none", quiet=True, report=False)
    assert again.ok
    assert (again.progress.total_calls, sum(again.progress.cached.values())) == (0, 0)
    assert {j.status for j in again.judged} == {"done"}
    assert {j.name for j in again.judged} == {"chrf_aspect", "chrf_cot", "lexical", "panel"}
    # nothing was judged again: the lexical judge too found its logs current
    assert {p: p.stat().st_mtime_ns for p in (log_dir / "judged").glob("*/*.eval")} == judged
    plan = make_plan(load_spec(SMOKE, log_dir=log_dir))
    assert all(cell.done for cell in plan.cells)


@pytest.mark.slow
def test_adding_a_judge_calls_only_that_judge(smoke: tuple[Path, RunResult], tmp_path: Path) -> None:
    log_dir = tmp_path / "logs"
    shutil.copytree(smoke[0], log_dir)
    data = yaml.safe_load(SMOKE.read_text(encoding="utf-8"))
    data["human"]["file"] = str(SMOKE.parent / data["human"]["file"])
    # A reasoning judge: it thinks (and mentions another score) before its final answer.
    data["judges"].append(
        {
            "name": "thinker",
            "strategy": "zero_shot",
            "model": "vividtest/judge",
            "model_args": {"think": True},
        }
    )
    loaded = load_spec(_write_spec(tmp_path / "spec.yaml", data), log_dir=log_dir)
    assert [c.label.split(" ")[0] for c in make_plan(loaded).cells if not c.done] == ["thinker"] * 4

    result = run_spec(loaded, display="none", quiet=True, report=False)

    assert result.ok
    calls, cached = result.progress.calls, result.progress.cached
    assert set(calls) == {"vividtest/judge"}  # no generation, no other judge
    assert calls["vividtest/judge"] + cached["vividtest/judge"] == 40
    assert {j.status for j in result.judged if j.name == "thinker"} == {"scored"}
    assert {j.status for j in result.judged if j.name != "thinker"} == {"done"}
    scores = [s.scores["judge_zero_shot"] for log in _judged(log_dir, "thinker") for s in log.samples]
    assert {(s.value, s.metadata["parse_status"]) for s in scores} == {(4, "ok")}


@pytest.mark.slow
def test_an_interrupted_write_keeps_the_old_log(
    tmp_path: Path, smoke: tuple[Path, RunResult], monkeypatch: pytest.MonkeyPatch
) -> None:
    source = next((smoke[0] / "judged" / "panel").glob("*.eval"))
    target = tmp_path / "judged.eval"
    shutil.copy(source, target)
    before = target.read_bytes()

    async def broken(log: EvalLog, location: str, format: str) -> None:
        Path(location).write_bytes(b"half a log")
        raise KeyboardInterrupt

    monkeypatch.setattr("vivid_inspect.lab.runner.judging.cell.write_eval_log_async", broken)
    with pytest.raises(KeyboardInterrupt):
        anyio.run(write_log_atomic, read_eval_log(str(source)), target)
    assert target.read_bytes() == before
    assert list(tmp_path.iterdir()) == [target]


@pytest.mark.slow
def test_cli_run_of_a_finished_spec_exits_0(
    smoke: tuple[Path, RunResult], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", str(SMOKE), "--log-dir", str(smoke[0]), "--display", "none", "--no-report"]) == 0
    assert "0 calls" in capsys.readouterr().out


@pytest.mark.slow
def test_a_changed_sample_seed_is_refused_before_anything_runs(
    smoke: tuple[Path, RunResult], tmp_path: Path
) -> None:
    # eval_set counts samples, not ids: it would keep the old items of a log with the same count.
    log_dir = tmp_path / "logs"
    shutil.copytree(smoke[0], log_dir)
    data = yaml.safe_load(SMOKE.read_text(encoding="utf-8"))
    data["human"]["file"] = str(SMOKE.parent / data["human"]["file"])
    data["runs"][0]["sample"]["seed"] = 1
    loaded = load_spec(_write_spec(tmp_path / "spec.yaml", data), log_dir=log_dir)
    before = sorted(p.name for p in log_dir.rglob("*.eval"))
    with pytest.raises(SpecError) as caught:
        run_spec(loaded, display="none", quiet=True, report=False)
    assert {format_path(p.path) for p in caught.value.problems} == {"runs[0].sample"}
    assert "eval_set would keep it" in str(caught.value)
    assert sorted(p.name for p in log_dir.rglob("*.eval")) == before


@pytest.mark.slow
def test_judged_logs_of_a_replaced_generation_log_are_removed(
    smoke: tuple[Path, RunResult], tmp_path: Path
) -> None:
    log_dir = tmp_path / "logs"
    shutil.copytree(smoke[0], log_dir)
    gone = next((log_dir / "generations").glob("*explain*.eval"))
    gone.unlink()
    removed = anyio.run(prune_orphans, log_dir)
    assert sorted(p.parent.name for p in removed) == ["chrf_aspect", "chrf_cot", "lexical", "panel"]
    assert {p.name for p in removed} == {gone.name}
    assert len(list((log_dir / "judged").glob("*/*.eval"))) == 16 - 4


@pytest.mark.slow
def test_judged_logs_of_further_repeats_are_removed_with_their_generation_log(
    smoke: tuple[Path, RunResult], tmp_path: Path
) -> None:
    log_dir = tmp_path / "logs"
    shutil.copytree(smoke[0], log_dir)
    gone = next((log_dir / "generations").glob("*explain*.eval"))
    repeat = log_dir / "judged" / "chrf_aspect" / "repeat-1" / gone.name
    repeat.parent.mkdir()
    shutil.copy(log_dir / "judged" / "chrf_aspect" / gone.name, repeat)
    gone.unlink()
    removed = anyio.run(prune_orphans, log_dir)
    assert repeat in removed and not repeat.exists()


def _judge_records(log_dir: Path) -> dict[Path, dict[str, Any]]:
    return {
        path.relative_to(log_dir): read_eval_log(str(path), header_only=True).eval.metadata["vivid_judge"]
        for path in sorted((log_dir / "judged").rglob("*.eval"))
    }


@pytest.mark.slow
@pytest.mark.parametrize(
    ("module", "constant"),
    [
        pytest.param(judge_prompts, "JUDGE_PROMPT_VERSION", id="prompt-version"),
        pytest.param(judge_parse, "JUDGE_PARSER_VERSION", id="parser-version"),
    ],
)
def test_a_new_judge_version_rejudges_and_replaces_the_old_judged_logs(
    smoke: tuple[Path, RunResult], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: Any, constant: str
) -> None:
    log_dir = tmp_path / "logs"
    shutil.copytree(smoke[0], log_dir)
    before = _judge_records(log_dir)
    version = getattr(module, constant) + 1
    key = "prompt_version" if constant == "JUDGE_PROMPT_VERSION" else "parser_version"
    monkeypatch.setattr(module, constant, version)

    plan = make_plan(load_spec(SMOKE, log_dir=log_dir))
    assert {c.label.split(" ")[0] for c in plan.cells if not c.done} == {"chrf_aspect", "chrf_cot", "panel"}
    result = run_spec(load_spec(SMOKE, log_dir=log_dir), display="none", quiet=True, report=False)

    assert result.ok
    status = {j.name: j.status for j in result.judged}
    # the LLM judges (and the panel over them) are redone; chrF uses no judge prompt or parser
    assert status == {"chrf_aspect": "scored", "chrf_cot": "scored", "lexical": "done", "panel": "scored"}
    after = _judge_records(log_dir)
    assert set(after) == set(before)  # replaced in place: no second judged log beside the old one
    for path, record in after.items():
        if record["strategy"] in ("aspect", "cot"):
            assert record["config"][key] == version
            assert record["config_hash"] != before[path]["config_hash"]
    # the same version again: nothing to redo
    again = run_spec(load_spec(SMOKE, log_dir=log_dir), display="none", quiet=True, report=False)
    assert {j.status for j in again.judged} == {"done"}


@pytest.mark.parametrize(
    ("members", "expected"),
    [
        pytest.param({"a": 2.0, "b": 4.0}, 3.0, id="both-scored"),
        pytest.param({"a": float("nan"), "b": 4.0}, 4.0, id="unscored-member-left-out"),
        pytest.param({"b": 5.0}, 5.0, id="member-without-a-score-left-out"),
        pytest.param({"a": float("nan"), "b": float("nan")}, None, id="no-member-scored"),
    ],
)
def test_panel_leaves_out_unscored_members(members: dict[str, float], expected: float | None) -> None:
    state = TaskState(ModelName("none/none"), sample_id=1, epoch=1, input="x", messages=[])
    state.scores = {f"panel_member/{name}": Score(value=value) for name, value in members.items()}
    score = anyio.run(panel_scorer(["a", "b"], "mean"), state, Target(""))
    if expected is None:
        assert math.isnan(score.as_float())
    else:
        assert score.as_float() == expected
    assert set(score.metadata["members"]) == {"a", "b"}


def test_spec_wide_settings_reach_generation_and_judges(tmp_path: Path) -> None:
    data = yaml.safe_load(SMOKE.read_text(encoding="utf-8"))
    data["human"]["file"] = str(SMOKE.parent / data["human"]["file"])
    data.update(batch=100, retries={"max_retries": 3, "timeout": 60}, concurrency={"max_connections": 7})
    data["judges"][0]["generate"] = {"max_connections": 2, "max_tokens": 12}
    loaded = load_spec(_write_spec(tmp_path / "spec.yaml", data))
    config = generate_config(loaded.spec, loaded.spec.runs[0].generate)
    assert (config.batch, config.max_retries, config.timeout, config.max_connections) == (100, 3, 60, 7)
    cells = expand(loaded).judges
    first = make_judge_model(
        loaded.spec, next(c.judge for c in cells if c.judge.name == "chrf_aspect")
    ).config
    assert (first.batch, first.max_connections, first.max_tokens) == (100, 2, 12)
    second = make_judge_model(loaded.spec, next(c.judge for c in cells if c.judge.name == "chrf_cot")).config
    assert (second.max_connections, second.max_tokens) == (7, None)


OPEN_JUDGES = {
    # judge name: (model in the spec, model name the server sees)
    "openai_compatible": ("openai-api/local/qwen3-8b", "qwen3-8b"),
    "vllm_server": ("vllm/Qwen/Qwen3-8B", "Qwen/Qwen3-8B"),
    "ollama": ("ollama/qwen3:8b", "qwen3:8b"),
}


@pytest.mark.slow
def test_open_weight_reasoning_judges_on_served_models(
    smoke: tuple[Path, RunResult], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each judge reaches a running server through model_args.base_url with Inspect's own provider;
    # the server answers like Qwen3 (thinking first), and the score is read after the thinking.
    monkeypatch.setenv("LOCAL_API_KEY", "not-a-secret")  # openai-api wants some key; no real one
    log_dir = tmp_path / "logs"
    shutil.copytree(smoke[0], log_dir)
    served = [name for _, name in OPEN_JUDGES.values()]
    with FakeOpenAIServer(lambda model, messages: THINKING_REPLY, models=served) as server:
        data = yaml.safe_load(SMOKE.read_text(encoding="utf-8"))
        # one explanation log of the smoke run is enough: it is found done and only judged
        data["runs"] = [data["runs"][0] | {"prompts": ["zero_shot"], "models": ["vivid/oracle"]}]
        data["judges"] = [
            {"name": name, "strategy": "aspect", "model": model, "model_args": {"base_url": server.base_url}}
            for name, (model, _) in OPEN_JUDGES.items()
        ]
        data["panel"] = {"name": "open_panel", "members": list(OPEN_JUDGES), "aggregate": "median"}
        del data["human"]
        loaded = load_spec(_write_spec(tmp_path / "spec.yaml", data), log_dir=log_dir)
        result = run_spec(loaded, display="none", quiet=True, report=False)
        requests = server.model_counts
    assert result.ok, result.progress.messages
    assert {g.cell.label: g.status for g in result.generations} == {
        "explain[zero_shot] vivid/oracle": "success"
    }
    for name, (model, served_as) in OPEN_JUDGES.items():
        assert requests[served_as] == result.progress.calls[model] == 10
        logs = _judged(log_dir, name)
        assert {log.eval.metadata["vivid_judge"]["model"] for log in logs} == {model}
        assert {s.scores["judge_aspect"].value for log in logs for s in log.samples} == {4}


def test_run_blocks_that_agree_share_one_eval_set_call(tmp_path: Path) -> None:
    def block(task: str, model: str, **extra: Any) -> dict[str, Any]:
        return {"tasks": [task], "models": [model], "limit": 5, **extra}

    runs = [
        block("explain", "vivid/oracle", prompts=["zero_shot"]),
        block("topic", "vivid/oracle", task_args={"shots": 0}),
        block("traits", "vivid/literal", task_args={"shots": 0}),  # other model
        block("traits", "vivid/oracle", task_args={"shots": 0}, epochs=2),  # other epochs
    ]
    spec = _write_spec(
        tmp_path / "spec.yaml", {"name": "groups", "data": "sample", "log_dir": "logs", "runs": runs}
    )
    groups = eval_set_groups(prepare(load_spec(spec)))
    assert [[b.index for b in group] for group in groups] == [[0, 1], [2], [3]]


@pytest.mark.slow
def test_plan_names_logs_that_belong_to_no_cell(smoke: tuple[Path, RunResult], tmp_path: Path) -> None:
    data = yaml.safe_load(SMOKE.read_text(encoding="utf-8"))
    data["human"]["file"] = str(SMOKE.parent / data["human"]["file"])
    for block in data["runs"]:
        block["models"] = ["vivid/oracle"]  # vivid/literal's four logs stay behind
    plan = make_plan(load_spec(_write_spec(tmp_path / "spec.yaml", data), log_dir=smoke[0]))
    assert any(note.startswith("4 log(s)") for note in plan.notes), plan.notes
    assert all(cell.done for cell in plan.cells)
