"""How fast credentials are redacted from a run's logs, against the patterns' plain forms.

``vivid run`` redacts every log it writes before it ends (``vivid_inspect/lab/runner/scrub.py``):
every member of every ``.eval`` log passes through `vivid_inspect.redact.redact`. This script runs
the offline main job (``vivid run offline``) into a temporary folder, or reads the logs of a folder
given with ``--logs``, and times, over every log member, the current patterns against their plain
forms (the key shapes as one alternative per kind, each with its own start check; every pattern run
on every text), checking that both give the same text.

    python bench/redact_speed.py
    python bench/redact_speed.py --logs vivid-out/offline --repeats 5
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

import inspect_ai.log  # noqa: F401  (registers zstd, the compression of .eval members)
from _common import REPO_DIR

sys.path.insert(0, str(REPO_DIR))

# the plain forms, as tests/test_key_shape_pattern.py checks the fast ones against them
from tests.test_key_shape_pattern import plain_redact as plain
from vivid_inspect import redact as module
from vivid_inspect.lab.cli.main import main as vivid


def members(folder: Path) -> list[str]:
    """The text of every member of every ``.eval`` log under ``folder``."""
    texts = []
    for path in sorted(folder.rglob("*.eval")):
        with zipfile.ZipFile(path) as archive:
            texts += [archive.read(name).decode("utf-8") for name in archive.namelist()]
    return texts


def best_seconds(redact: Callable[[str], str], texts: list[str], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        for text in texts:
            redact(text)
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logs", type=Path, help="a log folder (default: run the offline job)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.logs
        if folder is None:
            os.chdir(scratch)
            os.environ["VIVID_OUTPUT_DIR"] = str(Path(scratch) / "out")
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                assert vivid(["run", "offline"]) == 0, "the offline job failed"
            folder = Path(scratch) / "out"
        texts = members(folder)
    environ: dict[str, str] = {}
    fast = [module.redact(text, environ) for text in texts]
    assert all(module._redact(t, environ) == plain(t) for t in texts), "the fast and plain forms differ"
    megabytes = sum(len(t.encode("utf-8")) for t in texts) / 1e6
    now = best_seconds(lambda t: module._redact(t, environ), texts, args.repeats)
    before = best_seconds(plain, texts, args.repeats)
    print(f"{len(texts)} log members, {megabytes:.1f} MB, {sum(module.REDACTED in t for t in fast)} redacted")
    print(f"plain forms: {before:.2f} s ({megabytes / before:.1f} MB/s)")
    print(f"current:     {now:.2f} s ({megabytes / now:.1f} MB/s), {before / now:.1f} times faster")
    print(f"(the best of {args.repeats} passes each, in one process over the same texts)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
