"""Specs that ship inside the package, so that a plain install runs the offline demo from any folder.

``vivid run offline`` needs no checkout: a bare name that is not a file names a bundled spec, whose
logs go under ``<output root>/NAME`` (``./vivid-out/NAME`` unless ``$VIVID_OUTPUT_DIR`` moves it;
`vivid_inspect.lab.output_root`), never into the package; ``--log-dir`` still wins. A path, or a name
that exists as a file, is used as given, so a checkout's ``experiments/offline.yaml`` is unchanged.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from vivid_inspect.lab.output_root import output_dir

SPECS_DIR = Path(__file__).parent / "specs"
"""The bundled spec files, one ``NAME.yaml`` each."""


def bundled_names() -> list[str]:
    """The names ``vivid run NAME`` accepts without a file, sorted."""
    return sorted(path.stem for path in SPECS_DIR.glob("*.yaml"))


def _is_bare_name(spec: str) -> bool:
    return not Path(spec).suffix and "/" not in spec and "\\" not in spec


def resolve_spec(spec: str, log_dir: str | None) -> tuple[str, str | None]:
    """The spec file and log folder that a command's ``SPEC`` and ``--log-dir`` arguments mean.

    Args:
        spec: The argument as typed: a path, or the name of a bundled spec.
        log_dir: The ``--log-dir`` option, or None.

    Returns:
        ``(spec file, log folder or None)``; for a bundled spec the log folder defaults to
        ``<output root>/NAME``, never inside the installed package.
    """
    if Path(spec).exists() or not _is_bare_name(spec):
        return spec, log_dir
    bundled = SPECS_DIR / f"{spec}.yaml"
    if bundled.is_file():
        return str(bundled), log_dir if log_dir is not None else str(output_dir(spec))
    return spec, log_dir


def unknown_name_hint(spec: str) -> str | None:
    """For a spec that is neither a file nor a bundled spec: what the user may have meant.

    A missing path whose file name is a bundled spec's (``offline.yaml``, ``experiments/offline.yaml``
    outside a checkout) points to the bundled name; a bare name gets the closest bundled one.
    """
    if Path(spec).exists() or (SPECS_DIR / f"{spec}.yaml").is_file():
        return None
    names = bundled_names()
    if not _is_bare_name(spec):
        path = Path(spec)
        if path.suffix.lower() in (".yaml", ".yml") and path.stem in names:
            return (
                f"no such file; the bundled spec of that name runs from any folder as `vivid run {path.stem}`"
            )
        return None
    close = difflib.get_close_matches(spec, names, n=1, cutoff=0.6)
    guess = f"did you mean `{close[0]}`? " if close else ""
    return (
        f"no file named {spec!r} and no bundled spec of that name; {guess}bundled specs: {', '.join(names)}"
    )
