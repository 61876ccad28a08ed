"""Item 1 — harness overhead: our ``explain`` task against a bare Inspect task, same calls, same items.

Both variants run on the synthetic 1,636-item file with the same instant mock models (Inspect's
``mockllm`` with scripted replies that carry usage, so no tokenizer is needed) and the same eval
options; each makes one generation and one judge call per item. They differ only in the harness:

- ``ours``: ``vivid_inspect/explain`` with the aspect judge — our data layer, prompt solver, judge
  scorer (nonce-tagged prompt, parse, retry logic, score metadata) and metrics. As under ``inspect
  eval`` without ``--cache``, the task's judge does not cache (its replies could not be replayed:
  a rerun's explanations are new samples); ``ours-cached-judge`` turns its cache on.
- ``bare``: a task written with Inspect alone — ``csv_dataset``, ``generate()``, and a scorer that
  asks the grader role once with the same aspect template filled by ``str.format`` and reads an int.

Variants run in alternating pairs of fresh processes (ours then bare, then bare then ours, ...),
and each pair is compared on its own: the judged figure is the median over the pairs of ours / bare
in CPU time (user + system of the worker), which load from other work on a shared machine moves far
less than wall time. Wall time, the per-pair ratios and peak RSS are printed beside it.

    python bench/overhead.py              # 1,636 items, 7 alternating pairs
    python bench/overhead.py --repeats 3  # three pairs
    python bench/overhead.py --quick      # 200 items, one pair
    python bench/overhead.py --profile    # also write a pyinstrument profile of each variant
    python bench/overhead.py --variants ours,bare,ours-no-companion  # what the unscored_<judge> column costs
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from _common import (
    EXPLANATION,
    REPO_DIR,
    Section,
    cpu_seconds,
    emit,
    finish,
    judge_reply,
    median,
    peak_rss_mib,
    run_worker,
    scratch_env,
    words,
)
from synthetic import FULL_ROWS, write_synthetic

GOAL_RATIO = 1.10
DEFAULT_PAIRS = 7
"""Alternating pairs by default: with 7, one or two pairs disturbed by other load move the median little."""
CONNECTIONS = 32
VARIANTS = ("ours", "bare")
DIAGNOSTICS = ("ours-cached-judge", "bare-samples", "ours-no-companion")
"""Variants that add or remove one feature, to attribute the overhead (``--variants``)."""


def instant_models(calls: Counter[str]) -> tuple[Any, Any]:
    """Generator and grader mock models that answer at once and count their calls."""
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    def reply(role: str, text_of: Any) -> Any:
        def output(input: Any, tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
            calls[role] += 1
            prompt = "\n".join(message.text for message in input)
            text = text_of(prompt)
            result = ModelOutput.from_content(model="mockllm", content=text)
            result.usage = ModelUsage(
                input_tokens=words(prompt),
                output_tokens=words(text),
                total_tokens=words(prompt) + words(text),
            )
            return result

        return output

    generator = get_model(
        "mockllm/gen", custom_outputs=reply("generation", lambda prompt: EXPLANATION), memoize=False
    )
    grader = get_model("mockllm/judge", custom_outputs=reply("judge", judge_reply), memoize=False)
    return generator, grader


def bare_task(data: Path, samples: bool = False) -> Any:
    """The same work written with Inspect alone: no VIVID code on the path of a sample.

    With ``samples`` the dataset is our loaded one (same ids, inputs, targets and metadata), so
    only the solver, scorer and metrics differ from ours.
    """
    from inspect_ai import Task
    from inspect_ai.dataset import FieldSpec, csv_dataset
    from inspect_ai.model import GenerateConfig, get_model
    from inspect_ai.scorer import Score, Target, mean, scorer
    from inspect_ai.solver import TaskState, generate

    from vivid_inspect.scorers.judge_prompts import ASPECT

    @scorer(metrics=[mean()])
    def bare_judge() -> Any:
        async def score(state: TaskState, target: Target) -> Score:
            grader = get_model(role="grader")
            prompt = ASPECT.format(
                nonce="0" * 16,
                idiom=state.input_text,
                reference=target.text,
                candidate=state.output.completion,
            )
            output = await grader.generate(prompt, config=GenerateConfig(temperature=0.0, max_tokens=10))
            return Score(value=int(output.completion.strip()), answer=state.output.completion)

        return score

    if samples:
        from vivid_inspect.data import load_vivid

        dataset: Any = load_vivid(str(data)).dataset
    else:
        dataset = csv_dataset(str(data), FieldSpec(input="Idiom_Proverb", target="Meaning"), auto_id=True)
    return Task(
        dataset=dataset,
        solver=generate(),
        scorer=bare_judge(),
        config=GenerateConfig(temperature=0.7, max_tokens=150),
    )


def diagnostic_task(data: Path, *, cache: bool) -> Any:
    """Our task with the judge's cache forced on or off: what Inspect's cache costs per judge call."""
    from inspect_ai import task_with

    from vivid_inspect.scorers.judge import judge_scorer
    from vivid_inspect.tasks import explain

    return task_with(explain(data=str(data), judge="none"), scorer=[judge_scorer("aspect", cache=cache)])


def build_task(variant: str, data: Path) -> Any:
    """The task a variant runs."""
    from inspect_ai import task_with

    from vivid_inspect.inspect_private import registry_unqualified_name
    from vivid_inspect.tasks import explain

    if variant == "ours":
        return explain(data=str(data), judge="aspect")
    if variant == "ours-no-companion":
        # Our task less the unscored_aspect companion column: what one more scorer costs per sample.
        task = explain(data=str(data), judge="aspect")
        scorers = [s for s in task.scorer or [] if not registry_unqualified_name(s).startswith("unscored_")]
        return task_with(task, scorer=scorers)
    if variant.startswith("bare"):
        return bare_task(data, samples=variant == "bare-samples")
    return diagnostic_task(data, cache=variant == "ours-cached-judge")


def worker(variant: str, data: Path, root: Path, profile: Path | None) -> dict[str, Any]:
    """Build and run one variant in this process; return its figures."""
    started, cpu_started = time.monotonic(), cpu_seconds()
    from inspect_ai import eval

    import vivid_inspect.tasks  # noqa: F401  (imported before the clock starts, as for `inspect eval`)

    imported = time.monotonic()
    calls: Counter[str] = Counter()
    generator, grader = instant_models(calls)
    profiler = None
    if profile is not None:
        from pyinstrument import Profiler

        profiler = Profiler(async_mode="disabled")
        profiler.start()
    run_started, run_cpu = time.monotonic(), cpu_seconds()
    task = build_task(variant, data)
    (log,) = eval(
        task,
        model=generator,
        model_roles={"grader": grader},
        log_dir=str(root / "logs"),
        display="none",
        max_connections=CONNECTIONS,
        max_samples=CONNECTIONS,
        log_level="warning",
        fail_on_error=False,
    )
    wall = time.monotonic() - run_started
    cpu = cpu_seconds() - run_cpu
    if profiler is not None:
        profiler.stop()
        assert profile is not None
        profile.write_text(profiler.output_text(unicode=True, color=False, show_all=False), encoding="utf-8")
    log_files = list((root / "logs").glob("*.eval"))
    return {
        "variant": variant,
        "status": log.status,
        "samples": log.results.total_samples if log.results else 0,
        "completed": log.results.completed_samples if log.results else 0,
        "calls": dict(calls),
        "wall_s": wall,
        "cpu_s": cpu,
        "import_s": imported - started,
        "process_s": time.monotonic() - started,
        "total_cpu_s": cpu_seconds() - cpu_started,
        "peak_rss_mib": peak_rss_mib(),
        "log_mib": sum(f.stat().st_size for f in log_files) / 2**20,
    }


def _ratios(ours: list[dict[str, Any]], bare: list[dict[str, Any]], key: str) -> list[float]:
    """Ratio of each pair's figure, ours over bare (run i of ours is paired with run i of bare)."""
    return [o[key] / b[key] for o, b in zip(ours, bare, strict=True)]


def _spread(values: Sequence[float]) -> str:
    return f"median {median(values):.3f} ×, range {min(values):.3f}-{max(values):.3f} ×, pairs {', '.join(f'{v:.2f}' for v in values)}"


def measure(
    items: int, repeats: int, profile_dir: Path | None, variants: Sequence[str] = VARIANTS
) -> Section:
    """Run the variants in alternating pairs of fresh processes and compare pair by pair.

    Pair i runs every variant once, back to back; odd pairs run them in reverse order, so a load
    that rises or falls during a pair weighs on both sides alike. The judged figure is the median
    over the pairs of ours / bare in CPU time (user + system of the worker): on a machine shared
    with other work, CPU time moves far less than wall time.
    """
    section = Section(
        "overhead",
        "1. Harness overhead: explain + aspect judge vs a bare Inspect task",
        f"{items:,} items, instant mock models, max_connections {CONNECTIONS}, {repeats} alternating pair(s)",
    )
    runs: dict[str, list[dict[str, Any]]] = {variant: [] for variant in variants}
    with tempfile.TemporaryDirectory(prefix="vivid-bench-overhead-") as scratch:
        data = write_synthetic(Path(scratch) / "vivid_synthetic.csv", items)
        for repeat in range(repeats):
            order = list(variants) if repeat % 2 == 0 else list(reversed(variants))
            for variant in order:
                root = Path(scratch) / f"{variant}-{repeat}"
                args = ["--worker", variant, "--data", str(data), "--root", str(root)]
                if profile_dir is not None and repeat == 0:
                    args += ["--profile", str(profile_dir / f"overhead_{variant}.txt")]
                runs[variant].append(run_worker(Path(__file__), args, env=scratch_env(root)))
    for variant in variants:
        done = runs[variant]
        calls = done[0]["calls"]
        section.rows.append(
            {
                "variant": variant,
                "samples": done[0]["completed"],
                "generation calls": calls.get("generation", 0),
                "judge calls": calls.get("judge", 0),
                "CPU s (median)": median([r["cpu_s"] for r in done]),
                "CPU s (runs)": ", ".join(f"{r['cpu_s']:.1f}" for r in done),
                "wall s (median)": median([r["wall_s"] for r in done]),
                "wall s (runs)": ", ".join(f"{r['wall_s']:.1f}" for r in done),
                "CPU ms / item": 1000 * median([r["cpu_s"] for r in done]) / items,
                "peak RSS MiB": max(r["peak_rss_mib"] for r in done),
                "log MiB": done[0]["log_mib"],
            }
        )
    cpu_pairs = _ratios(runs["ours"], runs["bare"], "cpu_s")
    wall_pairs = _ratios(runs["ours"], runs["bare"], "wall_s")
    cpu_ratio, wall_ratio = median(cpu_pairs), median(wall_pairs)
    same_calls = runs["ours"][0]["calls"] == runs["bare"][0]["calls"] == {"generation": items, "judge": items}
    section.figures = {
        "items": items,
        "pairs": repeats,
        "cpu_ratio": cpu_ratio,
        "wall_ratio": wall_ratio,
        "cpu_pairwise_ratios": cpu_pairs,
        "wall_pairwise_ratios": wall_pairs,
        "ours_cpu_s": median([r["cpu_s"] for r in runs["ours"]]),
        "bare_cpu_s": median([r["cpu_s"] for r in runs["bare"]]),
        "ours_wall_s": median([r["wall_s"] for r in runs["ours"]]),
        "bare_wall_s": median([r["wall_s"] for r in runs["bare"]]),
        "ours_peak_rss_mib": max(r["peak_rss_mib"] for r in runs["ours"]),
        "bare_peak_rss_mib": max(r["peak_rss_mib"] for r in runs["bare"]),
        "runs": runs,
    }
    for variant in variants:
        if variant not in VARIANTS:
            section.figures[f"{variant}_cpu_ratio"] = median(_ratios(runs[variant], runs["bare"], "cpu_s"))
    section.goal(
        f"CPU time ≤ {GOAL_RATIO:.2f} × the bare task's (median of pairs)",
        _spread(cpu_pairs),
        cpu_ratio <= GOAL_RATIO,
    )
    section.goal("wall time, ours / bare (median of pairs; moves with other load)", _spread(wall_pairs), None)
    for variant in variants:
        if variant not in VARIANTS:
            section.goal(
                f"CPU time, {variant} / bare (median of pairs)",
                _spread(_ratios(runs[variant], runs["bare"], "cpu_s")),
                None,
            )
    section.goal(
        "same calls in both variants (N generation + N judge)", f"{runs['ours'][0]['calls']}", same_calls
    )
    section.goal(
        "peak RSS reported",
        f"ours {section.figures['ours_peak_rss_mib']:.0f} MiB, bare {section.figures['bare_peak_rss_mib']:.0f} MiB",
        None,
    )
    section.notes.append(
        "CPU time is user + system time of the worker process during the eval; wall time is the same "
        "span. Both cover building the task (reading and validating the CSV) and the eval call, log "
        "writing included; process start and imports are excluded (identical for both)."
    )
    return section


def main(argv: Sequence[str] | None = None) -> int:
    """Run the comparison, or one worker when ``--worker`` is given."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="200 items, one run of each (smoke check)")
    parser.add_argument("--items", type=int, default=None, help=f"items (default {FULL_ROWS})")
    parser.add_argument(
        "--repeats", type=int, default=None, help=f"alternating pairs (default {DEFAULT_PAIRS}; --quick 1)"
    )
    parser.add_argument(
        "--profile",
        nargs="?",
        const=str(REPO_DIR / "bench" / "profiles"),
        default=None,
        help="write pyinstrument profiles of the first run of each variant to this folder",
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the section as JSON here")
    parser.add_argument(
        "--variants",
        default=",".join(VARIANTS),
        help=f"comma list of variants; diagnostics: {', '.join(DIAGNOSTICS)} (default ours,bare)",
    )
    parser.add_argument("--worker", choices=(*VARIANTS, *DIAGNOSTICS), help=argparse.SUPPRESS)
    parser.add_argument("--data", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--root", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        profile = Path(args.profile) if args.profile else None
        emit(worker(args.worker, args.data, args.root, profile))
        return 0
    started = time.monotonic()
    items = args.items or (200 if args.quick else FULL_ROWS)
    repeats = args.repeats or (1 if args.quick else DEFAULT_PAIRS)
    profile_dir = Path(args.profile) if args.profile else None
    if profile_dir is not None:
        profile_dir.mkdir(parents=True, exist_ok=True)
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    unknown = [v for v in variants if v not in (*VARIANTS, *DIAGNOSTICS)]
    if unknown or not set(VARIANTS) <= set(variants):
        parser.error(
            f"--variants must include ours and bare and may add {', '.join(DIAGNOSTICS)}; got {args.variants!r}"
        )
    return finish(measure(items, repeats, profile_dir, variants), started, args.json)


if __name__ == "__main__":
    sys.exit(main())
