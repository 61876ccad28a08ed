"""Self-preference (``vivid audit --from``): false flags, power and interval coverage, by simulation.

Each folder is drawn the way judges score: three judges of three families each score the same
items of three generators of those families (the own-family cells on the diagonal). An item's
quality is its idiom's difficulty (shared by every generator's explanation of it) plus its own; a
judge reads it through its leniency and its scale (how widely it spreads its scores), adds noise,
and its score is rounded and kept within 0-5. The generators sit near the top, so the widest
judge gives about half of the best generator's items a 5 (the ceiling). A planted self-preference
raises a judge's scores of its own family's explanations before the rounding.

Every folder is estimated with :func:`vivid_inspect.lab.self_preference.run.estimate`, the function
``vivid audit --from`` calls, and its flags, excesses and 95 % intervals counted. Rates carry their
Wilson 95 % interval.

    python bench/coverage.py --only selfpref            # 300 folders per setting, two processes
    python bench/coverage.py --only selfpref --quick    # 20 per setting
"""

from __future__ import annotations

import math
import multiprocessing
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from coverage_common import CoverageTable, wilson
from threadpoolctl import threadpool_limits

from vivid_inspect.lab.self_preference.run import MIN_ITEMS, Participant, SelfPreferenceError, estimate

REPS = 240
QUICK_REPS = 10
WORKERS = 2
FAMILIES = ("openai", "anthropic", "google")
TOP = (4.2, 3.6, 3.0)  # near the top: the ceiling
MIDDLE = (2.9, 2.5, 2.1)
LENIENCY = (0.2, 0.0, -0.2)
NOISE, ITEM_SPREAD, SHARED = 0.5, 0.8, 0.5
PLANTED = 0.5
WIDE, MILD, EQUAL = (1.4, 1.0, 0.7), (1.15, 1.0, 0.85), (1.0, 1.0, 1.0)
JUDGES = [Participant(f"judge-{f}", f"{f}/judge", f, "declared") for f in FAMILIES]
GENERATORS = [Participant(f"gen-{f}", f"{f}/gen", f, "declared") for f in FAMILIES]


@dataclass(frozen=True)
class Setting:
    """One simulated design: judges' scales, items per generator, the planted self-preference."""

    scales: tuple[float, ...]
    n: int
    planted: float
    quality: tuple[float, ...] = TOP
    planted_on: tuple[int, ...] = (0, 1, 2)  # the judges whose own cell gets the planted value

    def shift(self, judge: int) -> float:
        """The self-preference planted on a judge's own cell."""
        return self.planted if judge in self.planted_on else 0.0

    @property
    def name(self) -> str:
        """How the tables name it."""
        cells = "every own cell" if len(self.planted_on) == len(JUDGES) else "the middle judge's own cell"
        what = f"{self.planted:g} planted on {cells}" if self.planted else "no preference"
        where = "near the top" if self.quality == TOP else "mid-scale"
        return f"{what}, spreads {'/'.join(f'{s:g}' for s in self.scales)}, generators {where}"


SETTINGS = (
    Setting(WIDE, 40, 0.0),
    Setting(WIDE, 200, 0.0),
    Setting(MILD, 40, 0.0),
    Setting(MILD, 200, 0.0),
    Setting(EQUAL, 40, PLANTED, MIDDLE),
    Setting(EQUAL, 40, PLANTED, MIDDLE, planted_on=(1,)),
    Setting(MILD, 40, PLANTED, MIDDLE),
    Setting(WIDE, 40, PLANTED, MIDDLE),
    Setting(WIDE, 40, PLANTED, TOP),
    Setting(WIDE, MIN_ITEMS, 0.0),
    Setting(WIDE, 20, 0.0),
    Setting(WIDE, 10, 0.0),
)


def draw(setting: Setting, rng: np.random.Generator) -> dict[tuple[str, str], dict[int, float]]:
    """One folder's scores: (judge, generator) -> item -> whole score within 0-5."""
    n = setting.n
    idiom = rng.normal(size=n)
    cells: dict[tuple[str, str], dict[int, float]] = {}
    for b, generator in enumerate(GENERATORS):
        item = math.sqrt(SHARED) * idiom + math.sqrt(1 - SHARED) * rng.normal(size=n)
        for a, judge in enumerate(JUDGES):
            latent = 2.5 + LENIENCY[a] + setting.scales[a] * (setting.quality[b] - 2.5 + ITEM_SPREAD * item)
            latent += NOISE * rng.normal(size=n) + (setting.shift(a) if a == b else 0.0)
            cells[(judge.label, generator.label)] = {
                i: float(v) for i, v in enumerate(np.clip(np.rint(latent), 0, 5))
            }
    return cells


@dataclass(frozen=True)
class Outcome:
    """What one folder's card says of its own-family cells."""

    flagged: tuple[bool, ...]  # per own cell
    covered: tuple[bool, ...]  # the 95 % interval holds the planted value
    excess: tuple[float, ...]
    misfit_note: bool
    at_five: float  # share of the widest judge's scores of the best generator that are 5
    refused: bool = False


def one_folder(task: tuple[int, int, int]) -> Outcome:
    """Draw and estimate one folder (``(setting index, repetition, seed)``)."""
    index, rep, seed = task
    setting = SETTINGS[index]
    rng = np.random.default_rng([seed, index, rep])
    cells = draw(setting, rng)
    at_five = float(np.mean([v == 5 for v in cells[(JUDGES[0].label, GENERATORS[0].label)].values()]))
    # Below MIN_ITEMS the card prints no interval; the coverage below it is what justifies that.
    min_items = min(MIN_ITEMS, setting.n)
    try:
        with threadpool_limits(1):
            card = estimate(cells, JUDGES, GENERATORS, min_items=min_items)
    except SelfPreferenceError:
        return Outcome((), (), (), False, at_five, refused=True)
    own = [card.cell(j.label, g.label) for j, g in zip(JUDGES, GENERATORS, strict=True)]
    return Outcome(
        flagged=tuple(cell.flagged for cell in own),
        covered=tuple(
            cell.ci_low is not None and cell.ci_low <= setting.shift(a) <= cell.ci_high
            for a, cell in enumerate(own)
        ),
        excess=tuple(float(cell.excess or 0.0) - setting.shift(a) for a, cell in enumerate(own)),
        misfit_note=any(note.startswith("leniency, scale and quality do not explain") for note in card.notes),
        at_five=at_five,
    )


def _rate(successes: int, n: int) -> str:
    low, high = wilson(successes, n)
    return f"{successes / n:.3f} [{low:.3f}, {high:.3f}]" if n else ""


def run(reps: int, quick: bool, seed: int) -> list[CoverageTable]:
    """Every setting ``reps`` times; the tables of false flags, power, coverage and bias."""
    del quick  # the repetitions say it all
    tasks = [(index, rep, seed) for index in range(len(SETTINGS)) for rep in range(reps)]
    context = multiprocessing.get_context(
        "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    )
    with context.Pool(WORKERS) as pool:
        outcomes = pool.map(one_folder, tasks, chunksize=4)
    by_setting: dict[int, list[Outcome]] = {}
    for (index, _, _), outcome in zip(tasks, outcomes, strict=True):
        by_setting.setdefault(index, []).append(outcome)
    return [_false_flags(by_setting), _power(by_setting), _coverage(by_setting)]


def _fitted(outcomes: Sequence[Outcome]) -> list[Outcome]:
    return [o for o in outcomes if not o.refused]


def _false_flags(by_setting: dict[int, list[Outcome]]) -> CoverageTable:
    table = CoverageTable(
        title="Self-preference: folders flagged with no self-preference planted (3 x 3 families, ceiling)",
        columns=[
            "judges' spreads",
            "n items",
            "folders",
            "refused",
            "any judge flagged [Wilson 95 %]",
            "target",
            "fit-check note",
        ],
    )
    for index, setting in enumerate(SETTINGS):
        if setting.planted or setting.n < 20:
            continue
        outcomes = _fitted(by_setting[index])
        flagged = sum(any(o.flagged) for o in outcomes)
        notes = sum(o.misfit_note for o in outcomes)
        table.rows.append(
            [
                "/".join(f"{s:g}" for s in setting.scales),
                setting.n,
                len(outcomes),
                len(by_setting[index]) - len(outcomes),
                _rate(flagged, len(outcomes)),
                ("<= 0.05 " + ("met" if flagged / max(len(outcomes), 1) <= 0.05 else "MISSED"))
                if setting.n >= MIN_ITEMS
                else f"(the card flags nobody below {MIN_ITEMS} items)",
                _rate(notes, len(outcomes)),
            ]
        )
    at_five = np.mean(
        [o.at_five for i, outcomes in by_setting.items() if SETTINGS[i].quality == TOP for o in outcomes]
    )
    table.notes += [
        f"Latent score 2.5 + leniency + scale x (quality - 2.5 + {ITEM_SPREAD} x item) + N(0, {NOISE}^2), "
        f"rounded, kept within 0-5; qualities {TOP} (near the top), leniencies {LENIENCY}; an item's quality is "
        f"{SHARED:g} shared with the other generators' explanations of its idiom.",
        f"Ceiling: {at_five:.0%} of the widest judge's scores of the best generator are 5, on average.",
        "A folder is flagged when any of its three own-family cells is (jointly at 5 %, Holm, two-sided: "
        "about 2.5 % one-sided by design). Fit-check note: the card's note that the "
        "other-family cells miss the fit, which is a false alarm here.",
    ]
    return table


def _power(by_setting: dict[int, list[Outcome]]) -> CoverageTable:
    table = CoverageTable(
        title=f"Self-preference: power for a planted self-preference of {PLANTED} (3 x 3 families, ceiling)",
        columns=[
            "judges' spreads",
            "generators",
            "n items",
            "folders",
            "widest judge's own cell flagged",
            "middle judge's",
            "narrowest judge's",
            "target",
        ],
    )
    for index, setting in enumerate(SETTINGS):
        if not setting.planted:
            continue
        outcomes = _fitted(by_setting[index])
        rates = [sum(o.flagged[a] for o in outcomes) for a in range(len(JUDGES))]
        met = all(rates[a] / max(len(outcomes), 1) >= 0.8 for a in setting.planted_on)
        table.rows.append(
            [
                "/".join(f"{s:g}" for s in setting.scales),
                "near the top" if setting.quality == TOP else "mid-scale",
                setting.n,
                len(outcomes),
                *(
                    _rate(rate, len(outcomes)) + ("" if a in setting.planted_on else " (none planted)")
                    for a, rate in enumerate(rates)
                ),
                ">= 0.8 " + ("met" if met else "MISSED"),
            ]
        )
    table.notes += [
        f"{PLANTED} points planted on every own-family cell at once (or on the middle judge's only), in the "
        "judge's own score points before the bound; each cell's rate is how often its judge is flagged on it "
        "(the flags jointly at 5 %, Holm). The widest judge's own "
        "generator is the best one: its scores meet the bound most (generators mid-scale: qualities "
        f"{MIDDLE}).",
        "With equal spreads the three cells have the same information; a judge that spreads 1.4 times as "
        "widely has its 0.5 among scores 1.4 times as spread and cut by the bound, and needs more items.",
    ]
    return table


def _coverage(by_setting: dict[int, list[Outcome]]) -> CoverageTable:
    table = CoverageTable(
        title="Self-preference: coverage of the 95 % intervals of the own-family excesses",
        columns=[
            "setting",
            "n items",
            "intervals",
            "coverage [Wilson 95 %]",
            "mean excess - planted",
            "printed",
        ],
    )
    for index, setting in enumerate(SETTINGS):
        outcomes = _fitted(by_setting[index])
        covered = [c for o in outcomes for c in o.covered]
        bias = np.mean([e for o in outcomes for e in o.excess]) if outcomes else math.nan
        table.rows.append(
            [
                setting.name,
                setting.n,
                len(covered),
                _rate(sum(covered), len(covered)),
                f"{bias:+.3f}",
                "yes" if setting.n >= MIN_ITEMS else f"no (below {MIN_ITEMS} items)",
            ]
        )
    table.notes.append(
        "Wald intervals (t on clusters - 1 degrees) with a cluster-robust variance over items; the card "
        f"prints them, and flags, from {MIN_ITEMS} items of every generator."
    )
    return table
