"""Shared test set-up: logs and Inspect's model cache go to temporary folders.

A private cache per test keeps replies cached by an earlier run (or by the user's own work in
``~/.cache``) from answering a test's model calls, and keeps tests from touching the user's cache.
"""

from __future__ import annotations

import contextlib
import gc
import io
import itertools
import os
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import inspect_ai._eval.task.log as inspect_task_log
import inspect_ai._util.zipfile as inspect_zipfile
import pytest
import rich.console

PAID_API_KEYS = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GOOGLE_API_KEY",
    "GEMINI_API_KEY",
    "AZURE_OPENAI_API_KEY",
    "AZUREAI_OPENAI_API_KEY",
    "MISTRAL_API_KEY",
    "TOGETHER_API_KEY",
    "GROQ_API_KEY",
    "OPENROUTER_API_KEY",
)


def pytest_configure(config: pytest.Config) -> None:
    """Ctrl-C (SIGINT) interrupts the tests and the processes they start, as in a terminal.

    A shell starts a background command (``cmd &`` in a script, without job control) with SIGINT
    ignored, and every process started from it inherits that: the Ctrl-C tests
    (tests/lab/cli/test_interrupt.py) then waited 150 s each for a ``vivid run`` that could not be
    interrupted, and failed. Restored in the pytest process (and its workers) before anything starts.
    """
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _print_unless_quiet(print_: Callable[..., None]) -> Callable[..., None]:
    def print_unless_quiet(console: rich.console.Console, *args: Any, **kwargs: Any) -> None:
        if not console.quiet:
            print_(console, *args, **kwargs)

    return print_unless_quiet


# rich lays out everything printed to a quiet console (Inspect's display "none") and only then
# throws it away: in-process evals spent about a fifth of their CPU measuring Inspect's results
# table for nothing. A quiet console now returns at once; it still prints and records nothing
# (tests/test_quiet_console.py).
rich.console.Console.print = _print_unless_quiet(rich.console.Console.print)  # type: ignore[method-assign]


def _no_realtime_buffer(**kwargs: Any) -> None:
    return None


# Inspect copies each running sample's events into a SQLite database for live viewing in `inspect
# view` (its realtime buffer): about a fifth of the CPU of an in-process eval in these tests, which
# never view a run while it is going. Without it a task logger takes the path of Inspect's
# `log_realtime=False`, and its logs hold the same samples, scores and events
# (tests/test_inspect_shortcuts.py); the recorded config is unchanged. Commands the tests run as
# processes keep the buffer.
if not hasattr(inspect_task_log, "SampleBufferDatabase"):
    raise RuntimeError("Inspect's task logger has no SampleBufferDatabase now: update tests/conftest.py")
inspect_task_log.SampleBufferDatabase = _no_realtime_buffer  # type: ignore[attr-defined,assignment]

# Inspect compresses each member of a log with a zstd compressor of 12 threads, started anew for every
# member: for the tests' small members, starting them costs ten times the compression (0.74 against
# 0.07 ms on 2 cores). One thread writes the same members (tests/test_inspect_shortcuts.py).
if getattr(inspect_zipfile, "_ZSTD_THREADS", None) != 12:
    raise RuntimeError("Inspect's log compressor no longer starts 12 threads: update tests/conftest.py")
inspect_zipfile._ZSTD_THREADS = 0  # type: ignore[attr-defined]


# The suite builds a great many short-lived objects (Inspect's events, pydantic models, log rows); at
# Python's default threshold the cyclic collector ran every 700 allocations and took about a tenth of
# the suite's CPU. Objects are still freed when their last reference goes; only cycles wait longer.
gc.set_threshold(50_000, 20, 20)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Take what collection built (modules, Inspect, pandas, the test items) out of the collector's reach.

    Those objects live as long as the worker; every later full collection walked them again.
    """
    gc.freeze()


# The periodic progress line (vivid_inspect/lab/ticker.py) would add a line to what a slow run
# prints, at a time that depends on the machine's load; the tests that check it set their own.
os.environ["VIVID_PROGRESS_SECONDS"] = "0"


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto`` (pyproject.toml): one pytest-xdist worker per core, and one more for a run with the slow tests.

    About a fifth of the suite's time is spent waiting (servers that answer late, real timeouts and
    back-offs, subprocesses starting): with a worker per core, a core sat idle whenever its worker
    waited. The extra worker fills those waits (on 2 cores, 7 min 10 s became 6 min 13 s; README.md).
    """
    cores = len(os.sched_getaffinity(0))
    # The quick run (-m "not slow") leaves out the tests that wait: there an extra worker only adds
    # its own start-up and collection (60 s against 61 s for the quick run on 2 cores).
    return cores if "not slow" in (config.getoption("markexpr") or "") else cores + 1


# Modules holding a test or a fixture that takes about 7 s or more on an idle machine (the run's
# --durations): they are handed out first, so that they overlap with the many short files instead of
# ending the run on one worker while the others have nothing left (pyproject.toml's --dist loadfile
# then gives each worker the next file as it finishes one). Whole modules move, keeping their
# module-scoped fixtures built once; a test's place changes nothing else. A path that no longer
# exists is simply not matched.
LONG_FIRST = (
    "tests/test_fail_fast.py",  # `inspect eval` on a closed port with the real back-off: 43 s
    "tests/test_first_contact_cli.py",  # 14 `inspect eval` processes in its module fixture
    "tests/lab/humans/test_human_binding.py",  # builds the session's offline_job (below)
    "tests/test_local_recipe.py",
    "tests/lab/report/test_judge_repeats.py",
    "tests/lab/humans/test_annotate_lock.py",
    "tests/lab/report/test_report_generations.py",
    "tests/lab/runner/test_stalled_calls.py",
    "tests/lab/runner/test_reliability_runner.py",
    "tests/lab/runner/test_run_output.py",
    "tests/lab/humans/annotate/test_annotate_browser.py",
    "tests/lab/runner/test_runner.py",
    "tests/lab/audit/test_audit_run.py",
    "tests/test_doc_commands.py",
    "tests/lab/runner/test_run_lock.py",
    "tests/lab/cli/test_interrupt.py",
    # files of many shorter tests, 12-25 s in all: handed out late, one would end the run alone
    "tests/test_unreadable_replies.py",
    "tests/lab/report/reading/test_report_crafted.py",
    "tests/lab/self_preference/test_self_preference.py",
    "tests/lab/humans/annotate/test_annotate_server.py",
    "tests/lab/report/reading/test_report_copies.py",
    "tests/lab/audit/test_audit_cli.py",
    "tests/lab/audit/test_sanity.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the LONG_FIRST modules first, in that order; every other test keeps its place."""
    rank = {path: place for place, path in enumerate(LONG_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(LONG_FIRST)))


_TESTS = itertools.count()
_MEMOIZED: list[Any] = []


@pytest.fixture(autouse=True)
def _isolated_logs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    # Folders of this test alone, made only by what writes into them: most tests write nothing, and
    # three empty folders for each of ~8,000 tests cost a minute to delete when pytest clears an old
    # session's temporary folder (rmdir is slow on some file systems).
    own = tmp_path_factory.getbasetemp() / "isolated" / str(next(_TESTS))
    monkeypatch.setenv("INSPECT_LOG_DIR", str(own / "logs"))
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(own / "inspect-cache"))
    # vivid's own output root (vivid_inspect.lab.output_root): a command left to its defaults
    # writes there, not into the folder the tests run from.
    monkeypatch.setenv("VIVID_OUTPUT_DIR", str(own / "vivid-out"))
    monkeypatch.delenv("VIVID_DATA", raising=False)
    # No test may reach a paid API, even on a machine whose environment holds real keys.
    for key in PAID_API_KEYS:
        monkeypatch.delenv(key, raising=False)
    # Inspect memoizes get_model() per process, not per environment: a model an earlier test built
    # with a key set would answer a later test that removed it (tests/test_model_memo_isolation.py).
    memo: dict[str, Any] = {}
    monkeypatch.setattr("inspect_ai.model._model._models", memo)
    yield
    # Kept for the worker's life, as Inspect's memo keeps them: dropped, their open connections were
    # closed by the collector during a later test, with a ResourceWarning that was not that test's.
    _MEMOIZED.extend(memo.values())


@pytest.fixture
def no_retry_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inspect retries a failed model call as often as before, without its 3, 6, 12 s back-off.

    For tests about what a call that runs out of retries says, not about how long the retries take
    (tests/test_fail_fast.py times the real back-off in a subprocess): the waits alone cost a test
    20-60 s of real time and checked nothing.
    """
    from inspect_ai.model._model import ModelAPI
    from tenacity import wait_none

    monkeypatch.setattr(ModelAPI, "retry_wait", lambda self: wait_none())


@pytest.fixture(scope="session")
def offline_job(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The README's offline main job (`vivid run offline`), run once per session: its folder and what it printed.

    Shared by the modules that read that folder (tests/lab/cli/test_offline_job.py,
    tests/lab/humans/test_human_binding.py), whichever worker runs them; a test that changes the
    folder works on a copy (``shutil.copytree``).
    """
    from tests.once import once_per_session
    from vivid_inspect.lab.cli.main import main

    def build(folder: Path) -> None:
        printed, said = io.StringIO(), io.StringIO()
        # As a user runs it after a plain install: the bundled spec, from a folder with no checkout;
        # the checkout's experiments/offline.yaml is the same spec (tests/lab/cli/test_bundled_spec.py).
        with (
            pytest.MonkeyPatch.context() as patch,
            contextlib.redirect_stdout(printed),
            contextlib.redirect_stderr(said),
        ):
            patch.chdir(folder)
            patch.setenv("INSPECT_LOG_DIR", str(folder / "inspect-logs"))
            patch.setenv("INSPECT_CACHE_DIR", str(folder / "inspect-cache"))
            patch.delenv("VIVID_OUTPUT_DIR", raising=False)  # the default output root, as the README shows
            code = main(["run", "offline"])
        output = printed.getvalue() + said.getvalue()
        assert code == 0, output
        (folder / "printed.txt").write_text(output, encoding="utf-8")

    folder = once_per_session(tmp_path_factory, "offline-job", build)
    return folder / "vivid-out" / "offline", (folder / "printed.txt").read_text(encoding="utf-8")
