"""Item 4 — reports at scale: ``vivid report`` over a paper-scale folder of logs.

The folder holds what ``vivid run`` writes for ``paper_generative.yaml`` with the four LLM judge
strategies of ``judge_ablation.yaml`` (zero-shot, demonstration, CoT, aspect): 8 models × 2
prompts = 16 generation logs of 1,636 items, each judged by the 4 judges, so 16 + 64 = 80 logs
and 104,704 judge scores (issue 32's "16 generations × 1,636 items, 4 judges").

Making 80 logs with Inspect would take most of the bench budget, so one generation log and its
judged copy are made for real by ``vivid run`` (vivid/oracle generating, the offline vivid/chrf
grader judging with the aspect prompt, all 1,636 synthetic items), and the others are copies of
those two files with the model, prompt, ids, judge and scorer name rewritten and every judge score
shifted per model, prompt and judge (in the header and summaries, which the report reads; sample
bodies are copied as they are). Then the real ``vivid report`` command runs in a fresh process;
the script reports its wall time, peak RSS, and which members of the ``.eval`` zips it opened
(to show it reads only what it needs).

    python bench/report_scale.py            # 1,636 items per log
    python bench/report_scale.py --quick    # 100 items per log
    python bench/report_scale.py --routes   # also: the same folder read by Inspect's public readers
    python bench/report_scale.py --against ../before --keep /tmp/paper-folder   # before/after
    python bench/report_scale.py --human    # also human scores on one generation (see below)

``--routes`` times four ways of reading the folder's headers and per-sample scores, each alone in
a fresh process: the report's reader (``read_logs``, which builds the score frame too), the
public per-log route (``read_eval_log(header_only=True)`` + ``read_eval_log_sample_summaries``),
the same with the members first inflated within the cap (what switching would cost to keep the
decompression-bomb protection) and ``inspect_ai.analysis`` (``evals_df`` + ``samples_df``,
summaries only).

``--against DIR`` compares this checkout's report with another checkout's (DIR: a second
worktree of the repository, e.g. ``git worktree add --detach ../before COMMIT``). The folder is
built once; then ``vivid report FOLDER --out OUT`` runs alternately with each checkout's code
(this, DIR, this, DIR, ...; ``--runs`` of each, 3 by default), each in a fresh process whose
``PYTHONPATH`` is the checkout and whose entry point is the checkout's own ``vivid`` script, each
into a fresh ``--out``. It prints each run's wall and CPU time, peak RSS and the 1-minute load
average at its start, the median wall times, their ratio this / DIR (the goal: at most 1.05),
and ``diff -rq`` of the two checkouts' first report folders and printed reports (the evidence
that the change moved no output; this checkout's first and second runs are compared too, as
the control). ``--keep DIR`` builds the folder there and leaves it, or reuses it when it was
built there before with the same number of items (building takes a minute or more).

``--human`` (either mode) also passes ``--human FILE --human-generation "openai/gpt-4o zero_shot"``
with scores shaped like the paper's human study (2 annotators, 150 items each, 50 of them shared),
so that Table 1's agreement for the 4 judges, the corrected means, the alternative annotator test
and the judge card are in the timing.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import struct
import subprocess
import sys
import tempfile
import time
import tomllib
import uuid
import zipfile
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml
from _common import GIB, REPO_DIR, Section, emit, finish, median, peak_rss_mib, run_worker, scratch_env
from synthetic import FULL_ROWS, write_synthetic

MODELS = (
    "openai/gpt-4o",
    "google/gemini-2.5-flash",
    "vllm/meta-llama/Llama-4-Scout-17B-16E-Instruct",
    "vllm/aisingapore/Llama-SEA-LION-v3-8B-IT",
    "vllm/GreenNode/GreenMind-Medium-14B-R1",
    "vllm/Viet-Mistral/Vistral-7B-Chat",
    "vllm/vilm/vinallama-7b-chat",
    "vllm/Qwen/Qwen3-14B",
)
PROMPTS = ("zero_shot", "few_shot")
STRATEGIES = ("zero_shot", "demonstration", "cot", "aspect")
BASE_SCORER = "judge_aspect"
"""The score column of the one judged log made for real (the aspect strategy)."""
GOAL_SECONDS = 30.0
GOAL_BYTES = 2 * GIB
GOAL_RATIO = 1.05
"""Issue 32: the report after the move takes at most 1.05 × the time it took before."""

Edit = Callable[[dict[str, Any]], None]


def base_spec(data: Path, log_dir: Path) -> dict[str, Any]:
    """One real cell: vivid/oracle explains every item, vivid/chrf judges with the aspect prompt."""
    return {
        "name": "bench_report_base",
        "data": str(data),
        "log_dir": str(log_dir),
        "runs": [
            {"name": "base", "tasks": ["explain"], "prompts": ["zero_shot"], "models": ["vivid/oracle"]}
        ],
        "judges": [{"name": "gpt41_aspect", "strategy": "aspect", "model": "vivid/chrf"}],
        "concurrency": {"max_connections": 64},
    }


def copy_log(source: Path, target: Path, header: Edit, summary: Edit) -> None:
    """Copy an ``.eval`` zip, editing its header (and journal start) and each sample summary.

    Args:
        source: The log to copy.
        target: Where the copy goes.
        header: Edits ``header.json`` and the ``eval`` part of ``_journal/start.json`` in place.
        summary: Edits each summary dict in place.
    """
    import inspect_ai.log  # noqa: F401  (registers zstd with zipfile)

    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for info in old.infolist():
            name = info.filename
            if name.startswith("samples/"):
                _copy_raw(old, info, new)
                continue
            data = old.read(info)
            if name == "header.json" or name == "_journal/start.json":
                content = json.loads(data)
                header(content)
                data = json.dumps(content, ensure_ascii=False).encode()
            elif name == "summaries.json" or name.startswith("_journal/summaries/"):
                rows = json.loads(data)
                for row in rows:
                    summary(row)
                data = json.dumps(rows, ensure_ascii=False).encode()
            new.writestr(_info_like(info), data)


def _copy_raw(old: zipfile.ZipFile, info: zipfile.ZipInfo, new: zipfile.ZipFile) -> None:
    """Copy one member's compressed bytes as they are (no decompress + recompress).

    zipfile has no public raw copy; this writes the local header and data the way
    ``ZipFile.writestr`` does once the data is compressed. Sizes and CRC are known, so the copy
    needs no data descriptor.
    """
    assert old.fp is not None and new.fp is not None
    old.fp.seek(info.header_offset)
    local = old.fp.read(30)
    name_length, extra_length = struct.unpack("<HH", local[26:30])
    old.fp.seek(info.header_offset + 30 + name_length + extra_length)
    raw = old.fp.read(info.compress_size)
    copy = _info_like(info)
    copy.CRC, copy.compress_size, copy.file_size = info.CRC, info.compress_size, info.file_size
    copy.flag_bits = info.flag_bits & ~0x08
    copy.header_offset = new.fp.tell()
    zip64 = copy.file_size > zipfile.ZIP64_LIMIT or copy.compress_size > zipfile.ZIP64_LIMIT
    new.fp.write(copy.FileHeader(zip64))
    new.fp.write(raw)
    new.filelist.append(copy)
    new.NameToInfo[copy.filename] = copy
    new.start_dir = new.fp.tell()
    new._didModify = True  # type: ignore[attr-defined]


def _info_like(info: zipfile.ZipInfo) -> zipfile.ZipInfo:
    copy = zipfile.ZipInfo(info.filename, info.date_time)
    copy.compress_type = info.compress_type
    copy.external_attr = info.external_attr
    return copy


def _set_eval(content: dict[str, Any], **values: Any) -> dict[str, Any]:
    spec = content.get("eval", content)
    for key, value in values.items():
        if value is not None:
            spec[key] = value
    return spec


def shift_scores(scorer: str, rng_seed: str, shift: float) -> Edit:
    """An edit that moves each item's judge score by ``shift`` on average, kept in 0-5."""

    def edit(row: dict[str, Any]) -> None:
        score = (row.get("scores") or {}).get(scorer)
        if score is None or not isinstance(score.get("value"), int | float):
            return
        rng = random.Random(f"{rng_seed}|{row.get('id')}")
        score["value"] = int(min(5, max(0, round(score["value"] - shift + rng.uniform(-1, 1)))))

    return edit


def rename_scorer(old: str, new: str) -> Edit:
    """An edit of a summary that renames one score column."""

    def edit(row: dict[str, Any]) -> None:
        scores = row.get("scores") or {}
        if old in scores:
            scores[new] = scores.pop(old)

    return edit


def judged_summary(m: int, p: int, s: int) -> Edit:
    """How the copy of model ``m``, prompt ``p`` and judge strategy ``s`` edits each base summary.

    The score column is renamed to the strategy's scorer and the score shifted (each copy its
    own mean, and its own noise per item).
    """
    strategy = STRATEGIES[s]
    scorer = f"judge_{strategy}"
    rename = rename_scorer(BASE_SCORER, scorer)
    move = shift_scores(scorer, f"{MODELS[m]}|{PROMPTS[p]}|{strategy}", 0.3 * m + 0.2 * p + 0.25 * s)

    def edit(row: dict[str, Any]) -> None:
        rename(row)
        move(row)

    return edit


def judged_header(gen_header: Edit, gen_rel: str, gen_eval_id: str, strategy: str) -> Edit:
    """An edit of the base judged log's header into the ``strategy`` judge's log of one generation."""
    scorer = f"judge_{strategy}"

    def edit(content: dict[str, Any]) -> None:
        gen_header(content)
        spec = content.get("eval", content)
        spec["eval_id"] = uuid.uuid4().hex[:22]
        record = (spec.get("metadata") or {}).get("vivid_judge")
        if record is not None:
            record.update(
                name=f"gpt41_{strategy}",
                strategy=strategy,
                generation_log=gen_rel,
                generation_eval_id=gen_eval_id,
            )
            # A real judged log records its judge's usage under its own scorer name.
            usage = record.get("usage") or {}
            if BASE_SCORER in usage:
                usage[scorer] = usage.pop(BASE_SCORER)
        for part in ((content.get("results") or {}).get("scores") or []) + (spec.get("scorers") or []):
            if part.get("name") == BASE_SCORER:
                part["name"] = scorer

    return edit


def build_log_dir(root: Path, items: int) -> dict[str, Any]:
    """Make the base cell for real, then the paper-scale folder from it; return what was made."""
    data = write_synthetic(root / "vivid_synthetic.csv", items)
    base_dir = root / "base"
    spec = root / "base.yaml"
    spec.write_text(yaml.safe_dump(base_spec(data, base_dir), sort_keys=False))
    started = time.monotonic()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "vivid_inspect.lab.cli.main",
            "run",
            str(spec),
            "--display",
            "none",
            "--no-report",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, **scratch_env(root)},
        timeout=900,
    )
    if done.returncode != 0:
        raise RuntimeError(f"vivid run of the base cell failed ({done.returncode}):\n{done.stderr[-2000:]}")
    base_seconds = time.monotonic() - started
    (generation,) = sorted((base_dir / "generations").glob("*.eval"))
    (judged,) = sorted((base_dir / "judged" / "gpt41_aspect").glob("*.eval"))

    logs = root / "logs"
    paper = logs / "paper_generative"
    made = 0
    for m, model in enumerate(MODELS):
        for p, prompt in enumerate(PROMPTS):
            eval_id = uuid.uuid4().hex[:22]
            name = f"2026-01-01T00-00-{m:02d}-00-00_explain_{eval_id}.eval"
            gen_rel = f"generations/{name}"

            def gen_header(
                content: dict[str, Any], model: str = model, prompt: str = prompt, eval_id: str = eval_id
            ) -> None:
                spec = _set_eval(content, model=model, eval_id=eval_id, run_id=uuid.uuid4().hex[:22])
                spec["task_args"] = {**(spec.get("task_args") or {}), "prompt": prompt}

            copy_log(generation, paper / gen_rel, gen_header, lambda row: None)
            made += 1
            for s, strategy in enumerate(STRATEGIES):
                copy_log(
                    judged,
                    paper / "judged" / f"gpt41_{strategy}" / name,
                    judged_header(gen_header, gen_rel, eval_id, strategy),
                    judged_summary(m, p, s),
                )
                made += 1
    total = sum(f.stat().st_size for f in logs.rglob("*.eval"))
    return {
        "logs_dir": str(logs),
        "items": items,
        "logs": made,
        "bytes": total,
        "base_seconds": base_seconds,
    }


HUMAN_GENERATION = f"{MODELS[0]} {PROMPTS[0]}"
HUMAN_ITEMS = 250
"""The generation ``--human`` scores belong to (the paper's people scored one model's explanations)."""


def human_file(logs_dir: Path) -> Path:
    """Where ``--human`` keeps its scores: beside the log folder, not in it."""
    return logs_dir.parent / "humans.csv"


def write_human_scores(logs_dir: Path, items: int) -> Path:
    """Human scores shaped like the paper's: 2 annotators, 150 items each, 50 of them scored by both.

    A score is the aspect judge's score of the item in that generation (as its copy holds it),
    lowered by 0.5 with seeded noise of up to ±1 per annotator and item, so people agree with the
    judge in part and score a little lower (a judge bias to correct). With fewer than
    250 items (``--quick``) every item is scored, a fifth of them by both.
    """
    import csv

    import inspect_ai.log  # noqa: F401  (registers zstd with zipfile)

    (judged,) = sorted((logs_dir.parent / "base" / "judged" / "gpt41_aspect").glob("*.eval"))
    with zipfile.ZipFile(judged) as log:
        rows = json.loads(log.read("summaries.json"))
    aspect = STRATEGIES.index("aspect")
    edit = judged_summary(0, 0, aspect)  # as the copy for HUMAN_GENERATION's aspect judge
    for row in rows:
        edit(row)
    judge = {str(row["id"]): row["scores"][f"judge_{STRATEGIES[aspect]}"]["value"] for row in rows}
    ids = sorted(judge, key=lambda id: random.Random(f"humans|{id}").random())[:HUMAN_ITEMS]
    shared = len(ids) // 5
    annotators = {"A": ids[: (len(ids) + shared) // 2], "B": ids[(len(ids) - shared) // 2 :]}
    path = human_file(logs_dir)
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["id", "score", "annotator"])
        for annotator, scored in annotators.items():
            for id in scored:
                noise = random.Random(f"{annotator}|{id}").uniform(-1, 1)
                writer.writerow([id, int(min(5, max(0, round(judge[id] - 0.5 + noise)))), annotator])
    return path


def report_options(logs_dir: Path, human: bool) -> list[str]:
    """The options every timed ``vivid report`` gets after ``LOG_DIR --out OUT``."""
    if not human:
        return []
    return ["--human", str(human_file(logs_dir)), "--human-generation", HUMAN_GENERATION]


def report_worker(log_dir: Path, out: Path, human: bool = False) -> dict[str, Any]:
    """Run ``vivid report LOG_DIR`` in this process; count the zip members it opens."""
    started = time.monotonic()
    opened: Counter[str] = Counter()
    original_open = zipfile.ZipFile.open

    def counting_open(self: zipfile.ZipFile, name: Any, *args: Any, **kwargs: Any) -> Any:
        member = name.filename if isinstance(name, zipfile.ZipInfo) else str(name)
        opened["samples/*" if member.startswith("samples/") else member] += 1
        return original_open(self, name, *args, **kwargs)

    zipfile.ZipFile.open = counting_open  # type: ignore[method-assign]
    # The report inflates members itself, within a cap, from the raw zip (not ZipFile.open).
    from vivid_inspect.lab import bounded_zip

    original_inflate = bounded_zip._inflate

    def counting_inflate(raw: Any, method: int, name: str, *args: Any, **kwargs: Any) -> Any:
        opened["samples/*" if name.startswith("samples/") else name] += 1
        return original_inflate(raw, method, name, *args, **kwargs)

    bounded_zip._inflate = counting_inflate  # type: ignore[assignment]
    from vivid_inspect.lab.cli import main as cli

    parser = cli.build_parser()
    if "report" not in parser._subparsers._group_actions[0].choices:  # type: ignore[union-attr]
        from vivid_inspect.lab.cli import report

        subparsers = parser._subparsers._group_actions[0]  # type: ignore[union-attr]
        report.register(subparsers)
    args = parser.parse_args(["report", str(log_dir), "--out", str(out), *report_options(log_dir, human)])
    imported = time.monotonic()
    with open(os.devnull, "w") as sink:
        stdout, sys.stdout = sys.stdout, sink
        try:
            code = int(args.handler(args))
        finally:
            sys.stdout = stdout
    return {
        "exit": code,
        "report_s": time.monotonic() - imported,
        "import_s": imported - started,
        "peak_rss_mib": peak_rss_mib(),
        "opened": dict(opened),
        "files": len(list(out.glob("*"))),
    }


ROUTES = ("read_logs", "public_summaries", "public_capped", "analysis")
"""The readers ``--routes`` compares (see the module docstring)."""


def route_worker(route: str, log_dir: Path) -> dict[str, Any]:
    """Read every log's header and per-sample scores the way ``route`` does; time it here."""
    started = time.monotonic()
    if route == "read_logs":
        from vivid_inspect.lab.report.reading.logs import read_logs

        imported = time.monotonic()
        logs = read_logs(log_dir)
        count, rows = len(logs.logs), len(logs.scores)
    elif route == "public_summaries":
        from inspect_ai.log import read_eval_log, read_eval_log_sample_summaries

        imported = time.monotonic()
        paths = sorted(log_dir.rglob("*.eval"))
        rows = 0
        for path in paths:
            read_eval_log(str(path), header_only=True)
            summaries = read_eval_log_sample_summaries(str(path))
            rows += sum(len(summary.scores or {}) for summary in summaries)
        count = len(paths)
    elif route == "public_capped":
        from inspect_ai.log import read_eval_log, read_eval_log_sample_summaries

        from vivid_inspect.lab.bounded_zip import Budget, check_members, max_inflated

        imported = time.monotonic()
        paths = sorted(log_dir.rglob("*.eval"))
        rows = 0
        for path in paths:
            # What a switch would need to keep the bomb protection: inflate within the cap first.
            budget = Budget(max_inflated())
            check_members(path, ["header.json", "summaries.json"], budget)
            read_eval_log(str(path), header_only=True)
            summaries = read_eval_log_sample_summaries(str(path))
            rows += sum(len(summary.scores or {}) for summary in summaries)
        count = len(paths)
    elif route == "analysis":
        from inspect_ai.analysis import evals_df, samples_df

        imported = time.monotonic()
        count = len(evals_df(str(log_dir), quiet=True))
        rows = len(samples_df(str(log_dir), quiet=True))
    else:
        raise ValueError(f"unknown route {route!r}; expected one of {', '.join(ROUTES)}")
    return {
        "route": route,
        "read_s": time.monotonic() - imported,
        "import_s": imported - started,
        "peak_rss_mib": peak_rss_mib(),
        "logs": count,
        "rows": rows,
    }


def measure_routes(section: Section, logs_dir: Path, scratch: Path) -> None:
    """Add one row per reader of the same folder, each timed in a fresh process."""
    for route in ROUTES:
        started = time.monotonic()
        result = run_worker(Path(__file__), ["--route", route, str(logs_dir)], env=scratch_env(scratch))
        wall = time.monotonic() - started
        section.notes.append(
            f"route {route}: command wall {wall:.1f} s (read {result['read_s']:.1f} s, imports "
            f"{result['import_s']:.1f} s), peak RSS {result['peak_rss_mib']:.0f} MiB, "
            f"{result['logs']} logs, {result['rows']:,} rows"
        )
        section.figures[f"route_{route}"] = {**result, "wall_s": wall}


FOLDER_RECORD = "built.json"
"""What ``--keep DIR`` writes beside the folder it built, to reuse it next time."""


def kept_folder(keep: Path, items: int) -> dict[str, Any] | None:
    """The folder built in ``keep`` before, None when ``keep`` is new or empty.

    Raises:
        ValueError: ``keep`` holds something else, or a folder of another size.
    """
    record = keep / FOLDER_RECORD
    if record.is_file():
        built = dict(json.loads(record.read_text(encoding="utf-8")))
        if built.get("items") != items:
            raise ValueError(
                f"--keep {keep}: the folder there has {built.get('items')} items per log, not {items}; "
                "pass the same size or another folder"
            )
        return built
    if keep.exists() and (not keep.is_dir() or any(keep.iterdir())):
        raise ValueError(f"--keep {keep}: not empty and no {FOLDER_RECORD} in it; pass a new or empty folder")
    return None


@contextmanager
def log_folder(items: int, keep: Path | None) -> Iterator[dict[str, Any]]:
    """The paper-scale folder: built in a scratch folder and deleted after, or kept in ``keep``."""
    if keep is None:
        with tempfile.TemporaryDirectory(prefix="vivid-bench-report-") as scratch:
            yield build_log_dir(Path(scratch), items)
        return
    built = kept_folder(keep, items)
    if built is None:
        keep.mkdir(parents=True, exist_ok=True)
        built = build_log_dir(keep.resolve(), items)
        (keep / FOLDER_RECORD).write_text(json.dumps(built, indent=2) + "\n", encoding="utf-8")
    else:
        built = {**built, "base_seconds": None}  # reused: nothing was built in this run
    yield built


def folder_note(built: dict[str, Any]) -> str:
    """Where the folder came from, for the section's notes."""
    if built["base_seconds"] is None:
        return f"The folder was reused from {Path(built['logs_dir']).parent} (built by an earlier run)."
    return (
        f"The base generation and judged logs were made by `vivid run` in {built['base_seconds']:.0f} s; "
        "the other logs are edited copies (see the script's docstring)."
    )


def folder_shape(items: int, human: bool) -> str:
    logs = len(MODELS) * len(PROMPTS)
    shape = (
        f"{logs} explanation logs of {items:,} items (8 models × 2 prompts), each judged by the "
        f"{len(STRATEGIES)} LLM judge strategies ({logs} + {logs * len(STRATEGIES)} logs)"
    )
    if human:
        scored = min(HUMAN_ITEMS, items)
        shape += (
            f"; `--human`: 2 annotators on {scored} items of {HUMAN_GENERATION}, {scored // 5} scored by both"
        )
    return shape


def measure(items: int, routes: bool = False, keep: Path | None = None, human: bool = False) -> Section:
    """Build the log folder, then time the report over it in a fresh process."""
    section = Section(
        "report_scale",
        "4. Reports at scale: `vivid report` over a paper-scale folder",
        folder_shape(items, human),
    )
    with log_folder(items, keep) as built, tempfile.TemporaryDirectory(prefix="vivid-bench-report-") as out:
        scratch = Path(out)
        if human:
            write_human_scores(Path(built["logs_dir"]), items)
        started = time.monotonic()
        worker = ["--worker", built["logs_dir"], str(scratch / "report"), *(["--human"] if human else [])]
        result = run_worker(Path(__file__), worker, env=scratch_env(scratch))
        wall = time.monotonic() - started
        section.figures = {**built, **result, "wall_s": wall}
        if routes:
            measure_routes(section, Path(built["logs_dir"]), scratch)
    rss = float(result["peak_rss_mib"])
    summaries = result["opened"].get("summaries.json", 0)
    samples = result["opened"].get("samples/*", 0)
    section.rows.append(
        {
            "logs": built["logs"],
            "log MiB": built["bytes"] / 2**20,
            "command wall s": wall,
            "of which report s": result["report_s"],
            "imports s": result["import_s"],
            "peak RSS MiB": rss,
            "summaries read": summaries,
            "sample files read": samples,
            "files written": result["files"],
        }
    )
    section.goal(
        f"under {GOAL_SECONDS:.0f} s",
        f"{wall:.1f} s (the whole command, start-up included)",
        wall < GOAL_SECONDS,
    )
    section.goal("under 2 GiB peak RSS", f"{rss:.0f} MiB", rss * 2**20 < GOAL_BYTES)
    section.goal(
        "reads only what it needs", f"{summaries} summaries.json, {samples} sample files opened", samples == 0
    )
    section.notes.append(folder_note(built))
    section.notes.append(f"zip members opened: {json.dumps(result['opened'])}")
    return section


# --------------------------------------------------------------------------- before / after (--against)


def checkout_commit(checkout: Path) -> str:
    """The checkout's short commit, marked when its files differ from it."""

    def git(*args: str) -> str:
        done = subprocess.run(["git", "-C", str(checkout), *args], capture_output=True, text=True, timeout=30)
        return done.stdout.strip() if done.returncode == 0 else ""

    commit = git("rev-parse", "--short", "HEAD") or "unknown commit"
    return f"{commit} + uncommitted changes" if git("status", "--porcelain") else commit


def vivid_command(checkout: Path) -> list[str]:
    """The checkout's own ``vivid`` console script (from its pyproject.toml), run by this interpreter.

    Run with the checkout as ``PYTHONPATH`` (and a working directory outside it), the entry point
    and everything it imports are the checkout's, wherever the move put the CLI.
    """
    project = tomllib.loads((checkout / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    module, function = project["scripts"]["vivid"].split(":")
    code = f"import sys; from {module} import {function}; sys.argv[0] = 'vivid'; sys.exit({function}())"
    return [sys.executable, "-c", code]


def checkout_env(checkout: Path, scratch: Path) -> dict[str, str]:
    return {**os.environ, **scratch_env(scratch), "PYTHONPATH": str(checkout)}


def check_imports_from(checkout: Path, scratch: Path) -> None:
    """Fail unless a process set up as the timed runs are imports the package from ``checkout``."""
    done = subprocess.run(
        [sys.executable, "-c", "import vivid_inspect; print(vivid_inspect.__file__)"],
        capture_output=True,
        text=True,
        env=checkout_env(checkout, scratch),
        cwd=scratch,
        timeout=120,
    )
    where = Path(done.stdout.strip() or "?").resolve()
    if checkout.resolve() not in where.parents:
        raise RuntimeError(
            f"with PYTHONPATH={checkout}, vivid_inspect is imported from {where}, not the checkout"
        )


def timed_report(checkout: Path, logs: Path, out: Path, scratch: Path, options: list[str]) -> dict[str, Any]:
    """``vivid report LOGS --out OUT OPTIONS`` with the checkout's code in a fresh process, timed.

    The printed report goes to ``OUT.stdout`` (beside the folder, so the folders compare alone).
    """
    load = os.getloadavg()[0]
    command = [*vivid_command(checkout), "report", str(logs), "--out", str(out), *options]
    stdout_path, stderr_path = out.with_name(out.name + ".stdout"), out.with_name(out.name + ".stderr")
    with open(stdout_path, "wb") as stdout, open(stderr_path, "wb") as stderr:
        started = time.monotonic()
        process = subprocess.Popen(
            command, stdout=stdout, stderr=stderr, env=checkout_env(checkout, scratch), cwd=scratch
        )
        # wait4 gives this child's own CPU time and peak RSS (RUSAGE_CHILDREN pools every run).
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.monotonic() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        tail = "\n".join(stderr_path.read_text(errors="replace").splitlines()[-20:])
        raise RuntimeError(f"vivid report with {checkout} failed (exit {process.returncode}):\n{tail}")
    return {
        "load_1min": load,
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_rss_mib": usage.ru_maxrss / 1024,
    }


def compare_reports(a: Path, b: Path) -> list[str]:
    """``diff -rq`` of two report folders, plus whether their printed reports differ; [] when equal.

    The printed report names its ``--out`` folder, which differs by construction: that path is
    replaced before comparing.
    """
    done = subprocess.run(["diff", "-rq", str(a), str(b)], capture_output=True, text=True, timeout=300)
    lines = [line.replace(str(a.parent) + os.sep, "") for line in done.stdout.splitlines()]
    printed = [
        path.with_name(path.name + ".stdout")
        .read_text(encoding="utf-8", errors="replace")
        .replace(str(path), "OUT")
        for path in (a, b)
    ]
    if printed[0] != printed[1]:
        lines.append(f"printed reports {a.name}.stdout and {b.name}.stdout differ")
    return lines


def measure_against(against: Path, items: int, runs: int, keep: Path | None, human: bool = False) -> Section:
    """Time the report with this checkout's code and ``against``'s, alternately, on one folder."""
    this = REPO_DIR
    labels = {"this": checkout_commit(this), "against": checkout_commit(against)}
    section = Section(
        "report_scale_against",
        f"4. Reports at scale, before and after: this checkout ({labels['this']}) "
        f"against {against} ({labels['against']})",
        f"{folder_shape(items, human)}; `vivid report FOLDER --out OUT{' --human FILE' if human else ''}`, "
        f"{runs} runs each, alternating",
    )
    by_code: dict[str, list[dict[str, Any]]] = {"this": [], "against": []}
    with log_folder(items, keep) as built, tempfile.TemporaryDirectory(prefix="vivid-bench-report-") as out:
        scratch = Path(out)
        logs = Path(built["logs_dir"])
        if human:
            write_human_scores(logs, items)
        options = report_options(logs, human)
        for checkout in (this, against):
            check_imports_from(checkout, scratch)
        for run in range(1, runs + 1):
            for code, checkout in (("this", this), ("against", against)):
                result = timed_report(checkout, logs, scratch / f"{code}-{run}", scratch, options)
                by_code[code].append(result)
                print(
                    f"run {run} {code}: {result['wall_s']:.1f} s wall, {result['cpu_s']:.1f} s CPU, "
                    f"load {result['load_1min']:.1f} at start",
                    file=sys.stderr,
                    flush=True,
                )
                section.rows.append(
                    {
                        "run": run,
                        "code": f"{code} ({labels[code]})",
                        "load at start": result["load_1min"],
                        "wall s": result["wall_s"],
                        "CPU s": result["cpu_s"],
                        "peak RSS MiB": result["peak_rss_mib"],
                    }
                )
        outputs = compare_reports(scratch / "this-1", scratch / "against-1")
        control = compare_reports(scratch / "this-1", scratch / "this-2") if runs > 1 else []
        files = sum(1 for f in (scratch / "this-1").rglob("*") if f.is_file())
    wall = {code: median([r["wall_s"] for r in results]) for code, results in by_code.items()}
    cpu = {code: median([r["cpu_s"] for r in results]) for code, results in by_code.items()}
    ratio, cpu_ratio = wall["this"] / wall["against"], cpu["this"] / cpu["against"]
    section.goal(
        f"this / against ≤ {GOAL_RATIO:.2f} (after / before when DIR is the older commit), "
        f"median wall of {runs} interleaved runs each",
        f"{ratio:.3f} × ({wall['this']:.1f} s / {wall['against']:.1f} s)",
        ratio <= GOAL_RATIO,
    )
    section.goal(
        "CPU time, this / against (median; less moved by other load than wall time)",
        f"{cpu_ratio:.3f} × ({cpu['this']:.1f} s / {cpu['against']:.1f} s)",
        None,
    )
    section.goal(
        "the same output (`diff -rq` of the first runs' folders and printed reports)",
        f"identical ({files} files)" if not outputs else f"{len(outputs)} differences",
        not outputs,
    )
    section.notes.append(folder_note(built))
    section.notes += [f"this-1 vs against-1: {line}" for line in outputs]
    if runs > 1:
        section.notes.append(
            f"control, this-1 vs this-2: {'identical' if not control else '; '.join(control)}"
        )
    section.figures = {
        **built,
        "commits": labels,
        "runs": by_code,
        "median_wall_s": wall,
        "median_cpu_s": cpu,
        "ratio": ratio,
        "cpu_ratio": cpu_ratio,
        "differences": outputs,
        "control_differences": control,
    }
    return section


def main(argv: Sequence[str] | None = None) -> int:
    """Run the report measurement, the before/after comparison, or a worker."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="100 items per log (smoke check)")
    parser.add_argument("--items", type=int, default=None, help=f"items per log (default {FULL_ROWS})")
    parser.add_argument("--json", type=Path, default=None, help="also write the section as JSON here")
    parser.add_argument("--routes", action="store_true", help="also time Inspect's public log readers")
    parser.add_argument(
        "--against", type=Path, default=None, metavar="DIR", help="compare with another checkout's report"
    )
    parser.add_argument(
        "--runs", type=int, default=3, help="runs of each checkout with --against (default 3)"
    )
    parser.add_argument(
        "--keep",
        type=Path,
        default=None,
        metavar="DIR",
        help="build the folder here and keep it, or reuse it",
    )
    parser.add_argument(
        "--human",
        action="store_true",
        help=f"also pass human scores shaped like the paper's ({HUMAN_ITEMS} items of one generation, 2 annotators)",
    )
    parser.add_argument("--route", nargs=2, metavar=("ROUTE", "LOG_DIR"), help=argparse.SUPPRESS)
    parser.add_argument("--worker", nargs=2, type=Path, metavar=("LOG_DIR", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.route:
        emit(route_worker(args.route[0], Path(args.route[1])))
        return 0
    if args.worker:
        log_dir, out = args.worker
        emit(report_worker(log_dir, out, human=args.human))
        return 0
    items = args.items or (100 if args.quick else FULL_ROWS)
    if args.against is not None:
        if args.routes:
            parser.error("--routes and --against measure different things: run them separately")
        if not (args.against / "pyproject.toml").is_file():
            parser.error(
                f"--against {args.against}: no pyproject.toml there; pass a checkout of this repository"
            )
        if args.runs < 1:
            parser.error("--runs must be at least 1")
    if args.keep is not None:
        try:
            kept_folder(args.keep, items)
        except ValueError as error:
            parser.error(str(error))
    started = time.monotonic()
    if args.against is not None:
        section = measure_against(args.against, items, args.runs, args.keep, human=args.human)
    else:
        section = measure(items, routes=args.routes, keep=args.keep, human=args.human)
    return finish(section, started, args.json)


if __name__ == "__main__":
    sys.exit(main())
