"""What a run leaves beside its logs: the resolved spec and a freeze of the installed packages.

The resolved spec is the spec as run: defaults filled in, paths absolute, each run block's item
ids (a stratified sample is drawn once and written down), each cell and its log. With the
package freeze it says exactly what produced the logs.
"""

from __future__ import annotations

import datetime
import importlib.metadata
import platform
import sys
from pathlib import Path
from typing import Any

import yaml

from vivid_inspect.lab.runner.cells import config_hash
from vivid_inspect.lab.runner.layout import relative, runs_dir
from vivid_inspect.lab.runner.prepare.prepared import Prepared
from vivid_inspect.log_contract import SPEC_FILE

FREEZE_FILE = "packages.txt"


def package_freeze() -> str:
    """``name==version`` of every installed distribution, sorted, after a Python/platform line."""
    names = {
        f"{dist.metadata['Name']}=={dist.version}"
        for dist in importlib.metadata.distributions()
        if dist.metadata["Name"]
    }
    header = f"# python {platform.python_version()} on {platform.platform()} ({sys.executable})"
    return "\n".join([header, *sorted(names, key=str.lower)]) + "\n"


def _version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def resolved_spec(prepared: Prepared, outputs: dict[str, Any] | None = None) -> dict[str, Any]:
    """The spec as it runs, as plain data.

    Args:
        prepared: The prepared spec.
        outputs: Per-cell results to record after a run (see `write_record`).

    Returns:
        A mapping ready for YAML.
    """
    loaded = prepared.loaded
    blocks = [
        {
            "index": block.index,
            "sample_id": block.selection.sample_id,
            "limit": block.selection.limit,
            "items": {key: len(ids) for key, ids in block.selection.ids.items()},
        }
        for block in prepared.blocks
    ]
    return {
        "spec": loaded.spec.model_dump(mode="json"),
        "source": str(loaded.source),
        "log_dir": str(loaded.log_dir),
        "data": loaded.data,
        "human": str(loaded.human) if loaded.human else None,
        "blocks": blocks,
        "judges": {cell.label: config_hash(cell.config) for cell in prepared.cells.judges},
        "versions": {name: _version(name) for name in ("vivid-inspect", "inspect-ai")},
        "written": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "outputs": outputs or {},
    }


def write_record(prepared: Prepared, outputs: dict[str, Any] | None = None) -> Path:
    """Write the resolved spec and the package freeze into ``<log_dir>/vivid/<spec name>/``.

    Args:
        prepared: The prepared spec.
        outputs: Per-cell results to record (cell label -> status and log path).

    Returns:
        The folder written.
    """
    folder = runs_dir(prepared.loaded.log_dir, prepared.loaded.spec.name)
    folder.mkdir(parents=True, exist_ok=True)
    data = resolved_spec(prepared, outputs)
    (folder / SPEC_FILE).write_text(
        yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8"
    )
    (folder / FREEZE_FILE).write_text(package_freeze(), encoding="utf-8")
    return folder


def output_entry(log_dir: Path, path: Path | None, status: str, error: str | None = None) -> dict[str, Any]:
    """One cell's line in the record: its log relative to the log folder and its status."""
    entry: dict[str, Any] = {"status": status, "log": relative(log_dir, path) if path and path.name else None}
    if error:
        entry["error"] = error
    return entry
