"""Each item's idiom and meaning are stored once per sample, and every reader finds them in either shape.

The idiom is the sample's input; the meaning is the target of the explanation task and metadata
``meaning`` where the target is a label (topic, traits). Logs written before this held both texts in
the metadata too (the "older" shape): the judge, the lexical scorer, the prompt solvers and the
annotation sheet must read the same texts from both shapes, and from a dataset that keeps the
idiom in the metadata because its input is something else.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task, eval, task_with
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import ChatMessageSystem, ChatMessageUser

from tests.scripted import scripted_model
from vivid_inspect.data import VividItem, load_items
from vivid_inspect.lab.humans.annotate.sheet_export import export_sheet
from vivid_inspect.log_contract import sample_idiom, sample_meaning
from vivid_inspect.scorers.judge import judge_scorer
from vivid_inspect.scorers.lexical import lexical
from vivid_inspect.solvers.markers import last_item
from vivid_inspect.tasks import explain, topic, traits
from vivid_inspect.text import nfc

ITEMS = 4
EXPLANATION = "Khuyên người ta nhớ ơn người đã giúp mình và sống có trước có sau."
_ITEMS = {item.id: item for item in load_items("sample")[1]}


def _item(sample: Any) -> VividItem:
    return _ITEMS[int(str(sample.id))]


def _occurrences(sample: Sample, text: str) -> int:
    stored = [sample.input, sample.target, *(sample.metadata or {}).values()]
    return sum(1 for value in stored if value == text)


@pytest.mark.parametrize(
    ("build", "meaning_in"),
    [
        (lambda: explain(data="sample", judge="none"), "target"),
        (lambda: explain(prompt="few_shot", data="sample", judge="lexical"), "target"),
        (lambda: topic(data="sample"), "metadata"),
        (lambda: traits(data="sample"), "metadata"),
    ],
    ids=["explain", "explain-few-shot", "topic", "traits"],
)
def test_every_task_stores_the_idiom_and_the_meaning_once(build: Any, meaning_in: str) -> None:
    samples = list(build().dataset)
    assert samples
    for sample in samples:
        item = _item(sample)
        assert sample.input == item.idiom and _occurrences(sample, item.idiom) == 1
        assert _occurrences(sample, item.meaning) == 1
        if meaning_in == "target":
            assert sample.target == item.meaning and "meaning" not in (sample.metadata or {})
        else:
            assert (sample.metadata or {})["meaning"] == item.meaning != sample.target
        assert "idiom" not in (sample.metadata or {})
        assert sample_idiom(sample.input, sample.metadata) == item.idiom
        assert sample_meaning(sample.target, sample.metadata) == item.meaning


def test_the_written_log_holds_each_text_once() -> None:
    task = explain(data="sample", judge="lexical")
    (log,) = eval(task, model=scripted_model(lambda p: EXPLANATION), sample_id=list(range(1, ITEMS + 1)))
    assert log.status == "success", log.error
    samples = read_eval_log(log.location).samples or []
    assert len(samples) == ITEMS
    for sample in samples:
        item = _item(sample)
        assert sample.input == item.idiom and sample.target == item.meaning
        assert not {"idiom", "meaning"} & set(sample.metadata)
        assert set(sample.metadata) == {"theme", "theme_id", "traits", "trait_ids"}


# ---------------------------------------------------------------------------- both shapes


def _dataset(shape: str) -> MemoryDataset:
    """The first items as the explain task loads them now, or as older logs held them."""
    samples = [s for s in explain(data="sample", judge="none").dataset][:ITEMS]
    if shape == "current":
        return MemoryDataset(samples)
    if shape == "older":  # the texts repeated in the metadata
        return MemoryDataset(
            [
                s.model_copy(
                    update={"metadata": {**(s.metadata or {}), "idiom": s.input, "meaning": s.target}}
                )
                for s in samples
            ]
        )
    # A dataset whose input is a whole prompt: the idiom and meaning live only in the metadata.
    return MemoryDataset(
        [
            Sample(
                id=s.id,
                input=f"Câu hỏi về «{s.input}»",
                target="(xem metadata)",
                metadata={**(s.metadata or {}), "idiom": s.input, "meaning": s.target},
            )
            for s in samples
        ]
    )


SHAPES = ("current", "older", "prompt-input")


def _judged_log(shape: str, prompts: list[str], tmp_path: Path) -> EvalLog:
    task = task_with(
        explain(data="sample", judge="none"),
        dataset=_dataset(shape),
        scorer=[judge_scorer("aspect", cache=False), lexical()],
    )
    (log,) = eval(
        task,
        model=scripted_model(lambda p: EXPLANATION, prompts),
        model_roles={"grader": scripted_model(lambda p: "4", prompts)},
        log_dir=str(tmp_path / shape),
    )
    assert log.status == "success", log.error
    return log


@pytest.mark.slow
@pytest.mark.parametrize("shape", SHAPES)
def test_the_solver_and_both_scorers_read_the_item_from_every_shape(shape: str, tmp_path: Path) -> None:
    prompts: list[str] = []
    log = _judged_log(shape, prompts, tmp_path)
    samples = read_eval_log(log.location).samples or []
    assert len(samples) == ITEMS
    generation_prompts = [p for p in prompts if last_item(p)]
    assert sorted(nfc(found[0]) for p in generation_prompts if (found := last_item(p))) == sorted(
        nfc(_item(s).idiom) for s in samples
    )
    judge_prompts = [p for p in prompts if not last_item(p)]
    assert len(judge_prompts) == ITEMS
    for sample in samples:
        item = _item(sample)
        # The judge was shown this item's idiom and reference, whatever the shape.
        assert any(item.idiom in p and item.meaning in p for p in judge_prompts)
        assert sample.scores is not None and sample.scores["judge_aspect"].value == 4
        chrf = sample.scores["lexical"].metadata or {}
        assert not math.isnan(float(chrf["chrf"]))
    lexical_values = {s.id: s.scores["lexical"].metadata["chrf"] for s in samples if s.scores}
    current = read_eval_log(_judged_log("current", [], tmp_path / "again").location).samples or []
    assert lexical_values == {s.id: s.scores["lexical"].metadata["chrf"] for s in current if s.scores}


@pytest.mark.parametrize("shape", SHAPES)
def test_the_annotation_sheet_reads_the_item_from_every_shape(shape: str, tmp_path: Path) -> None:
    log = _judged_log(shape, [], tmp_path)
    sheet = export_sheet(log.location, tmp_path / "sheet.csv", n=ITEMS)
    assert len(sheet) == ITEMS
    for row in sheet.to_dict("records"):
        item = _ITEMS[int(row["id"])]
        assert row["idiom"] == nfc(item.idiom)
        assert row["reference_meaning"] == nfc(item.meaning).strip()


def test_sample_idiom_and_meaning_rules() -> None:
    # Metadata wins where present (older logs, datasets whose input is a prompt); else input/target.
    assert sample_idiom("Nước đổ đầu vịt", None) == "Nước đổ đầu vịt"
    assert sample_idiom("prompt", {"idiom": "Nước đổ đầu vịt"}) == "Nước đổ đầu vịt"
    assert sample_meaning("Nói mãi chẳng vào.", {}) == "Nói mãi chẳng vào."
    assert sample_meaning("B", {"meaning": "Nói mãi chẳng vào."}) == "Nói mãi chẳng vào."
    assert sample_meaning(["Nói mãi ", "chẳng vào."], None) == "Nói mãi chẳng vào."


@pytest.mark.parametrize(
    "damaged",
    ["", "   ", "\n\t", None, 5, ["Nước đổ đầu vịt"], {"text": "Nước đổ đầu vịt"}, True],
    ids=["empty", "spaces", "newline-tab", "none", "int", "list", "dict", "bool"],
)
def test_a_blank_or_non_text_stored_copy_gives_way_to_the_input(damaged: Any) -> None:
    # A damaged or hostile log's metadata must not replace (or blank out) the canonical copy.
    metadata = {"idiom": damaged, "meaning": damaged, "theme": "Love"}
    assert sample_idiom("Nước đổ đầu vịt", metadata) == "Nước đổ đầu vịt"
    assert sample_meaning("Nói mãi chẳng vào.", metadata) == "Nói mãi chẳng vào."


def test_a_chat_input_gives_its_last_user_message() -> None:
    messages = [
        ChatMessageSystem(content="Bạn là trợ lý."),
        ChatMessageUser(content="Câu cũ"),
        ChatMessageUser(content="Nước đổ đầu vịt"),
    ]
    assert sample_idiom(messages, {}) == "Nước đổ đầu vịt"
    assert sample_idiom([ChatMessageSystem(content="Bạn là trợ lý.")], {}) == ""


@pytest.mark.slow
@pytest.mark.parametrize(
    ("sample", "refused"),
    [
        (Sample(id=1, input="", target="Nói mãi chẳng vào.", metadata={"theme": "Love"}), True),
        (Sample(id=1, input="   ", target="Nói mãi chẳng vào.", metadata={"theme": "Love"}), True),
        # Some other task's sample (an `inspect score` on a foreign log): its input is no idiom.
        (Sample(id=1, input="What is 2 + 2?", target="4"), True),
        (Sample(id=1, input="What is 2 + 2?", target="4", metadata={"idiom": "  "}), True),
        (
            Sample(id=1, input="Nước đổ đầu vịt", target="Nói mãi chẳng vào.", metadata={"theme": "Love"}),
            False,
        ),
        (
            Sample(
                id=1,
                input="prompt",
                target="Nói mãi chẳng vào.",
                metadata={"idiom": "Nước đổ đầu vịt", "theme": "Love"},
            ),
            False,
        ),
    ],
    ids=["empty-input", "blank-input", "foreign", "foreign-blank-idiom", "vivid", "idiom-metadata"],
)
def test_the_judge_refuses_a_sample_without_a_vivid_idiom(
    sample: Sample, refused: bool, tmp_path: Path
) -> None:
    prompts: list[str] = []
    task = Task(dataset=MemoryDataset([sample]), solver=[], scorer=judge_scorer("aspect", cache=False))
    (log,) = eval(
        task,
        model=scripted_model(lambda p: EXPLANATION),
        model_roles={"grader": scripted_model(lambda p: "4", prompts)},
        log_dir=str(tmp_path),
    )
    samples = read_eval_log(log.location).samples or []
    error = (
        log.error.message if log.error else (samples[0].error.message if samples and samples[0].error else "")
    )
    if refused:
        assert "sample 1 has no VIVID idiom" in error and not prompts
    else:
        assert not error, error
        # No explanation was generated (no solver), so the judge scores 0 without a call.
        assert samples[0].scores is not None and samples[0].scores["judge_aspect"].value == 0


@pytest.mark.parametrize("shape", SHAPES)
def test_the_classification_solver_reads_the_idiom_from_every_shape(shape: str, tmp_path: Path) -> None:
    task = topic(data="sample")
    chosen = [s for s in task.dataset][:ITEMS]
    if shape == "older":
        chosen = [s.model_copy(update={"metadata": {**(s.metadata or {}), "idiom": s.input}}) for s in chosen]
    elif shape == "prompt-input":
        chosen = [
            s.model_copy(
                update={
                    "input": f"Câu hỏi về «{s.input}»",
                    "metadata": {**(s.metadata or {}), "idiom": s.input},
                }
            )
            for s in chosen
        ]
    prompts: list[str] = []
    (log,) = eval(
        task_with(task, dataset=MemoryDataset(chosen)),
        model=scripted_model(lambda p: "1", prompts),
        log_dir=str(tmp_path),
    )
    assert log.status == "success", log.error
    found = sorted(nfc(item[0]) for p in prompts if (item := last_item(p)))
    assert found == sorted(nfc(_item(s).idiom) for s in chosen)
