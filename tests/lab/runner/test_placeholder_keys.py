"""A placeholder key is not a secret: never redacted, never refused in a spec, said in one line.

Local servers take any key, and their documentation uses words such as ``ollama`` or ``EMPTY``.
Redacting such a word wherever it occurs rewrote model names in the logs, the resolved spec and
the report (``openai-api/[REDACTED]/gen``), so a finished spec no longer matched its logs and
every rerun repeated its calls. One rule (``redact.placeholder_reason``) decides, for redaction
and for the spec's credential check: a value under 16 characters, a documented placeholder, or a
value that occurs in the spec's own model names, service names or paths.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from vivid_inspect import redact as redact_module
from vivid_inspect.lab.cli.main import main
from vivid_inspect.lab.runner.spec.load import load_spec
from vivid_inspect.redact import (
    PLACEHOLDER_LENGTH,
    PLACEHOLDERS,
    REDACTED,
    placeholder_reason,
    redact,
)
from vivid_inspect.testing.openai_server import FakeOpenAIServer

REAL = "Zq81-kLm0-9aQw-ErTy-77Pp"  # a real-looking key: long, mixed, not on the list


@pytest.fixture(autouse=True)
def _fresh_public_text(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test starts with no spec texts registered (a run in this process registers its own)."""
    monkeypatch.setattr(redact_module, "_PUBLIC", redact_module.PublicText())
    yield


SHORT = ["ollama", "EMPTY", "none", "lm-studio", "vllm", "dummy", "test", "x", "1234567890", "a" * 15]
LISTED = ["sk-no-key-required", "SK-NO-KEY-REQUIRED", "your-api-key-here", "text-generation-webui"]


@pytest.mark.parametrize("value", SHORT + LISTED)
def test_short_and_listed_values_are_placeholders(value: str) -> None:
    assert placeholder_reason(value, public=[]) is not None


@pytest.mark.parametrize(
    ("value", "public"),
    [
        pytest.param("qwen25instructlocal", ["openai-api/qwen25instructlocal/gen"], id="service-name"),
        pytest.param("Qwen3-8B-Instruct-2507", ["vllm/Qwen/Qwen3-8B-Instruct-2507"], id="model-name"),
        pytest.param("my-experiment-logs-2025", ["/home/me/my-experiment-logs-2025/logs"], id="path"),
        pytest.param(
            "MY-EXPERIMENT-LOGS-2025", ["/home/me/my-experiment-logs-2025/logs"], id="path-any-case"
        ),
    ],
)
def test_a_value_in_the_specs_own_names_or_paths_is_a_placeholder(value: str, public: list[str]) -> None:
    assert placeholder_reason(value, public=public) == "part of the spec's model names or paths"


@pytest.mark.parametrize("value", [REAL, "sk-proj-" + "A1b2C3d4" * 6, "x" * PLACEHOLDER_LENGTH + "y"])
def test_long_unlisted_values_are_not_placeholders(value: str) -> None:
    assert value.casefold() not in PLACEHOLDERS
    assert placeholder_reason(value, public=["openai-api/llamacpp/gen"]) is None


@pytest.mark.parametrize("value", SHORT + LISTED)
@pytest.mark.parametrize("name", ["LLAMACPP_API_KEY", "OLLAMA_API_KEY", "LOCAL_TOKEN", "GATEWAY_SECRET"])
def test_a_placeholder_variable_is_not_redacted_but_a_real_key_beside_it_is(name: str, value: str) -> None:
    text = f"model openai-api/{value}/gen at http://{value}:8080/v1; echoed key {REAL}; key={value}"
    cleaned = redact(text, environ={name: value, "OPENAI_API_KEY": REAL})
    assert cleaned == text.replace(REAL, REDACTED)


def test_a_long_key_that_is_part_of_a_registered_model_name_is_not_redacted() -> None:
    value = "qwen25instructlocal"
    text = f"openai-api/{value}/gen failed"
    assert redact(text, environ={"LOCAL_API_KEY": value}) == f"openai-api/{REDACTED}/gen failed"
    redact_module.add_public_text([f"openai-api/{value}/gen"])
    assert redact(text, environ={"LOCAL_API_KEY": value}) == text


@pytest.mark.parametrize(
    "text",
    [
        "Authorization: Bearer EMPTY",
        "Authorization: Bearer sk-no-key-required",
        "http://user:ollama@127.0.0.1:11434/v1",
        "https://example.test/v1?key=llamacpp&alt=json",
        '{"api_key": "your-api-key-here"}',
    ],
)
def test_placeholders_in_credential_shapes_are_left_alone(text: str) -> None:
    assert redact(text, environ={}) == text


# -- in a spec: neither refused nor hidden, and said in one line ----------------------------------

SPEC = """\
name: local
data: sample
log_dir: logs
runs:
  - tasks: [explain]
    models:
      - model: {model}
        model_args: {args}
    limit: 2
judges:
  - name: lexical
    strategy: lexical
"""


@pytest.mark.parametrize(
    ("model", "args", "where"),
    [
        pytest.param(
            "openai-api/ollama/gen", "{api_key: ollama}", "runs[0].models[0].model_args.api_key", id="api-key"
        ),
        pytest.param(
            "vllm/Qwen/Qwen3-8B-Instruct-2507",
            "{api_key: Qwen3-8B-Instruct-2507}",
            "runs[0].models[0].model_args.api_key",
            id="model-name-as-key",
        ),
        pytest.param(
            "openai-api/vllm/gen",
            "{default_headers: {Authorization: 'Bearer EMPTY'}}",
            "runs[0].models[0].model_args.default_headers.Authorization",
            id="bearer-empty",
        ),
        pytest.param(
            "openai-api/lmstudio/gen",
            "{default_query: {key: sk-no-key-required}}",
            "runs[0].models[0].model_args.default_query.key",
            id="listed-query-key",
        ),
        pytest.param(
            "openai-api/llamacpp/gen",
            "{base_url: 'http://llamacpp:llamacpp@127.0.0.1:8080/v1'}",
            None,
            id="placeholder-in-url",
        ),
    ],
)
def test_a_placeholder_in_a_spec_passes_with_one_line_saying_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], model: str, args: str, where: str | None
) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC.format(model=model, args=args), encoding="utf-8")
    assert main(["validate", str(spec)]) == 0
    err = capsys.readouterr().err
    if where is not None:
        (note,) = [line for line in err.splitlines() if "not treated as a secret" in line]
        assert f"{where}: a placeholder (" in note and str(spec) in note
    assert load_spec(spec).spec.runs[0].models[0].model == model


# -- three runs of a local server whose key is a placeholder --------------------------------------

RUN_SPEC = """\
name: local
data: sample
log_dir: logs
runs:
  - tasks: [explain]
    models:
      - model: openai-api/{service}/gen
        model_args: {{base_url: "{url}"}}
    limit: 3
judges:
  - name: aspect
    strategy: aspect
    model: openai-api/{service}/judge
    model_args: {{base_url: "{url}"}}
retries: {{attempts: 0, max_retries: 0, timeout: 60}}
"""


def _stored(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` and every member of its zips, as bytes."""
    found: dict[str, bytes] = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        found[str(path.relative_to(folder))] = path.read_bytes()
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                for name in archive.namelist():
                    found[f"{path.relative_to(folder)}!{name}"] = archive.read(name)
    return found


@pytest.mark.slow
@pytest.mark.parametrize(
    ("service", "key"),
    [
        pytest.param("llamacpp", "llamacpp", id="short-key-in-the-service-name"),
        pytest.param("qwen25instructlocal", "qwen25instructlocal", id="long-key-that-is-the-service-name"),
    ],
)
def test_three_runs_with_a_placeholder_key_make_each_call_once_and_rewrite_nothing(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    service: str,
    key: str,
) -> None:
    variable = f"{service.upper()}_API_KEY"
    monkeypatch.setenv(variable, key)
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    log_dir = tmp_path / "logs"
    with FakeOpenAIServer(
        responder=lambda model, messages: "4" if model == "judge" else "Một lời giải thích."
    ) as server:
        spec = tmp_path / "local.yaml"
        spec.write_text(RUN_SPEC.format(service=service, url=server.base_url), encoding="utf-8")
        runs = []
        for _ in range(3):
            capsys.readouterr()
            code = main(["run", str(spec), "--display", "none"])
            runs.append((code, capsys.readouterr().err, dict(server.model_counts)))
            if len(runs) == 1:
                first = {k: v for k, v in _stored(log_dir).items() if k.endswith(".eval") or ".eval!" in k}
    assert [code for code, _, _ in runs] == [0, 0, 0], runs[0][1]
    assert [counts for _, _, counts in runs] == [{"gen": 3, "judge": 3}] * 3  # no call made twice
    notes = [line for line in runs[0][1].splitlines() if variable in line]
    assert len(notes) == 1 and notes[0].startswith(f"vivid run: {variable} (")
    assert notes[0].endswith("a placeholder, not treated as a secret (not redacted from logs or output)")
    assert f"={key}" not in notes[0]
    stored = _stored(log_dir)
    assert not [name for name, data in stored.items() if REDACTED.encode() in data]
    # the logs are those of the first run, byte for byte, and they name the model as the spec does
    assert {k: v for k, v in stored.items() if k in first} == first
    resolved = yaml.safe_load((log_dir / "vivid" / "local" / "spec.resolved.yaml").read_text())
    assert resolved["spec"]["runs"][0]["models"][0]["model"] == f"openai-api/{service}/gen"
    assert f"openai-api/{service}/gen" in (log_dir / "report" / "report.md").read_text()


@pytest.mark.slow
def test_vivid_redact_leaves_a_key_that_is_part_of_the_logs_model_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample

    value = "qwen25instructlocal"
    (log,) = eval(
        Task(dataset=[Sample(input="xin chào", target="x")]),
        model=f"mockllm/{value}",
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    before = _stored(tmp_path / "logs")
    monkeypatch.setenv("LOCAL_API_KEY", value)
    monkeypatch.setenv("LLAMACPP_API_KEY", "llamacpp")
    capsys.readouterr()
    assert main(["redact", str(tmp_path / "logs")]) == 0
    err = capsys.readouterr().err
    assert "0 file(s) rewritten" in err
    (line,) = [line for line in err.splitlines() if "not treated as a secret" in line]
    assert "LLAMACPP_API_KEY (under 16 characters)" in line
    assert "LOCAL_API_KEY (part of the spec's model names or paths)" in line
    assert value not in line.replace("LOCAL_API_KEY", "")
    after = _stored(tmp_path / "logs")
    assert {name: data for name, data in after.items() if not name.startswith(".")} == before
