"""The report's judge cards, alternative annotator test and bias table, from its score rows and human files.

Every judge of an explanation log gets a page of ``judge_card.md``
(`vivid_inspect.lab.report.cards.judge_card`); the tables ``judge_bias`` (the judge's bias and the
corrected mean per generation with human scores, part of the Table 1 story) and ``alt_test``
(only when two or more annotators scored shared items of a generation) join the report.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import pandas as pd

from vivid_inspect.lab.report.cards.judge_card import HumanLabels, JudgeScores, build_cards, cards_markdown
from vivid_inspect.lab.report.reading.judged import item_key, scale_of
from vivid_inspect.lab.report.tables.judges import judge_keys, latest, select, strategy_of
from vivid_inspect.lab.report.tables.render import Table


@dataclass(frozen=True)
class CardResult:
    """The card file's text, and the tables the report adds (``judge_bias``, ``alt_test``) when they have rows."""

    markdown: str
    tables: tuple[Table, ...]


def judge_scores(rows: pd.DataFrame, humans: Sequence[HumanLabels] = ()) -> list[JudgeScores]:
    """Every judge's score per item of each generation it scored (an item's epochs averaged).

    Args:
        rows: Judge rows of explanation logs (first repeats, each judgement once).
        humans: The human scores bound to generations: a range nobody declared holds theirs too.

    Returns:
        One entry per judge, in the report's judge order; each generation read on the run the
        tables read (`vivid_inspect.lab.report.tables.judges.latest`).
    """
    found = []
    for key in judge_keys(rows) if not rows.empty else []:
        mine = latest(select(rows, key), ["generation", "judge", "judge_model"])
        # A refused value is a reply with no usable score: unreadable for the card, as for the summary.
        mine = mine[~mine["error"].astype(bool) | mine["refused"].astype(bool)]
        means = {
            str(generation): group.groupby("id", sort=True)["value"].mean()
            for generation, group in mine.groupby("generation", sort=True)
        }
        by_generation = {
            generation: {item_key(item): float(value) for item, value in values.dropna().items()}
            for generation, values in means.items()
        }
        # An item is unscored when no epoch of it got a readable score; its reasons are the parser's.
        judged = sum(len(values) for values in means.values())
        unscored = judged - sum(len(scores) for scores in by_generation.values())
        unread = mine[mine["unscored"].astype(bool) | mine["refused"].astype(bool)]
        reasons = (
            unread["parse_status"]
            .where(~unread["refused"].astype(bool), "refused")
            .dropna()
            .astype(str)
            .value_counts()
        )
        found.append(
            JudgeScores(
                key.name,
                key.model,
                strategy_of(rows, key),
                by_generation,
                judged=judged,
                unscored=unscored,
                unscored_items={
                    generation: frozenset(map(item_key, values[values.isna()].index))
                    for generation, values in means.items()
                },
                reasons=tuple(f"{reason} ({count})" for reason, count in reasons.head(3).items()),
                scale=scale_of(
                    mine, [v for h in humans if h.generation in means for v in h.means().values()]
                ),
            )
        )
    return found


def judge_cards(
    rows: pd.DataFrame,
    humans: Sequence[HumanLabels],
    audits: Sequence[Table],
    *,
    epsilon: float,
    log_dir: str,
    generations: Sequence[tuple[str, int]],
) -> CardResult:
    """The cards of every judge in the rows, and the tables with rows.

    Args:
        rows: Judge rows of explanation logs (first repeats).
        humans: The human scores bound to generations.
        audits: The report's audit card tables.
        epsilon: The alternative annotator test's handicap.
        log_dir: The log folder as the user named it, for the commands a card proposes.
        generations: ``MODEL PROMPT`` and item count of the folder's generations, in the report's order.

    Returns:
        The card file's text and the tables.
    """
    cards, tables = build_cards(
        judge_scores(rows, humans), humans, audits, epsilon=epsilon, log_dir=log_dir, generations=generations
    )
    leanings = [f"{card.judge.label}: {card.leaning}" for card in cards if card.leaning]
    kept = []
    for table in sorted(tables, key=lambda t: t.name != "judge_bias"):  # the bias first: Table 1's story
        if table.frame.empty:
            continue
        if table.name == "judge_bias" and leanings:
            table = replace(table, notes=(*table.notes, *leanings))
        kept.append(table)
    return CardResult(cards_markdown(cards), tuple(kept))
