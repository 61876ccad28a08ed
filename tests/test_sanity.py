"""The judge sanity check: scripted judges through the real explain task, the result's arithmetic, the CLI."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import read_eval_log
from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput, get_model
from inspect_ai.tool import ToolChoice, ToolInfo

from tests.scripted import output, prompt_text
from vivid_inspect.baselines.chrf_judge import judge_fields
from vivid_inspect.cli.main import build_parser, main
from vivid_inspect.cli.sanity import model_arg
from vivid_inspect.sanity import (
    DEFAULT_MIN_GAP,
    DEFAULT_MIN_SHARE,
    SANITY_TAG,
    SanityItem,
    SanityResult,
    choose_ids,
    run_sanity,
    summarise,
)
from vivid_inspect.testing.openai_server import FakeOpenAIServer
from vivid_inspect.text import nfc

LIMIT = 10
NAN = math.nan


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The judge scorer caches replies by model name and prompt: scripted judges that share a
    # name would otherwise replay each other's verdicts.
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("INSPECT_DISPLAY", "none")


def _is_reference(prompt: str) -> bool:
    fields = judge_fields(prompt)
    assert fields is not None, "the judge was sent something that is not a VIVID judge prompt"
    reference, candidate = fields
    return nfc(reference).strip() == nfc(candidate).strip()


def discriminating(prompt: str) -> str:
    return "5" if _is_reference(prompt) else "1"


def constant(prompt: str) -> str:
    return "3"


def inverted(prompt: str) -> str:
    return "1" if _is_reference(prompt) else "5"


def timid(prompt: str) -> str:
    # Prefers the reference everywhere, but by one point only.
    return "5" if _is_reference(prompt) else "4"


def mute(prompt: str) -> str:
    return "Tôi không thể chấm bài này."


def scripted_judge(answer: Callable[[str], str], name: str) -> Model:
    def respond(
        messages: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice, config: GenerateConfig
    ) -> ModelOutput:
        return output(answer(prompt_text(messages)), model=f"mockllm/{name}")

    return get_model(f"mockllm/{name}", custom_outputs=respond, memoize=False)


# --- scripted judges through the real explain task ------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("answer", "thresholds", "means", "failed_checks"),
    [
        pytest.param(discriminating, {}, (5.0, 1.0), [], id="discriminating-judge-passes"),
        pytest.param(constant, {}, (3.0, 3.0), ["gap", "share"], id="constant-3-fails"),
        pytest.param(inverted, {}, (1.0, 5.0), ["gap", "share"], id="inverted-judge-fails"),
        pytest.param(timid, {}, (5.0, 4.0), ["gap"], id="one-point-gap-fails-by-default"),
        pytest.param(timid, {"min_gap": 0.5}, (5.0, 4.0), [], id="one-point-gap-passes-a-lower-threshold"),
        pytest.param(mute, {}, (NAN, NAN), ["gap", "share", "unscored"], id="unreadable-judge-fails"),
    ],
)
def test_scripted_judges(
    tmp_path: Path,
    answer: Callable[[str], str],
    thresholds: dict[str, Any],
    means: tuple[float, float],
    failed_checks: list[str],
) -> None:
    result = run_sanity(
        scripted_judge(answer, answer.__name__),
        limit=LIMIT,
        seed=3,
        log_dir=str(tmp_path / "logs"),
        display="none",
        **thresholds,
    )

    assert [check.name for check in result.checks if not check.passed] == failed_checks
    assert result.passed is (not failed_checks) and len(result.reasons) == len(failed_checks)
    assert result.verdict == ("fail" if failed_checks else "pass")
    assert result.markdown().startswith(f"## Judge sanity check: {result.verdict.upper()}")
    assert (result.oracle_mean, result.literal_mean) == pytest.approx(means, nan_ok=True)
    assert result.judge == f"mockllm/{answer.__name__}" and result.strategy == "aspect"
    # Both models judged the same LIMIT items, the ones the seed drew.
    ids = [item.id for item in result.items]
    assert len(set(ids)) == LIMIT and ids == sorted(ids)
    assert all(item.idiom for item in result.items)
    for location in result.log_locations:
        log = read_eval_log(location)
        assert Path(location).parent == tmp_path / "logs" and SANITY_TAG in (log.eval.tags or [])
        assert sorted(sample.id for sample in log.samples or []) == ids  # type: ignore[type-var]


@pytest.mark.slow
def test_cot_strategy_reaches_the_judge(tmp_path: Path) -> None:
    prompts: list[str] = []

    def cot(prompt: str) -> str:
        prompts.append(prompt)
        return f"Suy luận ngắn.\nĐiểm: {discriminating(prompt)}"

    result = run_sanity(
        scripted_judge(cot, "cot"), strategy="cot", limit=3, log_dir=str(tmp_path), display="none"
    )
    assert result.strategy == "cot" and result.gap == 4.0 and result.passed
    assert len(prompts) == 6 and all("Điểm: N" in prompt for prompt in prompts)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        pytest.param(
            {"strategy": "lexical"}, "unknown judge strategy 'lexical'", id="lexical-is-not-an-llm-strategy"
        ),
        pytest.param({"min_gap": 6.0}, "min_gap 6.0", id="gap-off-the-scale"),
        pytest.param({"min_share": 80.0}, "min_share 80.0", id="share-as-percent"),
        pytest.param({"max_unscored": -0.1}, "max_unscored -0.1", id="negative-unscored"),
        pytest.param({"limit": 0}, "limit must be 1 or more", id="zero-items"),
        pytest.param({"model_args": {"base_url": "http://x"}}, "model_args", id="model-args-with-a-model"),
    ],
)
def test_bad_arguments_are_rejected_before_any_call(kwargs: dict[str, Any], message: str) -> None:
    calls: list[str] = []

    def recorded(prompt: str) -> str:
        calls.append(prompt)
        return "5"

    with pytest.raises(ValueError, match=message):
        run_sanity(scripted_judge(recorded, "unused"), **kwargs)
    assert calls == []


# --- the result's arithmetic ------------------------------------------------------------------


def _result(pairs: Sequence[tuple[float, float]], **thresholds: Any) -> SanityResult:
    items = [SanityItem(i, f"idiom {i}", o, lit) for i, (o, lit) in enumerate(pairs, 1)]
    return summarise(items, judge="j", strategy="aspect", data="d", **thresholds)


@pytest.mark.parametrize(
    ("pairs", "passed", "failed"),
    [
        pytest.param([(5, 3.5)] * 10, True, [], id="gap-exactly-at-threshold-passes"),
        pytest.param([(5, 3.6)] * 10, False, ["gap"], id="gap-just-below-fails"),
        pytest.param([(5, 0)] * 8 + [(5, 5)] * 2, True, [], id="share-exactly-80-percent-passes"),
        pytest.param([(5, 0)] * 7 + [(5, 5)] * 3, False, ["share"], id="share-70-percent-fails"),
        pytest.param([(5, 0)] * 9 + [(NAN, 0)], True, [], id="one-in-twenty-unscored-passes"),
        pytest.param([(5, 0)] * 7 + [(NAN, NAN)] * 3, False, ["unscored"], id="six-in-twenty-unscored-fails"),
        pytest.param([(NAN, NAN)] * 4, False, ["gap", "share", "unscored"], id="nothing-scored"),
    ],
)
def test_checks_and_thresholds(pairs: list[tuple[float, float]], passed: bool, failed: list[str]) -> None:
    result = _result(pairs)
    assert result.passed is passed
    assert [check.name for check in result.checks if not check.passed] == failed


def test_shares_are_over_paired_items() -> None:
    result = _result([(5, 1), (4, 4), (2, 3), (NAN, 1)])
    assert (result.n_items, result.n_paired) == (4, 3)
    assert result.oracle_mean == pytest.approx(11 / 3) and result.literal_mean == pytest.approx(8 / 3)
    assert result.share_oracle_higher == pytest.approx(1 / 3)
    assert result.share_ties == pytest.approx(1 / 3) and result.share_literal_higher == pytest.approx(1 / 3)
    assert (result.unscored_oracle, result.unscored_literal, result.unscored_share) == (1, 0, 1 / 8)


def test_sign_test() -> None:
    assert _result([(5, 0)] * 10).sign_test_p == pytest.approx(0.5**10)
    assert math.isnan(_result([(3, 3)] * 10).sign_test_p)


def test_default_thresholds_are_the_documented_ones() -> None:
    assert (DEFAULT_MIN_GAP, DEFAULT_MIN_SHARE) == (1.5, 0.8)
    result = _result([(5, 0)])
    assert (result.min_gap, result.min_share, result.max_unscored) == (1.5, 0.8, 0.1)


def test_markdown_names_the_failures_and_the_items_missed() -> None:
    text = _result([(5, 0)] * 3 + [(3, 3), (2, 4)], min_share=0.9).markdown()
    assert text.startswith("## Judge sanity check: FAIL")
    assert "| oracle > literal | 60.0 % (3/5) | >= 90.0 % | **FAIL** |" in text
    assert "- oracle scored higher on 60.0 % of 5 paired items; needs >= 90.0 %" in text
    assert "| 4 | idiom 4 | 3 | 3 |" in text and "| 5 | idiom 5 | 2 | 4 |" in text
    assert "| 1 | idiom 1 |" not in text
    assert "verdict is noisy" in text


@pytest.mark.parametrize(
    ("limit", "expected_size"),
    [
        pytest.param(3, 3, id="draw"),
        pytest.param(50, 20, id="more-than-there-are"),
        pytest.param(None, 20, id="all"),
    ],
)
def test_choose_ids(limit: int | None, expected_size: int) -> None:
    ids = list(range(1, 21))
    chosen = choose_ids(ids, limit, seed=7)
    assert len(chosen) == expected_size and chosen == sorted(chosen) and set(chosen) <= set(ids)
    assert chosen == choose_ids(ids, limit, seed=7)


def test_seed_changes_the_draw() -> None:
    ids = list(range(1, 101))
    assert choose_ids(ids, 10, seed=0) != choose_ids(ids, 10, seed=1)


# --- the CLI ----------------------------------------------------------------------------------


def _cli(argv: list[str]) -> int:
    return main(argv)


@pytest.mark.slow
def test_cli_passes_the_offline_chrf_grader(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The real end-to-end path: offline models, the real judge prompt, vivid/chrf's replies, parsing.
    assert _cli(["sanity", "vivid/chrf", "--limit", "20", "--log-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out.lstrip("\n")
    assert out.startswith("## Judge sanity check: PASS") and "on 20 items of vivid_inspect sample" in out
    assert "| oracle mean (0-5) | 5.00 |" in out and "| oracle > literal | 100.0 % (20/20) |" in out
    assert len(list(tmp_path.glob("*.eval"))) == 2


@pytest.mark.slow
@pytest.mark.parametrize(
    ("answer", "code", "verdict"),
    [
        pytest.param(discriminating, 0, "PASS", id="discriminating-server-judge-passes"),
        pytest.param(constant, 1, "FAIL", id="constant-server-judge-fails"),
    ],
)
def test_cli_judge_behind_a_base_url(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    answer: Callable[[str], str],
    code: int,
    verdict: str,
) -> None:
    def respond(model: str, messages: list[dict[str, Any]]) -> str:
        return answer("\n\n".join(m["content"] for m in messages if m["role"] == "user"))

    with FakeOpenAIServer(responder=respond) as server:
        # Only the key comes from the environment: the address must come from -M base_url.
        monkeypatch.setenv("FAKE_API_KEY", server.env()["FAKE_API_KEY"])
        monkeypatch.delenv("FAKE_BASE_URL", raising=False)
        argv = ["sanity", "openai-api/fake/judge", "-M", f"base_url={server.base_url}", "-M", "max_retries=0"]
        assert _cli([*argv, "--limit", "5", "--log-dir", str(tmp_path)]) == code
        assert server.model_counts == {"judge": 10}
    assert f"## Judge sanity check: {verdict}" in capsys.readouterr().out


@pytest.mark.slow
def test_cli_run_that_cannot_finish_exits_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A judge behind an unreachable address would make Inspect retry for minutes, so the CLI's
    # judge name is swapped for a scripted judge that raises; the run itself is real.
    def broken(prompt: str) -> str:
        raise RuntimeError("judge server is down")

    def with_broken_judge(judge_model: str, **kwargs: Any) -> SanityResult:
        return run_sanity(
            scripted_judge(broken, "broken"), **{**kwargs, "model_args": None, "display": "none"}
        )

    monkeypatch.setattr("vivid_inspect.cli.sanity.run_sanity", with_broken_judge)
    assert _cli(["sanity", "any/judge", "--limit", "1", "--log-dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "did not complete" in err and "judge server is down" in err


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(["sanity", "vivid/chrf", "--min-share", "80"], id="share-as-percent"),
        pytest.param(["sanity", "vivid/chrf", "--min-gap", "-1"], id="negative-gap"),
        pytest.param(["sanity", "vivid/chrf", "--limit", "0"], id="zero-items"),
        pytest.param(["sanity", "vivid/chrf", "--strategy", "lexical"], id="unknown-strategy"),
        pytest.param(["sanity", "vivid/chrf", "-M", "base_url"], id="model-arg-without-value"),
        pytest.param(["sanity"], id="no-judge"),
    ],
)
def test_cli_rejects_bad_options_with_exit_2(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args(argv)
    assert exit_info.value.code == 2


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        pytest.param(["sanity", "nope/judge"], "not recognized", id="unknown-provider"),
        pytest.param(
            ["sanity", "vivid/chrf", "--data", "/no/such/file.csv"], "no such data file", id="missing-data"
        ),
        pytest.param(
            ["sanity", "vivid/chrf", "-M", "colour=blue"], "takes only the model argument", id="bad-arg"
        ),
    ],
)
def test_cli_bad_set_up_exits_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert _cli(argv) == 2
    assert message in capsys.readouterr().err


def test_cli_missing_api_key_is_a_set_up_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("OPENAI_API_KEY", "AZUREAI_OPENAI_API_KEY", "AZURE_OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    assert _cli(["sanity", "openai/gpt-4.1"]) == 2
    err = capsys.readouterr().err
    assert "OPENAI_API_KEY" in err and "[bold]" not in err


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("base_url=http://localhost:8000/v1", ("base_url", "http://localhost:8000/v1"), id="url"),
        pytest.param("max-retries=0", ("max_retries", 0), id="dash-to-underscore-and-yaml-int"),
        pytest.param("query=a=b", ("query", "a=b"), id="value-keeps-equals"),
    ],
)
def test_model_arg(text: str, expected: tuple[str, Any]) -> None:
    assert model_arg(text) == expected
