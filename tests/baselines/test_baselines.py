"""The offline reference models answer through the real task prompts and never guess."""

from __future__ import annotations

import asyncio
import unicodedata

import pytest
from inspect_ai import eval
from inspect_ai.model import ChatMessageUser, get_model

from vivid_inspect.baselines.answers import BaselineAnswers, literal_paraphrase
from vivid_inspect.baselines.model import BaselineModelError
from vivid_inspect.data import load_items
from vivid_inspect.tasks import topic, traits


@pytest.mark.slow
@pytest.mark.parametrize("task_fn", [topic, traits], ids=["topic", "traits"])
@pytest.mark.parametrize("shots", [0, 3])
def test_oracle_is_perfect_and_literal_is_the_majority_floor(task_fn, shots: int) -> None:
    logs = eval(
        [task_fn(shots=shots, data="sample")],
        model=[get_model("vivid/oracle", data="sample"), get_model("vivid/literal", data="sample")],
        display="none",
    )
    by_model = {log.eval.model: log for log in logs}
    oracle = by_model["vivid/oracle"].results.scores[0].metrics  # type: ignore[union-attr]
    literal = by_model["vivid/literal"].results.scores[0].metrics  # type: ignore[union-attr]
    assert oracle["accuracy"].value == 1.0
    _, items = load_items("sample")
    floor = BaselineAnswers("literal", items)
    if task_fn is topic:
        expected = sum(item.theme_id == floor.majority_theme for item in items) / len(items)
    else:
        expected = sum(item.trait_ids == floor.majority_traits for item in items) / len(items)
    assert literal["accuracy"].value == pytest.approx(expected)
    assert literal["accuracy"].value < 0.5


def test_majority_labels_of_the_sample() -> None:
    _, items = load_items("sample")
    floor = BaselineAnswers("literal", items)
    # Criticism and Life Lessons tie at 9 items each: the lower code wins.
    assert floor.majority_theme == 3
    assert floor.majority_traits == ()


def test_literal_paraphrase_keeps_the_words() -> None:
    text = literal_paraphrase("Nước đổ đầu vịt")
    assert "nước đổ đầu vịt" in text


def _ask(model_name: str, prompt: str) -> str:
    model = get_model(model_name, data="sample")
    return asyncio.run(model.generate([ChatMessageUser(content=prompt)])).completion


def test_unknown_item_fails_loudly() -> None:
    with pytest.raises(BaselineModelError, match="not in vivid_inspect sample"):
        _ask("vivid/oracle", "Thành ngữ/tục ngữ: «Câu không có thật»\nChủ đề:")


def test_prompt_without_item_line_fails_loudly() -> None:
    with pytest.raises(BaselineModelError, match="no VIVID item line"):
        _ask("vivid/literal", "Hãy chấm điểm câu trả lời sau.")


def test_unknown_baseline_name_is_rejected() -> None:
    with pytest.raises(ValueError, match="vivid/oracle, vivid/literal"):
        get_model("vivid/genius", data="sample")


# -- set-up errors: one plain message before any task is built (inspect eval prints it alone) ---


@pytest.mark.parametrize(
    ("name", "hint"),
    [
        pytest.param("oracel", "; did you mean vivid/oracle?", id="swapped-letters"),
        pytest.param("literall", "; did you mean vivid/literal?", id="doubled-letter"),
        pytest.param("chrff", "; did you mean vivid/chrf?", id="grader"),
        pytest.param("Oracle", "; did you mean vivid/oracle?", id="capital"),
        pytest.param("gpt-4o", ".", id="nothing-close"),
    ],
)
def test_a_misspelt_vivid_model_names_the_closest_and_where_each_goes(name: str, hint: str) -> None:
    from vivid_inspect.baselines.model import BaselineSetupError
    from vivid_inspect.inspect_private import PrerequisiteError

    with pytest.raises(BaselineSetupError) as caught:
        get_model(f"vivid/{name}", data="sample", memoize=False)
    assert isinstance(caught.value, PrerequisiteError) and isinstance(caught.value, ValueError)
    assert str(caught.value) == (
        f"unknown vivid model 'vivid/{name}'{hint} The vivid models: vivid/oracle, vivid/literal answer the "
        "tasks (with -M data=...); vivid/chrf grades (--model-role grader=vivid/chrf)."
    )


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        pytest.param(
            {"dat": "sample"}, "got ['dat']; did you mean data? (e.g. -M data=sample)", id="misspelt"
        ),
        pytest.param({"colour": "blue"}, "got ['colour'] (e.g. -M data=sample)", id="unknown"),
    ],
)
def test_an_unknown_model_argument_is_named(args: dict[str, str], expected: str) -> None:
    from vivid_inspect.baselines.model import BaselineSetupError

    with pytest.raises(BaselineSetupError, match="takes only the model argument 'data'") as caught:
        get_model("vivid/literal", memoize=False, **args)
    assert str(caught.value).endswith(expected)


@pytest.mark.parametrize(
    ("data", "env", "expected"),
    [
        pytest.param(
            None,
            None,
            "vivid/oracle: no -M data was given, so it answers from hf (the pinned",
            id="default-hf",
        ),
        pytest.param(
            None,
            "/no/such.csv",
            "vivid/oracle: no -M data was given, so it answers from $VIVID_DATA (/no/such.csv), which cannot be read",
            id="from-the-environment",
        ),
        pytest.param(
            "/no/such.csv",
            None,
            "vivid/oracle: -M data=/no/such.csv cannot be read: /no/such.csv: no such data file",
            id="given",
        ),
    ],
)
def test_data_a_baseline_cannot_read_names_the_model_argument_not_the_task_parameter(
    data: str | None, env: str | None, expected: str, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vivid_inspect.baselines.model import BaselineDataError
    from vivid_inspect.data import VividDataError

    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # no network: the release cannot be fetched
    monkeypatch.setenv("VIVID_CACHE_DIR", str(tmp_path))
    if env:
        monkeypatch.setenv("VIVID_DATA", env)
    with pytest.raises(BaselineDataError) as caught:
        get_model("vivid/oracle", data=data, memoize=False)
    message = str(caught.value)
    assert isinstance(caught.value, VividDataError)
    assert message.startswith(expected), message
    assert message.endswith("-M data=sample beside -T data=sample, or one CSV path or URL for both.")
    assert "Choose the data with the task parameter" not in message  # the task's fix, not the model's


def test_a_baseline_knows_which_items_it_lacks() -> None:
    from vivid_inspect.baselines.model import BaselineModel

    api = get_model("vivid/oracle", data="sample", memoize=False).api
    grader = get_model("vivid/chrf", memoize=False).api
    assert isinstance(api, BaselineModel) and isinstance(grader, BaselineModel)
    _, items = load_items("sample")
    nfd = unicodedata.normalize("NFD", "Ăn quả nhớ kẻ trồng cây")  # the sample holds it in NFC
    assert nfd != items[0].idiom
    assert api.missing([items[0].idiom, nfd, "Câu không có thật"]) == ["Câu không có thật"]
    assert not api.is_grader and grader.is_grader and grader.missing(["Câu không có thật"]) == []
