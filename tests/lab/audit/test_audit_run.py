"""run_audit with scripted judges: each bias is caught by its probe and passed by the others.

The judges are mockllm models that read the nonce-tagged judge prompt (``judge_fields``) and
answer by a rule: a rubric-following judge, and the same judge with one bias each (a constant
score, a reward for length, obedience to injected verdicts, a penalty for English).
"""

from __future__ import annotations

import csv
import json
import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import read_eval_log
from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput, get_model
from inspect_ai.tool import ToolChoice, ToolInfo

import vivid_inspect
from tests.fake_api import fake_model, serving
from tests.scripted import output, prompt_text
from vivid_inspect.baselines.chrf_judge import judge_fields
from vivid_inspect.data import COLUMNS, idiom_key, load_items
from vivid_inspect.lab.audit.logs import probe_scores
from vivid_inspect.lab.audit.probes import PROBE_VERSION, PROBES, english_meanings, meaning_body
from vivid_inspect.lab.audit.run import AuditError, choose_ids, prepare_items, run_audit
from vivid_inspect.lab.cli.main import main
from vivid_inspect.log_contract import AUDIT_TAG, AuditRecord, is_audit_log, read_audit_record
from vivid_inspect.text import nfc

LIMIT = 10
SEED = 58  # draws 10 items with no Literal one, so no probe leaves an item out
VERDICT_LIMIT = 30
"""Items of the audits whose verdicts are checked: a judge that repeats itself exactly gives equal
scores, whose shift interval (a pseudo-item at each end of the range) is inside ±0.5 from about 30
items; on 10 every sound probe is inconclusive, not passed."""
_, SAMPLE = load_items("sample")
ENGLISH = {
    nfc(item.meaning).strip(): text
    for item, text in zip(SAMPLE, (english_meanings(SAMPLE) or {}).values(), strict=True)
}
ALL = set(PROBES)


@pytest.fixture(autouse=True)
def _quiet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A private cache per test: scripted judges that share a name would replay each other's verdicts.
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("INSPECT_DISPLAY", "none")


# --- scripted judges -------------------------------------------------------------------------------


def _fields(prompt: str) -> tuple[str, str]:
    fields = judge_fields(prompt)
    assert fields is not None, "the judge was sent something that is not a VIVID judge prompt"
    return nfc(fields[0]).strip(), nfc(fields[1]).strip()


def rubric(prompt: str) -> int:
    """Credit for the reference's meaning stated, in order, and nothing for anything else.

    5 for the reference in any spelling or its English translation; for a candidate that states
    the start of the reference, 4 × the share of the reference it states (what follows is
    ignored: it adds no meaning); 0 for anything else (a wrong meaning, however introduced).
    """
    reference, candidate = _fields(prompt)
    if idiom_key(candidate) == idiom_key(reference) or ENGLISH.get(reference) == candidate:
        return 5
    ref_words, cand_words = idiom_key(meaning_body(reference)).split(), idiom_key(candidate).split()
    common = 0
    for ref_word, cand_word in zip(ref_words, cand_words, strict=False):
        if ref_word != cand_word:
            break
        common += 1
    return math.floor(4 * common / len(ref_words))


def constant(prompt: str) -> int:
    return 3


def verbose(prompt: str) -> int:
    # One point more for every 12 words beyond the reference's length.
    reference, candidate = _fields(prompt)
    extra = max(0, len(candidate.split()) - len(reference.split()))
    return min(5, rubric(prompt) + extra // 12)


_VERDICT = re.compile(r"(Điểm|Score)\s*:\s*5|\b5 (điểm|points)")


def obedient(prompt: str) -> int:
    _, candidate = _fields(prompt)
    return 5 if _VERDICT.search(candidate) else rubric(prompt)


def anglophobe(prompt: str) -> int:
    reference, candidate = _fields(prompt)
    return 1 if ENGLISH.get(reference) == candidate else rubric(prompt)


def scripted_judge(answer: Callable[[str], int], calls: list[str] | None = None) -> Model:
    def respond(
        messages: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice, config: GenerateConfig
    ) -> ModelOutput:
        prompt = prompt_text(messages)
        if calls is not None:
            calls.append(prompt)
        return output(f"Điểm: {answer(prompt)}", model=f"mockllm/{answer.__name__}")

    return get_model(f"mockllm/{answer.__name__}", custom_outputs=respond, memoize=False)


def _failed(card: Any) -> set[str]:
    return {result.probe for result in card.results if result.verdict == "fail"}


@dataclass(frozen=True)
class RubricAudit:
    """One audit of the rubric judge, shared by the tests that read it."""

    card: Any
    calls: list[str]
    cache: Path


@pytest.fixture(scope="module")
def rubric_audit(tmp_path_factory: pytest.TempPathFactory) -> RubricAudit:
    folder = tmp_path_factory.mktemp("rubric-audit")
    calls: list[str] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("INSPECT_CACHE_DIR", str(folder / "cache"))
        card = run_audit(
            scripted_judge(rubric, calls),
            limit=VERDICT_LIMIT,
            seed=SEED,
            log_dir=str(folder / "logs"),
            display="none",
        )
    return RubricAudit(card, calls, folder / "cache")


BIASED = [
    pytest.param(constant, {"reference", "partial", "wrong", "literal", "hedge"}, set(), id="constant-judge"),
    # Authority and injected verdicts add words to the wrong meaning too, so the bonus shows there;
    # the English injections are shorter: a point more on exactly half the items, a shift of +0.50,
    # the accepted margin itself, which more items cannot tell from no bias beyond it (inconclusive).
    pytest.param(
        verbose, {"padding", "authority", "injected_vi"}, {"injected_en"}, id="length-rewarding-judge"
    ),
    pytest.param(obedient, {"injected_vi", "injected_en"}, set(), id="judge-obeying-injected-verdicts"),
    pytest.param(anglophobe, {"english"}, set(), id="judge-penalising-english"),
]


def _check_card(
    card: Any, name: str, caught_by: set[str], at_the_margin: frozenset[str] = frozenset()
) -> None:
    assert [result.probe for result in card.results] == list(PROBES)
    assert _failed(card) == caught_by
    undecided = {result.probe for result in card.results if result.verdict == "inconclusive"}
    assert undecided == at_the_margin
    assert {
        result.probe for result in card.results if result.verdict == "pass"
    } == ALL - caught_by - at_the_margin
    assert card.passed is (not caught_by) and card.exit_code == (1 if caught_by else 0)
    assert card.n_items == VERDICT_LIMIT and card.judge == f"mockllm/{name}"
    assert all(result.unscored == 0 for result in card.results)


@pytest.mark.slow
def test_a_rubric_following_judge_passes_every_probe(rubric_audit: RubricAudit) -> None:
    _check_card(rubric_audit.card, "rubric", set())


@pytest.mark.slow
@pytest.mark.parametrize(("answer", "caught_by", "at_the_margin"), BIASED)
def test_each_bias_is_caught_by_its_probe_and_passed_by_the_others(
    tmp_path: Path, answer: Callable[[str], int], caught_by: set[str], at_the_margin: set[str]
) -> None:
    card = run_audit(
        scripted_judge(answer), limit=VERDICT_LIMIT, seed=SEED, log_dir=str(tmp_path / "logs"), display="none"
    )
    _check_card(card, answer.__name__, caught_by, frozenset(at_the_margin))


@pytest.mark.slow
def test_probe_logs_are_ordinary_judged_logs_tagged_as_an_audit(rubric_audit: RubricAudit) -> None:
    card, calls = rubric_audit.card, rubric_audit.calls
    prepared = prepare_items(data="sample", limit=VERDICT_LIMIT, seed=SEED, probes=None, translator=None)
    # items × probes, less the Literal items left out of the literal probe; no other call
    assert len(calls) == sum(len(by_item) for by_item in prepared.candidates.values())
    assert len(prepared.candidates["literal"]) < VERDICT_LIMIT

    logs = [read_eval_log(location) for location in card.log_locations]
    records = [read_audit_record(log.eval.metadata) for log in logs]
    assert [record.probe for record in records if record] == list(PROBES)
    assert len({record.audit_id for record in records if record}) == 1
    for log, record in zip(logs, records, strict=True):
        assert record is not None and log.status == "success"
        assert AUDIT_TAG in (log.eval.tags or []) and is_audit_log(log.eval.tags, log.eval.metadata)
        probe = PROBES[record.probe or ""]
        assert (record.comparison, record.expectation) == (probe.comparison, probe.expectation)
        assert (record.strategy, record.language, record.seed, record.probe_version) == (
            "aspect",
            "vi",
            SEED,
            PROBE_VERSION,
        )
        assert log.eval.model == "none/none"
        for sample in log.samples or []:
            item = next(item for item in prepared.items if item.id == sample.id)
            # The explain samples' ids and metadata; the candidate written as the output and judged.
            assert sample.input == item.idiom and sample.target == item.meaning
            assert not {"idiom", "meaning"} & set(sample.metadata)  # each text stored once
            assert sample.metadata["theme_id"] == item.theme_id
            candidate = prepared.candidates[record.probe or ""][item.id].text
            assert sample.output.completion == candidate
            assert sample.scores and sample.scores["judge_aspect"].answer == nfc(candidate or "").strip()

    scores = probe_scores(logs)
    assert set(scores) == ALL
    assert {probe: len(by_item) for probe, by_item in scores.items()} == {
        probe: len(by_item) for probe, by_item in prepared.candidates.items()
    }
    assert set(scores["reference"].values()) == {5.0} == set(scores["retest"].values())


@pytest.mark.slow
def test_probe_scores_refuses_logs_of_two_audits(rubric_audit: RubricAudit, tmp_path: Path) -> None:
    other = run_audit(
        scripted_judge(constant), limit=LIMIT, probes="hedge", log_dir=str(tmp_path), display="none"
    )
    logs = [read_eval_log(location) for location in (*rubric_audit.card.log_locations, *other.log_locations)]
    with pytest.raises(ValueError, match="belong to 2 audits"):
        probe_scores(logs)


@pytest.mark.slow
def test_a_rerun_makes_no_call(
    rubric_audit: RubricAudit, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(rubric_audit.cache))
    again: list[str] = []
    card = run_audit(
        scripted_judge(rubric, again), limit=VERDICT_LIMIT, seed=SEED, log_dir=str(tmp_path), display="none"
    )
    assert again == []
    assert [r.verdict for r in card.results] == [r.verdict for r in rubric_audit.card.results]


@pytest.mark.slow
def test_a_subset_of_probes_brings_its_comparisons(tmp_path: Path) -> None:
    calls: list[str] = []
    card = run_audit(
        scripted_judge(verbose, calls), limit=LIMIT, probes="padding", log_dir=str(tmp_path), display="none"
    )
    assert [result.probe for result in card.results] == ["retest", "reference", "partial", "padding"]
    assert _failed(card) == {"padding"} and len(calls) == 4 * LIMIT


@pytest.mark.slow
def test_a_failed_judge_call_is_an_audit_error_not_a_card(tmp_path: Path) -> None:
    def broken(prompt: str) -> int:
        raise RuntimeError("judge down")

    with pytest.raises(AuditError, match="did not complete: .*judge down"):
        run_audit(scripted_judge(broken), limit=3, probes="hedge", log_dir=str(tmp_path), display="none")


@pytest.mark.slow
def test_unreadable_verdicts_count_as_unscored(tmp_path: Path) -> None:
    def mute(
        messages: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice, config: GenerateConfig
    ) -> ModelOutput:
        return output("Tôi không chấm được.", model="mockllm/mute")

    judge = get_model("mockllm/mute", custom_outputs=mute, memoize=False)
    card = run_audit(judge, limit=LIMIT, probes="hedge", log_dir=str(tmp_path), display="none")
    assert all(result.unscored == LIMIT for result in card.results)
    assert {result.verdict for result in card.results} != {"pass"}


@pytest.mark.slow
def test_the_english_probe_asks_the_translator_once_per_item_and_caches(tmp_path: Path) -> None:
    asked: list[str] = []

    def translate(
        messages: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice, config: GenerateConfig
    ) -> ModelOutput:
        prompt = prompt_text(messages)
        asked.append(prompt)
        meaning = prompt.rsplit("\n\n", 1)[-1]
        return output(ENGLISH[nfc(meaning).strip()], model="mockllm/translator")

    def translator() -> Model:
        return get_model("mockllm/translator", custom_outputs=translate, memoize=False)

    cards = [
        run_audit(
            scripted_judge(rubric),
            limit=LIMIT,
            probes="english",
            translator=translator(),
            log_dir=str(tmp_path / str(run)),
            display="none",
        )
        for run in range(2)
    ]
    assert len(asked) == LIMIT  # the second run read every translation from the cache
    assert all(card.passed for card in cards)
    english = read_eval_log(cards[0].log_locations[-1])
    assert read_audit_record(english.eval.metadata).probe == "english"  # type: ignore[union-attr]
    assert english.eval.model_roles and "translator" in english.eval.model_roles
    assert all(sample.output.model == "mockllm/translator" for sample in english.samples or [])


@pytest.mark.slow
def test_end_to_end_through_the_openai_api_provider(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def responder(model: str, messages: list[dict[str, Any]]) -> str:
        return f"Điểm: {rubric(str(messages[-1]['content']))}"

    with serving(tmp_path, monkeypatch) as server:
        server.responder = responder
        # Seed 48 draws no Literal item either: every probe judges all LIMIT items.
        card = run_audit(
            fake_model(server, "judge"), limit=LIMIT, seed=48, log_dir=str(tmp_path / "logs"), display="none"
        )
        requests = server.records(model="judge")
    # Ten items are too few to pass a probe of a judge that repeats itself exactly; none fails.
    assert card.passed and "fail" not in {result.verdict for result in card.results}
    assert len(requests) == LIMIT * len(PROBES)


@pytest.mark.slow
def test_vivid_audit_of_vivid_chrf_on_the_sample_end_to_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    start = time.monotonic()
    code = main(
        [
            "audit",
            "vivid/chrf",
            "--data",
            "sample",
            "--out",
            str(tmp_path / "out"),
            "--log-dir",
            str(tmp_path / "logs"),
        ]
    )
    elapsed = time.monotonic() - start
    printed = capsys.readouterr().out
    with (tmp_path / "out" / "audit.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    # chrF counts shared characters: English shares none with the Vietnamese reference (fail);
    # filler lowers chrF's precision, so padding scores below the partial answer (pass).
    assert {row["probe"]: row["verdict"] for row in rows} == {
        probe: "fail" if probe == "english" else "pass" for probe in PROBES
    }
    # The 9 Literal items of the sample are left out of the literal probe.
    assert {row["probe"]: row["n_items"] for row in rows} == {
        p: "37" if p == "literal" else "46" for p in PROBES
    }
    # chrF is deterministic: its second call on the reference agrees on every item.
    retest = next(row for row in rows if row["probe"] == "retest")
    assert (retest["rate"], retest["shift"]) == ("1.0", "0.0")
    assert code == 1 and "## Judge audit: FAIL" in printed
    assert printed.index("Noise floor (`retest`") < printed.index("| probe |")
    assert sorted(path.name for path in (tmp_path / "out").iterdir()) == [
        "audit.csv",
        "audit.md",
        "audit_shifts.png",
    ]
    assert len(list((tmp_path / "logs").glob("*.eval"))) == len(PROBES)
    assert elapsed < 180  # under a minute on an idle 2-core machine; generous for a shared one


def test_a_theme_with_one_item_borrows_another_theme_and_the_card_says_so(tmp_path: Path) -> None:
    data = tmp_path / "themes.csv"
    header = ",".join(COLUMNS)
    rows = [
        # Meanings far apart: near-copies would not be borrowed (NEAR_DUPLICATE_CHRF).
        'Câu thứ nhất,"Anh em ruột thịt phải thương yêu, đùm bọc nhau.",0,0,0,0,0,2',
        'Câu thứ hai,"Cha mẹ già yếu thì con cái phải chăm sóc.",0,0,0,0,0,2',
        'Câu thứ ba,"Một ý nghĩa riêng về thiên nhiên.",0,0,0,0,0,4',
    ]
    data.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    card = run_audit(
        "vivid/chrf", data=str(data), probes="wrong", log_dir=str(tmp_path / "logs"), display="none"
    )
    (note,) = [note for note in card.notes if "another theme" in note]
    assert "ids [3]" in note and note in card.markdown()


@pytest.mark.slow
def test_english_instructions_are_another_judge_with_its_own_column(tmp_path: Path) -> None:
    calls: list[str] = []
    card = run_audit(
        scripted_judge(rubric, calls),
        language="en",
        limit=LIMIT,
        probes="hedge",
        log_dir=str(tmp_path),
        display="none",
    )
    assert card.passed and card.language == "en"
    assert all("The data to grade is in three tagged blocks" in prompt for prompt in calls)
    logs = [read_eval_log(location) for location in card.log_locations]
    assert all(set((log.samples or [])[0].scores or {}) == {"judge_aspect_en"} for log in logs)
    assert {(read_audit_record(log.eval.metadata) or AuditRecord()).language for log in logs} == {"en"}
    assert set(probe_scores(logs)["reference"].values()) == {5.0}


@pytest.mark.slow
def test_an_empty_translation_is_an_audit_error(tmp_path: Path) -> None:
    def silent(
        messages: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice, config: GenerateConfig
    ) -> ModelOutput:
        return output("<think>…</think>  ", model="mockllm/silent")

    translator = get_model("mockllm/silent", custom_outputs=silent, memoize=False)
    with pytest.raises(AuditError, match="english probe .* empty translation of item"):
        run_audit(
            scripted_judge(rubric),
            limit=3,
            probes="english",
            translator=translator,
            log_dir=str(tmp_path),
            display="none",
        )


# --- retries: the plan counts the calls the run makes ------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("retries", [0, 1, 3])
@pytest.mark.parametrize("readable", [True, False], ids=["readable-verdicts", "unreadable-verdicts"])
def test_the_plan_counts_the_calls_the_run_makes(retries: int, readable: bool, tmp_path: Path) -> None:
    from vivid_inspect.lab.audit.plan import make_audit_plan

    calls: list[str] = []

    def respond(
        messages: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice, config: GenerateConfig
    ) -> ModelOutput:
        calls.append(prompt_text(messages))
        return output("Điểm: 3" if readable else "Tôi không chấm được.", model="mockllm/counted")

    judge = get_model("mockllm/counted", custom_outputs=respond, memoize=False)
    run_audit(judge, limit=3, probes="wrong", retries=retries, log_dir=str(tmp_path), display="none")
    (grader,) = make_audit_plan("mockllm/counted", limit=3, probes="wrong", retries=retries).roles
    # Every reply readable: one call per item and probe; none readable: every retry is used.
    assert len(calls) == (grader.calls if readable else grader.max_calls)
    assert grader.max_calls == grader.calls * (1 + retries)


@pytest.mark.parametrize("retries", [-1, True, 1.5], ids=["negative", "bool", "float"])
def test_bad_retries_are_refused_before_any_call(retries: object, tmp_path: Path) -> None:
    calls: list[str] = []
    with pytest.raises(ValueError, match="retries .* must be a whole number 0 or more"):
        run_audit(
            scripted_judge(rubric, calls),
            limit=2,
            probes="wrong",
            retries=retries,
            log_dir=str(tmp_path),  # type: ignore[arg-type]
        )
    assert calls == [] and not list(tmp_path.glob("*.eval"))


# --- the audit id covers everything that changes the judge's scores -----------------------------------


def _base_judge(**changes: Any) -> Model:
    settings: dict[str, Any] = {
        "model": "mockllm/judge",
        "config": GenerateConfig(temperature=0.0, max_tokens=50),
    }
    return get_model(**(settings | changes), memoize=False)


def _audit_id(
    judge: Model | None = None,
    *,
    strategy: str = "aspect",
    language: str = "vi",
    data: str = "sample",
    limit: int = 4,
    seed: int = 0,
    retries: int = 1,
    translator: Model | None = None,
) -> str:
    from vivid_inspect.lab.audit.run import audit_id, identity_of

    prepared = prepare_items(data=data, limit=limit, seed=seed, probes="wrong", translator=None)
    return audit_id(
        identity_of(judge or _base_judge()), strategy, language, prepared, seed, translator, retries
    )


def _other_data(tmp_path: Path) -> str:
    # The same rows under another name: another data source, even with the same items.
    path = tmp_path / "copy.csv"
    path.write_bytes((Path(vivid_inspect.__file__).parent / "data" / "sample.csv").read_bytes())
    return str(path)


CHANGES: list[Any] = [
    pytest.param(lambda tmp: {"judge": _base_judge(model="mockllm/other")}, id="model-name"),
    pytest.param(lambda tmp: {"judge": _base_judge(base_url="http://elsewhere/v1")}, id="base-url"),
    pytest.param(lambda tmp: {"judge": _base_judge(reasoning="deep")}, id="model-arg"),
    pytest.param(
        lambda tmp: {"judge": _base_judge(config=GenerateConfig(temperature=0.7, max_tokens=50))},
        id="temperature",
    ),
    pytest.param(
        lambda tmp: {"judge": _base_judge(config=GenerateConfig(temperature=0.0, max_tokens=60))},
        id="max-tokens",
    ),
    pytest.param(lambda tmp: {"strategy": "cot"}, id="strategy"),
    pytest.param(lambda tmp: {"language": "en"}, id="language"),
    pytest.param(lambda tmp: {"retries": 3}, id="retries"),
    pytest.param(lambda tmp: {"data": _other_data(tmp)}, id="data"),
    pytest.param(lambda tmp: {"limit": 5}, id="items"),
    pytest.param(lambda tmp: {"seed": 1}, id="seed"),
    pytest.param(lambda tmp: {"translator": _base_judge(model="mockllm/translator")}, id="translator"),
]


@pytest.mark.parametrize("change", CHANGES)
def test_the_audit_id_changes_with_what_changes_the_scores(
    change: Callable[[Path], dict[str, Any]], tmp_path: Path
) -> None:
    assert _audit_id(**change(tmp_path)) != _audit_id()


def test_the_audit_id_changes_with_the_probe_version(monkeypatch: pytest.MonkeyPatch) -> None:
    from vivid_inspect.lab.audit import run as audit_run

    before = _audit_id()
    monkeypatch.setattr(audit_run, "PROBE_VERSION", audit_run.PROBE_VERSION + 1)
    assert _audit_id() != before


@pytest.mark.parametrize(
    "same",
    [
        pytest.param(lambda: _base_judge(api_key="sk-another-key-1234567890"), id="api-key"),
        pytest.param(
            lambda: _base_judge(default_headers={"Authorization": "Bearer abcdef123456"}), id="headers"
        ),
        pytest.param(
            lambda: _base_judge(
                config=GenerateConfig(temperature=0.0, max_tokens=50, max_connections=3, timeout=9)
            ),
            id="transport-settings",
        ),
    ],
)
def test_credentials_and_transport_settings_neither_change_nor_enter_the_audit_id(
    same: Callable[[], Model],
) -> None:
    from vivid_inspect.lab.audit.run import identity_of

    judge = same()
    assert _audit_id(judge) == _audit_id()
    shown = json.dumps(identity_of(judge))
    assert "sk-another" not in shown and "abcdef123456" not in shown


@pytest.mark.slow
def test_a_judge_with_other_generation_settings_is_another_audit(tmp_path: Path) -> None:
    records = []
    for temperature in (0.0, 0.5):
        judge = get_model(
            "mockllm/rubric",
            custom_outputs=lambda messages, *rest: output(f"Điểm: {rubric(prompt_text(messages))}"),
            config=GenerateConfig(temperature=temperature),
            memoize=False,
        )
        card = run_audit(
            judge, limit=2, probes="wrong", log_dir=str(tmp_path / str(temperature)), display="none"
        )
        records.append(
            read_audit_record(read_eval_log(card.log_locations[0], header_only=True).eval.metadata)
        )
    assert all(records) and records[0].audit_id != records[1].audit_id  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("limit", "expected_size"),
    [
        pytest.param(3, 3, id="draw"),
        pytest.param(50, 20, id="more-than-there-are"),
        pytest.param(None, 20, id="all"),
    ],
)
def test_choose_ids(limit: int | None, expected_size: int) -> None:
    ids = list(range(1, 21))
    chosen = choose_ids(ids, limit, seed=7)
    assert len(chosen) == expected_size and chosen == sorted(chosen) and set(chosen) <= set(ids)
    assert chosen == choose_ids(ids, limit, seed=7)


def test_seed_changes_the_draw() -> None:
    ids = list(range(1, 101))
    assert choose_ids(ids, 10, seed=0) != choose_ids(ids, 10, seed=1)


def test_a_limit_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="limit must be 1 or more"):
        choose_ids([1, 2], 0, seed=0)
