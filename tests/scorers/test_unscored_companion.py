"""A plain ``inspect eval`` shows each LLM judge's unscored share (issue 29.4).

Inspect drops unscored values before any metric runs, so a judge that never gives a readable score
shows only ``mean nan``. Each LLM judge of the explain task therefore gets a companion column
``unscored_<judge>`` whose metric ``unscored`` is the share; the report, which takes ``judge_*``
columns for judges, reads the same judges as before.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog

from tests.scripted import scripted_model
from vivid_inspect.data import load_vivid
from vivid_inspect.lab.report.reading.logs import read_logs
from vivid_inspect.tasks import explain

ITEMS = 8
EXPLANATION = "Câu này khuyên người ta sống tử tế và biết ơn."
ECHO = "1. Nghĩa đen của thành ngữ\n2. Hàm ý\n3. Điểm từ 0 đến 5"


def _every_other() -> Callable[[str], str]:
    calls = [0]

    def answer(prompt: str) -> str:
        calls[0] += 1
        return "Điểm: 4" if calls[0] % 2 else ECHO

    return answer


def _eval(tmp_path: Path, answer: Callable[[str], str]) -> EvalLog:
    ids = [int(str(sample.id)) for sample in load_vivid("sample").dataset][:ITEMS]
    (log,) = eval(
        explain(data="sample", judge="aspect,cot,lexical", judge_retries=0),
        model=scripted_model(lambda prompt: EXPLANATION),
        model_roles={"grader": scripted_model(answer)},
        sample_id=ids,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", log.error
    return log


@pytest.mark.slow
@pytest.mark.parametrize(
    ("answer", "shares"),
    [
        pytest.param(lambda: lambda prompt: ECHO, {"aspect": 1.0, "cot": 1.0}, id="mute-judge"),
        pytest.param(lambda: lambda prompt: "Điểm: 4", {"aspect": 0.0, "cot": 0.0}, id="readable-judge"),
        pytest.param(_every_other, None, id="half-readable"),
    ],
)
def test_each_llm_judge_has_its_unscored_share_in_the_results(
    tmp_path: Path, answer: Callable[[], Callable[[str], str]], shares: dict[str, float] | None
) -> None:
    log = _eval(tmp_path, answer())
    assert log.results is not None
    columns = {score.name: score for score in log.results.scores}
    assert list(columns) == ["judge_aspect", "judge_cot", "lexical", "unscored_aspect", "unscored_cot"]
    for judge in ("aspect", "cot"):
        # the share Inspect counted (it drops the unscored before any metric) is the one printed
        judged = columns[f"judge_{judge}"]
        unscored, scored = judged.unscored_samples or 0, judged.scored_samples or 0
        truth = unscored / (unscored + scored)
        printed = columns[f"unscored_{judge}"].metrics["unscored"].value
        assert printed == pytest.approx(truth)
        if shares is not None:
            assert printed == shares[judge]
        if printed == 1.0:
            assert math.isnan(judged.metrics["mean"].value)  # all Inspect printed before: mean nan
        for sample in log.samples or []:
            value = sample.scores[f"judge_{judge}"].value  # type: ignore[index]
            assert sample.scores[f"unscored_{judge}"].value == float(math.isnan(value))  # type: ignore[arg-type,index]
    # the lexical baseline never leaves a sample unscored: no companion


@pytest.mark.slow
def test_the_report_reads_the_same_judges_beside_the_companions(tmp_path: Path) -> None:
    _eval(tmp_path, _every_other())
    scores = read_logs(tmp_path / "logs").scores
    assert set(scores["scorer"]) == {"judge_aspect", "judge_cot", "lexical"}
    assert len(scores) == 3 * ITEMS
