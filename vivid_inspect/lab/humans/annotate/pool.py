"""``vivid annotate serve LOG_DIR --generations ...``: one blind queue across several generations.

The labels go where they shrink the corrected means' intervals most
(`vivid_inspect.lab.report.stats.allocation`): a **first batch** brings every generation to the
minimum (20 labelled items, from which a corrected mean gets an interval), shared evenly when the
budget (``-n``) is short; once it is scored, a restart of the same command deals the **rest** of
the budget by Neyman allocation, in proportion to each generation's spread of human − judge
measured on the first batch. ``--plan`` prints the plan of the next round and exits.

Within a generation the labelled items are a uniform draw, as the corrected mean needs: each
generation's items are put in one seeded random order (``vivid annotate export`` of every item,
``generations/KEY.sheet.csv``) and every round takes the next ones. The annotators see the items of
all generations shuffled together, with no model, prompt or generation: a round's sheet
(``round1/sheet.csv``) numbers them 1, 2, 3, ... and only ``pool.json`` maps a number to its
generation and sample id. When an annotator finishes, one bound human scores file per generation
is written (``humans-KEY.csv`` and its record, by ``vivid annotate import``'s own writer), for
``vivid report --human humans-A.csv --human humans-B.csv ...``.

Files, in the annotation folder (default ``LOG_DIR.pool.annotation`` beside the log folder):

- ``pool.json``: the options, the rounds (each generation's share) and the item map;
- ``generations/``: each generation's items in their random order (a sheet and its record);
- ``round1/``, ``round2/``: an annotation folder each (the annotators' sheets, ``humans.csv`` of
  the round's numbers), as a single-generation ``serve`` writes it;
- ``humans-KEY.csv``: the human scores of one generation, every round's.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from vivid_inspect.atomic_write import write_atomic
from vivid_inspect.generation_key import Generation, choose
from vivid_inspect.lab.folder_lock import HeldFolder
from vivid_inspect.lab.humans.annotate.items import TEXT_COLUMNS, Item, Sheet, read_sheet, sheet_text
from vivid_inspect.lab.humans.annotate.opening import holding, read_started
from vivid_inspect.lab.humans.annotate.queues import assign, check_annotators
from vivid_inspect.lab.humans.annotate.sheet_export import export_sheet
from vivid_inspect.lab.humans.annotate.workspace import Workspace, quoted
from vivid_inspect.lab.humans.annotators import annotator_name
from vivid_inspect.lab.humans.scores_file import read_generation_record, read_human_scores, record_path
from vivid_inspect.lab.humans.sheet_import import write_scores
from vivid_inspect.lab.report.reading.logs import generations_in, read_logs
from vivid_inspect.lab.report.stats.allocation import (
    MIN_PER_GENERATION,
    Plan,
    Stratum,
    allocate,
    first_batch,
    plan_lines,
)
from vivid_inspect.lab.report.stats.ppi import residual_spread
from vivid_inspect.lab.report.tables.judges import choose_judge, judge_rows, latest, select

POOL_FILE = "pool.json"
GENERATIONS_DIR = "generations"
HUMANS_PREFIX = "humans-"
ALL = "all"
POOL_MARK = "pool"
"""Record key saying a generation's labels were drawn by the pool (read by ``draw_check.how_drawn``)."""


@dataclass(frozen=True)
class PoolPlan:
    """What the next round of a pool would give each generation.

    Attributes:
        plan: The allocation (first batch or Neyman).
        labels: ``MODEL PROMPT`` of each generation key.
        round: The round it is for (1: the first batch).
        notes: Where the spreads came from, or that a round is still being scored.
    """

    plan: Plan
    labels: dict[str, str]
    round: int
    notes: tuple[str, ...] = ()

    def lines(self) -> list[str]:
        """The plan for a terminal (`vivid_inspect.lab.report.stats.allocation.plan_lines`) and the notes."""
        return [f"round {self.round}:", *plan_lines(self.plan, self.labels), *self.notes]


def default_pool_folder(source: Path) -> Path:
    """The pool's annotation folder beside a log folder: ``NAME.pool.annotation``."""
    return source.resolve().parent / f"{source.resolve().name}.pool.annotation"


def pool_generations(source: Path, selectors: str) -> list[Generation]:
    """The explanation generations a pool draws from, one per key, in key order.

    Args:
        source: The log folder.
        selectors: ``all``, or selectors (key, model, prompt, log path, or several of these
            separated by spaces) separated by commas.

    Raises:
        ValueError: Not a folder, no explanation generation, a selector naming none or several,
            or fewer than two generations.
    """
    if not source.is_dir():
        raise ValueError(f"{source}: --generations draws from a folder of logs; give the log folder")
    by_key: dict[str, Generation] = {}
    for found in generations_in(read_logs(source)):
        by_key.setdefault(found.key, found)
    every = [by_key[key] for key in sorted(by_key)]
    if not every:
        raise ValueError(f"{source}: no explanation generation in this folder")
    if selectors.strip().lower() == ALL:
        chosen = every
    else:
        names = [part.strip() for part in selectors.split(",") if part.strip()]
        if not names:
            raise ValueError("--generations needs 'all' or selectors separated by commas")
        chosen = []
        for name in names:
            found = choose(every, name, option="--generations")
            if found.key not in {g.key for g in chosen}:
                chosen.append(found)
    if len(chosen) < 2:
        raise ValueError(
            f"--generations names {len(chosen)} generation; a pool spreads labels over two or more "
            "(use --generation for one)"
        )
    return sorted(chosen, key=lambda g: g.key)


def open_pool(
    source: str | os.PathLike[str],
    annotators: list[str],
    *,
    generations: str,
    overlap: int = 0,
    n: int = 200,
    seed: int = 0,
    folder: str | os.PathLike[str] | None = None,
    judge: str | None = None,
) -> Workspace:
    """Open (or reopen) a pool's annotation folder and the round to score now.

    Args:
        source: The log folder.
        annotators: Their names.
        generations: ``all`` or selectors separated by commas (see `pool_generations`).
        overlap: Items of each round every annotator scores.
        n: Labelled items in all, over every generation and round (the budget).
        seed: Seed of the generations' orders, the rounds' shuffles and the queues.
        folder: The annotation folder; default `default_pool_folder`.
        judge: The judge whose scores the spreads are measured against (``NAME[@MODEL]``;
            default the report's choice).

    Returns:
        The workspace of the round being scored, holding the pool folder.

    Raises:
        ValueError: Bad names, overlap, budget or selectors, or a folder started with other options.
        vivid_inspect.lab.folder_lock.FolderBusy: Another server holds the folder.
    """
    names = [annotator_name(name) for name in annotators]
    problems = check_annotators(names)
    if problems:
        raise ValueError("\n".join(problems))
    if n <= 0:
        raise ValueError(f"-n must be a positive number of items, got {n}")
    root = Path(source)
    chosen = pool_generations(root, generations)
    target = Path(folder) if folder is not None else default_pool_folder(root)
    if target.resolve() == root.resolve() or root.resolve() in target.resolve().parents:
        raise ValueError(
            f"{target}: is inside the log folder, where the report would read it; choose another --out-dir"
        )
    with holding(target) as held:
        return _Pool(root, target, chosen, names, overlap, n, seed, judge).open(held)


def plan_pool(
    source: str | os.PathLike[str],
    *,
    generations: str,
    n: int = 200,
    seed: int = 0,
    folder: str | os.PathLike[str] | None = None,
    judge: str | None = None,
) -> PoolPlan:
    """The plan of the pool's next round, writing nothing.

    Raises:
        ValueError: As `open_pool`.
    """
    if n <= 0:
        raise ValueError(f"-n must be a positive number of items, got {n}")
    root = Path(source)
    chosen = pool_generations(root, generations)
    target = Path(folder) if folder is not None else default_pool_folder(root)
    pool = _Pool(root, target, chosen, [], 0, n, seed, judge, planning=True)
    return pool.next_plan()


class _Pool:
    """A pool's folder: its options, rounds and item map, and what the next round is."""

    def __init__(
        self,
        root: Path,
        target: Path,
        generations: list[Generation],
        annotators: list[str],
        overlap: int,
        n: int,
        seed: int,
        judge: str | None,
        *,
        planning: bool = False,
    ) -> None:
        self.root, self.target, self.generations = root, target, generations
        self.planning = planning
        self.labels = {g.key: f"{g.model} {g.prompt}" for g in generations}
        self.options: dict[str, Any] = {
            "source": str(root.resolve()),
            "generations": [g.key for g in generations],
            "annotators": list(annotators),
            "overlap": overlap,
            "n": n,
            "seed": seed,
            "judge": judge,
            "minimum": MIN_PER_GENERATION,  # in pool.json: a pool started under another minimum is refused
        }
        self._sizes: dict[str, int] | None = None
        self.state = self._read_state()

    # --- the folder's state --------------------------------------------------------------------

    def _read_state(self) -> dict[str, Any]:
        # --plan names no annotators or overlap: only what decides the allocation is compared.
        compared = [k for k in self.options if not (self.planning and k in ("annotators", "overlap"))]
        what = "a pool written by `vivid annotate serve --generations`"
        data = read_started(self.target / POOL_FILE, self.options, what, compared)
        if data is None:
            return {"rounds": [], "items": {}}
        if not isinstance(data.get("rounds"), list):
            raise ValueError(f"{self.target / POOL_FILE}: not {what}")
        return data

    def _write_state(self) -> None:
        text = json.dumps(self.options | self.state, ensure_ascii=False, indent=1) + "\n"
        write_atomic(self.target / POOL_FILE, text)

    def size(self, key: str) -> int:
        """Items of a generation that can be labelled (with an explanation), without writing anything."""
        path = self.target / GENERATIONS_DIR / f"{key}.sheet.csv"
        if path.exists():
            return len(read_sheet(path).items)
        if self._sizes is None:
            scores = read_logs(self.root, exclude=[self.target]).scores
            mine = scores[(scores["task"] == "explain") & ~scores["error"].astype(bool)]
            self._sizes = {str(g): int(group["id"].nunique()) for g, group in mine.groupby("generation")}
        found = next(g for g in self.generations if g.key == key)
        return self._sizes.get(key) or max(len(found.sample_ids), 1)

    def items_of(self, key: str) -> list[int]:
        """The generation's items in their random order (its ``generations/KEY.sheet.csv``)."""
        return [item.id for item in self._sheet(key).items]

    def _sheet(self, key: str) -> Sheet:
        path = self.target / GENERATIONS_DIR / f"{key}.sheet.csv"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            found = next(g for g in self.generations if g.key == key)
            # Every item, in a seeded random order: each round takes the next ones, a uniform draw.
            export_sheet(
                self.root, path, n=max(len(found.sample_ids), 1), seed=self.options["seed"], generation=key
            )
            record = read_generation_record(path) or {}
            write_atomic(
                record_path(path), json.dumps(record | {POOL_MARK: True}, ensure_ascii=False, indent=1) + "\n"
            )
        return read_sheet(path)

    def taken(self) -> dict[str, int]:
        """Items each generation has been dealt so far, over every round."""
        counts = dict.fromkeys(self.labels, 0)
        for entry in self.state["rounds"]:
            for key, new in entry["new"].items():
                counts[key] += int(new)
        return counts

    # --- rounds ----------------------------------------------------------------------------------

    def next_plan(self) -> PoolPlan:
        """The plan of the round to deal next (or of the round being scored, with a note)."""
        rounds = self.state["rounds"]
        taken = self.taken()
        left = self.options["n"] - sum(taken.values())
        if not rounds:
            strata = [Stratum(g.key, self.size(g.key)) for g in self.generations]
            plan = first_batch(
                strata, min(left, sum(s.items for s in strata)), minimum=self.options["minimum"]
            )
            return PoolPlan(plan, self.labels, 1)
        labelled = self.labelled()
        scored = sum(len(v) for v in labelled.values())
        notes: tuple[str, ...] = ()
        if scored < sum(taken.values()):
            notes = (
                f"round {len(rounds)} is being scored ({scored} of its items labelled so far): the next round is "
                "planned once every annotator has finished it",
            )
        strata, spread_notes = self._strata(labelled)
        plan = allocate(
            strata,
            max(min(left, sum(s.items - s.labelled for s in strata)), 0),
            minimum=self.options["minimum"],
        )
        return PoolPlan(plan, self.labels, len(rounds) + 1, (*spread_notes, *notes))

    def labelled(self) -> dict[str, dict[int, float]]:
        """Each generation's human score per labelled item, from its bound file (annotators averaged)."""
        found: dict[str, dict[int, float]] = {}
        for key in self.labels:
            path = self.target / f"{HUMANS_PREFIX}{key}.csv"
            if path.exists():
                scores = read_human_scores(path)
                found[key] = {int(str(i)): float(v) for i, v in scores.groupby("id")["score"].mean().items()}
        return found

    def _strata(self, labelled: dict[str, dict[int, float]]) -> tuple[list[Stratum], list[str]]:
        judge = self._judge_scores()
        spreads: dict[str, float | None] = {}
        notes: list[str] = []
        for key in self.labels:
            human = labelled.get(key, {})
            scored = judge.get(key, {})
            both = [i for i in sorted(human) if i in scored]
            if len(both) >= 3:
                spreads[key] = residual_spread(
                    np.array([human[i] for i in both]), np.array([scored[i] for i in both])
                )
            elif len(human) >= 3:
                # No judge scores to correct by: the corrected mean is the human mean, S its spread.
                values = np.array(list(human.values()))
                spreads[key] = residual_spread(values, np.zeros_like(values))
                notes.append(
                    f"{key}: the judge scored too few of its labelled items; S is the human scores' spread"
                )
            else:
                spreads[key] = None
        known = [s for s in spreads.values() if s is not None]
        for key, spread in spreads.items():
            if spread is None:
                spreads[key] = max(known) if known else 1.0
                notes.append(
                    f"{key}: fewer than 3 labelled items to measure S; planned with the largest S seen"
                )
        strata = [
            Stratum(g.key, self.size(g.key), len(labelled.get(g.key, {})), spreads[g.key])
            for g in self.generations
        ]
        return strata, notes

    def _judge_scores(self) -> dict[str, dict[int, float]]:
        logset = read_logs(self.root, exclude=[self.target])
        rows = judge_rows(logset.scores[logset.scores["task"] == "explain"])
        if rows.empty:
            return {}
        chosen, _ = choose_judge(rows, self.options["judge"])
        if chosen is None:
            return {}
        mine = latest(select(rows, chosen), ["generation", "judge", "judge_model"])
        mine = mine[~mine["error"].astype(bool)]
        return {
            str(key): {int(str(i)): float(v) for i, v in group.groupby("id")["value"].mean().dropna().items()}
            for key, group in mine.groupby("generation")
        }

    def open(self, held: HeldFolder) -> Workspace:
        """The round to score: the last one, or a new one when the last is done and labels are left."""
        rounds = self.state["rounds"]
        if rounds:
            last = self._workspace(len(rounds), held)
            done = all(a.finished for a in last.annotators.values())
            if not done or sum(self.taken().values()) >= self.options["n"]:
                return last
            planned = self.next_plan().plan
            if planned.new == 0:
                return last
        else:
            planned = self.next_plan().plan
        self._deal(planned)
        return self._workspace(len(self.state["rounds"]), held)

    def _deal(self, plan: Plan) -> None:
        """Add a round: each generation's next items, numbered on from the pool's last number."""
        taken = self.taken()
        items: dict[str, list[Any]] = self.state["items"]
        number = max((int(k) for k in items), default=0)
        dealt: list[int] = []
        for share in plan.shares:
            order = self.items_of(share.key)
            for item in order[taken[share.key] : taken[share.key] + share.new]:
                number += 1
                items[str(number)] = [share.key, item]
                dealt.append(number)
        round_number = len(self.state["rounds"]) + 1
        rng = np.random.default_rng([self.options["seed"], round_number])
        ids = [dealt[int(i)] for i in rng.permutation(len(dealt))]  # generations mixed: blind
        self.state["rounds"].append(
            {"kind": plan.kind, "new": {s.key: s.new for s in plan.shares}, "ids": ids}
        )
        self._write_round_sheet(round_number, ids)
        self._write_state()

    def _write_round_sheet(self, round_number: int, ids: list[int]) -> None:
        folder = self.target / f"round{round_number}"
        folder.mkdir(parents=True, exist_ok=True)
        texts = self._texts()
        text = sheet_text(TEXT_COLUMNS, ((number, texts[number], "", "") for number in ids), None)
        write_atomic(folder / "sheet.csv", text, encoding="utf-8-sig")

    def _texts(self) -> dict[int, Item]:
        sheets = {key: {item.id: item for item in self._sheet(key).items} for key in self.labels}
        return {int(number): sheets[key][item] for number, (key, item) in self.state["items"].items()}

    def _workspace(self, round_number: int, held: HeldFolder) -> PoolWorkspace:
        entry = self.state["rounds"][round_number - 1]
        folder = self.target / f"round{round_number}"
        sheet = read_sheet(folder / "sheet.csv")
        ids = [item.id for item in sheet.items]
        if ids != entry["ids"]:
            raise ValueError(
                f"{folder / 'sheet.csv'} no longer holds the items of round {round_number}; give another --out-dir"
            )
        plan = assign(
            ids, self.options["annotators"], overlap=self.options["overlap"], seed=self.options["seed"]
        )
        return PoolWorkspace(self, round_number, folder, sheet, plan, held)

    # --- one bound file per generation -----------------------------------------------------------

    def write_generation_files(self) -> list[Path]:
        """Every round's finished scores split by generation, each written as a bound scores file (import's writer)."""
        items = {int(k): (str(v[0]), int(v[1])) for k, v in self.state["items"].items()}
        rows: dict[str, list[tuple[Any, int | float, str]]] = {}
        rounds = [
            self.target / f"round{index}" / "humans.csv" for index in range(1, len(self.state["rounds"]) + 1)
        ]
        for path in filter(Path.exists, rounds):
            for row in read_human_scores(path).to_dict("records"):
                key, item = items[int(row["id"])]
                rows.setdefault(key, []).append((item, int(row["score"]), str(row.get("annotator", ""))))
        written = []
        for key in self.labels:
            out = self.target / f"{HUMANS_PREFIX}{key}.csv"
            if key in rows:
                record = read_generation_record(self.target / GENERATIONS_DIR / f"{key}.sheet.csv")
                write_scores(out, rows[key], record, [p for p in rounds if p.exists()])
                written.append(out)
            else:
                out.unlink(missing_ok=True)
                record_path(out).unlink(missing_ok=True)
        return written

    def bound_files(self) -> list[Path]:
        """The per-generation scores files that exist now."""
        return [p for key in self.labels if (p := self.target / f"{HUMANS_PREFIX}{key}.csv").exists()]


class PoolWorkspace(Workspace):
    """A round of a pool: a workspace whose finished scores are also written per generation."""

    def __init__(
        self, pool: _Pool, round_number: int, folder: Path, sheet: Sheet, plan: Any, held: HeldFolder
    ) -> None:
        self.pool = pool
        self.round = round_number
        super().__init__(folder, sheet, plan, report_folder=pool.root.resolve(), held=held)

    def _refresh_humans(self) -> None:
        super()._refresh_humans()
        self.pool.write_generation_files()

    def report_command(self) -> str:
        """``vivid report LOG_DIR --human`` with every generation's file."""
        files = " ".join(f"--human {quoted(str(p.resolve()))}" for p in self.pool.bound_files())
        return f"vivid report {quoted(str(self.pool.root.resolve()))} {files}".rstrip()

    def written(self) -> str:
        """What a finished annotator's scores are written to."""
        return (
            f"one human scores file per generation is written to {self.pool.target} ({HUMANS_PREFIX}KEY.csv)"
        )

    def description(self) -> str:
        """Round, items and generations, without saying which item is whose."""
        entry = self.pool.state["rounds"][self.round - 1]
        kind = {"first batch": "first batch", "equal": "equal allocation"}.get(
            entry["kind"], "Neyman allocation"
        )
        return (
            f"round {self.round} ({kind}) of a pool of {len(self.pool.labels)} generations: {len(self.plan.ids)} "
            "item(s), generations mixed and unnamed"
        )
