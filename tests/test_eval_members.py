"""The report's inflation cap relies on Inspect's `.eval` layout; these pin it on real logs.

The report reads logs with Inspect's public readers, which inflate without a cap, so it first
inflates within its cap the members those readers will read:
:func:`~vivid_inspect.inspect_private.eval_header_members` and
:func:`~vivid_inspect.inspect_private.eval_summary_members` name them. If an Inspect upgrade
moved the header or the summaries elsewhere, the cap would check the wrong members: these fail.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import read_eval_log, read_eval_log_sample_summaries
from inspect_ai.model import get_model

from vivid_inspect.inspect_private import eval_header_members, eval_summary_members
from vivid_inspect.lab.report.reading.logs import read_summaries
from vivid_inspect.tasks import explain


@pytest.fixture(scope="module")
def finished_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("INSPECT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        (log,) = eval(
            explain(judge="lexical", data="sample"),
            model=get_model("vivid/oracle", data="sample"),
            sample_id=[1, 2, 4],
            log_dir=str(tmp_path_factory.mktemp("logs")),
            display="none",
        )
    assert log.status == "success"
    return Path(log.location)


def _names(path: Path) -> list[str]:
    with zipfile.ZipFile(path) as archive:
        return archive.namelist()


def test_the_header_members_hold_what_inspects_header_reader_returns(finished_log: Path) -> None:
    members = eval_header_members(_names(finished_log))
    assert members[0] == "header.json"
    with zipfile.ZipFile(finished_log) as archive:
        header = json.loads(archive.read(members[0]))
    public = read_eval_log(str(finished_log), header_only=True)
    assert header["eval"]["eval_id"] == public.eval.eval_id
    assert header["eval"]["task_args"] == public.eval.task_args


def test_the_summary_members_hold_what_inspects_public_reader_returns(finished_log: Path) -> None:
    members = eval_summary_members(_names(finished_log))
    assert members == ["summaries.json"]
    with zipfile.ZipFile(finished_log) as archive:
        raw = [row for name in members for row in json.loads(archive.read(name))]
    public = read_eval_log_sample_summaries(str(finished_log))
    assert raw == [s.model_dump(mode="json", exclude_none=True) for s in public]
    assert read_summaries(finished_log) == raw


@pytest.mark.parametrize(
    ("names", "header", "summaries"),
    [
        pytest.param(
            [
                "header.json",
                "summaries.json",
                "reductions.json",
                "samples/1_epoch_1.json",
                "_journal/start.json",
            ],
            ["header.json", "reductions.json"],
            ["summaries.json"],
            id="finished",
        ),
        pytest.param(
            [
                "_journal/start.json",
                "_journal/summaries/10.json",
                "_journal/summaries/2.json",
                "samples/1_epoch_1.json",
            ],
            ["_journal/start.json"],
            ["_journal/summaries/2.json", "_journal/summaries/10.json"],
            id="running-flushes-in-number-order",
        ),
        pytest.param(["_journal/start.json"], ["_journal/start.json"], [], id="running-nothing-flushed"),
    ],
)
def test_members_of_finished_and_running_logs(
    names: list[str], header: list[str], summaries: list[str]
) -> None:
    assert eval_header_members(names) == header
    assert eval_summary_members(names) == summaries
