"""No test sees a model that an earlier test in the same worker built.

Inspect memoizes ``get_model`` per process, keyed by name, base URL and arguments but not by the
environment: a model built while a test had ``LOCAL_API_KEY`` set answered a later test that had
removed the key, so "a missing key is one line" (tests/lab/audit/test_audit_cli.py) failed whenever
the scheduler happened to run it after "a dead endpoint is named" on the same worker. The inner
session below runs two such tests in that order, with this suite's conftest.

A test's memoized models are then kept, as Inspect would keep them, rather than dropped: dropped, a
model's open connection was closed by the collector during some later test, and a test that turns
warnings into errors failed on another test's socket.
"""

from __future__ import annotations

import pytest

from tests.warnings_as_errors import collect_older_garbage

pytest_plugins = ["pytester"]

INNER = """
from inspect_ai.model import get_model

NAME, URL = "openai-api/local/m", "http://127.0.0.1:9/v1"
built = []


def test_first_builds_the_model_with_a_key(monkeypatch):
    monkeypatch.setenv("LOCAL_API_KEY", "dummy")
    built.append(get_model(NAME, base_url=URL))


def test_second_without_the_key_is_refused_not_handed_the_first_model(monkeypatch):
    monkeypatch.delenv("LOCAL_API_KEY", raising=False)
    try:
        model = get_model(NAME, base_url=URL)
    except Exception as error:
        assert "LOCAL_API_KEY" in str(error)
    else:
        assert model is not built[0], "the first test's model answered the second test"
"""


def test_a_model_memoized_by_one_test_is_not_handed_to_the_next(pytester: pytest.Pytester) -> None:
    pytester.makeconftest("from tests.conftest import _isolated_logs  # noqa: F401\n")
    pytester.makepyfile(test_inner=INNER)
    result = pytester.runpytest_inprocess("-p", "no:xdist", "-p", "no:cacheprovider", "-o", "addopts=")
    result.assert_outcomes(passed=2)


KEPT = """
import asyncio
import gc
import warnings

from inspect_ai.model import get_model

from vivid_inspect.testing.openai_server import FakeOpenAIServer

server = FakeOpenAIServer().__enter__()


def test_first_calls_a_memoized_model_over_http():
    model = get_model("openai-api/fake/gen", base_url=server.base_url, api_key="fake-key")
    assert asyncio.run(model.generate("Xin chào")).completion


def test_second_turns_warnings_into_errors_while_the_collector_runs():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gc.collect()
"""


def test_a_memoized_models_open_connection_is_not_closed_during_a_later_test(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest("from tests.conftest import _isolated_logs  # noqa: F401\n")
    pytester.makepyfile(test_inner=KEPT)
    collect_older_garbage()  # what earlier tests of this worker left is not this test's
    result = pytester.runpytest_inprocess(
        "-p", "no:xdist", "-p", "no:cacheprovider", "-o", "addopts=", "-W", "error::ResourceWarning"
    )
    result.assert_outcomes(passed=2)
    assert "unclosed" not in result.stdout.str()
