"""Endpoints that fail on 127.0.0.1, for the endpoint check's tests: each shape a dead endpoint takes.

- :func:`closed_port`: nothing listens (connection refused);
- :class:`StatusServer`: every request answered with one HTTP status and message (401, 404, 500);
- :class:`SilentServer`: the connection opens, the request is sent, no answer ever comes.

FakeOpenAIServer (``vivid_inspect.testing.openai_server``) covers the shapes of a working server
that refuses a key or does not list a model.
"""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["SilentServer", "StatusServer", "closed_port"]


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _answer(self) -> None:
        owner = self.server.owner
        with owner.lock:
            owner.requests.append(f"{self.command} {self.path}")
        body = json.dumps({"error": {"message": owner.message, "type": "injected"}}).encode()
        self.send_response(owner.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._answer()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._answer()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: StatusServer


class StatusServer:
    """Answers every request with ``status`` and an OpenAI-style error ``message``; records requests.

    Args:
        status: The HTTP status of every answer.
        message: The error message in the body.
    """

    def __init__(self, status: int, message: str = "injected failure") -> None:
        self.status = status
        self.message = message
        self.lock = threading.Lock()
        self.requests: list[str] = []
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> StatusServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


class SilentServer:
    """A port that accepts connections (the kernel's backlog) and never answers a request."""

    def __init__(self) -> None:
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(64)
        self.base_url = f"http://127.0.0.1:{self._socket.getsockname()[1]}/v1"

    def __enter__(self) -> SilentServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self._socket.close()
