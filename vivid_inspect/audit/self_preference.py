"""Self-preference from a log folder: how a judge scores a generator beyond leniency and quality.

With judges ``j`` and generators ``g`` scoring the same items, ``m[j, g]`` is judge ``j``'s mean
score of generator ``g``'s explanations. A cell where judge and generator share a family may hold
self-preference; the others are assumed free of it and follow the additive model

    m[j, g] = mu + a[j] + b[g]

(``a[j]`` the judge's leniency, ``b[g]`` the generator's quality), fitted by least squares on
those cells only. A cell's *excess* is ``m[j, g]`` minus that fit: for a judge's own family, the
self-preference estimate. Because the suspect cells are not in the fit, one judge's preference
moves its own cell's excess and no other cell's. (With no cell left out, the excess is the textbook
interaction ``m[j,g] − m[j,·] − m[·,g] + m[·,·]``, which spreads one cell's effect over every cell:
in a 2 × 2 table, equally over all four.)

The fit predicts an own-family cell only when the other-family cells link its judge to its
generator (a path judge → generator → judge … through them). Two judges each of one of two
generators' families (a 2 × 2 table with the families on the diagonal) are not linked: one judge's
preference and the other's look the same, and the estimate refuses rather than guess
(:class:`SelfPreferenceError`), as with one judge or one generator. Cells where a side's family is
unknown are left out of the fit too (they may be own-family), and are never flagged.

The 95 % intervals are a paired bootstrap over items: each resample draws items once, every cell
is recomputed on that same draw and the fit is redone. A judge is flagged when, for a generator
of its own family (:mod:`vivid_inspect.audit.family`), the excess's interval lies above 0; with
several own-family cells their intervals hold jointly at 95 % (Bonferroni), so that more cells do
not mean more flags by chance.

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

from vivid_inspect.audit.family import NO_FAMILY, resolve_family
from vivid_inspect.audit.self_preference_card import (
    CellResult,
    Participant,
    SelfPreferenceCard,
    SelfPreferenceError,
)
from vivid_inspect.audit.verdicts import seed_problem
from vivid_inspect.log_contract import LEXICAL, PANEL_STRATEGY
from vivid_inspect.report.judges import JudgeKey, judge_keys, judge_rows, latest, strategy_of
from vivid_inspect.report.score_stats import resamples, sorted_ids

DEFAULT_N_BOOT = 2000
"""Bootstrap resamples of the items."""
COVERAGE = 0.95
"""Coverage of the intervals shown, and joint coverage of the intervals a flag needs."""
# An interval "above 0" must clear rounding: a judge with no effect gets excesses of ±1e-16.
_ABOVE_ZERO = 1e-9
_SHOWN = 4  # empty cells named in a message

__all__ = [
    "CellResult",
    "Participant",
    "SelfPreferenceCard",
    "SelfPreferenceError",
    "estimate",
    "excess",
    "from_frame",
    "run_self_preference",
    "spec_families",
]


def may_share_family(judge: Participant, generator: Participant) -> bool:
    """Whether a cell may hold self-preference: same family, or a family unknown on either side."""
    if judge.family == NO_FAMILY or generator.family == NO_FAMILY:
        return False
    return judge.family is None or generator.family is None or judge.family == generator.family


def linked(in_fit: np.ndarray) -> np.ndarray:
    """Which cells the additive fit on ``in_fit`` predicts: judge and generator linked through it.

    Args:
        in_fit: ``[judge, generator]`` booleans, the cells the fit uses.

    Returns:
        ``[judge, generator]`` booleans: True where the judge and the generator are in one
        connected part of the bipartite graph whose edges are the fitted cells, the cells where
        ``mu + a[j] + b[g]`` is determined by the fit (estimable).
    """
    n_judges, n_generators = in_fit.shape
    parent = list(range(n_judges + n_generators))  # union-find: judges, then generators

    def root(node: int) -> int:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for a, b in zip(*np.nonzero(in_fit), strict=True):
        parent[root(int(a))] = root(n_judges + int(b))
    return np.array(
        [[root(a) == root(n_judges + b) for b in range(n_generators)] for a in range(n_judges)], dtype=bool
    )


def excess(means: np.ndarray, in_fit: np.ndarray) -> np.ndarray:
    """Each cell's mean minus the additive model fitted by least squares on the ``in_fit`` cells.

    Args:
        means: ``m[..., j, g]``: judges on the second-to-last axis, generators on the last; the
            leading axes (bootstrap resamples) are fitted one by one.
        in_fit: ``[j, g]`` booleans, the cells assumed free of self-preference.

    Returns:
        The excess, the same shape; NaN where the fit does not determine the cell (:func:`linked`).
    """
    n_judges, n_generators = in_fit.shape
    # Design of m[j, g] = mu + a[j] + b[g]: rank-deficient (a and b are only defined up to shifts),
    # but lstsq's fitted values of linked cells are the same for every solution.
    design = np.zeros((n_judges * n_generators, 1 + n_judges + n_generators))
    design[:, 0] = 1.0
    for a in range(n_judges):
        for b in range(n_generators):
            design[a * n_generators + b, 1 + a] = 1.0
            design[a * n_generators + b, 1 + n_judges + b] = 1.0
    flat = means.reshape(-1, n_judges * n_generators)
    fitted = np.full_like(flat, np.nan)
    rows = in_fit.reshape(-1)
    if rows.any():
        coef = np.linalg.lstsq(design[rows], flat[:, rows].T, rcond=None)[0]
        fitted = (design @ coef).T
    result = flat - fitted
    result[:, ~linked(in_fit).reshape(-1)] = np.nan
    return result.reshape(means.shape)


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
        seed: Seed of the bootstrap (not negative).
        n_boot: Bootstrap resamples (at least 1).
        source: What the scores came from, for messages.
        notes: Notes carried onto the card.

    Returns:
        The card (nothing written).

    Raises:
        SelfPreferenceError: With fewer than two judges or two generators, no item scored in
            every cell, or own-family cells the other-family cells cannot separate.
    """
    where = f" in {source}" if source else ""
    if len(judges) < 2 or len(generators) < 2:
        raise SelfPreferenceError(_too_few(judges, generators, where))
    if n_boot < 1:
        raise SelfPreferenceError(f"n_boot must be at least 1, got {n_boot}")
    if (problem := seed_problem(seed)) is not None:
        raise SelfPreferenceError(problem)
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
    own = np.array([[j.has_family and j.family == g.family for g in generators] for j in judges])
    in_fit = np.array([[not may_share_family(j, g) for g in generators] for j in judges])
    separable = linked(in_fit)
    if (own & ~separable).any():
        # Every cell is scored, so one own-family cell the fit cannot reach means none is reached:
        # its judge and generator both link to every other judge and generator of another family.
        raise SelfPreferenceError(_inseparable(judges, generators, own, in_fit, where))
    matrix = np.array(
        [[[float(scores[(j.label, g.label)][item]) for item in items] for g in generators] for j in judges]
    )
    means = matrix.mean(axis=2)
    point = excess(means, in_fit)
    replicates = excess(_bootstrap_means(matrix, seed, n_boot), in_fit)
    card_notes = list(notes)
    if len(items) == 1:
        card_notes.append("one shared item: no interval, so no judge can be flagged")
    unknown = [p.label for p in (*judges, *generators) if p.family is None]
    if unknown:
        card_notes.append(
            "family unknown for "
            + ", ".join(unknown)
            + ": its cells are left out of the fit and never flagged; declare it with --family "
            "MODEL=FAMILY or `family:` in the spec"
        )
    # Every own-family cell is a chance to flag: their intervals hold jointly at 95 % (Bonferroni),
    # so a folder with many of them does not flag one by chance.
    tested = int(own.sum())
    flag_coverage = 1 - (1 - COVERAGE) / max(tested, 1)
    # The same joint test on the fitted cells checks the model the estimate rests on.
    fit_coverage = 1 - (1 - COVERAGE) / max(int(in_fit.sum()), 1)
    misfits = []
    cells = []
    for a, j in enumerate(judges):
        for b, g in enumerate(generators):
            known = bool(separable[a, b])
            interval = known and len(items) > 1
            lo, hi = _interval(replicates[:, a, b], COVERAGE) if interval else (None, None)
            flag_lo, flag_hi = (
                _interval(replicates[:, a, b], flag_coverage) if own[a, b] and interval else (None, None)
            )
            if in_fit[a, b] and interval:
                fit_lo, fit_hi = _interval(replicates[:, a, b], fit_coverage)
                if fit_lo > _ABOVE_ZERO or fit_hi < -_ABOVE_ZERO:
                    misfits.append(f"{j.label} × {g.label} ({_signed_text(float(point[a, b]))})")
            cells.append(
                CellResult(
                    judge=j.label,
                    generator=g.label,
                    mean=float(means[a, b]),
                    expected=float(means[a, b] - point[a, b]) if known else None,
                    excess=float(point[a, b]) if known else None,
                    ci_low=lo,
                    ci_high=hi,
                    own_family=bool(own[a, b]),
                    in_fit=bool(in_fit[a, b]),
                    flag_low=flag_lo,
                    flag_high=flag_hi,
                    flagged=flag_lo is not None and flag_lo > _ABOVE_ZERO,
                )
            )
    if misfits:
        card_notes.append(
            "leniency and quality do not explain every cell of different families: "
            + ", ".join(misfits)
            + " (jointly at 95 %); a judge favouring or disfavouring another family's generator "
            "shifts the fit, so read the flags with care"
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


def _bootstrap_means(matrix: np.ndarray, seed: int, n_boot: int) -> np.ndarray:
    """Cell means on each resample, ``[resample, judge, generator]``, every cell on the same draw."""
    n = matrix.shape[2]
    draws = resamples(n, n_boot, seed)
    # Counts per item and resample: a resample's cell mean is a weighted mean over the items.
    weights = np.zeros((n_boot, n))
    np.add.at(weights, (np.arange(n_boot)[:, None], draws), 1.0)
    return np.einsum("jgn,bn->bjg", matrix, weights) / n


def _interval(replicates: np.ndarray, coverage: float) -> tuple[float, float]:
    """The central percentile interval of the replicates (all finite: the cell is linked)."""
    tail = 100 * (1 - coverage) / 2
    low, high = np.percentile(replicates, [tail, 100 - tail])
    return float(low), float(high)


def _signed_text(value: float) -> str:
    text = f"{value:+.2f}"
    return "+0.00" if text == "-0.00" else text


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
        SelfPreferenceError: A negative seed, a folder that does not exist or holds no
            generation logs, or one that cannot separate judges from generators (one judge, one
            generator, no item scored in every cell, own-family cells not linked by the others).
    """
    from vivid_inspect.report.logs import read_logs

    if (problem := seed_problem(seed)) is not None:  # before reading a log, not at the bootstrap
        raise SelfPreferenceError(problem)
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
        f"nothing to separate{where}: telling a judge's preference from its leniency needs at least two "
        f"judges and two generators scoring the same items; found {len(judges)} judge(s) ({names(judges)}) and "
        f"{len(generators)} generator(s) ({names(generators)})"
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
