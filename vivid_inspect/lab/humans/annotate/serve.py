"""Start the annotation server: open the folder, print each annotator's URL, serve until stopped."""

from __future__ import annotations

import asyncio
import socket
import sys
from typing import Any, TextIO

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from vivid_inspect.lab.humans.annotate.app import create_app
from vivid_inspect.lab.humans.annotate.workspace import Workspace

LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
REQUEST_TIMEOUT = 10.0
"""Seconds a connection has to send a whole request (line, headers and body) before it is closed."""
KEEP_ALIVE = 5
"""Seconds an idle connection stays open between requests."""
MAX_HEADERS = 16 * 1024
"""Bytes of request line and headers; more gets 400 (h11's own default, said here)."""
MAX_CONNECTIONS = 100
"""Open connections at once; a request past them gets 503 at once, so held connections cannot starve
the annotators (a team of a few people keeps a handful open)."""


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


class _Deadline(H11Protocol):
    """uvicorn's h11 protocol with a deadline to receive each request.

    uvicorn times out idle keep-alive connections but not a request being received, so a client
    that sends its headers a byte at a time held a connection for as long as it liked (300 such
    connections were held for 45 s). Here the request must be whole within ``deadline`` seconds
    of the connection or of the previous response, or the connection is closed.
    """

    deadline = REQUEST_TIMEOUT

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._timer: asyncio.TimerHandle | None = None

    def _watch(self) -> None:
        """Arm the deadline while a request is awaited or arriving; disarm once it is whole."""
        receiving = self.conn.their_state in (h11.IDLE, h11.SEND_BODY)
        if receiving and self._timer is None and not self.transport.is_closing():
            self._timer = self.loop.call_later(self.deadline, self._expire)
        elif not receiving and self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _expire(self) -> None:
        self._timer = None
        if self.conn.their_state in (h11.IDLE, h11.SEND_BODY) and not self.transport.is_closing():
            self.transport.close()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._watch()

    def handle_events(self) -> None:
        super().handle_events()
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        super().connection_lost(exc)


def serve(workspace: Workspace, sock: socket.socket) -> None:
    """Serve the workspace on a bound socket until interrupted."""
    server(workspace).run(sockets=[sock])


def server(
    workspace: Workspace, request_timeout: float = REQUEST_TIMEOUT, max_connections: int = MAX_CONNECTIONS
) -> uvicorn.Server:
    """The server of the workspace (run it with ``.run(sockets=[sock])``).

    Args:
        workspace: The annotation folder.
        request_timeout: Seconds a connection has to send a whole request.
        max_connections: Open connections at once before a request gets 503.
    """
    config = uvicorn.Config(
        create_app(workspace),
        log_level="warning",
        access_log=False,
        lifespan="off",
        http=type("Deadline", (_Deadline,), {"deadline": request_timeout}),
        timeout_keep_alive=KEEP_ALIVE,
        h11_max_incomplete_event_size=MAX_HEADERS,
        limit_concurrency=max_connections,
    )
    return uvicorn.Server(config)
