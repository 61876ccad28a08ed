"""The rows the judge-reliability tables compare: the reliability generation and each judge's scores.

Table 1 and the strategy differences need the items the humans scored, so they are computed on
one generation (the "reliability generation"): the one the human scores were drawn from, chosen by
`vivid_inspect.lab.humans.binding`. With human scores and several judged generations and none
chosen, `reliability_generation` refuses to guess; without human scores it takes the
generation judged by the most judges. Human ids are sample ids; when that generation ran several
epochs, epoch 1 is compared.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable

import pandas as pd

from vivid_inspect.lab.report.tables.judges import JudgeKey, latest, select


def reliability_generation(
    rows: pd.DataFrame, human_ids: set[Hashable], requested: str | None = None
) -> str | None:
    """The generation Table 1 is computed on.

    Args:
        rows: Judge rows of explanation logs.
        human_ids: Sample ids the humans scored (empty without a human file).
        requested: The generation already chosen for the human scores (its ``generation`` key,
            see `vivid_inspect.lab.humans.binding.bind_generation`).

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
    """One judge's scores by sample id (by generation, run, id and epoch when ``by_generation``); errors left out."""
    mine = select(rows, key)
    mine = mine[~mine["error"]]
    if by_generation:
        # A frame that records no run (NaN, which equals nothing) pairs items by generation alone.
        runs = (
            mine["run"].astype(object).where(mine["run"].notna(), "")
            if "run" in mine.columns
            else pd.Series("", index=mine.index)
        )
        ids: Iterable[Hashable] = zip(mine["generation"], runs, mine["id"], mine["epoch"], strict=True)
    else:
        ids = mine["id"]
    return dict(zip(ids, mine["value"].astype(float), strict=True))


def on_run(
    rows: pd.DataFrame, run_rows: pd.DataFrame, generation: str | None, run: str | None
) -> pd.DataFrame:
    """The rows, with one generation's rows taken from one run of it (the one the humans scored).

    Args:
        rows: Judge rows, each judgement once.
        run_rows: Judge rows of every run.
        generation: The generation's key.
        run: The run; None leaves ``rows`` as they are.

    Returns:
        ``rows`` of every other generation, and the rows of ``run`` for ``generation``.
    """
    if generation is None or run is None or "run" not in rows.columns:
        return rows
    others = rows[rows["generation"] != generation]
    mine = run_rows[(run_rows["generation"] == generation) & (run_rows["run"] == run)]
    return pd.concat([others, mine], ignore_index=True) if not mine.empty else rows


def generation_rows(rows: pd.DataFrame, generation: str | None) -> tuple[pd.DataFrame, list[str]]:
    """One score per judge and item of the reliability generation, one run, first epoch only, with notes."""
    notes: list[str] = []
    mine = latest(rows[rows["generation"] == generation], ["judge", "judge_model"])
    if mine.empty:
        return mine, notes
    if "run" in mine.columns and mine["run"].nunique() > 1:
        judges = mine.groupby("run")[["judge", "judge_model"]].apply(lambda g: len(g.drop_duplicates()))
        newest = mine.groupby("run")["created"].max()
        run = max(judges.index, key=lambda r: (judges[r], str(newest[r]), str(r)))
        left = sorted(set(mine.loc[mine["run"] != run, "judge"].astype(str)))
        notes.append(
            f"the generation has {mine['run'].nunique()} runs judged by different judges; compared on run {run}, "
            f"the one most judges scored (left out: {', '.join(left)} on another run)"
        )
        mine = mine[mine["run"] == run]
    first = int(mine["epoch"].min())
    if mine["epoch"].nunique() > 1:
        notes.append(f"the generation ran {mine['epoch'].nunique()} epochs; epoch {first} is compared")
    return mine[mine["epoch"] == first], notes
