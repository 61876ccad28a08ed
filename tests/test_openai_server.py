"""FakeOpenAIServer, driven through Inspect's real openai-api provider and over plain HTTP.

Retry settings that keep these runs short: the OpenAI SDK's own retries (2 by default, honouring
Retry-After, ~0.5 s backoff) cure the transient faults; Inspect's retries (exponential wait from
3 s) are switched off with max_retries=0 so a persistent fault ends the sample within ~1.5 s.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
import unicodedata
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalLog
from inspect_ai.solver import generate

from vivid_inspect.testing.faults import Fault, combine, fail_first, fail_fraction, fail_prompts, fault_queue
from vivid_inspect.testing.openai_server import DEFAULT_ANSWER, FakeOpenAIServer

SECRET_KEY = "sk-test-never-print-me"


def _answer(model: str, messages: list[dict[str, Any]]) -> str:
    return f"{model} answers {messages[-1]['content']}"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(responder=_answer) as running:
        for name, value in running.env().items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("INSPECT_LOG_DIR", str(tmp_path / "logs"))
        yield running


def _run(server: FakeOpenAIServer, prompts: list[str], **kwargs: Any) -> EvalLog:
    task = Task(
        dataset=MemoryDataset([Sample(input=p, target="", id=i) for i, p in enumerate(prompts, 1)]),
        solver=generate(),
    )
    options: dict[str, Any] = {"max_retries": 0, "timeout": 20, "attempt_timeout": 10}
    options.update(kwargs)
    # model_base_url, not FAKE_BASE_URL alone: get_model() memoizes on its arguments, so a later
    # test's server on another port would otherwise be reached through the first test's client
    return eval(
        task,
        model="openai-api/fake/gen",
        model_base_url=server.base_url,
        display="none",
        fail_on_error=False,
        **options,
    )[0]


def _outputs(log: EvalLog) -> dict[str, str]:
    assert log.samples is not None
    return {str(s.input): s.output.completion for s in log.samples if s.error is None}


def _post(
    server: FakeOpenAIServer, body: dict[str, Any], headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(
        f"{server.base_url}/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", **(headers or {})},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def _chat(model: str, prompt: str) -> dict[str, Any]:
    return {"model": model, "messages": [{"role": "user", "content": prompt}]}


# -- through Inspect's openai-api provider ---------------------------------------------------------


def test_eval_answers_arrive_and_counts_match(server: FakeOpenAIServer) -> None:
    prompts = ["một", "hai", "ba", "bốn"]
    log = _run(server, prompts)
    assert log.status == "success"
    assert _outputs(log) == {p: f"gen answers {p}" for p in prompts}
    assert server.model_counts == {"gen": 4}
    assert server.prompt_counts == {p: 1 for p in prompts}
    assert [r.status for r in server.log] == [200] * 4


@pytest.mark.slow
@pytest.mark.parametrize(
    ("fault", "model_args", "first_status", "min_gap"),
    [
        pytest.param(Fault("rate_limit", retry_after=1), {}, 429, 0.95, id="429-retry-after-1s"),
        pytest.param(Fault("server_error"), {}, 500, 0.0, id="500"),
        pytest.param(Fault("unavailable"), {}, 503, 0.0, id="503"),
        pytest.param(Fault("drop"), {}, None, 0.0, id="dropped-connection"),
        pytest.param(
            Fault("slow", delay=3),
            {"client_timeout": 1},
            None,
            None,
            id="slower-than-client-timeout",
        ),
    ],
)
def test_transient_fault_then_success(
    server: FakeOpenAIServer,
    fault: Fault,
    model_args: dict[str, Any],
    first_status: int | None,
    min_gap: float | None,
) -> None:
    server.faults = fail_first(1, fault)
    prompts = ["q1", "q2"]
    log = _run(server, prompts, model_args=model_args)
    server.stop()  # a slow first reply is still asleep; stopping cuts it short (status None)
    assert _outputs(log) == {p: f"gen answers {p}" for p in prompts}
    for prompt in prompts:
        first, retry = server.records(prompt=prompt)
        assert (first.status, first.fault) == (first_status, fault.kind)
        assert (retry.status, retry.fault) == (200, None)
        if min_gap is not None:  # a slow reply "finishes" only when stop() cuts it short
            # the retry waited for Retry-After (less clock granularity) after the 429 went out
            assert retry.started - first.finished >= min_gap


@pytest.mark.slow
def test_invalid_json_reply_is_retried_or_a_clear_error(server: FakeOpenAIServer) -> None:
    server.faults = fail_first(1, "invalid_json")
    log = _run(server, ["q1"])
    assert log.samples is not None
    (sample,) = log.samples
    if sample.error is None:
        assert sample.output.completion == "gen answers q1"
        assert server.prompt_counts == {"q1": 2}
    else:
        # inspect 0.3.285 neither retries nor wraps a malformed 200 body
        assert "JSONDecodeError" in sample.error.message
        assert server.prompt_counts == {"q1": 1}


def test_empty_content_reaches_the_sample_as_an_empty_completion(server: FakeOpenAIServer) -> None:
    server.faults = fail_prompts(lambda prompt: prompt == "q2", "empty")
    log = _run(server, ["q1", "q2"])
    assert _outputs(log) == {"q1": "gen answers q1", "q2": ""}


@pytest.mark.slow
def test_persistent_failure_errors_one_sample_and_spares_the_rest(server: FakeOpenAIServer) -> None:
    server.faults = fail_prompts(lambda prompt: prompt == "q2", "server_error")
    log = _run(server, ["q1", "q2", "q3"])
    assert log.status == "success"  # fail_on_error=False keeps the run going
    assert log.samples is not None
    errors = {str(s.input): s.error.message for s in log.samples if s.error is not None}
    assert list(errors) == ["q2"]
    assert "InternalServerError" in errors["q2"]
    assert _outputs(log) == {"q1": "gen answers q1", "q3": "gen answers q3"}
    # one Inspect attempt (max_retries=0) made of the SDK's first try and its 2 retries
    assert server.prompt_counts == {"q1": 1, "q2": 3, "q3": 1}


# -- over plain HTTP -------------------------------------------------------------------------------


def test_completion_has_the_openai_shape(server: FakeOpenAIServer) -> None:
    status, headers, raw = _post(server, _chat("judge", "xin chào bạn"))
    body = json.loads(raw)
    assert status == 200
    assert body["object"] == "chat.completion"
    assert body["model"] == "judge"
    assert body["choices"][0]["message"] == {
        "role": "assistant",
        "content": "judge answers xin chào bạn",
    }
    assert body["choices"][0]["finish_reason"] == "stop"
    usage = body["usage"]
    assert usage["prompt_tokens"] == 3
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]


def test_unreadable_reply_faults_look_as_their_names_say(server: FakeOpenAIServer) -> None:
    server.faults = fault_queue(["invalid_json", "invalid_utf8", "empty_body", "no_choices"])
    truncated, not_utf8, empty, no_choices = (_post(server, _chat("gen", "q"))[::2] for _ in range(4))
    assert all(status == 200 for status, _ in (truncated, not_utf8, empty, no_choices))
    with pytest.raises(json.JSONDecodeError):
        json.loads(truncated[1])
    with pytest.raises(UnicodeDecodeError):
        not_utf8[1].decode("utf-8")
    assert "gen answers q" in not_utf8[1].decode("utf-8", "replace")  # the answer, then bad bytes
    assert empty[1] == b""
    body = json.loads(no_choices[1])
    assert body["object"] == "chat.completion" and body["choices"] == []
    assert [r.fault for r in server.log] == ["invalid_json", "invalid_utf8", "empty_body", "no_choices"]


def test_models_endpoint_lists_models(server: FakeOpenAIServer) -> None:
    with urllib.request.urlopen(f"{server.base_url}/models", timeout=10) as response:
        body = json.loads(response.read())
    assert [m["id"] for m in body["data"]] == ["gen", "judge"]


def test_streaming_request_is_refused_clearly(server: FakeOpenAIServer) -> None:
    status, _, raw = _post(server, {**_chat("gen", "q"), "stream": True})
    assert status == 400
    assert "does not stream" in json.loads(raw)["error"]["message"]


def test_rate_limit_sends_retry_after_header(server: FakeOpenAIServer) -> None:
    server.faults = fault_queue([Fault("rate_limit", retry_after=2.5), None])
    status, headers, _ = _post(server, _chat("gen", "q"))
    assert (status, headers.get("Retry-After")) == (429, "2.5")
    assert _post(server, _chat("gen", "q"))[0] == 200


def test_prompts_are_counted_in_nfc(server: FakeOpenAIServer) -> None:
    nfd = unicodedata.normalize("NFD", "Đầu voi đuôi chuột")
    _post(server, _chat("gen", nfd))
    assert server.prompt_counts == {"Đầu voi đuôi chuột": 1}
    assert len(server.records(prompt=nfd)) == 1


def test_dropped_connection_sends_nothing(server: FakeOpenAIServer) -> None:
    server.faults = fail_first(1, "drop")
    with pytest.raises((urllib.error.URLError, ConnectionError, OSError)):
        _post(server, _chat("gen", "q"))
    assert [r.status for r in server.log] == [None]


def test_default_responder_and_broken_responder() -> None:
    with FakeOpenAIServer() as server:
        assert (
            json.loads(_post(server, _chat("gen", "q"))[2])["choices"][0]["message"]["content"]
            == DEFAULT_ANSWER
        )
        server.responder = lambda model, messages: 1 / 0  # type: ignore[assignment, return-value]
        status, _, raw = _post(server, _chat("gen", "q"))
    assert status == 500
    assert "ZeroDivisionError" in json.loads(raw)["error"]["message"]


def test_latency_is_per_model_and_does_not_serialise_requests() -> None:
    durations: dict[str, list[float]] = {"gen": [], "judge": []}
    lock = threading.Lock()

    def call(model: str) -> None:
        start = time.monotonic()
        assert _post(server, _chat(model, "q"))[0] == 200
        with lock:
            durations[model].append(time.monotonic() - start)

    with FakeOpenAIServer(latency={"gen": 0.6, "judge": 0.1}) as server:
        threads = [threading.Thread(target=call, args=("gen" if i % 2 else "judge",)) for i in range(48)]
        start = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - start
    assert elapsed < 2.0  # 48 requests served side by side, not one after another (24 x 0.6 s)
    assert min(durations["gen"]) >= 0.6
    assert max(durations["judge"]) < 0.6
    assert server.model_counts == {"gen": 24, "judge": 24}


def test_stop_frees_the_port() -> None:
    server = FakeOpenAIServer().start()
    port = server.port
    assert _post(server, _chat("gen", "q"))[0] == 200  # leaves a keep-alive connection behind
    server.stop()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=2)
    with FakeOpenAIServer(port=port) as again:
        assert _post(again, _chat("gen", "q"))[0] == 200


def test_stop_wakes_a_sleeping_reply() -> None:
    server = FakeOpenAIServer(latency=30).start()
    outcome: list[object] = []

    def call() -> None:
        try:
            outcome.append(_post(server, _chat("gen", "q"))[0])
        except OSError as error:  # urllib's URLError and the connection errors are OSErrors
            outcome.append(type(error).__name__)

    client = threading.Thread(target=call)
    client.start()
    while not server.model_counts:
        time.sleep(0.01)
    start = time.monotonic()
    server.stop()
    client.join(timeout=5)
    assert time.monotonic() - start < 5
    assert outcome and outcome[0] != 200
    assert [r.status for r in server.log] == [None]


def test_authorization_is_never_logged(server: FakeOpenAIServer, capfd: pytest.CaptureFixture[str]) -> None:
    _post(server, _chat("gen", "q"), headers={"Authorization": f"Bearer {SECRET_KEY}"})
    server.stop()
    out, err = capfd.readouterr()
    assert SECRET_KEY not in out + err + repr(server.log)


# -- fault plans -----------------------------------------------------------------------------------


def test_fail_fraction_is_seeded_and_near_the_fraction() -> None:
    def decisions(seed: int) -> list[str | None]:
        plan = fail_fraction(0.2, kinds=["rate_limit", "server_error"], seed=seed)
        faults = [plan(i, "gen", f"prompt {i % 500}") for i in range(1000)]
        return [f.kind if f else None for f in faults]

    first = decisions(0)
    assert first == decisions(0)
    assert first != decisions(1)
    assert 0.15 < sum(kind is not None for kind in first) / 1000 < 0.25
    assert {"rate_limit", "server_error"} <= set(first)


def test_fail_fraction_ignores_arrival_order() -> None:
    prompts = [f"p{i}" for i in range(50)]
    forward, backward = fail_fraction(0.5, seed=3), fail_fraction(0.5, seed=3)
    ahead = {p: forward(i, "gen", p) for i, p in enumerate(prompts)}
    behind = {p: backward(i, "gen", p) for i, p in enumerate(reversed(prompts))}
    assert ahead == behind


def test_fail_first_counts_per_model_and_prompt() -> None:
    plan = fail_first(2, "server_error")
    kinds = [
        plan(0, model, prompt) for model, prompt in [("gen", "a"), ("judge", "a"), ("gen", "a"), ("gen", "a")]
    ]
    assert [f.kind if f else None for f in kinds] == [
        "server_error",
        "server_error",
        "server_error",
        None,
    ]


def test_combine_takes_the_first_fault() -> None:
    plan = combine(fail_prompts(lambda p: p == "a", "drop"), fault_queue(["unavailable"]))
    assert plan(0, "gen", "a") == Fault("drop")
    assert plan(1, "gen", "b") is None  # the queue's one fault was spent on request 0


@pytest.mark.parametrize(
    "kind", [pytest.param("timeout", id="unknown"), pytest.param("429", id="status-code")]
)
def test_unknown_fault_kind_is_rejected(kind: str) -> None:
    with pytest.raises(ValueError, match="allowed: rate_limit"):
        Fault(kind)  # type: ignore[arg-type]


def test_fail_fraction_rejects_bad_fraction() -> None:
    with pytest.raises(ValueError, match="1.5"):
        fail_fraction(1.5)


# -- hostile requests: a 4xx that says why, no traceback, the thread freed -----------------------------

_CHAT = json.dumps(_chat("gen", "xin chào")).encode()


def _raw(server: FakeOpenAIServer, head: bytes, body: bytes = b"", *, wait: float = 5.0) -> tuple[int, str]:
    """Send raw bytes; the status and the error message of the reply (the server then closes)."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=wait) as conn:
        conn.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n" + head + b"\r\n" + body)
        received = b""
        while chunk := conn.recv(65536):
            received += chunk
            if b"\r\n\r\n" in received:
                header, _, rest = received.partition(b"\r\n\r\n")
                length = int(re.search(rb"Content-Length: (\d+)", header)[1])  # type: ignore[index]
                if len(rest) >= length:
                    break
    status = int(received.split(b" ", 2)[1])
    return status, json.loads(received.partition(b"\r\n\r\n")[2])["error"]["message"]


def _length(value: str | int) -> bytes:
    return f"Content-Type: application/json\r\nContent-Length: {value}\r\n".encode()


HOSTILE_REQUESTS = {
    "length-not-a-number": (_length("abc"), b"", 400, "Content-Length must be one whole number"),
    "length-negative": (_length(-1), _CHAT, 400, "Content-Length must be one whole number"),
    "length-plus": (_length("+5"), _CHAT, 400, "Content-Length must be one whole number"),
    "length-float": (_length("5.0"), _CHAT, 400, "Content-Length must be one whole number"),
    "length-other-digits": (_length("١٢"), _CHAT, 400, "Content-Length must be one whole number"),
    "length-underscore": (_length("1_0"), _CHAT, 400, "Content-Length must be one whole number"),
    "length-twice-differing": (
        _length(len(_CHAT)) + b"Content-Length: 3\r\n",
        _CHAT,
        400,
        "Content-Length must be one whole number",
    ),
    "length-huge": (_length(99999999999), b"", 413, "over the"),
    # JSON that Python reads but a real API refuses: the answer must not depend on which copy wins.
    **{
        name: (_length(len(body)), body, 400, says)
        for name, body, says in [
            (
                "key-twice",
                b'{"model": "gen", "model": "judge", "messages": []}',
                "the key 'model' is given twice",
            ),
            (
                "key-twice-nested",
                b'{"model": "gen", "messages": [{"role": "user", "role": "x"}]}',
                "given twice",
            ),
            ("nan", b'{"model": "gen", "messages": [], "temperature": NaN}', "NaN is not a JSON number"),
            ("infinity", b'{"model": "gen", "messages": [], "top_p": -Infinity}', "-Infinity is not"),
            (
                "lone-surrogate",
                b'{"model": "gen", "messages": [{"role": "user", "content": "a\\ud800"}]}',
                "lone surrogate",
            ),
        ]
    },
    "length-40-digits": (_length("9" * 40), b"", 413, "over the"),
    "length-just-over": (_length(8 * 2**20 + 1), b"", 413, "over the"),
    "chunked": (
        b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n",
        b"zz\r\n{}\r\n0\r\n\r\n",
        411,
        "Transfer-Encoding",
    ),
    "chunked-huge-size": (
        b"Transfer-Encoding: chunked\r\n",
        b"ffffffffffffffffffff\r\n{}\r\n",
        411,
        "Transfer-Encoding",
    ),
    "chunked-and-length": (
        _length(len(_CHAT)) + b"Transfer-Encoding: chunked\r\n",
        _CHAT,
        411,
        "Transfer-Encoding",
    ),
    "deep-array": (_length(200_000), b"[" * 100_000 + b"]" * 100_000, 400, "not JSON"),
    "deep-object": (_length(250_001), b'{"a":' * 50_000 + b"1" + b"}" * 50_000, 400, "not JSON"),
    "not-utf8": (_length(4), b"\xff\xfe\x80{", 400, "not JSON"),
    "huge-number": (_length(5000), b"9" * 5000, 400, "not JSON"),
}
_NOT_A_CHAT = "a string 'model' and a list of objects 'messages'"
for _name, _body in {
    "array": b"[]",
    "string": b'"ab"',
    "null": b"null",
    "messages-object": b'{"model":"gen","messages":{"a":1}}',
    "messages-string": b'{"model":"gen","messages":"hi"}',
    "messages-of-strings": b'{"model":"gen","messages":["hi"]}',
    "messages-of-lists": b'{"model":"gen","messages":[[{"role":"user"}]]}',
    "model-number": b'{"model":5,"messages":[]}',
    "model-missing": b'{"messages":[]}',
}.items():
    HOSTILE_REQUESTS[_name] = (_length(len(_body)), _body, 400, _NOT_A_CHAT)


@pytest.mark.parametrize("name", list(HOSTILE_REQUESTS))
def test_a_hostile_request_gets_a_4xx_that_says_why_and_no_traceback(
    name: str, server: FakeOpenAIServer, capfd: pytest.CaptureFixture[str]
) -> None:
    head, body, status, says = HOSTILE_REQUESTS[name]
    got, message = _raw(server, head, body)
    assert got == status and says in message, (got, message)
    assert server.model_counts == {}  # nothing reached the responder
    assert _post(server, _chat("gen", "vẫn chạy"))[0] == 200  # the server goes on answering
    assert "Traceback" not in capfd.readouterr().err


def test_a_content_part_whose_text_is_not_a_string_is_answered(server: FakeOpenAIServer) -> None:
    body = {
        "model": "gen",
        "messages": [{"role": "user", "content": [{"type": "text", "text": 5}, {"text": "a"}]}],
    }
    status, _, _ = _post(server, body)
    assert status == 200 and server.prompt_counts == {"a": 1}


@pytest.mark.slow
def test_a_body_shorter_than_its_length_is_refused_once_the_read_times_out() -> None:
    with FakeOpenAIServer(read_timeout=0.3) as server:
        started = time.monotonic()
        status, message = _raw(server, _length(len(_CHAT)), _CHAT[:10])
        assert status == 400 and message.endswith(f"of its {len(_CHAT)} bytes (Content-Length)"), message
        assert time.monotonic() - started < 3
        assert _post(server, _chat("gen", "x"))[0] == 200
