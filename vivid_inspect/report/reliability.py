"""Judge reliability tables.

Table 1 (each judge against humans), judge against judge, strategy against strategy with paired
intervals, self-consistency and parse failures.

Table 1 and the strategy differences need the items the humans scored, so they are computed on
one generation (the "reliability generation"): the one the human scores were drawn from, chosen by
:mod:`vivid_inspect.report.binding`. With human scores and several judged generations and none
chosen, :func:`reliability_generation` refuses to guess; without human scores it takes the
generation judged by the most judges. Human ids are sample ids; when that generation ran several
epochs, epoch 1 is compared. The statistics come from
:mod:`vivid_inspect.report.agreement`; what it cannot define is reported in the ``notes`` column.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Hashable
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from vivid_inspect.report.agreement import Agreement, agreement, paired_difference
from vivid_inspect.report.consistency import parse_failure_rate, self_consistency
from vivid_inspect.report.humans import human_ceiling, human_means
from vivid_inspect.report.judges import (
    JudgeKey,
    judge_keys,
    latest,
    select,
    strategy_of,
)
from vivid_inspect.report.raters import RaterAgreement, rater_agreement, raters_alpha
from vivid_inspect.report.render import Table
from vivid_inspect.report.repeats import GROUP, consistency_runs, first_repeat, with_source

N_BOOT = 1000
SEED = 0
_STATS = (
    "n",
    "judge_mean",
    "human_mean",
    "kappa",
    "kappa_lo",
    "kappa_hi",
    "kappa_half_down",
    "weighted_kappa",
    "spearman",
    "alpha",
    "exact",
    "within1",
    "mae",
)
_RATERS = ("kappa_per_annotator", "kappa_per_annotator_lo", "kappa_per_annotator_hi", "alpha_raters")
TABLE1_COLUMNS = (
    "judge",
    "strategy",
    "judge_model",
    "scored",
    "unscored",
    "parse_failure_rate",
    "mean_all_items",
    *_STATS,
    *_RATERS,
    "notes",
)
_DECIMALS = {"mean_all_items": 2, "judge_mean": 2, "human_mean": 2, "*": 3}


@dataclass(frozen=True)
class Reliability:
    """The judge-reliability tables and the agreements behind Table 1 (for the plots)."""

    tables: tuple[Table, ...]
    agreements: dict[JudgeKey, Agreement] = field(default_factory=dict)
    generation: str | None = None


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


def build_reliability(
    rows: pd.DataFrame,
    humans: pd.DataFrame | None,
    *,
    generation: str | None = None,
    why: str | None = None,
    n_boot: int = N_BOOT,
    seed: int = SEED,
) -> Reliability:
    """Every judge-reliability table.

    Args:
        rows: Judge rows of explanation logs (all generations, repeated runs included). Every
            table but self-consistency uses each judge's first repeat only.
        humans: Human scores (``id``, ``score``, optional ``annotator``), or None.
        generation: The reliability generation, already chosen (see
            :func:`reliability_generation`).
        why: How it was chosen, added to Table 1's notes.
        n_boot: Bootstrap resamples of the intervals.
        seed: Seed of the resamples.

    Returns:
        Table 1, judge pairs, strategy differences, self-consistency and the per-judge summary.
    """
    human = human_means(humans) if humans is not None else {}
    repeated, rows = rows, first_repeat(rows)  # only self-consistency sees the further repeats
    chosen = reliability_generation(rows, set(human), generation)
    table1, agreements = _table1(rows, humans, human, chosen, n_boot, seed)
    if why:
        table1 = replace(table1, notes=(why, *table1.notes))
    return Reliability(
        tables=(
            table1,
            _differences(rows, human, chosen, humans is not None, n_boot, seed),
            _pairs(rows, n_boot, seed),
            _consistency(repeated),
            _summary(rows),
        ),
        agreements=agreements,
        generation=chosen,
    )


def _scores(rows: pd.DataFrame, key: JudgeKey, *, by_generation: bool = False) -> dict[Hashable, float]:
    mine = select(rows, key)
    mine = mine[~mine["error"]]
    ids = zip(mine["generation"], mine["id"], mine["epoch"], strict=True) if by_generation else mine["id"]
    return dict(zip(ids, mine["value"].astype(float), strict=True))


def _generation_rows(rows: pd.DataFrame, generation: str | None) -> tuple[pd.DataFrame, list[str]]:
    """One score per judge and item of the reliability generation, first epoch only."""
    notes: list[str] = []
    mine = latest(rows[rows["generation"] == generation], ["judge", "judge_model"])
    if mine.empty:
        return mine, notes
    first = int(mine["epoch"].min())
    if mine["epoch"].nunique() > 1:
        notes.append(f"the generation ran {mine['epoch'].nunique()} epochs; epoch {first} is compared")
    return mine[mine["epoch"] == first], notes


def _table1(
    rows: pd.DataFrame,
    humans: pd.DataFrame | None,
    human: dict[int, float],
    generation: str | None,
    n_boot: int,
    seed: int,
) -> tuple[Table, dict[JudgeKey, Agreement]]:
    mine, notes = _generation_rows(rows, generation)
    records: list[dict[str, object]] = []
    agreements: dict[JudgeKey, Agreement] = {}
    annotators = _annotators(humans) if humans is not None else {}
    if humans is not None:
        records.append(
            _record("human", "", "", scored=len(human), n=len(human), kappa=1.0)
            | {
                "human_mean": float(np.mean(list(human.values()))) if human else None,
                "notes": "reference: the human scores (mean over annotators per item), every item the humans scored",
            }
        )
        ceiling = human_ceiling(humans, n_boot=n_boot, seed=seed)
        if ceiling is not None:
            between = _record("human (annotator vs annotator)", "", "") | _stats(ceiling)
            if len(annotators) > 1:
                between["alpha_raters"] = raters_alpha({f"annotator {a!r}": s for a, s in annotators.items()})
            records.append(between)
        elif "annotator" in humans.columns:
            notes.append("no human-human agreement: fewer than two annotators, or no item both scored")
        notes.extend(_TABLE1_COLUMN_NOTES)
    else:
        notes.append(
            "no human scores given (--human FILE): agreement columns and means are empty; "
            "each judge's mean over all its items is in the judge summary"
        )
    for key in judge_keys(mine):
        judged = select(mine, key)
        values = judged.loc[~judged["error"], "value"].astype(float)
        scored, unscored = int(values.notna().sum()), int(values.isna().sum())
        record = _record(
            key.name,
            strategy_of(mine, key),
            key.model,
            scored=scored,
            unscored=unscored,
            parse_failure_rate=parse_failure_rate(scored, unscored),
        )
        if humans is not None:
            # Only beside the paired means: alone, one generation's mean reads as the judge's overall mean.
            record["mean_all_items"] = float(values.mean()) if scored else None
            try:
                result = agreement(_scores(mine, key), human, n_boot=n_boot, seed=seed)
                raters = rater_agreement(_scores(mine, key), annotators, n_boot=n_boot, seed=seed)
            except ValueError as error:
                record["notes"] = f"not comparable with the humans: {error}"
            else:
                agreements[key] = result
                record |= _stats(result) | _rater_stats(raters)
                record["notes"] = "; ".join(filter(None, [str(record["notes"]), *raters.notes]))
        records.append(record)
    if generation is not None:
        described = rows[rows["generation"] == generation][["model", "prompt"]].drop_duplicates()
        what = ", ".join(f"{m} {p}" for m, p in described.itertuples(index=False, name=None))
        notes.insert(0, f"computed on generation {generation} ({what})")
    frame = pd.DataFrame(records, columns=list(TABLE1_COLUMNS))
    title = "Table 1: judge strategies (x judge model) against human scores"
    table = Table(
        "table1_judges",
        title,
        frame,
        decimals=_DECIMALS,
        notes=tuple(notes),
        counts=("scored", "unscored", "n"),
    )
    return table, agreements


_TABLE1_COLUMN_NOTES = (
    (
        "judge_mean and human_mean are over the same n items (scored by the judge and the humans); "
        "mean_all_items is over every item the judge scored in this generation"
    ),
    (
        "kappa, weighted_kappa, alpha, exact, within1: the human score of an item is the mean over its annotators, "
        "rounded half up to a whole score (the paper's rule); kappa_half_down rounds halves down instead"
    ),
    (
        "kappa_per_annotator: Cohen's kappa of each annotator with the judge on that annotator's items, averaged "
        "over annotators, with a 95% bootstrap CI; alpha_raters: Krippendorff's ordinal alpha over the annotators "
        "and the judge as separate raters; neither rounds anything"
    ),
)


def _annotators(humans: pd.DataFrame) -> dict[str, dict[Hashable, float]]:
    """Each annotator's scores; a file without an ``annotator`` column is one annotator."""
    if "annotator" not in humans.columns:
        return {
            "(no annotator column)": dict(zip(humans["id"].tolist(), humans["score"].tolist(), strict=True))
        }
    return {
        str(name): dict(zip(group["id"].tolist(), group["score"].tolist(), strict=True))
        for name, group in humans.groupby(humans["annotator"].astype(str), sort=True)
    }


def _record(judge: str, strategy: str, model: str, **values: object) -> dict[str, object]:
    return {"judge": judge, "strategy": strategy, "judge_model": model, "notes": "", **values}


def _stats(result: Agreement) -> dict[str, object]:
    row = {name: getattr(result, name) for name in _STATS}
    row["notes"] = "; ".join(result.notes)
    return row


def _rater_stats(result: RaterAgreement) -> dict[str, object]:
    return {
        "kappa_per_annotator": result.kappa_mean,
        "kappa_per_annotator_lo": result.kappa_lo,
        "kappa_per_annotator_hi": result.kappa_hi,
        "alpha_raters": result.alpha,
    }


def _differences(
    rows: pd.DataFrame,
    human: dict[int, float],
    generation: str | None,
    has_humans: bool,
    n_boot: int,
    seed: int,
) -> Table:
    columns = [
        "judge_a",
        "judge_b",
        "n",
        "kappa_a",
        "kappa_b",
        "kappa_diff",
        "kappa_diff_lo",
        "kappa_diff_hi",
        "mean_a",
        "mean_b",
        "mean_diff",
        "mean_diff_lo",
        "mean_diff_hi",
        "notes",
    ]
    mine, notes = _generation_rows(rows, generation)
    records: list[dict[str, object]] = []
    keys = judge_keys(mine)
    if not has_humans:
        notes.append("needs human scores (--human FILE)")
    elif len(keys) < 2:
        notes.append(f"needs two judges on the same generation; found {len(keys)}")
    else:
        for a, b in itertools.combinations(keys, 2):
            try:
                result = paired_difference(
                    _scores(mine, a), _scores(mine, b), human, n_boot=n_boot, seed=seed
                )
            except ValueError as error:
                records.append({"judge_a": a.label, "judge_b": b.label, "notes": f"not comparable: {error}"})
                continue
            values = {k: getattr(result, k) for k in columns[2:-1]}
            records.append(
                {"judge_a": a.label, "judge_b": b.label, **values, "notes": "; ".join(result.notes)}
            )
    title = "Judge strategy against strategy: kappa with humans and mean score, A minus B, paired bootstrap 95% CI"
    frame = pd.DataFrame(records, columns=columns)
    return Table("judge_differences", title, frame, decimals=3, notes=tuple(notes), counts=("n",))


def _pairs(rows: pd.DataFrame, n_boot: int, seed: int) -> Table:
    columns = [
        "judge_a",
        "judge_b",
        "n",
        "kappa",
        "kappa_lo",
        "kappa_hi",
        "weighted_kappa",
        "spearman",
        "exact",
        "within1",
        "mean_a",
        "mean_b",
        "notes",
    ]
    deduped = latest(rows, ["generation", "judge", "judge_model"])
    keys = judge_keys(deduped)
    records: list[dict[str, object]] = []
    for a, b in itertools.combinations(keys, 2):
        scores_a, scores_b = _scores(deduped, a, by_generation=True), _scores(deduped, b, by_generation=True)
        if not set(scores_a) & set(scores_b):
            continue
        try:
            # Judge B sits in the "human" slot: the statistics are symmetric except the means.
            result = agreement(scores_a, scores_b, n_boot=n_boot, seed=seed)
        except ValueError as error:
            records.append({"judge_a": a.label, "judge_b": b.label, "notes": f"not comparable: {error}"})
            continue
        records.append(
            {
                "judge_a": a.label,
                "judge_b": b.label,
                **{
                    k: getattr(result, k)
                    for k in ("n", "kappa", "kappa_lo", "kappa_hi", "weighted_kappa", "spearman")
                },
                "exact": result.exact,
                "within1": result.within1,
                "mean_a": result.judge_mean,
                "mean_b": result.human_mean,
                "notes": "; ".join(_as_judges(note) for note in result.notes),
            }
        )
    notes = () if records else (f"needs two judges scoring the same items; found {len(keys)} judge(s)",)
    title = "Judge against judge, on the items both scored (all generations)"
    return Table(
        "judge_pairs", title, pd.DataFrame(records, columns=columns), decimals=3, notes=notes, counts=("n",)
    )


_SLOTS = re.compile(r"\b(human|judge)\b")


def _as_judges(note: str) -> str:
    """Agreement notes name the two sides "judge" and "human"; here they are judges A and B."""
    return _SLOTS.sub(lambda m: "judge B" if m.group(1) == "human" else "judge A", note)


def _consistency(rows: pd.DataFrame) -> Table:
    columns = [
        "judge",
        "judge_model",
        "generation",
        "runs_from",
        "runs",
        "n",
        "temperature",
        "excluded",
        "mean_kappa",
        "mean_exact",
        "flip_rate",
        "notes",
    ]
    records: list[dict[str, object]] = []
    unrecorded_temperature = False
    for (_, name, model), group in with_source(rows).groupby(list(GROUP), sort=True):
        found = consistency_runs(group)
        if found is None:
            continue
        first = group[group["repeat"].fillna(0) == group["repeat"].fillna(0).min()]
        record: dict[str, object] = {
            "judge": str(name),
            "judge_model": str(model),
            "generation": str(first["generation"].iloc[0]),
            "runs_from": found.source,
            "runs": len(found.runs),
            "temperature": ", ".join(f"{t:g}" for t in found.temperatures),
            "excluded": found.excluded,
        }
        unrecorded_temperature |= not found.temperatures
        notes = list(found.notes)
        if len(found.runs) < 2:
            notes.append("no fresh repeat left to compare with the first")
        else:
            result = self_consistency(found.runs)
            record |= {
                "n": result.n,
                "mean_kappa": result.mean_kappa,
                "mean_exact": result.mean_exact,
                "flip_rate": result.flip_rate,
            }
            notes += result.notes
        records.append(record | {"notes": "; ".join(notes)})
    if not records:
        notes_out: tuple[str, ...] = (
            "no judge was run more than once on the same items (repeats, repeated logs or epochs)",
        )
    else:
        notes_out = _CONSISTENCY_NOTES + ((_NO_TEMPERATURE,) if unrecorded_temperature else ())
    title = "Judge self-consistency (the same judge run k times on the same items)"
    frame = pd.DataFrame(records, columns=columns)
    return Table(
        "judge_consistency", title, frame, decimals=3, notes=notes_out, counts=("runs", "n", "excluded")
    )


_NO_TEMPERATURE = (
    "temperature empty: the logs do not record it (not written by vivid run); the judge runs at its own "
    "temperature 0 unless its grader role sets another"
)
_CONSISTENCY_NOTES = (
    (
        "runs_from repeats: each run is one repeat (judges[].repeats in a spec, or inspect score -S repeat=r), "
        "counted only when it is a fresh judgement of its own (a reply Inspect's cache replayed from another "
        "judgement of the same repeat is excluded, column excluded)"
    ),
    (
        "repeats run at the judge's temperature (column temperature): its own 0 unless the spec's generate "
        "sets another, so at 0 they measure the provider's nondeterminism; the first repeat is the one Table 1, "
        "Tables 3 and 4, the judge pairs and the panel use"
    ),
)


def _summary(rows: pd.DataFrame) -> Table:
    columns = [
        "judge",
        "strategy",
        "judge_model",
        "generations",
        "samples",
        "scored",
        "unscored",
        "errors",
        "parse_failure_rate",
        "retried",
        "empty_answers",
        "mean",
    ]
    deduped = latest(rows, ["generation", "judge", "judge_model"])
    records: list[dict[str, object]] = []
    for key in judge_keys(deduped):
        mine = select(deduped, key)
        present = mine[~mine["error"]]
        scored, unscored = int(present["value"].notna().sum()), int(present["value"].isna().sum())
        mean = present["value"].mean()
        records.append(
            {
                "judge": key.name,
                "strategy": strategy_of(deduped, key),
                "judge_model": key.model,
                "generations": mine["generation"].nunique(),
                "samples": len(mine),
                "scored": scored,
                "unscored": unscored,
                "errors": int(mine["error"].sum()),
                "parse_failure_rate": parse_failure_rate(scored, unscored),
                "retried": int(present["retried"].sum()),
                "empty_answers": int((present["parse_status"] == "empty_answer").sum()),
                "mean": None if math.isnan(mean) else float(mean),
            }
        )
    notes = (
        (
            "unscored: the judge gave no readable score after its retries (excluded from every mean, never 0); "
            "errors: the sample has no score (it failed); empty_answers: empty explanations, scored 0 without a "
            "judge call"
        ),
    )
    title = "Judges: scored and unscored counts and parse-failure rate (all generations)"
    counted = ("generations", "samples", "scored", "unscored", "errors", "retried", "empty_answers")
    return Table(
        "judge_summary",
        title,
        pd.DataFrame(records, columns=columns),
        decimals=3,
        notes=notes,
        counts=counted,
    )
