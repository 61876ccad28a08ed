"""`vivid report` from real Inspect logs made by scripted mock models.

The logs are a judge ablation with human scores, and a small paper sweep (two models x two
prompts, topic and traits).

Every expected number is computed here from the scripts below (which score each item knowingly),
never read back from the report's own code; kappas are scikit-learn's on the same pairs.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from inspect_ai import eval, score_async
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log
from inspect_ai.model import (
    ChatMessage,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelOutput,
    ModelUsage,
    get_model,
)
from sklearn.metrics import cohen_kappa_score

from vivid_inspect.data import load_vivid
from vivid_inspect.lab.cli import annotate as annotate_cli
from vivid_inspect.lab.cli import report as report_cli
from vivid_inspect.lab.humans.annotate.sheet_export import SHEET_COLUMNS, export_sheet
from vivid_inspect.lab.humans.scores_file import read_human_scores
from vivid_inspect.lab.humans.sheet_import import import_sheets
from vivid_inspect.lab.report.build import Report, write_report
from vivid_inspect.scorers.judge import judge as judge_scorer
from vivid_inspect.solvers.explain_prompts import FEW_SHOT
from vivid_inspect.solvers.markers import last_item
from vivid_inspect.tasks import explain, topic, traits
from vivid_inspect.taxonomy import TRAIT_NAMES
from vivid_inspect.text import nfc

# Every theme and trait of the bundled sample, kept small for speed (17, a demonstration idiom, is out).
IDS = [1, 3, 5, 6, 7, 9, 11, 12, 13, 15, 18, 20, 21, 22, 24, 25, 35, 36]
GPT, VISTRAL, VINALLAMA = "mockllm/gpt-4o", "mockllm/vistral-7b-chat", "mockllm/vinallama-7b-chat"
MODEL_INDEX = {GPT: 0, VISTRAL: 1}
JUDGE_MODEL, JUDGE_B_MODEL = "mockllm/gpt-4.1", "mockllm/judge-b"
GARBAGE = "không chấm được"
# The human file of these tests names no generation: they scored the judge ablation's explanations.
ABLATION = f"{GPT} zero_shot"
ANNOTATOR_A = [i for i in IDS if i <= 16]
ANNOTATOR_B = [i for i in IDS if 10 <= i <= 25]
_ITEMS = {nfc(str(s.input)): s for s in load_vivid("sample").dataset if s.metadata}
META = {int(s.id): s.metadata for s in _ITEMS.values()}  # type: ignore[arg-type]
_ITEMS_BY_ID = {int(str(s.id)): s for s in _ITEMS.values()}


# --- the scripts ------------------------------------------------------------------------------


def quality(model: str, prompt: str, item: int) -> int:
    """The score an explanation deserves; the generator writes it into the text as q=N."""
    return (item * 7 + 3 * MODEL_INDEX[model] + (2 if prompt == "few_shot" else 0)) % 6


def explanation(model: str, prompt: str, item: int) -> str:
    if model == VISTRAL and prompt == "zero_shot" and item == 36:
        return ""  # an empty explanation: the judge scorer gives 0 without a call
    marker = " ??" if model == VISTRAL and prompt == "few_shot" and item % 4 == 0 else ""
    return f"Giải thích mẫu số {item}: q={quality(model, prompt, item)}{marker}"


def topic_answer(item: int) -> str:
    gold = META[item]["theme_id"]
    return [str(gold), f"Chủ đề {gold}", str(gold % 7 + 1)][item % 3]  # strict, lenient only, wrong


def traits_answer(item: int) -> str:
    gold = ",".join(str(c) for c in META[item]["trait_ids"])
    if item % 3 == 0:
        return gold
    if item % 3 == 1 and gold:
        return ", ".join(reversed(gold.split(","))) + "."  # right codes, wrong format: lenient only
    return "2" if gold == "1" else "1"


def topic_expected(item: int) -> tuple[float, float]:
    return (1.0 if item % 3 == 0 else 0.0, 1.0 if item % 3 in (0, 1) else 0.0)


def traits_expected(item: int) -> tuple[float, float]:
    strict = item % 3 == 0
    lenient = strict or (item % 3 == 1 and bool(META[item]["trait_ids"]))
    return float(strict), float(lenient)


def judge_score(strategy: str, item: int, q: int, garbage: bool) -> float:
    """What each scripted judge gives; NaN where it never gives a readable score."""
    if strategy == "aspect":
        return math.nan if garbage else float(q)
    if strategy == "zero_shot":
        return float(max(0, q - 1))
    if strategy == "cot":
        return float(min(5, q + 1))
    if strategy == "demonstration":
        return math.nan if item % 5 == 0 else float(q)
    if strategy == "aspect-b":
        return float(q if item % 2 else max(0, q - 2))
    raise AssertionError(strategy)


def expected_judge(strategy: str, model: str, prompt: str, item: int) -> float:
    text = explanation(model, prompt, item)
    if not text:
        return 0.0
    return judge_score(strategy, item, quality(model, prompt, item), "??" in text)


def human_score(item: int, annotator: str) -> int:
    base = quality(GPT, "zero_shot", item)
    base = min(5, base + 1) if item % 6 == 1 else base
    if annotator == "b" and item == 12:
        return base + 1 if base < 5 else base - 1
    return base


def human_mean(item: int) -> float:
    scores = [human_score(item, who) for who, ids in (("a", ANNOTATOR_A), ("b", ANNOTATOR_B)) if item in ids]
    return float(np.mean(scores))


def _output(text: str) -> ModelOutput:
    result = ModelOutput.from_content(model="mockllm", content=text)
    result.usage = ModelUsage(input_tokens=10, output_tokens=2, total_tokens=12)
    return result


def _scripted(name: str, reply: Callable[[str], str]) -> Model:
    def respond(
        messages: list[ChatMessage], tools: object, choice: object, config: GenerateConfig
    ) -> ModelOutput:
        return _output(reply("\n\n".join(m.text for m in messages if isinstance(m, ChatMessageUser))))

    return get_model(name, custom_outputs=respond, memoize=False)


def generator(model: str) -> Model:
    def reply(prompt: str) -> str:
        found = last_item(prompt)
        assert found is not None, prompt[-200:]
        idiom, kind = found
        item = int(_ITEMS[idiom].id)  # type: ignore[arg-type]
        if kind == "topic":
            return topic_answer(item)
        if kind == "traits":
            return traits_answer(item)
        return explanation(model, "few_shot" if FEW_SHOT in prompt else "zero_shot", item)

    return _scripted(model, reply)


_CANDIDATE = re.compile(r"<giai_thich_can_cham_\w+>\s*(.*?)\s*</giai_thich_can_cham_\w+>", re.DOTALL)


def judge_model(name: str, fixed_strategy: str | None = None) -> Model:
    def reply(prompt: str) -> str:
        candidate = _CANDIDATE.findall(prompt)[-1]
        item, q = (int(v) for v in re.search(r"số (\d+): q=(\d)", candidate).groups())  # type: ignore[union-attr]
        if fixed_strategy:
            strategy = fixed_strategy
        elif "suy luận từng bước" in prompt:
            strategy = "cot"
        elif "Ví dụ chấm mẫu" in prompt:
            strategy = "demonstration"
        elif "bốn tiêu chí" in prompt:
            strategy = "aspect"
        else:
            strategy = "zero_shot"
        value = judge_score(strategy, item, q, "??" in candidate)
        if math.isnan(value):
            return GARBAGE
        return f"Suy luận ngắn.\nĐiểm: {int(value)}" if strategy == "cot" else str(int(value))

    return _scripted(name, reply)


# --- the logs ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Logs:
    root: Path
    ablation: Path
    human: Path


def _run(tasks: list[object], model: str, root: Path) -> list[EvalLog]:
    logs = eval(
        tasks,  # type: ignore[arg-type]
        model=generator(model),
        model_roles={"grader": judge_model(JUDGE_MODEL)},
        sample_id=IDS,
        log_dir=str(root),
        display="none",
    )
    assert all(log.status == "success" for log in logs), [log.error for log in logs]
    return logs


def _judged_copy(root: Path, generation: EvalLog) -> None:
    """What the runner writes: the generation re-scored by one more judge, with vivid_judge metadata."""
    log = read_eval_log(generation.location)
    scorer = judge_scorer(strategy="aspect")
    scored = asyncio.run(
        score_async(
            log, [scorer], model_roles={"grader": judge_model(JUDGE_B_MODEL, "aspect-b")}, action="overwrite"
        )
    )
    rel = Path(generation.location).relative_to(root).as_posix()
    scored.eval.metadata = {
        **(scored.eval.metadata or {}),
        "vivid_judge": {
            "name": "aspect-b",
            "strategy": "aspect",
            "model": JUDGE_B_MODEL,
            "generation_log": rel,
        },
    }
    target = root / "judged" / "aspect-b" / Path(generation.location).name
    target.parent.mkdir(parents=True)
    write_eval_log(scored, str(target))


def _incomplete_copy(root: Path, source: EvalLog) -> None:
    """A traits log that stopped after five samples (status error), for a third model."""
    log = read_eval_log(source.location)
    log.status = "error"
    log.eval.model = VINALLAMA
    log.samples = (log.samples or [])[:5]
    write_eval_log(log, str(root / "incomplete_traits.eval"))


def _write_humans(path: Path) -> None:
    rows = [(i, human_score(i, "a"), "ann_a") for i in ANNOTATOR_A] + [
        (i, human_score(i, "b"), "ann_b") for i in ANNOTATOR_B
    ]
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "score", "annotator"])
        writer.writerows(rows)


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Logs:
    cache = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("INSPECT_CACHE_DIR", str(cache))
        root = tmp_path_factory.mktemp("vivid_logs")
        gpt = _run(
            [
                explain(prompt="zero_shot", judge="all", data="sample"),
                explain(prompt="few_shot", data="sample"),
                topic(data="sample"),
                traits(data="sample"),
            ],
            GPT,
            root,
        )
        vistral = _run(
            [
                explain(prompt="zero_shot", data="sample"),
                explain(prompt="few_shot", data="sample"),
                topic(data="sample"),
                traits(data="sample"),
            ],
            VISTRAL,
            root,
        )
        _judged_copy(root, gpt[0])
        _incomplete_copy(root, vistral[3])
    human = tmp_path_factory.mktemp("humans") / "human.csv"
    _write_humans(human)
    return Logs(root=root, ablation=Path(gpt[0].location), human=human)


@pytest.fixture(scope="module")
def report(logs: Logs, tmp_path_factory: pytest.TempPathFactory) -> Report:
    out = tmp_path_factory.mktemp("report")
    return write_report(
        logs.root, out_dir=out, human=logs.human, formats=("md", "csv", "tex"), human_generation=ABLATION
    )


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _row(report: Report, table: str, **match: object) -> dict[str, object]:
    frame = report.table(table).frame
    for column, value in match.items():
        frame = frame[frame[column] == value]
    assert len(frame) == 1, (table, match, report.table(table).frame)
    return frame.iloc[0].to_dict()


# --- Table 1 ----------------------------------------------------------------------------------

JUDGES = [
    pytest.param("judge_zero_shot", JUDGE_MODEL, "zero_shot", id="zero_shot"),
    pytest.param("judge_cot", JUDGE_MODEL, "cot", id="cot"),
    pytest.param("judge_demonstration", JUDGE_MODEL, "demonstration", id="demonstration-with-unscored"),
    pytest.param("judge_aspect", JUDGE_MODEL, "aspect", id="aspect"),
    pytest.param("aspect-b", JUDGE_B_MODEL, "aspect-b", id="rescored-judged-copy"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("judge", "model", "script"), JUDGES)
def test_table1_kappa_equals_scikit_learn_on_the_same_pairs(
    report: Report, judge: str, model: str, script: str
) -> None:
    scores = {i: expected_judge(script, GPT, "zero_shot", i) for i in IDS}
    paired = [i for i in IDS if i in set(ANNOTATOR_A) | set(ANNOTATOR_B) and not math.isnan(scores[i])]
    human_cat = [math.floor(human_mean(i) + 0.5) for i in paired]  # means over annotators, rounded half up
    judge_cat = [int(scores[i]) for i in paired]
    expected = cohen_kappa_score(human_cat, judge_cat, labels=list(range(6)))

    row = _row(report, "table1_judges", judge=judge, judge_model=model)
    assert row["n"] == len(paired)
    assert row["kappa"] == pytest.approx(expected, abs=1e-12)
    scored = [v for v in scores.values() if not math.isnan(v)]
    assert row["mean_all_items"] == pytest.approx(np.mean(scored))
    assert row["judge_mean"] == pytest.approx(np.mean([scores[i] for i in paired]))
    assert row["human_mean"] == pytest.approx(np.mean([human_mean(i) for i in paired]))
    assert row["unscored"] == len(IDS) - len(scored)
    assert f"| {expected:.3f} |" in report.markdown


@pytest.mark.slow
def test_table1_has_the_human_rows_and_counts_unscored_not_as_zero(report: Report) -> None:
    human = _row(report, "table1_judges", judge="human")
    assert human["human_mean"] == pytest.approx(
        np.mean([human_mean(i) for i in sorted(set(ANNOTATOR_A) | set(ANNOTATOR_B))])
    )
    assert _missing(human["kappa"])  # no kappa of the humans against themselves (issue 21.8)
    between = _row(report, "table1_judges", judge="human (annotator vs annotator)")
    overlap = sorted(set(ANNOTATOR_A) & set(ANNOTATOR_B))
    a = [human_score(i, "a") for i in overlap]
    b = [human_score(i, "b") for i in overlap]
    assert between["kappa"] == pytest.approx(cohen_kappa_score(a, b, labels=list(range(6))), abs=1e-12)
    demonstration = _row(report, "table1_judges", judge="judge_demonstration")
    assert demonstration["unscored"] == sum(1 for i in IDS if i % 5 == 0)
    assert demonstration["parse_failure_rate"] == pytest.approx(demonstration["unscored"] / len(IDS))


@pytest.mark.slow
@pytest.mark.parametrize(("judge", "model", "script"), JUDGES)
def test_table1_each_annotator_as_a_rater_from_the_human_file(
    report: Report, judge: str, model: str, script: str
) -> None:
    scores = {i: expected_judge(script, GPT, "zero_shot", i) for i in IDS}
    kappas = []
    for who, ids in (("a", ANNOTATOR_A), ("b", ANNOTATOR_B)):
        mine = [i for i in ids if not math.isnan(scores[i])]
        kappas.append(cohen_kappa_score([human_score(i, who) for i in mine], [int(scores[i]) for i in mine]))
    row = _row(report, "table1_judges", judge=judge, judge_model=model)
    assert row["kappa_per_annotator"] == pytest.approx(np.mean(kappas), abs=1e-12)
    if _missing(row["kappa_per_annotator_lo"]):  # an annotator with fewer items than the interval needs
        assert str(row["kappa_per_annotator_ci"]).startswith("too few items for a 95 % interval (n=")
    else:
        assert row["kappa_per_annotator_lo"] <= row["kappa_per_annotator"] <= row["kappa_per_annotator_hi"]
    assert row["alpha_raters"] is not None and -1 <= row["alpha_raters"] <= 1


@pytest.mark.slow
def test_strategy_differences_and_judge_pairs(report: Report) -> None:
    differences = report.table("judge_differences").frame
    assert len(differences) == 10  # 5 judges, every pair once
    a, b = f"judge_zero_shot [{JUDGE_MODEL}]", f"judge_cot [{JUDGE_MODEL}]"
    row = differences[(differences["judge_a"] == a) & (differences["judge_b"] == b)].iloc[0]
    humans = sorted(set(ANNOTATOR_A) | set(ANNOTATOR_B))
    diffs = [
        expected_judge("zero_shot", GPT, "zero_shot", i) - expected_judge("cot", GPT, "zero_shot", i)
        for i in humans
    ]
    assert row["n"] == len(humans) and row["mean_diff"] == pytest.approx(np.mean(diffs))
    assert row["mean_diff_lo"] <= row["mean_diff"] <= row["mean_diff_hi"]
    assert row["kappa_diff"] == pytest.approx(row["kappa_a"] - row["kappa_b"])
    pairs = report.table("judge_pairs").frame
    # Judges of one strategy are ordered by name: aspect-b before judge_aspect.
    same = pairs[
        (pairs["judge_a"] == f"aspect-b [{JUDGE_B_MODEL}]")
        & (pairs["judge_b"] == f"judge_aspect [{JUDGE_MODEL}]")
    ].iloc[0]
    a = [expected_judge("aspect-b", GPT, "zero_shot", i) for i in IDS]
    b = [expected_judge("aspect", GPT, "zero_shot", i) for i in IDS]
    assert same["kappa"] == pytest.approx(cohen_kappa_score(a, b, labels=list(range(6))), abs=1e-12)
    assert "human" not in str(same["notes"])


# --- Tables 3, 4, 5 ---------------------------------------------------------------------------

ROWS = [
    pytest.param(GPT, "zero_shot", id="gpt-zero"),
    pytest.param(GPT, "few_shot", id="gpt-few"),
    pytest.param(VISTRAL, "zero_shot", id="vistral-zero-with-empty-answer"),
    pytest.param(VISTRAL, "few_shot", id="vistral-few-with-unscored"),
]
EXPLAIN_IDS = IDS  # 17, the demonstration idiom, is not among them


@pytest.mark.slow
@pytest.mark.parametrize(("model", "prompt"), ROWS)
def test_table3_theme_means_are_hand_computed_means_without_unscored(
    report: Report, model: str, prompt: str
) -> None:
    values = {i: expected_judge("aspect", model, prompt, i) for i in EXPLAIN_IDS}
    row = _row(report, "table3_themes", model=model, prompt=prompt)
    for theme in {str(META[i]["theme"]) for i in EXPLAIN_IDS}:
        scored = [v for i, v in values.items() if META[i]["theme"] == theme and not math.isnan(v)]
        assert row[theme] == pytest.approx(np.mean(scored)), theme
    scored = [v for v in values.values() if not math.isnan(v)]
    assert row["Average"] == pytest.approx(np.mean(scored))
    assert row["n"] == len(scored) and row["unscored"] == len(values) - len(scored)
    assert not row["incomplete"]


@pytest.mark.slow
@pytest.mark.parametrize(("model", "prompt"), ROWS)
def test_table4_trait_means_count_an_item_toward_each_of_its_traits(
    report: Report, model: str, prompt: str
) -> None:
    row = _row(report, "table4_traits", model=model, prompt=prompt)
    for trait in TRAIT_NAMES:
        scored = [
            expected_judge("aspect", model, prompt, i)
            for i in EXPLAIN_IDS
            if trait in META[i]["traits"] and not math.isnan(expected_judge("aspect", model, prompt, i))
        ]
        assert row[trait] == pytest.approx(np.mean(scored)), trait


@pytest.mark.slow
def test_table3_rows_in_paper_layout(report: Report) -> None:
    frame = report.table("table3_themes").frame
    assert list(frame.columns[:10]) == [
        "model",
        "prompt",
        "Love",
        "Virtues",
        "Criticism",
        "Work and Nature",
        "Social Relationships",
        "Life Lessons",
        "Other",
        "Average",
    ]
    assert list(zip(frame["model"], frame["prompt"], strict=True)) == [
        (GPT, "zero_shot"),
        (GPT, "few_shot"),
        (VISTRAL, "zero_shot"),
        (VISTRAL, "few_shot"),
    ]
    assert list(report.table("table4_traits").frame.columns[2:7]) == list(TRAIT_NAMES)


@pytest.mark.slow
def test_table5_strict_and_lenient_accuracy_and_incomplete_row(report: Report) -> None:
    for model in (GPT, VISTRAL):
        row = _row(report, "table5_classification", model=model)
        topic_scores = [topic_expected(i) for i in IDS]
        traits_scores = [traits_expected(i) for i in IDS]
        assert row["topic"] == pytest.approx(np.mean([s for s, _ in topic_scores]))
        assert row["topic_lenient"] == pytest.approx(np.mean([lenient for _, lenient in topic_scores]))
        assert row["traits"] == pytest.approx(np.mean([s for s, _ in traits_scores]))
        assert row["traits_lenient"] == pytest.approx(np.mean([lenient for _, lenient in traits_scores]))
        assert not row["incomplete"]
    stopped = _row(report, "table5_classification", model=VINALLAMA)
    assert stopped["incomplete"] and stopped["n_traits"] == 5 and _missing(stopped["topic"])
    assert "incomplete_traits.eval" in report.markdown.split("###")[0]


@pytest.mark.slow
def test_no_paper_comparison_on_the_bundled_sample(report: Report) -> None:
    # GPT-4o, Vistral and a GPT-4.1 judge are the paper's, but 18 items of the bundled sample are
    # not its data: no comparison is written, and report.md says why in one line each.
    assert not [t.name for t in report.tables if t.name.endswith("_vs_paper")]
    head = report.markdown.split("###")[0]
    for table in ("Table 1", "Tables 3 and 4", "Table 5"):
        (line,) = [
            line
            for line in head.splitlines()
            if line.startswith(f"- no comparison with the paper's {table}:")
        ]
        assert "is not the pinned release" in line, line


@pytest.mark.slow
def test_usage_per_model_and_per_judge_including_rescoring_events(report: Report) -> None:
    usage = report.table("usage").frame
    rescored = usage[(usage["kind"] == "judge") & (usage["judge"] == "aspect-b")].iloc[0]
    assert rescored["calls"] == len(IDS) and rescored["input_tokens"] == 10 * len(IDS)
    generation = usage[
        (usage["kind"] == "generation") & (usage["task"] == "topic") & (usage["model"] == GPT)
    ].iloc[0]
    assert generation["input_tokens"] == 10 * len(IDS)


@pytest.mark.slow
def test_counts_table_reports_unscored_and_empty_answers(report: Report) -> None:
    counts = report.table("counts").frame
    row = counts[(counts["model"] == VISTRAL) & (counts["prompt"] == "few_shot")].iloc[0]
    assert row["unscored"] == sum(1 for i in IDS if i % 4 == 0) and row["scored"] + row["unscored"] == len(
        IDS
    )
    summary = report.table("judge_summary").frame
    aspect = summary[summary["judge"] == "judge_aspect"].iloc[0]
    assert aspect["empty_answers"] == 1 and aspect["generations"] == 4


# --- files, determinism, CLI ------------------------------------------------------------------


@pytest.mark.slow
def test_second_run_writes_identical_bytes(logs: Logs, report: Report) -> None:
    before = {path.name: path.read_bytes() for path in report.files}
    out = report.files[0].parent
    second = write_report(
        logs.root, out_dir=out, human=logs.human, formats=("md", "csv", "tex"), human_generation=ABLATION
    )
    after = {path.name: path.read_bytes() for path in second.files}
    assert before == after
    assert {
        "report.md",
        "table1_judges.csv",
        "table1_judges.tex",
        "themes_heatmap.png",
        "traits_bars.png",
        "judge_agreement.png",
        "judge_confusion.png",
    } <= set(after)
    assert second.markdown == report.markdown


@pytest.mark.slow
def test_cli_prints_the_markdown_and_writes_into_log_dir_report(
    logs: Logs, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = argparse.ArgumentParser(prog="vivid")
    report_cli.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(
        [
            "report",
            str(logs.root),
            "--human",
            str(logs.human),
            "--human-generation",
            ABLATION,
            "--format",
            "md,tex",
            "--no-figures",
        ]
    )
    assert args.handler(args) == 0
    printed = capsys.readouterr().out
    written = logs.root / "report" / "report.md"
    assert printed == written.read_text(encoding="utf-8")
    assert (
        (logs.root / "report" / "table5_classification.tex")
        .read_text(encoding="utf-8")
        .startswith("\\begin{table}")
    )
    # The report folder inside the log folder is not read as logs on the next run.
    again = write_report(
        logs.root, human=logs.human, formats=("md",), figures=False, human_generation=ABLATION
    )
    assert again.markdown == printed


@pytest.mark.slow
@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        pytest.param(["--format", "md,pdf"], "pdf", id="unknown-format"),
        pytest.param(["--judge", "nobody"], "nobody", id="unknown-judge"),
    ],
)
def test_cli_reports_bad_input(
    logs: Logs, tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], message: str
) -> None:
    parser = argparse.ArgumentParser(prog="vivid")
    report_cli.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["report", str(logs.root), "--out", str(tmp_path), "--no-figures", *arguments])
    assert args.handler(args) == 2
    assert message in capsys.readouterr().err


@pytest.mark.slow
def test_judge_option_chooses_the_judge_of_tables_3_and_4(logs: Logs, tmp_path: Path) -> None:
    chosen = write_report(logs.root, out_dir=tmp_path, formats=("csv",), judge="aspect-b", figures=False)
    frame = chosen.table("table3_themes").frame
    assert list(zip(frame["model"], frame["prompt"], strict=True)) == [(GPT, "zero_shot")]
    expected = np.mean([expected_judge("aspect-b", GPT, "zero_shot", i) for i in IDS])
    assert frame.iloc[0]["Average"] == pytest.approx(expected)


# --- degenerate inputs ------------------------------------------------------------------------


@pytest.mark.slow
def test_humans_with_no_overlap_are_reported_not_a_crash(logs: Logs, tmp_path: Path) -> None:
    human = tmp_path / "elsewhere.csv"
    human.write_text("id,score\n900,3\n901,4\n", encoding="utf-8")
    result = write_report(
        logs.root, out_dir=tmp_path / "out", human=human, formats=("md",), human_generation=ABLATION
    )
    row = _row(result, "table1_judges", judge="judge_aspect")
    assert row["n"] == 0 and _missing(row["kappa"]) and "no items scored by both" in str(row["notes"])
    assert not (tmp_path / "out" / "judge_agreement.png").exists()


@pytest.mark.slow
def test_one_judge_only_reports_what_cannot_be_compared(logs: Logs, tmp_path: Path) -> None:
    only = tmp_path / "only"
    only.mkdir()
    (only / Path(logs.ablation).name).write_bytes(Path(logs.ablation).read_bytes())
    # Keep one judge column: re-score the ablation generation with the aspect judge only.
    log = read_eval_log(str(only / Path(logs.ablation).name))
    log.samples = [
        s.model_copy(update={"scores": {"judge_aspect": s.scores["judge_aspect"]}}) for s in log.samples or []
    ]  # type: ignore[index]
    assert log.results is not None
    log.results.scores = [s for s in log.results.scores if s.name == "judge_aspect"]
    write_eval_log(log, str(only / Path(logs.ablation).name))
    human = tmp_path / "constant.csv"
    human.write_text("id,score\n" + "".join(f"{i},3\n" for i in ANNOTATOR_A), encoding="utf-8")
    result = write_report(only, out_dir=tmp_path / "out", human=human, formats=("md",))
    assert "needs two judges" in " ".join(result.table("judge_differences").notes)
    row = _row(result, "table1_judges", judge="judge_aspect")
    assert _missing(row["kappa"]) and "all human scores are 3" in str(row["notes"])
    # The kappa figure cannot be drawn: report.md names it with the reason, and no file is left.
    reason = "every judge's kappa with the humans is undefined (judge_aspect [mockllm/gpt-4.1]: kappa undefined: all"
    assert f"- `judge_agreement.png`: not drawn: {reason}" in result.markdown
    assert not (tmp_path / "out" / "judge_agreement.png").exists()
    assert (tmp_path / "out" / "judge_confusion.png").exists()


def test_empty_folder_gives_empty_tables(tmp_path: Path) -> None:
    result = write_report(tmp_path, formats=("md", "csv"))
    assert "no Inspect logs found" in result.markdown
    assert result.table("table3_themes").frame.empty


# --- annotation sheets ------------------------------------------------------------------------


@pytest.mark.slow
def test_export_is_blind_stratified_and_imports_back(logs: Logs, tmp_path: Path) -> None:
    sheet_path = tmp_path / "sheet.csv"
    sheet = export_sheet(logs.ablation, sheet_path, n=10, seed=3)
    text = sheet_path.read_text(encoding="utf-8-sig")
    assert text.splitlines()[0] == ",".join(SHEET_COLUMNS)
    assert "gpt" not in text.lower() and "mockllm" not in text and "judge" not in text.lower()
    assert len(sheet) == 10 and sheet["id"].is_unique
    themes = {str(META[int(i)]["theme"]) for i in sheet["id"]}
    assert len(themes) >= 5  # proportional allocation spreads 10 items over the themes
    for record in sheet.to_dict("records"):
        assert record["explanation"] == explanation(GPT, "zero_shot", int(record["id"]))
        assert record["idiom"] == nfc(str(_ITEMS_BY_ID[int(record["id"])].input))
    assert export_sheet(logs.ablation, tmp_path / "again.csv", n=10, seed=3).equals(sheet)

    with sheet_path.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        row["score"] = str(human_score(int(row["id"]), "a"))
    filled = tmp_path / "ann_a.csv"
    with filled.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(SHEET_COLUMNS))
        writer.writeheader()
        writer.writerows(rows)
    scores = import_sheets([filled], tmp_path / "human.csv")
    assert set(scores["annotator"]) == {"ann_a"} and len(scores) == 10
    assert read_human_scores(tmp_path / "human.csv").equals(scores)


def test_import_lists_every_problem_of_a_sheet(tmp_path: Path) -> None:
    sheet = tmp_path / "sheet.csv"
    sheet.write_text(
        "id,idiom,reference_meaning,explanation,score,annotator\n"
        '1,a,b,"hai\ndòng",4,\n'
        "2,a,b,c,,\n"
        "x,a,b,c,9,\n"
        "1,a,b,c,3,\n",
        encoding="utf-8",
    )
    with pytest.raises(ValueError) as error:
        import_sheets([sheet], tmp_path / "human.csv", annotator="lan")
    message = str(error.value)
    assert "data row 2 (line 4), column 'score': not scored yet" in message
    assert "data row 3 (line 5), column 'id'" in message and "found '9'" in message
    assert "id 1 scored again by 'lan'" in message
    assert not (tmp_path / "human.csv").exists()


@pytest.mark.slow
def test_annotate_cli_export_needs_one_generation(
    logs: Logs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = argparse.ArgumentParser(prog="vivid")
    annotate_cli.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["annotate", "export", str(logs.root), "--out", str(tmp_path / "s.csv")])
    assert args.handler(args) == 2
    assert "--generation" in capsys.readouterr().err
    name = Path(logs.ablation).name
    args = parser.parse_args(
        [
            "annotate",
            "export",
            str(logs.root),
            "--generation",
            name,
            "-n",
            "5",
            "--out",
            str(tmp_path / "s.csv"),
        ]
    )
    assert args.handler(args) == 0
    assert len((tmp_path / "s.csv").read_text(encoding="utf-8-sig").splitlines()) == 6
