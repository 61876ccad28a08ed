"""Which model family a judge or a generator belongs to: declared, or inferred from its name.

Self-preference is a judge favouring answers of its own family (a GPT judge scoring GPT
explanations higher). The family comes, in this order, from ``--family MODEL=FAMILY``, from the
spec's ``family:`` on a model or a judge, and from the model's name (`infer_family`).

Inference reads the model's name before its provider, because a hosting provider (``together``,
``openrouter``, ``openai-api`` for any OpenAI-compatible server, ``vllm``) says nothing about
whose model it serves: ``openai-api/local/qwen3`` is a Qwen model. The offline models
(``vivid/*``) and Inspect's ``mockllm`` have no family (`NO_FAMILY`), whatever their name,
so they are never anyone's own family. A name that matches no rule has an unknown family (None):
such a judge cannot be checked until its family is declared.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from vivid_inspect.text import nfc

NO_FAMILY = "none"
"""The family of a model that belongs to none (the offline models, ``mockllm``)."""

_FAMILY_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,39}$")

# Providers whose models never belong to a family: they are offline stand-ins.
_FAMILYLESS_PROVIDERS = frozenset({"vivid", "mockllm"})

# Checked in order on the model's name (everything after the provider); the first match wins.
# DeepSeek's distilled Qwen and Llama models are DeepSeek's, so deepseek is tried before them.
_NAME_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"claude"), "anthropic"),
    (re.compile(r"gemini|gemma|palm|bison"), "google"),
    (re.compile(r"deepseek"), "deepseek"),
    (re.compile(r"qwen|qwq"), "qwen"),
    (re.compile(r"llama"), "meta"),
    (re.compile(r"mistral|mixtral|ministral|codestral|pixtral|magistral"), "mistral"),
    (re.compile(r"(^|[/._-])(chat)?gpt|(^|/)o[134]($|[-_.])"), "openai"),
)

# A provider that serves its own models only, for names no rule above knows.
_PROVIDER_FAMILIES: dict[str, str] = {
    "openai": "openai",
    "anthropic": "anthropic",
    "google": "google",
    "mistral": "mistral",
    "deepseek": "deepseek",
}


class FamilyError(ValueError):
    """A ``--family`` argument that cannot be read; the message has one line per problem."""


def infer_family(model: str | None) -> str | None:
    """The family of a model, inferred from its provider and name.

    Args:
        model: ``provider/name`` (``openai/gpt-4.1``, ``openai-api/local/qwen3``); None for a judge
            that calls no model (the lexical judge, a panel).

    Returns:
        ``openai``, ``anthropic``, ``google``, ``qwen``, ``meta``, ``mistral`` or ``deepseek``;
        `NO_FAMILY` for the offline models, ``mockllm`` and a judge without a model; None
        when the name matches no rule (declare it).
    """
    if model is None or not model.strip():
        return NO_FAMILY
    provider, _, name = nfc(model).strip().lower().partition("/")
    if provider in _FAMILYLESS_PROVIDERS:
        return NO_FAMILY
    for pattern, family in _NAME_RULES:
        if pattern.search(name or provider):
            return family
    return _PROVIDER_FAMILIES.get(provider)


def normalise_family(text: str) -> str:
    """A family as compared: NFC, trimmed, lower case.

    Raises:
        FamilyError: If it is empty or not a short name of letters, digits, ``_ . -``.
    """
    family = nfc(text).strip().lower()
    if not _FAMILY_NAME.match(family):
        raise FamilyError(f"family {text!r} is not a short name (letters, digits, _ . -)")
    return family


def parse_family_args(values: Iterable[str] | None) -> dict[str, str]:
    """Read ``--family MODEL=FAMILY`` arguments into a mapping.

    Args:
        values: The arguments as given (``openai-api/local/my-tune=qwen``), or None.

    Returns:
        Model (or judge name) to family, each family normalised (`normalise_family`).

    Raises:
        FamilyError: One line per bad argument: no ``=``, an empty model, a bad family, or one
            model given two different families.
    """
    families: dict[str, str] = {}
    problems: list[str] = []
    for value in values or ():
        model, sep, raw = value.rpartition("=")
        if not sep or not model.strip():
            problems.append(f"--family {value!r}: expected MODEL=FAMILY (e.g. openai-api/local/tune=qwen)")
            continue
        try:
            family = normalise_family(raw)
        except FamilyError as error:
            problems.append(f"--family {value!r}: {error}")
            continue
        key = nfc(model).strip()
        if families.get(key, family) != family:
            problems.append(f"--family {value!r}: {key} was already given family {families[key]!r}")
            continue
        families[key] = family
    if problems:
        raise FamilyError("\n".join(problems))
    return families


def resolve_family(
    model: str | None, declared: Mapping[str, str], *, aliases: Iterable[str] = ()
) -> tuple[str | None, str]:
    """The family of a judge or a generator, and where it came from.

    Args:
        model: Its model (``provider/name``); None for a judge that calls no model.
        declared: Families given by the user or the spec (model or judge name to family).
        aliases: Other names it may be declared under (a judge's name), after its model.

    Returns:
        The family (None when unknown) and its source: ``declared``, ``inferred`` or ``unknown``.
    """
    for name in (model, *aliases):
        key = nfc(name).strip() if name else ""
        if key and key in declared:
            return declared[key], "declared"
    family = infer_family(model)
    return family, ("inferred" if family is not None else "unknown")
