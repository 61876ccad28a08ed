"""The report opens with what a reader acts on: an unreadable judge first, headline means, what is missing."""

from __future__ import annotations

import re
import shlex

import pandas as pd
import pytest

from tests.recommended_commands import failing, vivid_only
from vivid_inspect.lab.cli.main import build_parser
from vivid_inspect.lab.report.cards.judge_card import SINGLE, HumanLabels, JudgeScores, build_cards
from vivid_inspect.lab.report.cards.summary import annotate_command, report_generations, summary_markdown
from vivid_inspect.lab.report.tables.render import Table


def _themes(rows: list[dict[str, object]]) -> Table:
    frame = pd.DataFrame(rows)
    return Table("table3_themes", "Table 3", frame, csv_frame=frame)


def _judges(rows: list[dict[str, object]]) -> Table:
    return Table("judge_summary", "Judges", pd.DataFrame(rows))


ROW = {
    "model": "m/one",
    "prompt": "zero_shot",
    "judge": "aspect",
    "judge_model": "j/x",
    "cell": "Average",
    "judge_mean": 3.125,
    "judge_mean_lo": 2.5,
    "judge_mean_hi": 3.75,
    "n_items": 31,
    "corrected_mean": float("nan"),
    "n_human": 0,
}


def _summary(tables: list[Table], has_humans: bool = False) -> str:
    return summary_markdown(tables, has_humans=has_humans, log_dir="runs/my logs", unscored_limit=0.2)


@pytest.mark.parametrize(
    ("unscored", "refused", "named"),
    [(0, 0, False), (20, 0, False), (21, 0, True), (10, 11, True), (100, 0, True)],
    ids=["none", "at-the-limit", "above", "unscored-plus-refused", "all"],
)
def test_a_judge_that_could_not_score_opens_the_summary(unscored: int, refused: int, named: bool) -> None:
    judges = _judges(
        [{"judge": "aspect", "judge_model": "j/x", "samples": 100, "unscored": unscored, "refused": refused}]
    )
    text = _summary([_themes([ROW]), judges])
    lines = text.splitlines()
    assert lines[0] == "## Summary"
    assert ("could not score" in lines[2]) is named
    if named:
        assert f"{unscored + refused} of 100" in lines[2] and lines.index(lines[2]) < lines.index(
            next(line for line in lines if line.startswith("- headline"))
        )


def test_each_generation_has_its_mean_interval_n_and_judge() -> None:
    other = {**ROW, "model": "m/two", "judge_mean": 4.0, "judge_mean_lo": None, "judge_mean_hi": None}
    theme_row = {**ROW, "cell": "Love", "judge_mean": 1.0}
    text = _summary([_themes([ROW, theme_row, other])])
    assert "  - m/one zero_shot: 3.12 [2.50, 3.75], n=31 (judge aspect [j/x])" in text
    assert "  - m/two zero_shot: 4.00 (no interval at this n), n=31" in text
    assert "1.00" not in text  # a theme is not a headline


def test_a_corrected_mean_follows_the_judge_mean_where_humans_scored() -> None:
    row = {**ROW, "corrected_mean": 2.9, "corrected_mean_lo": 2.1, "corrected_mean_hi": 3.6, "n_human": 40}
    text = _summary([_themes([row])], has_humans=True)
    assert "corrected by 40 human labels: 2.90 [2.10, 3.60]" in text
    assert "missing" not in text


def test_missing_human_scores_come_with_commands_that_parse_as_written() -> None:
    text = _summary([_themes([ROW])])
    commands = [part for line in text.splitlines() for part in line.split("`")[1::2]]
    assert len(commands) == 2
    parser = build_parser()
    for command in commands:
        words = shlex.split(command)
        assert words[0] == "vivid"
        parser.parse_args(words[1:])  # SystemExit(2) on an unknown option or a bad value
    assert "'runs/my logs'" in commands[0] and "--generation 'm/one zero_shot'" in commands[0]


def test_no_judged_explanations_say_so() -> None:
    assert "no judged explanations" in _summary([])


def test_every_summary_line_fits_a_terminal() -> None:
    judges = _judges(
        [{"judge": "aspect", "judge_model": "j/x", "samples": 100, "unscored": 90, "refused": 0}]
    )
    text = _summary([_themes([ROW]), judges])
    assert (
        max(len(line) for line in text.splitlines() if "`" not in line) <= 120
    )  # a command is as long as its path


@pytest.mark.parametrize("name", ["m/one\nforged line", "m/\x1b[2Jone", "m/one\r\n- forged", "m/\u202eeno"])
def test_names_from_the_logs_are_printed_escaped_on_their_own_line(name: str) -> None:
    judges = _judges([{"judge": name, "judge_model": name, "samples": 10, "unscored": 9, "refused": 0}])
    text = _summary([_themes([{**ROW, "model": name, "judge": name, "judge_model": name}]), judges])
    assert not any(line.startswith(("forged", "- forged")) for line in text.splitlines())
    assert "\x1b" not in text and "\r" not in text and "\u202e" not in text
    assert len(text.splitlines()) == len(_summary([_themes([ROW]), judges]).splitlines())


def _folder(generations: list[tuple[str, str, int]]) -> list[Table]:
    return [_themes([{**ROW, "model": m, "prompt": p, "n_items": n} for m, p, n in generations])]


FOLDERS = {
    "literal-first": [
        ("vivid/literal", "zero_shot", 46),
        ("vivid/literal", "few_shot", 46),
        ("vivid/oracle", "zero_shot", 46),
    ],
    "oracle-first": [("vivid/oracle", "zero_shot", 250), ("vivid/literal", "zero_shot", 250)],
    "small": [("m/x y", "cot", 12)],
    "large": [("m/one", "zero_shot", 1200), ("m/two", "few_shot", 12)],
}


def _serve(text: str) -> list[str]:
    return [part for part in text.split("`") if part.startswith("vivid annotate serve")]


@pytest.mark.parametrize("folder", FOLDERS, ids=list(FOLDERS))
def test_the_summary_and_every_card_recommend_one_and_the_same_command(folder: str) -> None:
    """Following the summary and then a card must never ask ``serve`` for two generations of one folder."""
    tables = _folder(FOLDERS[folder])
    generations = report_generations(tables)
    assert [g for g, _ in generations] == [f"{m} {p}" for m, p, _ in FOLDERS[folder]]  # the report's order
    (from_summary,) = _serve(_summary(tables))
    judge = JudgeScores("aspect", "j/x", "aspect", {"g1": {i: 3.0 for i in range(1, 13)}})
    card = build_cards([judge], [], [], epsilon=0.2, log_dir="runs/my logs", generations=generations)[0][0]
    assert _serve(card.markdown) == [from_summary]
    asked = re.findall(r"(\d+)\+? (?:shared items|explanations)", " ".join(card.settle))
    assert asked and all(int(n) <= generations[0][1] for n in asked)  # never more than the generation holds
    first, items = generations[0]
    assert f"--generation {shlex.quote(first)}" in from_summary
    assert f"--overlap {min(30, items)}" in from_summary and " -n " not in from_summary
    build_parser().parse_args(shlex.split(from_summary)[1:])
    # Once people scored a generation, the card asks for more of that one, not for the first.
    scored, _ = generations[-1]
    humans = [HumanLabels("g1", scored, {SINGLE: {1: 3.0, 2: 4.0}}, "drawn")]
    card = build_cards([judge], humans, [], epsilon=0.2, log_dir="runs/my logs", generations=generations)[0][
        0
    ]
    (step,) = _serve(card.markdown)
    assert f"`{step}`" == annotate_command("runs/my logs", generations, [scored])
    assert f"--generation {shlex.quote(scored)}" in step


def test_two_generations_of_one_model_and_prompt_are_named_by_their_key() -> None:
    """``MODEL PROMPT`` shared by two generations (other data, another eval's tasks) selects neither."""
    rows = [{**ROW, "generation": key, "n_items": n} for key, n in (("g1", 40), ("g2", 8))]
    tables = [_themes([*rows, {**ROW, "model": "m/two", "generation": "g3"}])]
    assert report_generations(tables) == [("g1", 40), ("g2", 8), ("m/two zero_shot", 31)]
    (serve,) = _serve(_summary(tables))
    assert "--generation g1 " in serve and failing([f"`{serve}`"]) == {}


@pytest.mark.parametrize("strategy", ["", "aspect"], ids=["another eval", "VIVID"])
def test_another_evals_summary_asks_for_a_csv_and_names_its_generation(strategy: str) -> None:
    """Another eval's judge (no VIVID strategy): the same `vivid annotate serve`, and the CSV's generation named."""
    rows = [{**ROW, "generation": key, "prompt": "-"} for key in ("g1", "g2")]
    judge = {"judge": "aspect", "judge_model": "j/x", "strategy": strategy, "samples": 31, "unscored": 0}
    text = _summary([_themes(rows), _judges([judge])])
    assert failing([text]) == {} and vivid_only([text]) == []
    (serve,) = _serve(text)
    assert "--generation g1 " in serve and "--overlap 30" in serve
    assert ("`vivid report 'runs/my logs' --human humans.csv --human-generation g1`" in text) == (
        strategy == ""
    )
