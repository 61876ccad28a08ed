"""Each judge reply is stored once: ``explanation`` holds the last, ``judge_replies`` all of them after a retry.

Every stored text is copied into the score, the score event and the sample summary of the log, so
a one-attempt score keeps its reply in ``explanation`` alone; after a retry ``judge_replies`` lists
every reply in order (its last is ``explanation``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import read_eval_log
from inspect_ai.scorer import Score
from inspect_ai.solver import generate

from tests.scripted import scripted_model
from vivid_inspect.scorers.judge import judge_scorer
from vivid_inspect.solvers.explain import explain_prompt

IDIOM = "Nước đổ đầu vịt"
MEANING = "Khuyên bảo mãi mà người nghe chẳng tiếp thu."


def _scored(explanation: str, replies: list[str]) -> Score:
    answers: Iterator[str] = iter(replies)
    sample = Sample(
        id=1,
        input=IDIOM,
        target=MEANING,
        metadata={"idiom": IDIOM, "meaning": MEANING, "theme": "Criticism", "traits": []},
    )
    task = Task(
        dataset=MemoryDataset([sample]), solver=[explain_prompt(), generate()], scorer=judge_scorer("aspect")
    )
    (log,) = eval(
        task,
        model=scripted_model(lambda prompt: explanation),
        model_roles={"grader": scripted_model(lambda prompt: next(answers))},
        display="none",
    )
    assert log.status == "success", log.error
    (sample_,) = read_eval_log(log.location).samples or []
    assert sample_.scores is not None
    return sample_.scores["judge_aspect"]


@pytest.mark.parametrize(
    ("replies", "value", "stored"),
    [
        pytest.param(["4"], 4, None, id="read-at-once"),
        pytest.param(["Điểm: 5"], 5, None, id="score-line-at-once"),
        pytest.param(["tốt", "3"], 3, ["tốt", "3"], id="read-after-a-retry"),
        pytest.param(["9", "7"], None, ["9", "7"], id="unreadable-twice"),
    ],
)
def test_each_reply_is_stored_once(replies: list[str], value: int | None, stored: list[str] | None) -> None:
    score = _scored("Lời khuyên chẳng lọt tai.", replies)
    assert score.metadata is not None
    assert score.explanation == replies[-1]
    assert score.metadata.get("judge_replies") == stored
    assert score.metadata["retries"] == len(replies) - 1
    if value is None:
        assert math.isnan(score.as_float())
    else:
        assert score.value == value


def test_an_empty_explanation_stores_no_reply() -> None:
    score = _scored("", [])
    assert score.metadata is not None
    assert (score.value, score.metadata["parse_status"]) == (0, "empty_answer")
    assert "judge_replies" not in score.metadata
