"""Token usage and cost per model under test and per judge.

Where the numbers are: a generation log's header has ``stats.model_usage`` (per model) and
``stats.role_usage`` (per role; the judges run under the ``grader`` role), covering the judge calls
made while the eval ran. A judged copy written by re-scoring a generation (eval metadata
``vivid_judge``) has the generation's header stats copied over, and its judge calls appear only
in the sample events; for those logs the judge's model events are read from the samples, and
only the events inside that judge's scorer span count. A cached judge reply (event ``cache ==
"read"``) costs nothing and adds no tokens.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pandas as pd
from inspect_ai.model import ModelUsage

from vivid_inspect.lab.bounded_zip import Budget, InflationError, check_size, max_inflated, read_members
from vivid_inspect.lab.report.reading.log_files import json_samples
from vivid_inspect.lab.report.reading.logs import LogRef, LogSet
from vivid_inspect.lab.report.reading.vivid import GRADER_ROLE, PANEL_STRATEGY
from vivid_inspect.lab.report.tables.render import Table
from vivid_inspect.lab.usage_events import read_usage_record, scorer_usage

_COUNTED = ("calls", "cached_calls", "input_tokens", "output_tokens", "reasoning_tokens", "total_tokens")
"""The count columns, nullable integers (a log without usage leaves them empty)."""
USAGE_COLUMNS = ("kind", "task", "model", "judge", "logs", *_COUNTED, "cost")


@dataclass
class _Tally:
    logs: set[str]
    calls: int | None = None
    cached: int | None = None
    usage: ModelUsage | None = None

    def add(
        self, log: str, usage: ModelUsage | None, calls: int | None = None, cached: int | None = None
    ) -> None:
        self.logs.add(log)
        if usage is not None:
            self.usage = usage if self.usage is None else self.usage + usage
        if calls is not None:
            self.calls = (self.calls or 0) + calls
            self.cached = (self.cached or 0) + (cached or 0)


def usage_table(logset: LogSet) -> Table:
    """Tokens and cost per (task, model under test) and per judge.

    Args:
        logset: The logs and their score rows (to know each log's judges).

    Returns:
        A table; ``calls`` and ``cached_calls`` are counted only where events were read (judged
        copies); ``cost`` is empty when no provider reported one.
    """
    tallies, notes = _tallies(logset)
    frame = _usage_frame(tallies)
    notes.insert(0, "cost in US dollars as reported by the provider; empty when none was reported")
    return Table(
        "usage",
        "Token usage and cost",
        frame,
        decimals={"cost": 4, "*": 0},
        notes=tuple(dict.fromkeys(notes)),
    )


def _tallies(logset: LogSet) -> tuple[dict[tuple[str, str, str, str], _Tally], list[str]]:
    """Usage summed per (kind, task, model, judge), with a note for each log whose usage is shared or missing."""
    tallies: dict[tuple[str, str, str, str], _Tally] = {}
    notes: list[str] = []

    def tally(kind: str, task: str, model: str, judge: str) -> _Tally:
        return tallies.setdefault((kind, task, model, judge), _Tally(set()))

    judges_of = _judges_by_log(logset.run_scores)
    counted = _counted_once(logset.logs)
    if len(counted) < len(logset.logs):
        notes.append(
            f"{len(logset.logs) - len(counted)} log(s) hold a run already counted (a judged copy copied again, "
            "an `inspect score --output-file` copy beside its original): their usage is counted once, from the "
            "latest written"
        )
    for ref in counted:
        judges = judges_of.get(ref.rel, [])
        if ref.vivid_judge is not None:
            if ref.vivid_judge.strategy == PANEL_STRATEGY:
                continue  # a panel aggregates its members' scores and calls no model
            for scorer, name, model in judges:
                try:
                    usage, calls, cached = judge_event_usage(ref, scorer)
                except (InflationError, RecursionError, ValueError, OSError, zipfile.BadZipFile) as error:
                    # A damaged or oversized log: its judge's usage is left out, said, not guessed.
                    notes.append(f"{ref.rel}: the {name} judge's usage is not counted ({_first_line(error)})")
                    tally("judge", ref.task, model, name).add(ref.rel, None)
                    continue
                tally("judge", ref.task, model, name).add(ref.rel, usage, calls, cached)
            continue
        grader = ref.role_usage.get(GRADER_ROLE)
        own = ref.model_usage.get(ref.model)
        if own is not None and grader is not None and ref.judge_model_role == ref.model:
            # The model judged itself: its header total includes the judge calls.
            own = _minus(own, grader)
        tally("generation", ref.task, ref.model, "").add(ref.rel, own)
        if judges and grader is not None:
            names = " + ".join(sorted({name for _, name, _ in judges}))
            models = sorted({model for _, _, model in judges})
            tally("judge", ref.task, ", ".join(models), names).add(ref.rel, grader)
            if len(judges) > 1:
                notes.append(
                    f"{ref.rel}: {len(judges)} judges ran in one eval; their grader usage is reported together"
                )
        elif judges:
            notes.append(
                f"{ref.rel}: judge scores but no grader usage in the header (re-scored outside the runner?)"
            )
    return tallies, notes


def _counted_once(refs: tuple[LogRef, ...]) -> list[LogRef]:
    """One log per run of a generation (and per judge of the runner's judged copies): the latest written.

    A log and its copies hold the same header usage (and a judged copy's judge calls); the latest
    written copy holds every judge column the others hold.
    """
    latest: dict[tuple[str, str, str, float], LogRef] = {}
    for ref in refs:
        record = ref.vivid_judge
        judge = "" if record is None else f"{record.name}|{record.strategy}"
        repeat = -1.0 if record is None or record.repeat is None else float(record.repeat)
        key = (ref.key or ref.rel, ref.run, judge, repeat)
        if key not in latest or (ref.written, ref.rel) > (latest[key].written, latest[key].rel):
            latest[key] = ref
    chosen = {id(ref) for ref in latest.values()}
    return [ref for ref in refs if id(ref) in chosen]


def _usage_frame(tallies: dict[tuple[str, str, str, str], _Tally]) -> pd.DataFrame:
    """One row per tally, generation rows first, then by name; counts as nullable integers."""
    records = []
    ordered = sorted(
        tallies.items(), key=lambda item: (item[0][0] != "generation", [k.lower() for k in item[0]], item[0])
    )
    for (kind, task, model, judge), t in ordered:
        usage = t.usage
        records.append(
            {
                "kind": kind,
                "task": task,
                "model": model,
                "judge": judge,
                "logs": len(t.logs),
                "calls": t.calls,
                "cached_calls": t.cached,
                "input_tokens": usage.input_tokens if usage else None,
                "output_tokens": usage.output_tokens if usage else None,
                "reasoning_tokens": usage.reasoning_tokens if usage else None,
                "total_tokens": usage.total_tokens if usage else None,
                "cost": usage.total_cost if usage else None,
            }
        )
    return pd.DataFrame(records, columns=list(USAGE_COLUMNS)).astype({c: "Int64" for c in _COUNTED})


def judge_event_usage(ref: LogRef, scorer: str) -> tuple[ModelUsage | None, int, int]:
    """The judge's model calls of a judged log: from its header when the runner recorded them.

    Args:
        ref: The log.
        scorer: The judge's scorer (column) name; only model events inside its span count.

    Returns:
        Summed usage (None when no call reported usage), the number of calls, and how many of
        them were served from the cache (counted as calls, without tokens).
    """
    recorded = ((ref.vivid_judge.usage if ref.vivid_judge else None) or {}).get(scorer)
    if recorded is not None:
        return read_usage_record(recorded)
    # Judged logs written before the runner recorded usage (or by hand): sum the sample events.
    return scorer_usage(_sample_events(ref), scorer)


def _sample_events(ref: LogRef) -> Iterator[list[dict[str, Any]]]:
    """Each sample's events as plain dicts, without validating whole samples (the slow part).

    The sample members are inflated within the log cap (`vivid_inspect.lab.bounded_zip`), all of
    them together, as every other read of a log; a ``.json`` log is counted by its size.

    Raises:
        vivid_inspect.lab.bounded_zip.InflationError: The samples inflate past the cap.
    """
    budget = Budget(max_inflated())
    if ref.path.suffix == ".eval":
        # Importing inspect_ai.log registered zstd with zipfile, which .eval members use.
        with zipfile.ZipFile(ref.path) as archive:
            names = sorted(n for n in archive.namelist() if n.startswith("samples/") and n.endswith(".json"))
        for _, data in read_members(ref.path, names, budget):
            sample = json.loads(data)
            yield (sample.get("events") if isinstance(sample, dict) else None) or []
        return
    check_size(ref.path, budget)
    # one sample at a time, as the .eval's members above: read whole, a .json log took 19x its size
    for sample in json_samples(ref.path, ("events",)):
        yield (sample.get("events") if isinstance(sample, dict) else None) or []


def _first_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return lines[0][:200] if lines else type(error).__name__


def _judges_by_log(scores: pd.DataFrame) -> dict[str, list[tuple[str, str, str]]]:
    rows = scores[scores["judge"].notna()][["log", "scorer", "judge", "judge_model"]].drop_duplicates()
    result: dict[str, list[tuple[str, str, str]]] = {}
    for record in rows.sort_values(["log", "scorer"]).to_dict("records"):
        model = "" if pd.isna(record["judge_model"]) else str(record["judge_model"])
        result.setdefault(record["log"], []).append((str(record["scorer"]), str(record["judge"]), model))
    return result


def _minus(a: ModelUsage, b: ModelUsage) -> ModelUsage:
    def sub(x: float | None, y: float | None) -> Any:
        return None if x is None else x - (y or 0)

    return ModelUsage(
        input_tokens=a.input_tokens - b.input_tokens,
        output_tokens=a.output_tokens - b.output_tokens,
        total_tokens=a.total_tokens - b.total_tokens,
        input_tokens_cache_write=sub(a.input_tokens_cache_write, b.input_tokens_cache_write),
        input_tokens_cache_read=sub(a.input_tokens_cache_read, b.input_tokens_cache_read),
        reasoning_tokens=sub(a.reasoning_tokens, b.reasoning_tokens),
        total_cost=sub(a.total_cost, b.total_cost),
    )
