"""Keep credentials out of everything we store or print, and leave placeholders alone.

Provider error bodies can echo the request's ``Authorization`` header, and a file passed by
mistake (an ``.env`` given as human scores) can hold keys. Every error, traceback and message
that the project writes to a log, a report or the terminal goes through `redact` first,
and a file that fails to parse is quoted only as a short, redacted `excerpt`.

One rule says what a placeholder is, for redaction here and for the spec's credential check
(`vivid_inspect.lab.runner.spec.credentials`): `placeholder_reason`. Local servers
(Ollama, llama.cpp, vLLM, LM Studio) take any key, and their documentation uses words such as
``ollama`` or ``EMPTY``; replacing such a word wherever it occurs would rewrite model names in
logs and the resolved spec (``openai-api/[REDACTED]/gen``), so that a finished spec no longer
matches its logs and every rerun repeats its calls. A placeholder is therefore never redacted.

What is redacted:

- the values of credential environment variables (`credential_variable`) and of those
  given to `add_secret_names`, unless they are placeholders;
- values shaped like a provider key (`KEY_SHAPES`: OpenAI and Anthropic ``sk-``, Google
  ``AIza``, AWS ``AKIA``/``ASIA``, GitHub ``ghp_``/``gho_``/``github_pat_``, Slack ``xox?-``,
  Hugging Face ``hf_``, Groq ``gsk_``, xAI ``xai-``, JSON web tokens, PEM private keys);
- the token after ``Bearer`` and after ``Authorization: Basic``;
- the password of a URL (``https://user:PASSWORD@host``), a long user part alone
  (``https://TOKEN@host``), and the value of a credential query parameter (``?key=``,
  ``api_key=``, ``token=``, ``sig=``, ...);
- a long random-looking value after a credential-named key (``"api_key": "…"``,
  ``password=…``);
- whatever the names, a key-shaped query value, fragment or path segment of a URL
  (`secret_shaped`: Azure Functions' ``?code=``, ``#access_token=``, ``/bot<token>/``).
"""

from __future__ import annotations

import json
import math
import os
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from itertools import groupby
from urllib.parse import unquote

REDACTED = "[REDACTED]"

PLACEHOLDER_LENGTH = 16
"""A value shorter than this is a placeholder: every real provider key is longer."""

PLACEHOLDERS: frozenset[str] = frozenset(
    {
        "anything",
        "api-key",
        "apikey",
        "changeme",
        "dummy",
        "dummy-key",
        "empty",
        "fake",
        "fake-key",
        "key",
        "llama.cpp",
        "llamacpp",
        "lm-studio",
        "lmstudio",
        "local",
        "localai",
        "no-key",
        "no-key-required",
        "nokey",
        "none",
        "not-needed",
        "not-required",
        "null",
        "ollama",
        "placeholder",
        "sglang",
        "sk-dummy",
        "sk-fake",
        "sk-local",
        "sk-no-key-required",
        "sk-xxx",
        "test",
        "text-generation-webui",
        "tgi",
        "token",
        "unused",
        "vllm",
        "x",
        "xxx",
        "your-api-key",
        "your-api-key-here",
        "your_api_key",
        "your_api_key_here",
    }
)
"""Values local servers' documentation uses as keys; compared without regard to case."""


class PublicText:
    """Texts a placeholder may be part of (a spec's model names, service names, paths), searched at once.

    Args:
        texts: The texts; they are joined into one case-folded string, so that a search costs one
            pass over it however many texts there are.
    """

    def __init__(self, texts: Iterable[str] = ()) -> None:
        self.joined = "\0".join(text.casefold() for text in texts if text)

    def holds(self, folded: str) -> bool:
        """Whether ``folded`` (a case-folded value) occurs in one of the texts."""
        return folded in self.joined


# Texts of the spec being run (model names, service names, paths): a value occurring in one is
# a placeholder (a key set to the server's or the model's name).
_PUBLIC = PublicText()
# Further variables named by a spec's ``${env:NAME}`` headers, whatever their names.
_EXTRA_NAMES: set[str] = set()
# Environment variables whose values are credentials.
_SECRET_VARIABLE = re.compile(
    r"(?:_KEY|_TOKEN|_SECRET|_PASSWORD|_PASSWD|_PASSPHRASE|_CREDENTIALS?|_AUTH|_COOKIE)$", re.IGNORECASE
)

# Parts of a key name (``x-api-key`` -> x, api, key) that make it a credential's name.
_STRONG_PARTS = frozenset(
    {
        "apikey",
        "auth",
        "authorization",
        "bearer",
        "cookie",
        "credential",
        "credentials",
        "passphrase",
        "passwd",
        "password",
        "privatekey",
        "pwd",
        "secret",
        "secrets",
        "token",
    }
)
# ``<word>_key`` names that hold a credential.
_KEY_WORDS = frozenset(
    {"access", "account", "api", "auth", "client", "master", "private", "secret", "service", "session"}
    | {"signing", "subscription"}
)
# Names that are credentials on their own: a query string's ``key=``, ``sig=``.
_WHOLE_NAMES = frozenset({"key", "sig", "signature", "pat", "jwt"})
# Parts that make a key credential-ish: its value is refused or redacted when it looks random.
_WEAK_PARTS = frozenset({"key", "keys", "sig", "signature", "jwt", "pat", "session", "sid", "pass", "cred"})

# Where a key may start: after a non-alphanumeric character, or right after an escape a log writes
# before it (JSON's \n, \t, \r; a terminal colour code such as \x1b[32m in a stored traceback).
_START = r"(?:(?<![A-Za-z0-9])|(?<=\\[nrt])|(?<=\[\dm)|(?<=\[\d\dm)|(?<=\[\d;\d\dm))"
KEY_SHAPE_KINDS: tuple[tuple[str, str], ...] = (
    ("an OpenAI or Anthropic key (sk-…)", _START + r"sk-(?:ant-|proj-|svcacct-|or-)?[A-Za-z0-9_-]{16,}"),
    ("a Stripe key (sk_live_…)", _START + r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
    ("a Google API key (AIza…)", _START + r"AIza[0-9A-Za-z_-]{30,}"),
    ("an AWS access key (AKIA…/ASIA…)", _START + r"(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
    ("a GitHub token (ghp_…/gho_…)", _START + r"gh[pousr]_[A-Za-z0-9]{30,}"),
    ("a GitHub token (github_pat_…)", _START + r"github_pat_[A-Za-z0-9_]{22,}"),
    ("a Slack token (xox?-…)", _START + r"xox[abposr]-[A-Za-z0-9-]{10,}"),
    ("a Hugging Face token (hf_…)", _START + r"hf_[A-Za-z0-9]{30,}"),
    ("a Groq key (gsk_…)", _START + r"gsk_[A-Za-z0-9]{20,}"),
    ("an xAI key (xai-…)", _START + r"xai-[A-Za-z0-9]{20,}"),
    ("a Replicate token (r8_…)", _START + r"r8_[A-Za-z0-9]{20,}"),
    ("a JSON web token (eyJ…)", _START + r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
    (
        "a private key (-----BEGIN … PRIVATE KEY-----)",
        r"-----BEGIN[A-Z ]*PRIVATE KEY-----.*?-----END[A-Z ]*PRIVATE KEY-----",
    ),
)
"""What a provider's key or token looks like, each with the words an error message uses for it."""

# Every kind begins with one of these characters. Testing for them first, and making the start check
# once for the kinds that share it rather than once per kind, spares the check at most positions of a
# text: matching the shapes took over half the time of redacting a log, and is ~28 times faster. Group
# i + 1 is still kind i (tests/test_key_shape_pattern.py).
_SHAPE_FIRST = "srAgxhe-"
_SHAPE_RUNS = (
    (_START if started else "", "|".join(f"({p.removeprefix(_START)})" for p in run))
    for started, run in groupby((p for _, p in KEY_SHAPE_KINDS), key=lambda p: p.startswith(_START))
)
_SHAPES = "|".join(f"{start}(?:{kinds})" for start, kinds in _SHAPE_RUNS)
KEY_SHAPES = re.compile(f"(?=[{_SHAPE_FIRST}])(?:{_SHAPES})", re.DOTALL)
"""Values shaped like a provider's key or token (any of `KEY_SHAPE_KINDS`), wherever they occur."""

_BEARER = re.compile(r"(?i)" + _START + r"(bearer)(\s+)([A-Za-z0-9._~+/=-]{4,})")
_BASIC = re.compile(r"(?i)(authorization[\"']?\s*[:=]\s*[\"']?basic)(\s+)([A-Za-z0-9+/=._-]{4,})")
# with a scheme or without one (`//user:key@host`, a protocol-relative URL)
_URL_USERINFO = re.compile(r"(?i)" + _START + r"((?:[a-z][a-z0-9+.-]*:)?//)([^/\s@\"'<>\\]+)@")
_QUERY_PARAMETER = re.compile(
    r"(?i)([?&;](?:[a-z0-9]*[_.-])*(?:(?:api|access|private|secret|subscription)?key|token|secret|password|passwd|auth|sig|signature|credentials?)=)"
    r"([^&;#\s\"'<>\\]+)"
)
_KEY_VALUE = re.compile(
    r"(?i)(\\?[\"']?"
    + _START
    + r"(?:[a-z0-9]*[_.-])*(?:api[_-]?key|apikey|access[_-]?key|private[_-]?key|secret|password"
    r"|passwd|token|credentials?)\\?[\"']?\s*[:=]\s*\\?[\"']?)(?!\$\{env:)([^\s\"',;}&\]\\]{16,})"
)
# What every match of _BEARER and of _KEY_VALUE holds: its key word, and in _KEY_VALUE's the separator after it
_BEARER_WORD = re.compile(r"(?i)bearer")
_KEY_NAME_THEN_SEPARATOR = re.compile(r"(?i)(?:key|secret|passw(?:or)?d|token|credentials?)\\?[\"']?\s*[:=]")
# A terminal colour code, raw (ESC [ 32 m) or as JSON escapes it (\u001b[32m, \\u001b[32m).
_COLOUR = re.compile(r"(?:\x1b|\\+u001b)\[[0-9;]*[A-Za-z]")
_EXCERPT_LIMIT = 60


def add_public_text(texts: Iterable[str]) -> None:
    """Register texts of the spec being run (model and service names, paths).

    A value that occurs in one of them is a placeholder (`placeholder_reason`): a local
    server's key set to the server's or model's own name is not redacted from those names.

    Args:
        texts: Model names, service names, paths.
    """
    global _PUBLIC
    _PUBLIC = PublicText([_PUBLIC.joined, *texts])


def placeholder_reason(value: str, public: Iterable[str] | PublicText | None = None) -> str | None:
    """Why ``value`` is a placeholder and not a secret, or None when it may be a secret.

    The one rule for redaction and for the spec's credential check: a value under
    `PLACEHOLDER_LENGTH` characters, one of `PLACEHOLDERS`, or a value that occurs in
    the spec's own model names, service names or paths.

    Args:
        value: The value (a key, a token, a password).
        public: The spec's texts to compare with; default those given to `add_public_text`.

    Returns:
        ``"under 16 characters"``, ``"a known placeholder"``, ``"part of the spec's model names
        or paths"``, or None.
    """
    stripped = value.strip()
    if len(stripped) < PLACEHOLDER_LENGTH:
        return f"under {PLACEHOLDER_LENGTH} characters"
    if stripped.casefold() in PLACEHOLDERS:
        return "a known placeholder"
    folded = stripped.casefold()
    texts = public if isinstance(public, PublicText) else _PUBLIC if public is None else PublicText(public)
    if texts.holds(folded):
        return "part of the spec's model names or paths"
    return None


def is_placeholder(value: str, public: Iterable[str] | PublicText | None = None) -> bool:
    """Whether ``value`` is a placeholder (see `placeholder_reason`)."""
    return placeholder_reason(value, public) is not None


def name_parts(name: str) -> list[str]:
    """A key name's lower-case words: ``X-Api-Key`` and ``xApiKey`` -> ``['x', 'api', 'key']``."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name.strip())
    return [part for part in re.split(r"[^a-z0-9]+", spaced.lower()) if part]


def credential_name(name: str) -> str | None:
    """Whether a key name carries a credential: ``"credential"``, ``"credential-ish"`` or None.

    A credential's name (``api_key``, ``token_value``, ``private_key``, ``client_secret``,
    ``password``, ``Authorization``, ``X-API-Key``, ``Cookie``, ``bearer``, ``auth``, or ``key``,
    ``sig`` alone as in a query string) has its value refused in a spec unless it is a
    placeholder or a ``${env:NAME}`` reference. A credential-ish name (``cache_key``,
    ``session_id``, ``signature_method``) has its value refused when it looks random
    (`looks_random`).

    Args:
        name: A mapping key, header name or query parameter.

    Returns:
        The kind of name, or None for an ordinary one (``tokenizer``, ``max_tokens``).
    """
    parts = name_parts(name)
    if not parts:
        return None
    if "".join(parts) in _WHOLE_NAMES or _STRONG_PARTS & set(parts):
        return "credential"
    if any(first in _KEY_WORDS and second == "key" for first, second in zip(parts, parts[1:], strict=False)):
        return "credential"
    if any(part.endswith(("apikey", "token", "secret", "password")) for part in parts):
        return "credential"  # run together: openaiapikey, hftoken, clientsecret
    if _WEAK_PARTS & set(parts):
        return "credential-ish"
    return None


def looks_random(value: str) -> bool:
    """Whether a value looks like a generated secret: long, no spaces, mixed and high entropy.

    At least `PLACEHOLDER_LENGTH` characters, no whitespace, a digit and a letter (or
    three kinds of character), and over 3 bits of entropy per character.
    """
    if len(value) < PLACEHOLDER_LENGTH or any(char.isspace() for char in value):
        return False
    kinds = sum(
        (
            any(char.islower() for char in value),
            any(char.isupper() for char in value),
            any(char.isdigit() for char in value),
            any(not char.isalnum() for char in value),
        )
    )
    has_digit_and_letter = any(char.isdigit() for char in value) and any(char.isalpha() for char in value)
    if kinds < 3 and not has_digit_and_letter:
        return False
    counts = Counter(value)
    entropy = -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())
    return entropy > 3.0


_HEX = re.compile(r"[0-9a-f]+|[0-9A-F]+")
_RUN = re.compile(r"[A-Za-z0-9+/]{20,}")
_HASH_LENGTHS = (40, 64)  # a git or Hugging Face commit, a SHA-256 digest
_URL_TAIL = re.compile(r"(?i)" + _START + r"([a-z][a-z0-9+.-]*://[^/\s\"'<>\\?#]*)([^\s\"'<>\\]*)")


_HASH_NAME = re.compile(r"(?i)revision|commit|sha|digest|hash|checksum|etag|\bref\b")
_SEPARATORS = re.compile(r"[-_.~:+\s]+")


def _random_parts(text: str) -> bool:
    """A value split by separators into parts that each mix letters and digits: ``k7Qm-29xZ-p4Lw``."""
    parts = [part for part in _SEPARATORS.split(text) if part]
    joined = "".join(parts)
    return (
        len(parts) >= 2
        and all(re.search("[A-Za-z]", part) and re.search("[0-9]", part) for part in parts)
        and not _HEX.fullmatch(joined)  # a UUID (request ids): hexadecimal parts
        and looks_random(joined)
    )


def secret_shaped(value: str, *, query: bool = False, name: str | None = None) -> bool:
    """Whether a value whose name says nothing looks like a generated key: judged by its shape alone.

    Used on every query value, fragment and path segment of a URL, and on the values of query,
    header and environment mappings, whatever their names (Azure Functions sends its key as
    ``?code=``). A run of 20 or more letters, digits, ``+`` and ``/`` that `looks_random`
    (base64 and base62 keys) is one; so is, in a query, header or environment value, a value
    whose parts between ``-``, ``_``, ``.``, ``~``, ``:``, ``+`` or spaces each mix letters and
    digits and whose parts joined look random (``k7Qm-29xZ-p4Lw-88Rt``). Exempt, so that names
    and paths keep working: words joined by separators (``Qwen2.5-7B-Instruct-GGUF``), a UUID
    (hexadecimal parts), and hexadecimal, which in a path is an id (a Hugging Face cache's
    40-character snapshot folder, a Cloudflare account); in a query, header or environment value
    (``query=True``) hexadecimal of 32 characters or more is a key unless it is 40 or 64 long
    and its ``name`` says it is a revision, commit, SHA, digest or hash.

    Args:
        value: The value, URL-encoded or not.
        query: Whether it is a query value, fragment, header or environment value rather than a
            path segment.
        name: The value's query parameter, header or variable name, when it has one.

    Returns:
        True when it looks like a key.
    """
    text = unquote(value).strip().rstrip(".,:;)!")  # the end of a sentence quoting the URL
    if _HEX.fullmatch(text):
        hashed = len(text) in _HASH_LENGTHS and bool(name and _HASH_NAME.search(name))
        return query and len(text) >= 32 and not hashed
    if any(looks_random(run) and not _HEX.fullmatch(run) for run in _RUN.findall(text)):
        return True
    return query and _random_parts(text)


def _url_parts(match: re.Match[str]) -> str:
    """A URL with each key-shaped path segment, query value and fragment replaced."""
    tail = match.group(2)
    cut = min((i for i in (tail.find("?"), tail.find("#")) if i >= 0), default=len(tail))
    path = re.sub(r"[^/]+", lambda m: _keep_unless(m.group(0), query=False), tail[:cut])
    rest = re.sub(r"(?<=[?&;#])[^?&;#]+", _query_item, tail[cut:])
    return match.group(1) + path + rest


def _query_item(match: re.Match[str]) -> str:
    name, equals, value = match.group(0).partition("=")
    if equals and _keep_unless(name, query=True) == name:  # a bare key ends in "=" too (base64)
        return f"{name}={_keep_unless(value, query=True, name=name)}"
    return _keep_unless(match.group(0), query=True)


def _keep_unless(part: str, *, query: bool, name: str | None = None) -> str:
    core = part.rstrip(".,:;)!")
    return (
        REDACTED + part[len(core) :]
        if secret_shaped(core, query=query, name=name) and not is_placeholder(core)
        else part
    )


def credential_variable(name: str) -> bool:
    """Whether an environment variable holds a credential.

    Its name ends in ``_KEY``, ``_TOKEN``, ``_SECRET``, ``_PASSWORD``, ``_PASSWD``,
    ``_PASSPHRASE``, ``_CREDENTIAL(S)``, ``_AUTH`` or ``_COOKIE``, or a spec names it in a
    ``${env:NAME}`` header (`add_secret_names`).
    """
    return bool(_SECRET_VARIABLE.search(name)) or name in _EXTRA_NAMES


def placeholder_variables(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Credential variables whose values are placeholders, each with why (never the value).

    Args:
        environ: The environment to read; default ``os.environ``.

    Returns:
        Variable name -> reason (`placeholder_reason`), for variables that are set.
    """
    env = os.environ if environ is None else environ
    found = {}
    for name, value in env.items():
        if value and credential_variable(name):
            reason = placeholder_reason(value)
            if reason is not None:
                found[name] = reason
    return found


def secret_values(environ: Mapping[str, str] | None = None) -> list[str]:
    """The values of credential environment variables that are not placeholders, longest first.

    Args:
        environ: The environment to read; default ``os.environ``.

    Returns:
        Each value, and each as it appears escaped inside a JSON string.
    """
    env = os.environ if environ is None else environ
    values = {value for name, value in env.items() if credential_variable(name) and not is_placeholder(value)}
    # as a JSON string holds it too (a log member), where quotes and backslashes are escaped
    values |= {json.dumps(value, ensure_ascii=False)[1:-1] for value in values}
    return sorted(values, key=len, reverse=True)


def add_secret_names(names: Iterable[str]) -> None:
    """Treat these environment variables as credentials too (a spec's ``${env:NAME}`` headers).

    Args:
        names: Variable names, whatever their form.
    """
    _EXTRA_NAMES.update(names)


def key_shapes(text: str, public: Iterable[str] | PublicText | None = None) -> list[tuple[str, str]]:
    """The values in ``text`` shaped like a key or token, placeholders left out.

    Args:
        text: Any text.
        public: The spec's texts for `placeholder_reason`; default the registered ones.

    Returns:
        (what it looks like, the value) for each, in order.
    """
    found = []
    for match in KEY_SHAPES.finditer(text):
        if not is_placeholder(match.group(0), public):
            kind = next(KEY_SHAPE_KINDS[i][0] for i, group in enumerate(match.groups()) if group is not None)
            found.append((kind, match.group(0)))
    return found


def _keep_or_redact(value: str) -> str:
    return value if is_placeholder(value) else REDACTED


def _userinfo(match: re.Match[str]) -> str:
    scheme, info = match.group(1), match.group(2)
    user, colon, password = info.partition(":")
    if colon:
        return f"{scheme}{user}:{_keep_or_redact(password)}@"
    return f"{scheme}{_keep_or_redact(user)}@"


def _key_value(match: re.Match[str]) -> str:
    value = match.group(2)
    return match.group(1) + (REDACTED if looks_random(value) and not is_placeholder(value) else value)


def redact(text: str, environ: Mapping[str, str] | None = None) -> str:
    """Replace credentials in ``text`` with ``[REDACTED]``, leaving placeholders as they are.

    See the module's docstring for what is a credential and `placeholder_reason` for what
    is a placeholder. A text with terminal colour codes (a traceback Inspect stores as rich
    renders it, raw or escaped in JSON) is also read without them, since the codes can split a
    credential (rich colours a URL's query part by part); when that finds one, the text is
    returned redacted and without its colours.

    Args:
        text: Any message.
        environ: The environment whose secrets to remove; default ``os.environ``.

    Returns:
        The text with every credential replaced.
    """
    cleaned = _redact(text, environ)
    plain = _COLOUR.sub("", cleaned)
    if plain != cleaned:
        stripped = _redact(plain, environ)
        if stripped != plain:
            return stripped
    return cleaned


def _redact(text: str, environ: Mapping[str, str] | None) -> str:
    for value in secret_values(environ):
        text = text.replace(value, REDACTED)
    text = KEY_SHAPES.sub(lambda match: _keep_or_redact(match.group(0)), text)
    # The slower patterns run only on a text holding what each needs (most of a log holds none of it)
    if _BEARER_WORD.search(text):
        text = _BEARER.sub(lambda m: f"{m.group(1)}{m.group(2)}{_keep_or_redact(m.group(3))}", text)
    text = _BASIC.sub(lambda m: f"{m.group(1)}{m.group(2)}{_keep_or_redact(m.group(3))}", text)
    if "@" in text:
        text = _URL_USERINFO.sub(_userinfo, text)
    text = _QUERY_PARAMETER.sub(lambda m: m.group(1) + _keep_or_redact(m.group(2)), text)
    text = _URL_TAIL.sub(_url_parts, text)
    return _KEY_VALUE.sub(_key_value, text) if _KEY_NAME_THEN_SEPARATOR.search(text) else text


def excerpt(text: str, limit: int = _EXCERPT_LIMIT) -> str:
    """A short, redacted, single-line quotation of ``text`` for an error message.

    Args:
        text: The content that failed to parse.
        limit: Most characters kept.

    Returns:
        The first line, redacted, cut to ``limit`` characters with ``…`` when longer.
    """
    line = redact(text.splitlines()[0] if text else "")
    return line if len(line) <= limit else line[:limit] + "…"
