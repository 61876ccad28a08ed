"""The judge card: may this judge replace the annotators on this data? One page per judge.

A page gathers what the report knows of one judge against people: its agreement with the humans
(Cohen's kappa with its interval, Krippendorff's alpha), the alternative annotator test
(`vivid_inspect.lab.report.stats.alt_test`), its bias and the corrected mean on every generation with
human scores (`vivid_inspect.lab.report.stats.corrected`), and the verdicts of any ``vivid audit`` of it
in the folder. When more than `UNSCORED_SHARE_LIMIT` of the items
it judged got no readable score, the page says so first. Then it answers two questions apart, each
one of `VERDICTS` on a line of its own:

1. *May it replace the annotators item by item?* **yes** when it passes the alternative annotator
   test on every generation tested with the authors' minimum design (3 or more annotators, 30 or
   more shared items each) and no audit of it failed; **no** only when the evidence rules it out
   (its replies were mostly unreadable, or, with that design, annotators beat it by more than the
   handicap on more than half the comparisons); **not enough evidence** otherwise, with the design
   (annotators, shared items) that would settle it, computed by
   `settling_design`.
2. *Are its means unbiased on these generations?* **yes** when every bias interval lies inside
   ±`BIAS_TOLERANCE` (on another judge's scale the same share of its range,
   `JudgeScores.tolerance`); **no** when one lies wholly outside it; **not enough evidence**
   otherwise, with the labelled items that would settle it. A "yes" to the first question never
   stands without the caveat when the second is not "yes": read ``corrected_mean``.

The card never stands in for people: without human scores it says so, and names the commands that
collect them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from vivid_inspect.lab.report.cards.audit_tables import audited
from vivid_inspect.lab.report.cards.summary import annotate_command, annotate_target, report_command
from vivid_inspect.lab.report.reading.judged import VIVID_SCALE, Scale
from vivid_inspect.lab.report.reading.vivid import LLM_STRATEGIES
from vivid_inspect.lab.report.stats.agreement import agreement
from vivid_inspect.lab.report.stats.alt_test import (
    BELOW_MINIMUM,
    MAX_ITEMS,
    PLANNING_CONFIDENCE,
    POWER,
    RECOMMENDED_ANNOTATORS,
    RECOMMENDED_ITEMS,
    AltTest,
    alt_tests,
    settling_design,
)
from vivid_inspect.lab.report.stats.corrected import MIN_LABELLED, VARIANCE_NOTE, Corrected, corrected_cell
from vivid_inspect.lab.report.stats.intervals import interval_text
from vivid_inspect.lab.report.stats.score_stats import kappa_reason
from vivid_inspect.lab.report.tables.render import Table
from vivid_inspect.lab.unscored import UNSCORED_SHARE_LIMIT, mostly_unscored

CARD_FILE = "judge_card.md"
YES, NO, UNDECIDED = "yes", "no", "not enough evidence"
VERDICTS = (YES, NO, UNDECIDED)
SINGLE = "(no annotator column)"
"""The annotator name of a human file without an ``annotator`` column (one annotator)."""
BIAS_TOLERANCE_SHARE = 0.04
"""The bias a judge's means may have, as a share of the score range."""
BIAS_TOLERANCE = BIAS_TOLERANCE_SHARE * (VIVID_SCALE.high - VIVID_SCALE.low)
"""0.2 points on the 0-5 scale: the paper's models of one size differ by less than that, so a larger
bias could reorder them. A judge's means count as unbiased when the bias interval lies inside ± it."""
READ_CORRECTED = "read `corrected_mean` (Tables 3 and 4, `judge_bias`), not the judge's own means"


@dataclass(frozen=True)
class HumanLabels:
    """The human scores bound to one generation.

    Attributes:
        generation: The generation's key in the score rows.
        label: ``MODEL PROMPT`` of the generation, for people.
        annotators: Each annotator's score per item (one annotator named `SINGLE` when the
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
        judged: Items it replied on, scored or not (0: not counted).
        unscored: Items of those with no readable score.
        reasons: The commonest reasons for those, with their counts.
        unscored_items: Generation key to the items it judged without a readable score: their own
            stratum of the corrected mean, which stays the mean human score over every item.
        scale: The scale it scores on (`vivid_inspect.lab.report.reading.judged.scale_of`): it bounds the corrected
            means, and the bias tolerance is `BIAS_TOLERANCE_SHARE` of its range.
    """

    name: str
    model: str
    strategy: str
    by_generation: Mapping[str, Mapping[int, float]]
    judged: int = 0
    unscored: int = 0
    reasons: tuple[str, ...] = ()
    unscored_items: Mapping[str, frozenset[int]] = field(default_factory=dict)
    scale: Scale = VIVID_SCALE

    @property
    def tolerance(self) -> float:
        """The bias its means may have: `BIAS_TOLERANCE` on VIVID's 0-5, the same share of another range."""
        return BIAS_TOLERANCE_SHARE * (self.scale.high - self.scale.low)

    @property
    def label(self) -> str:
        """``NAME`` or ``NAME@MODEL``."""
        return f"{self.name}@{self.model}" if self.model else self.name


@dataclass(frozen=True)
class Card:
    """One judge's card.

    Attributes:
        judge: The judge.
        verdict: May it replace the annotators item by item: one of `VERDICTS`.
        why: The reason, one sentence.
        settle: What evidence would settle an undecided case (empty when decided).
        means: Are its means unbiased within `BIAS_TOLERANCE`: one of `VERDICTS`.
        markdown: The page.
        tests: The alternative annotator test per generation key.
        corrected: The corrected columns per generation key.
        leaning: The sentence of `bias_leaning` on those generations (None: nothing clear).
    """

    judge: JudgeScores
    verdict: str
    why: str
    settle: tuple[str, ...]
    means: str
    markdown: str
    tests: dict[str, AltTest] = field(default_factory=dict)
    corrected: dict[str, Corrected] = field(default_factory=dict)
    leaning: str | None = None


def build_cards(
    judges: Sequence[JudgeScores],
    humans: Sequence[HumanLabels],
    audits: Sequence[Table],
    *,
    epsilon: float,
    log_dir: str = "LOG_DIR",
    generations: Sequence[tuple[str, int]] = (),
) -> tuple[list[Card], list[Table]]:
    """Every judge's card, and the tables ``alt_test`` and ``judge_bias``.

    Args:
        judges: The LLM judges (and the lexical one) with their scores.
        humans: The human scores bound to generations (may be empty).
        audits: The report's audit tables.
        epsilon: The alternative annotator test's handicap.
        log_dir: The log folder, for the commands the card proposes.
        generations: ``MODEL PROMPT`` and item count of the folder's explanation generations in the
            report's order (`vivid_inspect.lab.report.cards.summary.report_generations`), for those commands.

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
    generations: Sequence[tuple[str, int]],
) -> Card:
    mine = [h for h in humans if h.generation in judge.by_generation]
    cases = {
        h.generation: (dict(judge.by_generation[h.generation]), _several(h.annotators))
        for h in mine
        if len(_several(h.annotators)) >= 2
    }
    tests = alt_tests(cases, epsilon=epsilon) if cases else {}
    corrected = {
        h.generation: corrected_cell(
            judge.by_generation[h.generation],
            h.means(),
            unscored=judge.unscored_items.get(h.generation, ()),
            score_range=(judge.scale.low, judge.scale.high),
        )
        for h in mine
    }
    audit_lines, audit_failed = _audits(judge, audits)
    verdict, why, settle = _verdict(judge, humans, mine, tests, audit_failed, log_dir, generations)
    labels = {h.generation: h.label for h in mine}
    tolerance = judge.tolerance
    means, means_why, means_settle = _means_verdict([(labels[g], c) for g, c in corrected.items()], tolerance)
    if verdict == YES and means != YES:
        why += f" Item by item only: its means are not shown unbiased (next line); {READ_CORRECTED}."
    lines = [f"# Judge card: {judge.label} (strategy {judge.strategy or 'unknown'})", ""]
    if mostly_unscored(judge.unscored, judge.judged):
        lines += [_unreadable(judge), ""]
    lines += [
        f"**Can replace the annotators on this data: {verdict}.** {why}",
        "",
        f"**Its means are unbiased on these generations (bias inside ±{tolerance:g}{_share_of(judge.scale)}): "
        f"{means}.** {means_why}",
        "",
    ]
    if settle or means_settle:
        lines += ["What would settle it:", "", *(f"- {step}" for step in (*settle, *means_settle)), ""]
    lines += _agreement_section(judge, mine)
    lines += _alt_test_section(mine, tests, epsilon)
    own_means = {h.generation: float(np.mean(list(judge.by_generation[h.generation].values()))) for h in mine}
    leaning = bias_leaning([(h.label, own_means[h.generation], corrected[h.generation]) for h in mine])
    lines += _bias_section(mine, corrected, leaning)
    lines += ["## Audit", "", *audit_lines, ""]
    lines += ["## What this rests on", ""]
    lines += [f"- {h.label}: {h.drawn}" for h in mine] or ["- no human scores were given"]
    lines.append(f"- {VARIANCE_NOTE}")
    steps = (*settle, *means_settle)
    return Card(judge, verdict, why, steps, means, "\n".join(lines) + "\n", dict(tests), corrected, leaning)


def _unreadable(judge: JudgeScores) -> str:
    share = judge.unscored / judge.judged
    reasons = f"; commonest: {', '.join(judge.reasons)}" if judge.reasons else ""
    return (
        f"**Replies mostly unreadable: {judge.unscored} of {judge.judged} judged items ({share:.0%}) got no readable "
        f"score (limit {UNSCORED_SHARE_LIMIT:.0%}{reasons}).** Everything below rests on the items it did score; "
        "read its replies (`inspect view`) before using it."
    )


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
    generations: Sequence[tuple[str, int]],
) -> tuple[str, str, list[str]]:
    generic = not judge.strategy  # another eval's scorer
    # the summary's rule (annotate_command); a label two generations share selects neither: the key does
    scored = [h.label if h.label in dict(generations) or not generic else h.generation for h in humans]
    # Following both the summary and the card never asks serve for two generations.
    collect = f"{annotate_command(log_dir, generations, scored)} (or `vivid annotate export` sheets for each annotator)"
    shared = annotate_target(generations, scored)[1]  # never more than the items
    if mostly_unscored(judge.unscored, judge.judged):
        return (
            NO,
            f"It gave no readable score on {judge.unscored / judge.judged:.0%} of the items it judged: an annotator "
            "it replaced would leave those items unscored.",
            [
                "Fix the judge (its model, prompt or token limit) until its replies read as scores, then judge again."
            ],
        )
    if not humans:
        return (
            UNDECIDED,
            "There are no human scores in this report, so nothing compares the judge with people; "
            "the judge's own means are all the tables show.",
            [
                f"Scores by {RECOMMENDED_ANNOTATORS} or more annotators of the same {shared}+ explanations "
                f"of a generation this judge scored: {collect}",
                f"Then {report_command(log_dir, 'HUMANS.csv', generations, scored, generic)} (repeat --human "
                "for each generation scored).",
            ],
        )
    if not mine:
        labels = ", ".join(h.label for h in humans)
        return (
            UNDECIDED,
            f"The human scores are of generations this judge did not score ({labels}).",
            [
                "Judge those generations with this judge, then report again; more human scores of the same "
                f"generation: {collect}"
            ],
        )
    if not tests:
        counts = ", ".join(f"{h.label}: {len(_several(h.annotators))} named annotator(s)" for h in mine)
        return (
            UNDECIDED,
            f"The alternative annotator test needs two or more annotators who scored the same items ({counts}).",
            [
                f"Have {RECOMMENDED_ANNOTATORS} or more annotators score at least {shared} shared items: "
                f"{collect}"
            ],
        )
    by_key = {h.generation: h.label for h in mine}
    ruled_out = [g for g, t in tests.items() if t.ruled_out]
    if ruled_out:
        names = ", ".join(
            f"{by_key[g]} ({sum(a.lost for a in tests[g].annotators)} of {tests[g].tested})"
            for g in ruled_out
        )
        return (
            NO,
            f"Annotators are closer to each other than the judge is, by more than the handicap, on {names}: "
            "more items would not make it pass.",
            [],
        )
    settle = [
        step
        for generation, test in tests.items()
        if test.passed is not True
        for step in _more_evidence(by_key[generation], test, _items(judge, generation))
    ]
    if audit_failed:
        settle.append(
            f"The audit found: {'; '.join(audit_failed)}; fix the judge or its prompt and audit it again."
        )
    if all(t.passed for t in tests.values()) and not audit_failed:
        n = len(tests)
        return (
            YES,
            f"It passes the alternative annotator test on {'every one of the ' + str(n) if n > 1 else 'the'} "
            "generation(s) tested, with the authors' minimum design.",
            [],
        )
    outcomes = "; ".join(f"{by_key[g]}: {t.outcome}" for g, t in tests.items())
    why = f"The alternative annotator test neither clears nor rules it out ({outcomes})"
    why += "; an audit of it failed" if audit_failed else ""
    return UNDECIDED, why + ".", settle


def _items(judge: JudgeScores, generation: str) -> int:
    """The generation's items the judge judged, scored or not: no design may ask for more."""
    return len(judge.by_generation[generation]) + len(judge.unscored_items.get(generation, ()))


def _more_evidence(label: str, test: AltTest, items: int) -> list[str]:
    """The design that would settle an open test within the generation's ``items``, as the card's step."""
    design = settling_design(test, max_items=items)
    if design is None:
        return [
            f"{label}: {RECOMMENDED_ANNOTATORS} or more annotators on {min(RECOMMENDED_ITEMS, items)} shared items "
            "each"
        ]
    fewest = min(a.n for a in test.annotators if a.p_value is not None)
    if design.items is None:
        # More annotators can lower the items each must share: the fewest that fit in the generation.
        more = (
            settling_design(test, annotators=m, max_items=items) for m in range(design.annotators + 1, 11)
        )
        wider = next((d for d in more if d is not None and d.items is not None), None)
        within = (
            f"no design of {design.annotators} annotators on up to {min(items, MAX_ITEMS)} shared items each "
            f"(the generation has {items}) settles it"
        )
        if wider is not None:
            design, within = wider, f"{within}; "
        else:
            return [
                f"{label}: {within}, nor one of up to 10 annotators, from what {fewest} shared items show: the judge "
                f"and the annotators less the handicap (epsilon {test.epsilon}) are too close to tell apart on this "
                "data; only a larger generation could settle it"
            ]
    else:
        within = ""
    return [
        f"{label}: {within}{design.annotators} annotators on {design.items} shared items each (now {test.tested} on "
        f"{fewest} or more) would answer {design.answer} with probability {design.power:.0%} or more, if the judge "
        f"is at least {design.gap:.2f} from the handicap (the {PLANNING_CONFIDENCE:.0%} lower bound of what these "
        "items show; a power calculation of the same test, checked in bench/coverage_alt_test.py)"
    ]


def _share_of(scale: Scale) -> str:
    """What the tolerance is on a scale other than VIVID's: its share of the range (empty on 0-5)."""
    return "" if scale == VIVID_SCALE else f", {BIAS_TOLERANCE_SHARE:.0%} of the {scale.label} range"


def _means_verdict(
    corrected: Sequence[tuple[str, Corrected]], tolerance: float = BIAS_TOLERANCE
) -> tuple[str, str, list[str]]:
    """Are the judge's means unbiased within ``tolerance`` on every generation with human scores?"""
    if not corrected:
        return UNDECIDED, "No human scores of a generation it scored: its bias cannot be measured.", []
    verdicts = [(label, c, bias_verdict(c, tolerance)) for label, c in corrected]
    shown = "; ".join(
        f"{label}: {_num(c.bias.estimate)} "
        + ("exact, every item has a human score" if exact_bias(c) is not None else interval_text(c.bias))
        for label, c, _ in verdicts
    )
    if all(v == YES for _, _, v in verdicts):
        return YES, f"Every bias is known to lie inside ±{tolerance:g} ({shown}).", []
    verdict = NO if any(v == NO for _, _, v in verdicts) else UNDECIDED
    where = "lies wholly outside" if verdict == NO else "is not shown inside"
    why = f"The bias (its interval) {where} ±{tolerance:g} on some generation ({shown}): {READ_CORRECTED}."
    settle = [_labels_step(label, c, tolerance) for label, c, v in verdicts if v == UNDECIDED]
    return verdict, why, settle


def exact_bias(c: Corrected) -> float | None:
    """The bias when every item the judge scored has a human score (then it is exact), else None."""
    labelled = c.n_human - c.n_human_unscored
    return c.bias.estimate if c.n_items > 0 and labelled >= c.n_items else None


def bias_verdict(c: Corrected, tolerance: float = BIAS_TOLERANCE) -> str:
    """Whether a generation's bias lies inside ±``tolerance`` (yes), wholly outside (no), or neither.

    With every item labelled the bias is exact and compared as it is; otherwise its interval is.
    """
    exact = exact_bias(c)
    if exact is not None:
        return YES if abs(exact) <= tolerance + 1e-12 else NO
    lo, hi = c.bias.lo, c.bias.hi
    if lo is None or hi is None:
        return UNDECIDED
    if lo >= -tolerance and hi <= tolerance:
        return YES
    return NO if lo > tolerance or hi < -tolerance else UNDECIDED


def _labels_step(label: str, c: Corrected, tolerance: float = BIAS_TOLERANCE) -> str:
    # Labelling every item makes the bias exact: no step ever asks for more labels than the items.
    every = f"labelling all {c.n_items} items makes the bias exact"
    if c.bias.lo is None:
        if c.n_items <= MIN_LABELLED:
            return f"{label}: {every} (no interval below {MIN_LABELLED} labelled items; {c.n_human} now)"
        return f"{label}: at least {MIN_LABELLED} labelled items of {c.n_items} for a bias interval ({c.n_human} now)"
    needed = labels_to_settle(c, tolerance=tolerance)
    if needed is None:
        return (
            f"{label}: the bias is too close to ±{tolerance:g} for {c.n_human} labelled items to say on which "
            f"side it lies; label more items and look again ({every})"
        )
    if needed >= c.n_items:
        return f"{label}: no sample short of every item settles it from what {c.n_human} labelled items show: {every}"
    return (
        f"{label}: about {needed} labelled items of {c.n_items} would put the bias interval inside or outside "
        f"±{tolerance:g} with probability {POWER:.0%}, if the bias is at least as far from the tolerance as "
        f"the {PLANNING_CONFIDENCE:.0%} lower bound of what the {c.n_human} labelled items show"
    )


def labels_to_settle(c: Corrected, tolerance: float = BIAS_TOLERANCE) -> int | None:
    """Labelled items with which the bias interval would fall inside or outside the tolerance.

    The spread of the bias per item is read back from the printed interval (its wider half over the
    ``t`` quantile is the standard error, ``s^2 (1/n - 1/N)``). The distance of the bias from the
    tolerance is planned at its lower confidence bound (one-sided, `PLANNING_CONFIDENCE`),
    ``| |bias| - tolerance | - z_confidence SE`` (a pilot that flatters must not promise a small
    sample); the answer is the ``n`` at which the standard error is that distance over
    ``z_0.975 + z_power`` (`POWER`), the normal power calculation of a
    two-sided 95 % interval, at most every item. ``bench/coverage_alt_test.py`` measures it.

    Args:
        c: A generation's corrected columns with a bias interval.
        tolerance: The bias tolerance (`JudgeScores.tolerance`).

    Returns:
        The labelled items, or None without an interval, or when the bound is not above 0 (the
        labelled items cannot say on which side of the tolerance the bias lies).
    """
    b, lo, hi, n, total = c.bias.estimate, c.bias.lo, c.bias.hi, c.n_human, c.n_items
    if lo is None or hi is None or b is None or not 2 < n < total:
        return None
    error = max(hi - b, b - lo) / float(stats.t.ppf(0.975, n - 2))
    gap = abs(abs(b) - tolerance) - float(stats.norm.ppf(PLANNING_CONFIDENCE)) * error
    if gap <= 0:
        return None
    spread2 = error**2 / (1 / n - 1 / total)
    target = gap / float(stats.norm.ppf(0.975) + stats.norm.ppf(POWER))
    return min(total, int(np.ceil(1 / (target**2 / spread2 + 1 / total))))


def _agreement_section(judge: JudgeScores, mine: Sequence[HumanLabels]) -> list[str]:
    lines = ["## Agreement with the humans", ""]
    if not mine:
        return [*lines, "No human scores of a generation this judge scored.", ""]
    lines += ["| generation | n | kappa | kappa 95 % CI | alpha (ordinal) |", "|---|---:|---:|---|---:|"]
    for h in mine:
        try:
            result = agreement(judge.by_generation[h.generation], h.means(), n_boot=1, scale=judge.scale)
        except ValueError as error:
            lines.append(f"| {h.label} |  |  | {error} |  |")
            continue
        kappa = result.intervals.get("kappa")
        ci = interval_text(kappa) if kappa is not None else kappa_reason(judge.scale) or ""
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
        result = {"yes": "pass", "no": "fail"}.get(test.outcome, test.outcome)
        lines.append(
            f"| {labels[generation]} | {len(test.annotators)} | {test.items} | {_num(test.winning_rate)} | "
            f"{_num(test.advantage)} | {result} |"
        )
    for generation, test in tests.items():
        for a in test.annotators:
            if a.p_value is not None:
                lines.append(
                    f"- {labels[generation]}, annotator {a.annotator}: {a.n} items, judge wins {a.judge_wins:.2f}, "
                    f"annotator wins {a.annotator_wins:.2f}, p {a.p_value:.3g}: "
                    f"{'judge wins' if a.won else 'annotator wins by more than epsilon' if a.lost else 'not won'}"
                )
        lines.extend(f"- {labels[generation]}: {warning}" for warning in test.warnings)
    return [*lines, ""]


def _bias_section(
    mine: Sequence[HumanLabels], corrected: Mapping[str, Corrected], leaning: str | None
) -> list[str]:
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
            f"{interval_text(c.corrected)} | {_num(c.bias.estimate)} | {interval_text(c.bias)} |"
        )
    if leaning:
        lines += ["", leaning]
    return [*lines, ""]


def bias_leaning(corrected: Sequence[tuple[str, float, Corrected]]) -> str | None:
    """One sentence naming the generations a judge is lenient or harsh on, and whether its means misrank them.

    Leaning alone does not misrank: a judge lenient on a strong generation and harsh on a weak one
    keeps their order. The sentence says its own means *misrank* two generations only when the
    judge's order of them is the reverse of the corrected means' and the corrected intervals do not
    overlap (the corrected order is then known); *may misrank* when the orders differ but the
    intervals overlap or one is missing (the true order is open).

    Args:
        corrected: Each generation's label, the judge's own mean on it and its corrected columns.

    Returns:
        The sentence (lenient: the bias interval is above 0; harsh: below), or None when nothing is clear.
    """
    lenient = [label for label, _, c in corrected if _side(c) > 0]
    harsh = [label for label, _, c in corrected if _side(c) < 0]
    parts = [
        f"{side} on {', '.join(which)}" for side, which in (("lenient", lenient), ("harsh", harsh)) if which
    ]
    sure: list[str] = []
    maybe: list[str] = []
    for i, (a, judged_a, ca) in enumerate(corrected):
        for b, judged_b, cb in corrected[i + 1 :]:
            if ca.corrected.estimate is None or cb.corrected.estimate is None:
                continue
            if (judged_a - judged_b) * (ca.corrected.estimate - cb.corrected.estimate) >= 0:
                continue  # same order (or a tie)
            (lo_a, hi_a), (lo_b, hi_b) = _span(ca), _span(cb)
            apart = lo_a is not None and lo_b is not None and (hi_a < lo_b or hi_b < lo_a)  # type: ignore[operator]
            (sure if apart else maybe).append(f"{a} and {b}")
    if sure:
        rank = f"its own means misrank {'; '.join(sure)} (the corrected means are apart)"
    elif maybe:
        rank = f"its own means may misrank {'; '.join(maybe)} (reversed, but the corrected intervals overlap)"
    else:
        rank = ""
    if not parts and not rank:
        return None
    if not parts:
        return f"{rank[0].upper()}{rank[1:]}."
    lean = f"The judge is {' and '.join(parts)}"
    if rank:
        return f"{lean}: {rank}."
    return f"{lean} (the bias, or its interval, excludes 0){'; its own means keep their order' if len(parts) == 2 else ''}."


def _span(c: Corrected) -> tuple[float | None, float | None]:
    """The corrected mean's interval; a point when every item is labelled (the mean is then exact)."""
    if exact_bias(c) is not None:
        return c.corrected.estimate, c.corrected.estimate
    return c.corrected.lo, c.corrected.hi


def _side(c: Corrected) -> int:
    """1 lenient (the bias interval above 0), -1 harsh (below), 0 neither; an exact bias by its sign."""
    exact = exact_bias(c)
    lo, hi = (exact, exact) if exact is not None else (c.bias.lo, c.bias.hi)
    return 1 if lo is not None and lo > 0 else -1 if hi is not None and hi < 0 else 0


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
    if not lines and not judge.strategy:  # another eval's scorer: the audit probes VIVID's judge prompts
        lines = ["No audit: vivid audit probes VIVID's judges (Vietnamese idioms), not another eval's."]
    if not lines:
        lines = [
            f"No `vivid audit` of this judge in the folder ({audit_command(judge)} probes it for known biases)."
        ]
    return lines, failed


def audit_command(judge: JudgeScores) -> str:
    """The ``vivid audit`` command that probes this judge, in backticks (the lexical judge's is chrF's)."""
    if not judge.model:  # the lexical judge scores as vivid/chrf does through a judge prompt
        return "`vivid audit vivid/chrf --data sample` (the chrF scores the lexical judge gives)"
    strategy = f" --strategy {judge.strategy}" if judge.strategy in LLM_STRATEGIES else ""
    return f"`vivid audit {judge.model}{strategy}`"


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
                    "passed": test.outcome,
                    "won_against": ", ".join(a.annotator for a in test.annotators if a.won),
                    "lost_against": ", ".join(a.annotator for a in test.annotators if a.lost),
                    "notes": "; ".join(test.warnings),
                }
            )
    notes = (
        f"the alternative annotator test (Calderon et al. 2025): epsilon {epsilon}, q 0.05 (Benjamini-Yekutieli over "
        "the annotators of one generation, as the authors' code corrects per data set); winning_rate: share of "
        "annotators the judge wins against; passed: yes (winning_rate >= 0.5), no, or why neither; advantage: the "
        "judge's mean probability of being as close to the others as the left-out annotator; lost_against: "
        "annotators closer to the others than the judge by more than epsilon",
        f"below the authors' minimum ({RECOMMENDED_ANNOTATORS}+ annotators, {RECOMMENDED_ITEMS}+ shared items each) "
        f"passed says {BELOW_MINIMUM!r}, never yes; notes say what is smaller",
    )
    frame = pd.DataFrame(records)  # the records' keys are the columns; no records: the table is left out
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
    notes = (
        "bias: the judge's mean over the items it scored minus their corrected mean (positive: lenient), "
        "what the correction removes; corrected_mean: the prediction-powered (PPI++) mean over every item, lam its "
        "power-tuning weight on the judge",
        VARIANCE_NOTE,
    )
    return Table(
        "judge_bias",
        "The judge's bias per generation, and the corrected means",
        pd.DataFrame(records),  # the records' keys are the columns; no records: the table is left out
        decimals=3,
        notes=notes,
        counts=("n_human", "n_items"),
    )


def _num(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}"
