"""The cells of a spec: generations, judgements and panels.

One per (task × prompt × model) generation, one per (generation × judge × repeat), one panel per
explanation generation.

Cells are pure descriptions (no data, no models): ``vivid plan`` lists them, ``vivid run`` runs
the missing ones. Their identities are stable across runs, so a rerun finds its earlier work. A
judge cell's configuration holds the judge prompt and parser versions: a judged log made under
other rules is redone, never silently reused.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from vivid_inspect.lab.runner.catalog import JUDGED_TASKS, task_args
from vivid_inspect.lab.runner.spec.load import LoadedSpec
from vivid_inspect.lab.runner.spec.model import Judge, ModelEntry, Panel, RunBlock
from vivid_inspect.log_contract import DEFAULT_LANGUAGE, LEXICAL
from vivid_inspect.scorers import judge_parse, judge_prompts
from vivid_inspect.scorers.judge import STRATEGIES
from vivid_inspect.scorers.lexical import CHRF_CUTS

BASELINE_PROVIDER = "vivid"
GENERATIONS_DIR = "generations"
JUDGED_DIR = "judged"


def config_hash(config: Any) -> str:
    """Short stable hash of a JSON-able configuration."""
    text = json.dumps(config, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def split_model_args(args: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    """Separate ``base_url`` (a ``get_model`` argument of its own) from the provider's arguments."""
    rest = dict(args)
    base_url = rest.pop("base_url", None)
    return base_url, rest


def resolved_model(entry: ModelEntry, data: str | None) -> ModelEntry:
    """The model entry with the spec's data given to ``vivid/*`` baselines that name none."""
    provider = entry.model.split("/", 1)[0]
    if provider == BASELINE_PROVIDER and data is not None and "data" not in entry.model_args:
        return entry.model_copy(update={"model_args": {**entry.model_args, "data": data}})
    return entry


# eq=False: a cell is itself (hashable by identity), usable as a key to its results.
@dataclass(frozen=True, eq=False)
class GenerationCell:
    """One task × prompt × model of a run block.

    Attributes:
        block: Index of the run block in ``runs``.
        task: Task name.
        prompt: The cell's prompt, or None for the task default.
        args: Task arguments (these become the log's ``task_args``).
        model: The model, with resolved model arguments.
    """

    block: int
    task: str
    prompt: str | None
    args: dict[str, Any]
    model: ModelEntry

    @property
    def judged(self) -> bool:
        """Whether the spec's judges score this cell's outputs."""
        return self.task in JUDGED_TASKS

    @property
    def label(self) -> str:
        """Short human name: ``explain[few_shot] vivid/oracle``."""
        shown = {k: v for k, v in self.args.items() if k not in ("data", "judge")}
        detail = ",".join(str(v) if k == "prompt" else f"{k}={v}" for k, v in shown.items())
        return f"{self.task}[{detail}] {self.model.model}" if detail else f"{self.task} {self.model.model}"


@dataclass(frozen=True, eq=False)
class JudgeCell:
    """One judgement of one explanation cell's log by one judge.

    Attributes:
        generation: The explanation cell judged.
        judge: The judge.
        repeat: Which of the judge's ``repeats`` this is, from 0. Repeat 0 is the judge's
            ordinary judgement (the one Table 1, Tables 3 and 4 and the panel use); each further
            repeat is a fresh call per item, cached apart from the others.
    """

    generation: GenerationCell
    judge: Judge
    repeat: int = 0

    @property
    def lexical(self) -> bool:
        """Whether this is the lexical judge, which scores by chrF and calls no model."""
        return self.judge.strategy == LEXICAL

    @property
    def label(self) -> str:
        """The judge's name, with ``/repeat-<r>`` after it for a repeat other than the first."""
        return repeat_label(self.judge.name, self.repeat)

    @property
    def config(self) -> dict[str, Any]:
        """Everything that changes the judge's scores; its hash decides whether a cell is done."""
        if self.lexical:
            # No model settings apply; the cut points do change the binned scores.
            return {"strategy": self.judge.strategy, "chrf_cuts": list(CHRF_CUTS)}
        config: dict[str, Any] = {
            "strategy": self.judge.strategy,
            "model": self.judge.model,
            "model_args": self.judge.model_args,
            "generate": self.judge.generate,
            "retries": self.judge.retries,
            # The repeat number, not the judge's count of repeats: repeat r's replies do not depend
            # on how many repeats follow, so raising `repeats` reuses the ones already judged.
            "repeat": self.repeat,
            # Read at call time (not imported as names) so that a bumped version is seen.
            "prompt_version": judge_prompts.JUDGE_PROMPT_VERSION,
            "parser_version": judge_parse.JUDGE_PARSER_VERSION,
        }
        # Another language is another prompt, so another judgement. The paper's language is left
        # out, so judged logs written before English existed keep their hash and are not redone.
        if self.judge.language != DEFAULT_LANGUAGE:
            config["language"] = self.judge.language
        return config

    @property
    def max_tokens(self) -> int:
        """Output budget of one judge call (0 for the lexical judge, which makes none)."""
        if self.lexical:
            return 0
        return int(self.judge.generate.get("max_tokens") or STRATEGIES[self.judge.strategy].max_tokens)


@dataclass(frozen=True, eq=False)
class PanelCell:
    """A panel's aggregate over its members' judged logs of one explanation cell."""

    generation: GenerationCell
    panel: Panel
    members: tuple[JudgeCell, ...]

    @property
    def config(self) -> dict[str, Any]:
        """The aggregate and each member's configuration (a changed member redoes the panel)."""
        return {
            "aggregate": self.panel.aggregate,
            "members": {m.judge.name: config_hash(m.config) for m in self.members},
        }


@dataclass(frozen=True)
class Cells:
    """Every cell of a spec, in run order."""

    generations: tuple[GenerationCell, ...]
    judges: tuple[JudgeCell, ...]
    panels: tuple[PanelCell, ...]
    blocks: dict[int, RunBlock] = field(default_factory=dict)

    def block_cells(self, block: int) -> list[GenerationCell]:
        """The generation cells of one run block."""
        return [cell for cell in self.generations if cell.block == block]


def repeat_label(name: str, repeat: int) -> str:
    """``name`` for repeat 0, ``name/repeat-<r>`` for a further repeat (also its judged folder)."""
    return name if repeat == 0 else f"{name}/repeat-{repeat}"


def expand(loaded: LoadedSpec) -> Cells:
    """List the cells of a validated spec.

    Args:
        loaded: The spec.

    Returns:
        Generation cells (block by block: task, then prompt, then model), a judge cell per
        explanation cell, judge and repeat, and a panel cell per explanation cell when there is a
        panel (its members are the judges' first repeats).
    """
    spec = loaded.spec
    generations: list[GenerationCell] = []
    for index, block in enumerate(spec.runs):
        for task in block.tasks:
            prompts: list[str | None] = [*block.prompts] if block.prompts else [None]
            for prompt in prompts:
                args = task_args(task, prompt, block.task_args, loaded.data)
                for model in block.models:
                    generations.append(
                        GenerationCell(index, task, prompt, args, resolved_model(model, loaded.data))
                    )
    judges: list[JudgeCell] = []
    panels: list[PanelCell] = []
    for cell in generations:
        if not cell.judged:
            continue
        cell_judges: list[JudgeCell] = []
        for judge in spec.judges:
            resolved = resolved_judge(judge, loaded.data)
            cell_judges += [JudgeCell(cell, resolved, repeat) for repeat in range(judge.repeats)]
        judges += cell_judges
        if spec.panel is not None:
            by_name = {j.judge.name: j for j in cell_judges if j.repeat == 0}
            members = tuple(by_name[name] for name in spec.panel.members)
            panels.append(PanelCell(cell, spec.panel, members))
    return Cells(tuple(generations), tuple(judges), tuple(panels), dict(enumerate(spec.runs)))


def resolved_judge(judge: Judge, data: str | None) -> Judge:
    """The judge with the spec's data given to a ``vivid/*`` grader that names none."""
    if judge.model is None:  # the lexical judge: no model to give data to
        return judge
    entry = resolved_model(ModelEntry(model=judge.model, model_args=judge.model_args), data)
    return judge.model_copy(update={"model_args": entry.model_args})
