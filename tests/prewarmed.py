"""Run the ``inspect`` and ``vivid`` commands in a fork of a process that has already imported them.

Starting Python and importing Inspect's command line costs ~1.8 s of CPU per command. A test that
checks what a command prints and the code it exits with, but not how a fresh interpreter starts,
can run it with `run` instead of ``subprocess.run``: the command still runs in a process of its
own (its own exit code, stdout, stderr, working folder, environment and ``sys.argv``), forked from
a server that imported Inspect's command line (``inspect_ai._cli.main``) once per pytest worker.
Keep a real ``subprocess`` for what a fork cannot show: signals and Ctrl-C, a killed process, what
a fresh interpreter imports, the documentation's commands run by the shell as written.

Only Inspect's command line and the three modules Inspect imports at the start of every eval are
imported before the fork (``PRELOAD``: the latter save ~1 s of CPU per run). Nothing of
``vivid_inspect`` is, so that Inspect still finds the package's tasks, scorers and models through its
entry point, as in a fresh process (``vivid``'s own command line imports in a few hundredths of a
second). What the preload imports reads no variable at import time that a test sets (only
``TEXTUAL_*``, ``*_NO_EXTENSIONS``, ``OTEL_*``, the ``openai`` module's defaults for its own
module-level client, which Inspect does not use, and the like), so keys, URLs, ``INSPECT_*``,
``VIVID_*``, ``HF_ENDPOINT`` and ``COLUMNS`` are read after the fork, from the environment given.
The server refuses to start if the preload ever imports one of ``NOT_PRELOADED``.

Usage (the same call replaces ``subprocess.run([vivid, ...], capture_output=True, text=True)``)::

    from tests.prewarmed import run

    done = run([str(Path(sys.executable).with_name("vivid")), "plan", spec], cwd=tmp, env=env, timeout=300)
    assert done.returncode == 2, done.stderr

This file is also the server (``python tests/prewarmed.py SOCKET``), so it imports nothing from
``tests`` or the package at module level.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import io
import json
import locale
import os
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

PROGRAMS = {"inspect": ("inspect_ai._cli.main", "main"), "vivid": ("vivid_inspect.lab.cli.main", "main")}
PRELOAD = (
    "inspect_ai._cli.main",
    # imported by every eval on its first run in a process (Inspect's agent protocol, OpenAI types, the
    # control server): ~0.6, 0.4 and 0.1 s of CPU that each fork would otherwise spend again
    "inspect_ai.agent._acp.server",
    "inspect_ai.model._openai_responses",
    "fastapi",
)
# The package (found through its entry point), and modules that read at import time a variable
# that tests set (HF_ENDPOINT): each fork imports them itself.
NOT_PRELOADED = ("vivid_inspect", "huggingface_hub", "datasets")
_HEADER = struct.Struct("!I")


# -- the client: one call per command ----------------------------------------------------------------

_lock = threading.Lock()
_server: tuple[subprocess.Popen[bytes], str] | None = None


def _socket_path() -> str:
    """This worker's server (started on first use, stopped when the worker exits)."""
    global _server
    with _lock:
        if _server is None or _server[0].poll() is not None:
            folder = tempfile.mkdtemp(prefix="vivid-prewarmed-")
            path = os.path.join(folder, "socket")
            process = subprocess.Popen(
                [sys.executable, __file__, path],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                env={key: value for key, value in os.environ.items() if key != "PYTEST_CURRENT_TEST"},
            )
            assert process.stdout is not None
            ready = process.stdout.readline()  # the server prints "ready" once it listens
            assert ready == b"ready\n", f"the prewarmed server did not start: {ready!r}"
            atexit.register(_stop, process, folder)
            _server = (process, path)
        return _server[1]


def _stop(process: subprocess.Popen[bytes], folder: str) -> None:
    process.kill()
    process.wait()
    shutil.rmtree(folder, ignore_errors=True)


def _decode(handle: io.BufferedRandom) -> str:
    handle.seek(0)
    # as subprocess.run(text=True) decodes: the locale's encoding, universal newlines
    return io.TextIOWrapper(handle, encoding=locale.getpreferredencoding(False)).read()


def run(
    args: Sequence[str],
    *,
    cwd: str | os.PathLike[str],
    env: Mapping[str, str],
    timeout: float,
    merge_stderr: bool = False,
) -> subprocess.CompletedProcess[str]:
    """What ``subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)`` returns.

    Args:
        args: The command: the ``inspect`` or ``vivid`` console script (by name or path), then its arguments.
        cwd: Its working folder.
        env: Its whole environment.
        timeout: Seconds before it is killed and ``subprocess.TimeoutExpired`` raised.
        merge_stderr: Send stderr into stdout (``stderr=subprocess.STDOUT``); ``stderr`` is then None.

    Returns:
        Its exit code (``-N`` when killed by signal N) and what it wrote, decoded as text.
    """
    program = Path(args[0]).name
    assert program in PROGRAMS, f"{program}: only {sorted(PROGRAMS)} run prewarmed"
    request = json.dumps(
        {"program": program, "args": list(args[1:]), "cwd": os.fspath(cwd), "env": dict(env)}
    ).encode()
    with (
        open(os.devnull, "rb") as stdin,
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection,
    ):
        connection.connect(_socket_path())
        fds = [stdin.fileno(), out.fileno(), (out if merge_stderr else err).fileno()]
        socket.send_fds(connection, [_HEADER.pack(len(request)) + request], fds)
        reader = connection.makefile("rb")
        pid = int(reader.readline())
        connection.settimeout(timeout)
        try:
            status = reader.readline()
        except TimeoutError:
            os.kill(pid, signal.SIGKILL)
            raise subprocess.TimeoutExpired(list(args), timeout) from None
        returncode = int(status)
        return subprocess.CompletedProcess(
            list(args), returncode, _decode(out), None if merge_stderr else _decode(err)
        )


# -- the server: forks one child per request -----------------------------------------------------------


def _receive(connection: socket.socket) -> tuple[dict[str, object], list[int]]:
    data, fds, _, _ = socket.recv_fds(connection, 1 << 16, 3)
    (size,) = _HEADER.unpack_from(data)
    while len(data) < _HEADER.size + size:
        more = connection.recv(1 << 16)
        assert more, "the client closed the connection mid-request"
        data += more
    return json.loads(data[_HEADER.size : _HEADER.size + size]), fds


def _writer(fd: int, unbuffered: bool, **options: Any) -> io.TextIOWrapper:
    raw = io.FileIO(fd, "wb", closefd=False)
    return io.TextIOWrapper(
        raw if unbuffered else io.BufferedWriter(raw), write_through=unbuffered, **options
    )


def _child(request: dict[str, object], fds: list[int]) -> None:
    """In the fork: become the command's process, run its entry point, exit as its console script does."""
    import importlib

    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    env = dict(request["env"])  # type: ignore[call-overload]
    os.environ.clear()
    os.environ.update(env)
    os.chdir(str(request["cwd"]))
    # sys.std* as Python makes them at start-up for files: stdout block-buffered, stderr
    # line-buffered, both unbuffered under PYTHONUNBUFFERED
    unbuffered = bool(env.get("PYTHONUNBUFFERED"))
    encoding, errors = sys.stdout.encoding, sys.stdout.errors
    sys.stdin = sys.__stdin__ = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, closefd=False)), encoding)
    sys.stdout = sys.__stdout__ = _writer(1, unbuffered, encoding=encoding, errors=errors)
    sys.stderr = sys.__stderr__ = _writer(
        2, unbuffered, encoding=encoding, errors="backslashreplace", line_buffering=True
    )
    program = str(request["program"])
    sys.argv = [str(Path(sys.executable).with_name(program)), *request["args"]]  # type: ignore[misc]
    importlib.invalidate_caches()
    module, name = PROGRAMS[program]
    entry = getattr(importlib.import_module(module), name)
    sys.exit(entry())  # the console script's own line: the interpreter then exits as usual


def serve(path: str) -> None:
    """Import the command lines, listen on ``path``, fork a child per request and report its exit code."""
    parent = os.getppid()
    # a console script's sys.path[0] is its own folder, not this file's
    sys.path[0] = str(Path(sys.executable).parent)
    for module in PRELOAD:
        __import__(module)
    # Python's advice for a process that forks without exec: the preloaded objects move out of the
    # collector's reach, so no fork's collections walk them again (tests/test_first_contact_cli.py and
    # tests/test_prewarmed.py: 25 s of CPU became 13 s).
    gc.freeze()
    early = [name for name in NOT_PRELOADED if name in sys.modules]
    assert not early, f"importing {PRELOAD} imported {early}: the forks would not import them afresh"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    print("ready", flush=True)
    waiting: dict[int, socket.socket] = {}
    while os.getppid() == parent:  # as long as the pytest worker that started it runs
        # a child's end is seen within 0.05 s; idle, the server wakes once a second
        readable, _, _ = select.select([listener], [], [], 0.05 if waiting else 1.0)
        if readable:
            connection, _ = listener.accept()
            request, fds = _receive(connection)
            pid = os.fork()
            if pid == 0:
                listener.close()
                connection.close()
                for other in waiting.values():
                    other.close()
                _child(request, fds)
            for fd in fds:
                os.close(fd)
            connection.sendall(b"%d\n" % pid)
            waiting[pid] = connection
        while waiting:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            connection = waiting.pop(pid)
            with contextlib.suppress(OSError):  # the client gave up (timeout) and closed its end
                connection.sendall(b"%d\n" % os.waitstatus_to_exitcode(status))
            connection.close()
    # a worker that ends without running its atexit hooks leaves the folder to this process
    shutil.rmtree(os.path.dirname(path), ignore_errors=True)


if __name__ == "__main__":
    serve(sys.argv[1])
