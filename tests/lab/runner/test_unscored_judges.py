"""A judge that cannot score is loud: ``vivid run`` exits 1 with one line per such judge (issue 29.4).

The judges are offline: ``vividmute/echo`` repeats a menu the way a base model echoes the judge
prompt (never a readable score), ``vividmute/half`` scores some items and echoes on others, and
``vivid/chrf`` always scores. The lines are read from the judged logs, so a rerun that makes no
calls says the same.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from vivid_inspect.lab.cli.main import main
from vivid_inspect.lab.runner.judging.unscored import REPLY_CHARS, cut

# A base model's echo of a numbered instruction list: long, many lines, several numbers.
ECHO = "\n".join(
    f"{n}. Đánh giá mức độ chính xác của lời giải thích so với nghĩa tham chiếu, thang điểm 0 đến 5."
    for n in range(1, 5)
)


DEFAULT_CONFIG = GenerateConfig()


class MuteJudge(ModelAPI):
    """``vividmute/echo`` never gives a readable score; ``vividmute/half`` scores every other call."""

    calls = 0

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = DEFAULT_CONFIG,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)

    async def generate(
        self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice, config: GenerateConfig
    ) -> ModelOutput:
        MuteJudge.calls += 1
        readable = self.model_name == "half" and MuteJudge.calls % 2 == 0
        output = ModelOutput.from_content(
            model=f"vividmute/{self.model_name}", content="4" if readable else ECHO
        )
        output.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        return output


@modelapi(name="vividmute")
def vividmute() -> type[ModelAPI]:
    """Registers the offline mute judges."""
    return MuteJudge


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("loud")
    spec = {
        "name": "loud",
        "data": "sample",
        "log_dir": str(root / "logs"),
        "runs": [
            {
                "name": "explanations",
                "tasks": ["explain"],
                "prompts": ["zero_shot"],
                "models": ["vivid/oracle"],
                "sample": {"n": 8, "seed": 0},
            }
        ],
        "judges": [
            {"name": "echo", "strategy": "aspect", "model": "vividmute/echo"},
            # named after echo, so that a tie-break by name would have chosen echo for the tables
            {"name": "good", "strategy": "aspect", "model": "vivid/chrf"},
        ],
    }
    path = root / "spec.yaml"
    path.write_text(yaml.safe_dump(spec, allow_unicode=True), encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("INSPECT_CACHE_DIR", str(root / "cache"))
        yield path


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    code = main(["run", *args, "--no-preflight", "--display", "none"])
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("vivid run: judge ")]
    return code, lines


@pytest.mark.slow
def test_a_judge_that_cannot_score_fails_the_run_after_keeping_everything(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, lines = _run(capsys, str(folder))
    assert code == 1
    # one line for the judge that could not score, none for the one that could
    assert len(lines) == 1 and lines[0].startswith(
        "vivid run: judge echo: 8 of 8 explanations unscored (100 %"
    )
    assert "limit 20 %" in lines[0] and "in 1 of 1 cell;" in lines[0]
    reasons = lines[0].split("commonest reasons: ")[1]
    assert "(8)" in reasons.split("; a reply:")[0]
    quoted = lines[0].split("; a reply: ")[1]
    assert quoted.startswith("'1. Đánh giá") and len(quoted) == REPLY_CHARS + 2  # cut, in quotes
    # everything it could do is kept: both judged logs and the report
    logs = folder.parent / "logs"
    assert len(list((logs / "judged" / "echo").glob("*.eval"))) == 1
    assert len(list((logs / "judged" / "good").glob("*.eval"))) == 1
    # the tables use the judge that scores, and the note names the one set aside
    report = (logs / "report" / "report.md").read_text(encoding="utf-8")
    assert "Tables 3 and 4 use judge good [vivid/chrf]: the aspect-based judge" in report
    assert (
        "set aside as unable to score (unscored above 20%): echo [vividmute/echo] (100% of 8 unscored)"
        in report
    )

    # a rerun makes no call (the judged logs stay as they were) and says the same
    judged = {path: path.stat().st_mtime_ns for path in (logs / "judged").rglob("*.eval")}
    again, repeated = _run(capsys, str(folder), "--no-report")
    assert (again, repeated) == (1, lines)
    assert {path: path.stat().st_mtime_ns for path in (logs / "judged").rglob("*.eval")} == judged

    # a looser limit lets the same folder pass
    assert _run(capsys, str(folder), "--no-report", "--unscored-limit", "1")[0] == 0


@pytest.mark.slow
def test_a_judge_under_the_limit_is_not_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = {
        "name": "half",
        "data": "sample",
        "log_dir": str(tmp_path / "logs"),
        "runs": [
            {
                "name": "e",
                "tasks": ["explain"],
                "prompts": ["zero_shot"],
                "models": ["vivid/oracle"],
                "sample": {"n": 8, "seed": 0},
            }
        ],
        "judges": [{"name": "half", "strategy": "aspect", "model": "vividmute/half", "retries": 0}],
    }
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(spec, allow_unicode=True), encoding="utf-8")
    # half of the 8 calls give a score: 50 % is over a limit of 40 %, under one of 60 %
    code, lines = _run(capsys, str(path), "--no-report", "--unscored-limit", "0.4")
    assert code == 1 and len(lines) == 1
    assert lines[0].startswith("vivid run: judge half: 4 of 8 explanations unscored (50 %, limit 40 %)")
    assert _run(capsys, str(path), "--no-report", "--unscored-limit", "0.6") == (0, [])


@pytest.mark.parametrize("value", ["1.5", "-0.1", "nan", "twenty"])
def test_a_limit_that_is_not_a_share_is_bad_usage(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["run", "spec.yaml", "--unscored-limit", value])
    assert exit_.value.code == 2
    assert "is not a share from 0 to 1" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("4", "4"),
        ("a\n\n  b", "a b"),
        ("x" * REPLY_CHARS, "x" * REPLY_CHARS),
        ("x" * (REPLY_CHARS + 1), "x" * (REPLY_CHARS - 1) + "…"),
        ("1.\n" * 100, ("1. " * 40)[: REPLY_CHARS - 1] + "…"),
    ],
)
def test_a_quoted_reply_is_one_line_of_at_most_120_characters(text: str, expected: str) -> None:
    assert cut(text) == expected
    assert len(cut(text)) <= REPLY_CHARS
