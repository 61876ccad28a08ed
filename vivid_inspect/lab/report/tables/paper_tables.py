"""Our tables beside the paper's, only where our setting is the paper's.

A number is comparable with the paper's only when it was made the way the paper made it:

- Tables 3 and 4: the judge is the paper's (GPT-4.1, the aspect-based prompt, Vietnamese
  instructions), and the generation ran on every item of the pinned release
  (`vivid_inspect.data.sources.hf_label`, 1,636 items, less the items the task leaves out:
  demonstrations and judge calibration examples) rather than the bundled sample, another file or a
  subset of the items;
- Table 1: each judge row whose judge model is GPT-4.1, on a generation of GPT-4o's zero-shot
  explanations of the pinned release (the paper's 200 items were a sample of it, so any subset
  counts), with human scores to compare with;
- Table 5: a generation of every item of the pinned release with the paper's 3 demonstrations.

The release is recognised by its label and its item count (the pinned revision fixes its content;
its digest is recorded in every log beside the label). When nothing is comparable no comparison
is written, and one line of report.md says why. Every compared cell carries its n.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import pandas as pd

from vivid_inspect.lab.report.reading.log_refs import LogRef
from vivid_inspect.lab.report.reading.vivid import DEFAULT_LANGUAGE, hf_label
from vivid_inspect.lab.report.tables import paper
from vivid_inspect.lab.report.tables.judges import PAPER_JUDGE, JudgeKey
from vivid_inspect.lab.report.tables.render import Table
from vivid_inspect.lab.report.tables.tables import AVERAGE, THEME_COLUMNS, TRAIT_COLUMNS

PAPER_STRATEGY = "aspect"
PAPER_ITEMS = 1636
"""Items of the released data file (paper, section 3)."""
PAPER_SHOTS = 3
PAPER_GENERATOR = ("GPT-4o", "zero_shot")
"""Whose explanations the paper's judges were compared with humans on (Table 1)."""
DIFF_NOTE = (
    "diff = ours - paper; n: the items our cell rests on; only models (and judge models) the paper evaluated"
)


@dataclass(frozen=True)
class Comparisons:
    """The comparison tables written, and one line for each comparison not written, saying why."""

    tables: list[Table] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)


def data_problem(ref: LogRef | None, *, every_item: bool = True) -> str | None:
    """Why a generation's data is not the paper's, or None when it is.

    Args:
        ref: A log of the generation (its header facts), None when unknown.
        every_item: Whether the run must cover every item the task keeps.

    Returns:
        The reason, naming the data; None for the pinned release (of 1,636 items), run on every
        item it keeps when ``every_item``.
    """
    if ref is None or ref.identity is None:
        return "its generation is unknown"
    if ref.identity.data != hf_label():
        return f"data {ref.data_label} is not the pinned release ({hf_label()})"
    if ref.data_items != PAPER_ITEMS:
        return f"data {ref.data_label} holds {ref.data_items} items, not the release's {PAPER_ITEMS:,}"
    if every_item and not ref.full_run:
        return f"a run on {len(ref.identity.sample_ids)} of the {ref.kept_items} items the task keeps"
    return None


def judge_problem(judge: JudgeKey | None, strategy: str, language: str | None) -> str | None:
    """Why the judge of Tables 3 and 4 is not the paper's, or None when it is."""
    if judge is None:
        return "no judge scores"
    if paper.paper_model(judge.model) != PAPER_JUDGE:
        return f"judge {judge.label} is not the paper's judge model ({PAPER_JUDGE})"
    if strategy != PAPER_STRATEGY:
        return (
            f"judge {judge.label} uses the {strategy or 'unknown'} strategy, not the paper's {PAPER_STRATEGY}"
        )
    if language not in (DEFAULT_LANGUAGE, None):
        return f"judge {judge.label} asks in {language}, the paper's judge in {DEFAULT_LANGUAGE}"
    return None


def comparisons(
    t1: Table,
    t3: Table,
    t4: Table,
    t5: Table,
    *,
    refs: Mapping[str, LogRef],
    judge: JudgeKey | None,
    strategy: str,
    language: str | None,
    table1_generation: str | None,
) -> Comparisons:
    """Every comparison with the paper that is comparable, and why the others are not written.

    Args:
        t1: Our Table 1.
        t3: Our Table 3.
        t4: Our Table 4.
        t5: Our Table 5.
        refs: A log of each generation, by generation key (its data and run facts).
        judge: The judge of Tables 3 and 4; ``strategy`` and ``language`` are its own.
        strategy: The judge's strategy.
        language: The language of its instructions.
        table1_generation: The generation Table 1 was computed on.

    Returns:
        The tables (``table1_vs_paper``, ...) and the reasons, one line each.
    """
    out = Comparisons()
    _add(out, "table1", "Table 1", *_table1(t1, refs.get(table1_generation or ""), table1_generation))
    problem = judge_problem(judge, strategy, language)
    for name, title, table, columns in (
        ("table3", "Table 3", t3, [*THEME_COLUMNS, AVERAGE]),
        ("table4", "Table 4", t4, list(TRAIT_COLUMNS)),
    ):
        _add(out, name, title, *_cells(name, table, columns, refs, problem))
    _add(out, "table5", "Table 5", *_table5(t5, refs))
    return replace(out, reasons=_merged(out.reasons))


def _merged(reasons: list[str]) -> list[str]:
    """Tables 3 and 4 not compared for one reason: one line for both."""
    prefix = "no comparison with the paper's "
    three = next((r for r in reasons if r.startswith(f"{prefix}Table 3: ")), None)
    four = next((r for r in reasons if r.startswith(f"{prefix}Table 4: ")), None)
    if three is None or four is None or three.split(": ", 1)[1] != four.split(": ", 1)[1]:
        return reasons
    both = f"{prefix}Tables 3 and 4: {three.split(': ', 1)[1]}"
    return [both if r == three else r for r in reasons if r != four]


def _add(
    out: Comparisons, name: str, title: str, frame: pd.DataFrame | None, why: str | None, notes: Sequence[str]
) -> None:
    if frame is not None and not frame.empty:
        out.tables.append(
            Table(
                f"{name}_vs_paper",
                f"{title}: ours beside the paper's",
                frame,
                decimals=3 if name in ("table1", "table5") else 2,
                notes=(DIFF_NOTE, *notes),
                counts=("n",),
            )
        )
    elif why:
        out.reasons.append(f"no comparison with the paper's {title}: {why}")


def _cells(
    name: str, table: Table, columns: list[str], refs: Mapping[str, LogRef], judge_problem: str | None
) -> tuple[pd.DataFrame | None, str | None, list[str]]:
    """Table 3 or 4 beside the paper's: each comparable generation's cells, with their n."""
    cells = table.csv_rows
    if cells.empty:
        return None, None, []
    if judge_problem is not None:
        return (
            None,
            f"{judge_problem} (the paper: {PAPER_JUDGE}, {PAPER_STRATEGY}, Vietnamese instructions)",
            [],
        )
    wide, left_out = [], []
    for generation, group in cells.groupby("generation", sort=False):
        problem = data_problem(refs.get(str(generation)))
        first = group.iloc[0]
        if problem is not None:
            left_out.append(f"{first['model']} {first['prompt']}: {problem}")
            continue
        record: dict[str, object] = {
            "model": first["model"],
            "prompt": first["prompt"],
            "generation": generation,
        }
        for cell in group.itertuples(index=False):
            record[str(cell.cell)] = cell.judge_mean
            record[f"n:{cell.cell}"] = cell.n_items
        wide.append(record)
    if not wide:
        return None, f"no generation ran on every item of the paper's data ({'; '.join(left_out[:3])})", []
    ours = pd.DataFrame(wide)
    frame = paper.compare(
        name, ours, model="model", prompt="prompt", columns=columns, n={c: f"n:{c}" for c in columns}
    )
    notes = [f"left out (not the paper's data): {'; '.join(left_out)}"] if left_out else []
    why = None if not frame.empty else "no model the paper evaluated"
    return frame, why, notes


def _table1(
    t1: Table, ref: LogRef | None, generation: str | None
) -> tuple[pd.DataFrame | None, str | None, list[str]]:
    """Table 1 beside the paper's: GPT-4.1 judges on GPT-4o's zero-shot explanations of the release."""
    frame = t1.frame
    judges = frame[frame["strategy"] != ""]
    if judges.empty:
        return None, None, []
    human_rows = frame[frame["judge"] == "human"]
    if human_rows.empty:
        return None, None, []  # report.md already says there are no human scores
    if ref is None or ref.identity is None:
        return None, "no generation was compared with the human scores", []
    problem = data_problem(ref, every_item=False)
    generator = (paper.paper_model(ref.identity.model), ref.identity.prompt)
    if problem is None and generator != PAPER_GENERATOR:
        problem = (
            f"computed on {ref.identity.model} {ref.identity.prompt}, not GPT-4o's zero-shot explanations"
        )
    if problem is not None:
        return None, f"{problem} (generation {generation})", []
    ours = judges.rename(columns={"judge_model": "model_name"})
    ours = ours.assign(model=ours["model_name"], prompt=ours["strategy"], mean=ours["judge_mean"])
    human = human_rows.assign(model=PAPER_JUDGE, prompt="human", mean=human_rows["human_mean"])
    ours = pd.concat([human, ours], ignore_index=True)
    compared = paper.compare("table1", ours, model="model", prompt="prompt", columns=["mean", "kappa"], n="n")
    # The human row's kappa is 1 by definition on both sides; its mean is worth comparing.
    compared = compared[~((compared["prompt"] == "human") & (compared["column"] == "kappa"))].reset_index(
        drop=True
    )
    compared.loc[compared["prompt"] == "human", "model"] = "humans"
    if compared["prompt"].ne("human").sum() == 0:
        return None, f"no judge with the paper's judge model ({PAPER_JUDGE})", []
    notes = ["mean: a judge's mean over the items the humans scored (judge_mean); on the humans' row, theirs"]
    return compared, None, notes


def _table5(t5: Table, refs: Mapping[str, LogRef]) -> tuple[pd.DataFrame | None, str | None, list[str]]:
    """Table 5 beside the paper's: 3-shot generations of every item of the release."""
    rows = t5.csv_rows
    if rows.empty:
        return None, None, []
    keep, left_out = [], []
    for record in rows.to_dict("records"):
        keys = [
            k
            for task in ("topic", "traits")
            for k in str(record[f"{task}_generation"] or "").split(", ")
            if k
        ]
        problems = [p for p in (data_problem(refs.get(k)) for k in keys) if p]
        if record["shots"] != PAPER_SHOTS:
            problems.insert(0, f"{record['shots']} demonstrations, not the paper's {PAPER_SHOTS}")
        if problems:
            left_out.append(f"{record['model']}: {problems[0]}")
        else:
            keep.append(record)
    if not keep:
        return (
            None,
            f"no 3-shot classification of every item of the paper's data ({'; '.join(left_out[:3])})",
            [],
        )
    ours = pd.DataFrame(keep)
    frame = paper.compare(
        "table5",
        ours,
        model="model",
        prompt=None,
        columns=["topic", "traits"],
        n={"topic": "n_topic", "traits": "n_traits"},
    )
    notes = [f"left out (not the paper's setting): {'; '.join(left_out)}"] if left_out else []
    return frame, None if not frame.empty else "no model the paper evaluated", notes
