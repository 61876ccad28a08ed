"""Shared pieces of the bench scripts: machine facts, peak memory, workers, the fake server, results.

Every measurement that matters runs in a fresh worker process (``python bench/X.py --worker ...``)
so that its peak RSS is its own and no memoized model, cache or import survives from one variant
into the next. A worker prints one line ``BENCH_JSON {...}``; :func:`run_worker` reads it back.

The fake OpenAI-compatible server runs in a process of its own (:class:`ServerProcess`): in the
eval's process its HTTP threads would compete with the event loop for the GIL and the benchmark
would measure that contention, not the harness.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Literal

BENCH_DIR = Path(__file__).resolve().parent
REPO_DIR = BENCH_DIR.parent
JSON_MARK = "BENCH_JSON "
GIB = 1024**3

# --------------------------------------------------------------------------- machine and memory


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def _git(*args: str) -> str:
    try:
        done = subprocess.run(["git", *args], cwd=REPO_DIR, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def machine_info() -> dict[str, Any]:
    """Machine, versions, commit and date, for the head of the results file."""
    import psutil

    dirty = bool(_git("status", "--porcelain"))
    commit = _git("rev-parse", "--short", "HEAD")
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{_cpu_model()}, {os.cpu_count()} cores, {psutil.virtual_memory().total / GIB:.0f} GiB RAM",
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "inspect_ai": _version("inspect_ai"),
        "vivid_inspect": _version("vivid-inspect"),
        "openai": _version("openai"),
        "pandas": _version("pandas"),
        "pyarrow": _version("pyarrow"),
        "commit": f"{commit}{' + uncommitted changes' if dirty else ''}" if commit else "unknown",
    }


def peak_rss_mib() -> float:
    """Peak resident memory of this process so far, in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_seconds() -> float:
    """User + system CPU time of this process so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# --------------------------------------------------------------------------- workers


def emit(result: Mapping[str, Any]) -> None:
    """Print a worker's result as the one line :func:`run_worker` reads."""
    print(JSON_MARK + json.dumps(result, ensure_ascii=False), flush=True)


def run_worker(
    script: Path | str,
    args: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    timeout: float = 900.0,
) -> dict[str, Any]:
    """Run ``python SCRIPT ARGS`` in a fresh process and return the dict it emitted.

    Raises:
        RuntimeError: The worker failed or emitted nothing; the message has its stderr tail.
    """
    command = [sys.executable, str(script), *args]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=timeout, env={**os.environ, **(env or {})}
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith(JSON_MARK)]
    if done.returncode != 0 or not lines:
        tail = "\n".join((done.stderr or done.stdout).splitlines()[-40:])
        raise RuntimeError(f"worker {' '.join(command[1:])} failed (exit {done.returncode}):\n{tail}")
    return dict(json.loads(lines[-1][len(JSON_MARK) :]))


def scratch_env(root: Path) -> dict[str, str]:
    """Environment that keeps Inspect's logs and cache inside ``root`` (never the user's)."""
    return {
        "INSPECT_LOG_DIR": str(root / "logs"),
        "INSPECT_CACHE_DIR": str(root / "cache"),
        "INSPECT_DISPLAY": "none",
        "INSPECT_LOG_LEVEL": "warning",
        "VIVID_CACHE_DIR": str(root / "vivid-cache"),
    }


@contextmanager
def environ(values: Mapping[str, str]) -> Iterator[None]:
    """Set environment variables for the block, then restore the old values."""
    old = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in old.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def median(values: Sequence[float]) -> float:
    """Median of a non-empty sequence."""
    return float(statistics.median(values))


# --------------------------------------------------------------------------- mock replies

EXPLANATION = (
    "Câu này khuyên người ta phải biết ơn những ai đã giúp đỡ mình, sống có trước có sau, "
    "không quên gốc gác; thường dùng để nhắc nhở con cháu giữ gìn đạo lý của ông cha."
)
"""What every mock generator answers: a plausible explanation of about 40 words."""

COT_VERDICT = "Lời giải thích nắm đúng ý chính và sắc thái của câu.\nĐiểm: 4"
BARE_VERDICT = "4"


def judge_reply(prompt: str) -> str:
    """A valid verdict in the format the judge prompt asks for (CoT ends with ``Điểm: N``)."""
    return COT_VERDICT if "Điểm: N" in prompt else BARE_VERDICT


def words(text: str) -> int:
    """Whitespace words, the mock models' stand-in for tokens."""
    return len(text.split())


def server_responder(model: str, messages: list[dict[str, Any]]) -> str:
    """FakeOpenAIServer responder: model ids starting with ``judge`` judge, the others explain.

    An explanation ends with a tag drawn from the model and prompt, so two generators (or two
    prompt styles) never give the same text and the judge cache cannot merge their judgements,
    as it could not with real models sampling at temperature 0.7.
    """
    from vivid_inspect.testing.openai_server import last_user_text

    prompt = last_user_text(messages)
    if model.startswith("judge"):
        return judge_reply(prompt)
    return f"{EXPLANATION} (#{zlib.crc32(f'{model}|{prompt}'.encode()) % 10_000})"


# --------------------------------------------------------------------------- the fake server process


def _count_tokens_with(encoding_name: str) -> Callable[[bool], dict[str, dict[str, int]]]:
    """Make the fake server report real token counts (and tally them per model).

    FakeOpenAIServer reports whitespace words as tokens. For the cost comparison the usage must
    be what a provider would bill, so its usage helpers are replaced in the server process by an
    offline BPE tokenizer (``bpe-openai``, the GPT-4o family's ``o200k_base``) with OpenAI's
    documented chat accounting: 3 tokens per message plus 3 to prime the reply.
    """
    import threading

    import bpe_openai

    from vivid_inspect.testing import openai_server

    encoding = bpe_openai.get_encoding(encoding_name)
    lock = threading.Lock()
    totals: dict[str, dict[str, int]] = {}
    original = openai_server._completion

    def prompt_tokens(messages: list[dict[str, Any]]) -> int:
        return 3 + sum(
            3 + len(encoding.encode(str(m.get("content", "")))) for m in messages if isinstance(m, dict)
        )

    def completion(id: str, model: str, answer: str, prompt: int) -> dict[str, Any]:
        body = original(id, model, answer, prompt)
        output = len(encoding.encode(answer))
        body["usage"] = {
            "prompt_tokens": prompt,
            "completion_tokens": output,
            "total_tokens": prompt + output,
        }
        with lock:
            tally = totals.setdefault(model, {"input_tokens": 0, "output_tokens": 0})
            tally["input_tokens"] += prompt
            tally["output_tokens"] += output
        return body

    openai_server._words = prompt_tokens  # type: ignore[assignment]
    openai_server._completion = completion  # type: ignore[assignment]

    def snapshot(reset: bool = False) -> dict[str, dict[str, int]]:
        with lock:
            copy = {model: dict(tally) for model, tally in totals.items()}
            if reset:
                totals.clear()
            return copy

    return snapshot


def _serve(latency: float | dict[str, float], conn: Connection, tokenizer: str | None = None) -> None:
    from vivid_inspect.testing.openai_server import FakeOpenAIServer

    tokens = _count_tokens_with(tokenizer) if tokenizer else (lambda reset=False: {})
    server = FakeOpenAIServer(responder=server_responder, latency=latency, models=("gen", "judge"))
    with server:
        conn.send(server.base_url)
        while True:
            command, arg = conn.recv()
            if command == "stop":
                conn.send(None)
                return
            if command == "reset":
                server.reset()
                tokens(True)
                conn.send(None)
            elif command == "latency":
                server.latency = arg
                conn.send(None)
            elif command == "stats":
                log = server.log
                prompts = server.prompt_counts
                conn.send(
                    {
                        "model_counts": server.model_counts,
                        "calls": sum(server.model_counts.values()),
                        "distinct_prompts": len(prompts),
                        "repeated_prompts": sum(1 for n in prompts.values() if n > 1),
                        "errors": sum(1 for r in log if r.status != 200),
                        "peak_in_flight": _peak_in_flight([(r.started, r.finished) for r in log]),
                        "tokens": tokens(False),
                    }
                )


def _peak_in_flight(spans: Sequence[tuple[float, float]]) -> int:
    events = sorted([(start, 1) for start, _ in spans] + [(end, -1) for _, end in spans])
    peak = current = 0
    for _, step in events:
        current += step
        peak = max(peak, current)
    return peak


class ServerProcess:
    """FakeOpenAIServer in a child process, driven over a pipe.

    Args:
        latency: Seconds per 200 reply, one number or per model id (``gen``, ``judge``, ``*``).
        tokenizer: Report usage in tokens of this encoding (``o200k_base``) instead of words,
            and tally it per model (see :func:`_count_tokens_with`).
    """

    def __init__(self, latency: float | dict[str, float] = 0.0, tokenizer: str | None = None) -> None:
        self._latency = latency
        self._tokenizer = tokenizer
        self._conn: Connection | None = None
        self._process: multiprocessing.process.BaseProcess | None = None
        self.base_url = ""

    def __enter__(self) -> ServerProcess:
        context = multiprocessing.get_context("spawn")
        parent, child = context.Pipe()
        self._process = context.Process(
            target=_serve, args=(self._latency, child, self._tokenizer), daemon=True
        )
        self._process.start()
        self._conn = parent
        deadline = time.monotonic() + 60
        while not parent.poll(0.1):
            if not self._process.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(
                    f"the fake server process did not start (exit code {self._process.exitcode})"
                )
        self.base_url = parent.recv()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._conn is not None and self._process is not None and self._process.is_alive():
            self._call("stop")
        if self._process is not None:
            self._process.join(10)
            if self._process.is_alive():
                self._process.kill()

    def _call(self, command: str, arg: Any = None) -> Any:
        assert self._conn is not None, "the server process is not running"
        self._conn.send((command, arg))
        return self._conn.recv()

    def stats(self) -> dict[str, Any]:
        """Calls per model, distinct and repeated prompts, errors, peak requests in flight."""
        return dict(self._call("stats"))

    def reset(self) -> None:
        """Forget counts and the request log."""
        self._call("reset")

    def set_latency(self, latency: float | dict[str, float]) -> None:
        """Change the per-reply latency while the server runs."""
        self._call("latency", latency)

    def env(self, service: str = "fake") -> dict[str, str]:
        """Environment for Inspect's ``openai-api/<service>/<model>`` provider."""
        name = service.upper().replace("-", "_")
        return {f"{name}_BASE_URL": self.base_url, f"{name}_API_KEY": "fake-key"}


# --------------------------------------------------------------------------- results

Status = Literal["met", "missed", "info"]


@dataclass
class Goal:
    """One goal of the issue and how the run did against it."""

    goal: str
    measured: str
    status: Status


@dataclass
class Section:
    """What one bench script reports: a table of figures, the goals and notes."""

    name: str
    title: str
    mode: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    goals: list[Goal] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    figures: dict[str, Any] = field(default_factory=dict)
    extra_tables: list[tuple[str, list[dict[str, Any]]]] = field(default_factory=list)
    seconds: float = 0.0
    load: str = ""

    def __post_init__(self) -> None:
        self.load = self.load or load_average()

    def goal(self, goal: str, measured: str, met: bool | None) -> None:
        """Record a goal; ``met=None`` marks a figure that has no pass/fail line."""
        self.goals.append(Goal(goal, measured, "info" if met is None else "met" if met else "missed"))

    def to_json(self) -> dict[str, Any]:
        """Plain data for results.json."""
        return asdict(self)

    def markdown(self) -> str:
        """The section as Markdown: heading, table, goals, notes."""
        lines = [
            f"## {self.title}",
            "",
            f"Mode: {self.mode}; script time {self.seconds:.0f} s; {self.load}.",
            "",
        ]
        lines += _table(self.rows)
        for title, rows in self.extra_tables:
            lines += [title, "", *_table(rows)]
        if self.goals:
            lines += ["| goal | measured | status |", "| --- | --- | --- |"]
            marks = {"met": "met", "missed": "**missed**", "info": "—"}
            lines += [f"| {g.goal} | {g.measured} | {marks[g.status]} |" for g in self.goals]
            lines.append("")
        lines += [f"- {note}" for note in self.notes]
        return "\n".join(lines).rstrip() + "\n"

    def text(self) -> str:
        """The section for the console."""
        return self.markdown()


def _table(rows: list[dict[str, Any]]) -> list[str]:
    if not rows:
        return []
    columns = list(dict.fromkeys(key for row in rows for key in row))
    lines = ["| " + " | ".join(columns) + " |", "|" + " --- |" * len(columns)]
    lines += ["| " + " | ".join(_cell(row.get(c, "")) for c in columns) + " |" for row in rows]
    return [*lines, ""]


def load_average() -> str:
    """The 1-minute load average, to show how busy the machine was."""
    try:
        return f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    except OSError:
        return "load average unknown"


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.2f}" if abs(value) < 100 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value).replace("|", "\\|")


def finish(section: Section, started: float, json_path: Path | None) -> int:
    """Print the section, write it as JSON when asked; exit code 1 when a goal was missed."""
    section.seconds = time.monotonic() - started
    section.load = f"{section.load} at start, {load_average()} at end" if section.load else load_average()
    print(section.text())
    if json_path is not None:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(
            json.dumps(section.to_json(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
    return 1 if any(goal.status == "missed" for goal in section.goals) else 0
