"""The judge card: may this judge replace the annotators on this data? One page per judge.

A page gathers what the report knows of one judge against people: its agreement with the humans
(Cohen's kappa with its interval, Krippendorff's alpha), the alternative annotator test
(:mod:`vivid_inspect.lab.report.alt_test`), its bias and the corrected mean on every generation with
human scores (:mod:`vivid_inspect.lab.report.corrected`), and the verdicts of any ``vivid audit`` of it
in the folder. Its first line is the verdict, one of :data:`VERDICTS`:

- **yes**: the judge passes the alternative annotator test on every generation tested, each with
  the design the authors recommend (three or more annotators, 30 or more shared items each), and no
  audit of it in the folder failed;
- **no**: it fails the test on a generation with that design;
- **not enough evidence**: anything else, with what is missing said plainly (human scores,
  annotators, shared items, or an audit that failed) and how much more would settle it.

The card never stands in for people: without human scores it says so, and names the commands that
collect them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from vivid_inspect.lab.report.agreement import agreement
from vivid_inspect.lab.report.alt_test import (
    RECOMMENDED_ANNOTATORS,
    RECOMMENDED_ITEMS,
    AltTest,
    alt_tests,
    items_to_pass,
)
from vivid_inspect.lab.report.audit_tables import audited
from vivid_inspect.lab.report.corrected import VARIANCE_NOTE, Corrected, corrected_cell
from vivid_inspect.lab.report.intervals import Interval, interval_text
from vivid_inspect.lab.report.render import Table

CARD_FILE = "judge_card.md"
YES, NO, UNDECIDED = "yes", "no", "not enough evidence"
VERDICTS = (YES, NO, UNDECIDED)
SINGLE = "(no annotator column)"
"""The annotator name of a human file without an ``annotator`` column (one annotator)."""


@dataclass(frozen=True)
class HumanLabels:
    """The human scores bound to one generation.

    Attributes:
        generation: The generation's key in the score rows.
        label: ``MODEL PROMPT`` of the generation, for people.
        annotators: Each annotator's score per item (one annotator named :data:`SINGLE` when the
            file has no ``annotator`` column).
        drawn: How the labelled items were drawn, as the record beside the file says, or the
            assumption made when nothing says.
    """

    generation: str
    label: str
    annotators: Mapping[str, Mapping[int, float]]
    drawn: str

    def means(self) -> dict[int, float]:
        """Each labelled item's score: the mean over its annotators."""
        scores: dict[int, list[float]] = {}
        for given in self.annotators.values():
            for item, score in given.items():
                scores.setdefault(item, []).append(float(score))
        return {item: float(np.mean(values)) for item, values in sorted(scores.items())}


@dataclass(frozen=True)
class JudgeScores:
    """One judge's score per item of every generation it scored (an item's epochs averaged).

    Attributes:
        name: The judge's name.
        model: Its model (empty for the lexical judge).
        strategy: Its strategy.
        by_generation: Generation key to item to score.
    """

    name: str
    model: str
    strategy: str
    by_generation: Mapping[str, Mapping[int, float]]

    @property
    def label(self) -> str:
        """``NAME`` or ``NAME@MODEL``."""
        return f"{self.name}@{self.model}" if self.model else self.name


@dataclass(frozen=True)
class Card:
    """One judge's card.

    Attributes:
        judge: The judge.
        verdict: One of :data:`VERDICTS`.
        why: The reason, one sentence.
        settle: What evidence would settle an undecided case (empty when decided).
        markdown: The page.
        tests: The alternative annotator test per generation key.
        corrected: The corrected columns per generation key.
    """

    judge: JudgeScores
    verdict: str
    why: str
    settle: tuple[str, ...]
    markdown: str
    tests: dict[str, AltTest] = field(default_factory=dict)
    corrected: dict[str, Corrected] = field(default_factory=dict)


def build_cards(
    judges: Sequence[JudgeScores],
    humans: Sequence[HumanLabels],
    audits: Sequence[Table],
    *,
    epsilon: float,
    log_dir: str = "LOG_DIR",
    generations: Sequence[str] = (),
) -> tuple[list[Card], list[Table]]:
    """Every judge's card, and the tables ``alt_test`` and ``judge_bias``.

    Args:
        judges: The LLM judges (and the lexical one) with their scores.
        humans: The human scores bound to generations (may be empty).
        audits: The report's audit tables.
        epsilon: The alternative annotator test's handicap.
        log_dir: The log folder, for the commands the card proposes.
        generations: ``MODEL PROMPT`` of the folder's explanation generations, for those commands.

    Returns:
        The cards, in the judges' order, and the two tables.
    """
    cards = [_card(judge, humans, audits, epsilon, log_dir, generations) for judge in judges]
    return cards, [_alt_test_table(cards, humans, epsilon), _bias_table(cards, humans)]


def cards_markdown(cards: Sequence[Card]) -> str:
    """The card file: one page per judge, separated by a rule."""
    if not cards:
        return "# Judge card\n\nNo judge scored an explanation in this folder: there is nothing to judge.\n"
    return "\n---\n\n".join(card.markdown for card in cards)


def _card(
    judge: JudgeScores,
    humans: Sequence[HumanLabels],
    audits: Sequence[Table],
    epsilon: float,
    log_dir: str,
    generations: Sequence[str],
) -> Card:
    mine = [h for h in humans if h.generation in judge.by_generation]
    cases = {
        h.generation: (dict(judge.by_generation[h.generation]), _several(h.annotators))
        for h in mine
        if len(_several(h.annotators)) >= 2
    }
    tests = alt_tests(cases, epsilon=epsilon) if cases else {}
    corrected = {h.generation: corrected_cell(judge.by_generation[h.generation], h.means()) for h in mine}
    audit_lines, audit_failed = _audits(judge, audits)
    verdict, why, settle = _verdict(judge, humans, mine, tests, audit_failed, log_dir, generations)
    lines = [
        f"# Judge card: {judge.label} (strategy {judge.strategy or 'unknown'})",
        "",
        f"**Can replace the annotators on this data: {verdict}.** {why}",
        "",
    ]
    if settle:
        lines += ["What would settle it:", "", *(f"- {step}" for step in settle), ""]
    lines += _agreement_section(judge, mine)
    lines += _alt_test_section(mine, tests, epsilon)
    lines += _bias_section(mine, corrected)
    lines += ["## Audit", "", *audit_lines, ""]
    lines += ["## What this rests on", ""]
    lines += [f"- {h.label}: {h.drawn}" for h in mine] or ["- no human scores were given"]
    lines.append(f"- {VARIANCE_NOTE}")
    return Card(judge, verdict, why, tuple(settle), "\n".join(lines) + "\n", dict(tests), corrected)


def _several(annotators: Mapping[str, Mapping[int, float]]) -> dict[str, Mapping[int, float]]:
    """The named annotators (a file without an annotator column has one, unnamed)."""
    return {name: scores for name, scores in annotators.items() if name != SINGLE}


def _verdict(
    judge: JudgeScores,
    humans: Sequence[HumanLabels],
    mine: Sequence[HumanLabels],
    tests: Mapping[str, AltTest],
    audit_failed: Sequence[str],
    log_dir: str,
    generations: Sequence[str],
) -> tuple[str, str, list[str]]:
    collect = _collect_command(log_dir, generations)
    if not humans:
        return (
            UNDECIDED,
            "There are no human scores in this report, so nothing compares the judge with people; "
            "the judge's own means are all the tables show.",
            [
                f"Scores by {RECOMMENDED_ANNOTATORS} or more annotators of the same {RECOMMENDED_ITEMS}+ explanations "
                f"of a generation this judge scored: {collect}",
                f"Then `vivid report {log_dir} --human HUMANS.csv` (repeat --human for each generation scored).",
            ],
        )
    if not mine:
        labels = ", ".join(h.label for h in humans)
        return (
            UNDECIDED,
            f"The human scores are of generations this judge did not score ({labels}).",
            [f"Judge those generations with this judge, or score one it judged: {collect}"],
        )
    if not tests:
        counts = ", ".join(f"{h.label}: {len(_several(h.annotators))} named annotator(s)" for h in mine)
        return (
            UNDECIDED,
            f"The alternative annotator test needs two or more annotators who scored the same items ({counts}).",
            [
                f"Have {RECOMMENDED_ANNOTATORS} or more annotators score at least {RECOMMENDED_ITEMS} shared items: "
                f"{collect}"
            ],
        )
    failed_full = [g for g, t in tests.items() if t.passed is False and _full(t)]
    by_key = {h.generation: h.label for h in mine}
    if failed_full:
        names = ", ".join(by_key[g] for g in failed_full)
        rates = ", ".join(f"omega {tests[g].winning_rate:.2f}" for g in failed_full)
        return NO, f"It fails the alternative annotator test on {names} ({rates} < 0.5).", []
    settle: list[str] = []
    for generation, test in tests.items():
        settle.extend(_more_evidence(by_key[generation], test))
    if audit_failed:
        settle.append(
            f"The audit found: {'; '.join(audit_failed)}; fix the judge or its prompt and audit it again."
        )
    if all(t.passed and _full(t) for t in tests.values()) and not audit_failed:
        n = len(tests)
        return (
            YES,
            f"It passes the alternative annotator test on {'every one of the ' + str(n) if n > 1 else 'the'} generation(s) tested, with the recommended design.",
            [],
        )
    passed = sum(1 for t in tests.values() if t.passed)
    why = f"It passes the alternative annotator test on {passed} of {len(tests)} generation(s)"
    why += (
        ", but not with the design the authors recommend" if not all(_full(t) for t in tests.values()) else ""
    )
    why += "; an audit of it failed" if audit_failed else ""
    return UNDECIDED, why + ".", settle


def _full(test: AltTest) -> bool:
    """The design the authors recommend: three or more annotators, 30 or more shared items each."""
    tested = [a for a in test.annotators if a.p_value is not None]
    return len(test.annotators) >= RECOMMENDED_ANNOTATORS and all(a.n >= RECOMMENDED_ITEMS for a in tested)


def _more_evidence(label: str, test: AltTest) -> list[str]:
    steps = []
    if len(test.annotators) < RECOMMENDED_ANNOTATORS:
        more = RECOMMENDED_ANNOTATORS - len(test.annotators)
        steps.append(f"{label}: {more} more annotator(s) on the shared items ({len(test.annotators)} now)")
    fewest = min((a.n for a in test.annotators if a.p_value is not None), default=0)
    if fewest < RECOMMENDED_ITEMS:
        steps.append(
            f"{label}: at least {RECOMMENDED_ITEMS} shared items per annotator (the fewest now: {fewest})"
        )
    if test.passed is False:
        needed = items_to_pass(test)
        if needed is None:
            steps.append(
                f"{label}: more items of the same kind would not make it pass at epsilon {test.epsilon}: fewer than half "
                "the annotators are farther from the others than the judge is, even with the handicap"
            )
        else:
            steps.append(
                f"{label}: about {needed} shared items per annotator, if the judge keeps its present advantage, would let "
                "the test decide"
            )
    return steps


def _collect_command(log_dir: str, generations: Sequence[str]) -> str:
    selector = f' --generation "{generations[0]}"' if generations else ""
    return (
        f"`vivid annotate serve {log_dir}{selector} --annotators A,B,C --overlap {RECOMMENDED_ITEMS} -n 200` "
        "(or `vivid annotate export` sheets for each annotator)"
    )


def _agreement_section(judge: JudgeScores, mine: Sequence[HumanLabels]) -> list[str]:
    lines = ["## Agreement with the humans", ""]
    if not mine:
        return [*lines, "No human scores of a generation this judge scored.", ""]
    lines += ["| generation | n | kappa | kappa 95 % CI | alpha (ordinal) |", "|---|---:|---:|---|---:|"]
    for h in mine:
        try:
            result = agreement(judge.by_generation[h.generation], h.means(), n_boot=1)
        except ValueError as error:
            lines.append(f"| {h.label} |  |  | {error} |  |")
            continue
        kappa = result.intervals.get("kappa")
        ci = interval_text(kappa) if kappa is not None else ""
        lines.append(f"| {h.label} | {result.n} | {_num(result.kappa)} | {ci} | {_num(result.alpha)} |")
    return [*lines, ""]


def _alt_test_section(mine: Sequence[HumanLabels], tests: Mapping[str, AltTest], epsilon: float) -> list[str]:
    lines = [
        f"## Alternative annotator test (epsilon {epsilon}; Calderon, Reichart and Dror 2025)",
        "",
        "Each annotator left out in turn: is the judge at least as close to the other annotators as they are "
        "(-RMSE per item), with the annotator handicapped by epsilon? omega is the share of annotators the "
        "judge wins against (passes at 0.5), rho the chance it is as good as a random annotator.",
        "",
    ]
    if not tests:
        return [*lines, "Not run: no generation has two or more annotators on shared items.", ""]
    lines += [
        "| generation | annotators | shared items | omega | rho | result |",
        "|---|---:|---:|---:|---:|---|",
    ]
    labels = {h.generation: h.label for h in mine}
    for generation, test in tests.items():
        result = "pass" if test.passed else "fail" if test.passed is False else "not tested"
        lines.append(
            f"| {labels[generation]} | {len(test.annotators)} | {test.items} | {_num(test.winning_rate)} | "
            f"{_num(test.advantage)} | {result} |"
        )
    for generation, test in tests.items():
        for a in test.annotators:
            if a.p_value is not None:
                lines.append(
                    f"- {labels[generation]}, annotator {a.annotator}: {a.n} items, judge wins {a.judge_wins:.2f}, "
                    f"annotator wins {a.annotator_wins:.2f}, p {a.p_value:.3g}: {'judge wins' if a.won else 'not won'}"
                )
        lines.extend(f"- {labels[generation]}: {warning}" for warning in test.warnings)
    return [*lines, ""]


def _bias_section(mine: Sequence[HumanLabels], corrected: Mapping[str, Corrected]) -> list[str]:
    lines = ["## Bias and the corrected means", ""]
    if not mine:
        return [*lines, "No human scores: the judge's bias cannot be measured.", ""]
    lines += [
        "| generation | labelled | items | human mean | corrected mean | 95 % CI | bias (judge - human) | 95 % CI |",
        "|---|---:|---:|---:|---:|---|---:|---|",
    ]
    for h in mine:
        c = corrected[h.generation]
        lines.append(
            f"| {h.label} | {c.n_human} | {c.n_items} | {_num(c.human.estimate)} | {_num(c.corrected.estimate)} | "
            f"{_ci(c.corrected)} | {_num(c.bias.estimate)} | {_ci(c.bias)} |"
        )
    sentence = bias_leaning([(h.label, corrected[h.generation]) for h in mine])
    if sentence:
        lines += ["", sentence]
    return [*lines, ""]


def bias_leaning(corrected: Sequence[tuple[str, Corrected]]) -> str | None:
    """One sentence naming the generations a judge is lenient or harsh on, or None when none is clear.

    Args:
        corrected: Each generation's label and corrected columns.

    Returns:
        The sentence (lenient: the bias interval is above 0; harsh: below), or None.
    """
    lenient = [label for label, c in corrected if c.bias.lo is not None and c.bias.lo > 0]
    harsh = [label for label, c in corrected if c.bias.hi is not None and c.bias.hi < 0]
    if lenient and harsh:
        return f"The judge is lenient on {', '.join(lenient)} and harsh on {', '.join(harsh)}: its own means misrank them."
    if lenient or harsh:
        side, which = ("lenient", lenient) if lenient else ("harsh", harsh)
        return f"The judge is {side} on {', '.join(which)} (the bias interval excludes 0)."
    return None


def _audits(judge: JudgeScores, audits: Sequence[Table]) -> tuple[list[str], list[str]]:
    lines, failed = [], []
    for table in audits:
        found = audited(table)
        if found is None or found[0] != judge.model or found[1] != judge.strategy:
            continue
        lines.append(f"- {table.name}: {found[2]}")
        frame = table.frame
        for row in frame.itertuples(index=False):
            if str(getattr(row, "verdict", "")) == "fail":
                failed.append(f"probe {row.probe} failed ({row.reason})")
                lines.append(f"  - probe {row.probe}: fail: {row.reason}")
    if not lines:
        lines = [
            f"No `vivid audit` of this judge in the folder (`vivid audit {judge.model or judge.name} --strategy "
            f"{judge.strategy or 'aspect'}` probes it for known biases)."
        ]
    return lines, failed


def _alt_test_table(cards: Sequence[Card], humans: Sequence[HumanLabels], epsilon: float) -> Table:
    labels = {h.generation: h.label for h in humans}
    records = []
    for card in cards:
        for generation, test in card.tests.items():
            records.append(
                {
                    "judge": card.judge.name,
                    "judge_model": card.judge.model,
                    "generation": generation,
                    "generation_label": labels.get(generation, ""),
                    "epsilon": test.epsilon,
                    "annotators": len(test.annotators),
                    "annotators_tested": test.tested,
                    "items": test.items,
                    "winning_rate": test.winning_rate,
                    "advantage": test.advantage,
                    "passed": test.passed,
                    "won_against": ", ".join(a.annotator for a in test.annotators if a.won),
                    "notes": "; ".join(test.warnings),
                }
            )
    columns = [
        "judge",
        "judge_model",
        "generation",
        "generation_label",
        "epsilon",
        "annotators",
        "annotators_tested",
        "items",
        "winning_rate",
        "advantage",
        "passed",
        "won_against",
        "notes",
    ]
    notes = (
        f"the alternative annotator test (Calderon et al. 2025): epsilon {epsilon}, q 0.05 (Benjamini-Yekutieli over "
        "every annotator of every generation of a judge); winning_rate: share of annotators the judge wins against, "
        "passed: winning_rate >= 0.5; advantage: the judge's mean probability of being as close to the others as "
        "the left-out annotator",
        f"the authors recommend {RECOMMENDED_ANNOTATORS}+ annotators and {RECOMMENDED_ITEMS}+ shared items: notes say "
        "where the design is smaller",
    )
    frame = pd.DataFrame(records, columns=columns)
    return Table(
        "alt_test",
        "Alternative annotator test: may the judge replace the annotators?",
        frame,
        decimals=3,
        notes=notes,
        counts=("annotators", "annotators_tested", "items"),
    )


def _bias_table(cards: Sequence[Card], humans: Sequence[HumanLabels]) -> Table:
    labels = {h.generation: h.label for h in humans}
    records = []
    for card in cards:
        for generation, c in card.corrected.items():
            records.append(
                {
                    "judge": card.judge.name,
                    "judge_model": card.judge.model,
                    "generation": generation,
                    "generation_label": labels.get(generation, ""),
                    "n_human": c.n_human,
                    "n_items": c.n_items,
                    "human_mean": c.human.estimate,
                    "corrected_mean": c.corrected.estimate,
                    "corrected_mean_lo": c.corrected.lo,
                    "corrected_mean_hi": c.corrected.hi,
                    "bias": c.bias.estimate,
                    "bias_lo": c.bias.lo,
                    "bias_hi": c.bias.hi,
                    "lam": c.lam,
                    "note": "; ".join(filter(None, {c.corrected.reason, c.bias.reason})),
                }
            )
    columns = [
        "judge",
        "judge_model",
        "generation",
        "generation_label",
        "n_human",
        "n_items",
        "human_mean",
        "corrected_mean",
        "corrected_mean_lo",
        "corrected_mean_hi",
        "bias",
        "bias_lo",
        "bias_hi",
        "lam",
        "note",
    ]
    notes = (
        "bias: the judge's mean minus the humans' over the labelled items (positive: lenient), what the "
        "correction removes; corrected_mean: the prediction-powered (PPI++) mean over every item, lam its "
        "power-tuning weight on the judge",
        VARIANCE_NOTE,
    )
    return Table(
        "judge_bias",
        "The judge's bias per generation, and the corrected means",
        pd.DataFrame(records, columns=columns),
        decimals=3,
        notes=notes,
        counts=("n_human", "n_items"),
    )


def _num(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}"


def _ci(interval: Interval) -> str:
    return interval_text(interval) or ""
