"""The report reads a log whose ``grader`` role is bound in any shape Inspect allows.

Inspect's ``EvalSpec.model_roles`` maps a role to one ``ModelConfig`` or to a list of them; a log
may also bind no role at all. Reading the log, its usage table and the whole report work for each.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.model import ModelConfig

from vivid_inspect.lab.report.build import write_report
from vivid_inspect.lab.report.reading.logs import read_logs
from vivid_inspect.tasks import explain

JUDGE = "vivid/chrf"
OTHER = "vivid/oracle"


@pytest.fixture(scope="module")
def judged_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("roles")
    (log,) = inspect_eval(
        explain(data="sample", judge="aspect"),
        model="vivid/literal",
        model_args={"data": "sample"},
        model_roles={"grader": JUDGE},
        limit=3,
        log_dir=str(folder / "made"),
        display="none",
    )
    assert log.status == "success", log.error
    return Path(log.location)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("roles", "expected"),
    [
        pytest.param({"grader": ModelConfig(model=JUDGE)}, JUDGE, id="one-model"),
        pytest.param({"grader": [ModelConfig(model=JUDGE)]}, JUDGE, id="list-of-one"),
        pytest.param(
            {"grader": [ModelConfig(model=JUDGE), ModelConfig(model=OTHER)]},
            f"{JUDGE}, {OTHER}",
            id="list-of-two",
        ),
        pytest.param({"grader": []}, None, id="empty-list"),
        pytest.param({"other": ModelConfig(model=OTHER)}, None, id="no-grader-role"),
        pytest.param(None, None, id="no-roles"),
    ],
)
def test_a_grader_role_of_any_shape_is_read(
    judged_log: Path,
    tmp_path: Path,
    roles: dict[str, ModelConfig | list[ModelConfig]] | None,
    expected: str | None,
) -> None:
    log = read_eval_log(str(judged_log))
    log.eval.model_roles = roles
    write_eval_log(log, str(tmp_path / "logs" / judged_log.name))

    [ref] = read_logs(tmp_path / "logs").logs
    assert ref.judge_model_role == expected

    report = write_report(tmp_path / "logs", figures=False)
    assert not report.table("usage").frame.empty
