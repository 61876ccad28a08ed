"""Hostile spec files: alias bombs, huge files and deep nesting end in exit 2 and one message.

Each shape goes through ``vivid validate`` (``main([...])`` in this process, which returns the exit
code the console script exits with) and must fail fast, with bounded memory, naming the file and
without a traceback. Aliases that expand to a sane size stay allowed.
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from vivid_inspect.lab.cli.main import main
from vivid_inspect.lab.runner.spec import yaml_source
from vivid_inspect.lab.runner.spec.load import load_spec
from vivid_inspect.lab.runner.spec.yaml_source import MAX_DEPTH, MAX_EXPANDED_NODES, MAX_SPEC_BYTES

GOOD = """\
name: aliases
data: sample
log_dir: logs
runs:
  - tasks: [explain]
    models: [vivid/oracle]
    limit: 2
judges:
  - name: a
    strategy: aspect
    model: openai/gpt-4o
    generate: &judge_generate {temperature: 0.0, max_tokens: 64}
  - name: b
    strategy: cot
    model: openai/gpt-4o
    generate: *judge_generate
"""


def billion_laughs(levels: int = 9, width: int = 9) -> str:
    lines = ["name: bomb", "l0: &l0 [" + ",".join(['"lol"'] * width) + "]"]
    lines += [f"l{i}: &l{i} [" + ",".join([f"*l{i - 1}"] * width) + "]" for i in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


def quadratic_keys() -> str:
    # mapping merges (<<) of a wide anchor, repeated: another way to multiply nodes
    wide = "{" + ", ".join(f"k{i}: {i}" for i in range(400)) + "}"
    return "base: &b " + wide + "\n" + "".join(f"m{i}: {{<<: *b}}\n" for i in range(400))


def padded(size: int) -> str:
    return "name: big\ndescription: " + "x" * size + "\n"


SHAPES = [
    pytest.param(
        lambda: billion_laughs(), "aliases (*name) expand the spec to more than", id="billion-laughs"
    ),
    pytest.param(
        lambda: billion_laughs(levels=30, width=2),
        "aliases (*name) expand the spec to more than",
        id="deep-binary-laughs",
    ),
    pytest.param(quadratic_keys, "aliases (*name) expand the spec to more than", id="merge-key-fanout"),
    pytest.param(lambda: "name: &a [*a]\n", "a recursive alias", id="recursive-alias"),
    pytest.param(lambda: "a: &m {b: *m}\n", "a recursive alias", id="recursive-mapping-alias"),
    pytest.param(
        lambda: padded(MAX_SPEC_BYTES), f"a spec may be at most {MAX_SPEC_BYTES:,} bytes", id="over-1MB"
    ),
    pytest.param(lambda: padded(50_000_000), f"a spec may be at most {MAX_SPEC_BYTES:,} bytes", id="50MB"),
    pytest.param(
        lambda: "[" * 50_000 + "]" * 50_000, f"nested more than {MAX_DEPTH} levels deep", id="deep-flow-lists"
    ),
    pytest.param(
        lambda: "[" * 50_000, f"nested more than {MAX_DEPTH} levels deep", id="unclosed-deep-flow-lists"
    ),
    pytest.param(
        lambda: "{a: " * 5_000 + "1" + "}" * 5_000,
        f"nested more than {MAX_DEPTH} levels deep",
        id="deep-flow-maps",
    ),
    pytest.param(
        lambda: "".join("  " * i + "- \n" for i in range(200)) + "  " * 200 + "- 1\n",
        f"nested more than {MAX_DEPTH} levels deep",
        id="deep-block-lists",
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize(("make", "message"), SHAPES)
def test_hostile_spec_exits_2_fast_with_bounded_memory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: Callable[[], str], message: str
) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(make(), encoding="utf-8")
    capsys.readouterr()

    tracemalloc.start()
    started = time.monotonic()
    try:
        code = main(["validate", str(spec)])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    elapsed = time.monotonic() - started

    err = capsys.readouterr().err
    assert code == 2
    assert message in err and str(spec) in err
    assert "Traceback" not in err
    assert len(err.splitlines()) <= 3  # the header, the problem, "Nothing was run."
    assert elapsed < 20, f"took {elapsed:.1f} s"  # generous: the defect took minutes
    assert peak < 200 * 2**20, f"peak {peak / 2**20:.0f} MiB"  # the defect took 3.2 GB


def test_a_spec_that_is_a_folder_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "spec.yaml").mkdir()
    code = main(["validate", str(tmp_path / "spec.yaml")])
    err = capsys.readouterr().err
    assert code == 2 and "is a folder, not a spec file" in err and "Traceback" not in err


def test_sane_aliases_stay_allowed(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(GOOD, encoding="utf-8")
    loaded = load_spec(spec)
    a, b = loaded.spec.judges
    assert a.generate == b.generate == {"temperature": 0.0, "max_tokens": 64}


@pytest.mark.slow
def test_a_spec_just_under_the_size_bound_loads(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(GOOD.replace("name: aliases\n", f"name: aliases\ndescription: {'x' * 900_000}\n"))
    assert spec.stat().st_size < MAX_SPEC_BYTES
    started = time.monotonic()
    assert load_spec(spec).spec.description == "x" * 900_000
    assert time.monotonic() - started < 20


LONG = 100_001
SMALL_BOUND = 1_000
"""A bound the shape cases patch in: the count that names the shape is the point, not its size, and
PyYAML takes seconds to read 100,000 values (the flow-list case keeps the real bound)."""


@pytest.mark.parametrize(
    ("text", "expected", "bound"),
    [
        pytest.param(
            GOOD.replace("limit: 2", "sample_ids: [" + ", ".join(["1"] * LONG) + "]"),
            "spec.yaml:7: runs[0].sample_ids: a list of 100,001 entries; a spec holds at most 100,000 values",
            MAX_EXPANDED_NODES,
            id="flow-list",
        ),
        pytest.param(
            "name: x\nextra: {" + ", ".join(f"k{i}: 1" for i in range(600)) + "}\n",
            "spec.yaml:2: extra: a mapping of 600 entries; a spec holds at most 1,000 values",
            SMALL_BOUND,
            id="flow-mapping",
        ),
        pytest.param(
            "- " + "\n- ".join(["0"] * (SMALL_BOUND + 1)) + "\n",
            "spec.yaml:1: (spec): a list of 1,001 entries; a spec holds at most 1,000 values",
            SMALL_BOUND,
            id="top-level",
        ),
    ],
)
@pytest.mark.slow  # PyYAML reads 100,000 values in seconds
def test_a_list_too_long_is_named_as_such_not_as_aliases(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    text: str,
    expected: str,
    bound: int,
) -> None:
    monkeypatch.setattr(yaml_source, "MAX_EXPANDED_NODES", bound)
    spec = tmp_path / "spec.yaml"
    spec.write_text(text, encoding="utf-8")
    assert main(["validate", str(spec)]) == 2
    err = capsys.readouterr().err
    assert expected in err and "alias" not in err, err
    assert len(err.splitlines()) == 3, err
