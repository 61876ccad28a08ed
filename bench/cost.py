"""Item 5 — cost: ``vivid plan``'s token and cost estimates against what a mock run records.

1. ``vivid plan`` of every shipped spec (``experiments/*.yaml``) as it is: calls, estimated input
   tokens, the output-token bound and the cost at the spec's prices. (Offline the ``hf`` data
   cannot be read; the plan then counts the published 1,636 items and renders the bundled
   sample's prompts, and says so.)
2. For the specs with generation and judging (``paper_generative``, ``judge_ablation``,
   ``paper_discriminative``): the same spec on N synthetic items with every model replaced by a
   fake one, planned and then run with ``vivid run`` against FakeOpenAIServer, which counts the
   tokens of every request with the GPT-4o tokenizer (``o200k_base``, offline via ``bpe-openai``).
   The plan's input estimate is compared with those recorded tokens (goal: within 15 %).
3. Provider batch mode: no shipped spec enables ``batch``, and ``vivid plan`` does not price it;
   the saving shown is the providers' published batch discount (50 % at OpenAI, Anthropic and
   Google) applied to the priced calls of each spec.

    python bench/cost.py            # N = 10 items per cell
    python bench/cost.py --quick    # N = 6
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml
from _common import REPO_DIR, Section, ServerProcess, finish, scratch_env
from synthetic import write_synthetic

GOAL_ERROR = 0.15
BATCH_DISCOUNT = 0.50
BATCH_PROVIDERS = ("openai", "anthropic", "google")
MOCK_SPECS = ("paper_generative", "judge_ablation", "paper_discriminative")
TOKENIZER = "o200k_base"
PROPOSED_CHARS_PER_TOKEN = 2.9
"""What o200k_base gives on VIVID's Vietnamese prompts (2.7-3.0 on every task and judge prompt)."""
PROPOSED_CALL_OVERHEAD = 7
"""Tokens of chat formatting per single-message call (OpenAI's accounting: 3 per message + 3 + role)."""


def _chars_per_token() -> float:
    from vivid_inspect.lab.usage_events import CHARS_PER_TOKEN as value

    return float(value)


def plan_totals(spec_path: Path) -> dict[str, Any]:
    """Plan a spec in this process; totals per role and the batch saving on priced calls."""
    from vivid_inspect.lab.runner.plan import make_plan
    from vivid_inspect.lab.runner.spec.load import load_spec

    started = time.monotonic()
    plan = make_plan(load_spec(spec_path))
    seconds = time.monotonic() - started
    roles: dict[str, dict[str, float]] = {}
    batchable = 0.0
    for total in plan.totals():
        tally = roles.setdefault(total.role, {"calls": 0, "input_tokens": 0, "output_tokens": 0, "cost": 0.0})
        tally["calls"] += total.calls
        tally["input_tokens"] += total.input_tokens
        tally["output_tokens"] += total.output_tokens
        tally["cost"] += total.cost or 0.0
        if total.cost and total.model.split("/", 1)[0] in BATCH_PROVIDERS:
            batchable += total.cost
    return {
        "seconds": seconds,
        "roles": roles,
        "cost": sum(r["cost"] for r in roles.values()),
        "batch_saving": batchable * BATCH_DISCOUNT,
        "batch_enabled": bool(plan.loaded.spec.batch),
        "notes": plan.notes,
    }


def mock_spec(shipped: dict[str, Any], data: Path, log_dir: Path, items: int) -> dict[str, Any]:
    """The shipped spec on ``items`` synthetic items, with fake models (one per run block)."""
    spec = {key: value for key, value in shipped.items() if key not in ("human", "batch")}
    spec.update(name=f"{shipped['name']}_mock", data=str(data), log_dir=str(log_dir))
    runs = []
    for index, block in enumerate(shipped["runs"]):
        first = block["models"][0]
        entry: dict[str, Any] = {"model": f"openai-api/fake/gen-{index}"}
        if isinstance(first, dict) and first.get("price"):
            entry["price"] = first["price"]
        copy = {k: v for k, v in block.items() if k not in ("models", "limit", "sample_ids", "sample")}
        runs.append({**copy, "models": [entry], "sample": {"n": items, "by": "theme", "seed": 0}})
    spec["runs"] = runs
    spec["judges"] = [
        {k: v for k, v in judge.items() if k != "model_args"} | {"model": f"openai-api/fake/judge-{i}"}
        for i, judge in enumerate(shipped.get("judges", []))
    ]
    spec["concurrency"] = {"max_connections": 64}
    return spec


def recorded_by_role(stats: dict[str, Any]) -> dict[str, dict[str, int]]:
    """The server's per-model calls and token tallies, summed per role (``gen-*``, ``judge-*``)."""
    roles: dict[str, dict[str, int]] = {}
    for model, calls in stats["model_counts"].items():
        tally = stats["tokens"].get(model, {"input_tokens": 0, "output_tokens": 0})
        role = "judge" if model.startswith("judge") else "generation"
        into = roles.setdefault(role, {"calls": 0, "input_tokens": 0, "output_tokens": 0})
        into["calls"] += calls
        into["input_tokens"] += tally["input_tokens"]
        into["output_tokens"] += tally["output_tokens"]
    return roles


def measure(items: int) -> Section:
    """Plan the shipped specs, then plan and run the mock versions and compare."""
    section = Section(
        "cost",
        "5. Cost: `vivid plan` estimates against recorded tokens",
        f"shipped specs planned as they are; mock runs on {items} synthetic items per cell, tokens counted "
        f"at the server with {TOKENIZER}",
    )
    shipped_paths = sorted((REPO_DIR / "experiments").glob("*.yaml"))
    for path in shipped_paths:
        totals = plan_totals(path)
        roles = totals["roles"]
        section.rows.append(
            {
                "spec (as shipped)": path.stem,
                "calls": int(sum(r["calls"] for r in roles.values())),
                "est. input tokens": int(sum(r["input_tokens"] for r in roles.values())),
                "output-token bound": int(sum(r["output_tokens"] for r in roles.values())),
                "est. cost USD": round(totals["cost"], 2),
                "batch in spec": "yes" if totals["batch_enabled"] else "no",
                "saving with batch USD": round(totals["batch_saving"], 2),
                "plan s": round(totals["seconds"], 1),
            }
        )
        section.figures[f"plan:{path.stem}"] = totals
    comparisons: list[dict[str, Any]] = []
    chars_per_token = _chars_per_token()
    with tempfile.TemporaryDirectory(prefix="vivid-bench-cost-") as scratch_dir:
        scratch = Path(scratch_dir)
        data = write_synthetic(scratch / "vivid_synthetic.csv")
        with ServerProcess(latency=0.0, tokenizer=TOKENIZER) as server:
            env = {**scratch_env(scratch), **server.env()}
            for name in MOCK_SPECS:
                shipped = yaml.safe_load(
                    (REPO_DIR / "experiments" / f"{name}.yaml").read_text(encoding="utf-8")
                )
                spec_path = scratch / f"{name}_mock.yaml"
                spec_path.write_text(
                    yaml.safe_dump(mock_spec(shipped, data, scratch / name, items), sort_keys=False)
                )
                estimate = plan_totals(spec_path)
                server.reset()
                done = subprocess.run(
                    [
                        sys.executable,
                        "-m",
                        "vivid_inspect.lab.cli.main",
                        "run",
                        str(spec_path),
                        "--display",
                        "none",
                        "--no-report",
                    ],
                    capture_output=True,
                    text=True,
                    env={**os.environ, **env},
                    timeout=900,
                )
                if done.returncode != 0:
                    section.notes.append(
                        f"mock run of {name} exited {done.returncode}: {done.stderr.strip()[-500:]}"
                    )
                recorded = recorded_by_role(server.stats())
                for role, planned in estimate["roles"].items():
                    got = recorded.get(role, {"calls": 0, "input_tokens": 0, "output_tokens": 0})
                    error = (
                        planned["input_tokens"] / got["input_tokens"] - 1
                        if got["input_tokens"]
                        else float("nan")
                    )
                    proposed = planned["input_tokens"] * chars_per_token / PROPOSED_CHARS_PER_TOKEN
                    proposed += PROPOSED_CALL_OVERHEAD * planned["calls"]
                    proposed_error = (
                        proposed / got["input_tokens"] - 1 if got["input_tokens"] else float("nan")
                    )
                    comparisons.append(
                        {
                            "mock spec": name,
                            "role": role,
                            "planned calls": int(planned["calls"]),
                            "calls at server": got["calls"],
                            "est. input tokens": int(planned["input_tokens"]),
                            "recorded input tokens": got["input_tokens"],
                            "input error": f"{error:+.1%}",
                            f"error at {PROPOSED_CHARS_PER_TOKEN} chars/token + {PROPOSED_CALL_OVERHEAD}/call": f"{proposed_error:+.1%}",
                            "output bound": int(planned["output_tokens"]),
                            "recorded output tokens": got["output_tokens"],
                            "_error": error,
                        }
                    )
    for row in comparisons:
        error = row.pop("_error")
        section.goal(
            f"{row['mock spec']} {row['role']}: input estimate within {GOAL_ERROR:.0%} of recorded",
            f"{row['est. input tokens']:,} vs {row['recorded input tokens']:,} ({error:+.1%})",
            abs(error) <= GOAL_ERROR,
        )
        section.goal(
            f"{row['mock spec']} {row['role']}: output bound ≥ recorded",
            f"{row['output bound']:,} ≥ {row['recorded output tokens']:,}",
            row["output bound"] >= row["recorded output tokens"],
        )
    section.figures["comparisons"] = comparisons
    section.extra_tables.append(
        (
            "Mock runs: the plan of each mock spec against the tokens the server counted, per role:",
            comparisons,
        )
    )
    section.notes.append(
        f"Batch: no shipped spec sets `batch`, and `vivid plan` prices every call at the list price; the "
        f"saving column applies the providers' {BATCH_DISCOUNT:.0%} batch discount to priced calls of "
        f"{', '.join(BATCH_PROVIDERS)} models."
    )
    section.notes.append(
        f"The plan estimates input at {chars_per_token} characters per token without chat formatting; "
        f"o200k_base gives 2.7-3.0 on VIVID's Vietnamese prompts. The last error column is the same plan "
        f"rescaled to {PROPOSED_CHARS_PER_TOKEN} characters per token plus {PROPOSED_CALL_OVERHEAD} tokens per call."
    )
    section.notes.append(
        "Output tokens in the plan are max_tokens per call, an upper bound; the mock's replies are short, "
        "so recorded output is far below it, as a real run's usually is."
    )
    return section


def main(argv: Sequence[str] | None = None) -> int:
    """Run the cost comparison."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="6 items per mock cell (smoke check)")
    parser.add_argument("--items", type=int, default=None, help="items per mock cell (default 10)")
    parser.add_argument("--json", type=Path, default=None, help="also write the section as JSON here")
    args = parser.parse_args(argv)
    started = time.monotonic()
    items = args.items or (6 if args.quick else 10)
    return finish(measure(items), started, args.json)


if __name__ == "__main__":
    sys.exit(main())
