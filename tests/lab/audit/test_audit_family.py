"""Model families for the self-preference check: inferred from names, declared by flag or spec."""

from __future__ import annotations

from pathlib import Path

import pytest

from vivid_inspect.lab.audit.family import (
    NO_FAMILY,
    FamilyError,
    infer_family,
    normalise_family,
    parse_family_args,
    resolve_family,
)
from vivid_inspect.lab.runner.cells import expand
from vivid_inspect.lab.runner.spec.load import load_spec
from vivid_inspect.lab.runner.spec.problems import SpecError, format_path

INFERRED = [
    # provider/name -> family
    ("openai/gpt-4.1", "openai"),
    ("openai/gpt-4o-mini", "openai"),
    ("openai/o1", "openai"),
    ("openai/o3-mini", "openai"),
    ("openrouter/openai/o4-mini", "openai"),
    ("azureai/gpt-4o", "openai"),
    ("hf/openai/gpt-oss-20b", "openai"),
    ("openai/text-embedding-3-small", "openai"),  # no name rule: the provider serves only its own
    ("anthropic/claude-3-5-sonnet-latest", "anthropic"),
    ("bedrock/anthropic.claude-3-haiku", "anthropic"),
    ("google/gemini-2.0-flash", "google"),
    ("hf/google/gemma-2-9b-it", "google"),
    ("vllm/Qwen/Qwen2.5-7B-Instruct", "qwen"),
    ("openai-api/local/qwen3", "qwen"),  # an OpenAI-compatible server says nothing of the model
    ("together/Qwen/QwQ-32B", "qwen"),
    ("together/meta-llama/Llama-3.3-70B-Instruct", "meta"),
    ("groq/llama-3.1-8b-instant", "meta"),
    ("mistral/mistral-large-latest", "mistral"),
    ("together/mistralai/Mixtral-8x7B-Instruct-v0.1", "mistral"),
    ("ollama/deepseek-r1", "deepseek"),
    ("together/deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", "deepseek"),  # DeepSeek's distillation
    ("deepseek/deepseek-chat", "deepseek"),
    ("vivid/oracle", NO_FAMILY),
    ("vivid/literal", NO_FAMILY),
    ("vivid/chrf", NO_FAMILY),
    ("mockllm/model", NO_FAMILY),
    ("mockllm/gpt-4o", NO_FAMILY),  # a mock named like GPT is still a mock
    ("openai-api/local/my-tune", None),
    ("hf/vilm/vinallama-7b-chat", "meta"),
    ("hf/someone/photo1-model", None),  # "o1" inside a word is not OpenAI's o1
]


@pytest.mark.parametrize(("model", "family"), INFERRED, ids=[m for m, _ in INFERRED])
def test_family_is_inferred_from_provider_and_name(model: str, family: str | None) -> None:
    assert infer_family(model) == family


@pytest.mark.parametrize("model", [None, "", "  "], ids=["none", "empty", "blank"])
def test_a_judge_without_a_model_has_no_family(model: str | None) -> None:
    assert infer_family(model) == NO_FAMILY


def test_declared_family_overrides_the_inferred_one() -> None:
    declared = parse_family_args(["openai/gpt-4.1=Lab-X", "openai-api/local/my-tune=qwen"])
    assert resolve_family("openai/gpt-4.1", declared) == ("lab-x", "declared")
    assert resolve_family("openai-api/local/my-tune", declared) == ("qwen", "declared")
    assert resolve_family("openai/gpt-4o", declared) == ("openai", "inferred")
    assert resolve_family("openai-api/local/other", declared) == (None, "unknown")


def test_a_judge_is_declared_under_its_model_first_then_its_name() -> None:
    declared = {"lexical": "none", "openai/gpt-4.1": "openai", "gpt_judge": "other"}
    assert resolve_family(None, declared, aliases=("lexical",)) == ("none", "declared")
    assert resolve_family("openai/gpt-4.1", declared, aliases=("gpt_judge",)) == ("openai", "declared")
    assert resolve_family("vivid/chrf", {"chrf_aspect": "x"}, aliases=("chrf_aspect",)) == ("x", "declared")


def test_family_names_are_compared_in_nfc_lower_case() -> None:
    assert normalise_family(" OpenAI ") == "openai"
    # the model key is NFC, so a decomposed spelling in the flag finds the composed model name
    declared = parse_family_args(["openai-api/local/ho\u0300a=qwen"])
    assert resolve_family("openai-api/local/h\u00f2a", declared) == ("qwen", "declared")


BAD_FAMILY_ARGS = [
    (["gpt-4o"], "expected MODEL=FAMILY"),
    (["=openai"], "expected MODEL=FAMILY"),
    (["openai/gpt-4o="], "is not a short name"),
    (["openai/gpt-4o=open ai"], "is not a short name"),
    (["openai/gpt-4o=openai", "openai/gpt-4o=anthropic"], "already given family 'openai'"),
]


@pytest.mark.parametrize(
    ("values", "message"), BAD_FAMILY_ARGS, ids=["no-equals", "no-model", "empty", "space", "twice"]
)
def test_bad_family_arguments_are_refused_with_the_argument(values: list[str], message: str) -> None:
    with pytest.raises(FamilyError) as caught:
        parse_family_args(values)
    assert message in str(caught.value)
    assert repr(values[-1]) in str(caught.value)


def test_every_bad_family_argument_is_reported_at_once() -> None:
    with pytest.raises(FamilyError) as caught:
        parse_family_args(["a", "b=", "c=ok"])
    assert str(caught.value).splitlines() == [
        "--family 'a': expected MODEL=FAMILY (e.g. openai-api/local/tune=qwen)",
        "--family 'b=': family '' is not a short name (letters, digits, _ . -)",
    ]


def test_the_same_family_twice_is_fine() -> None:
    assert parse_family_args(["m=x", "m=X"]) == {"m": "x"}
    assert parse_family_args(None) == {}


# --- `family:` in a spec ---------------------------------------------------------------------------

SPEC = """\
name: families
data: sample
log_dir: logs
runs:
  - tasks: [explain]
    limit: 3
    models:
      - vivid/oracle
      - {{model: vivid/literal, family: {model_family}}}
judges:
  - {{name: chrf_aspect, strategy: aspect, model: vivid/chrf, family: {judge_family}}}
"""


def _load(tmp_path: Path, model_family: str, judge_family: str):
    path = tmp_path / "spec.yaml"
    path.write_text(SPEC.format(model_family=model_family, judge_family=judge_family), encoding="utf-8")
    return load_spec(path)


def test_a_spec_declares_families_on_models_and_judges(tmp_path: Path) -> None:
    spec = _load(tmp_path, "Offline-Lab", "qwen").spec
    assert [m.family for m in spec.runs[0].models] == [None, "Offline-Lab"]
    assert spec.judges[0].family == "qwen"


@pytest.mark.parametrize(
    ("model_family", "judge_family", "where"),
    [
        ('"open lab"', "qwen", "runs[0].models[1].family"),
        ("qwen", '"-x"', "judges[0].family"),
        ("3", "qwen", "runs[0].models[1].family"),
    ],
    ids=["space-in-model-family", "leading-dash-in-judge-family", "number"],
)
def test_a_bad_family_in_a_spec_is_reported_at_its_key(
    tmp_path: Path, model_family: str, judge_family: str, where: str
) -> None:
    with pytest.raises(SpecError) as caught:
        _load(tmp_path, model_family, judge_family)
    assert [format_path(p.path) for p in caught.value.problems] == [where]
    message = caught.value.problems[0].message
    assert "is not a family" in message or "valid string" in message, message


def test_a_family_changes_no_judge_cell(tmp_path: Path) -> None:
    # Declaring who made a model must not make a finished judge cell look stale.
    first = _load(tmp_path, "lab", "qwen")
    second = _load(tmp_path, "other", "other")
    cells = [expand(loaded) for loaded in (first, second)]
    assert [c.config for c in cells[0].judges] == [c.config for c in cells[1].judges]
    assert [c.label for c in cells[0].generations] == [c.label for c in cells[1].generations]
