"""API keys never reach a log, a cache entry or the console.

A recognisable fake key is put in the environment (``FAKE_API_KEY``, read by Inspect's
``openai-api/fake/...`` provider, and ``OPENAI_API_KEY``), then the real explain task runs against
FakeOpenAIServer with everything that writes text turned up: transient faults (retry warnings),
a persistent fault (a sample error with its traceback), raw model API calls in the log, debug
logging to the console and the transcript. Every file written is searched, inside the ``.eval``
zip archives too, and so is everything printed.
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.model import get_model

from tests.fake_api import GEN, JUDGE, default_responder, explain_items, idiom_of
from vivid_inspect.tasks import explain
from vivid_inspect.testing.faults import Fault, combine, fail_first, fail_prompts
from vivid_inspect.testing.openai_server import FakeOpenAIServer

CANARY = "sk-vivid-SECRET-canary-1234"


def files_containing(folder: Path, secret: str) -> list[str]:
    """Every file under ``folder`` (and every member of its zip archives) that contains ``secret``."""
    needle = secret.encode()
    found = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if needle in data:
            found.append(str(path))
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                found += [f"{path}!{name}" for name in archive.namelist() if needle in archive.read(name)]
    return found


def test_files_containing_finds_a_secret_in_a_zip_member(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "log.eval", "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("samples/1.json", f'{{"key": "{CANARY}"}}' * 100)
    (tmp_path / "clean.txt").write_text("nothing here")
    assert files_containing(tmp_path, CANARY) == [f"{tmp_path / 'log.eval'}!samples/1.json"]


@pytest.mark.slow
def test_a_full_run_writes_the_key_nowhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    log_dir = tmp_path / "logs"
    monkeypatch.setenv("INSPECT_LOG_DIR", str(log_dir))
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("FAKE_API_KEY", CANARY)
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    items = explain_items()[:5]
    broken = items[0].idiom

    with FakeOpenAIServer(responder=default_responder) as server:
        monkeypatch.setenv("FAKE_BASE_URL", server.base_url)
        server.faults = combine(
            fail_prompts(lambda prompt: idiom_of(prompt) == broken, "server_error"),
            fail_first(1, Fault("rate_limit", retry_after=0.1)),
        )
        # the key comes from the environment, as in a real run (memoize=False: read it now)
        gen = get_model(f"openai-api/fake/{GEN}", base_url=server.base_url, memoize=False, max_retries=1)
        grader = get_model(f"openai-api/fake/{JUDGE}", base_url=server.base_url, memoize=False, max_retries=1)
        assert gen.api.api_key == CANARY and grader.api.api_key == CANARY  # the canary is really in use
        (log,) = eval(
            explain(data="sample", judge="aspect,cot"),
            model=gen,
            model_roles={"grader": grader},
            sample_id=[item.id for item in items],
            display="plain",
            log_level="debug",
            log_level_transcript="debug",
            log_model_api=True,
            fail_on_error=False,
            max_retries=0,
        )
        (json_log,) = eval(
            explain(data="sample", judge="aspect"),
            model=gen,
            model_roles={"grader": grader},
            sample_id=[items[1].id],
            display="none",
            log_format="json",
            log_model_api=True,
        )

    assert log.status == "success" and json_log.status == "success"
    assert log.samples is not None
    # the run did write errors and retries, the places a key could slip into
    assert sum(s.error is not None for s in log.samples) == 1
    assert {r.status for r in server.log} >= {200, 429, 500}
    written = [p for p in log_dir.rglob("*") if p.is_file()]
    assert {p.suffix for p in written} >= {".eval", ".json"}
    assert files_containing(tmp_path, CANARY) == []
    out, err = capfd.readouterr()
    assert CANARY not in out + err


# -- a provider that echoes the Authorization header, under `vivid run` ---------------------------

GATEWAY = "vivid-gateway-SECRET-5678"
RUN_SPEC = """\
name: echo
data: sample
log_dir: logs
runs:
  - tasks: [explain]
    models:
      - model: openai-api/fake/gen
        model_args:
          base_url: "{url}"
          default_headers: {{X-Gateway-Key: "${{env:MY_GATEWAY_KEY}}"}}
    limit: 4
judges:
  - name: aspect
    strategy: aspect
    model: openai-api/fake/judge
    model_args: {{base_url: "{url}"}}
    generate: {{extra_headers: {{X-Gateway-Key: "${{env:MY_GATEWAY_KEY}}"}}}}
retries: {{attempts: 0, max_retries: 0, timeout: 60}}
"""


@pytest.mark.slow
def test_an_echoed_key_and_gateway_header_are_redacted_from_every_file_and_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    from inspect_ai.log import read_eval_log

    from vivid_inspect.lab.cli.main import main

    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("FAKE_API_KEY", CANARY)
    monkeypatch.setenv("MY_GATEWAY_KEY", GATEWAY)
    items = explain_items()[:4]
    broken = {items[0].idiom, items[1].idiom}
    with FakeOpenAIServer(responder=default_responder) as server:
        # one generation and one judgement fail with a body quoting the credential headers
        server.faults = fail_prompts(
            lambda prompt: (
                idiom_of(prompt) in broken and (idiom_of(prompt) == items[0].idiom) != ("Điểm" in prompt)
            ),
            "echo_auth",
        )
        spec = tmp_path / "echo.yaml"
        spec.write_text(RUN_SPEC.format(url=server.base_url), encoding="utf-8")
        capfd.readouterr()
        code = main(["run", str(spec), "--display", "plain"])
        statuses = {r.status for r in server.log}

    assert code == 1  # the echoed errors are sample errors: the run is incomplete, resumable
    assert 500 in statuses
    out, err = capfd.readouterr()
    assert files_containing(tmp_path, CANARY) == [] and files_containing(tmp_path, GATEWAY) == []
    assert CANARY not in out + err and GATEWAY not in out + err
    # the provider really echoed both (now redacted), so the real values were sent, not placeholders
    (generation,) = (tmp_path / "logs" / "generations").glob("*.eval")
    log = read_eval_log(str(generation))
    assert log.samples is not None
    errors = [s.error.message for s in log.samples if s.error is not None]
    assert errors and all("authorization: bearer [redacted]" in e.lower() for e in errors)
    assert all("x-gateway-key: [redacted]" in e.lower() for e in errors)
    # what is written is the placeholder, never the value
    assert log.eval.model_args["default_headers"] == {"X-Gateway-Key": "${env:MY_GATEWAY_KEY}"}
    resolved = (tmp_path / "logs" / "vivid" / "echo" / "spec.resolved.yaml").read_text()
    assert "${env:MY_GATEWAY_KEY}" in resolved


def test_a_header_naming_an_unset_variable_stops_before_any_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from vivid_inspect.lab.cli.main import main

    monkeypatch.setenv("FAKE_API_KEY", "fake-key")
    monkeypatch.delenv("MY_GATEWAY_KEY", raising=False)
    with FakeOpenAIServer(responder=default_responder) as server:
        spec = tmp_path / "echo.yaml"
        spec.write_text(RUN_SPEC.format(url=server.base_url), encoding="utf-8")
        code = main(["run", str(spec), "--display", "none"])
        assert server.model_counts == {}
    err = capsys.readouterr().err
    assert code == 1 and "MY_GATEWAY_KEY" in err and "not set" in err


# -- credentials written in a spec are refused -----------------------------------------------------

GOOD_SPEC = """\
name: creds
data: sample
log_dir: logs
runs:
  - tasks: [explain]
    models:
      - model: openai-api/gateway/gen
        model_args: {base_url: "http://127.0.0.1:9/v1"}
    limit: 2
judges:
  - name: aspect
    strategy: aspect
    model: openai-api/gateway/judge
    model_args: {base_url: "http://127.0.0.1:9/v1"}
"""


def _under(anchor: str, line: str) -> Callable[[str], str]:
    return lambda spec: spec.replace(anchor, anchor + line, 1)


SECRET_SHAPES = [
    pytest.param(
        _under(
            '    model: openai-api/gateway/judge\n    model_args: {base_url: "http://127.0.0.1:9/v1"}\n',
            f"    generate: {{extra_headers: {{Authorization: 'Bearer {CANARY}'}}}}\n",
        ),
        "judges[0].generate.extra_headers.Authorization",
        id="judge-extra-headers-authorization",
    ),
    pytest.param(
        lambda s: s.replace(
            'model_args: {base_url: "http://127.0.0.1:9/v1"}\n    limit',
            f'model_args: {{base_url: "http://127.0.0.1:9/v1", default_headers: {{Authorization: "Bearer {CANARY}"}}}}\n    limit',
        ),
        "runs[0].models[0].model_args.default_headers.Authorization",
        id="default-headers-authorization",
    ),
    pytest.param(
        lambda s: s.replace(
            'model_args: {base_url: "http://127.0.0.1:9/v1"}\n    limit',
            'model_args: {base_url: "http://127.0.0.1:9/v1", default_headers: {x-api-key: plain-looking-value}}\n    limit',
        ),
        "runs[0].models[0].model_args.default_headers.x-api-key",
        id="x-api-key-header",
    ),
    pytest.param(
        _under("    limit: 2\n", "    generate: {extra_headers: {Cookie: 'session=abcdef123456'}}\n"),
        "runs[0].generate.extra_headers.Cookie",
        id="cookie-header",
    ),
    pytest.param(
        _under(
            "    limit: 2\n",
            "    generate: {extra_headers: {Proxy-Authorization: 'Basic dXNlcjpwYXNzd29yZA=='}}\n",
        ),
        "runs[0].generate.extra_headers.Proxy-Authorization",
        id="proxy-authorization-header",
    ),
    pytest.param(
        _under("    limit: 2\n", "    generate: {extra_headers: {api-key: 'abcdef123456abcdef'}}\n"),
        "runs[0].generate.extra_headers.api-key",
        id="azure-api-key-header",
    ),
    pytest.param(
        lambda s: s.replace(
            'base_url: "http://127.0.0.1:9/v1"}\n    limit',
            f'base_url: "https://user:{CANARY}@gateway.example/v1"}}\n    limit',
        ),
        "runs[0].models[0].model_args.base_url",
        id="url-userinfo",
    ),
    pytest.param(
        lambda s: s.replace("data: sample", f"data: https://me:{CANARY}@example.com/vivid.csv"),
        "data",
        id="data-url-userinfo",
    ),
    pytest.param(
        _under("name: creds\n", f"description: uses key {CANARY} for the gateway\n"),
        "description",
        id="key-in-free-text",
    ),
    pytest.param(
        lambda s: s.replace(
            'model_args: {base_url: "http://127.0.0.1:9/v1"}\n    limit',
            'model_args: {base_url: "http://127.0.0.1:9/v1", default_headers: {Authorization: {env: MY_KEY}}}\n    limit',
        ),
        "runs[0].models[0].model_args.default_headers.Authorization",
        id="env-mapping-form-is-not-the-placeholder",
    ),
]


@pytest.mark.parametrize(("make", "where"), SECRET_SHAPES)
def test_a_credential_in_a_spec_is_refused_at_its_yaml_path_without_echoing_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: Callable[[str], str], where: str
) -> None:
    from vivid_inspect.lab.cli.main import main

    spec = tmp_path / "spec.yaml"
    spec.write_text(make(GOOD_SPEC), encoding="utf-8")
    for command in ("validate", "run"):
        code = main([command, str(spec)])
        err = capsys.readouterr().err
        assert code == 2, err
        assert f"{where}: " in err and ("credential" in err or "key or token" in err), err
        assert CANARY not in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["spec.yaml"]  # nothing written


def test_credentials_are_reported_beside_other_problems_in_one_pass(tmp_path: Path) -> None:
    from vivid_inspect.lab.runner.spec.load import load_spec
    from vivid_inspect.lab.runner.spec.problems import SpecError

    text = GOOD_SPEC.replace("tasks: [explain]", "tasks: [explian]").replace(
        "    limit: 2\n",
        "    limit: 2\n    generate: {extra_headers: {Authorization: 'Bearer abcdefgh12345678'}}\n",
    )
    spec = tmp_path / "spec.yaml"
    spec.write_text(text, encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        load_spec(spec)
    paths = {".".join(str(part) for part in p.path) for p in caught.value.problems}
    assert {"runs.0.tasks.0", "runs.0.generate.extra_headers.Authorization"} <= paths


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(GOOD_SPEC, id="no-headers"),
        pytest.param(
            GOOD_SPEC.replace(
                "    limit: 2\n",
                '    limit: 2\n    generate: {extra_headers: {Authorization: "${env:MY_GATEWAY_KEY}", X-Trace: abc}}\n',
            ),
            id="env-placeholder-header",
        ),
        pytest.param(
            GOOD_SPEC.replace("    limit: 2\n", "    limit: 2\n    generate: {max_tokens: 100}\n"),
            id="max-tokens-is-no-token",
        ),
    ],
)
def test_secret_free_specs_pass(tmp_path: Path, text: str) -> None:
    from vivid_inspect.lab.runner.spec.load import load_spec

    spec = tmp_path / "spec.yaml"
    spec.write_text(text, encoding="utf-8")
    assert load_spec(spec).spec.name == "creds"


@pytest.mark.slow
def test_vivid_redact_cleans_logs_that_plain_inspect_eval_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from inspect_ai.log import read_eval_log

    from vivid_inspect.lab.cli.main import main

    log_dir = tmp_path / "logs"
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("FAKE_API_KEY", CANARY)
    items = explain_items()[:3]
    with FakeOpenAIServer(responder=default_responder) as server:
        server.faults = fail_prompts(lambda prompt: idiom_of(prompt) == items[0].idiom, "echo_auth")
        gen = get_model(f"openai-api/fake/{GEN}", base_url=server.base_url, memoize=False, max_retries=0)
        grader = get_model(f"openai-api/fake/{JUDGE}", base_url=server.base_url, memoize=False, max_retries=0)
        (log,) = eval(
            explain(data="sample", judge="aspect"),
            model=gen,
            model_roles={"grader": grader},
            sample_id=[item.id for item in items],
            log_dir=str(log_dir),
            display="none",
            fail_on_error=False,
            max_retries=0,
        )
    assert files_containing(log_dir, CANARY)  # plain Inspect stores the echoed key as it came

    capsys.readouterr()
    code = main(["redact", str(log_dir)])

    err = capsys.readouterr().err
    assert code == 0 and "1 file(s) rewritten" in err
    assert files_containing(log_dir, CANARY) == []
    redacted = read_eval_log(log.location)  # still a valid log
    assert redacted.samples is not None and len(redacted.samples) == len(items)
    (error,) = [s.error for s in redacted.samples if s.error is not None]
    assert "Bearer [REDACTED]" in error.message
    assert main(["redact", str(tmp_path / "nowhere")]) == 2
