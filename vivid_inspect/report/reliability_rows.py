"""The rows the judge-reliability tables compare: the reliability generation and each judge's scores.

Table 1 and the strategy differences need the items the humans scored, so they are computed on
one generation (the "reliability generation"): the one the human scores were drawn from, chosen by
:mod:`vivid_inspect.report.binding`. With human scores and several judged generations and none
chosen, :func:`reliability_generation` refuses to guess; without human scores it takes the
generation judged by the most judges. Human ids are sample ids; when that generation ran several
epochs, epoch 1 is compared.
"""

from __future__ import annotations

from collections.abc import Hashable

import pandas as pd

from vivid_inspect.report.judges import JudgeKey, latest, select


def reliability_generation(
    rows: pd.DataFrame, human_ids: set[Hashable], requested: str | None = None
) -> str | None:
    """The generation Table 1 is computed on.

    Args:
        rows: Judge rows of explanation logs.
        human_ids: Sample ids the humans scored (empty without a human file).
        requested: The generation already chosen for the human scores (its ``generation`` key,
            see :func:`vivid_inspect.report.binding.bind_generation`).

    Returns:
        ``requested`` when given; else the only judged generation; else, without human scores,
        the generation judged by the most judges (then the first by log path); None when no
        generation has a judge.

    Raises:
        ValueError: Human scores, several judged generations and none requested: which one the
            humans scored cannot be known, so it is not guessed.
    """
    generations = sorted(rows["generation"].unique())
    if requested is not None:
        return requested
    if len(generations) <= 1:
        return generations[0] if generations else None
    if human_ids:
        described = rows[["generation", "model", "prompt"]].drop_duplicates().sort_values("generation")
        listed = "\n".join(f"  - {m}  {p}  {g}" for g, m, p in described.itertuples(index=False, name=None))
        raise ValueError(
            f"the human scores name no generation and {len(generations)} generations are judged; choose the one "
            f"they scored with --human-generation (model, prompt or part of the log path):\n{listed}"
        )

    def rank(generation: str) -> tuple[int, str]:
        mine = rows[rows["generation"] == generation]
        return (-mine[["judge", "judge_model"]].drop_duplicates().shape[0], generation)

    return min(generations, key=rank)


def judge_scores(rows: pd.DataFrame, key: JudgeKey, *, by_generation: bool = False) -> dict[Hashable, float]:
    """One judge's scores by sample id (by generation, id and epoch when ``by_generation``); errors left out."""
    mine = select(rows, key)
    mine = mine[~mine["error"]]
    ids = zip(mine["generation"], mine["id"], mine["epoch"], strict=True) if by_generation else mine["id"]
    return dict(zip(ids, mine["value"].astype(float), strict=True))


def generation_rows(rows: pd.DataFrame, generation: str | None) -> tuple[pd.DataFrame, list[str]]:
    """One score per judge and item of the reliability generation, first epoch only, with notes."""
    notes: list[str] = []
    mine = latest(rows[rows["generation"] == generation], ["judge", "judge_model"])
    if mine.empty:
        return mine, notes
    first = int(mine["epoch"].min())
    if mine["epoch"].nunique() > 1:
        notes.append(f"the generation ran {mine['epoch'].nunique()} epochs; epoch {first} is compared")
    return mine[mine["epoch"] == first], notes
