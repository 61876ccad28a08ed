"""A user's install: ``pip install .`` in a fresh environment, then ``vivid run offline`` elsewhere.

Not editable and with no extras; the demo runs from an empty folder, with no API key and no
checkout in sight.

Prints the install's wall time, the number of packages and the environment's size, the demo's
wall time and exit code, and whether its report holds the tables; exits 1 if the demo failed.
It reaches the package index, so it is a bench script, not a test.

    python bench/user_install.py
    python bench/user_install.py --keep      # leave the environment and the folder for a look
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_DIR = Path(__file__).resolve().parents[1]
PAID_API_KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "AZUREAI_OPENAI_API_KEY")


def _size_mb(folder: Path) -> float:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file()) / 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="keep the environment and the demo folder")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="vivid-user-"))
    venv, demo = root / "venv", root / "empty"
    demo.mkdir()
    env = {
        key: value for key, value in os.environ.items() if key not in PAID_API_KEYS and key != "PYTHONPATH"
    }
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    subprocess.run([*pip, "--upgrade", "pip"], check=True, env=env)
    subprocess.run([*pip, str(REPO_DIR)], check=True, env=env)
    install_s = time.monotonic() - started
    freeze = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "list", "--format=freeze"],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout.split()
    started = time.monotonic()
    demo_run = subprocess.run(
        [str(venv / "bin" / "vivid"), "run", "offline"], cwd=demo, capture_output=True, text=True, env=env
    )
    demo_s = time.monotonic() - started
    report = demo / "logs" / "offline" / "report"
    tables = sorted(path.name for path in report.glob("*.csv"))
    print(f"install: {install_s:.0f} s, {len(freeze)} packages, {_size_mb(venv):.0f} MB")
    print(f"vivid run offline from an empty folder: exit {demo_run.returncode} in {demo_s:.1f} s")
    print(f"report: {len(tables)} CSV files in {report.relative_to(root)} ({', '.join(tables[:4])}, ...)")
    ok = demo_run.returncode == 0 and "table3_themes.csv" in tables
    if not ok:
        print(demo_run.stderr[-2000:], file=sys.stderr)
    if args.keep:
        print(f"kept: {root}")
    else:
        shutil.rmtree(root, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
