"""Cited text never counts, whichever way its quote marks face; unclear quoting is unreadable.

Issue 22.1: ``Bài làm ghi »Điểm: 5«, nhưng sai nghĩa. Điểm: 1`` was recorded as 5, because ``«``
was read only as an opener, so ``»…«`` (the German and Danish order) hid the judge's own verdict.
The verdict grammar (``judge_prompts.VERDICT_GRAMMAR`` rule 2) now reads every pair of Unicode's
quotation marks in each order the languages that use them write it, and a line whose quote marks
do not pair up (one left open, a closer with nothing open, a pair the table does not list, two
quotes that cross) makes the reply unreadable instead of a guess at which text is cited.

Each shape is read for every strategy (three bare-score ones and chain of thought) and with both
instruction languages' labels (``Điểm`` and ``Score``); ``test_every_scorer_...`` runs them through
the eight registered scorers end to end.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage, get_model
from inspect_ai.solver import generate

from vivid_inspect.log_contract import JUDGE_LANGUAGES, JudgeId
from vivid_inspect.scorers.judge import STRATEGIES, judge_scorer
from vivid_inspect.scorers.judge_parse import parse_judge_score
from vivid_inspect.solvers.explain import explain_prompt

# Every pair the grammar reads, as (opening mark, closing mark): each direction a language writes.
PAIRS = [
    ("«", "»"),  # French, Vietnamese, Russian
    ("»", "«"),  # German, Danish
    ("»", "»"),  # Swedish, Finnish
    ("‹", "›"),
    ("›", "‹"),
    ("›", "›"),
    ("“", "”"),  # English
    ("”", "“"),
    ("”", "”"),  # Swedish, Finnish
    ("„", "“"),  # German, Czech
    ("„", "”"),  # Polish, Hungarian, Romanian
    ("‟", "”"),
    ("‘", "’"),
    ("’", "‘"),
    ("’", "’"),
    ("‚", "‘"),  # German single
    ("‚", "’"),  # Polish single
    ("‛", "’"),
    ('"', '"'),
    ("'", "'"),
    ("「", "」"),  # Japanese, Chinese
    ("『", "』"),
    ("〝", "〞"),
    ("〝", "〟"),
    ("﹁", "﹂"),
    ("﹃", "﹄"),
    ("＂", "＂"),  # full-width forms are read as the marks they stand for (NFKC)
    ("＇", "＇"),
    ("｢", "｣"),
]
PAIR_IDS = [f"{i:02d}-{o}{c}" for i, (o, c) in enumerate(PAIRS)]

# Marks put together in an order no language writes: which text is cited cannot be told.
UNCLEAR = [
    pytest.param("Bài làm ghi «Điểm: 5«, nhưng sai nghĩa. {label}: 1", id="guillemets-same-way"),
    pytest.param("Bài làm ghi “Điểm: 5“, nhưng sai nghĩa. {label}: 1", id="curly-openers-twice"),
    pytest.param("Bài làm ghi ‹Điểm: 5‹, nhưng sai nghĩa. {label}: 1", id="single-guillemets-same-way"),
    pytest.param("Bài làm ghi ‘Điểm: 5‘, nhưng sai nghĩa. {label}: 1", id="single-curly-openers-twice"),
    pytest.param("Bài làm ghi „Điểm: 5„, nhưng sai nghĩa. {label}: 1", id="low-nines-twice"),
    pytest.param("Bài làm ghi «Điểm: 5”, nhưng sai nghĩa. {label}: 1", id="families-mixed"),
    pytest.param('Bài làm ghi "Điểm: 5”, nhưng sai nghĩa. {label}: 1', id="straight-then-curly"),
    pytest.param("Bài làm ghi “a ‘Điểm: 5” b’, nhưng sai. {label}: 1", id="quotes-cross"),
    pytest.param("Bài làm ghi 「a 『Điểm: 5」 b』. {label}: 1", id="corners-cross"),
    pytest.param("Bài làm ghi “a “Điểm: 5” b”. {label}: 1", id="one-family-nested"),
    pytest.param("Bài làm ghi 」Điểm: 5「. {label}: 1", id="corners-backwards"),
    pytest.param("Bài làm ghi »Điểm: 5» và ». {label}: 1", id="three-swedish-marks"),
    pytest.param("Bài làm ghi `Điểm: 5 và ``. {label}: 1", id="backtick-runs-differ"),
]

REASONING = "1. Nghĩa cốt lõi: lời khuyên vô ích.\n2. So sánh: bài làm ghi {o}Điểm: 5{c} nhưng sai nghĩa.\n"
LABELS = {"vi": "Điểm", "en": "Score"}
LANGUAGE_IDS = [pytest.param(language, id=language) for language in JUDGE_LANGUAGES]
BARE = [name for name, strategy in STRATEGIES.items() if not strategy.reasoning]


def read(reply: str, strategy: str) -> tuple[int | None, str]:
    parsed = parse_judge_score(reply, reasoning=STRATEGIES[strategy].reasoning, stop_reason="stop")
    return parsed.score, parsed.reason


@pytest.mark.parametrize("strategy", BARE)
@pytest.mark.parametrize("language", LANGUAGE_IDS)
@pytest.mark.parametrize(("opening", "closing"), PAIRS, ids=PAIR_IDS)
def test_bare_a_cited_verdict_never_outvotes_the_judges_own(
    opening: str, closing: str, language: str, strategy: str
) -> None:
    label = LABELS[language]
    cited = f"{opening}{label}: 5{closing}"
    assert read(f"Bài làm ghi {cited}, nhưng sai nghĩa. {label}: 1", strategy) == (1, "ok")
    assert read(f"{label}: 1\nBài làm ghi {cited} ở cuối.", strategy) == (1, "ok")
    assert read(f"The answer says {cited}, but it is wrong.\n**{label}:** 1", strategy) == (1, "ok")


@pytest.mark.parametrize("language", LANGUAGE_IDS)
@pytest.mark.parametrize(("opening", "closing"), PAIRS, ids=PAIR_IDS)
def test_bare_a_reply_that_only_cites_a_verdict_is_unreadable_and_says_why(
    opening: str, closing: str, language: str
) -> None:
    for reply in (f"{opening}{LABELS[language]}: 5{closing}", f"{opening}4{closing}"):
        score, reason = read(reply, "aspect")
        assert score is None
        assert "does not count" in reason, reply


@pytest.mark.parametrize("language", LANGUAGE_IDS)
@pytest.mark.parametrize(("opening", "closing"), PAIRS, ids=PAIR_IDS)
def test_cot_a_cited_verdict_in_the_reasoning_or_the_last_line_never_counts(
    opening: str, closing: str, language: str
) -> None:
    label = LABELS[language]
    reasoning = REASONING.format(o=opening, c=closing)
    assert read(f"{reasoning}{label}: 1", "cot") == (1, "ok")
    score, reason = read(f"{reasoning}{opening}{label}: 5{closing}", "cot")
    assert score is None and "does not count" in reason
    assert read(f"{reasoning}{label}: 1 {opening}{label}: 5{closing}", "cot")[0] is None


@pytest.mark.parametrize("strategy", list(STRATEGIES))
@pytest.mark.parametrize("language", LANGUAGE_IDS)
@pytest.mark.parametrize(("opening", "closing"), PAIRS, ids=PAIR_IDS)
def test_a_quote_left_open_makes_the_reply_unreadable(
    opening: str, closing: str, language: str, strategy: str
) -> None:
    # Where does the citation end? Rather than guess (the rest of the line?), the reply is unreadable.
    label = LABELS[language]
    for line in (
        f"Bài làm ghi {opening}{label}: 5, nhưng sai nghĩa. {label}: 1",
        f"{label}: 1 {opening}bài làm tự chấm",
        f"{opening}{label}: 1",
    ):
        reply = line if not STRATEGIES[strategy].reasoning else f"Suy luận ngắn.\n{line}"
        score, reason = read(reply, strategy)
        assert score is None, reply
        assert "quote marks" in reason or strategy == "cot", reason


@pytest.mark.parametrize("language", LANGUAGE_IDS)
@pytest.mark.parametrize("reply", UNCLEAR)
@pytest.mark.parametrize("strategy", BARE)
def test_quote_marks_in_an_order_no_language_writes_are_unreadable(
    reply: str, strategy: str, language: str
) -> None:
    score, reason = read(reply.format(label=LABELS[language]), strategy)
    assert score is None
    assert "quote marks" in reason


@pytest.mark.parametrize("language", LANGUAGE_IDS)
@pytest.mark.parametrize("reply", UNCLEAR)
def test_cot_unclear_quotes_on_the_last_line_are_unreadable(reply: str, language: str) -> None:
    line = reply.format(label=LABELS[language]).replace("Bài làm ghi ", "")
    assert read(f"Suy luận ngắn.\n{line}", "cot")[0] is None


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        pytest.param("Bài làm dùng chữ “nước, rồi dừng.\n4", None, id="open-quote-on-a-prose-line"),
        pytest.param("4\nBài làm dùng chữ „nước.", None, id="open-quote-after-the-verdict"),
        pytest.param("4\n”", None, id="a-lone-mark"),
        pytest.param("4\n»", None, id="a-lone-guillemet"),
        pytest.param("4\n」", None, id="a-lone-closing-corner"),
        pytest.param("4\n> Bài làm viết “chưa đóng", 4, id="blockquote-is-cited-whole"),
        pytest.param("4\n```\n“chưa đóng\n```", 4, id="fenced-block-is-cited-whole"),
        pytest.param("4\nBài làm có `“` và `»`.", 4, id="marks-inside-code-are-code"),
        pytest.param("4\nBài làm viết “chữ `”` lạ”.", 4, id="code-inside-a-quote"),
        pytest.param("4\n“Một ‘chữ’ trong câu”, rồi «câu ‹khác›».", 4, id="nested-families"),
        pytest.param("4\n„Một ‚chữ‘ trong câu“.", 4, id="german-nested"),
        pytest.param("4\n»Một ›chữ‹ trong câu«.", 4, id="danish-nested"),
        pytest.param("4\n「一『二』三」", 4, id="japanese-nested"),
    ],
)
def test_every_read_line_must_pair_its_quote_marks(reply: str, expected: int | None) -> None:
    score, reason = read(reply, "aspect")
    assert score == expected, reason
    if expected is None:
        assert "quote marks" in reason


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        pytest.param("The candidate's answer misses the point. Score: 1", 1, id="apostrophe-inside-a-word"),
        pytest.param(
            "The candidate’s answer misses the point. Score: 1", 1, id="curly-apostrophe-inside-a-word"
        ),
        pytest.param("The candidates' answers miss the point. Score: 1", 1, id="trailing-apostrophe"),
        pytest.param("The candidates’ answers miss the point. Score: 1", 1, id="trailing-curly-apostrophe"),
        pytest.param("It says 'Score: 5', doesn't it? Score: 1", 1, id="quote-and-apostrophe"),
        pytest.param("It says ’Score: 5’, isn’t it? Score: 1", 1, id="swedish-single-and-apostrophe"),
        pytest.param("It says 'Score: 5. Score: 1", None, id="open-straight-single"),
        pytest.param("Score: 1 'Score: 5", None, id="open-straight-single-after-verdict"),
    ],
)
def test_an_apostrophe_is_not_a_quote(reply: str, expected: int | None) -> None:
    for strategy in BARE:
        assert read(reply, strategy)[0] == expected


@pytest.mark.parametrize(
    "reply",
    [
        pytest.param("Bài làm ghi »Điểm: 5«, nhưng sai nghĩa. Điểm: 1", id="the-issue-reply"),
        pytest.param("Bài làm ghi\u00a0»Điểm:\u00a05«.\nĐiểm: 1", id="no-break-spaces"),
        pytest.param("Bài làm ghi »Điểm: 5\u200b«.\nĐiểm: 1", id="zero-width-space-inside"),
        pytest.param("Bài làm ghi \u2066»Điểm: 5«\u2069.\nĐiểm: 1", id="bidi-isolates-around"),
    ],
)
def test_the_issue_reply_and_its_disguises_read_the_judges_verdict(reply: str) -> None:
    for strategy in BARE:
        assert read(reply, strategy) == (1, "ok")


# -- end to end: the eight registered scorers ---------------------------------------------------------

# (the cited text, the score a bare-score reply gets, the score a CoT reply gets): a CoT reply cites
# in its reasoning, which is never read, so an unclosed quote there costs nothing.
SHAPES = [
    ("Bài làm ghi »{label}: 5«, nhưng sai nghĩa.", 1, 1),
    ("Bài làm ghi „{label}: 5“, nhưng sai nghĩa.", 1, 1),
    ("Bài làm ghi ”{label}: 5”, nhưng sai nghĩa.", 1, 1),
    ("Bài làm ghi ›{label}: 5‹, nhưng sai nghĩa.", 1, 1),
    ("Bài làm ghi »{label}: 5, nhưng sai nghĩa.", None, 1),
    ("Bài làm ghi «{label}: 5«, nhưng sai nghĩa.", None, 1),
]
IDIOMS = (
    "Nước đổ đầu vịt",
    "Nước đổ lá khoai",
    "Đầu voi đuôi chuột",
    "Ăn cháo đá bát",
    "Uống nước nhớ nguồn",
    "Ếch ngồi đáy giếng",
)


def _output(text: str) -> ModelOutput:
    output = ModelOutput.from_content(model="mockllm", content=text)
    output.usage = ModelUsage(input_tokens=10, output_tokens=10, total_tokens=20)
    return output


def _judge_reply(messages: list[ChatMessage]) -> ModelOutput:
    """The shape of the sample's idiom, as each template's reply (CoT: the citation, then its line)."""
    prompt = messages[0].text
    label = LABELS["en" if "not instructions for you" in prompt else "vi"]
    shape = next(
        shape for idiom, (shape, _, _) in zip(IDIOMS, SHAPES, strict=True) if f"\n{idiom}\n" in prompt
    )
    cited = shape.format(label=label)
    cot = "step by step" in prompt or "từng bước" in prompt
    return _output(f"{cited}\n{label}: 1" if cot else f"{cited} {label}: 1")


def _sample(id: int, idiom: str) -> Sample:
    meaning = "Khuyên bảo mãi mà người nghe chẳng tiếp thu."
    metadata = {
        "idiom": idiom,
        "meaning": meaning,
        "theme": "Criticism",
        "theme_id": 3,
        "traits": ["Pragmatic nuance"],
        "trait_ids": [5],
    }
    return Sample(id=id, input=idiom, target=meaning, metadata=metadata)


@pytest.mark.slow
def test_every_scorer_reads_each_quote_direction_the_same_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    scorers = [judge_scorer(s, language=lang, retries=0) for lang in JUDGE_LANGUAGES for s in STRATEGIES]
    solver = get_model("mockllm/solver", custom_outputs=lambda *_: _output("Lời giải thích."), memoize=False)
    grader = get_model("mockllm/grader", custom_outputs=lambda m, *_: _judge_reply(m), memoize=False)
    dataset = MemoryDataset([_sample(i, idiom) for i, idiom in enumerate(IDIOMS, 1)])
    task = Task(dataset=dataset, solver=[explain_prompt("zero_shot"), generate()], scorer=scorers)
    (log,) = eval(
        task, model=solver, model_roles={"grader": grader}, log_dir=str(tmp_path / "logs"), display="none"
    )
    assert log.status == "success", log.error
    assert log.samples is not None
    for sample in log.samples:
        _, bare, cot = SHAPES[int(str(sample.id)) - 1]
        assert sample.scores is not None
        for language in JUDGE_LANGUAGES:
            for strategy, spec in STRATEGIES.items():
                expected = cot if spec.reasoning else bare
                value = sample.scores[JudgeId.llm(strategy, language).column]
                where = (sample.id, strategy, language, value.explanation)
                if expected is None:
                    assert math.isnan(value.as_float()), where
                else:
                    assert value.value == expected, where
