"""Every command a judge card or an audit card recommends parses as written (issue 29.1).

The report folders of other tests check their written files with the same helper
(tests/recommended_commands.py): the offline job (tests/lab/cli/test_offline_job.py), a folder with
human scores and the lexical judge (tests/lab/report/test_corrected_report.py), a folder with an
audit (tests/lab/runner/test_spec_audits.py) and a written audit card
(tests/lab/audit/test_audit_card.py). Here: cards built in memory for every kind of judge and every
state of the human evidence, fast.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.recommended_commands import failing, problem, recommended, vivid_only
from vivid_inspect.lab.audit.card import build_card
from vivid_inspect.lab.audit.probes import PROBES
from vivid_inspect.lab.report.cards.judge_card import SINGLE, HumanLabels, JudgeScores, build_cards
from vivid_inspect.lab.report.cards.summary import annotate_command, report_command

DRAWN = "drawn by vivid annotate export: uniform within the generation, stratified by theme"


@pytest.mark.parametrize(
    "command",
    [
        "vivid audit lexical --strategy lexical",  # what the offline job's card recommended
        "vivid annotate serve logs --generationz x --annotators A",
        "vivid nonsense",
        "vivid report --human A.csv",  # no folder
    ],
)
def test_a_command_that_does_not_parse_is_caught(command: str):
    assert problem(command) is not None
    assert failing([f"run `{command}` now"]) == {command: problem(command)}


@pytest.mark.parametrize(
    "command",
    [
        "vivid annotate export",  # names a command
        "vivid audit vivid/chrf --data sample",
        'vivid annotate serve logs/offline --generation "vivid/literal zero_shot" --annotators A,B,C --overlap 30 -n 200',
    ],
)
def test_a_command_that_parses_passes(command: str):
    assert problem(command) is None and recommended(f"x `{command}` y") == [command]


def _humans(seed: int, annotators: int, shared: int) -> tuple[dict[int, float], dict[str, dict[int, float]]]:
    rng = np.random.default_rng(seed)
    quality = rng.choice(6, size=200, p=[0.05, 0.1, 0.15, 0.25, 0.25, 0.2])
    scores = {f"a{k}": np.clip(np.rint(quality + rng.normal(0, 0.9, 200)), 0, 5) for k in range(annotators)}
    judge = np.clip(np.rint(quality + rng.normal(0, 0.9, 200)), 0, 5)
    return {i: float(judge[i]) for i in range(200)}, {
        a: {i: float(s[i]) for i in range(shared)} for a, s in scores.items()
    }


JUDGES = [
    ("lexical", "", "lexical"),
    ("chrf_aspect", "vivid/chrf", "aspect"),
    ("aspect", "openai/gpt-4.1", "aspect"),
    ("judge_custom", "openai/gpt-4.1", "custom"),  # a strategy vivid audit does not know
    ("rubric", "mockllm/grader", ""),  # another eval's scorer: no VIVID strategy
]
EVIDENCE = ["none", "other generation", "one annotator", "2 x 20", "3 x 30", "unreadable"]


@pytest.mark.parametrize("evidence", EVIDENCE)
@pytest.mark.parametrize(("name", "model", "strategy"), JUDGES)
def test_every_command_a_judge_card_recommends_parses(name: str, model: str, strategy: str, evidence: str):
    judge, annotators = _humans(
        len(evidence), 3 if evidence == "3 x 30" else 2, 30 if evidence == "3 x 30" else 20
    )
    humans = {
        "none": [],
        "other generation": [HumanLabels("g2", "other zero_shot", annotators, DRAWN)],
        "one annotator": [HumanLabels("g1", "m zero_shot", {SINGLE: annotators["a0"]}, DRAWN)],
    }.get(evidence, [HumanLabels("g1", "m zero_shot", annotators, DRAWN)])
    unscored = 150 if evidence == "unreadable" else 0
    scores = JudgeScores(name, model, strategy, {"g1": judge}, 200, unscored)
    cards, _ = build_cards(
        [scores],
        humans,
        [],
        epsilon=0.2,
        log_dir="logs/my run",
        generations=[("vivid/literal zero_shot", 400)],
    )
    text = cards[0].markdown
    # every VIVID card names at least one command (another eval's has no audit to name)
    assert recommended(text) or strategy == ""
    assert failing([text]) == {}
    # another eval's card recommends no VIVID-only command; VIVID's cards still recommend serve and audit
    assert (vivid_only([text]) == []) == (strategy == "")


@pytest.mark.parametrize("scored", [(), ("m -",)])
def test_another_evals_report_command_names_its_generation_when_the_folder_holds_several(
    scored: tuple[str, ...],
):
    """Another eval's CSV names no generation: with several, the command selects the one to score."""
    one, several = [("m -", 40)], [("m -", 40), ("g2", 8)]
    assert report_command("logs", "h.csv", one, scored, True) == "`vivid report logs --human h.csv`"
    assert report_command("logs", "h.csv", several, scored, True).endswith("--human-generation 'm -'`")
    assert report_command("logs", "h.csv", several, scored, False) == "`vivid report logs --human h.csv`"
    # and the serve command names the same generation, whose items it draws (another eval's too)
    assert "serve logs --generation 'm -' --annotators A,B,C --overlap 30`" in annotate_command(
        "logs", several, scored
    )


def test_every_command_an_audit_card_recommends_parses():
    rng = np.random.default_rng(3)
    probes = list(PROBES.values())
    scores = {probe.name: {i: float(rng.integers(0, 6)) for i in range(30)} for probe in probes}
    card = build_card(scores, probes, judge="openai/gpt-4.1", strategy="cot", language="en", data="sample")
    assert recommended(card.markdown())
    assert failing([card.markdown()]) == {}
