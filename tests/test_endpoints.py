"""The endpoint check that ``vivid run``'s preflight and the tasks share (``vivid_inspect.endpoints``).

One request per endpoint; each shape of a dead endpoint is a problem naming the URL (closed port,
401, 404, 5xx, no answer), a rate limit or another 4xx only a note; the wait is the check's own or
the user's shorter limit; an endpoint that answered is asked again only after a while, one that
failed always. All endpoints are on 127.0.0.1.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from inspect_ai.model import GenerateConfig

from tests.dead_endpoints import SilentServer, StatusServer, closed_port
from vivid_inspect import endpoints
from vivid_inspect.endpoints import READ_TIMEOUT, Outcome, Probe, ask, ask_each, probe_timeout
from vivid_inspect.testing.openai_server import FakeOpenAIServer

KEY = "fake-key"


def probe(url: str, key: str = KEY) -> Probe:
    return Probe(f"{url}/models", (("Authorization", f"Bearer {key}"),), lists_models=True)


@pytest.fixture
def client() -> Iterator[httpx.Client]:
    with httpx.Client() as each:
        yield each


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        pytest.param(
            401, "HTTP 401 from {url}/models: no [entry] (check the API key in the environment)", id="401"
        ),
        pytest.param(403, "HTTP 403 from {url}/models: no [entry] (check the API key", id="403"),
        pytest.param(
            404,
            "HTTP 404 from {url}/models: no [entry] (is base_url right? It usually ends in /v1)",
            id="404",
        ),
        pytest.param(500, "HTTP 500 from {url}/models: no [entry] (the server is failing)", id="500"),
        pytest.param(503, "HTTP 503 from {url}/models: no [entry] (the server is failing)", id="503"),
    ],
)
def test_an_error_status_is_a_problem_naming_the_url_and_the_servers_message(
    client: httpx.Client, status: int, expected: str
) -> None:
    with StatusServer(status, "no [entry]") as server:
        outcome = ask(client, probe(server.base_url))
    assert outcome.problem is not None and outcome.problem.startswith(expected.format(url=server.base_url))
    assert outcome.note is None


@pytest.mark.parametrize("status", [400, 429])
def test_a_rate_limit_or_a_bad_request_is_only_a_note(client: httpx.Client, status: int) -> None:
    with StatusServer(status, "slow down") as server:
        outcome = ask(client, probe(server.base_url))
    assert outcome.problem is None
    assert (
        outcome.note
        == f"{server.base_url}/models answered HTTP {status} (slow down); the calls will be retried"
    )


def test_a_closed_port_and_a_silent_server_are_problems(client: httpx.Client) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    assert ask(client, probe(url)).problem == f"no connection to {url}/models (Connection refused)"
    with SilentServer() as silent:
        outcome = ask(client, probe(silent.base_url), wait=0.5)
    assert outcome.problem == f"no answer from {silent.base_url}/models within 0.5 s"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        pytest.param(
            "http://[not-a-host/v1/models", "cannot send a request to http://[not-a-host", id="not-a-url"
        ),
        pytest.param("ftp://127.0.0.1/v1/models", "UnsupportedProtocol", id="not-http"),
    ],
)
def test_an_unsendable_url_is_a_problem_not_an_exception(
    client: httpx.Client, url: str, expected: str
) -> None:
    outcome = ask(client, Probe(url, (), lists_models=True))
    assert outcome.problem is not None and expected in outcome.problem, outcome.problem


def test_a_healthy_listing_is_read_and_a_key_in_a_message_is_redacted(
    client: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeOpenAIServer(api_key=KEY, models=("gen", "judge")) as server:
        assert ask(client, probe(server.base_url)) == Outcome(listed={"gen", "judge"})
    secret = "sk-endpoint-canary-0123456789"
    monkeypatch.setenv("SOME_API_KEY", secret)
    with StatusServer(401, f"Incorrect API key provided: {secret}") as server:
        outcome = ask(client, probe(server.base_url))
    assert outcome.problem is not None and secret not in outcome.problem and "[REDACTED]" in outcome.problem


@pytest.mark.parametrize(
    ("configs", "expected"),
    [
        pytest.param((), READ_TIMEOUT, id="nothing-given"),
        pytest.param((None, GenerateConfig()), READ_TIMEOUT, id="nothing-set"),
        pytest.param((GenerateConfig(timeout=4),), 4.0, id="a-shorter-timeout"),
        pytest.param(
            (GenerateConfig(attempt_timeout=3), GenerateConfig(timeout=7)), 3.0, id="the-shortest-wins"
        ),
        pytest.param((GenerateConfig(timeout=300, attempt_timeout=180),), READ_TIMEOUT, id="longer-limits"),
    ],
)
def test_the_wait_is_the_checks_own_or_the_users_shorter_limit(
    configs: tuple[GenerateConfig | None, ...], expected: float
) -> None:
    assert probe_timeout(*configs) == expected


def test_one_request_per_endpoint_with_the_shortest_wait() -> None:
    with FakeOpenAIServer(api_key=KEY) as server:
        same = probe(server.base_url)
        outcomes = ask_each([(same, 5.0), (same, 2.0), (probe(server.base_url, "other"), 5.0)])
        assert server.get_counts == {"/v1/models": 2}
    assert outcomes[same].listed == {"gen", "judge"}


@pytest.mark.slow
def test_an_answer_is_reused_only_within_its_scope_and_a_failure_never(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    one_eval, next_eval = {}, {}  # the task-start check's scopes: one eval's model roles each
    with FakeOpenAIServer(api_key=KEY) as server:
        healthy = probe(server.base_url)
        ask_each([(healthy, 5.0)], scope=one_eval)
        ask_each([(healthy, 5.0)], scope=one_eval)
        assert server.get_counts == {"/v1/models": 1}
        ask_each([(healthy, 5.0)], scope=next_eval)
        assert server.get_counts == {"/v1/models": 2}
        ask_each([(healthy, 5.0)])  # vivid run's preflight asks afresh
        ask_each([(healthy, 5.0)])
        assert server.get_counts == {"/v1/models": 4}
        ask_each([(healthy, 5.0)], scope=next_eval)  # still remembered for its own scope
        assert server.get_counts == {"/v1/models": 4}
        monkeypatch.setattr(endpoints, "RECENT", 0.0)  # the answer is old
        ask_each([(healthy, 5.0)], scope=next_eval)
        assert server.get_counts == {"/v1/models": 5}
    with StatusServer(500) as failing:
        dead = probe(failing.base_url)
        monkeypatch.setattr(endpoints, "RECENT", 600.0)
        for _ in range(2):
            assert ask_each([(dead, 5.0)], scope=one_eval)[dead].problem
        assert failing.requests == ["GET /v1/models", "GET /v1/models"]
