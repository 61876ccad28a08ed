"""Self-preference from a log folder: how a judge scores a generator beyond leniency and quality.

With judges ``j`` and generators ``g`` scoring the same items, ``m[j, g]`` is judge ``j``'s mean
score of generator ``g``'s explanations. The interaction

    I[j, g] = m[j, g] - m[j, ·] - m[·, g] + m[·, ·]

is what is left once judge ``j``'s leniency (its mean over generators) and generator ``g``'s
quality (its mean over judges) are taken out: a lenient judge, high on every generator, has no
interaction. Its 95 % interval is a paired bootstrap over items: each resample draws items once
and every cell is recomputed on that same draw, so the cells stay paired.

A judge is flagged as self-preferring when, for a generator of its own family
(:mod:`vivid_inspect.audit.family`), the interval lies above 0; with several own-family cells their
intervals hold jointly at 95 % (Bonferroni), so that more cells do not mean more flags by chance.
With one judge or one generator there is nothing to separate, and the estimate refuses
(:class:`SelfPreferenceError`).

Only the items every (judge, generator) cell scored count, so that every mean is over the same
items. A generation is one model with one prompt (``vivid/oracle (few_shot)`` when a model has
several); several epochs of an item are averaged first. Audit logs (probe candidates, not a model's
generations), panels (their members already count) and repeated judgements other than the first
are left out.
"""

from __future__ import annotations

import math
import os
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from vivid_inspect.audit.family import resolve_family
from vivid_inspect.audit.self_preference_card import (
    CellResult,
    Participant,
    SelfPreferenceCard,
    SelfPreferenceError,
)
from vivid_inspect.log_contract import LEXICAL, PANEL_STRATEGY
from vivid_inspect.report.judges import JudgeKey, judge_keys, judge_rows, latest, strategy_of
from vivid_inspect.report.score_stats import resamples, sorted_ids

DEFAULT_N_BOOT = 2000
"""Bootstrap resamples of the items."""
COVERAGE = 0.95
"""Coverage of the intervals shown, and joint coverage of the intervals a flag needs."""
# An interval "above 0" must clear rounding: a judge with no effect gets interactions of ±1e-16.
_ABOVE_ZERO = 1e-9
_SHOWN = 4  # empty cells named in a message

__all__ = [
    "CellResult",
    "Participant",
    "SelfPreferenceCard",
    "SelfPreferenceError",
    "estimate",
    "from_frame",
    "interaction",
    "run_self_preference",
    "spec_families",
]


def interaction(means: np.ndarray) -> np.ndarray:
    """``I = m − row means − column means + grand mean`` over the last two axes.

    Args:
        means: ``m[..., j, g]``: judges on the second-to-last axis, generators on the last.

    Returns:
        The interaction, the same shape.
    """
    return (
        means
        - means.mean(axis=-1, keepdims=True)
        - means.mean(axis=-2, keepdims=True)
        + means.mean(axis=(-2, -1), keepdims=True)
    )


def estimate(
    scores: Mapping[tuple[str, str], Mapping[Hashable, float]],
    judges: Sequence[Participant],
    generators: Sequence[Participant],
    *,
    seed: int = 0,
    n_boot: int = DEFAULT_N_BOOT,
    source: str = "",
    notes: Sequence[str] = (),
) -> SelfPreferenceCard:
    """The card from each cell's scores per item.

    Args:
        scores: ``(judge label, generator label)`` to item id to score (NaN: unscored).
        judges: The judges, in row order.
        generators: The generators, in column order.
        seed: Seed of the bootstrap.
        n_boot: Bootstrap resamples (at least 1).
        source: What the scores came from, for messages.
        notes: Notes carried onto the card.

    Returns:
        The card (nothing written).

    Raises:
        SelfPreferenceError: With fewer than two judges or two generators, or no item scored in
            every cell.
    """
    where = f" in {source}" if source else ""
    if len(judges) < 2 or len(generators) < 2:
        raise SelfPreferenceError(_too_few(judges, generators, where))
    if n_boot < 1:
        raise SelfPreferenceError(f"n_boot must be at least 1, got {n_boot}")
    scored: dict[tuple[str, str], set[Hashable]] = {}
    for j in judges:
        for g in generators:
            cell = scores.get((j.label, g.label), {})
            scored[(j.label, g.label)] = {item for item, value in cell.items() if not math.isnan(value)}
    shared = set.intersection(*scored.values())
    items = sorted_ids(shared)
    left_out = len(set.union(*scored.values()) - shared)
    if not items:
        raise SelfPreferenceError(_nothing_shared(scored, left_out, where))
    matrix = np.array(
        [[[float(scores[(j.label, g.label)][item]) for item in items] for g in generators] for j in judges]
    )
    means = matrix.mean(axis=2)
    point = interaction(means)
    replicates = _replicates(matrix, seed, n_boot)
    card_notes = list(notes)
    if len(items) == 1:
        card_notes.append("one shared item: no interval, so no judge can be flagged")
    unknown = [p.label for p in (*judges, *generators) if p.family is None]
    if unknown:
        card_notes.append(
            "family unknown for "
            + ", ".join(unknown)
            + ": declare it with --family MODEL=FAMILY or `family:` in the spec"
        )
    own = [[j.has_family and j.family == g.family for g in generators] for j in judges]
    # Every own-family cell is a chance to flag: their intervals hold jointly at 95 % (Bonferroni),
    # so a folder with many of them does not flag one by chance.
    tested = sum(map(sum, own))
    flag_coverage = 1 - (1 - COVERAGE) / max(tested, 1)
    cells = []
    for a, j in enumerate(judges):
        for b, g in enumerate(generators):
            lo, hi = _interval(replicates[:, a, b], COVERAGE) if len(items) > 1 else (None, None)
            flag_lo, flag_hi = (
                _interval(replicates[:, a, b], flag_coverage)
                if own[a][b] and len(items) > 1
                else (None, None)
            )
            cells.append(
                CellResult(
                    judge=j.label,
                    generator=g.label,
                    mean=float(means[a, b]),
                    interaction=float(point[a, b]),
                    ci_low=lo,
                    ci_high=hi,
                    own_family=own[a][b],
                    flag_low=flag_lo,
                    flag_high=flag_hi,
                    flagged=flag_lo is not None and flag_lo > _ABOVE_ZERO,
                )
            )
    return SelfPreferenceCard(
        source=source,
        judges=tuple(judges),
        generators=tuple(generators),
        cells=tuple(cells),
        n_items=len(items),
        left_out=left_out,
        seed=seed,
        n_boot=n_boot,
        notes=tuple(card_notes),
    )


def _replicates(matrix: np.ndarray, seed: int, n_boot: int) -> np.ndarray:
    """The interaction on each resample, ``[resample, judge, generator]``, every cell on the same draw."""
    n = matrix.shape[2]
    draws = resamples(n, n_boot, seed)
    # Counts per item and resample: a resample's cell mean is a weighted mean over the items.
    weights = np.zeros((n_boot, n))
    np.add.at(weights, (np.arange(n_boot)[:, None], draws), 1.0)
    return interaction(np.einsum("jgn,bn->bjg", matrix, weights) / n)


def _interval(replicates: np.ndarray, coverage: float) -> tuple[float, float]:
    """The central percentile interval of the replicates (all finite: means of resampled scores)."""
    tail = 100 * (1 - coverage) / 2
    low, high = np.percentile(replicates, [tail, 100 - tail])
    return float(low), float(high)


def from_frame(
    frame: pd.DataFrame,
    *,
    families: Mapping[str, str] | None = None,
    seed: int = 0,
    n_boot: int = DEFAULT_N_BOOT,
    source: str = "",
) -> SelfPreferenceCard:
    """The card from the report's tidy score frame (:data:`vivid_inspect.report.logs.SCORE_COLUMNS`).

    Args:
        frame: Score rows; only judge scores of explanations are used.
        families: Declared families (model or judge name to family), over the inferred ones.
        seed: Seed of the bootstrap.
        n_boot: Bootstrap resamples.
        source: What the frame came from, for messages.

    Returns:
        The card (nothing written).

    Raises:
        SelfPreferenceError: When the frame cannot separate judges from generators.
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
    rows = latest(rows, ["judge", "judge_model", "model", "prompt"])
    keys = judge_keys(rows)
    prompts = rows.groupby("model")["prompt"].nunique(dropna=False)
    generator_of = {
        (model, prompt): f"{model} ({prompt})" if prompts[model] > 1 else str(model)
        for model, prompt in rows[["model", "prompt"]].drop_duplicates().itertuples(index=False)
    }
    judges = [_judge(key, strategy_of(rows, key), declared) for key in keys]
    generators = []
    for (model, _prompt), label in sorted(generator_of.items(), key=lambda kv: kv[1]):
        family, origin = resolve_family(str(model), declared)
        generators.append(Participant(label=label, model=str(model), family=family, source=origin))
    # Epochs of an item are averaged; an unscored one (NaN) does not count against the others.
    averaged = rows.groupby(["judge", "judge_model", "model", "prompt", "id"], dropna=False)["value"].mean()
    scores: dict[tuple[str, str], dict[Hashable, float]] = {}
    for record in averaged.reset_index().to_dict("records"):
        label = JudgeKey(str(record["judge"]), str(record["judge_model"] or "")).label
        cell = (label, generator_of[(record["model"], record["prompt"])])
        scores.setdefault(cell, {})[record["id"]] = float(record["value"])
    return estimate(scores, judges, generators, seed=seed, n_boot=n_boot, source=source, notes=notes)


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
    seed: int = 0,
    out_dir: str | os.PathLike[str] | None = None,
    n_boot: int = DEFAULT_N_BOOT,
) -> SelfPreferenceCard:
    """Estimate self-preference from a log folder and write the card's files.

    Args:
        log_dir: A folder of logs where several generators are judged by several judges (any
            ``vivid run`` folder); audit and sanity logs in it are left out.
        families: Families given on the command line (model or judge name to family); they win
            over the spec's ``family:`` (read from the run records in the folder), which wins
            over the inferred ones.
        seed: Seed of the bootstrap.
        out_dir: Where ``self_preference.md`` and ``.csv`` go (default ``log_dir``).
        n_boot: Bootstrap resamples.

    Returns:
        The card, with the files it wrote.

    Raises:
        SelfPreferenceError: The folder does not exist, holds no logs, or cannot separate judges
            from generators (one judge, one generator, no item scored in every cell).
    """
    from vivid_inspect.report.logs import read_logs

    root = Path(log_dir)
    try:
        logs = read_logs(root)
    except ValueError as error:
        raise SelfPreferenceError(str(error)) from None
    if not logs.logs:
        raise SelfPreferenceError(f"no VIVID logs in {str(root)!r}")
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
    card = from_frame(logs.scores, families=declared, seed=seed, n_boot=n_boot, source=str(root))
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
    import yaml

    from vivid_inspect.audit.family import FamilyError, normalise_family
    from vivid_inspect.runner.record import SPEC_FILE

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


def _nothing_shared(scored: Mapping[tuple[str, str], set[Hashable]], left_out: int, where: str) -> str:
    """Why no item is shared: the cells with no score at all, else how many items are split."""
    empty = [f"{judge} × {generator}" for (judge, generator), items in scored.items() if not items]
    shown = ", ".join(empty[:_SHOWN]) + (f" and {len(empty) - _SHOWN} more" if len(empty) > _SHOWN else "")
    why = f"no scores for {shown}" if empty else f"{left_out} items are each scored by some cells only"
    return f"no item is scored by every judge for every generator{where}: {why}"


def _too_few(judges: Sequence[Participant], generators: Sequence[Participant], where: str) -> str:
    def names(group: Sequence[Participant]) -> str:
        return ", ".join(p.label for p in group) or "none"

    return (
        f"nothing to separate{where}: a judge × generator interaction needs at least two judges and two "
        f"generators scoring the same items; found {len(judges)} judge(s) ({names(judges)}) and "
        f"{len(generators)} generator(s) ({names(generators)})"
    )
