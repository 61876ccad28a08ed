"""Start the annotation server: open the folder, print each annotator's URL, serve until stopped."""

from __future__ import annotations

import socket
import sys
from typing import TextIO

import uvicorn

from vivid_inspect.lab.humans.annotate.app import create_app
from vivid_inspect.lab.humans.annotate.workspace import Workspace

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


def bind(host: str, port: int) -> socket.socket:
    """A listening socket (port 0 picks a free one), bound before the URLs are printed.

    Raises:
        OSError: The port is taken or the host cannot be bound.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    # A restart right after a kill must get the same port (and so the same URLs) back.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def urls(workspace: Workspace, host: str, port: int) -> dict[str, str]:
    """Each annotator's URL (with their token)."""
    shown = f"[{host}]" if ":" in host else host
    return {
        name: f"http://{shown}:{port}/?t={workspace.url_token(name)}" for name in workspace.plan.annotators
    }


def announce(workspace: Workspace, host: str, port: int, out: TextIO = sys.stdout) -> None:
    """Print what is served and each annotator's URL (each URL holds that annotator's token)."""
    plan = workspace.plan
    print(
        f"vivid annotate serve: {workspace.description()} for {len(plan.annotators)} annotator(s), "
        f"{plan.overlap} shared; files in {workspace.folder}",
        file=out,
    )
    for name, url in urls(workspace, host, port).items():
        annotator = workspace.annotators[name]
        print(f"  {name}: {url}   ({annotator.done}/{len(annotator.queue)} done)", file=out)
    if host not in LOOPBACK:
        print(
            f"warning: listening on {host}, not only this machine: anyone who can reach it and has a URL "
            "can score (over plain HTTP)",
            file=out,
        )
    print(
        f"Every score is saved as it is given. When an annotator finishes, {workspace.written()} "
        "for `vivid report --human`. Ctrl+C stops the server; start it again the same way to continue.",
        file=out,
        flush=True,
    )


def serve(workspace: Workspace, sock: socket.socket) -> None:
    """Serve the workspace on a bound socket until interrupted."""
    config = uvicorn.Config(create_app(workspace), log_level="warning", access_log=False, lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])
