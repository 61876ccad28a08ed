"""Loading a full-size source whose codes fit taxonomy.py skips the assignment solver (and scipy).

Every full-size load checks the label prevalences against the paper (``warn_if_contradicted``).
No assignment costs less than each code's nearest paper figure, so when taxonomy.py's mapping is
within the tie tolerance of that floor it is a best fit and the solver need not run: importing
scipy for it cost ~0.4 s of CPU in every ``inspect eval`` of a full-size file.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from tests.data.test_data_check import release_like, swapped
from vivid_inspect.data import parse_vivid_csv
from vivid_inspect.data import prevalence as prevalence_module
from vivid_inspect.data.prevalence import fit_map
from vivid_inspect.taxonomy import THEME_NAMES, TRAIT_NAMES


def _items(content: bytes) -> Sequence[object]:
    return parse_vivid_csv(content, "VIVID_Dataset.csv")


@pytest.mark.parametrize(
    ("content", "solver_runs", "agrees"),
    [
        pytest.param(
            lambda: release_like(TRAIT_NAMES, THEME_NAMES),
            {"traits": False, "themes": False},
            {"traits": True, "themes": True},
            id="matching",
        ),
        pytest.param(
            lambda: release_like(swapped(TRAIT_NAMES, 2, 3), THEME_NAMES),
            {"traits": True, "themes": False},
            {"traits": False, "themes": True},
            id="traits-swapped",
        ),
        pytest.param(
            lambda: release_like(TRAIT_NAMES, swapped(THEME_NAMES, 1, 4)),
            {"traits": False, "themes": True},
            {"traits": True, "themes": False},
            id="themes-swapped",
        ),
    ],
)
def test_the_solver_runs_only_when_the_mapping_may_not_be_a_best_fit(
    monkeypatch: pytest.MonkeyPatch,
    content: Callable[[], bytes],
    solver_runs: dict[str, bool],
    agrees: dict[str, bool],
) -> None:
    items = _items(content())
    solver = prevalence_module.best_assignment
    calls: list[str] = []

    def counted(observed: object, paper: object) -> dict[int, str]:
        calls.append("called")
        return solver(observed, paper)  # type: ignore[arg-type]

    monkeypatch.setattr(prevalence_module, "best_assignment", counted)
    for kind in ("traits", "themes"):
        calls.clear()
        fit = fit_map(items, kind)  # type: ignore[arg-type]
        assert (bool(calls), fit.agrees) == (solver_runs[kind], agrees[kind]), kind


@pytest.mark.slow
def test_loading_a_matching_full_size_source_does_not_import_scipy(tmp_path: Path) -> None:
    path = tmp_path / "VIVID_Dataset.csv"
    path.write_bytes(release_like(TRAIT_NAMES, THEME_NAMES))
    code = f"import sys; from vivid_inspect.data import load_vivid; load_vivid({str(path)!r}); print('scipy' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"
