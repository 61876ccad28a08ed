"""Self-preference from a log folder: how a judge scores a generator beyond leniency, scale and quality.

Judges ``j`` score the same items of generators ``g``. A cell where judge and generator share a
family may hold self-preference; the others are assumed free of it. Each judge's leniency and
scale and each generator's quality are fitted on the others, and an own-family cell's *excess*,
its shift beyond them, is the self-preference estimate (the model and why it is identified:
`vivid_inspect.lab.self_preference.model`). Because the suspect cells have shifts of their
own, one judge's preference moves its own cell's excess and no other's.

Designs the estimate accepts, and what it says otherwise (`SelfPreferenceError`, exit 2):

- at least two generators and at least three judges, every judge scoring some items of every
  generator (two judges' scores of the same items cannot tell two scales from two noises);
- own-family cells that the other-family cells link to their judge and generator (a path judge ->
  generator -> judge ... through them; a GPT and a Qwen judge on a GPT and a Qwen generator are not
  linked: each judge's preference for its own family looks like the other's);
- scores that vary: each judge's scale needs a generator on whose items it and two other judges
  give more than one score.

Cells where a side's family is unknown have a shift of their own too (they may be own-family) and
are never flagged. A judge is flagged when, for a generator of its own family, the excess's
interval lies above 0; with several own-family cells the flags are made jointly at 5 % (Holm's
step-down: the clearest cell's interval at ``1 - 0.05/k``, the next at ``1 - 0.05/(k-1)`` once the
first is flagged, ...), so that more cells do not mean more flags by chance. With fewer than
`MIN_ITEMS` items of a generator, intervals under-cover (bench/coverage_selfpref.py): none is
printed and no judge is flagged.

A generator is a generation (model, prompt, data and sample ids: the generation key of
`vivid_inspect.generation_key`), never merged with another by sample id: two data sets in
one folder are two generators. A generation run twice (a rerun) counts once, from the run the
most judges scored (then the finished one, then the newest); a judged copy is the same run, its
scores counted once. An item is one sample and epoch of that run; only the items of a generator
every judge scored count. Audit logs (probe candidates, not a model's generations), panels (their
members already count) and repeated judgements other than the first are left out.
"""

from __future__ import annotations

import math
import os
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import yaml
from threadpoolctl import threadpool_limits

from vivid_inspect.lab.audit.family import NO_FAMILY, FamilyError, normalise_family, resolve_family
from vivid_inspect.lab.report.reading.logs import read_logs
from vivid_inspect.lab.report.tables.judges import JudgeKey, judge_keys, judge_rows, latest, strategy_of
from vivid_inspect.lab.self_preference.card import (
    CellResult,
    GeneratorFit,
    JudgeFit,
    Participant,
    SelfPreferenceCard,
    SelfPreferenceError,
    signed_text,
)
from vivid_inspect.lab.self_preference.model import SCORE_MAX, SCORE_MIN, ModelError, ModelFit, fit, linked
from vivid_inspect.log_contract import LEXICAL, PANEL_STRATEGY, SPEC_FILE

if TYPE_CHECKING:  # a type only: the estimate from scores needs no log reader
    from vivid_inspect.lab.report.reading.log_refs import LogRef

COVERAGE = 0.95
"""Coverage of the intervals shown, and joint coverage of the intervals a flag needs."""
MIN_JUDGES = 3
"""Judges needed to fit their scales from the items they share."""
MIN_ITEMS = 30
"""Fewest items of every generator for an interval and a flag. In bench/coverage_selfpref.py the
95 % intervals covered 92.5-92.9 % at 10 items and 92.9-95.4 % at 20 (two runs of 240 folders), and
folders of no self-preference were flagged 4.2-5.8 % of the time at 20; at 30, 94.0 % and 4.2 %."""
# An interval "above 0" must clear rounding: a judge with no effect gets excesses of ±1e-9.
_ABOVE_ZERO = 1e-6
_SHOWN = 4  # cells named in a message


Item = Hashable
Scores = Mapping[tuple[str, str], Mapping[Item, float]]


def may_share_family(judge: Participant, generator: Participant) -> bool:
    """Whether a cell may hold self-preference: same family, or a family unknown on either side."""
    if judge.family == NO_FAMILY or generator.family == NO_FAMILY:
        return False
    return judge.family is None or generator.family is None or judge.family == generator.family


def estimate(
    scores: Scores,
    judges: Sequence[Participant],
    generators: Sequence[Participant],
    *,
    clusters: Mapping[str, Mapping[Item, Hashable]] | None = None,
    source: str = "",
    notes: Sequence[str] = (),
    min_items: int = MIN_ITEMS,
) -> SelfPreferenceCard:
    """The card from each cell's scores per item.

    Args:
        scores: ``(judge label, generator label)`` to item to score (NaN: unscored). Items are
            matched within a generator only: every judge must score the same items of it.
        judges: The judges, in row order.
        generators: The generators, in column order.
        clusters: Generator label to item to the independent unit it belongs to (the same sample
            of the same data across generators and epochs); default: the item itself.
        source: What the scores came from, for messages.
        notes: Notes carried onto the card.
        min_items: Fewest items of every generator for an interval and a flag.

    Returns:
        The card (nothing written).

    Raises:
        SelfPreferenceError: With fewer than two generators or three judges, a generator no
            item of which every judge scored, own-family cells the other-family cells cannot
            separate, scores too uniform to fit a judge's scale, or a fit that does not settle.
    """
    where = f" in {source}" if source else ""
    if len(judges) < 2 or len(generators) < 2:
        raise SelfPreferenceError(_too_few(judges, generators, where))
    items, left_out = _shared_items(scores, judges, generators, where)
    own = np.array([[j.has_family and j.family == g.family for g in generators] for j in judges])
    in_fit = np.array([[not may_share_family(j, g) for g in generators] for j in judges])
    separable = linked(in_fit)
    if (own & ~separable).any():
        # Every cell is scored, so one own-family cell the fit cannot reach means none is reached:
        # its judge and generator both link to every other judge and generator of another family.
        raise SelfPreferenceError(_inseparable(judges, generators, own, in_fit, where))
    if len(judges) < MIN_JUDGES:
        raise SelfPreferenceError(_too_few_judges(judges, where))
    values = [
        np.array([[float(scores[(j.label, g.label)][item]) for j in judges] for item in items[b]])
        for b, g in enumerate(generators)
    ]
    outside = [
        f"{j.label} × {g.label}"
        for b, g in enumerate(generators)
        for a, j in enumerate(judges)
        if values[b].size and not ((values[b][:, a] >= SCORE_MIN) & (values[b][:, a] <= SCORE_MAX)).all()
    ]
    if outside:
        raise SelfPreferenceError(
            f"scores outside {SCORE_MIN:g}-{SCORE_MAX:g}{where}: {_names(outside)}; a judge's score is a number "
            "from 0 to 5"
        )
    if (problem := _uniform(values, judges, generators, where)) is not None:
        raise SelfPreferenceError(problem)
    codes: dict[Hashable, int] = {}
    cluster_codes = [
        np.array(
            [
                codes.setdefault(((clusters or {}).get(g.label) or {}).get(item, ("item", item)), len(codes))
                for item in items[b]
            ]
        )
        for b, g in enumerate(generators)
    ]
    whole = np.array(
        [all(float(v).is_integer() for block in values for v in block[:, a]) for a in range(len(judges))]
    )
    try:
        # One BLAS thread: the fit's matrices are small, and on a shared machine a waiting thread
        # pool costs more than the work (5x under load).
        with threadpool_limits(1):
            model = fit(values, cluster_codes, ~in_fit, whole)
    except ModelError as error:
        raise SelfPreferenceError(
            f"cannot separate self-preference{where}: {error}; add judges, generators or items whose scores vary"
        ) from None
    n_items = [len(found) for found in items]
    return _card(
        model,
        values,
        judges,
        generators,
        own=own,
        in_fit=in_fit,
        n_items=n_items,
        left_out=left_out,
        whole=whole,
        source=source,
        notes=notes,
        min_items=min_items,
    )


def holm_levels(p_values: Sequence[float], alpha: float) -> list[float]:
    """The level each test is held to in Holm's step-down procedure (joint error rate ``alpha``).

    The smallest p-value is tested at ``alpha / k``, the next at ``alpha / (k - 1)``, and so on,
    until one fails; it and every test after it are held to that failing step's level (none of
    them is rejected). A test is rejected when its p-value is below its level.

    Args:
        p_values: One per test, in any order.
        alpha: The joint level.

    Returns:
        The levels, in the order of ``p_values``.
    """
    k = len(p_values)
    order = sorted(range(k), key=lambda i: p_values[i])
    levels = [0.0] * k
    step = 0
    for rank, i in enumerate(order):
        if step == rank and p_values[i] < alpha / (k - rank):
            step += 1
        levels[i] = alpha / (k - min(rank, step))
    return levels


def _shared_items(
    scores: Scores, judges: Sequence[Participant], generators: Sequence[Participant], where: str
) -> tuple[list[list[Item]], list[int]]:
    """Per generator, the items every judge scored (sorted), and how many others some scored."""
    items, left_out = [], []
    empty: dict[str, list[str]] = {}
    for g in generators:
        scored = []
        for j in judges:
            cell = scores.get((j.label, g.label), {})
            found = {item for item, value in cell.items() if not math.isnan(value)}
            if not found:
                empty.setdefault(g.label, []).append(f"{j.label} × {g.label}")
            scored.append(found)
        shared = set.intersection(*scored)
        items.append(sorted(shared, key=repr))  # any order will do, as long as it is always the same
        left_out.append(len(set.union(*scored) - shared))
    without = [g.label for g, found in zip(generators, items, strict=True) if not found]
    if without:
        cells = [cell for label in without for cell in empty.get(label, [])]
        if cells:
            shown = ", ".join(cells[:_SHOWN]) + (
                f" and {len(cells) - _SHOWN} more" if len(cells) > _SHOWN else ""
            )
            why = f"no scores for {shown}"
        else:
            why = ", ".join(
                f"{left_out[b]} items of {g.label} are each scored by some judges only"
                for b, g in enumerate(generators)
                if g.label in without
            )
        raise SelfPreferenceError(f"no item is scored by every judge for every generator{where}: {why}")
    return items, left_out


def _uniform(
    values: Sequence[np.ndarray], judges: Sequence[Participant], generators: Sequence[Participant], where: str
) -> str | None:
    """Why a judge's scale cannot be fitted: in no generator do it and two other judges vary."""
    varies = np.array([[len(set(block[:, a].tolist())) > 1 for a in range(len(judges))] for block in values])
    constant = [j.label for a, j in enumerate(judges) if not varies[:, a].any()]
    if constant:
        return (
            f"cannot separate self-preference from scale{where}: {_names(constant)} gives every item of each "
            "generator one score, so how widely it spreads its scores cannot be fitted; add items or "
            "generators whose scores vary"
        )
    stuck = [
        j.label
        for a, j in enumerate(judges)
        if not any(varies[b, a] and varies[b].sum() >= MIN_JUDGES for b in range(len(generators)))
    ]
    if not stuck:
        return None
    return (
        f"cannot separate self-preference from scale{where}: for {_names(stuck)}, no generator has items on "
        "which it and two other judges give more than one score, so how widely it spreads its scores cannot "
        "be told from its noise; add items or generators whose scores vary"
    )


def _names(labels: Sequence[str]) -> str:
    return ", ".join(labels[:_SHOWN]) + (f" and {len(labels) - _SHOWN} more" if len(labels) > _SHOWN else "")


def _card(
    model: ModelFit,
    values: Sequence[np.ndarray],
    judges: Sequence[Participant],
    generators: Sequence[Participant],
    *,
    own: np.ndarray,
    in_fit: np.ndarray,
    n_items: Sequence[int],
    left_out: Sequence[int],
    whole: np.ndarray,
    source: str,
    notes: Sequence[str],
    min_items: int,
) -> SelfPreferenceCard:
    """The card from the fit: each cell's excess and intervals, each judge's and generator's fit."""
    intervals = min(n_items) >= min_items
    card_notes = list(notes)
    unknown = [p.label for p in (*judges, *generators) if p.family is None]
    if unknown:
        card_notes.append(
            "family unknown for "
            + ", ".join(unknown)
            + ": its cells have a shift of their own and are never flagged; declare it with --family "
            "MODEL=FAMILY or `family:` in the spec"
        )
    if not whole.all():
        card_notes.append(
            "read as continuous scores (not all whole numbers): "
            + ", ".join(j.label for j, w in zip(judges, whole, strict=True) if not w)
        )
    if not model.converged:
        card_notes.append("the fit stopped before its tolerance: read the estimates with care")
    # Every own-family cell is a chance to flag: the flags are made jointly at 5 % (Holm), so a
    # folder with many of them does not flag one by chance, and one clear preference does not
    # hide another.
    excess = np.where(in_fit, model.residual, model.shift)
    excess_se = np.where(in_fit, model.residual_se, model.shift_se)
    tested = [(a, b) for a, b in zip(*np.nonzero(own), strict=True) if not math.isnan(excess_se[a, b])]
    levels = holm_levels([model.p_value(excess[a, b], excess_se[a, b]) for a, b in tested], 1 - COVERAGE)
    flag_low = np.full(own.shape, np.nan)
    flag_high = np.full(own.shape, np.nan)
    for (a, b), level in zip(tested, levels, strict=True):
        low_ab, high_ab = model.interval(excess[a, b], excess_se[a, b], 1 - level)
        flag_low[a, b], flag_high[a, b] = float(low_ab), float(high_ab)
    fit_coverage = 1 - (1 - COVERAGE) / max(int(in_fit.sum()), 1)
    low, high = model.interval(excess, excess_se, COVERAGE)
    fit_low, fit_high = model.interval(excess, excess_se, fit_coverage)
    determined = in_fit | linked(in_fit)
    misfits, cells = [], []
    for a, j in enumerate(judges):
        for b, g in enumerate(generators):
            known = bool(determined[a, b]) and not math.isnan(excess[a, b])
            shown = known and intervals
            if in_fit[a, b] and shown and (fit_low[a, b] > _ABOVE_ZERO or fit_high[a, b] < -_ABOVE_ZERO):
                misfits.append(f"{j.label} × {g.label} ({signed_text(float(excess[a, b]))})")
            flag = own[a, b] and shown and not math.isnan(flag_low[a, b])
            cells.append(
                CellResult(
                    judge=j.label,
                    generator=g.label,
                    mean=float(values[b][:, a].mean()),
                    expected=float(model.expected[a, b]) if known else None,
                    excess=float(excess[a, b]) if known else None,
                    ci_low=float(low[a, b]) if shown else None,
                    ci_high=float(high[a, b]) if shown else None,
                    own_family=bool(own[a, b]),
                    in_fit=bool(in_fit[a, b]),
                    flag_low=float(flag_low[a, b]) if flag else None,
                    flag_high=float(flag_high[a, b]) if flag else None,
                    flagged=bool(flag and flag_low[a, b] > _ABOVE_ZERO),
                    n_items=int(n_items[b]),
                )
            )
    if misfits:
        card_notes.append(
            "leniency, scale and quality do not explain every cell of different families: "
            + ", ".join(misfits)
            + " (jointly at 95 %); a judge favouring or disfavouring another family's generator "
            "shifts the fit, so read the flags with care"
        )
    scale_low, scale_high = model.interval(np.log(model.scale), model.scale_se, COVERAGE)
    judge_fits = tuple(
        JudgeFit(
            label=j.label,
            leniency=float(model.leniency[a]),
            scale=float(model.scale[a]),
            scale_low=float(math.exp(scale_low[a])) if intervals else None,
            scale_high=float(math.exp(scale_high[a])) if intervals else None,
            noise=float(model.noise[a].mean()),
        )
        for a, j in enumerate(judges)
    )
    generator_fits = tuple(
        GeneratorFit(
            label=g.label,
            quality=float(model.quality[b]),
            spread=float(model.spread[b]),
            n_items=int(n_items[b]),
            left_out=int(left_out[b]),
        )
        for b, g in enumerate(generators)
    )
    return SelfPreferenceCard(
        source=source,
        judges=tuple(judges),
        generators=tuple(generators),
        cells=tuple(cells),
        judge_fits=judge_fits,
        generator_fits=generator_fits,
        min_items=min_items,
        notes=tuple(card_notes),
    )


def with_generations(frame: pd.DataFrame, logs: Sequence[LogRef]) -> pd.DataFrame:
    """Score rows with the generation they belong to: its key, the run of it, and its data.

    Each row's log (column ``log``) is looked up among the folder's log references
    (`vivid_inspect.lab.report.reading.log_refs.LogRef`): ``generation`` becomes the generation key of
    its header (a judged copy has its generation's), ``run`` the generation's eval id (a judged
    copy keeps it), ``data`` the data's name.

    Args:
        frame: Score rows (`vivid_inspect.lab.report.reading.logs.SCORE_COLUMNS`).
        logs: The folder's log references (``LogSet.logs``).

    Returns:
        The rows, those of logs without a generation (other tasks) dropped.
    """
    keys, runs, data = {}, {}, {}
    for ref in logs:
        identity = ref.identity
        if identity is None:
            continue
        keys[ref.rel] = identity.key
        recorded = ref.vivid_judge.generation_eval_id if ref.vivid_judge else None
        runs[ref.rel] = recorded or identity.eval_id or ref.rel
        data[ref.rel] = identity.data
    kept = frame[frame["log"].isin(list(keys))].copy()
    kept["generation"] = kept["log"].map(keys)
    kept["run"] = kept["log"].map(runs)
    kept["data"] = kept["log"].map(data)
    return kept


def from_frame(
    frame: pd.DataFrame,
    *,
    families: Mapping[str, str] | None = None,
    source: str = "",
    min_items: int = MIN_ITEMS,
) -> SelfPreferenceCard:
    """The card from score rows keyed on their generation (`with_generations`).

    Args:
        frame: Score rows (`vivid_inspect.lab.report.reading.logs.SCORE_COLUMNS`) with ``generation``
            (the generation key), ``run`` and ``data``; only judge scores of explanations are used.
        families: Declared families (model or judge name to family), over the inferred ones.
        source: What the frame came from, for messages.
        min_items: Fewest items of every generator for an interval and a flag.

    Returns:
        The card (nothing written).

    Raises:
        SelfPreferenceError: When the frame cannot separate self-preference (see `estimate`).
    """
    declared = dict(families or {})
    where = f" in {source}" if source else ""
    rows = judge_rows(frame[frame["task"] == "explain"]) if not frame.empty else frame
    if rows.empty:
        raise SelfPreferenceError(f"no judge scores of explanations{where}")
    notes: list[str] = []
    panels = rows["strategy"] == PANEL_STRATEGY
    if panels.any():
        notes.append(
            f"left out panel scores ({', '.join(sorted(rows.loc[panels, 'judge'].unique()))}): their members count"
        )
    repeats = rows["repeat"].fillna(0) > 0
    if repeats.any():
        notes.append(
            f"left out {int(repeats.sum())} scores of repeated judgements (the first judgement counts)"
        )
    rows = rows[~panels & ~repeats]
    rows, rerun_notes = _one_run(rows, where)
    notes += rerun_notes
    # A judged copy holds the same judgement as its source: one score per judge, run, item.
    rows = latest(rows, ["judge", "judge_model", "generation", "run"])
    keys = judge_keys(rows)
    judges = [_judge(key, strategy_of(rows, key), declared) for key in keys]
    generators = _generators(rows, declared)
    label_of = {g.key: g.label for g in generators}
    scores: dict[tuple[str, str], dict[Item, float]] = {}
    clusters: dict[str, dict[Item, Hashable]] = {}
    for record in rows[["judge", "judge_model", "generation", "data", "id", "epoch", "value"]].to_dict(
        "records"
    ):
        label = JudgeKey(str(record["judge"]), str(record["judge_model"] or "")).label
        generator = label_of[record["generation"]]
        item = (record["id"], int(record["epoch"]))
        scores.setdefault((label, generator), {})[item] = float(record["value"])
        # One sample of one data set is one independent unit, whichever generator or epoch.
        clusters.setdefault(generator, {})[item] = (record["data"], record["id"])
    return estimate(
        scores, judges, generators, clusters=clusters, source=source, notes=notes, min_items=min_items
    )


def _one_run(rows: pd.DataFrame, where: str) -> tuple[pd.DataFrame, list[str]]:
    """One run per generation: the one the most judges scored, then a finished one, then the newest.

    Raises:
        SelfPreferenceError: If a judge scored only another run of a generation: a rerun holds
            other explanations, so its scores are not of the items the other judges scored.
    """
    judged = rows.assign(_who=rows["judge"].astype(str) + " [" + rows["judge_model"].astype(str) + "]")
    runs = (
        judged.groupby(["generation", "run"], dropna=False)
        .agg(
            judges=("_who", "nunique"),
            finished=("status", lambda s: bool((s == "success").all())),
            created=("created", "max"),
            model=("model", "first"),
        )
        .reset_index()
        .sort_values(["judges", "finished", "created", "run"], kind="stable")
    )
    chosen = runs.drop_duplicates("generation", keep="last")
    index = chosen.set_index(["generation", "run"]).index
    dropped = runs[~runs.set_index(["generation", "run"]).index.isin(index)]
    if dropped.empty:
        return rows, []
    kept = rows.merge(chosen[["generation", "run"]], on=["generation", "run"], how="inner")
    kept_who = set(
        zip(kept["generation"], kept["judge"].astype(str), kept["judge_model"].astype(str), strict=True)
    )
    elsewhere = sorted(
        {
            (str(record["model"]), JudgeKey(str(record["judge"]), str(record["judge_model"] or "")).label)
            for record in rows.merge(dropped[["generation", "run"]], on=["generation", "run"]).to_dict(
                "records"
            )
            if (record["generation"], str(record["judge"]), str(record["judge_model"])) not in kept_who
        }
    )
    if elsewhere:
        shown = "; ".join(f"{judge} scored another run of {model}" for model, judge in elsewhere[:_SHOWN])
        raise SelfPreferenceError(
            f"no item is scored by every judge for every generator{where}: {shown} than the other judges "
            "(a rerun holds other explanations); judge the same log with every judge (inspect score, or "
            "vivid run's judge phase)"
        )
    models = ", ".join(sorted({str(m) for m in dropped["model"]}))
    note = (
        f"left out {len(dropped)} other run(s) of a generation already counted ({models}): a generation "
        "counts once, from the run the most judges scored"
    )
    return kept, [note]


def _generators(rows: pd.DataFrame, declared: Mapping[str, str]) -> list[Participant]:
    """One generator per generation key, labelled by model, then prompt, data and key as needed."""
    found = (
        rows[["generation", "model", "prompt", "data"]]
        .drop_duplicates("generation")
        .sort_values(["model", "prompt", "data", "generation"], kind="stable")
        .to_dict("records")
    )
    generators = []
    for record in found:
        same_model = [r for r in found if r["model"] == record["model"]]
        same_prompt = [r for r in same_model if r["prompt"] == record["prompt"]]
        same_data = [r for r in same_prompt if r["data"] == record["data"]]
        extras = []
        if len({r["prompt"] for r in same_model}) > 1:
            extras.append(str(record["prompt"]))
        if len({r["data"] for r in same_prompt}) > 1:
            extras.append(str(record["data"]))
        if len(same_data) > 1:
            extras.append(str(record["generation"]))
        model = str(record["model"])
        label = f"{model} ({', '.join(extras)})" if extras else model
        family, origin = resolve_family(model, declared)
        generators.append(
            Participant(
                label=label,
                model=model,
                family=family,
                source=origin,
                key=str(record["generation"]),
                data=str(record["data"]),
            )
        )
    return sorted(generators, key=lambda g: g.label)


def _judge(key: JudgeKey, strategy: str, declared: Mapping[str, str]) -> Participant:
    family, origin = resolve_family(key.model or None, declared, aliases=(key.name,))
    if not key.model and strategy != LEXICAL and origin == "inferred":
        # An LLM judge whose log did not record its model: its family is unknown, not "none".
        family, origin = None, "unknown"
    return Participant(label=key.label, model=key.model or None, family=family, source=origin)


def run_self_preference(
    log_dir: str | os.PathLike[str],
    *,
    families: Mapping[str, str] | None = None,
    out_dir: str | os.PathLike[str] | None = None,
    min_items: int = MIN_ITEMS,
) -> SelfPreferenceCard:
    """Estimate self-preference from a log folder and write the card's files.

    Args:
        log_dir: A folder of logs where several generators are judged by several judges (any
            ``vivid run`` folder); audit and sanity logs in it are left out.
        families: Families given on the command line (model or judge name to family); they win
            over the spec's ``family:`` (read from the run records in the folder), which wins
            over the inferred ones.
        out_dir: Where ``self_preference.md`` and ``.csv`` go (default ``log_dir``).
        min_items: Fewest items of every generator for an interval and a flag.

    Returns:
        The card, with the files it wrote.

    Raises:
        SelfPreferenceError: A folder that does not exist or holds no generation logs, or one
            whose design cannot separate self-preference (see `estimate`).
    """
    root = Path(log_dir)
    try:
        logs = read_logs(root)
    except ValueError as error:
        raise SelfPreferenceError(str(error)) from None
    if not logs.logs:
        raise SelfPreferenceError(_no_generations(root, len(logs.audits), len(logs.sanity)))
    declared = {**spec_families(root), **(families or {})}
    # read_logs sets aside what vivid audit and vivid sanity wrote: judged made-up answers.
    notes = [
        f"left out {len(found)} {kind} log(s): they judge {what}, not a model's generations"
        for kind, found, what in (
            ("audit", logs.audits, "probe candidates"),
            ("sanity", logs.sanity, "the oracle's and the literal baseline's answers"),
        )
        if found
    ]
    # Every run of each generation, where the report keeps them apart from the one it counts
    # (LogSet.runs, once rows are counted once by generation): a judge must be read on the run the
    # other judges scored, which need not be its latest.
    every_run = getattr(logs, "runs", None)
    frame = with_generations(logs.scores if every_run is None else every_run, logs.logs)
    card = from_frame(frame, families=declared, source=str(root), min_items=min_items)
    card = replace(card, notes=(*notes, *card.notes))
    return card.write(out_dir if out_dir is not None else root)


def spec_families(log_dir: str | os.PathLike[str]) -> dict[str, str]:
    """The families declared in the specs run into a folder (``family:`` on models and judges).

    Read from each run's resolved spec (``vivid/<spec name>/spec.resolved.yaml`` under the
    folder, written by ``vivid run``); a judge's family is declared under its model and its name.

    Args:
        log_dir: The log folder.

    Returns:
        Model or judge name to family (normalised); empty when no spec declares one.
    """
    declared: dict[str, str] = {}
    for path in sorted(Path(log_dir).rglob(f"vivid/*/{SPEC_FILE}")):
        try:
            spec = (yaml.safe_load(path.read_text("utf-8")) or {}).get("spec") or {}
        except (OSError, yaml.YAMLError, AttributeError):
            continue  # a damaged record: the inferred families still apply
        entries = [m for block in spec.get("runs") or [] for m in (block or {}).get("models") or []]
        for entry in [*entries, *(spec.get("judges") or [])]:
            if not isinstance(entry, dict) or not entry.get("family"):
                continue
            try:
                family = normalise_family(str(entry["family"]))
            except FamilyError:
                continue  # the spec's own validation reports it when the spec is loaded
            for name in (entry.get("model"), entry.get("name")):
                if isinstance(name, str) and name:
                    declared[name] = family
    return declared


def _too_few(judges: Sequence[Participant], generators: Sequence[Participant], where: str) -> str:
    def names(group: Sequence[Participant]) -> str:
        return ", ".join(p.label for p in group) or "none"

    return (
        f"nothing to separate{where}: telling a judge's preference from its leniency needs at least two "
        f"judges and two generators scoring the same items; found {len(judges)} judge(s) ({names(judges)}) and "
        f"{len(generators)} generator(s) ({names(generators)})"
    )


def _too_few_judges(judges: Sequence[Participant], where: str) -> str:
    names = ", ".join(p.label for p in judges)
    return (
        f"cannot separate self-preference from scale{where}: a judge's scale (how widely it spreads its "
        f"scores) is fitted from how the judges' scores of the same items vary together, which needs at "
        f"least {MIN_JUDGES} judges (two judges' shared items cannot tell their two scales from their two "
        f"noises); found {len(judges)} ({names}); add a judge scoring the same items"
    )


def _inseparable(
    judges: Sequence[Participant],
    generators: Sequence[Participant],
    own: np.ndarray,
    in_fit: np.ndarray,
    where: str,
) -> str:
    """Why the own-family cells cannot be told from leniency, quality or each other: one line."""
    cells = [f"{judges[a].label} × {generators[b].label}" for a, b in zip(*np.nonzero(own), strict=True)]
    shown = ", ".join(cells[:_SHOWN]) + (f" and {len(cells) - _SHOWN} more" if len(cells) > _SHOWN else "")
    alone = [j.label for a, j in enumerate(judges) if own[a].any() and not in_fit[a].any()]
    unseen = [g.label for b, g in enumerate(generators) if own[:, b].any() and not in_fit[:, b].any()]
    if alone:
        why = (
            f"{', '.join(alone)} scores no generator of another family, so its leniency cannot be told "
            "from its preference; add a generator of another family"
        )
    elif unseen:
        why = (
            f"no judge of another family scores {', '.join(unseen)}, so its quality cannot be told "
            "from its judges' preference; add a judge of another family"
        )
    else:
        why = (
            "the cells of different families do not link each judge to its own family's generator, so "
            "one judge's preference for its own family looks the same as another's; add a generator or "
            "a judge of another family"
        )
    return f"cannot separate self-preference{where}: for {shown}, {why}, scored on the same items"


def _no_generations(root: Path, audits: int, sanity: int) -> str:
    """Why a folder gives nothing to estimate from: no logs, or only logs of made-up answers."""
    kinds = [
        f"{count} {kind} log(s)"
        for kind, count in (("vivid audit", audits), ("vivid sanity", sanity))
        if count
    ]
    if not kinds:
        return f"no VIVID logs in {str(root)!r}"
    return (
        f"no generation logs in {str(root)!r}: it holds only {' and '.join(kinds)}, which judge made-up "
        "answers, not a model's explanations; point --from at a vivid run folder"
    )
