"""Item 4 — reports at scale: ``vivid report`` over the logs of the paper's runs.

The log folder holds what ``vivid run`` writes for ``paper_generative.yaml`` (8 models × 2
prompts × 1,636 items: 16 generation logs and their 16 judged copies) and ``judge_ablation.yaml``
(200 items judged with the 4 strategies: 1 generation log, 4 judged copies), 37 logs in all.

Making 37 logs with Inspect would take most of the bench budget, so one generation log and its
judged copy are made for real by ``vivid run`` (vivid/oracle generating, the offline vivid/chrf
grader judging, all 1,636 synthetic items), and the others are copies of those two files with
the model, prompt, ids and judge rewritten and every judge score shifted per model (in the
header and summaries, which the report reads; sample bodies are copied as they are). Then the
real ``vivid report`` command runs in a fresh process; the script reports its wall time, peak
RSS, and which members of the ``.eval`` zips it opened (to show it reads only what it needs).

    python bench/report_scale.py            # 1,636 items per log
    python bench/report_scale.py --quick    # 100 items per log
    python bench/report_scale.py --routes   # also: the same folder read by Inspect's public readers

``--routes`` times four ways of reading the folder's headers and per-sample scores, each alone in
a fresh process: the report's reader (``read_logs``, which builds the score frame too), the
public per-log route (``read_eval_log(header_only=True)`` + ``read_eval_log_sample_summaries``),
the same with the members first inflated within the cap (what switching would cost to keep the
decompression-bomb protection) and ``inspect_ai.analysis`` (``evals_df`` + ``samples_df``,
summaries only).
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
import uuid
import zipfile
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import yaml
from _common import GIB, Section, emit, finish, peak_rss_mib, run_worker, scratch_env
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
ABLATION_ITEMS = 200
GOAL_SECONDS = 30.0
GOAL_BYTES = 2 * GIB

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


def copy_log(source: Path, target: Path, header: Edit, summary: Edit, keep: set[str] | None = None) -> None:
    """Copy an ``.eval`` zip, editing its header (and journal start) and each sample summary.

    Args:
        source: The log to copy.
        target: Where the copy goes.
        header: Edits ``header.json`` and the ``eval`` part of ``_journal/start.json`` in place.
        summary: Edits each summary dict in place.
        keep: Sample ids to keep (all when None); sample files of other ids are left out.
    """
    import inspect_ai.log  # noqa: F401  (registers zstd with zipfile)

    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for info in old.infolist():
            name = info.filename
            if name.startswith("samples/"):
                if keep is None or name[len("samples/") :].split("_epoch_")[0] in keep:
                    _copy_raw(old, info, new)
                continue
            data = old.read(info)
            if name == "header.json" or name == "_journal/start.json":
                content = json.loads(data)
                header(content)
                data = json.dumps(content, ensure_ascii=False).encode()
            elif name == "summaries.json" or name.startswith("_journal/summaries/"):
                rows = [row for row in json.loads(data) if keep is None or str(row.get("id")) in keep]
                for row in rows:
                    summary(row)
                data = json.dumps(rows, ensure_ascii=False).encode()
            elif name == "reductions.json" and keep is not None:
                content = json.loads(data)
                for reduction in content:
                    reduction["samples"] = [
                        s for s in reduction.get("samples", []) if str(s.get("sample_id")) in keep
                    ]
                data = json.dumps(content, ensure_ascii=False).encode()
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


def build_log_dir(root: Path, items: int) -> dict[str, Any]:
    """Make the base cell for real, then the paper's 37 logs from it; return what was made."""
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

            def judged_header(
                content: dict[str, Any],
                gen_header: Edit = gen_header,
                gen_rel: str = gen_rel,
                eval_id: str = eval_id,
            ) -> None:
                gen_header(content)
                spec = content.get("eval", content)
                spec["eval_id"] = uuid.uuid4().hex[:22]
                record = (spec.get("metadata") or {}).get("vivid_judge")
                if record is not None:
                    record.update(generation_log=gen_rel, generation_eval_id=eval_id)

            paper = logs / "paper_generative"
            copy_log(generation, paper / gen_rel, gen_header, lambda row: None)
            copy_log(
                judged,
                paper / "judged" / "gpt41_aspect" / name,
                judged_header,
                shift_scores("judge_aspect", f"{model}|{prompt}", 0.3 * m + 0.2 * p),
            )
            made += 2

    ablation = logs / "judge_ablation"
    keep = {str(i) for i in random.Random(0).sample(range(1, items + 1), min(ABLATION_ITEMS, items))}
    eval_id = uuid.uuid4().hex[:22]
    name = f"2026-01-02T00-00-00-00-00_explain_{eval_id}.eval"

    def planned(spec: dict[str, Any]) -> None:
        # The ablation ran on 200 items: its header plans those (the report keys a generation on them).
        dataset = spec.setdefault("dataset", {})
        dataset["sample_ids"] = [i for i in dataset.get("sample_ids") or [] if str(i) in keep]

    def ablation_header(content: dict[str, Any]) -> None:
        planned(_set_eval(content, model="openai/gpt-4o", eval_id=eval_id))

    copy_log(generation, ablation / "generations" / name, ablation_header, lambda row: None, keep)
    made += 1
    for s, strategy in enumerate(STRATEGIES):
        scorer = f"judge_{strategy}"

        def strategy_header(content: dict[str, Any], strategy: str = strategy, scorer: str = scorer) -> None:
            spec = _set_eval(content, model="openai/gpt-4o", eval_id=uuid.uuid4().hex[:22])
            planned(spec)
            record = (spec.get("metadata") or {}).get("vivid_judge")
            if record is not None:
                record.update(
                    name=f"gpt41_{strategy}",
                    strategy=strategy,
                    generation_log=f"generations/{name}",
                    generation_eval_id=eval_id,
                )
                # A real judged log records its judge's usage under its own scorer name.
                usage = record.get("usage") or {}
                if "judge_aspect" in usage:
                    usage[scorer] = usage.pop("judge_aspect")
            for part in ((content.get("results") or {}).get("scores") or []) + (spec.get("scorers") or []):
                if part.get("name") == "judge_aspect":
                    part["name"] = scorer

        def strategy_summary(row: dict[str, Any], scorer: str = scorer, s: int = s) -> None:
            rename_scorer("judge_aspect", scorer)(row)
            shift_scores(scorer, scorer, 0.25 * s)(row)

        copy_log(
            judged, ablation / "judged" / f"gpt41_{strategy}" / name, strategy_header, strategy_summary, keep
        )
        made += 1
    total = sum(f.stat().st_size for f in logs.rglob("*.eval"))
    return {"logs_dir": str(logs), "logs": made, "bytes": total, "base_seconds": base_seconds}


def report_worker(log_dir: Path, out: Path) -> dict[str, Any]:
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
    args = parser.parse_args(["report", str(log_dir), "--out", str(out)])
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
        from vivid_inspect.lab.report.logs import read_logs

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


def measure(items: int, routes: bool = False) -> Section:
    """Build the log folder, then time the report over it in a fresh process."""
    section = Section(
        "report_scale",
        "4. Reports at scale: `vivid report` over the paper's logs",
        f"16 explanation logs of {items:,} items (8 models × 2 prompts) with their 16 judged copies, "
        f"plus a 4-judge ablation on {min(ABLATION_ITEMS, items)} items (1 + 4 logs)",
    )
    with tempfile.TemporaryDirectory(prefix="vivid-bench-report-") as scratch_dir:
        scratch = Path(scratch_dir)
        built = build_log_dir(scratch, items)
        started = time.monotonic()
        result = run_worker(
            Path(__file__), ["--worker", built["logs_dir"], str(scratch / "report")], env=scratch_env(scratch)
        )
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
    section.notes.append(
        f"The base generation and judged logs were made by `vivid run` in {built['base_seconds']:.0f} s; "
        "the other logs are edited copies (see the script's docstring)."
    )
    section.notes.append(f"zip members opened: {json.dumps(result['opened'])}")
    return section


def main(argv: Sequence[str] | None = None) -> int:
    """Run the report measurement, or the report worker."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="100 items per log (smoke check)")
    parser.add_argument("--items", type=int, default=None, help=f"items per log (default {FULL_ROWS})")
    parser.add_argument("--json", type=Path, default=None, help="also write the section as JSON here")
    parser.add_argument("--routes", action="store_true", help="also time Inspect's public log readers")
    parser.add_argument("--route", nargs=2, metavar=("ROUTE", "LOG_DIR"), help=argparse.SUPPRESS)
    parser.add_argument("--worker", nargs=2, type=Path, metavar=("LOG_DIR", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.route:
        emit(route_worker(args.route[0], Path(args.route[1])))
        return 0
    if args.worker:
        emit(report_worker(*args.worker))
        return 0
    started = time.monotonic()
    items = args.items or (100 if args.quick else FULL_ROWS)
    return finish(measure(items, routes=args.routes), started, args.json)


if __name__ == "__main__":
    sys.exit(main())
