"""The languages a judge's instructions can be written in (part of :mod:`vivid_inspect.log_contract`).

Kept apart from the contract module only because that one imports pydantic, and the command line
reads these names while ``vivid --help`` must stay light.
"""

from __future__ import annotations

JUDGE_LANGUAGES = ("vi", "en")
"""Languages an LLM judge's instructions can be written in; the data blocks stay Vietnamese."""
DEFAULT_LANGUAGE = "vi"
"""The paper's judge language. Its columns carry no suffix, so logs judged before English existed read."""


def check_language(language: object) -> str:
    """``language`` if it is one of :data:`JUDGE_LANGUAGES`.

    Raises:
        ValueError: Naming the allowed values, for anything else (``"EN"``, ``"fr"``, ``None``).
    """
    if isinstance(language, str) and language in JUDGE_LANGUAGES:
        return language
    raise ValueError(f"unknown judge language {language!r}; expected one of {', '.join(JUDGE_LANGUAGES)}")
