"""Explanations cut at the token limit are counted per cell and the report names their share (issue 29.4).

The generate step marks a reply that stopped at ``max_tokens`` or ``model_length`` in the sample's
metadata; the report reads it from the sample summaries into a ``truncated`` count beside
``unscored`` and ``errors`` (Tables 3 and 4, their cell CSVs, the counts table).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
from inspect_ai import eval
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, ModelUsage, StopReason, get_model
from inspect_ai.tool import ToolChoice, ToolInfo

from vivid_inspect.data import load_vivid
from vivid_inspect.lab.report.build import Report, write_report
from vivid_inspect.solvers.bounded_generate import TRUNCATED_KEY
from vivid_inspect.tasks import explain

ITEMS = 8
# the first two replies stop at max_tokens, the third at the model's context, the rest by themselves
STOPS: list[StopReason] = ["max_tokens", "max_tokens", "model_length"]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Report]:
    root = tmp_path_factory.mktemp("truncated")
    calls = [0]

    def reply(
        messages: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice, config: GenerateConfig
    ) -> ModelOutput:
        calls[0] += 1
        stop = STOPS[calls[0] - 1] if calls[0] <= len(STOPS) else "stop"
        output = ModelOutput.from_content(
            model="mockllm/model", content="Câu này khuyên người ta", stop_reason=stop
        )
        output.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        return output

    ids = [int(str(sample.id)) for sample in load_vivid("sample").dataset][:ITEMS]
    (log,) = eval(
        explain(data="sample", judge="lexical"),
        model=get_model("mockllm/model", custom_outputs=reply),
        sample_id=ids,
        log_dir=str(root / "logs"),
        display="none",
        max_connections=1,
    )
    assert log.status == "success", log.error
    marked = Counter((sample.metadata or {}).get(TRUNCATED_KEY) for sample in log.samples or [])
    assert marked == {"max_tokens": 2, "model_length": 1, None: ITEMS - 3}
    report = write_report(root / "logs", out_dir=root / "report", formats=("md", "csv"), figures=False)
    return root / "report", report


@pytest.mark.slow
def test_tables_3_and_4_count_the_truncated_explanations_and_name_their_share(
    folder: tuple[Path, Report],
) -> None:
    out, report = folder
    for name in ("table3_themes", "table4_traits"):
        table = next(t for t in report.tables if t.name == name)
        assert table.frame["truncated"].tolist() == [3]
        assert any(
            note.startswith(f"truncated: 3 of {ITEMS} judged explanations (38 %) were cut at the token limit")
            for note in table.notes
        ), table.notes
    cells = pd.read_csv(out / "table3_themes.csv")
    average = cells[cells["cell"] == "Average"]
    assert average["truncated"].tolist() == [3]
    # each theme counts its own: the cells partition the items, so do their truncated counts
    assert cells[cells["cell"] != "Average"]["truncated"].sum() == 3


@pytest.mark.slow
def test_the_counts_table_has_the_truncated_column(folder: tuple[Path, Report]) -> None:
    _, report = folder
    counts = next(t for t in report.tables if t.name == "counts").frame
    assert counts["truncated"].tolist() == [3] and counts["unscored"].tolist() == [0]
