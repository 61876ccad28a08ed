"""The topic and traits tasks end to end, with a scripted model and exact metric values."""

from __future__ import annotations

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog

from tests.scripted import scripted_model
from vivid_inspect.solvers.classify_prompts import DEMONSTRATIONS
from vivid_inspect.solvers.markers import last_item
from vivid_inspect.tasks import topic, traits


def _run(task_obj, answers: dict[str, str]) -> tuple[EvalLog, dict[str, float]]:
    def answer(prompt: str) -> str:
        found = last_item(prompt)
        assert found is not None, "every classification prompt ends with an item line"
        return answers[found[0]]

    ids = [item_id for item_id in range(1, 48) if task_obj.dataset[item_id - 1].input in answers]
    [log] = eval(task_obj, model=scripted_model(answer), sample_id=ids, display="none")
    assert log.status == "success", log.error
    assert log.results is not None
    [score] = log.results.scores
    return log, {name: metric.value for name, metric in score.metrics.items()}


def test_topic_strict_lenient_and_per_theme() -> None:
    log, metrics = _run(
        topic(data="sample"),
        {
            "Ăn quả nhớ kẻ trồng cây": "2",  # right
            "Đầu voi đuôi chuột": "3.",  # decorated: strict wrong, lenient right
            "Nước đổ đầu vịt": "5",  # wrong
            "Thương nhau củ ấu cũng tròn": "<think>có thể là 3</think>\n1",  # right after the reasoning
            "Máu chảy ruột mềm": "không biết",  # malformed
        },
    )
    assert log.samples is not None and len(log.samples) == 5
    assert metrics["accuracy"] == pytest.approx(0.4)
    assert metrics["lenient_accuracy"] == pytest.approx(0.6)
    assert metrics["theme/Criticism"] == 0.0
    assert metrics["theme/Virtues"] == 1.0
    assert metrics["theme/Love"] == 1.0
    assert metrics["theme/Social Relationships"] == 0.0
    assert log.eval.metadata is not None and log.eval.metadata["left_out"] == 0


def test_traits_strict_lenient_prf_jaccard_hamming() -> None:
    _, metrics = _run(
        traits(data="sample"),
        {
            "Ăn quả nhớ kẻ trồng cây": "",  # gold: none -> right
            "Khoai đất lạ, mạ đất quen": "1,3,4",  # right
            "Khẩu Phật tâm xà": "5, 2",  # gold 2,5: strict wrong, lenient right
            "Bách niên giai lão": "2,3",  # gold 2: one false positive
            "Da mồi tóc sương": "Không có",  # gold 1: unreadable, a false negative with no set credit
        },
    )
    assert metrics["accuracy"] == pytest.approx(0.4)
    assert metrics["lenient_accuracy"] == pytest.approx(0.6)
    assert metrics["micro_precision"] == pytest.approx(6 / 7)
    assert metrics["micro_recall"] == pytest.approx(6 / 7)
    assert metrics["micro_f1"] == pytest.approx(6 / 7)
    assert metrics["macro_precision"] == pytest.approx(0.9)
    assert metrics["macro_recall"] == pytest.approx(0.9)
    assert metrics["macro_f1"] == pytest.approx((2 / 3 + 1 + 2 / 3 + 1 + 1) / 5)
    assert metrics["f1/Literal"] == pytest.approx(2 / 3)
    assert metrics["f1/Uncommon vocabulary"] == pytest.approx(2 / 3)
    assert metrics["jaccard"] == pytest.approx(0.7)
    assert metrics["hamming_accuracy"] == pytest.approx(19 / 25)
    assert metrics["unreadable"] == pytest.approx(0.2)


def _scores(log: EvalLog) -> dict[str, dict[str, object]]:
    assert log.samples is not None
    return {
        str(sample.input): {"value": score.value, **(score.metadata or {})}
        for sample in log.samples
        for score in (sample.scores or {}).values()
    }


# gold traits: Ăn quả nhớ kẻ trồng cây, Uống nước nhớ nguồn, Lá lành đùm lá rách, Giấy rách phải
# giữ lấy lề, Máu chảy ruột mềm: none; Con dại cái mang: 3; Khẩu Phật tâm xà: 2,5; Cẩn tắc vô áy náy: 2,3.
LENIENT_CASES = {
    "Ăn quả nhớ kẻ trồng cây": ("Không có", False, "no_code"),
    "Uống nước nhớ nguồn": ("0", False, "out_of_range"),
    "Lá lành đùm lá rách": ("Câu này không mang đặc điểm nào.", False, "no_code"),
    "Giấy rách phải giữ lấy lề": ("", True, "empty"),
    "Máu chảy ruột mềm": ("``` ```", True, "empty"),
    "Cẩn tắc vô áy náy": ("2,3,6", False, "out_of_range"),
    "Khẩu Phật tâm xà": ("5, 2", True, "ok"),
    "Con dại cái mang": ("Đặc điểm: 3", True, "ok"),
}


@pytest.mark.slow
def test_traits_lenient_credit_needs_valid_codes_and_failures_are_recorded() -> None:
    log, metrics = _run(
        traits(data="sample"), {idiom: answer for idiom, (answer, _, _) in LENIENT_CASES.items()}
    )
    scores = _scores(log)

    for idiom, (_, lenient, status) in LENIENT_CASES.items():
        assert (idiom, scores[idiom]["lenient_correct"], scores[idiom]["parse_status"]) == (
            idiom,
            lenient,
            status,
        )
    assert scores["Uống nước nhớ nguồn"]["predicted_ids"] is None
    assert scores["Khẩu Phật tâm xà"]["predicted_ids"] == [2, 5]
    # Strict accuracy is unchanged: only the exact empty answer is right.
    assert metrics["accuracy"] == pytest.approx(1 / 8)
    assert metrics["lenient_accuracy"] == pytest.approx(4 / 8)
    assert metrics["unreadable"] == pytest.approx(4 / 8)
    # An unreadable answer earns nothing in the set metrics: its Jaccard and Hamming accuracy are 0.
    assert metrics["jaccard"] == pytest.approx(4 / 8)
    assert metrics["hamming_accuracy"] == pytest.approx(4 / 8)


def test_demonstration_in_data_is_left_out_and_recorded(tmp_path) -> None:
    demo = DEMONSTRATIONS[0]
    header = "Idiom_Proverb,Meaning," + ",".join(f"Linguistic_Complexity_Taxonomy_{i}" for i in range(1, 6))
    rows = [
        f"{header},Semantic_Theme",
        f'{demo.idiom},"Nghĩa mẫu.",0.0,0.0,0.0,0.0,1.0,3.0',
        'Nước chảy đá mòn,"Bền bỉ thì nên việc.",0.0,0.0,0.0,0.0,0.0,6.0',
    ]
    path = tmp_path / "with_demo.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")

    shown = topic(shots=1, data=str(path))
    assert [sample.id for sample in shown.dataset] == [2]
    assert shown.metadata["left_out"] == 1 and shown.metadata["left_out_ids"] == [1]

    not_shown = topic(shots=0, data=str(path))
    assert [sample.id for sample in not_shown.dataset] == [1, 2]
    assert not_shown.metadata["left_out"] == 0


@pytest.mark.parametrize("shots", [-1, 6])
def test_shots_out_of_range_is_rejected(shots: int) -> None:
    with pytest.raises(ValueError, match="shots must be between 0 and 5"):
        topic(shots=shots, data="sample")


def test_default_generation_is_greedy_and_short() -> None:
    task_obj = traits(data="sample")
    assert task_obj.config.temperature == 0.0
    assert task_obj.config.max_tokens is not None and task_obj.config.max_tokens <= 64
