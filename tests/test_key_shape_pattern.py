"""The fast forms of redaction's patterns find exactly what the plain forms find.

`KEY_SHAPES` tests a key's first character before anything else and makes the start check once
for the kinds that share it; `_redact` runs its slower patterns only on a text that holds what
they need. Both are checked here against the plain forms, on every kind in every context a log
puts a key in and on many random texts made of the pieces the patterns look for.
"""

from __future__ import annotations

import random
import re

import pytest

from vivid_inspect import redact as module
from vivid_inspect.redact import KEY_SHAPE_KINDS, KEY_SHAPES, REDACTED, _keep_or_redact, key_shapes

PLAIN = re.compile("|".join(f"({pattern})" for _, pattern in KEY_SHAPE_KINDS), re.DOTALL)
"""`KEY_SHAPES` as it was first written: one alternative per kind, each with its own start check."""

ONE_OF_EACH_KIND = {
    "sk-": "sk-proj-Tq7vX2mB9kLp4Rz8Wc3N",
    "sk_live_": "sk_live_Hy6Gf2Dk9Ls4Qa7Zx1",
    "AIza": "AIzaSyB7c9D1e3F5g7H9j1K3m5N7p9Q1r3S5",
    "AKIA": "AKIAQ7Z2X9W4V6B1N3M8",
    "ghp_": "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "github_pat_": "github_pat_11ABCDEFG0x7Y6z5W4v3U2t1S0r9",
    "xoxb-": "xoxb-2048-8192-Zx81kLm",
    "hf_": "hf_QwErTyUiOpAsDfGhJkLzXcVbNm1234567",
    "gsk_": "gsk_Pz3Lx8Kq2Wn7Rb5Tc9Vm4Yd6Hf",
    "xai-": "xai-Pz3Lx8Kq2Wn7Rb5Tc9Vm4",
    "r8_": "r8_Pz3Lx8Kq2Wn7Rb5Tc9Vm4",
    "eyJ": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ2aXZpZCJ9.c2lnbmF0dXJl",
    "PEM": "-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34Gkx\n-----END RSA PRIVATE KEY-----",
}
# what a log puts before and after a key: nothing, words, JSON escapes, terminal colour codes
WORDS = ("", " ", "x", "7", "_", "-", "/", "=", '"', "é")
BEFORE = (*WORDS, "\\n", "\\t", "\\r", "\x1b[2m", "\x1b[32m", "\x1b[1;31m")
AFTER = ("", " ", ".", '"', "x", "\\n", "\x1b[0m")
PIECES = (
    *ONE_OF_EACH_KIND.values(),
    *(value[: len(value) // 2] for value in ONE_OF_EACH_KIND.values()),
    *BEFORE,
    *AFTER,
    "sk",
    "rk_test_",
    "ASIA",
    "gho_",
    "Bearer ",
    "bearer\t",
    "Authorization: Basic ",
    "https://",
    "//me:",
    "@host/",
    "?api_key=",
    "&token=",
    '"api_key": "',
    "password=",
    "Token :",
    "credentials=",
    "Zq81kLm09aQwErTy77PpXv",
    "${env:KEY}",
    "e",
    "s",
    "A",
)


def _matches(pattern: re.Pattern[str], text: str) -> list[tuple[tuple[int, int], int | None]]:
    return [(match.span(), match.lastindex) for match in pattern.finditer(text)]


def plain_redact(text: str) -> str:
    """`_redact` with no environment, every pattern run on every text (as before the fast forms)."""
    text = PLAIN.sub(lambda match: _keep_or_redact(match.group(0)), text)
    text = module._BEARER.sub(lambda m: f"{m.group(1)}{m.group(2)}{_keep_or_redact(m.group(3))}", text)
    text = module._BASIC.sub(lambda m: f"{m.group(1)}{m.group(2)}{_keep_or_redact(m.group(3))}", text)
    text = module._URL_USERINFO.sub(module._userinfo, text)
    text = module._QUERY_PARAMETER.sub(lambda m: m.group(1) + _keep_or_redact(m.group(2)), text)
    text = module._URL_TAIL.sub(module._url_parts, text)
    return module._KEY_VALUE.sub(module._key_value, text)


def _random_texts(count: int) -> list[str]:
    rng = random.Random(20261205)
    return ["".join(rng.choice(PIECES) for _ in range(rng.randint(1, 12))) for _ in range(count)]


def test_every_kind_has_an_example_found_as_that_kind() -> None:
    assert len(ONE_OF_EACH_KIND) == len(KEY_SHAPE_KINDS)
    for (kind, _), value in zip(KEY_SHAPE_KINDS, ONE_OF_EACH_KIND.values(), strict=True):
        assert key_shapes(f"a key: {value}.", public=()) == [(kind, value)]


@pytest.mark.parametrize("value", ONE_OF_EACH_KIND.values(), ids=ONE_OF_EACH_KIND.keys())
def test_each_kind_in_every_context_is_found_where_the_plain_pattern_finds_it(value: str) -> None:
    for before in BEFORE:
        for after in AFTER:
            text = f"{before}{value}{after}"
            assert _matches(KEY_SHAPES, text) == _matches(PLAIN, text), repr(text)


def test_random_texts_are_matched_and_redacted_as_by_the_plain_patterns() -> None:
    texts = _random_texts(3000)
    redacted = 0
    for text in texts:
        assert _matches(KEY_SHAPES, text) == _matches(PLAIN, text), repr(text)
        fast = module._redact(text, environ={})
        assert fast == plain_redact(text), repr(text)
        redacted += REDACTED in fast
    assert redacted > len(texts) // 4  # the texts do hold keys, of every kind of pattern
