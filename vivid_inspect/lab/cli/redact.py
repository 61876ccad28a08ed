"""``vivid redact LOG_DIR``: remove credentials from logs that plain ``inspect eval`` wrote.

``vivid run`` redacts what it writes by itself; logs written by ``inspect eval``/``inspect score``
hold a provider's error message as it was, so a key that a provider echoed is in them. Run this
in the same environment (the keys' variables set) before sharing such a folder.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

# The commands' work is imported inside their handlers, not here: `vivid --help` imports every
# command's module and must stay under a second (tests/lab/cli/test_cli_startup.py, bench/cli_startup.py).

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2


def register(subparsers: Any) -> None:
    """Add the ``redact`` command.

    Args:
        subparsers: The ``vivid`` parser's subparsers (from ``add_subparsers``).
    """
    parser = subparsers.add_parser(
        "redact",
        help="remove API keys and bearer tokens from every log and text file under a folder",
        description="Rewrite every .eval, .json, .yaml, .txt, .md, .csv and .log file under LOG_DIR "
        "whose text holds the value of a *_KEY/*_TOKEN/*_SECRET/*_PASSWORD variable of this "
        "environment, a bearer token or an sk- key, with [REDACTED] in its place (.eval members "
        "stay valid JSON). Files without one are left untouched.",
    )
    parser.add_argument("log_dir", metavar="LOG_DIR", help="folder searched recursively")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Redact the folder; list the files rewritten on stderr.

    Returns:
        0; 1 when a file could not be checked or rewritten (it is left as it was); 2 when
        LOG_DIR is not a folder or cannot be written (nothing changed).
    """
    from vivid_inspect.lab.runner.scrub import log_texts, scrub_folder
    from vivid_inspect.lab.writable import FolderNotWritable, check_writable
    from vivid_inspect.redact import add_public_text, placeholder_variables

    folder = Path(args.log_dir)
    if not folder.is_dir():
        what = "is a file, not a folder" if folder.exists() else "does not exist"
        print(f"vivid redact: {folder} {what}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        check_writable(folder)
    except FolderNotWritable as error:
        print(
            f"vivid redact: cannot rewrite files under {folder}: {error.reason}. Nothing was changed; "
            "run it where the folder can be written (or on a copy).",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    # a key that is part of the logs' model names (a local server's) is a placeholder: left alone
    add_public_text(log_texts(folder))
    placeholders = placeholder_variables()
    if placeholders:
        listed = ", ".join(f"{name} ({reason})" for name, reason in sorted(placeholders.items()))
        print(f"vivid redact: {listed}: a placeholder, not treated as a secret", file=sys.stderr)
    failed: list[tuple[Path, str]] = []
    changed = scrub_folder(folder, everything=True, failed=failed)
    for path in changed:
        print(f"redacted {path}", file=sys.stderr)
    print(f"vivid redact: {len(changed)} file(s) rewritten under {folder}", file=sys.stderr)
    if failed:
        print(
            f"vivid redact: {len(failed)} file(s) could not be checked or rewritten, left as they were: "
            + "; ".join(f"{path}: {why}" for path, why in failed),
            file=sys.stderr,
        )
        return EXIT_FAILED
    return EXIT_OK
