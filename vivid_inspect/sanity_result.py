"""The verdict of a judge sanity check: per-item scores, three criteria with thresholds, a markdown card.

The run itself (which items, the two offline models, the judge on the grader role) is
:mod:`vivid_inspect.sanity`; this module only compares the judge's scores of the two explanations
of each item, so it loads no Inspect and no scipy until a finished run needs the sign test.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from vivid_inspect.scorers.judge_parse import MAX_SCORE

ORACLE = "vivid/oracle"
LITERAL = "vivid/literal"

DEFAULT_MIN_GAP = 1.5
"""Oracle mean minus literal mean, on the 0-5 scale, that a judge must reach.

A judge that follows the rubric gives the reference itself 5 and a literal reading of a
figurative idiom 0-1, a gap near 4. The threshold sits well below that, leaving room for literal
idioms (where the literal paraphrase is partly right) and for a judge's own calibration, but it
is 30 % of the scale: a judge that separates a perfect answer from a literal one by less cannot
resolve the ~2.3-point spread between the paper's best and worst models. A constant judge scores 0.
"""

DEFAULT_MIN_SHARE = 0.8
"""Share of items on which the oracle must score strictly higher than the literal paraphrase.

About 1 in 6 VIVID items (16.5 %, trait "literal expressions") mean what their words say, so a
good judge may fairly tie the two explanations there; 80 % leaves that room and no more. A judge
that picks at random prefers the oracle on about 42 % of items (15 of 36 ordered score pairs),
a constant judge on none.
"""

DEFAULT_MAX_UNSCORED = 0.1
"""Largest share of judge verdicts that may stay unreadable after the judge's retry.

More than 1 in 10 means the template's answer format is not reaching the judge, and the scores
that remain come from a subset the judge found easy to answer.
"""

FEW_ITEMS = 20
"""Below this many paired items the markdown report warns that the verdict is noisy."""


@dataclass(frozen=True)
class SanityItem:
    """The judge's scores of one item's two explanations (NaN when unscored)."""

    id: int | str
    idiom: str
    oracle: float
    literal: float

    @property
    def paired(self) -> bool:
        """Whether the judge scored both explanations."""
        return not (math.isnan(self.oracle) or math.isnan(self.literal))


@dataclass(frozen=True)
class SanityCheck:
    """One pass/fail criterion.

    Attributes:
        name: ``gap``, ``share`` or ``unscored``.
        value: The measured value (NaN when nothing could be measured, which never passes).
        threshold: The bound the value is held to: a floor, or a ceiling when ``ceiling``.
        reason: One sentence saying what was measured against what.
        ceiling: True when the value must not exceed the threshold.
    """

    name: str
    value: float
    threshold: float
    reason: str
    ceiling: bool = False

    @property
    def passed(self) -> bool:
        """Whether the value meets its bound."""
        if math.isnan(self.value):
            return False
        return self.value <= self.threshold if self.ceiling else self.value >= self.threshold


@dataclass(frozen=True)
class SanityResult:
    """The outcome of a judge sanity check; build it with :func:`summarise`.

    Means, gap and shares are over the paired items (both explanations scored), so each item
    counts once on both sides. A value that cannot be computed (no paired item) is NaN.

    Attributes:
        judge: The judge model's name.
        strategy: The judge prompting strategy.
        data: The data source the items came from.
        items: Per-item scores, in sample-id order.
        n_items: Items run.
        n_paired: Items whose two explanations were both scored.
        oracle_mean: Mean score of the reference-meaning explanations.
        literal_mean: Mean score of the literal paraphrases.
        gap: ``oracle_mean - literal_mean``.
        wins: Paired items where the oracle scored strictly higher.
        ties: Paired items where both scored the same.
        losses: Paired items where the literal paraphrase scored strictly higher.
        share_oracle_higher: ``wins / n_paired``.
        share_ties: ``ties / n_paired``.
        share_literal_higher: ``losses / n_paired``.
        unscored_oracle: Oracle explanations the judge left unscored.
        unscored_literal: Literal paraphrases the judge left unscored.
        unscored_share: Unscored verdicts over all verdicts asked for (two per item).
        sign_test_p: One-sided sign-test p-value of "the oracle wins more often than chance"
            (ties dropped); informative, not a criterion: it says whether there were enough items.
        min_gap: Threshold of ``gap``.
        min_share: Threshold of ``share_oracle_higher``.
        max_unscored: Threshold of ``unscored_share``.
        log_locations: Where Inspect wrote the two logs (``inspect view`` shows them).
    """

    judge: str
    strategy: str
    data: str
    items: tuple[SanityItem, ...]
    n_items: int
    n_paired: int
    oracle_mean: float
    literal_mean: float
    gap: float
    wins: int
    ties: int
    losses: int
    share_oracle_higher: float
    share_ties: float
    share_literal_higher: float
    unscored_oracle: int
    unscored_literal: int
    unscored_share: float
    sign_test_p: float
    min_gap: float
    min_share: float
    max_unscored: float
    log_locations: tuple[str, ...]

    @property
    def checks(self) -> tuple[SanityCheck, ...]:
        """The three criteria (``gap``, ``share``, ``unscored``) with values and thresholds."""
        unreadable = self.unscored_oracle + self.unscored_literal
        gap = f"oracle mean - literal mean = {_num(self.gap)}; needs >= {self.min_gap:.2f}"
        share = f"oracle scored higher on {_pct(self.share_oracle_higher)} of {self.n_paired} paired items"
        unscored = f"{unreadable} of {2 * self.n_items} verdicts unreadable ({_pct(self.unscored_share)})"
        return (
            SanityCheck("gap", self.gap, self.min_gap, gap),
            SanityCheck(
                "share", self.share_oracle_higher, self.min_share, f"{share}; needs >= {_pct(self.min_share)}"
            ),
            SanityCheck(
                "unscored",
                self.unscored_share,
                self.max_unscored,
                f"{unscored}; allows <= {_pct(self.max_unscored)}",
                ceiling=True,
            ),
        )

    @property
    def passed(self) -> bool:
        """True when every check passes."""
        return all(check.passed for check in self.checks)

    @property
    def verdict(self) -> Literal["pass", "fail"]:
        """``pass`` or ``fail``."""
        return "pass" if self.passed else "fail"

    @property
    def reasons(self) -> list[str]:
        """Why the judge failed, one line per failed check; empty on a pass."""
        return [check.reason for check in self.checks if not check.passed]

    def markdown(self, max_items: int = 10) -> str:
        """A report: verdict, measures against thresholds, reasons, the items the judge got wrong.

        Args:
            max_items: How many items where the oracle did not win to list.

        Returns:
            Markdown text.
        """
        gap, share, unscored = (_mark(check) for check in self.checks)
        lines = [
            f"## Judge sanity check: {self.verdict.upper()}",
            "",
            f"Judge `{self.judge}` (strategy `{self.strategy}`) scored `{ORACLE}` (the reference meaning) and "
            f"`{LITERAL}` (a word-for-word paraphrase) on {self.n_items} items of {self.data}.",
            "",
            "| measure | value | pass when | check |",
            "| --- | --- | --- | --- |",
            f"| oracle mean (0-{MAX_SCORE}) | {_num(self.oracle_mean)} | | |",
            f"| literal mean (0-{MAX_SCORE}) | {_num(self.literal_mean)} | | |",
            f"| gap | {_num(self.gap)} | >= {self.min_gap:.2f} | {gap} |",
            f"| oracle > literal | {_pct(self.share_oracle_higher)} ({self.wins}/{self.n_paired}) "
            f"| >= {_pct(self.min_share)} | {share} |",
            f"| ties | {_pct(self.share_ties)} | | |",
            f"| literal > oracle | {_pct(self.share_literal_higher)} | | |",
            f"| unscored verdicts | {_pct(self.unscored_share)} (oracle {self.unscored_oracle}, "
            f"literal {self.unscored_literal}) | <= {_pct(self.max_unscored)} | {unscored} |",
            f"| sign test p (oracle wins) | {_num(self.sign_test_p, '.2g')} | | |",
        ]
        if self.reasons:
            lines += ["", "Failed:", *(f"- {reason}" for reason in self.reasons)]
        if self.n_paired < FEW_ITEMS:
            lines += ["", f"Only {self.n_paired} paired items: the verdict is noisy; run more (`--limit`)."]
        lines += _misses(self.items, max_items)
        if self.log_locations:
            lines += ["", "Logs (`inspect view`):", *(f"- {location}" for location in self.log_locations)]
        return "\n".join(lines) + "\n"


def _misses(items: Sequence[SanityItem], max_items: int) -> list[str]:
    """The markdown table of the first ``max_items`` items where the oracle did not score higher."""
    misses = [item for item in items if not (item.paired and item.oracle > item.literal)]
    if not misses:
        return []
    lines = ["", "Items where the oracle did not score higher:", "", "| id | idiom | oracle | literal |"]
    lines += ["| --- | --- | --- | --- |"]
    lines += [
        f"| {item.id} | {item.idiom} | {_num(item.oracle, 'g')} | {_num(item.literal, 'g')} |"
        for item in misses[:max_items]
    ]
    if len(misses) > max_items:
        lines.append(f"| … | {len(misses) - max_items} more | | |")
    return lines


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else math.nan


def summarise(
    items: Sequence[SanityItem],
    *,
    judge: str,
    strategy: str,
    data: str,
    min_gap: float = DEFAULT_MIN_GAP,
    min_share: float = DEFAULT_MIN_SHARE,
    max_unscored: float = DEFAULT_MAX_UNSCORED,
    log_locations: Sequence[str] = (),
) -> SanityResult:
    """Compare the judge's scores of the two explanations of each item.

    Args:
        items: Per-item scores (NaN when unscored).
        judge: The judge model's name.
        strategy: The judge prompting strategy.
        data: The data source the items came from.
        min_gap: Threshold of the gap (see :data:`DEFAULT_MIN_GAP`).
        min_share: Threshold of the share of oracle wins (see :data:`DEFAULT_MIN_SHARE`).
        max_unscored: Threshold of the unscored share (see :data:`DEFAULT_MAX_UNSCORED`).
        log_locations: Where the logs of the run are.

    Returns:
        The result, with every measure computed.

    Raises:
        ValueError: If a threshold is off its scale.
    """
    validate_thresholds(min_gap, min_share, max_unscored)
    paired = [item for item in items if item.paired]
    oracle_mean = _mean([item.oracle for item in paired])
    literal_mean = _mean([item.literal for item in paired])
    wins = sum(item.oracle > item.literal for item in paired)
    losses = sum(item.oracle < item.literal for item in paired)
    ties = len(paired) - wins - losses
    unscored_oracle = sum(math.isnan(item.oracle) for item in items)
    unscored_literal = sum(math.isnan(item.literal) for item in items)
    decided = wins + losses
    return SanityResult(
        judge=judge,
        strategy=strategy,
        data=data,
        items=tuple(items),
        n_items=len(items),
        n_paired=len(paired),
        oracle_mean=oracle_mean,
        literal_mean=literal_mean,
        gap=oracle_mean - literal_mean,
        wins=wins,
        ties=ties,
        losses=losses,
        share_oracle_higher=_ratio(wins, len(paired)),
        share_ties=_ratio(ties, len(paired)),
        share_literal_higher=_ratio(losses, len(paired)),
        unscored_oracle=unscored_oracle,
        unscored_literal=unscored_literal,
        unscored_share=_ratio(unscored_oracle + unscored_literal, 2 * len(items)),
        sign_test_p=float(_binomtest(wins, decided, 0.5, alternative="greater").pvalue)
        if decided
        else math.nan,
        min_gap=min_gap,
        min_share=min_share,
        max_unscored=max_unscored,
        log_locations=tuple(log_locations),
    )


def _num(value: float, spec: str = ".2f") -> str:
    return "n/a" if math.isnan(value) else format(value, spec)


def _pct(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{100 * value:.1f} %"


def _mark(check: SanityCheck) -> str:
    return "pass" if check.passed else "**FAIL**"


def validate_thresholds(min_gap: float, min_share: float, max_unscored: float) -> None:
    """Reject thresholds outside their scales.

    Args:
        min_gap: Least oracle-minus-literal mean gap, on the 0-5 judge scale.
        min_share: Least share of items the oracle must win, 0 to 1.
        max_unscored: Largest share of unreadable verdicts, 0 to 1.

    Raises:
        ValueError: Naming the bad value and its allowed range.
    """
    if not 0 <= min_gap <= MAX_SCORE:
        raise ValueError(f"min_gap {min_gap} is outside the judge scale; allowed 0 to {MAX_SCORE}")
    if not 0 <= min_share <= 1:
        raise ValueError(f"min_share {min_share} is not a share; allowed 0 to 1")
    if not 0 <= max_unscored <= 1:
        raise ValueError(f"max_unscored {max_unscored} is not a share; allowed 0 to 1")


def _binomtest(
    wins: int, decided: int, p: float, alternative: Literal["two-sided", "less", "greater"]
) -> Any:
    # scipy takes ~0.3 s to load; only a finished run needs it, not `vivid --help`.
    from scipy.stats import binomtest

    return binomtest(wins, decided, p, alternative=alternative)
