"""The one folder under which every ``vivid`` command writes what it is not told to write elsewhere.

``$VIVID_OUTPUT_DIR``, else ``./vivid-out`` (which the checkout's ``.gitignore`` lists). The bundled
demo's logs, ``vivid audit``'s card and probe logs and ``vivid sanity``'s go there by default; an
option (``--out``, ``--log-dir``) or a spec's own ``log_dir`` still wins. Plain ``inspect eval``
keeps Inspect's own default (``$INSPECT_LOG_DIR``, else ``./logs``).
"""

from __future__ import annotations

import os
from pathlib import Path

OUTPUT_ENV = "VIVID_OUTPUT_DIR"
"""The environment variable that moves the output root."""
DEFAULT_OUTPUT_DIR = "vivid-out"
"""The output root, relative to the current folder, when ``$VIVID_OUTPUT_DIR`` is unset or empty."""


def output_root() -> Path:
    """The output root: ``$VIVID_OUTPUT_DIR`` (``~`` expanded), else ``./vivid-out``; relative stays relative."""
    chosen = os.environ.get(OUTPUT_ENV, "").strip()
    return Path(chosen).expanduser() if chosen else Path(DEFAULT_OUTPUT_DIR)


def output_dir(name: str) -> Path:
    """The default folder of one command's output: ``<root>/NAME``."""
    return output_root() / name
