"""Which judge is which, which one the paper tables use, and one score per item when runs repeat.

A judge is identified by its name and its model (``JudgeKey``): the same strategy run with two
judge models is two judges, and so is the same strategy asked in Vietnamese and in English (their
names differ: the runner's judge names are unique, and ``inspect score`` names a judge after its
column, ``judge_aspect`` or ``judge_aspect_en``). When several logs hold a score for the same item (a re-run, a retry
of a failed eval, a judge run twice), the tables take one: a score over a missing one, a log that
finished over one that did not, then the newest log.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from vivid_inspect.lab.report.reading.vivid import DEFAULT_LANGUAGE, DEFAULT_STRATEGY, JudgeId
from vivid_inspect.lab.report.tables.paper import paper_model
from vivid_inspect.lab.unscored import UNSCORED_SHARE_LIMIT, mostly_unscored

STRATEGY_ORDER: tuple[str, ...] = ("zero_shot", "cot", "demonstration", "aspect")
"""The paper's Table 1 row order; other strategies (``panel``, ``lexical``) follow by name."""
PAPER_JUDGE = "GPT-4.1"
ITEM = ("id", "epoch")


@dataclass(frozen=True, order=True)
class JudgeKey:
    """A judge: its name (``judge_aspect`` or the runner's name) and its model (``""`` if unknown)."""

    name: str
    model: str

    @property
    def label(self) -> str:
        """``name [model]``, the judge's name in notes and plots."""
        return f"{self.name} [{self.model}]" if self.model else self.name


def judge_rows(scores: pd.DataFrame) -> pd.DataFrame:
    """The rows of judge scores, with ``judge_model`` filled (``""`` when unknown)."""
    rows = scores[scores["judge"].notna()].copy()
    rows["judge_model"] = rows["judge_model"].fillna("").astype(str)
    return rows


def key_of(row: pd.Series | Mapping[Any, Any]) -> JudgeKey:
    """The judge key of a score row."""
    return JudgeKey(str(row["judge"]), str(row["judge_model"] or ""))


def judge_keys(rows: pd.DataFrame) -> list[JudgeKey]:
    """Every judge in the rows, in the paper's strategy order, then by name and model."""
    pairs = rows[["judge", "judge_model", "strategy"]].drop_duplicates()
    strategy_of: dict[JudgeKey, str] = {}
    for record in pairs.to_dict("records"):
        strategy_of.setdefault(key_of(record), str(record["strategy"] or ""))
    return sorted(
        strategy_of, key=lambda key: (rank_in(strategy_of[key], STRATEGY_ORDER), key.name, key.model)
    )


def strategy_of(rows: pd.DataFrame, key: JudgeKey) -> str:
    """The strategy a judge used (the first recorded for it)."""
    mine = select(rows, key)
    values = sorted(str(v) for v in mine["strategy"].dropna().unique())
    return values[0] if values else ""


def language_of(rows: pd.DataFrame, key: JudgeKey) -> str | None:
    """The language of a judge's instructions, read from its column (None for lexical and panels)."""
    columns = sorted(str(v) for v in select(rows, key)["scorer"].dropna().unique())
    judge = JudgeId.read_column(columns[0]) if columns else None
    return judge.language if judge is not None else DEFAULT_LANGUAGE


def select(rows: pd.DataFrame, key: JudgeKey) -> pd.DataFrame:
    """The rows of one judge."""
    return rows[(rows["judge"] == key.name) & (rows["judge_model"] == key.model)]


def latest(rows: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """One row per ``keys`` + (id, epoch): a score over a missing one, a finished log, the newest.

    Args:
        rows: Score rows (see `vivid_inspect.lab.report.reading.logs.SCORE_COLUMNS`).
        keys: Columns that, with ``id`` and ``epoch``, identify one score.

    Returns:
        The chosen rows, in their original order.
    """
    if rows.empty:
        return rows
    ranked = rows.assign(
        _has=~rows["error"].astype(bool),
        _ok=rows["status"] == "success",
        _order=range(len(rows)),
    )
    ranked = ranked.sort_values(["_has", "_ok", "created", "log", "_order"], kind="stable")
    ranked = ranked.drop_duplicates(subset=[*keys, *ITEM], keep="last")
    return ranked.sort_values("_order").drop(columns=["_has", "_ok", "_order"])


def choose_judge(rows: pd.DataFrame, requested: str | None = None) -> tuple[JudgeKey | None, str]:
    """The judge whose scores fill Tables 3 and 4.

    A judge that cannot score (no readable score, or more than
    `vivid_inspect.lab.unscored.UNSCORED_SHARE_LIMIT` of its judged items unscored) is set aside
    while another judge can score, and the note names it. Among the rest, by default the
    aspect-based judge (the paper's), else the only judge; among several candidates, one with
    Vietnamese instructions (the paper's) over one with English ones, then the one scoring the most
    (model, prompt) rows and then items, then the paper's judge model (GPT-4.1), then the first by name.

    Args:
        rows: Judge rows of explanation logs (`judge_rows`).
        requested: ``NAME`` or ``NAME@MODEL`` to choose explicitly (honoured even for a judge that
            cannot score, which the note then says); NAME may be the judge's name, its strategy,
            its column (``judge_aspect_en``) or its column without ``judge_`` (``aspect_en``).

    Returns:
        The judge (None when there is no judge at all) and a sentence saying which and why.

    Raises:
        ValueError: If ``requested`` names no judge in the logs.
    """
    keys = judge_keys(rows)
    if not keys:
        return None, "no judge scores in the logs"
    strategies = {key: strategy_of(rows, key) for key in keys}
    counts = {key: _scored_counts(select(rows, key)) for key in keys}
    unusable = [key for key in keys if _cannot_score(*counts[key][1:])]
    usable = [key for key in keys if key not in unusable]
    if requested:
        name, _, model = requested.partition("@")
        candidates = [
            key
            for key in keys
            if name in _names_of(key, strategies[key]) and (not model or key.model == model)
        ]
        if not candidates:
            available = ", ".join(f"{key.name}@{key.model}" if key.model else key.name for key in keys)
            raise ValueError(f"no judge {requested!r} in the logs; available: {available}")
        why = f"chosen with --judge {requested}"
    else:
        pool = usable or keys
        candidates = [key for key in pool if strategies[key] == DEFAULT_STRATEGY] or pool
        why = (
            "the aspect-based judge (the paper's default)"
            if strategies[candidates[0]] == DEFAULT_STRATEGY
            else "the only judge"
            if len(keys) == 1
            else ("the only judge that can score" if len(pool) == 1 else "no aspect-based judge in the logs")
        )
    translated = {key: language_of(rows, key) not in (DEFAULT_LANGUAGE, None) for key in candidates}
    best = min(
        candidates,
        key=lambda key: (
            translated[key],
            -counts[key][0],
            -counts[key][2],
            paper_model(key.model) != PAPER_JUDGE,
            key.name,
            key.model,
        ),
    )
    if len(candidates) > 1:
        why += (
            f"; {len(candidates)} candidates, chosen by instruction language (Vietnamese first), scored "
            "coverage, then the paper's judge model, then name"
        )
    limit = f"unscored above {UNSCORED_SHARE_LIMIT:.0%}"
    listed = ", ".join(f"{key.label} ({_share(*counts[key][1:])})" for key in unusable if key != best)
    if not usable:
        why += f"; no judge can score ({limit}): {best.label} ({_share(*counts[best][1:])})"
        why += f", {listed}" if listed else ""
    elif best in unusable:
        why += f"; this judge cannot score ({_share(*counts[best][1:])})"
    if usable and listed:
        why += f"; set aside as unable to score ({limit}): {listed}"
    return best, f"Tables 3 and 4 use judge {best.label}: {why}"


def _scored_counts(mine: pd.DataFrame) -> tuple[int, int, int]:
    """A judge's (model, prompt) rows with a readable score, its judged items and its scored ones."""
    mine = latest(mine, ["generation", "judge", "judge_model"])
    # A refused value is a reply with no usable score (unreadable, as on the judge card).
    replied = mine[~mine["error"].eq(True) | mine["refused"].eq(True)]
    scored = replied[replied["value"].notna()]
    return scored[["model", "prompt"]].drop_duplicates().shape[0], len(replied), len(scored)


def _cannot_score(judged: int, scored: int) -> bool:
    return scored == 0 or mostly_unscored(judged - scored, judged)


def _share(judged: int, scored: int) -> str:
    return f"{(judged - scored) / judged:.0%} of {judged} unscored" if judged else "no item judged"


def _names_of(key: JudgeKey, strategy: str) -> set[str]:
    """What ``--judge`` may call a judge: its name, its strategy, and, for a column, its option form."""
    judge = JudgeId.read_column(key.name)
    return {key.name, strategy} | ({judge.strategy, judge.option} if judge is not None else set())


def rank_in(value: str, order: Sequence[str]) -> tuple[int, str]:
    """Where ``value`` stands in ``order`` (the paper's strategies, prompts); others follow by name."""
    return (order.index(value), "") if value in order else (len(order), value)
