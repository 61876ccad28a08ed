"""``python -m vivid_inspect.testing``: the project's OpenAI-compatible test server, for users.

Serves [`FakeOpenAIServer`][vivid_inspect.testing.openai_server.FakeOpenAIServer] on 127.0.0.1 with the
scripted model under test and judge of [`vivid_inspect.testing.scripted`][vivid_inspect.testing.scripted], until Ctrl-C, so an
experiment written for a served open-weight judge (``openai-api/<service>/<model>``) runs with no
key, no GPU and no network::

    python -m vivid_inspect.testing                     # http://127.0.0.1:8321/v1 until Ctrl-C
    export LOCAL_BASE_URL=http://127.0.0.1:8321/v1 LOCAL_API_KEY=local
    vivid run experiments/judge_ablation_local.yaml

The first line printed names the URL (``--port 0`` picks a free port), the second the variables
that point ``openai-api/<service>/...`` at it. Exit codes: 0 stopped by Ctrl-C (or SIGTERM), 2 the
port is taken or out of range, or the data cannot be read.
"""

from __future__ import annotations

import argparse
import re
import signal
import sys
import threading
from collections.abc import Sequence
from types import FrameType

from vivid_inspect.text import printable

DEFAULT_PORT = 8321
MAX_PORT = 65535
DEFAULT_MODELS = ("generator", "judge")
DEFAULT_SERVICE = "local"
PROG = "python -m vivid_inspect.testing"


def _port(text: str) -> int:
    """A port as digits 0-9 only: ``int()`` would also take ``٣٣٠٨٧`` or ``８０８０``."""
    if not re.fullmatch(r"-?[0-9]+", text, re.ASCII):  # a sign is left to the range check
        raise argparse.ArgumentTypeError(f"{text!r} is not a port: give 0 to {MAX_PORT} in the digits 0-9")
    return int(text)


def build_parser() -> argparse.ArgumentParser:
    """The command line of the test server."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Serve an OpenAI-compatible chat API on 127.0.0.1 whose every model answers VIVID "
        "prompts from a script: as the model under test for task prompts, as a judge (every strategy, "
        "in the format its parser reads, scored by chrF against the reference) for judge prompts. "
        "No key, no network. Ctrl-C stops it.",
    )
    parser.add_argument(
        "--port", type=_port, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0 picks a free one)"
    )
    parser.add_argument(
        "--data",
        default="sample",
        help="the data the prompts' items come from, as the spec's data: (default: sample, offline)",
    )
    parser.add_argument(
        "--model",
        action="append",
        dest="models",
        metavar="NAME",
        help=f"a model name GET /v1/models lists, repeatable (default: {', '.join(DEFAULT_MODELS)}); "
        "every model answers the same way",
    )
    parser.add_argument(
        "--service",
        default=DEFAULT_SERVICE,
        help=f"the service name of the printed variables, as in openai-api/<service>/<model> "
        f"(default: {DEFAULT_SERVICE})",
    )
    return parser


def _say(line: str) -> None:
    print(f"{PROG}: {line}", file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    """Serve until Ctrl-C.

    Args:
        argv: Arguments without the program name; None reads ``sys.argv``.

    Returns:
        The exit code: 0 stopped, 2 the port is taken or out of range, or the data cannot be read.
    """
    args = build_parser().parse_args(argv)
    if not 0 <= args.port <= MAX_PORT:
        _say(f"--port {args.port} is not a port: give 0 to {MAX_PORT} (0 picks a free one)")
        return 2
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]{0,39}", args.service, re.ASCII):
        _say(
            f"--service {printable(args.service)!r} cannot name a variable: use letters, digits, '_' and '-'"
        )
        return 2
    unprintable = [name for name in args.models or () if printable(name) != name or not name.strip()]
    if unprintable:
        _say(
            f"--model {printable(unprintable[0])!r} holds a control character or nothing; name a model in plain text"
        )
        return 2
    from vivid_inspect.data import VividDataError, load_items
    from vivid_inspect.testing.openai_server import FakeOpenAIServer
    from vivid_inspect.testing.scripted import ScriptedPeer

    try:
        source, items = load_items(args.data)
    except VividDataError as error:
        _say(f"the data cannot be used: {error}")
        return 2
    peer = ScriptedPeer(
        items,
        on_unknown=lambda idiom: _say(
            f"{idiom!r} is not in {source}; answered that it does not know. Start the server with "
            "--data set as the spec's data:"
        ),
    )
    models = args.models or list(DEFAULT_MODELS)
    server = FakeOpenAIServer(responder=peer, models=models, port=args.port)
    try:
        server.start()
    except OSError as error:
        _say(
            f"cannot listen on 127.0.0.1:{args.port} ({error.strerror or error}); give another --port (0 picks a free one)"
        )
        return 2
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        _say(f"serving {server.base_url} (models: {', '.join(models)}; items from {source}); Ctrl-C stops it")
        env = " ".join(f"{name}={value}" for name, value in server.env(args.service).items())
        print(f"export {env}", flush=True)
        while not stop.wait(0.5):  # a timed wait, so the signal handler always gets to run
            pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        server.stop()
    counts = server.model_counts
    asked = ", ".join(f"{model} {n}" for model, n in sorted(counts.items())) or "none"
    _say(f"stopped after {sum(counts.values())} chat requests ({asked})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
