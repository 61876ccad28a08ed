"""Judge sanity check: does a judge tell the reference meaning from a literal reading?

Before a judge's scores are trusted, it should pass a test any competent grader passes. The
offline model ``vivid/oracle`` explains each idiom with its reference meaning word for word (a
perfect answer: the rubric's 5), ``vivid/literal`` with a word-for-word paraphrase of the idiom's
own words (the paper's "literal over-interpretation" failure: the rubric's 0-1 for a figurative
idiom). Both explanations of the same items go through the ``explain`` task's real judge path
(prompt template, reply parsing, retries) with the judge bound to the ``grader`` role, and the
scores are compared item by item.

A judge that cannot separate these two extremes cannot separate real models either: the paper's
best and worst models are about 2.3 points apart (GPT-4o 2.46, VinaLLaMA 0.13 on the 0-5 scale).

This module runs the check; the verdict (criteria, thresholds, the markdown card) is
:mod:`vivid_inspect.sanity_result`, whose names are importable from here.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from vivid_inspect.call_errors import readable_error
from vivid_inspect.sample_texts import sample_idiom
from vivid_inspect.sanity_result import (
    DEFAULT_MAX_UNSCORED,
    DEFAULT_MIN_GAP,
    DEFAULT_MIN_SHARE,
    FEW_ITEMS,
    LITERAL,
    ORACLE,
    SanityCheck,
    SanityItem,
    SanityResult,
    summarise,
    validate_thresholds,
)

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog
    from inspect_ai.model import Model
    from inspect_ai.util import DisplayType

__all__ = [
    "DEFAULT_LIMIT",
    "DEFAULT_MAX_UNSCORED",
    "DEFAULT_MIN_GAP",
    "DEFAULT_MIN_SHARE",
    "FEW_ITEMS",
    "LITERAL",
    "ORACLE",
    "SANITY_TAG",
    "SanityCheck",
    "SanityError",
    "SanityItem",
    "SanityResult",
    "choose_ids",
    "run_sanity",
    "summarise",
    "validate_thresholds",
]

SANITY_TAG = "vivid-sanity"
"""Tag on the logs of a sanity run, so they can be told apart from real explain runs."""

DEFAULT_LIMIT = 40
"""Items per run: 80 judge calls, cheap for any API judge; 40 paired items put the standard error
of an 80 % share at about 6 points. The bundled sample has 46 usable items."""


class SanityError(RuntimeError):
    """The sanity run did not complete (the judge or a model failed); there is no verdict."""


def choose_ids(ids: Sequence[int | str], limit: int | None, seed: int) -> list[int | str]:
    """The items a run uses.

    Args:
        ids: Sample ids of the data set.
        limit: How many to draw; None, or at least ``len(ids)``, keeps them all.
        seed: Seed of the draw, so a re-run uses the same items.

    Returns:
        The drawn ids in ascending order (all ids, in their order, when none are left out).

    Raises:
        ValueError: If ``limit`` is below 1.
    """
    if limit is not None and limit < 1:
        raise ValueError(f"limit must be 1 or more, got {limit}")
    if limit is None or limit >= len(ids):
        return list(ids)
    return sorted(
        random.Random(seed).sample(list(ids), limit), key=lambda value: (isinstance(value, str), value)
    )


def _log_scores(log: EvalLog, column: str) -> dict[int | str, tuple[str, float]]:
    """Per sample id: the idiom and the judge's score in ``column`` (NaN when unscored)."""
    scores: dict[int | str, tuple[str, float]] = {}
    for sample in log.samples or []:
        score = (sample.scores or {}).get(column)
        value = score.as_float() if score is not None else math.nan
        scores[sample.id] = (sample_idiom(sample.input, sample.metadata), value)
    return scores


def run_sanity(
    judge_model: str | Model,
    *,
    strategy: str = "aspect",
    data: str | None = "sample",
    limit: int | None = DEFAULT_LIMIT,
    seed: int = 0,
    min_gap: float = DEFAULT_MIN_GAP,
    min_share: float = DEFAULT_MIN_SHARE,
    max_unscored: float = DEFAULT_MAX_UNSCORED,
    model_args: Mapping[str, Any] | None = None,
    log_dir: str | None = None,
    display: DisplayType | None = None,
) -> SanityResult:
    """Run a judge on oracle and literal explanations of the same items and judge the judge.

    Args:
        judge_model: The judge: a model name (``openai/gpt-4.1``, ``vivid/chrf``) or a Model.
        strategy: Judge prompting strategy: ``zero_shot``, ``demonstration``, ``cot`` or ``aspect``.
        data: Data source of the items (``sample``, ``hf``, a path or URL; None means
            ``$VIVID_DATA``, else ``hf``); the offline models read the same source.
        limit: How many items to run (drawn at random with ``seed``; all when the data has
            fewer); None runs every item.
        seed: Seed of the item draw, so a re-run judges the same items.
        min_gap: Least oracle-minus-literal mean gap to pass (see :data:`DEFAULT_MIN_GAP`).
        min_share: Least share of items where the oracle wins (see :data:`DEFAULT_MIN_SHARE`).
        max_unscored: Largest share of unreadable verdicts (see :data:`DEFAULT_MAX_UNSCORED`).
        model_args: Arguments for building the judge from its name, e.g. ``{"base_url": ...}``;
            not allowed with a Model.
        log_dir: Where Inspect writes the two logs; default ``$INSPECT_LOG_DIR``, else ``./logs``.
        display: Inspect display type (``none`` for silence); default Inspect's own.

    Returns:
        The result with its verdict; it is a pass when every check passes.

    Raises:
        ValueError: An unknown strategy, a threshold off its scale, a limit below 1, an unknown
            judge model, model arguments given with a Model, or data that cannot be read.
        SanityError: The run did not complete (a model call failed), so there is no verdict.
    """
    # Imported here, not with the module: `vivid --help` reads this module's defaults and must
    # not wait for Inspect and scipy to load.
    from inspect_ai import eval
    from inspect_ai.model import get_model

    from vivid_inspect.log_contract import GRADER_ROLE, judge_column
    from vivid_inspect.scorers.judge import get_strategy
    from vivid_inspect.tasks import explain

    get_strategy(strategy)
    validate_thresholds(min_gap, min_share, max_unscored)
    judge = _judge(judge_model, model_args)
    task = explain(judge=strategy, data=data)
    ids = choose_ids([sample.id for sample in task.dataset if sample.id is not None], limit, seed)
    logs = eval(
        task,
        model=[get_model(ORACLE, data=data), get_model(LITERAL, data=data)],
        model_roles={GRADER_ROLE: judge},
        sample_id=ids,
        log_dir=log_dir,
        display=display,
        tags=[SANITY_TAG],
        metadata={"sanity_judge": str(judge), "sanity_strategy": strategy},
    )
    by_model = _completed(logs, judge)
    items = _items(ids, by_model[ORACLE], by_model[LITERAL], judge_column(strategy))
    return summarise(
        items,
        judge=str(judge),
        strategy=strategy,
        data=str((task.metadata or {}).get("data", data)),
        min_gap=min_gap,
        min_share=min_share,
        max_unscored=max_unscored,
        log_locations=[by_model[name].location for name in (ORACLE, LITERAL)],
    )


def _judge(judge_model: str | Model, model_args: Mapping[str, Any] | None) -> Model:
    """The judge as a Model: built from its name with ``model_args``, or as given."""
    from inspect_ai.model import Model

    if isinstance(judge_model, Model):
        if model_args:
            raise ValueError(
                f"model_args {sorted(model_args)} apply to a judge given by name, not to a Model"
            )
        return judge_model
    return model_from_name(judge_model, model_args)


def check_judge_args(name: str, model_args: Mapping[str, Any]) -> None:
    """Refuse ``-M`` arguments a judge would ignore: an offline ``vivid/*`` judge takes none.

    Raises:
        ValueError: One line naming the keys and the model.
    """
    if name.split("/", 1)[0] == "vivid" and model_args:
        # vivid/chrf grades from the prompt alone (its `data` argument is read only by the
        # baselines, as generators): as a judge every argument would be silently ignored.
        raise ValueError(
            f"-M {', '.join(sorted(model_args))}: {name} takes no model argument as a judge (it takes "
            "only the model argument 'data', as a generator)"
        )


_UNEXPECTED_ARGUMENT = re.compile(r"unexpected keyword argument '([^']+)'")


def model_from_name(name: str, model_args: Mapping[str, Any] | None) -> Model:
    """Build a model from its name and ``-M`` arguments; an argument it does not take is a ValueError.

    Args:
        name: The model's name (``openai-api/local/qwen3``).
        model_args: Its ``-M`` arguments.

    Returns:
        The model.

    Raises:
        ValueError: A model argument the provider (or its client) does not take, named with the
            model; or what Inspect raises for an unknown model.
    """
    from inspect_ai.model import get_model

    args = dict(model_args or {})
    check_judge_args(name, args)
    try:
        return get_model(name, **args)
    except TypeError as error:
        # Inspect passes unknown model arguments on to the provider's client constructor.
        unknown = _UNEXPECTED_ARGUMENT.search(str(error))
        if unknown is None:
            raise
        raise ValueError(f"-M {unknown.group(1)}: not a model argument of {name}") from None


def _completed(logs: Sequence[EvalLog], judge: Model) -> dict[str, EvalLog]:
    """The oracle's and the literal model's logs by model name, each a complete run.

    Raises:
        SanityError: A log is missing or did not finish (a model call failed).
    """
    by_model = {log.eval.model: log for log in logs}
    for name in (ORACLE, LITERAL):
        log = by_model.get(name)
        if log is None or log.status != "success":
            error = (
                readable_error(log.error.message) if log is not None and log.error is not None else "no log"
            )
            where = f" (log: {log.location})" if log is not None else ""
            raise SanityError(f"the sanity run of {name} judged by {judge} did not complete: {error}{where}")
    return by_model


def _items(
    ids: Sequence[int | str], oracle_log: EvalLog, literal_log: EvalLog, column: str
) -> tuple[SanityItem, ...]:
    """The judge's scores of each item's two explanations, in ``ids`` order."""
    oracle = _log_scores(oracle_log, column)
    literal = _log_scores(literal_log, column)
    missing = ("", math.nan)  # a sample absent from a log counts as unscored
    return tuple(
        SanityItem(
            id=item_id,
            idiom=oracle.get(item_id, missing)[0] or literal.get(item_id, missing)[0],
            oracle=oracle.get(item_id, missing)[1],
            literal=literal.get(item_id, missing)[1],
        )
        for item_id in ids
    )
