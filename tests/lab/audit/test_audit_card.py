"""The audit card: markdown like vivid sanity's, CSV rows, the forest plot, atomic writing, exit codes."""

from __future__ import annotations

import csv
import json
import math
import re
import struct
import subprocess
import sys
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from tests.lab.audit.test_audit_verdicts import PROBES, N, Scores, changed, sound
from tests.recommended_commands import failing, recommended
from vivid_inspect.lab.audit import card as card_module
from vivid_inspect.lab.audit import plot
from vivid_inspect.lab.audit.card import CARD_COLUMNS, FILES, THRESHOLD_USES, AuditCard, build_card
from vivid_inspect.lab.audit.verdicts import ALLOWED, ProbeResult, Thresholds

NAN = math.nan
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
REPO = Path(__file__).resolve().parents[3]


def card_of(scores: Scores, **options: object) -> AuditCard:
    identity: dict[str, object] = {
        "judge": "openai/gpt-4.1",
        "strategy": "aspect",
        "language": "vi",
        "data": "sample",
    }
    return build_card(scores, PROBES, **(identity | options))  # type: ignore[arg-type]


def length_rewarding() -> Scores:
    return changed(padding=lambda s, i: min(5.0, s["partial"][i] + 2))()


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == PNG_SIGNATURE
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> tuple[AuditCard, Path]:
    """A failing card written once (drawing the plot takes about a second)."""
    card = card_of(length_rewarding())
    out = tmp_path_factory.mktemp("card") / "new" / "audit"
    assert card.write(out) == {name: out / name for name in FILES}
    return card, out


def test_every_command_the_written_card_recommends_parses(written: tuple[AuditCard, Path]) -> None:
    _, out = written
    assert recommended((out / "audit.md").read_text(encoding="utf-8"))
    assert failing([out / "audit.md"]) == {}


# --- verdict and exit code ----------------------------------------------------------------------------


def test_a_sound_judge_passes_and_exits_0() -> None:
    card = card_of(sound())
    assert card.passed and card.exit_code == 0 and card.verdict == "pass"
    assert card.markdown().startswith("## Judge audit: PASS\n")


def test_one_failed_probe_fails_the_card_and_exits_1() -> None:
    card = card_of(length_rewarding())
    assert not card.passed and card.exit_code == 1
    assert card.markdown().startswith("## Judge audit: FAIL\n")


def test_inconclusive_probes_are_reported_not_failed() -> None:
    few = {name: {i: v for i, v in values.items() if i < 5} for name, values in sound().items()}
    card = card_of(few)
    assert card.count("inconclusive") == len(PROBES)
    assert card.exit_code == 0 and card.passed
    assert card.markdown().startswith("## Judge audit: INCONCLUSIVE\n")
    assert f"0 pass, 0 fail, {len(PROBES)} inconclusive" in card.markdown()


# --- markdown ---------------------------------------------------------------------------------------------


def test_the_header_names_judge_strategy_language_data_and_items() -> None:
    text = card_of(sound(), language="en", data="tests/fixtures/x.csv").markdown()
    assert (
        "Judge `openai/gpt-4.1` (strategy `aspect`, instructions in `en`) on 40 items of tests/fixtures/x.csv: "
        f"{len(PROBES)} pass, 0 fail, 0 inconclusive." in text
    )
    assert (
        "Student t over items, its spread counting a pseudo-item above and below the mean, as far as an "
        "item could lie (weight 1 each)" in text
    )


def test_the_control_comes_first_as_the_noise_floor() -> None:
    card = card_of(sound())
    assert card.results[0].probe == "retest"
    lines = card.markdown().splitlines()
    floor = lines.index(
        "Noise floor (`retest`, `reference` judged again as a fresh call): the two calls agree on 100 % "
        "[91 %, 100 %] of 40 items, shift +0.00; each invariance probe's flips are counted beyond the "
        "control's."
    )
    assert floor < next(i for i, line in enumerate(lines) if line.startswith("| probe |"))
    retest = next(line for line in lines if line.startswith("| `retest` |"))
    assert "same as `reference`, asked again (±0.50)" in retest and "agreement 100 %" in retest


def test_without_a_control_the_card_says_the_noise_floor_is_unknown() -> None:
    scores = {k: v for k, v in sound().items() if k != "retest"}
    text = card_of(scores).markdown()
    assert "No control (`retest`): the judge's test-retest noise is unknown" in text
    assert "flips 0 %, no control (≤ 50 %)" in text


@pytest.mark.slow
@pytest.mark.parametrize(
    ("confidence", "level"),
    [
        pytest.param(0.95, "95 %", id="default"),
        pytest.param(0.9, "90 %", id="90"),
        pytest.param(0.995, "99.5 %", id="99.5-not-rounded-to-100"),
        pytest.param(0.9999, "99.99 %", id="99.99"),
    ],
)
def test_the_card_and_plot_name_the_level_of_their_intervals(
    confidence: float, level: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    card = card_of(sound(), thresholds=Thresholds(confidence=confidence))
    assert f"[{level} CI]: Student t over items" in card.markdown()
    labels: list[str] = []
    from matplotlib.axes import Axes

    original = Axes.set_xlabel

    def record(self: Axes, text: str, *args: object, **kwargs: object) -> object:
        labels.append(text)
        return original(self, text, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Axes, "set_xlabel", record)
    card.png()
    assert len(labels) == 2 and all(" ".join(label.split()).endswith(f", {level} CI") for label in labels), (
        labels
    )


def test_one_row_per_probe_in_order_with_expectation_mean_comparison_shift_rate_unscored_verdict() -> None:
    card = card_of(length_rewarding())
    lines = card.markdown().splitlines()
    header = lines.index(
        "| probe | expectation | mean | paired: probe − comparison | shift [CI] | rate [CI] | unscored | verdict |"
    )
    rows = lines[header + 2 : header + 2 + len(PROBES)]
    assert [row.split(" | ")[0] for row in rows] == [f"| `{p.name}`" for p in PROBES]
    index = [p.name for p in PROBES].index("padding")
    padding = rows[index].split(" | ")
    result = card.results[index]
    assert padding[1] == "not higher than `partial` (≤ +0.50)"
    assert padding[2] == f"{result.mean:.2f}"
    assert padding[3] == (
        f"{result.paired_mean:.2f} − `partial` {result.comparison_mean:.2f} ({result.n_paired} items)"
    )
    assert padding[4] == f"**{result.shift:+.2f}** [{result.ci_low:+.2f}, {result.ci_high:+.2f}]"
    assert padding[5] == (
        f"flips {100 * (1 - result.rate):.0f} % − control 0 %: **+{100 * result.excess_flips:.0f} %** "
        f"[+{100 * result.excess_ci_low:.0f} %, +{100 * result.excess_ci_high:.0f} %] (≤ 50 %)"
    )
    assert padding[6] == "0 / 0"
    assert padding[7] == "**FAIL** |"
    reference = rows[1].split(" | ")
    assert reference[1] == "high (≥ 4.00)"
    assert reference[2].startswith("**") and "[" in reference[2]  # the mean decides, with its interval
    assert reference[3:5] == ["—", "n/a"]
    assert reference[5].startswith("**floor 100 % [") and reference[5].endswith("]** (≥ 70 %)")
    assert rows[5].split(" | ")[1] == "at most 1 (≤ 1.00)"


def test_every_probe_that_did_not_pass_is_explained() -> None:
    scores = length_rewarding()
    scores["hedge"] = {i: (NAN if i < 10 else v) for i, v in scores["hedge"].items()}
    text = card_of(scores).markdown()
    assert (
        "Not passed:\n- `padding` **FAIL**: the judge scores `padding` higher than `partial`: shift +" in text
    )
    assert "- `hedge` inconclusive: 10 of 40 items unscored on one side or both" in text
    assert "`spelling` pass" not in text


def test_the_thresholds_used_are_listed_with_what_each_decides() -> None:
    text = card_of(sound(), thresholds=Thresholds(min_rate=0.8)).markdown()
    for f in fields(Thresholds):
        assert (
            f"| `{f.name}` | {getattr(Thresholds(min_rate=0.8), f.name)} | {THRESHOLD_USES[f.name]} |" in text
        )
    assert "| `min_rate` | 0.8 |" in text


def test_notes_and_logs_close_the_card() -> None:
    scores = sound()
    scores["partial"] = {i: v for i, v in scores["partial"].items() if i >= 2}
    scores["extra"] = {1: 3.0}
    text = card_of(scores, log_locations=["logs/a.eval", "logs/b.eval"]).markdown()
    assert "- scores of probe(s) not in the audit ignored: extra" in text
    assert "- `padding`: 2 item(s) of 'padding' have no 'partial' record at all" in text
    assert text.endswith("Logs (`inspect view`):\n- logs/a.eval\n- logs/b.eval\n")


def test_an_all_unscored_card_reads_n_a() -> None:
    scores = {probe.name: dict.fromkeys(range(N), NAN) for probe in PROBES}
    card = card_of(scores)
    text = card.markdown()
    assert card.exit_code == 0
    assert (
        "| `reference` | high (≥ 4.00) | **n/a** [n/a, n/a] | — | n/a | **floor n/a [n/a, n/a]** (≥ 70 %) | 40 |"
        in text
    )
    assert (
        "| `spelling` | same as `reference` (±0.50) | n/a | `reference`: no item scored in both | n/a |"
        in text
    )


PAIRED_SHAPES = [
    pytest.param({}, id="all-scored"),
    pytest.param({"padding": range(0, 6)}, id="probe-unscored"),
    pytest.param({"partial": range(30, 38)}, id="comparison-unscored"),
    pytest.param({"padding": range(0, 5), "partial": range(3, 12)}, id="both-overlapping"),
    pytest.param({"wrong": range(0, 9), "reference": range(20, 26)}, id="own-score-probe"),
]


def _with_gaps(gaps: dict[str, range]) -> Scores:
    scores = length_rewarding()
    for name, items in gaps.items():
        scores[name] = {i: (NAN if i in items else v) for i, v in scores[name].items()}
    return scores


@pytest.mark.parametrize("gaps", PAIRED_SHAPES)
def test_the_paired_means_shown_subtract_to_the_shift_shown(gaps: dict[str, range]) -> None:
    card = card_of(_with_gaps(gaps))
    cells = re.compile(r"^(-?\d+\.\d\d) − `\w+` (-?\d+\.\d\d) \((\d+) items\)$")
    rows = [line.split(" | ") for line in card.markdown().splitlines() if line.startswith("| `")]
    checked = 0
    for row, result in zip(rows, card.results, strict=False):
        if result.comparison is None:
            continue
        found = cells.match(row[3])
        assert found, row[3]
        probe, comparison, n = float(found[1]), float(found[2]), int(found[3])
        shift = float(row[4].strip("*").split(" ")[0].strip("*"))
        assert n == result.n_paired
        assert probe - comparison == pytest.approx(shift, abs=0.0101), (result.probe, row)
        checked += 1
    assert checked == len(PROBES) - 1


@pytest.mark.parametrize("gaps", PAIRED_SHAPES)
def test_the_csv_has_the_paired_means_and_the_probes_own_mean(gaps: dict[str, range]) -> None:
    scores = _with_gaps(gaps)
    card = card_of(scores)
    for row, result in zip(card.rows(), card.results, strict=True):
        if result.comparison is None:
            assert row["paired_mean"] is None and row["comparison_mean"] is None
            continue
        assert row["paired_mean"] - row["comparison_mean"] == pytest.approx(row["shift"], abs=2e-4)
        own = [v for v in scores[result.probe].values() if not math.isnan(v)]
        assert row["mean"] == round(sum(own) / len(own), 4)


# --- build_card -------------------------------------------------------------------------------------------


def test_a_subset_of_probes_makes_a_card_of_those() -> None:
    scores = {k: v for k, v in sound().items() if k in ("reference", "english")}
    card = card_of(scores)
    assert [r.probe for r in card.results] == ["reference", "english"]
    assert card.n_items == N


def test_items_are_counted_over_every_probe() -> None:
    scores = {"reference": {1: 5.0, 2: 5.0}, "hedge": {2: 0.0, 3: 0.0}}
    assert card_of(scores).n_items == 3


def test_no_probe_with_scores_is_refused() -> None:
    with pytest.raises(
        ValueError, match=r"no probe of the audit has scores \(probes: retest, reference, spelling"
    ):
        card_of({"unknown": {1: 3.0}})
    with pytest.raises(ValueError, match="scores of: none"):
        card_of({})


# --- rows and CSV -----------------------------------------------------------------------------------------


def test_rows_carry_the_identity_then_every_statistic() -> None:
    card = card_of(sound(), seed=4)
    rows = card.rows()
    assert len(rows) == len(PROBES)
    assert list(rows[0]) == [*CARD_COLUMNS, *(f.name for f in fields(ProbeResult))]
    assert {(r["judge"], r["strategy"], r["language"], r["data"], r["seed"]) for r in rows} == {
        ("openai/gpt-4.1", "aspect", "vi", "sample", 4)
    }
    reference = rows[1]
    assert reference["shift"] is None and reference["ci_low"] is None and reference["comparison"] is None
    assert reference["mean"] == round(card.results[1].mean, 4)
    assert reference["verdict"] == "pass" and reference["statistic"] == "mean"


def test_the_csv_reads_back_as_the_rows(written: tuple[AuditCard, Path]) -> None:
    card, out = written
    with (out / "audit.csv").open(encoding="utf-8", newline="") as file:
        read = list(csv.DictReader(file))
    expected = [{k: "" if v is None else str(v) for k, v in row.items()} for row in card.rows()]
    assert read == expected


def test_csv_cells_a_spreadsheet_would_run_are_neutralised() -> None:
    text = card_of(sound(), judge='=HYPERLINK("http://x")').csv_text()
    assert "'=HYPERLINK" in text
    assert ",-4." in text  # numbers, negative ones too, stay numbers


# --- writing --------------------------------------------------------------------------------------------


def test_write_makes_the_three_files(written: tuple[AuditCard, Path]) -> None:
    card, out = written
    assert (out / "audit.md").read_text("utf-8") == card.markdown()
    width, height = png_size((out / "audit_shifts.png").read_bytes())
    assert width >= 1000 and height >= 500
    assert sorted(p.name for p in out.iterdir()) == sorted(FILES)  # no temporary file left


def test_writing_again_replaces_the_files(tmp_path: Path) -> None:
    for name in FILES:
        (tmp_path / name).write_text("an earlier audit\n", "utf-8")
    card_of(sound()).write(tmp_path)
    assert (tmp_path / "audit.md").read_text("utf-8").startswith("## Judge audit: PASS")
    assert (tmp_path / "audit_shifts.png").read_bytes()[:8] == PNG_SIGNATURE
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(FILES)


def test_a_plot_that_cannot_be_drawn_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "audit.md").write_text("an earlier card\n", "utf-8")

    def broken(*args: object) -> bytes:
        raise RuntimeError("no canvas")

    monkeypatch.setattr(card_module, "render_png", broken)  # the card's own import of it
    with pytest.raises(RuntimeError, match="no canvas"):
        card_of(sound()).write(tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["audit.md"]
    assert (tmp_path / "audit.md").read_text("utf-8") == "an earlier card\n"


# --- the forest plot --------------------------------------------------------------------------------------


def test_the_plot_is_the_same_bytes_for_the_same_card(written: tuple[AuditCard, Path]) -> None:
    _, out = written
    assert card_of(length_rewarding()).png() == (out / "audit_shifts.png").read_bytes()


def test_the_plot_grows_with_the_probes(written: tuple[AuditCard, Path]) -> None:
    two = card_of({k: v for k, v in sound().items() if k in ("reference", "spelling")})
    _, small = png_size(two.png())
    _, large = png_size((written[1] / "audit_shifts.png").read_bytes())
    assert large > small


@pytest.mark.parametrize(
    "scores",
    [
        pytest.param({p.name: dict.fromkeys(range(N), NAN) for p in PROBES}, id="all-unscored"),
        pytest.param({name: {1: values[1]} for name, values in sound().items()}, id="one-item"),
        pytest.param({p.name: dict.fromkeys(range(N), 5.0) for p in PROBES}, id="all-equal"),
        pytest.param({"wrong": dict.fromkeys(range(N), 0.0)}, id="missing-comparison"),
    ],
)
def test_the_plot_draws_degenerate_cards(scores: Scores) -> None:
    assert png_size(card_of(scores).png())[0] > 0


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("retest", "retest: same as reference, asked again"),
        ("reference", "reference: high"),
        ("spelling", "spelling: same as reference"),
        ("partial", "partial: lower than reference"),
        ("padding", "padding: not higher than partial"),
        ("wrong", "wrong: at most 1"),
        ("english", "english: within 1 of reference"),
    ],
)
def test_plot_labels_say_what_each_probe_expects(name: str, label: str) -> None:
    (result,) = [r for r in card_of(sound()).results if r.probe == name]
    assert plot.label(result) == label


def _drawn_texts(figure: Any) -> list[Any]:
    """Every text the figure draws: titles, labels, legend, notes, and the tick labels in view."""
    from matplotlib.text import Text

    texts = [t for t in figure.findobj(Text) if not _is_tick_label(t, figure)]
    for axes in figure.axes:
        for axis, (low, high) in ((axes.xaxis, axes.get_xlim()), (axes.yaxis, axes.get_ylim())):
            for tick in axis.get_majorticklabels():
                position = tick.get_position()[0 if axis is axes.xaxis else 1]
                if min(low, high) <= position <= max(low, high):
                    texts.append(tick)
    return texts


def _is_tick_label(text: Any, figure: Any) -> bool:
    return any(
        text in axis.get_majorticklabels() or text in axis.get_minorticklabels()
        for axes in figure.axes
        for axis in (axes.xaxis, axes.yaxis)
    )


LONG = {
    "judge": "openai-api/local/Qwen/Qwen3-235B-A22B-Instruct-2507-FP8-with-a-much-longer-served-model-name",
    "data": "/srv/shared/datasets/vietnamese/vivid/releases/2025-06/vivid_full_release_with_every_item.csv",
}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("scores", "identity"),
    [
        pytest.param(length_rewarding(), {}, id="ordinary-card"),
        pytest.param(length_rewarding(), LONG, id="long-judge-and-data-names"),
        pytest.param(
            {k: v for k, v in sound().items() if k in ("reference", "spelling")}, LONG, id="two-rows"
        ),
        pytest.param(length_rewarding(), {"thresholds": Thresholds(confidence=0.9999)}, id="long-level"),
    ],
)
def test_every_text_of_the_plot_stays_inside_the_canvas(scores: Scores, identity: dict[str, object]) -> None:
    import matplotlib.style

    card = card_of(scores, **identity)
    with matplotlib.style.context("default"):
        figure = plot.build_figure(card.results, card.thresholds.confidence, card.plot_title)
        figure.canvas.draw()
        renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
        width, height = figure.bbox.width, figure.bbox.height
        texts = [t for t in _drawn_texts(figure) if t.get_visible() and t.get_text().strip()]
        assert len(texts) > 10 and any("Judge audit" in t.get_text() for t in texts)
        for text in texts:
            box = text.get_window_extent(renderer)
            assert box.x0 >= 0 and box.y0 >= 0, text.get_text()
            assert box.x1 <= width and box.y1 <= height, (text.get_text(), box, width)


# --- imports ----------------------------------------------------------------------------------------------


def test_the_card_modules_import_nothing_heavy() -> None:
    heavy = ("inspect_ai", "pandas", "matplotlib", "sklearn", "scipy", "numpy")
    code = (
        "import json, sys\n"
        "import vivid_inspect.lab.audit.card, vivid_inspect.lab.audit.verdicts, vivid_inspect.lab.audit.plot\n"
        f"print(json.dumps([m for m in {heavy!r} if m in sys.modules]))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == []


# --- docs/audit.md stays true ---------------------------------------------------------------------------

DOCS = REPO / "docs" / "audit.md"


def test_the_docs_list_every_threshold_with_its_default_and_allowed_range() -> None:
    text = DOCS.read_text("utf-8")
    for f in fields(Thresholds):
        assert f"| `{f.name}` | {f.default} | {ALLOWED[f.name]} |" in text, f.name


def test_the_docs_python_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    text = DOCS.read_text("utf-8")
    # The page's build_card example (a run_audit example that calls the judge comes before it).
    blocks = [block.split("```", 1)[0] for block in text.split("```python\n")[1:]]
    [example] = [block for block in blocks if "build_card(" in block]
    exec(compile(example, str(DOCS), "exec"), {})
    printed = capsys.readouterr().out
    assert printed.startswith("## Judge audit: INCONCLUSIVE\n")
    assert printed.endswith("\n0\n")
