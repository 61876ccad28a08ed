"""A local OpenAI-compatible chat-completions server for tests, bench scripts and users' judge checks.

Which requests fail is decided by a fault plan from [`vivid_inspect.testing.faults`][vivid_inspect.testing.faults]; this
module decides what each fault kind looks like on the wire.

Runs go through Inspect's real ``openai-api`` provider: the model ``openai-api/fake/<name>`` reads
``FAKE_BASE_URL`` and ``FAKE_API_KEY`` (the service part of the name, upper-cased), so a run needs
no code path of its own::

    from vivid_inspect.testing.faults import fail_fraction
    from vivid_inspect.testing.openai_server import FakeOpenAIServer

    with FakeOpenAIServer(latency={"gen": 1.0, "judge": 0.3}) as server:
        os.environ.update(server.env())  # FAKE_BASE_URL, FAKE_API_KEY
        server.faults = fail_fraction(0.2, kinds=["rate_limit", "server_error"], seed=0)
        eval(task, model="openai-api/fake/gen", max_connections=64)
        print(server.model_counts, len(server.log))

Inspect memoizes ``get_model()`` on its arguments, not on the environment: a process that starts a
second server (on another port) must pass ``model_base_url=server.base_url`` to ``eval`` or the
memoized client keeps calling the first, stopped one.

Every request is served on its own thread and latency is slept there, so 64 concurrent connections
each see the configured latency rather than queueing behind one another. Latency applies to 200
replies only; error statuses and dropped connections answer at once, as real rate limiters do.

Two retry layers sit between a fault and a sample error: the OpenAI SDK retries 429, 5xx, dropped
connections and client timeouts itself (2 retries by default, honouring ``Retry-After``; set
``model_args={"max_retries": 0}`` to turn it off), and Inspect then retries by
``GenerateConfig(max_retries=..., timeout=...)`` with an exponential wait that starts at 3 s.

Request headers are never read beyond ``Content-Length``, ``Transfer-Encoding`` (refused: bodies are
read by length only) and ``Authorization`` (compared with
``api_key`` when one is required, never stored) and nothing is logged: the dummy API key a client
sends cannot leak from here.
"""

from __future__ import annotations

import json
import re
import socket
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from vivid_inspect.testing.faults import Fault, FaultKind, FaultPlan
from vivid_inspect.text import has_lone_surrogate, nfc, unique_keys

_FAULT_STATUS: dict[str, int] = {"rate_limit": 429, "server_error": 500, "unavailable": 503}


class _Refused(ValueError):
    """JSON that parses in Python but that a real API refuses: a repeated key, NaN or Infinity."""


_unique_keys = partial(unique_keys, refuse=lambda key: _Refused(f"the key {key!r} is given twice"))


def _no_constant(name: str) -> Any:
    raise _Refused(f"{name} is not a JSON number")


DEFAULT_ANSWER = "This is a scripted answer."
_TRUNCATED_BODY = b'{"id": "chatcmpl-fake", "object": "chat.completion", "choices": [{"mess'
# Stands for the bytes an invalid_utf8 reply puts in its answer: a stray continuation byte, a byte
# UTF-8 never uses, and a lead byte cut short.
_NOT_UTF8_MARK = "\ue000"
_NOT_UTF8_BYTES = b"\x80\xff\xe2\x82"
DUMMY_API_KEY = "fake-key"
MAX_BODY = 8 * 2**20
"""Bytes of a request body this server reads; a longer one gets 413 unread."""
READ_TIMEOUT = 60.0
"""Seconds the body of a request may take to arrive (one shorter than its ``Content-Length``)."""
_DIGITS = re.compile(r"[0-9]+", re.ASCII)  # int() would take " 5", "+5", "5_0" and other scripts' digits

Responder = Callable[[str, list[dict[str, Any]]], str]


@dataclass(frozen=True)
class RequestRecord:
    """What the server did with one chat request; times are `time.monotonic()` seconds."""

    index: int
    model: str
    prompt: str
    status: int | None  # None: closed without a response (a drop, or a sleep cut by stop())
    fault: FaultKind | None
    started: float
    finished: float


def last_user_text(messages: list[dict[str, Any]]) -> str:
    """Text of the last user message (string content or the text parts of a list), '' if none."""
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, list):
                return "".join(
                    p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
                )
            return ""
    return ""


_ECHOED_HEADERS = ("authorization", "proxy-authorization", "x-api-key", "api-key", "cookie", "x-gateway-key")


def _echo_auth(handler: BaseHTTPRequestHandler) -> tuple[int, dict[str, Any], dict[str, str]]:
    """A 500 that quotes the request's credential headers back (the echo_auth fault)."""
    echoed = "; ".join(
        f"{name}: {value}" for name, value in handler.headers.items() if name.lower() in _ECHOED_HEADERS
    )
    return 500, _error_body(f"upstream rejected the request (headers: {echoed})", "server_error"), {}


def _error_body(message: str, kind: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "code": kind}}


def _completion(id: str, model: str, answer: str, prompt_tokens: int) -> dict[str, Any]:
    message = {"role": "assistant", "content": answer}
    completion_tokens = len(answer.split())
    return {
        "id": id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def _words(messages: list[dict[str, Any]]) -> int:
    return sum(len(str(m.get("content", "")).split()) for m in messages if isinstance(m, dict))


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # the default backlog of 5 refuses bursts of 64 new connections
    owner: FakeOpenAIServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that timed out, or a connection dropped on purpose, is expected. Anything else
        # is a bug of this server: one line saying so, never a traceback on the user's terminal.
        error = sys.exc_info()[1]
        if not isinstance(error, OSError):
            print(f"FakeOpenAIServer: a request failed: {type(error).__name__}: {error}", file=sys.stderr)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, so bench clients reuse connections
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        pass  # never log: request lines and headers stay out of every output

    def setup(self) -> None:
        super().setup()
        self.server.owner._track(self.connection, add=True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.owner._track(self.connection, add=False)

    def send_json(self, status: int, body: dict[str, Any] | bytes, headers: Mapping[str, str] = {}) -> None:
        if isinstance(body, bytes):
            data = body
        else:
            try:
                data = json.dumps(body, ensure_ascii=False).encode()
            except UnicodeEncodeError:
                # a lone surrogate is not UTF-8: send it as a JSON "\ud800" escape, as a buggy
                # provider does, so tests can see what a client makes of it
                data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def send_error_json(self, status: int, message: str, kind: str) -> None:
        self.send_json(status, _error_body(message, kind))

    def authorised(self) -> bool:
        """Whether the request carries the required key; answers 401 when it does not."""
        required = self.server.owner.api_key
        if required is None or self.headers.get("Authorization") == f"Bearer {required}":
            return True
        self.server.owner._count_refused()
        self.send_error_json(401, "Incorrect API key provided.", "invalid_api_key")
        return False

    def do_GET(self) -> None:
        self.server.owner._count_get(self.path)
        if not self.authorised():
            return
        if self.path.rstrip("/") == "/v1/models":
            created = int(time.time())
            data = [
                {"id": m, "object": "model", "created": created, "owned_by": "fake"}
                for m in self.server.owner.models
            ]
            self.send_json(200, {"object": "list", "data": data})
        else:
            self.send_error_json(404, f"no route GET {self.path}", "not_found")

    def refuse(self, status: int, message: str) -> None:
        """A 4xx that closes the connection: the request's unread bytes would be read as the next one."""
        self.close_connection = True
        with suppress(OSError):  # the client may be gone already
            self.send_json(status, _error_body(message, "invalid_request_error"), {"Connection": "close"})

    def read_body(self) -> bytes | None:
        """The request body as ``Content-Length`` says, or None once a 4xx has refused it."""
        if "Transfer-Encoding" in self.headers:
            self.refuse(411, "send the body with a Content-Length; a Transfer-Encoding (chunked) is not read")
            return None
        lengths = set(self.headers.get_all("Content-Length") or ["0"])
        said = next(iter(lengths))
        if len(lengths) > 1 or not _DIGITS.fullmatch(said):
            shown = " and ".join(sorted(repr(value[:20]) for value in lengths))
            self.refuse(400, f"Content-Length must be one whole number of bytes, not {shown}")
            return None
        if len(said) > 12 or int(said) > MAX_BODY:
            self.refuse(413, f"a request body of {said[:20]} bytes is over the {MAX_BODY} this server reads")
            return None
        length = int(said)
        raw = b""
        # Only the body's read is timed: an idle keep-alive connection is the client's to close,
        # and closing it here could race a client's next request on it.
        self.connection.settimeout(self.server.owner.read_timeout)
        with suppress(TimeoutError):
            raw = self.rfile.read(length)
        self.connection.settimeout(None)
        if len(raw) < length:
            self.refuse(
                400, f"the request body ended after {len(raw)} of its {length} bytes (Content-Length)"
            )
            return None
        return raw

    def do_POST(self) -> None:
        raw = self.read_body()
        if raw is None or not self.authorised():
            return
        if self.path.rstrip("/") != "/v1/chat/completions":
            self.send_error_json(404, f"no route POST {self.path}", "not_found")
            return
        try:
            body = json.loads(raw, object_pairs_hook=_unique_keys, parse_constant=_no_constant)
        except _Refused as refused:  # a repeated key, NaN or Infinity: JSON that a real API refuses too
            self.send_error_json(400, f"request body: {refused}", "invalid_request_error")
            return
        except (ValueError, RecursionError):  # not JSON or not UTF-8; nested past Python's recursion
            self.send_error_json(400, "request body is not JSON", "invalid_request_error")
            return
        if has_lone_surrogate(json.dumps(body, ensure_ascii=False)):  # "\ud800": no UTF-8 text holds it
            self.send_error_json(
                400, "request body holds a lone surrogate (\\ud800-\\udfff)", "invalid_request_error"
            )
            return
        model, messages = (body.get("model"), body.get("messages")) if isinstance(body, dict) else ("", "")
        if (
            not isinstance(model, str)
            or not isinstance(messages, list)
            or not all(isinstance(message, dict) for message in messages)
        ):
            message = "needs a JSON object with a string 'model' and a list of objects 'messages'"
            self.send_error_json(400, message, "invalid_request_error")
        elif body.get("stream"):
            message = "FakeOpenAIServer does not stream; send stream=false (Inspect: -M stream=false)"
            self.send_error_json(400, message, "invalid_request_error")
        else:
            self.server.owner._serve_chat(self, model, messages)


class FakeOpenAIServer:
    """OpenAI-compatible chat server on 127.0.0.1, started and stopped by its context manager.

    `responder`, `latency` and `faults` are read on every request, so a test may change them
    while the server runs.

    Args:
        responder: Returns the answer for (model, messages); an exception becomes a 500.
        latency: Seconds each 200 reply waits: one number for all models, or per model, where the
            key ``"*"`` covers models not named.
        faults: Fault plan consulted per request (`vivid_inspect.testing.faults`: `fail_fraction`, `fail_first`, ...).
        models: Model ids listed by ``GET /v1/models``.
        port: Port to bind; 0 picks a free one.
        api_key: When set, every request without ``Authorization: Bearer <api_key>`` gets a 401
            (a wrong or revoked key).
        read_timeout: Seconds a request body may take to arrive; one shorter than its
            ``Content-Length`` then gets 400 and the connection is closed.
    """

    def __init__(
        self,
        responder: Responder | None = None,
        latency: float | Mapping[str, float] = 0.0,
        faults: FaultPlan | None = None,
        *,
        models: Sequence[str] = ("gen", "judge"),
        port: int = 0,
        api_key: str | None = None,
        read_timeout: float = READ_TIMEOUT,
    ) -> None:
        self.responder: Responder = responder or (lambda model, messages: DEFAULT_ANSWER)
        self.latency = latency
        self.faults = faults
        self.models = list(models)
        self.api_key = api_key
        self.read_timeout = read_timeout
        self._port = port
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._connections: dict[socket.socket, threading.Thread] = {}
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.reset()

    def start(self) -> FakeOpenAIServer:
        """Bind and serve in a background thread; returns self."""
        if self._httpd is not None:
            raise RuntimeError("FakeOpenAIServer is already running")
        self._stopping.clear()
        self._httpd = _HTTPServer(("127.0.0.1", self._port), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, wake sleeping handlers, close every connection and free the port."""
        if self._httpd is None:
            return
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        with self._lock:
            open_connections = dict(self._connections)
        for conn in open_connections:
            with suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)  # ends keep-alive reads in handler threads
        # handlers finish promptly once woken, so the log is complete when stop() returns
        for thread in open_connections.values():
            thread.join(timeout=5.0)
        assert self._thread is not None
        self._thread.join()
        self._httpd, self._thread = None, None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The bound port (only while running)."""
        if self._httpd is None:
            raise RuntimeError("FakeOpenAIServer is not running")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``, the OpenAI client's base URL."""
        return f"http://127.0.0.1:{self.port}/v1"

    def env(self, service: str = "fake") -> dict[str, str]:
        """Environment that points Inspect's ``openai-api/<service>/<model>`` at this server."""
        name = service.upper().replace("-", "_")
        return {f"{name}_BASE_URL": self.base_url, f"{name}_API_KEY": DUMMY_API_KEY}

    def reset(self) -> None:
        """Forget counts and the log (request indices start again at 0)."""
        with self._lock:
            self._next_index = 0
            self._by_model: Counter[str] = Counter()
            self._by_prompt: Counter[str] = Counter()
            self._log: list[RequestRecord] = []
            self._gets: Counter[str] = Counter()
            self._refused = 0

    @property
    def get_counts(self) -> dict[str, int]:
        """GET requests received per path (``/v1/models``), refused ones included."""
        with self._lock:
            return dict(self._gets)

    @property
    def refused(self) -> int:
        """Requests answered 401 for a missing or wrong key."""
        with self._lock:
            return self._refused

    def _count_get(self, path: str) -> None:
        with self._lock:
            self._gets[path] += 1

    def _count_refused(self) -> None:
        with self._lock:
            self._refused += 1

    @property
    def model_counts(self) -> dict[str, int]:
        """Chat requests received per model, faulted ones included."""
        with self._lock:
            return dict(self._by_model)

    @property
    def prompt_counts(self) -> dict[str, int]:
        """Chat requests received per prompt (NFC last user message text), faults included."""
        with self._lock:
            return dict(self._by_prompt)

    @property
    def log(self) -> list[RequestRecord]:
        """Answered chat requests, in the order their replies were decided (before each is sent)."""
        with self._lock:
            return list(self._log)

    def records(self, prompt: str | None = None, model: str | None = None) -> list[RequestRecord]:
        """Log entries for one prompt and/or model, in order of arrival."""
        chosen = [
            r
            for r in self.log
            if (prompt is None or r.prompt == nfc(prompt)) and (model is None or r.model == model)
        ]
        return sorted(chosen, key=lambda r: r.started)

    def _track(self, conn: socket.socket, *, add: bool) -> None:
        with self._lock:
            if add:
                self._connections[conn] = threading.current_thread()
            else:
                self._connections.pop(conn, None)

    def _latency_for(self, model: str) -> float:
        if isinstance(self.latency, Mapping):
            return float(self.latency.get(model, self.latency.get("*", 0.0)))
        return float(self.latency)

    def _serve_chat(self, handler: _Handler, model: str, messages: list[dict[str, Any]]) -> None:
        started = time.monotonic()
        prompt = nfc(last_user_text(messages))
        with self._lock:
            index = self._next_index
            self._next_index += 1
            self._by_model[model] += 1
            self._by_prompt[prompt] += 1
        plan = self.faults
        fault = plan(index, model, prompt) if plan is not None else None
        if fault is not None and fault.kind == "echo_auth":
            reply: tuple[int, dict[str, Any] | bytes, dict[str, str]] | None = _echo_auth(handler)
        else:
            reply = self._reply(index, model, messages, fault)
        # logged before the reply leaves, so a client that has its answer also finds it in the log
        status = reply[0] if reply is not None else None
        record = RequestRecord(
            index, model, prompt, status, fault.kind if fault else None, started, time.monotonic()
        )
        with self._lock:
            self._log.append(record)
        if reply is None:
            handler.close_connection = True
            with suppress(OSError):
                handler.connection.shutdown(socket.SHUT_RDWR)
            return
        try:
            if fault is not None and fault.kind in ("stall", "trickle"):
                self._send_stalled(handler, fault, reply[1])
            else:
                handler.send_json(*reply)
        except OSError:
            handler.close_connection = True  # the client gave up (timed out) before the reply

    def _send_stalled(self, handler: _Handler, fault: Fault, body: dict[str, Any] | bytes) -> None:
        """Headers of a 200, then silence (``stall``) or one byte at a time (``trickle``)."""
        data = body if isinstance(body, bytes) else json.dumps(body, ensure_ascii=False).encode()
        handler.close_connection = True
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.flush()
        if fault.kind == "stall":
            self._stopping.wait(fault.delay)
            return
        for i in range(len(data)):
            if self._stopping.wait(fault.interval):
                return
            handler.wfile.write(data[i : i + 1])
            handler.wfile.flush()

    def _reply(
        self, index: int, model: str, messages: list[dict[str, Any]], fault: Fault | None
    ) -> tuple[int, dict[str, Any] | bytes, dict[str, str]] | None:
        """The (status, body, headers) to send, or None to drop the connection."""
        kind = fault.kind if fault else None
        if fault is not None and fault.kind in _FAULT_STATUS:
            wait = fault.retry_after
            headers = {"Retry-After": f"{wait:g}"} if wait is not None else {}
            return (
                _FAULT_STATUS[fault.kind],
                _error_body(f"injected fault: {fault.kind}", fault.kind),
                headers,
            )
        if kind == "drop":
            return None
        try:
            answer = "" if kind == "empty" else self.responder(model, messages)
        except Exception as ex:  # a broken responder must show up in the test, not hang the client
            return 500, _error_body(f"responder failed: {ex!r}", "server_error"), {}
        wait = self._latency_for(model) + (fault.delay if fault and kind == "slow" else 0.0)
        if wait > 0 and self._stopping.wait(wait):
            return None  # stopping: do not hold shutdown up behind a sleep
        if kind == "invalid_json":
            return 200, _TRUNCATED_BODY, {}
        if kind == "empty_body":
            return 200, b"", {}
        completion = _completion(f"chatcmpl-fake-{index}", model, answer, _words(messages))
        if kind == "no_choices":
            return 200, completion | {"choices": []}, {}
        if kind == "invalid_utf8":
            completion["choices"][0]["message"]["content"] = f"{answer}{_NOT_UTF8_MARK}"
            body = json.dumps(completion, ensure_ascii=False).encode()
            return 200, body.replace(_NOT_UTF8_MARK.encode(), _NOT_UTF8_BYTES), {}
        return 200, completion, {}
