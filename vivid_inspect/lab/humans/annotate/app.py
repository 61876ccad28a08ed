"""The HTTP application of ``vivid annotate serve`` (Starlette, which Inspect already installs).

Safety rules, each enforced here for every request:

- **A token on every request.** Each annotator has a random token, given in their URL
  (``/?t=TOKEN``); the page sends it back with each call (header ``X-Vivid-Token``). A request
  without a valid token gets 403, whatever its path, before any routing.
- **No files by path.** The only files served are the page's three assets, looked up by exact
  name in a fixed table and read from the installed package; a request can name no other file, and
  a score request writes only its annotator's own sheet (and the human scores file derived from
  the finished sheets).
- **Validated on the server.** A score is a JSON integer 0-5 for an item of the annotator's queue;
  anything else gets 400 with the reason: a body that is not one flat JSON object with exactly
  the request's keys, each once (nested arrays or objects of any depth, wrong types, numbers of any size),
  before it can reach the JSON parser's recursion or a long repr. Bodies over a few kilobytes get
  413. No request body, however crafted, gets a 500.
- **Saved, or said not to be.** A score or undo that cannot be written (a full disk, a read-only
  folder) gets 500 with ``error`` saying so and ``saved`` (False: nothing changed, in memory or
  on disk); the page shows it and reloads what the server holds.
- **Nothing executable from the data.** The page inserts every text with ``textContent``, and a
  Content-Security-Policy allows scripts from this server only (no inline script, no CDN).
"""

from __future__ import annotations

import json
from importlib.resources import files
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from vivid_inspect.lab.humans.annotate.workspace import SaveError, ScoreError, Workspace
from vivid_inspect.text import RepeatedKey, unique_keys

TOKEN_HEADER = "x-vivid-token"
MAX_BODY = 4096
MAX_DEPTH = 1
"""How deep a request body nests: a request is one flat object of numbers."""
ASSETS: dict[str, str] = {"app.js": "text/javascript; charset=utf-8", "app.css": "text/css; charset=utf-8"}
_SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    # The token is in the page's URL: never send it to another site as a referrer.
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
}
FORBIDDEN = (
    "403 forbidden: open the URL that `vivid annotate serve` printed for you (it carries your token)\n"
)


def _asset(name: str) -> str:
    return (files("vivid_inspect.lab.humans.annotate") / "static" / name).read_text(encoding="utf-8")


class TokenGate:
    """ASGI middleware: 403 for any HTTP request without a valid token; the annotator goes into the scope."""

    def __init__(self, app: ASGIApp, workspace: Workspace) -> None:
        self.app = app
        self.workspace = workspace

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse the request with 403, or pass it on with its annotator in ``scope["state"]``."""
        if scope["type"] != "http":
            if scope["type"] == "lifespan":
                await self.app(scope, receive, send)
            return
        request = Request(scope)
        token = request.headers.get(TOKEN_HEADER) or request.query_params.get("t") or ""
        name = self.workspace.annotator_of(token) if token else None
        if name is None:
            response = PlainTextResponse(FORBIDDEN, status_code=403, headers=_SECURITY_HEADERS)
            await response(scope, receive, send)
            return
        scope.setdefault("state", {})["annotator"] = name
        scope["state"]["token"] = token
        await self.app(scope, receive, send)


def create_app(workspace: Workspace) -> ASGIApp:
    """The application serving one workspace.

    Args:
        workspace: The annotation folder and its annotators.

    Returns:
        An ASGI application (run it with uvicorn).
    """
    page = _asset("index.html")
    assets = {name: _asset(name) for name in ASSETS}

    async def index(request: Request) -> Response:
        # The token is the caller's own, already checked; it is URL-safe base64, safe in an attribute.
        html = page.replace("__TOKEN__", request.state.token)
        return Response(html, media_type="text/html; charset=utf-8", headers=_SECURITY_HEADERS)

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in assets:
            return PlainTextResponse("404 not found\n", status_code=404, headers=_SECURITY_HEADERS)
        return Response(assets[name], media_type=ASSETS[name], headers=_SECURITY_HEADERS)

    async def state(request: Request) -> Response:
        # A state request has no body; one that sends a body anyway gets it checked like any other.
        if (
            request.headers.get("content-length", "0") not in ("", "0")
            or "transfer-encoding" in request.headers
        ):
            body = await _body(request, keys=set())
            if isinstance(body, Response):
                return body
        return _json(await run_in_threadpool(workspace.state, request.state.annotator))

    async def score(request: Request) -> Response:
        body = await _body(request, keys={"id", "score"})
        if isinstance(body, Response):
            return body
        try:
            return _json(
                await run_in_threadpool(workspace.score, request.state.annotator, body["id"], body["score"])
            )
        except ScoreError as error:
            return _error(str(error))
        except SaveError as error:
            return _not_saved(error)

    async def undo(request: Request) -> Response:
        body = await _body(request, keys=set())
        if isinstance(body, Response):
            return body
        try:
            return _json(await run_in_threadpool(workspace.undo, request.state.annotator))
        except SaveError as error:
            return _not_saved(error)

    routes = [
        Route("/", index),
        Route("/static/{name}", asset),
        Route("/api/state", state, methods=["GET", "POST"]),
        Route("/api/score", score, methods=["POST"]),
        Route("/api/undo", undo, methods=["POST"]),
    ]
    app = Starlette(routes=routes)
    return TokenGate(app, workspace)


async def _body(request: Request, keys: set[str]) -> dict[str, Any] | Response:
    """The JSON object of a request with exactly ``keys``, or the error response that refuses it."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        return _error("send JSON (Content-Type: application/json)", 415)
    raw = b""
    try:
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > MAX_BODY:
                return _error(f"request body over {MAX_BODY} bytes", 413)
    except ClientDisconnect:  # gone before its body was whole: nothing to store, nobody to answer
        return _error("the client left before its request body was whole")
    depth = _nesting(raw)
    if depth > MAX_DEPTH:
        return _error(
            f"the request body nests {'more than 100' if depth > 100 else depth} levels deep; "
            "a request is one flat JSON object"
        )
    try:
        body = json.loads(raw or b"{}", object_pairs_hook=unique_keys)
    except RepeatedKey as repeated:
        return _error(f"the request body repeats the key {repeated.key[:40]!r}; each key is given once")
    except (ValueError, RecursionError):  # not JSON, not UTF-8, or a number too long to read
        return _error("the request body is not JSON")
    if not isinstance(body, dict):
        return _error("the request body must be a JSON object")
    if set(body) != keys:
        wanted = " and ".join(repr(key) for key in sorted(keys))
        return _error(
            f"a {request.url.path.rsplit('/', 1)[-1]} request is a JSON object with exactly the keys {wanted}"
            if keys
            else f"a {request.url.path.rsplit('/', 1)[-1]} request is an empty JSON object {{}}"
        )
    return body


def _nesting(raw: bytes) -> int:
    """How deep arrays and objects nest in a JSON text, read without parsing it (so without recursion)."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):  # ] }
            depth -= 1
    return deepest


def _json(data: dict[str, Any]) -> Response:
    return JSONResponse(data, headers=_SECURITY_HEADERS)


def _error(message: str, status: int = 400) -> Response:
    return JSONResponse({"error": message}, status_code=status, headers=_SECURITY_HEADERS)


def _not_saved(error: SaveError) -> Response:
    return JSONResponse(
        {"error": str(error), "saved": error.saved}, status_code=500, headers=_SECURITY_HEADERS
    )
