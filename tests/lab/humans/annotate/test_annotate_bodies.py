"""Hostile request bodies to every endpoint of `vivid annotate serve`: a 4xx with a reason, never a 500.

Shapes: nesting of every depth and kind (arrays, objects, mixed, unclosed, inside a value, the
brackets inside a string that are not nesting), long arrays, long strings, numbers of every size
and kind, every JSON type in the place of the object and of each value, keys missing, extra or
repeated. Every body goes to each endpoint; the answer is 400 (413 over the size cap), JSON with
an ``error``; nothing in the folder changes, and the server goes on scoring.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lab.humans.annotate.test_annotate_server import (
    client_of,
    generation_log,  # noqa: F401 - a fixture
    log,  # noqa: F401 - a fixture
    snapshot,
    token,
    workspace,
)
from vivid_inspect.lab.humans.annotate.app import MAX_BODY

ID = "__ID__"  # replaced by an item of the annotator's queue


def nested(depth: int, kind: str = "[") -> str:
    if kind == "[":
        return "[" * depth + "]" * depth
    if kind == "{":
        return '{"a":' * depth + "1" + "}" * depth
    return '[{"a":' * (depth // 2) + "1" + "}]" * (depth // 2)


BODIES: dict[str, str] = {
    "array-2": nested(2),
    "array-999": nested(999),
    "array-1000": nested(1000),
    "array-2000": nested(2000),
    "object-600": nested(600, "{"),
    "mixed-600": nested(600, "mixed"),
    "unclosed-4000": "[" * 4000,
    "closing-only": "]" * 4000,
    "deep-id": '{"id": ' + nested(1500) + ', "score": 3}',
    "deep-score": '{"id": ' + ID + ', "score": ' + nested(1500) + "}",
    "deep-extra-key": '{"id": ' + ID + ', "score": 3, "x": ' + nested(1500) + "}",
    "brackets-in-a-string": '{"id": "' + "[" * 3000 + '", "score": 3}',
    "long-array": "[" + ",".join(["0"] * 1500) + "]",
    "long-array-as-id": '{"id": [' + ",".join(["1"] * 1400) + '], "score": 3}',
    "long-string-as-id": '{"id": "' + "x" * 4000 + '", "score": 3}',
    "long-string-as-score": '{"id": ' + ID + ', "score": "' + "5" * 4000 + '"}',
    "escaped-string": '{"id": "' + '\\u0000\\\\\\"' * 300 + '", "score": 3}',
    "number-4000-digits": '{"id": ' + "9" * 4000 + ', "score": 3}',
    "negative-4000-digits-score": '{"id": ' + ID + ', "score": -' + "9" * 4000 + "}",
    "float-huge": '{"id": 1e999, "score": 3}',
    "float-tiny": '{"id": ' + ID + ', "score": 1e-999}',
    "nan-score": '{"id": ' + ID + ', "score": NaN}',
    "infinity-id": '{"id": Infinity, "score": 3}',
    "negative-zero-score": '{"id": ' + ID + ', "score": -0.0}',
    "exponent-score": '{"id": ' + ID + ', "score": 3e0}',
    "null": "null",
    "true": "true",
    "number": "42",
    "string": '"score"',
    "id-null": '{"id": null, "score": 3}',
    "id-object": '{"id": {"id": 1}, "score": 3}',
    "score-array": '{"id": ' + ID + ', "score": [3]}',
    "score-object": '{"id": ' + ID + ', "score": {"value": 3}}',
    "score-bool": '{"id": ' + ID + ', "score": false}',
    "keys-missing": "{}",
    "key-repeated-with-a-bad-last": '{"id": ' + ID + ', "score": 3, "score": "x"}',
    "key-repeated-good-last": '{"id": ' + ID + ', "score": 0, "score": 5}',
    "key-repeated-same-value": '{"id": ' + ID + ', "score": 3, "score": 3}',
    "id-repeated": '{"id": 0, "id": ' + ID + ', "score": 3}',
    "key-repeated-escaped": '{"id": ' + ID + ', "score": 0, "sc\\u006fre": 5}',
    "key-repeated-apart": '{"score": 1, "id": ' + ID + ', "score": 4}',
    "extra-key": '{"id": ' + ID + ', "score": 3, "note": "hi"}',
    "trailing-garbage": '{"id": ' + ID + ', "score": 3} x',
    "two-objects": '{"id": 1} {"id": 2}',
    "lone-surrogate": '{"id": "\\ud800", "score": 3}',
}
OVERSIZED: dict[str, str] = {
    "array-10000": nested(10_000),
    "object-5000": nested(5000, "{"),
    "string-1mb": '{"id": "' + "x" * 2**20 + '", "score": 3}',
    "number-5000-digits": '{"id": ' + "1" * 5000 + ', "score": 3}',
}
ENDPOINTS = [("POST", "/api/score"), ("POST", "/api/undo"), ("POST", "/api/state"), ("GET", "/api/state")]


def body_for(text: str, item: int) -> bytes:
    return text.replace(ID, str(item)).encode("utf-8", "surrogatepass")


@pytest.mark.parametrize(("method", "path"), ENDPOINTS, ids=[f"{m} {p}" for m, p in ENDPOINTS])
def test_every_hostile_body_to_every_endpoint_gets_4xx_never_500(
    log: Path,  # noqa: F811
    method: str,
    path: str,
) -> None:
    space = workspace(log)
    item = space.plan.queues["lan"][0]
    before = snapshot(space.folder)
    cases = {name: (text, 400) for name, text in BODIES.items()} | {
        name: (text, 413) for name, text in OVERSIZED.items()
    }
    if path != "/api/score":
        # An undo or state request is an empty object: a score-shaped body is refused there.
        cases.pop("keys-missing")
        cases["a-score"] = ('{"id": ' + ID + ', "score": 3}', 400)
    with client_of(space) as client:
        for name, (text, status) in cases.items():
            content = body_for(text, item)
            assert len(content) > MAX_BODY or status == 400, name
            response = client.request(
                method, path, headers=token(space) | {"content-type": "application/json"}, content=content
            )
            assert response.status_code == status, (name, response.status_code, response.text[:200])
            error = response.json()["error"]
            assert isinstance(error, str) and 0 < len(error) < 300, name
        assert snapshot(space.folder) == before
        # The server is unharmed: it scores and undoes as before.
        assert (
            client.post("/api/score", headers=token(space), json={"id": item, "score": 2}).status_code == 200
        )
        assert client.post("/api/undo", headers=token(space), json={}).json()["id"] == item


@pytest.mark.parametrize("depth", [2, 3, 50, 2000])
def test_the_refusal_says_the_body_nests_too_deep(log: Path, depth: int) -> None:  # noqa: F811
    space = workspace(log)
    with client_of(space) as client:
        response = client.post(
            "/api/score",
            headers=token(space) | {"content-type": "application/json"},
            content=nested(depth).encode(),
        )
    assert response.status_code == 400
    shown = "more than 100" if depth > 100 else str(depth)
    assert (
        response.json()["error"]
        == f"the request body nests {shown} levels deep; a request is one flat JSON object"
    )


@pytest.mark.parametrize(
    "body", ['{"id": ID, "score": 0, "score": 5}', '{"score": 5, "id": ID, "score": 0, "id": ID}']
)
def test_a_repeated_key_is_refused_by_name_and_nothing_is_stored(log: Path, body: str) -> None:  # noqa: F811
    space = workspace(log)
    item = space.plan.queues["lan"][0]
    before = snapshot(space.folder)
    with client_of(space) as client:
        response = client.post(
            "/api/score",
            headers=token(space) | {"content-type": "application/json"},
            content=body.replace("ID", str(item)).encode(),
        )
        assert response.status_code == 400
        assert response.json()["error"] == "the request body repeats the key 'score'; each key is given once"
        assert client.get("/api/state", headers=token(space)).json()["done"] == 0
    assert snapshot(space.folder) == before


def test_a_state_request_without_a_body_is_answered(log: Path) -> None:  # noqa: F811
    space = workspace(log)
    with client_of(space) as client:
        assert client.get("/api/state", headers=token(space)).json()["annotator"] == "lan"
        empty = client.post("/api/state", headers=token(space), json={})
        assert empty.status_code == 200 and empty.json()["annotator"] == "lan"
