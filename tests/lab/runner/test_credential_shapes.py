"""Credentials are refused wherever a spec can hold them, and redacted wherever text is written.

Every shape here is refused by ``vivid validate``, ``vivid plan`` and ``vivid run`` at its YAML
path with exit 2, nothing written and the value never quoted (not even by another problem at
the same place, such as a type error that would echo its input); and the same shapes are
redacted from text, JSON-escaped text and log files. The values are made up, but shaped as each
provider's keys are.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from vivid_inspect.lab.cli.main import main
from vivid_inspect.lab.runner.scrub import scrub_folder
from vivid_inspect.lab.runner.spec.credentials import scan_credentials
from vivid_inspect.lab.runner.spec.load import load_spec
from vivid_inspect.lab.runner.spec.problems import SpecError, format_path
from vivid_inspect.redact import REDACTED, credential_name, redact

FAKE = {
    "openai": "sk-proj-" + "Tq7vX2mB9kLp4Rz8Wc3N" * 3,
    "anthropic": "sk-ant-api03-" + "Hy6Gf2Dk9Ls4Qa7Zx1Cv" * 4,
    "google": "AIzaSy" + "B7c9D1e3F5g7H9j1K3m5N7p9Q1r3S5",
    "aws": "AKIA" + "Q7Z2X9W4V6B1N3M8",
    "aws-session": "ASIA" + "J4K8L2P6R9T3Y5U7",
    "github": "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "github-oauth": "gho_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2",
    "github-pat": "github_pat_" + "11ABCDEFG0" + "x7Y6z5W4v3U2t1S0r9Q8p7",
    "slack": "xoxb-" + "2048-8192-Zx81kLm09aQwErTy",
    "huggingface": "hf_" + "QwErTyUiOpAsDfGhJkLzXcVbNm1234567",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ2aXZpZC10ZXN0In0.c2lnbmF0dXJlLW9mLWEtZmFrZS10b2tlbg",
    "groq": "gsk_" + "Pz3Lx8Kq2Wn7Rb5Tc9Vm4Yd6Hf",
}
RANDOM = "Zq81kLm09aQwErTy77PpXv"  # a key with no provider's prefix: random-looking, 22 characters
PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\n-----END RSA PRIVATE KEY-----"


def good() -> dict[str, Any]:
    return {
        "name": "creds",
        "data": "sample",
        "log_dir": "logs",
        "runs": [
            {
                "tasks": ["explain"],
                "models": [
                    {"model": "openai-api/gateway/gen", "model_args": {"base_url": "http://127.0.0.1:9/v1"}}
                ],
                "limit": 2,
            }
        ],
        "judges": [
            {
                "name": "aspect",
                "strategy": "aspect",
                "model": "openai-api/gateway/judge",
                "model_args": {"base_url": "http://127.0.0.1:9/v1"},
            }
        ],
    }


def _put(data: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    target: Any = data
    for part in path[:-1]:
        target = target.setdefault(part, {}) if isinstance(target, dict) else target[part]
    target[path[-1]] = value
    return data


MODEL_ARGS = ("runs", 0, "models", 0, "model_args")
JUDGE_ARGS = ("judges", 0, "model_args")

# (where the value goes, the value, the YAML path reported)
PLACES: list[Any] = [
    # by value shape, wherever the value is
    *(
        pytest.param((*MODEL_ARGS, "default_query", "key"), value, None, id=f"query-key-{kind}")
        for kind, value in FAKE.items()
    ),
    pytest.param(
        (*JUDGE_ARGS, "extra_body", "keys"),
        ["ok", FAKE["aws"]],
        "judges[0].model_args.extra_body.keys[1]",
        id="aws-in-a-list",
    ),
    pytest.param((*MODEL_ARGS, "extra_body", "a", "b", "c"), FAKE["github"], None, id="deeply-nested"),
    pytest.param(
        ("judges", 0, "generate", "extra_body"),
        {"cfg": [{"v": FAKE["slack"]}]},
        "judges[0].generate.extra_body.cfg[0].v",
        id="list-of-mappings",
    ),
    pytest.param(("description",), f"uses {FAKE['anthropic']} for now", None, id="free-text"),
    pytest.param(("description",), f"the key is\n{PEM}\n", None, id="pem-private-key"),
    pytest.param(("description",), f"curl -H 'Authorization: Bearer {RANDOM}'", None, id="bearer-in-text"),
    pytest.param(("runs", 0, "name"), FAKE["openai"], None, id="a-name-that-is-a-key"),
    # URLs
    pytest.param((*MODEL_ARGS, "base_url"), f"https://gw.example/v1?key={RANDOM}", None, id="url-query-key"),
    pytest.param(
        (*MODEL_ARGS, "base_url"), f"https://gw.example/v1?x=1&api_key={RANDOM}", None, id="url-query-api-key"
    ),
    pytest.param(
        (*MODEL_ARGS, "base_url"), f"https://gw.example/v1?token={RANDOM}#frag", None, id="url-query-token"
    ),
    pytest.param(
        (*MODEL_ARGS, "base_url"), f"https://{FAKE['github']}@gw.example/v1", None, id="url-token-as-user"
    ),
    pytest.param(("data",), f"https://me:{RANDOM}@example.com/vivid.csv", None, id="data-url-password"),
    pytest.param(("data",), f"https://example.com/vivid.csv?sig={RANDOM}", None, id="data-url-signature"),
    # by key name, whatever the value looks like (unless a placeholder)
    *(
        pytest.param((*MODEL_ARGS, name), "a plain long value of words", None, id=f"named-{name}")
        for name in (
            "api_key",
            "apiKey",
            "token_value",
            "private_key",
            "secret",
            "client_secret",
            "password",
            "auth",
            "bearer",
            "access_token",
            "subscription_key",
        )
    ),
    pytest.param((*MODEL_ARGS, "default_headers", "X-Goog-Api-Key"), RANDOM, None, id="named-header"),
    pytest.param((*MODEL_ARGS, "api_key"), 123456789012345678901234, None, id="named-a-number"),
    pytest.param((*MODEL_ARGS, "credentials"), {"user": "me", "pass": RANDOM}, None, id="named-a-mapping"),
    # by key name and a random-looking value
    pytest.param(
        (*MODEL_ARGS, "extra_body", "cache_key"), RANDOM, None, id="credential-ish-name-random-value"
    ),
    # ${env:NAME} where it is not resolved would be sent as written
    pytest.param((*MODEL_ARGS, "api_key"), "${env:GATEWAY_KEY}", None, id="env-reference-outside-headers"),
]


def _where(path: tuple[Any, ...], reported: str | None) -> str:
    return reported or format_path(path)


@pytest.mark.parametrize(("path", "value", "reported"), PLACES)
def test_a_credential_anywhere_is_refused_at_its_path_without_quoting_it(
    tmp_path: Path, path: tuple[Any, ...], value: Any, reported: str | None
) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(_put(good(), path, value), sort_keys=False), encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        load_spec(spec)
    problems = {format_path(p.path): p.message for p in caught.value.problems}
    assert _where(path, reported) in problems, problems
    secret = value if isinstance(value, str) else json.dumps(value)
    for fragment in _fragments(secret):
        assert fragment not in str(caught.value)


def _fragments(secret: str) -> list[str]:
    """Pieces of a secret long enough to identify it (16 characters from its start, middle and end)."""
    core = secret.replace("${env:GATEWAY_KEY}", "")
    return (
        [core[i : i + 16] for i in (0, max(0, len(core) // 2 - 8), max(0, len(core) - 16))]
        if len(core) >= 16
        else []
    )


@pytest.mark.parametrize(
    ("path", "value"),
    [
        pytest.param(("runs", 0, "limit"), FAKE["anthropic"], id="type-error-would-quote-it"),
        pytest.param(("runs", 0, "models"), [FAKE["google"]], id="model-name-check-would-quote-it"),
        pytest.param(("judges", 0, "strategy"), FAKE["github"], id="unknown-strategy-would-quote-it"),
        pytest.param(("runs", 0, "tasks"), [FAKE["huggingface"]], id="unknown-task-would-quote-it"),
        pytest.param(
            ("runs", 0, "generate", "temperature"), FAKE["openai"], id="generate-type-would-quote-it"
        ),
    ],
)
def test_no_other_problem_quotes_a_credential(tmp_path: Path, path: tuple[Any, ...], value: Any) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(_put(good(), path, value), sort_keys=False), encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        load_spec(spec)
    secret = value if isinstance(value, str) else value[0]
    assert secret[:16] not in str(caught.value) and secret[-16:] not in str(caught.value)
    assert any(
        "credential" in p.message or "key or token" in p.message or "holds" in p.message
        for p in caught.value.problems
    )


@pytest.mark.parametrize("command", ["validate", "plan", "run"])
def test_every_command_exits_2_writes_nothing_and_never_prints_the_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    data = _put(good(), (*MODEL_ARGS, "default_query", "key"), FAKE["google"])
    _put(data, (*JUDGE_ARGS, "token_value"), RANDOM)
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    code = main([command, str(spec)])
    out, err = capsys.readouterr()
    assert code == 2
    assert (
        "runs[0].models[0].model_args.default_query.key: 'key' names a credential and the value holds a Google API key"
        in err
    )
    assert "judges[0].model_args.token_value: 'token_value' names a credential" in err
    assert "${env:NAME}" in err and "Traceback" not in err
    assert FAKE["google"][:12] not in out + err and RANDOM[:12] not in out + err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["spec.yaml"]


@pytest.mark.parametrize(
    ("path", "value"),
    [
        pytest.param(
            (*MODEL_ARGS, "default_headers", "Authorization"), "${env:GATEWAY_KEY}", id="env-header"
        ),
        pytest.param(
            ("judges", 0, "generate", "extra_headers", "X-Api-Key"),
            "${env:GATEWAY_KEY}",
            id="env-extra-header",
        ),
        pytest.param((*MODEL_ARGS, "tokenizer"), "Qwen/Qwen3-8B-Instruct-2507", id="tokenizer"),
        pytest.param((*MODEL_ARGS, "max_num_batched_tokens"), 8192, id="batched-tokens"),
        pytest.param(
            (*MODEL_ARGS, "extra_body", "cache_key"), "vivid-explain-run", id="credential-ish-but-words"
        ),
        pytest.param(
            ("description",), "Calls the gateway at https://gw.example/v1?model=x&region=eu", id="url-query"
        ),
        pytest.param((*MODEL_ARGS, "base_url"), "https://user@gw.example/v1", id="short-user"),
        pytest.param(
            ("description",), "sk-learn and AKIA-like words are fine; xox is fine", id="near-shapes"
        ),
    ],
)
def test_ordinary_values_pass(tmp_path: Path, path: tuple[Any, ...], value: Any) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(_put(good(), path, value), sort_keys=False), encoding="utf-8")
    assert load_spec(spec).spec.name == "creds"


@pytest.mark.parametrize(
    "name",
    [
        "api_key",
        "API-KEY",
        "apiKey",
        "x-api-key",
        "token_value",
        "private_key",
        "secret",
        "client_secret",
        "password",
        "passwd",
        "auth",
        "bearer",
        "Authorization",
        "Cookie",
        "key",
        "access_token",
        "hf_token",
        "openaiApiKey",
        "subscription-key",
        "credentials",
    ],
)
def test_credential_names(name: str) -> None:
    assert credential_name(name) == "credential"


@pytest.mark.parametrize(
    "name", ["tokenizer", "max_tokens", "base_url", "author", "keyword", "monkey", "max_num_batched_tokens"]
)
def test_ordinary_names(name: str) -> None:
    assert credential_name(name) is None


# -- the same shapes are redacted from what is written and printed --------------------------------

TEXTS = [
    *(
        pytest.param(f"error: invalid key {value} given", value, id=f"text-{kind}")
        for kind, value in FAKE.items()
    ),
    pytest.param(f"GET https://generativelanguage.example/v1?key={RANDOM}&alt=sse", RANDOM, id="query-key"),
    pytest.param(f"https://gw.example/v1?access_token={RANDOM}", RANDOM, id="query-access-token"),
    pytest.param(f"https://me:{RANDOM}@gw.example/v1", RANDOM, id="url-password"),
    pytest.param(f"https://{FAKE['github']}@github.com/org/repo", FAKE["github"], id="url-token-as-user"),
    pytest.param(f'{{"api_key": "{RANDOM}"}}', RANDOM, id="json-api-key"),
    pytest.param(f"password={RANDOM}", RANDOM, id="kv-password"),
    pytest.param(f"Authorization: Basic {RANDOM}==", RANDOM, id="basic-auth"),
    pytest.param(f"the key:\n{PEM}", PEM.splitlines()[1], id="pem"),
]


@pytest.mark.parametrize(("text", "secret"), TEXTS)
def test_shapes_are_redacted_from_text_and_json_escaped_text(text: str, secret: str) -> None:
    assert secret not in redact(text, environ={}) and REDACTED in redact(text, environ={})
    escaped = json.dumps({"message": text})
    cleaned = redact(escaped, environ={})
    assert secret not in cleaned and json.loads(cleaned)["message"].count(REDACTED) >= 1


def test_a_scrub_removes_every_shape_from_a_log_and_keeps_it_valid_json(tmp_path: Path) -> None:
    messages = [f"echo {value}" for value in FAKE.values()] + [f"GET https://x.example/v1?key={RANDOM}"]
    with zipfile.ZipFile(tmp_path / "log.eval", "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("samples/1.json", json.dumps({"error": {"message": "\n".join(messages)}}))
    (tmp_path / "logs.json").write_text(json.dumps({"x": messages}), encoding="utf-8")
    assert sorted(p.name for p in scrub_folder(tmp_path)) == ["log.eval", "logs.json"]
    with zipfile.ZipFile(tmp_path / "log.eval") as archive:
        member = archive.read("samples/1.json").decode()
    text = member + (tmp_path / "logs.json").read_text()
    assert not [value for value in [*FAKE.values(), RANDOM] if value in text]
    assert json.loads(member)["error"]["message"].count(REDACTED) == len(messages)


def test_the_scan_reports_values_to_keep_out_of_other_messages() -> None:
    scan = scan_credentials(_put(good(), (*MODEL_ARGS, "api_key"), RANDOM))
    assert RANDOM in scan.values and [format_path(p.path) for p in scan.problems] == [
        "runs[0].models[0].model_args.api_key"
    ]


@pytest.mark.slow
def test_shapes_a_provider_echoes_reach_no_file_and_no_output_of_a_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    # keys no variable holds (a gateway's own, quoted in its error): only their shape gives them away
    from tests.fake_api import default_responder, explain_items, idiom_of
    from tests.lab.runner.test_secrets import files_containing
    from vivid_inspect.testing.openai_server import FakeOpenAIServer

    echoed = [FAKE["google"], FAKE["github"], FAKE["jwt"], f"https://gw.example/v1?key={RANDOM}"]
    broken = explain_items()[0].idiom

    def responder(model: str, messages: list[dict[str, Any]]) -> str:
        if idiom_of(str(messages[-1]["content"])) == broken:
            raise RuntimeError("upstream refused: " + " ".join(echoed))
        return default_responder(model, messages)

    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("FAKE_API_KEY", "fake-key")
    with FakeOpenAIServer(responder=responder) as server:
        data = good()
        for where in (MODEL_ARGS, JUDGE_ARGS):
            _put(data, (*where, "base_url"), server.base_url)
        data["runs"][0]["models"][0]["model"] = "openai-api/fake/gen"
        data["judges"][0]["model"] = "openai-api/fake/judge"
        data["retries"] = {"attempts": 0, "max_retries": 0, "timeout": 60}
        spec = tmp_path / "spec.yaml"
        spec.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        capfd.readouterr()
        code = main(["run", str(spec), "--display", "plain"])
    out, err = capfd.readouterr()
    assert code == 1  # the echoed error is a sample error: incomplete, resumable
    assert any("upstream refused" in line for line in (out + err).splitlines()) or list(
        tmp_path.rglob("*.eval")
    )
    for value in [FAKE["google"], FAKE["github"], FAKE["jwt"], RANDOM]:
        assert files_containing(tmp_path, value) == [], value
        assert value not in out + err


@pytest.mark.parametrize(
    "coloured",
    [
        pytest.param(
            f"\x1b[32mhttps://gw.example/v1?\x1b[0m\x1b[32mkey\x1b[0m=\x1b[32m{RANDOM}\x1b[0m", id="raw-codes"
        ),
        pytest.param(
            json.dumps(
                {"tb": f"\x1b[32mrefused: \x1b[0m\x1b[32m{FAKE['github']}\x1b[0m, Bearer\x1b[0m {RANDOM}"}
            ),
            id="json-escaped-codes",
        ),
    ],
)
def test_colour_codes_that_split_a_credential_do_not_hide_it(coloured: str) -> None:
    # rich colours a URL's query part by part in the tracebacks Inspect stores
    cleaned = redact(coloured, environ={})
    assert RANDOM not in cleaned and FAKE["github"] not in cleaned and REDACTED in cleaned
    if coloured.startswith("{"):
        assert json.loads(cleaned)  # still valid JSON


def test_colour_codes_are_kept_where_nothing_is_redacted() -> None:
    text = "\x1b[32mhttps://gw.example/v1?\x1b[0m\x1b[32mmodel\x1b[0m=gen"
    assert redact(text, environ={}) == text


# -- by shape, under names the check cannot know (issue 30.5) --------------------------------------

AZURE = "aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY2zA4bC6dE8fG0hJ2kL4m/Q=="  # base64, as Azure Functions' keys
HEX32 = "9f86d081884c7d659a2feaa0c55ad015"  # an Azure subscription key's shape
COMMIT = "0123456789abcdef0123456789abcdef01234567"  # a Hugging Face snapshot folder, a revision
HEX40 = "3f7a9c2e8b1d4f6a0c5e7b9d2f4a6c8e0b1d3f5a"  # a key of 40 hexadecimal digits, as a commit
DASHED = "k7Qm-29xZ-p4Lw-88Rt-vB3n-Yc61"
TELEGRAM = "bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"
URL = "https://fn.azurewebsites.net/api/judge"

BY_SHAPE: list[Any] = [
    pytest.param((*MODEL_ARGS, "default_query", "code"), AZURE, id="azure-functions-code"),
    pytest.param((*MODEL_ARGS, "default_query", "code"), HEX32, id="hex-key-in-query"),
    pytest.param((*MODEL_ARGS, "default_query", "x"), "Zq81kLm09aQwErTy77PpXv4Nc", id="base62-in-query"),
    pytest.param((*MODEL_ARGS, "extra_query", "code"), AZURE, id="extra-query"),
    pytest.param((*JUDGE_ARGS, "params", "code"), AZURE, id="params"),
    pytest.param((*JUDGE_ARGS, "default_headers", "X-Functions-Code"), AZURE, id="header-unknown-name"),
    pytest.param(("judges", 0, "generate", "extra_headers", "X-Trace"), AZURE, id="extra-header"),
    pytest.param((*MODEL_ARGS, "env", "GATEWAY"), AZURE, id="env-mapping"),
    pytest.param((*MODEL_ARGS, "environment", "X"), AZURE, id="environment-mapping"),
    pytest.param((*MODEL_ARGS, "base_url"), f"{URL}?code={AZURE}", id="url-query"),
    pytest.param(
        (*MODEL_ARGS, "base_url"),
        f"{URL}?code={AZURE.replace('/', '%2F').replace('=', '%3D')}",
        id="url-encoded",
    ),
    pytest.param((*MODEL_ARGS, "base_url"), f"{URL}?a=1&code={HEX32}", id="url-query-hex"),
    pytest.param((*MODEL_ARGS, "base_url"), f"{URL}#code={AZURE}", id="url-fragment-param"),
    pytest.param((*MODEL_ARGS, "base_url"), f"{URL}#{AZURE}", id="url-fragment-bare"),
    pytest.param(
        (*MODEL_ARGS, "base_url"), f"https://fn.azurewebsites.net/{AZURE[:40]}/v1", id="url-path-segment"
    ),
    pytest.param(
        (*JUDGE_ARGS, "base_url"), f"https://api.telegram.org/{TELEGRAM}/v1", id="url-path-bot-token"
    ),
    pytest.param(("data",), f"https://files.example/{AZURE[:40]}/vivid.csv", id="data-url-path"),
    pytest.param(("description",), f"our gateway is {URL}?code={AZURE}", id="url-in-free-text"),
    # found by an outside tester: nested, by name, 40/64 hex off paths, split by "+" or dashes, bodies
    pytest.param((*MODEL_ARGS, "default_query", "code"), [AZURE], id="key-in-a-list"),
    pytest.param((*MODEL_ARGS, "default_query", "code"), {"v": AZURE}, id="key-in-a-nested-mapping"),
    pytest.param((*MODEL_ARGS, "default_headers", "X-Trace"), [AZURE], id="header-list"),
    pytest.param((*MODEL_ARGS, "default_query"), {AZURE: "1"}, id="key-as-query-name"),
    pytest.param((*JUDGE_ARGS, "default_headers"), {RANDOM + "Ab3": "1"}, id="key-as-header-name"),
    pytest.param((*MODEL_ARGS, "default_query", "code"), HEX40, id="hex40-in-query"),
    pytest.param((*MODEL_ARGS, "default_query", "code"), HEX40 + HEX40[:24], id="hex64-in-query"),
    pytest.param((*MODEL_ARGS, "default_headers", "X-Trace"), HEX40, id="hex40-in-header"),
    pytest.param((*MODEL_ARGS, "env", "GATEWAY"), HEX40, id="hex40-in-env"),
    pytest.param((*MODEL_ARGS, "base_url"), f"{URL}?code={HEX40}", id="url-query-hex40"),
    pytest.param((*MODEL_ARGS, "base_url"), f"{URL}?code=Zq81kLm09aQw+ErTy77PpXv4Nc", id="url-plus-split"),
    pytest.param((*MODEL_ARGS, "base_url"), f"{URL}?{AZURE}=1", id="url-key-as-parameter-name"),
    pytest.param((*MODEL_ARGS, "default_query", "code"), DASHED, id="dashed-in-query"),
    pytest.param(
        (*MODEL_ARGS, "default_headers", "X-Code"), DASHED.replace("-", "_"), id="underscored-header"
    ),
    pytest.param((*MODEL_ARGS, "base_url"), f"{URL}?code={DASHED}", id="url-dashed"),
    pytest.param((*MODEL_ARGS, "extra_body", "blob"), AZURE, id="extra-body"),
    pytest.param(("judges", 0, "generate", "extra_body", "x"), {"y": [RANDOM]}, id="generate-extra-body"),
    pytest.param((*MODEL_ARGS, "base_url"), f"//user:{RANDOM}@gw.example/v1", id="schemeless-userinfo"),
    pytest.param((*MODEL_ARGS, "base_url"), f"user:{RANDOM}@gw.example:443/v1", id="bare-userinfo"),
    pytest.param(("description",), f"the gateway: svc:{RANDOM}@gw.example/v1", id="bare-userinfo-in-text"),
]


@pytest.mark.parametrize(("path", "value"), BY_SHAPE)
def test_a_key_shaped_value_is_refused_whatever_its_name(
    tmp_path: Path, path: tuple[Any, ...], value: Any
) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(_put(good(), path, value), sort_keys=False), encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        load_spec(spec)
    problems = {format_path(p.path): p.message for p in caught.value.problems}
    at = [where for where in problems if where.startswith(format_path(path))]  # a list's item, a name
    assert at, problems
    assert all("${env:NAME}" in problems[where] for where in at)
    written = json.dumps(value)
    for fragment in _fragments(AZURE if AZURE[:20] in written else RANDOM if RANDOM in written else value):
        assert fragment not in str(caught.value)


LLAMACPP_MODEL = f"openai-api/llamacpp//root/.cache/huggingface/hub/models--Qwen--Qwen3-0.6B-GGUF/snapshots/{COMMIT}/Qwen3-0.6B-Q8_0.gguf"

EXEMPT: list[Any] = [
    pytest.param(("runs", 0, "models", 0, "model"), LLAMACPP_MODEL, id="llamacpp-model-id-is-a-cache-path"),
    pytest.param(
        (*MODEL_ARGS, "model_path"),
        f"/root/.cache/huggingface/hub/models--x/snapshots/{COMMIT}/m.gguf",
        id="cache-path",
    ),
    pytest.param(
        ("data",),
        f"https://huggingface.co/datasets/org/vivid/resolve/{COMMIT}/vivid.csv",
        id="pinned-data-url",
    ),
    pytest.param(
        (*MODEL_ARGS, "base_url"),
        f"https://gateway.ai.cloudflare.com/v1/{HEX32}/my-gateway/openai",
        id="hex-account-id-in-path",
    ),
    pytest.param(
        (*MODEL_ARGS, "base_url"),
        "https://x.example/serving-endpoints/550e8400-e29b-41d4-a716-446655440000/v1",
        id="uuid-in-path",
    ),
    pytest.param(
        (*MODEL_ARGS, "base_url"),
        "https://huggingface.co/Qwen/Qwen2.5-7B-Instruct-GGUF/resolve/main/qwen2.5-7b-instruct-q4_k_m.gguf",
        id="model-file-url",
    ),
    pytest.param(
        (*MODEL_ARGS, "base_url"), "http://127.0.0.1:9/v1?api-version=2024-08-01-preview", id="api-version"
    ),
    pytest.param(
        (*MODEL_ARGS, "base_url"), f"http://127.0.0.1:9/v1?revision={COMMIT}#section-2", id="commit-in-query"
    ),
    pytest.param(
        (*MODEL_ARGS, "default_query"),
        {"api-version": "2024-10-21", "deployment": "Meta-Llama-3.1-70B-Instruct-Turbo"},
        id="query-words",
    ),
    pytest.param((*MODEL_ARGS, "default_query", "code"), "local", id="query-placeholder"),
    pytest.param(
        (*MODEL_ARGS, "default_headers"),
        {
            "User-Agent": "vivid-inspect/1.0 (+https://github.com/org/vivid)",
            "X-Request-Source": "nightly-benchmark-run",
        },
        id="headers-words",
    ),
    pytest.param(
        (*MODEL_ARGS, "env"),
        {"HF_HOME": "/root/.cache/huggingface", "CUDA_VISIBLE_DEVICES": "0,1", "HF_REVISION": COMMIT},
        id="env-words",
    ),
    pytest.param(
        (*MODEL_ARGS, "default_query"),
        {"request_id": "550e8400-e29b-41d4-a716-446655440000", "model": "gpt-4o-2024-08-06", "rev": "v1"},
        id="uuid-and-dated-model-in-query",
    ),
    pytest.param(
        (*MODEL_ARGS, "default_headers"),
        {"X-Request-Id": "a1b2c3d4-e5f6-a7b8-c9d0-e1f2a3b4c5d6", "X-Model": "claude-3-5-sonnet-20241022"},
        id="uuid-request-id-header",
    ),
    pytest.param(
        (*MODEL_ARGS, "default_query"),
        {"revision": COMMIT, "sha256": COMMIT + COMMIT[:24], "deployment": "llama3-70b-8192-instruct-v2"},
        id="commit-and-digest-by-name",
    ),
    pytest.param(
        (*MODEL_ARGS, "extra_body"),
        {"chat_template_kwargs": {"enable_thinking": False}, "guided_choice": ["yes", "no"], "top_k": 20},
        id="extra-body-options",
    ),
    pytest.param(
        ("description",),
        "mail ops:oncall@example.org, mailto:firstname.lastname.long@example.org or "
        "git@github.com:org/vivid-inspect.git; see 2024-08-01 at 10:30 (ratio 3:1@temperature:0.7)",
        id="emails-and-git-remotes",
    ),
]


@pytest.mark.parametrize(("path", "value"), EXEMPT)
def test_names_paths_and_ids_are_not_mistaken_for_keys(
    tmp_path: Path, path: tuple[Any, ...], value: Any
) -> None:
    data = _put(good(), path, value)
    assert scan_credentials(data).problems == []
    assert redact(json.dumps(value)) == json.dumps(value)  # a model name in a log keeps its generation key


@pytest.mark.parametrize("command", ["validate", "plan", "run"])
def test_an_azure_functions_key_stops_every_command_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        yaml.safe_dump(_put(good(), (*MODEL_ARGS, "default_query", "code"), AZURE)), encoding="utf-8"
    )
    assert main([command, str(spec)]) == 2
    out, err = capsys.readouterr()
    assert (
        "runs[0].models[0].model_args.default_query.code: the value in default_query is shaped like a key"
        in err
    )
    assert AZURE[:16] not in out + err and AZURE[20:36] not in out + err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["spec.yaml"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"POST {URL}?code={AZURE} failed", f"POST {URL}?code={REDACTED} failed"),
        (f"{URL}?code={AZURE}&x=1", f"{URL}?code={REDACTED}&x=1"),
        (f"{URL}?code={HEX32}: 401", f"{URL}?code={REDACTED}: 401"),
        (f"{URL}#access_token={AZURE}", f"{URL}#access_token={REDACTED}"),
        (f"{URL}#{AZURE}", f"{URL}#{REDACTED}"),
        (f"https://api.telegram.org/{TELEGRAM}/send", f"https://api.telegram.org/{REDACTED}/send"),
        (json.dumps({"url": f"{URL}?code={AZURE}"}), json.dumps({"url": f"{URL}?code={REDACTED}"})),
        (f"{URL}?code={HEX40}", f"{URL}?code={REDACTED}"),
        (f"POST //user:{RANDOM}@gw.example/v1", f"POST //user:{REDACTED}@gw.example/v1"),
        ("see //git@github.com/org/vivid and https://ollama:ollama@localhost/v1",) * 2,
        (f"{URL}?code={DASHED}&x=1", f"{URL}?code={REDACTED}&x=1"),
        (f"{URL}?code=Zq81kLm09aQw+ErTy77PpXv4Nc", f"{URL}?code={REDACTED}"),
        (f"{URL}?revision={COMMIT}&id=550e8400-e29b-41d4-a716-446655440000",) * 2,
    ],
)
def test_key_shaped_url_parts_are_redacted_from_text(text: str, expected: str) -> None:
    assert redact(text) == expected
