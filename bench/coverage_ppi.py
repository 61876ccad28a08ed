"""Coverage of the corrected (prediction-powered) means: the report's ``corrected.corrected_cell``.

Two parts.

1. The issue's setting (24.1): a generation of 1,636 items in the paper's theme proportions, human
   scores like the paper's (mean about 3.4), a judge that is lenient by a planted amount and biased
   differently per theme; 200 items labelled, drawn as ``vivid annotate export`` draws them
   (``sheet_export.stratified_ids``: proportional to themes, seeded). The population is fixed and
   only the draw of labelled items varies: the estimand is the mean human score over these 1,636
   items. Coverage and width of the corrected interval (the report's finite-population variance,
   and ppi_py's variance for comparison), the human-only interval, and the judge-only interval (the
   report's ``judge_mean`` interval, which measures the judge and so misses the humans' mean);
   then the same per theme.
2. The threshold: planted populations of other shapes (a weak model judged mostly 0 with a lenient
   judge, a judge right on almost every item, a noisy judge, annotators' halves with rare large
   errors), 1,636 items and 200 (a theme's size), every n of ``planted_scores.NS``: the worst
   coverage of the three intervals a cell prints gives ``RULES["corrected_mean"].min_n``.
3. Unscored items (issue 29.2): the judge leaves 5-20 % of the items unscored, and those are the
   items humans scored lowest (not at random). The estimand stays the mean human score over every
   item. The report's estimator (the unscored items as a stratum of their own, or the whole score
   range for their share below ``ppi.UNSCORED_MIN`` labelled ones) against the old one that
   dropped them.
4. Skewed scores (issue 29.2): 90-95 % of human scores at one value, the judge's rare other values
   mostly on unlabelled items; coverage at every n, and every interval inside the 0-5 range.
5. Most items labelled (round four): the skewed shapes, a literal baseline judged as the humans
   judge it, and part 3's unscored items, in generations of 46 and 200 items with 20-45 and 100-190
   of them labelled; coverage, width and how often the bound of the labelled items alone
   (``ppi.labelled_bounds``) cut the interval.

Parts 3-5 call ``corrected.corrected_arrays`` (what ``corrected_cell`` runs after it has built
its arrays), with the draws made for every replication at once.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from coverage_common import CoverageTable, wilson
from planted_scores import NS, ROW_COLUMNS, Tally, record, threshold_table

from vivid_inspect.lab.humans.annotate.sheet_export import stratified_ids
from vivid_inspect.lab.report.stats.corrected import corrected_arrays, corrected_cell
from vivid_inspect.lab.report.stats.draw_check import check_draw
from vivid_inspect.lab.report.stats.intervals import RULES, mean_interval
from vivid_inspect.lab.report.stats.ppi import UNSCORED_MIN, labelled_bounds, ppi_mean
from vivid_inspect.taxonomy import THEME_NAMES

REPS = 2000
QUICK_REPS = 100
THRESHOLD_REPS = 2000
ITEMS = 1636
LABELLED = 200
# The paper's theme shares (Figure 3), in THEME_NAMES order: Love, Virtues, Criticism, Work and
# Nature, Social Relationships, Life Lessons, Other.
THEME_SHARES = np.array([7.0, 3.1, 28.8, 16.6, 9.5, 24.4, 10.5])
HUMAN_SCORES = (0.04, 0.06, 0.12, 0.20, 0.30, 0.28)
LENIENCY = 0.5
THEME_BIAS = (0.8, -0.6, 0.5, -0.4, 0.3, 0.0, -0.9)
"""Added to the leniency per theme: lenient on Love and Criticism, harsh on Virtues and Other."""
JUDGE_NOISE = 0.8

Population = tuple[np.ndarray, np.ndarray]


def headline_population(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Themes, human scores and judge scores of the 1,636 items of the issue's setting."""
    themes = rng.choice(len(THEME_NAMES), size=ITEMS, p=THEME_SHARES / THEME_SHARES.sum())
    human = rng.choice(6, size=ITEMS, p=HUMAN_SCORES).astype(float)
    shift = LENIENCY + np.asarray(THEME_BIAS)[themes]
    judge = np.clip(np.rint(human + shift + rng.normal(0, JUDGE_NOISE, ITEMS)), 0, 5)
    return themes, human, judge


def _weak(rng: np.random.Generator, n: int) -> Population:
    human = rng.choice(6, size=n, p=[0.70, 0.15, 0.07, 0.04, 0.03, 0.01]).astype(float)
    return human, np.clip(human + rng.choice([-1, 0, 1, 2], size=n, p=[0.05, 0.70, 0.20, 0.05]), 0, 5)


def _near_perfect(rng: np.random.Generator, n: int) -> Population:
    human = rng.choice(6, size=n, p=[0.04, 0.06, 0.10, 0.20, 0.30, 0.30]).astype(float)
    return human, np.clip(human + rng.choice([-1, 0, 1], size=n, p=[0.03, 0.94, 0.03]), 0, 5)


def _noisy(rng: np.random.Generator, n: int) -> Population:
    human = rng.choice(6, size=n, p=[0.10, 0.10, 0.20, 0.30, 0.20, 0.10]).astype(float)
    return human, np.clip(np.rint(0.5 * human + 1.5 + rng.normal(0, 1.5, n)), 0, 5)


def _halves(rng: np.random.Generator, n: int) -> Population:
    human = rng.choice(11, size=n).astype(float) / 2
    return human, np.clip(np.rint(human + rng.choice([-3, 0, 3], size=n, p=[0.04, 0.92, 0.04])), 0, 5)


def _lenient(rng: np.random.Generator, n: int) -> Population:
    _, human, judge = headline_population(rng)
    return human[:n], judge[:n]


SHAPES: dict[str, Callable[[np.random.Generator, int], Population]] = {
    "lenient, theme-biased judge (part 1's)": _lenient,
    "weak model, lenient judge": _weak,
    "judge right on 94 % of items": _near_perfect,
    "noisy judge (slope 0.5)": _noisy,
    "two annotators' halves, rare errors of 3": _halves,
}


def run(reps: int, quick: bool, seed: int) -> list[CoverageTable]:
    """Part 1 (the issue's setting) and part 2 (every shape and n) with the threshold check."""
    rng = np.random.default_rng(seed)
    tables = _headline(reps, rng)
    tables.extend(_threshold(min(reps, THRESHOLD_REPS) if not quick else reps, quick, rng))
    tables.append(_draws(min(reps, 1000), rng))
    tables.extend(_unscored(reps, quick, rng))
    tables.extend(_skewed(reps, quick, rng))
    tables.extend(_most_labelled(reps, quick, rng))
    return tables


PRINTED_NS = (20, 30, 50, 200)
"""The n at which the report prints a corrected interval (from RULES.min_n = 20) that the parts 3-4 measure."""
UNSCORED_SHARES = (0.05, 0.10, 0.20)


def _draws_at_once(rng: np.random.Generator, items: int, n: int, reps: int) -> np.ndarray:
    """``reps`` uniform draws of ``n`` of ``items`` without replacement: one row of a boolean mask each."""
    order = np.argsort(rng.random((reps, items)), axis=1)[:, :n]
    mask = np.zeros((reps, items), dtype=bool)
    np.put_along_axis(mask, order, True, axis=1)
    return mask


def _unscored(reps: int, quick: bool, rng: np.random.Generator) -> list[CoverageTable]:
    ns = (20, 200) if quick else (10, 15, *PRINTED_NS)
    table = CoverageTable(
        "Unscored items that humans scored lowest: the corrected interval over every item, with the unscored "
        "items as their own stratum (report) and dropped (before)",
        ["items", "unscored share", "n labelled", "estimator", *ROW_COLUMNS, "fallback (whole range) share"],
    )
    worst: dict[int, float] = {}
    for items in (ITEMS, 200):
        base = np.random.default_rng(int(rng.integers(2**31)))
        human = base.choice(6, size=items, p=HUMAN_SCORES).astype(float)
        judge = np.clip(np.rint(human + 0.3 + base.normal(0, 0.8, items)), 0, 5)
        truth = float(human.mean())
        for share in UNSCORED_SHARES:
            # the lowest human scores (ties broken at random) are the ones the judge could not score
            low_first = np.lexsort((base.random(items), human))
            unscored = np.zeros(items, dtype=bool)
            unscored[low_first[: round(share * items)]] = True
            for n in ns:
                report, before = Tally(), Tally()
                fallback = 0
                for mask in _draws_at_once(rng, items, n, reps):
                    scored_labelled = mask & ~unscored
                    cell = corrected_arrays(
                        human[scored_labelled],
                        judge[scored_labelled],
                        judge[~mask & ~unscored],
                        human[mask & unscored],
                        int(unscored.sum()),
                        min_n=2,
                    )
                    report.add(cell.corrected.estimate, cell.corrected.lo, cell.corrected.hi, truth)
                    fallback += bool(cell.note)
                    dropped = corrected_arrays(
                        human[scored_labelled],
                        judge[scored_labelled],
                        judge[~mask & ~unscored],
                        human[:0],
                        0,
                        min_n=2,
                    )
                    before.add(dropped.corrected.estimate, dropped.corrected.lo, dropped.corrected.hi, truth)
                table.rows.append(
                    [*report.row(items, share, n, "own stratum (report)"), f"{fallback / reps:.2f}"]
                )
                table.rows.append([*before.row(items, share, n, "dropped (before)"), ""])
                if n >= PRINTED_NS[0] and report.printed:
                    worst[n] = min(worst.get(n, 1.0), report.coverage)
    table.notes.append(
        f"human scores like the paper's, judge lenient by 0.3 with noise 0.8; the {', '.join(f'{s:.0%}' for s in UNSCORED_SHARES)} "
        f"of items with the lowest human scores left unscored; labelled items a uniform draw over every item; fewer than "
        f"{UNSCORED_MIN} labelled unscored items: their share is bounded by the whole range 0-5"
    )
    table.notes.append(
        "worst coverage of the report's estimator from n = 20: "
        + ", ".join(f"n={n}: {c:.3f}" for n, c in sorted(worst.items()))
        + " (goal: at least 0.93)"
    )
    return [table]


def _skew_at_five(rng: np.random.Generator, n: int) -> Population:
    human = np.where(rng.random(n) < 0.95, 5.0, 0.0)
    return human, np.clip(human + rng.choice([-1, 0, 1], size=n, p=[0.04, 0.94, 0.02]), 0, 5)


def _skew_flips(rng: np.random.Generator, n: int) -> Population:
    human = np.where(rng.random(n) < 0.95, 5.0, 0.0)
    flip = rng.random(n) < 0.03
    return human, np.where(flip, 5.0 - human, human)


def _skew_ninety(rng: np.random.Generator, n: int) -> Population:
    human = np.where(rng.random(n) < 0.90, 5.0, rng.integers(0, 5, n).astype(float))
    return human, np.clip(human + rng.choice([-1, 0, 1], size=n, p=[0.10, 0.80, 0.10]), 0, 5)


def _skew_at_zero(rng: np.random.Generator, n: int) -> Population:
    human = np.where(rng.random(n) < 0.90, 0.0, rng.integers(1, 6, n).astype(float))
    return human, np.clip(human + rng.choice([0, 1], size=n, p=[0.70, 0.30]), 0, 5)


def _skew_zero_five(rng: np.random.Generator, n: int) -> Population:
    human = np.where(rng.random(n) < 0.95, 0.0, 5.0)
    flip = rng.random(n) < 0.01
    return human, np.where(flip, 5.0 - human, human)


SKEWED: dict[str, Callable[[np.random.Generator, int], Population]] = {
    "95 % of humans at 5, rest 0; judge off by one on 6 %": _skew_at_five,
    "95 % at 5, rest 0; judge flips 3 % (its rare 0s half wrong)": _skew_flips,
    "90 % at 5, rest 0-4; judge off by one on 20 %": _skew_ninety,
    "90 % at 0, rest 1-5; judge lenient by one on 30 %": _skew_at_zero,
    "95 % at 0, rest 5; judge flips 1 %": _skew_zero_five,
}


def _skewed(reps: int, quick: bool, rng: np.random.Generator) -> list[CoverageTable]:
    ns = (20, 200) if quick else (10, 15, *PRINTED_NS)
    table = CoverageTable(
        "Skewed scores: 90-95 % of human scores at one value, the judge's rare other values mostly on unlabelled items",
        ["planted", "items", "n labelled", "interval", *ROW_COLUMNS, "lowest lo", "highest hi"],
    )
    worst: dict[int, float] = {}
    for name, draw in SKEWED.items():
        for items in (ITEMS, 200):
            human, judge = draw(np.random.default_rng(int(rng.integers(2**31))), items)
            truths = {
                "corrected": float(human.mean()),
                "human-only": float(human.mean()),
                "bias": float((judge - human).mean()),
            }
            for n in ns:
                tallies = {key: Tally() for key in truths}
                ends = {key: [np.inf, -np.inf] for key in truths}
                for mask in _draws_at_once(rng, items, n, reps):
                    cell = corrected_arrays(human[mask], judge[mask], judge[~mask], human[:0], 0, min_n=2)
                    for key, interval in (
                        ("corrected", cell.corrected),
                        ("human-only", cell.human),
                        ("bias", cell.bias),
                    ):
                        tallies[key].add(interval.estimate, interval.lo, interval.hi, truths[key])
                        if interval.lo is not None and interval.hi is not None:
                            ends[key] = [min(ends[key][0], interval.lo), max(ends[key][1], interval.hi)]
                for key, tally in tallies.items():
                    table.rows.append([*tally.row(name, items, n, key), *ends[key]])
                    if n >= PRINTED_NS[0] and tally.printed:
                        worst[n] = min(worst.get(n, 1.0), tally.coverage)
    table.notes.append(
        "worst coverage of the three intervals from n = 20: "
        + ", ".join(f"n={n}: {c:.3f}" for n, c in sorted(worst.items()))
        + " (goal: at least 0.93); lowest lo and highest hi over every draw: the means never leave 0-5, the bias -5-5"
    )
    return [table]


def _draws(reps: int, rng: np.random.Generator) -> CoverageTable:
    """How often draw_check warns: on draws as export makes them, and on items picked three ways."""
    themes, _, judge = headline_population(rng)
    ids = list(range(ITEMS))
    theme_of = {i: THEME_NAMES[int(t)] for i, t in enumerate(themes)}
    scores = dict(enumerate(judge.tolist()))
    designs: dict[str, Callable[[int], list[int]]] = {
        "uniform, theme-stratified (export's draw)": lambda rep: stratified_ids(theme_of, LABELLED, seed=rep),
        "the first 200 ids": lambda rep: ids[:LABELLED],
        "200 of the judge's 5s and 4s": lambda rep: [
            int(i) for i in rng.choice(np.flatnonzero(judge >= 4), LABELLED, replace=False)
        ],
        "Criticism and Life Lessons only": lambda rep: [
            int(i) for i in rng.choice(np.flatnonzero(np.isin(themes, [2, 5])), LABELLED, replace=False)
        ],
    }
    table = CoverageTable(
        f"How often draw_check warns that {LABELLED} labelled items of {ITEMS} were not a uniform draw",
        ["design", "files", "warned", "rate", "rate 95 % CI"],
    )
    for name, draw in designs.items():
        count = reps if name.startswith("uniform") else max(reps // 10, 20)
        warned = sum(bool(check_draw(ids, scores, theme_of, draw(rep)).warnings) for rep in range(count))
        lo, hi = wilson(warned, count)
        table.rows.append([name, count, warned, warned / count, f"[{lo:.3f}, {hi:.3f}]"])
    table.notes.append(
        "goal: about 0.001 on the uniform draw (the tests' overall level), near 1 on the picked ones"
    )
    return table


def _headline(reps: int, rng: np.random.Generator) -> list[CoverageTable]:
    themes, human, judge = headline_population(rng)
    truth = float(human.mean())
    theme_of = {i: THEME_NAMES[int(t)] for i, t in enumerate(themes)}
    judge_only = mean_interval(judge)
    tallies = {
        name: Tally()
        for name in (
            "corrected (report: finite population)",
            "corrected (ppi_py's variance)",
            "human-only",
            "judge-only",
        )
    }
    bias_tally = Tally()
    per_theme = {theme: (Tally(), Tally()) for theme in THEME_NAMES}
    truth_theme = {theme: float(human[themes == k].mean()) for k, theme in enumerate(THEME_NAMES)}
    all_judge = dict(enumerate(judge))
    theme_judge = {
        k: {i: all_judge[i] for i in np.flatnonzero(themes == k).tolist()} for k in range(len(THEME_NAMES))
    }
    for rep in range(reps):
        chosen = stratified_ids(theme_of, LABELLED, seed=int(rng.integers(2**31)) + rep)
        labelled = {i: float(human[i]) for i in chosen}
        cell = corrected_cell(all_judge, labelled)
        mask = np.zeros(ITEMS, dtype=bool)
        mask[list(labelled)] = True
        ppi = ppi_mean(human[mask], judge[mask], judge[~mask], variance="ppi")
        tallies["corrected (report: finite population)"].add(
            cell.corrected.estimate, cell.corrected.lo, cell.corrected.hi, truth
        )
        tallies["corrected (ppi_py's variance)"].add(ppi.estimate, ppi.lo, ppi.hi, truth)
        tallies["human-only"].add(cell.human.estimate, cell.human.lo, cell.human.hi, truth)
        tallies["judge-only"].add(judge_only.estimate, judge_only.lo, judge_only.hi, truth)
        bias_tally.add(cell.bias.estimate, cell.bias.lo, cell.bias.hi, float((judge - human).mean()))
        for k, theme in enumerate(THEME_NAMES):
            mine = theme_judge[k]
            sub = corrected_cell(mine, {i: v for i, v in labelled.items() if i in mine})
            corrected_tally, human_tally = per_theme[theme]
            corrected_tally.add(
                sub.corrected.estimate, sub.corrected.lo, sub.corrected.hi, truth_theme[theme]
            )
            human_tally.add(sub.human.estimate, sub.human.lo, sub.human.hi, truth_theme[theme])
    columns = ["interval", "planted", *ROW_COLUMNS]
    overall = CoverageTable(
        f"The issue's setting: {ITEMS} items, {LABELLED} labelled (theme-stratified as export draws), "
        f"judge lenient by {LENIENCY} with a per-theme bias, the population fixed",
        columns,
    )
    for name, tally in tallies.items():
        overall.rows.append(tally.row(name, round(truth, 3)))
    overall.rows.append(bias_tally.row("bias (judge - human)", round(float((judge - human).mean()), 3)))
    overall.notes.append(
        f"human mean over the {ITEMS} items {truth:.3f}; the judge's {judge.mean():.3f}; judge-only: the report's judge_mean "
        "interval (betting), which holds the judge's mean, not the humans'"
    )
    overall.notes.append(
        "goal (issue 24.1): corrected coverage 0.93-0.98, judge-only far below, corrected no wider than human-only"
    )
    themed = CoverageTable(
        "Per theme, same draws: the corrected and human-only intervals of each theme's cell (printed from "
        f"{RULES['corrected_mean'].min_n} labelled items)",
        [
            "theme",
            "items",
            "planted bias",
            "corrected: " + ROW_COLUMNS[0],
            "corrected coverage",
            "corrected width",
            "human-only coverage",
            "human-only width",
        ],
    )
    for k, theme in enumerate(THEME_NAMES):
        corrected_tally, human_tally = per_theme[theme]
        themed.rows.append(
            [
                theme,
                int((themes == k).sum()),
                round(LENIENCY + THEME_BIAS[k], 2),
                f"{corrected_tally.printed}/{corrected_tally.draws}",
                corrected_tally.coverage,
                corrected_tally.width / corrected_tally.printed if corrected_tally.printed else float("nan"),
                human_tally.coverage,
                human_tally.width / human_tally.printed if human_tally.printed else float("nan"),
            ]
        )
    themed.notes.append(
        "a theme with fewer labelled items than the rule prints no interval: its draws are not counted as made"
    )
    return [overall, themed]


def _threshold(reps: int, quick: bool, rng: np.random.Generator) -> list[CoverageTable]:
    ns = (10, 30, 200) if quick else NS
    table = CoverageTable(
        f"Corrected, human-only and bias intervals on other shapes: {RULES['corrected_mean'].method}",
        ["planted", "items", "n labelled", "interval", *ROW_COLUMNS],
    )
    worst: dict[int, Tally] = {}
    for name, draw in SHAPES.items():
        for items in (ITEMS, 200):
            human, judge = draw(np.random.default_rng(int(rng.integers(2**31))), items)
            truths = {
                "corrected": float(human.mean()),
                "human-only": float(human.mean()),
                "bias": float((judge - human).mean()),
            }
            all_judge = dict(enumerate(judge))
            for n in ns:
                if n >= items:
                    continue
                tallies = {key: Tally() for key in truths}
                for _ in range(reps):
                    chosen = rng.choice(items, size=n, replace=False)
                    cell = corrected_cell(all_judge, {int(i): float(human[i]) for i in chosen}, min_n=2)
                    for key, interval in (
                        ("corrected", cell.corrected),
                        ("human-only", cell.human),
                        ("bias", cell.bias),
                    ):
                        tallies[key].add(interval.estimate, interval.lo, interval.hi, truths[key])
                for key, tally in tallies.items():
                    table.rows.append(tally.row(name, items, n, key))
                    record(worst, n, tally)
    table.notes.append(
        "uniform draws of n labelled items from a fixed population; a draw whose residuals do not vary gets no "
        "interval and is not counted as made"
    )
    return [table, threshold_table({"corrected_mean": worst}, quick=quick)]


def _literal_baseline(rng: np.random.Generator, n: int) -> Population:
    human = rng.choice(6, size=n, p=[0.9, 0.03, 0.02, 0.02, 0.01, 0.02]).astype(float)
    return human, human.copy()


MOST_LABELLED = {46: (20, 30, 40, 45), 200: (100, 150, 190)}
"""Generation size: labelled counts of part 5 (past half of the items, where the skew widening turns side)."""


def _most_labelled(reps: int, quick: bool, rng: np.random.Generator) -> list[CoverageTable]:
    sizes = {46: (30, 45), 200: (150,)} if quick else MOST_LABELLED
    table = CoverageTable(
        "Most items labelled: the corrected, human-only and bias intervals near n = N, cut to the bound of the "
        "labelled items alone",
        ["planted", "items", "n labelled", "interval", *ROW_COLUMNS, "cut by the bound"],
    )
    shapes = {**SKEWED, "literal baseline (90 % at 0), judge = humans": _literal_baseline}
    worst: dict[int, float] = {}
    for items, ns in sizes.items():
        for name, draw in shapes.items():
            human, judge = draw(np.random.default_rng(int(rng.integers(2**31))), items)
            truths = {"corrected": human.mean(), "human-only": human.mean(), "bias": (judge - human).mean()}
            for n in ns:
                tallies = {key: Tally() for key in truths}
                cut = 0
                for mask in _draws_at_once(rng, items, n, reps):
                    cell = corrected_arrays(human[mask], judge[mask], judge[~mask], human[:0], 0, min_n=2)
                    intervals = {"corrected": cell.corrected, "human-only": cell.human, "bias": cell.bias}
                    for key, interval in intervals.items():
                        tallies[key].add(interval.estimate, interval.lo, interval.hi, float(truths[key]))
                    bottom, top = labelled_bounds(float(human[mask].sum()), n, items, (0.0, 5.0))
                    cut += cell.corrected.lo in (bottom, top) or cell.corrected.hi in (bottom, top)
                for key, tally in tallies.items():
                    table.rows.append(
                        [*tally.row(name, items, n, key), f"{cut / reps:.2f}" if key == "corrected" else ""]
                    )
                    if tally.printed:
                        worst[n] = min(worst.get(n, 1.0), tally.coverage)
        # part 3's population with its 10 % lowest-scored items unscored
        base = np.random.default_rng(int(rng.integers(2**31)))
        human = base.choice(6, size=items, p=HUMAN_SCORES).astype(float)
        judge = np.clip(np.rint(human + 0.3 + base.normal(0, 0.8, items)), 0, 5)
        unscored = np.zeros(items, dtype=bool)
        unscored[np.lexsort((base.random(items), human))[: round(0.1 * items)]] = True
        for n in ns:
            tally = Tally()
            for mask in _draws_at_once(rng, items, n, reps):
                labelled = mask & ~unscored
                cell = corrected_arrays(
                    human[labelled],
                    judge[labelled],
                    judge[~mask & ~unscored],
                    human[mask & unscored],
                    int(unscored.sum()),
                    min_n=2,
                )
                tally.add(cell.corrected.estimate, cell.corrected.lo, cell.corrected.hi, float(human.mean()))
            table.rows.append([*tally.row("10 % unscored (part 3's)", items, n, "corrected"), ""])
            if tally.printed:
                worst[n] = min(worst.get(n, 1.0), tally.coverage)
    table.notes.append(
        "cut by the bound: share of draws with an end of the corrected interval at the labelled items' bound (at 0 or 5 "
        "too when the range clipped it)"
    )
    table.notes.append(
        "worst coverage by n: "
        + ", ".join(f"n={n}: {c:.3f}" for n, c in sorted(worst.items()))
        + " (goal: at least 0.93)"
    )
    return [table]


PARTS: dict[str, Callable[[int, bool, np.random.Generator], list[CoverageTable]]] = {
    "3": _unscored,
    "4": _skewed,
    "5": _most_labelled,
}


if __name__ == "__main__":
    # One part alone, as in bench/results.md: python bench/coverage_ppi.py 5 --reps 2000
    import argparse

    parser = argparse.ArgumentParser(
        description="Parts 3-5 of the ppi section alone (coverage.py runs them all)"
    )
    parser.add_argument("parts", help="comma-separated: " + ", ".join(PARTS))
    parser.add_argument("--reps", type=int, default=REPS)
    parser.add_argument("--seed", type=int, default=20261201)
    args = parser.parse_args()
    for part in args.parts.split(","):
        for table in PARTS[part](args.reps, False, np.random.default_rng(args.seed)):
            print("\n".join(table.markdown()), flush=True)
