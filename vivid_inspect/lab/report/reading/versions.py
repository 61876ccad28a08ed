"""Judge scores made under older judge rules: which, and the command that judges them again.

Each LLM judge score records the judge prompt and parser versions it was made with
(``JUDGE_PROMPT_VERSION``, ``JUDGE_PARSER_VERSION``). ``vivid run`` re-judges a spec's folder
when they change; a folder of plain ``inspect eval``/``inspect score`` logs keeps its old scores
until they are judged again, so the report names them instead of mixing them in silently.
"""

from __future__ import annotations

import pandas as pd

from vivid_inspect.judge_id import LLM_STRATEGIES
from vivid_inspect.scorers import judge_parse, judge_prompts

SHOWN_LOGS = 5
REJUDGE = (
    "judge them again: `vivid run SPEC.yaml` for a spec's folder, or `inspect score LOG --scorer "
    "vivid_inspect/judge -S strategy=STRATEGY --model-role grader=MODEL --action overwrite --overwrite` per log"
)


def stale_judgements(scores: pd.DataFrame) -> str | None:
    """A sentence naming the LLM judge scores not made under the current judge prompt and parser.

    Args:
        scores: Score rows (`vivid_inspect.lab.report.reading.logs.LogSet.scores`).

    Returns:
        The sentence (how many scores, in which logs, under which versions, and how to judge them
        again), or None when every LLM judge score is current. The lexical judge and panels use
        no judge prompt or parser and are never named.
    """
    current = (judge_prompts.JUDGE_PROMPT_VERSION, judge_parse.JUDGE_PARSER_VERSION)
    rows = scores[(scores["task"] == "explain") & scores["strategy"].isin(LLM_STRATEGIES) & ~scores["error"]]
    unrecorded = rows["prompt_version"].isna() | rows["parser_version"].isna()
    recorded = rows[~unrecorded]
    older = recorded[(recorded["prompt_version"] != current[0]) | (recorded["parser_version"] != current[1])]
    parts = []
    if not older.empty:
        seen = sorted(
            {(int(p), int(q)) for p, q in zip(older["prompt_version"], older["parser_version"], strict=True)}
        )
        versions = ", ".join(f"prompt {p}/parser {q}" for p, q in seen)
        parts.append(f"{len(older)} under older judge versions ({versions})")
    if unrecorded.any():
        parts.append(
            f"{int(unrecorded.sum())} that record no judge version (made before versions were recorded)"
        )
    if not parts:
        return None
    logs = sorted(set(older["log"]) | set(rows.loc[unrecorded, "log"]))
    shown = ", ".join(logs[:SHOWN_LOGS]) + (
        f" and {len(logs) - SHOWN_LOGS} more" if len(logs) > SHOWN_LOGS else ""
    )
    return (
        f"judge scores not made under the current judge prompt {current[0]} and parser {current[1]}: "
        f"{' and '.join(parts)}, in {shown}; {REJUDGE}"
    )
