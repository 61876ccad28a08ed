"""The spec's ``human`` scores: the file is read, and the generation it scored is unambiguous.

Checked by ``vivid validate`` before anything runs. Nothing has been generated yet, so the
candidates are the spec's explanation cells (model x prompt): a ``human.generation`` must name
exactly one, and a file that names no generation needs one when the spec makes several.
"""

from __future__ import annotations

from pathlib import Path

from vivid_inspect.generation_key import names_cell
from vivid_inspect.lab.runner.catalog import task_parameters
from vivid_inspect.lab.runner.spec.model import HumanScores, RunBlock, human_entries
from vivid_inspect.lab.runner.spec.problems import Problem

EXPLAIN = "explain"


def explain_cells(runs: list[tuple[int, RunBlock]]) -> list[tuple[str, str]]:
    """The (model, prompt) of every explanation generation the run blocks make, in spec order."""
    default = str(task_parameters(EXPLAIN)["prompt"].default)
    cells: list[tuple[str, str]] = []
    for _, block in runs:
        if EXPLAIN in block.tasks:
            for prompt in block.prompts or [default]:
                cells.extend(
                    (model.model, prompt) for model in block.models if (model.model, prompt) not in cells
                )
    return cells


def check_human(
    human: HumanScores | list[HumanScores] | None,
    runs: list[tuple[int, RunBlock]],
    base_dir: Path,
    complete: bool,
) -> list[Problem]:
    """Every problem of the spec's ``human`` section: one entry, or a list of them.

    Args:
        human: The section, if well typed.
        runs: The well-typed run blocks.
        base_dir: The spec's folder (``file`` is relative to it).
        complete: False when some run blocks had type errors: the generation is then not checked.

    Returns:
        The problems, each with its YAML path (``human``, or ``human[i]`` in a list).
    """
    problems: list[Problem] = []
    seen: dict[Path, int] = {}
    for where, entry in human_entries(human):
        resolved = (base_dir / entry.file).resolve()
        if resolved in seen:
            problems.append(
                Problem(
                    where,
                    f"{entry.file} is listed twice (entries {seen[resolved]} and {where[-1]}): one file holds one generation",
                )
            )
            continue
        seen[resolved] = int(where[-1]) if len(where) > 1 else 0
        problems.extend(_check_entry(entry, where, runs, base_dir, complete))
    return problems


def _check_entry(
    human: HumanScores,
    where: tuple[str | int, ...],
    runs: list[tuple[int, RunBlock]],
    base_dir: Path,
    complete: bool,
) -> list[Problem]:
    """The problems of one human scores entry, at its YAML path."""
    # Imported here: the reader brings pandas and scikit-learn, which a spec without a human
    # file (and `vivid validate` of most specs) does not need.
    from vivid_inspect.lab.humans.scores_file import HumanScoresError, generation_key, read_human_scores

    path = base_dir / human.file
    if not path.exists():
        return [Problem(where, f"file not found: {path}")]
    try:
        # Read now, not only by the report at the end: a bad file must not wait for a paid run.
        scores = read_human_scores(path)
    except HumanScoresError as error:
        return [Problem(where, str(error))]
    if not complete:
        return []
    cells = explain_cells(runs)
    listed = ", ".join(f"{model} {prompt}" for model, prompt in cells) or "none"
    example = f'"{cells[0][0]} {cells[0][1]}"' if cells else '"MODEL PROMPT"'
    if human.generation is not None:
        named = [
            f"{model} {prompt}" for model, prompt in cells if names_cell(human.generation, model, prompt)
        ]
        if len(named) == 1:
            return []
        if named:
            found = f"is ambiguous: it names {len(named)} of the spec's explanation generations ({', '.join(named)})"
        else:
            found = "names none of the spec's explanation generations"
        message = f"{human.generation!r} {found}; name one by its model and prompt, e.g. {example}; the spec makes: {listed}"
        return [Problem((*where, "generation"), message)]
    if generation_key(scores) is None and len(cells) > 1:
        message = (
            f"ambiguous: {human.file} names no generation and the spec makes {len(cells)} explanation generations "
            f"({listed}); say which one the humans scored: human: {{file: {human.file}, generation: {example}}}"
        )
        return [Problem(where, message)]
    return []
