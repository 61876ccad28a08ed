"""Human scores are compared with the generation they scored, never with a guessed one.

The folder is the offline main job's (`vivid run offline`, the spec of experiments/offline.yaml): four explanation
generations (oracle and literal, zero- and few-shot), each judged by the chrF grader and the
lexical judge, so every generation is a candidate for Table 1.
"""

from __future__ import annotations

import csv
import json
import shutil
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
import yaml
from inspect_ai.log import read_eval_log, write_eval_log

from vivid_inspect.generation_key import (
    Generation,
    GenerationChoiceError,
    choose,
    generation_of,
    matches,
)
from vivid_inspect.lab.cli.main import main
from vivid_inspect.lab.humans.annotate.sheet_export import export_sheet
from vivid_inspect.lab.humans.binding import Binding, bind_generation
from vivid_inspect.lab.humans.scores_file import HumanScoresError, read_human_scores, record_path
from vivid_inspect.lab.humans.sheet_import import import_sheets
from vivid_inspect.lab.report.build import write_report
from vivid_inspect.lab.report.reading.logs import generations_in, read_logs
from vivid_inspect.lab.report.tables.judges import judge_rows
from vivid_inspect.lab.report.tables.reliability import reliability_generation
from vivid_inspect.tasks import TASK_VERSION

REPO = Path(__file__).resolve().parents[3]
SMOKE = REPO / "experiments" / "smoke.yaml"


# The job is tests/conftest.py's offline_job, run once per session for every module that reads it.


@pytest.fixture
def offline(offline_job: tuple[Path, str]) -> Path:
    """The offline main job's folder, made once for the session; read only."""
    return offline_job[0]


@pytest.fixture()
def folder(offline: Path, tmp_path: Path) -> Path:
    """A private copy of the offline folder, for tests that add or change logs."""
    return Path(shutil.copytree(offline, tmp_path / "logs"))


def generations(log_dir: Path) -> dict[str, Generation]:
    """Each run of each generation by its log."""
    return {generation.log: generation for generation in generations_in(read_logs(log_dir))}


def fill(sheet: Path, out: Path, score: int | dict[int, int], annotator: str = "lan") -> Path:
    """A filled copy of an exported sheet (columns and key kept as exported)."""
    with sheet.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        row["score"] = str(score if isinstance(score, int) else score[int(row["id"])])
        row["annotator"] = annotator
    with out.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return out


def table1_generation(report_dir: Path) -> str:
    """The key of the generation Table 1 was computed on, from its notes in report.md."""
    text = (report_dir / "report.md").read_text(encoding="utf-8")
    line = next(line for line in text.splitlines() if line.startswith("- computed on generation "))
    return line.removeprefix("- computed on generation ").split(" ", 1)[0]


# --- the generation key --------------------------------------------------------------------------


@pytest.mark.slow
def test_a_judged_copy_has_the_key_of_its_generation(offline: Path) -> None:
    found = generations(offline)
    assert len(found) == 4 and len({g.key for g in found.values()}) == 4
    for rel, generation in found.items():
        copies = sorted((offline / "judged").rglob(Path(rel).name))
        assert len(copies) == 2  # the chrF grader's and the lexical judge's
        for copy in copies:
            assert generation_of(read_eval_log(str(copy), header_only=True)).key == generation.key


BASE = Generation(
    "explain", "1", "vivid/literal", "zero_shot", "VIVID_Dataset.csv", (1, 2, 3), "eval-a", "a.eval"
)


@pytest.mark.parametrize(
    "other",
    [
        pytest.param(replace(BASE, model="vivid/oracle"), id="model"),
        pytest.param(replace(BASE, prompt="few_shot"), id="prompt"),
        pytest.param(replace(BASE, data="other.csv"), id="data"),
        pytest.param(replace(BASE, sample_ids=(1, 2)), id="sample-ids"),
        pytest.param(replace(BASE, task="topic"), id="task"),
        pytest.param(replace(BASE, task_version="2"), id="task-version"),
    ],
)
def test_the_key_changes_with_what_the_generation_holds(other: Generation) -> None:
    assert other.key != BASE.key


@pytest.mark.parametrize(
    "same",
    [
        pytest.param(replace(BASE, eval_id="eval-b"), id="eval-id-resumed"),
        pytest.param(replace(BASE, log="elsewhere/b.eval"), id="log-moved"),
        pytest.param(replace(BASE, sample_ids=(3, 1, 2)), id="id-order"),
    ],
)
def test_the_key_ignores_where_the_log_is_and_its_eval_id(same: Generation) -> None:
    assert same.key == BASE.key


def test_a_key_never_reads_as_a_number_when_a_spreadsheet_saves_the_sheet() -> None:
    # Without a letter first, about 1 key in 200 is all digits (or digits, e, digits) and a
    # spreadsheet would save it as 1.23457E+11.
    keys = [replace(BASE, sample_ids=(n,)).key for n in range(3000)]
    assert len(set(keys)) == len(keys)
    for key in keys:
        assert key[0].isalpha() and len(key) == 13
        with pytest.raises(ValueError):
            float(key)


CANDIDATES = [
    replace(BASE, model=model, prompt=prompt, log=f"generations/{model.split('/')[1]}_{prompt}.eval")
    for model in ("vivid/literal", "vivid/oracle")
    for prompt in ("zero_shot", "few_shot")
]


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        pytest.param(CANDIDATES[1].key, CANDIDATES[1], id="key"),
        pytest.param(CANDIDATES[1].key[:6], CANDIDATES[1], id="key-prefix"),
        pytest.param("vivid/literal few_shot", CANDIDATES[1], id="model-and-prompt"),
        pytest.param("few_shot literal", CANDIDATES[1], id="prompt-and-bare-model"),
        pytest.param("oracle_zero", CANDIDATES[2], id="log-substring"),
    ],
)
def test_a_selector_names_one_generation(selector: str, expected: Generation) -> None:
    assert choose(CANDIDATES, selector, option="--generation") == expected


@pytest.mark.parametrize(
    ("selector", "count"),
    [
        pytest.param("vivid/oracle", "matches 2", id="model-only"),
        pytest.param("zero_shot", "matches 2", id="prompt-only"),
        pytest.param("gpt-4o", "matches none", id="unknown-model"),
        pytest.param("vivid/oracle cot", "matches none", id="unknown-prompt"),
    ],
)
def test_an_ambiguous_or_unknown_selector_lists_candidates_by_model_and_prompt(
    selector: str, count: str
) -> None:
    with pytest.raises(GenerationChoiceError) as caught:
        choose(CANDIDATES, selector, option="--human-generation")
    message = str(caught.value)
    assert count in message and "--human-generation" in message
    for candidate in (
        CANDIDATES if count == "matches none" else [g for g in CANDIDATES if matches(g, selector)]
    ):
        assert f"{candidate.key}  {candidate.model}  {candidate.prompt}  {candidate.log}" in message


# --- the report compares with the generation the humans scored -------------------------------------


@pytest.mark.slow
def test_table1_uses_the_generation_the_humans_scored_even_when_it_sorts_last(
    folder: Path, tmp_path: Path
) -> None:
    found = generations(folder)
    last = max(found, key=lambda log: found[log].key)  # the generation whose key sorts last
    sheet = tmp_path / "sheet.csv"
    export_sheet(folder, sheet, n=12, generation=found[last].key)
    human = tmp_path / "human.csv"
    import_sheets([fill(sheet, tmp_path / "lan.csv", 3)], human)
    report = write_report(folder, out_dir=tmp_path / "report", human=human, formats=("md",), figures=False)
    assert table1_generation(tmp_path / "report") == found[last].key
    notes = " ".join(report.table("table1_judges").notes)
    assert f"drawn from generation {found[last].key}" in notes and last in notes


@pytest.mark.slow
def test_before_binding_the_folder_ranked_a_different_generation_first(folder: Path) -> None:
    """Why the test above matters: the old rule (most judges, then path) never picks the last."""
    scores = read_logs(folder).scores
    rows = judge_rows(scores[scores["task"] == "explain"])
    keys = sorted(g.key for g in generations(folder).values())
    assert reliability_generation(rows, set(), None) == keys[0] != keys[-1]


@pytest.mark.slow
def test_export_import_report_on_the_offline_job_needs_no_extra_option(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sheet, human = tmp_path / "sheet.csv", tmp_path / "human.csv"
    assert (
        main(
            [
                "annotate",
                "export",
                str(folder),
                "--generation",
                "vivid/literal zero_shot",
                "--out",
                str(sheet),
                "-n",
                "20",
            ]
        )
        == 0
    )
    filled = fill(sheet, tmp_path / "ann_a.csv", 0)  # a renamed filled sheet: its record is found by key
    assert main(["annotate", "import", str(filled), "--out", str(human)]) == 0
    capsys.readouterr()
    assert (
        main(
            ["report", str(folder), "--human", str(human), "--out", str(tmp_path / "report"), "--no-figures"]
        )
        == 0
    )
    literal = next(
        g for g in generations(folder).values() if (g.model, g.prompt) == ("vivid/literal", "zero_shot")
    )
    assert table1_generation(tmp_path / "report") == literal.key
    table1 = pd.read_csv(tmp_path / "report" / "table1_judges.csv").set_index("judge")
    # The literal baseline's explanations score below 1: humans who gave 0 agree within one point.
    assert table1.loc["lexical", "n"] == 20 and table1.loc["lexical", "mae"] < 1.0


@pytest.mark.slow
def test_an_unbound_human_file_with_several_judged_generations_stops_and_lists_them(
    offline: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    human = tmp_path / "human.csv"
    human.write_text("id,score\n1,4\n2,5\n3,0\n", encoding="utf-8")
    code = main(["report", str(offline), "--human", str(human), "--out", str(tmp_path / "r"), "--no-figures"])
    err = capsys.readouterr().err
    assert code == 2 and "never guesses" in err and "--human-generation" in err
    for generation in generations(offline).values():
        assert f"{generation.model}  {generation.prompt}  {generation.log}" in err
    assert not (tmp_path / "r" / "report.md").exists()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("selector", "code", "said"),
    [
        pytest.param("vivid/literal zero_shot", 0, "", id="model-and-prompt"),
        pytest.param("vivid/literal", 2, "matches 2", id="ambiguous-model"),
        pytest.param("cot", 2, "matches none", id="unmatched"),
    ],
)
def test_human_generation_picks_one_for_an_unbound_file(
    offline: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], selector: str, code: int, said: str
) -> None:
    human = tmp_path / "human.csv"
    human.write_text("id,score\n1,4\n2,5\n3,0\n", encoding="utf-8")
    out = tmp_path / "r"
    argv = [
        "report",
        str(offline),
        "--human",
        str(human),
        "--human-generation",
        selector,
        "--out",
        str(out),
        "--no-figures",
    ]
    assert main(argv) == code
    assert said in capsys.readouterr().err
    if code == 0:
        literal = next(
            g for g in generations(offline).values() if (g.model, g.prompt) == ("vivid/literal", "zero_shot")
        )
        assert table1_generation(out) == literal.key


def _bound_human(folder: Path, tmp_path: Path, selector: str = "vivid/oracle few_shot") -> Path:
    sheet = tmp_path / "sheet.csv"
    export_sheet(folder, sheet, n=8, generation=selector)
    human = tmp_path / "human.csv"
    import_sheets([fill(sheet, tmp_path / "filled.csv", 5)], human)
    return human


@pytest.mark.slow
def test_a_bound_file_refuses_a_human_generation_that_names_another(
    offline: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    human = _bound_human(offline, tmp_path)
    argv = ["report", str(offline), "--human", str(human), "--human-generation", "vivid/literal zero_shot"]
    assert main([*argv, "--out", str(tmp_path / "r"), "--no-figures"]) == 2
    assert "names another" in capsys.readouterr().err


@pytest.mark.slow
def test_a_bound_file_whose_generation_is_not_in_the_folder_is_refused(folder: Path, tmp_path: Path) -> None:
    human = _bound_human(folder, tmp_path)
    drawn = next(
        g for g in generations(folder).values() if (g.model, g.prompt) == ("vivid/oracle", "few_shot")
    )
    for log in [folder / drawn.log, *(folder / "judged").rglob(Path(drawn.log).name)]:
        log.unlink()
    # The report runs; the humans are compared with no other generation, and one line says why.
    report = write_report(folder, out_dir=tmp_path / "r", human=human, formats=("md",), figures=False)
    (line,) = [line for line in report.markdown.splitlines() if line.startswith(f"- {human.name}: ")]
    assert f"human scores not compared: the human scores were drawn from generation {drawn.key}" in line
    assert "no log in this folder holds" in line and "it has no vivid/oracle few_shot generation" in line
    table1 = report.table("table1_judges").frame
    assert table1["kappa"].isna().all() and "human" not in set(table1["judge"])


def _rerun_copy(folder: Path, rel: str) -> str:
    """A second run of the same cell (same content key, another eval id), judged as the first was."""
    copy = f"rerun/{Path(rel).name}"
    for path in [folder / rel, *(folder / "judged").rglob(Path(rel).name)]:
        log = read_eval_log(str(path))
        log.eval.eval_id = "another-eval-id"
        if "vivid_judge" in (log.eval.metadata or {}):
            record = log.eval.metadata["vivid_judge"]  # type: ignore[index]
            record["generation_eval_id"], record["generation_log"] = "another-eval-id", copy
        target = folder / ("rerun" if path == folder / rel else "rerun-judged") / path.relative_to(folder)
        target.parent.mkdir(parents=True, exist_ok=True)
        write_eval_log(log, str(folder / copy if path == folder / rel else target))
    return copy


@pytest.mark.slow
def test_the_recorded_eval_id_tells_apart_two_logs_of_one_generation(folder: Path, tmp_path: Path) -> None:
    human = _bound_human(folder, tmp_path)
    drawn = next(
        g for g in generations(folder).values() if (g.model, g.prompt) == ("vivid/oracle", "few_shot")
    )
    copy = _rerun_copy(folder, drawn.log)
    report = write_report(folder, out_dir=tmp_path / "r", human=human, formats=("md",), figures=False)
    assert table1_generation(tmp_path / "r") == drawn.key
    assert f"{drawn.key} (vivid/oracle few_shot, sample" in " ".join(report.table("table1_judges").notes)
    assert drawn.log in " ".join(report.table("table1_judges").notes)
    # Without the record beside the file there is no eval id to check: the report stops.
    record_path(human).unlink()
    with pytest.raises(GenerationChoiceError, match="2 runs of that generation") as caught:
        write_report(folder, out_dir=tmp_path / "r2", human=human, formats=("md",), figures=False)
    assert copy in str(caught.value)


@pytest.mark.slow
def test_a_resumed_log_with_a_new_eval_id_is_still_bound_and_noted(folder: Path, tmp_path: Path) -> None:
    human = _bound_human(folder, tmp_path)
    drawn = next(
        g for g in generations(folder).values() if (g.model, g.prompt) == ("vivid/oracle", "few_shot")
    )
    # What eval_set does when it replaces the log file on resume, and the judge phase after it: the
    # generation log and its judged copies name the new eval id.
    for path in [folder / drawn.log, *(folder / "judged").rglob(Path(drawn.log).name)]:
        log = read_eval_log(str(path))
        log.eval.eval_id = "resumed-eval-id"
        if "vivid_judge" in (log.eval.metadata or {}):
            log.eval.metadata["vivid_judge"]["generation_eval_id"] = "resumed-eval-id"  # type: ignore[index]
        write_eval_log(log, str(path))
    report = write_report(folder, out_dir=tmp_path / "r", human=human, formats=("md",), figures=False)
    assert table1_generation(tmp_path / "r") == drawn.key
    assert "resumed or re-run since" in " ".join(report.table("table1_judges").notes)


def test_bind_generation_without_humans_leaves_the_choice_to_the_ranking() -> None:
    judged = {(g.key, g.eval_id) for g in CANDIDATES}
    assert bind_generation(CANDIDATES, judged, None) == Binding()


# --- import checks the ids against the generation ----------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("bad_id", "why"),
    [
        pytest.param("9999", "not a sample", id="unknown-id"),
        pytest.param("17", "not a sample", id="left-out-demonstration"),
        pytest.param("0", "not a sample", id="zero"),
        pytest.param("-3", "not a sample", id="negative"),
    ],
)
def test_import_rejects_ids_that_are_not_samples_of_the_generation(
    offline: Path, tmp_path: Path, bad_id: str, why: str
) -> None:
    sheet = tmp_path / "sheet.csv"
    export_sheet(offline, sheet, n=5, generation="vivid/literal zero_shot")
    filled = fill(sheet, tmp_path / "filled.csv", 2)
    lines = filled.read_text(encoding="utf-8").splitlines()
    lines[3] = bad_id + lines[3][lines[3].index(",") :]
    filled.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        import_sheets([filled], tmp_path / "human.csv")
    assert f"data row 3 (line 4), column 'id': id {int(bad_id)} is {why} of generation" in str(caught.value)
    assert not (tmp_path / "human.csv").exists()


@pytest.mark.slow
def test_import_carries_the_key_and_the_record(offline: Path, tmp_path: Path) -> None:
    human = _bound_human(offline, tmp_path)
    scores = read_human_scores(human)
    record = json.loads(record_path(human).read_text(encoding="utf-8"))
    assert set(scores["generation"]) == {record["generation"]}
    assert (record["model"], record["prompt"]) == ("vivid/oracle", "few_shot") and record["eval_id"]


@pytest.mark.slow
def test_import_without_the_record_names_where_it_looked(offline: Path, tmp_path: Path) -> None:
    sheet = tmp_path / "out" / "sheet.csv"
    sheet.parent.mkdir()
    export_sheet(offline, sheet, n=5, generation="vivid/literal zero_shot")
    elsewhere = tmp_path / "returned"
    elsewhere.mkdir()
    filled = fill(sheet, elsewhere / "lan.csv", 1)
    with pytest.raises(ValueError, match=r"no record of generation .* looked for lan\.csv\.generation\.json"):
        import_sheets([filled], tmp_path / "human.csv")


@pytest.mark.slow
def test_sheets_of_two_generations_are_not_merged(offline: Path, tmp_path: Path) -> None:
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    export_sheet(offline, a, n=4, generation="vivid/literal zero_shot")
    export_sheet(offline, b, n=4, generation="vivid/oracle zero_shot")
    with pytest.raises(ValueError, match="drawn from different generations"):
        import_sheets(
            [fill(a, tmp_path / "fa.csv", 1), fill(b, tmp_path / "fb.csv", 5, "minh")], tmp_path / "h.csv"
        )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        pytest.param(
            "id,score,generation\n1,4,abc\n2,3,\n", "column 'generation': generation is empty", id="empty"
        ),
        pytest.param(
            "id,score,generation\n1,4,abc\n2,3,def\n", "a human scores file holds the scores of one", id="two"
        ),
    ],
)
def test_a_generation_column_holds_one_key(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "human.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(HumanScoresError, match=message):
        read_human_scores(path)


def test_a_hand_made_file_still_loads_unbound(tmp_path: Path) -> None:
    path = tmp_path / "human.csv"
    path.write_text("id,score,annotator\n1,4,lan\n", encoding="utf-8")
    assert list(read_human_scores(path).columns) == ["id", "score", "annotator"]


# --- export names its generation by key, model or prompt ---------------------------------------------


@pytest.mark.slow
def test_export_error_lists_candidates_by_model_and_prompt(
    offline: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(["annotate", "export", str(offline), "--generation", "oracle", "--out", str(tmp_path / "s.csv")])
        == 2
    )
    err = capsys.readouterr().err
    assert "matches 2" in err and "vivid/oracle  zero_shot" in err and "vivid/oracle  few_shot" in err
    key = next(
        g.key for g in generations(offline).values() if g.prompt == "few_shot" and g.model == "vivid/oracle"
    )
    assert (
        main(
            [
                "annotate",
                "export",
                str(offline),
                "--generation",
                key,
                "--out",
                str(tmp_path / "s.csv"),
                "-n",
                "3",
            ]
        )
        == 0
    )
    assert json.loads(record_path(tmp_path / "s.csv").read_text(encoding="utf-8"))["prompt"] == "few_shot"


@pytest.mark.slow
def test_the_sheet_shows_only_the_opaque_key(offline: Path, tmp_path: Path) -> None:
    sheet = tmp_path / "sheet.csv"
    export_sheet(offline, sheet, n=10, generation="vivid/literal few_shot")
    text = sheet.read_text(encoding="utf-8-sig")
    assert "literal" not in text and "few_shot" not in text and "vivid/" not in text and ".eval" not in text
    assert "literal" in record_path(sheet).read_text(encoding="utf-8")


# --- the spec names its generation -----------------------------------------------------------------


def _spec(tmp_path: Path, human: object, *, human_file: str | None = None) -> Path:
    data = yaml.safe_load(SMOKE.read_text(encoding="utf-8"))
    data["log_dir"] = str(tmp_path / "logs")
    shutil.copy(SMOKE.parent / "humans" / "smoke.csv", tmp_path / "smoke.csv")
    if human_file is not None:
        (tmp_path / "smoke.csv").write_text(human_file, encoding="utf-8")
    data["human"] = human
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("human", "human_file", "where", "said"),
    [
        pytest.param(
            "smoke.csv",
            None,
            "human:",
            "ambiguous: smoke.csv names no generation",
            id="plain-file-four-cells",
        ),
        pytest.param(
            {"file": "smoke.csv"}, None, "human:", "names no generation", id="mapping-without-generation"
        ),
        pytest.param(
            {"file": "smoke.csv", "generation": "vivid/oracle"},
            None,
            "human.generation:",
            "is ambiguous",
            id="model-only",
        ),
        pytest.param(
            {"file": "smoke.csv", "generation": "few_shot"},
            None,
            "human.generation:",
            "is ambiguous",
            id="prompt-only",
        ),
        pytest.param(
            {"file": "smoke.csv", "generation": "gpt-4o zero_shot"},
            None,
            "human.generation:",
            "names none",
            id="unknown",
        ),
        pytest.param(
            {"file": "smoke.csv", "generation": 3}, None, "human.generation:", "string", id="not-a-string"
        ),
        pytest.param(
            {"file": "smoke.csv", "generation": "x", "extra": 1},
            None,
            "human.extra:",
            "unknown key",
            id="unknown-key",
        ),
    ],
)
def test_validate_refuses_an_ambiguous_human_generation(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    human: object,
    human_file: str | None,
    where: str,
    said: str,
) -> None:
    assert main(["validate", str(_spec(tmp_path, human, human_file=human_file))]) == 2
    err = capsys.readouterr().err
    assert where in err and said in err and "Nothing was run" in err


@pytest.mark.parametrize(
    ("human", "human_file"),
    [
        pytest.param(
            {"file": "smoke.csv", "generation": "vivid/literal few_shot"}, None, id="model-and-prompt"
        ),
        pytest.param({"file": "smoke.csv", "generation": "few_shot literal"}, None, id="any-order"),
        pytest.param("smoke.csv", "id,score,generation\n1,4,abcdef123456\n", id="file-names-its-generation"),
    ],
)
def test_validate_accepts_a_named_or_recorded_generation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], human: object, human_file: str | None
) -> None:
    assert main(["validate", str(_spec(tmp_path, human, human_file=human_file))]) == 0, (
        capsys.readouterr().err
    )


def test_the_shipped_smoke_spec_names_its_generation() -> None:
    human = yaml.safe_load(SMOKE.read_text(encoding="utf-8"))["human"]
    assert human == {"file": "humans/smoke.csv", "generation": "vivid/oracle zero_shot"}
    assert main(["validate", str(SMOKE)]) == 0


# --- a human file bound under an older key -----------------------------------------------------------


def _stale(
    folder: Path, tmp_path: Path, *, legacy: bool = False, **changes: object
) -> tuple[Path, Generation]:
    """A human file bound to the oracle's few-shot generation as an older version would have bound it.

    ``legacy``: the key as computed before data digests were recorded (same content); ``changes``:
    the generation as it was then (another task version, other sample ids, another data digest).
    """
    human = _bound_human(folder, tmp_path)
    record = json.loads(record_path(human).read_text(encoding="utf-8"))
    drawn = next(
        g for g in generations(folder).values() if (g.model, g.prompt) == ("vivid/oracle", "few_shot")
    )
    then = replace(drawn, **changes)  # type: ignore[arg-type]
    key = then.legacy_key if legacy else then.key
    record |= {
        k: v for k, v in then.record().items() if k in ("task_version", "data", "data_sha256", "sample_ids")
    }
    record["generation"] = key
    if legacy:
        del record["data_sha256"]  # not recorded then
    record_path(human).write_text(json.dumps(record), encoding="utf-8")
    text = human.read_text(encoding="utf-8").replace(drawn.key, key)
    human.write_text(text, encoding="utf-8")
    return human, drawn


@pytest.mark.slow
@pytest.mark.parametrize("with_record", [True, False], ids=["with-record", "without-record"])
def test_a_file_bound_under_the_key_before_digests_is_bound_and_says_so(
    folder: Path, tmp_path: Path, with_record: bool
) -> None:
    human, drawn = _stale(folder, tmp_path, legacy=True)
    if not with_record:
        record_path(human).unlink()
    assert drawn.legacy_key != drawn.key
    report = write_report(folder, out_dir=tmp_path / "r", human=human, formats=("md",), figures=False)
    assert table1_generation(tmp_path / "r") == drawn.key
    notes = " ".join(report.table("table1_judges").notes)
    assert f"bound under the key as computed before data digests were recorded: {drawn.legacy_key}" in notes
    assert f"its key is now {drawn.key}" in notes
    assert report.table("table1_judges").frame.set_index("judge").loc["lexical", "n"] == 8


@pytest.mark.slow
@pytest.mark.parametrize(
    ("changes", "said"),
    [
        pytest.param({"task_version": "1"}, f"task version (1 then, {TASK_VERSION} now)", id="task-version"),
        pytest.param(
            {"sample_ids": (*range(1, 17), *range(18, 48), 999)},
            "sample ids (47 then, 46 now; no longer samples: 999)",
            id="sample-ids",
        ),
        pytest.param({"data_digest": "0" * 64}, "data digest (00000000 then, ", id="data-digest"),
        pytest.param(
            {"data": "VIVID_Dataset.csv", "data_digest": ""},
            "data (VIVID_Dataset.csv then, vivid_inspect sample",
            id="data-of-a-log-before-digests",
        ),
    ],
)
def test_a_file_bound_to_a_generation_that_changed_loads_with_one_line_saying_what(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], changes: dict[str, object], said: str
) -> None:
    human, drawn = _stale(folder, tmp_path, **changes)
    out = tmp_path / "r"
    assert main(["report", str(folder), "--human", str(human), "--out", str(out), "--no-figures"]) == 0
    capsys.readouterr()
    text = (out / "report.md").read_text(encoding="utf-8")
    (line,) = [
        line for line in text.splitlines() if line.startswith(f"- {human.name}: human scores not compared")
    ]
    assert f"the folder's vivid/oracle few_shot generation {drawn.key}" in line and said in line, line
    table1 = pd.read_csv(out / "table1_judges.csv")
    assert "human" not in set(table1["judge"]) and table1["kappa"].isna().all()


@pytest.mark.slow
def test_write_log_finds_the_logs_of_a_sheet_bound_under_the_key_before_digests(
    folder: Path, tmp_path: Path
) -> None:
    from vivid_inspect.lab.humans.annotate.human_log import generation_logs

    drawn = next(
        g for g in generations(folder).values() if (g.model, g.prompt) == ("vivid/oracle", "few_shot")
    )
    now = generation_logs({"generation": drawn.key, "log": str(folder / drawn.log)}, folder, tmp_path / "a")
    then = generation_logs(
        {"generation": drawn.legacy_key, "log": str(folder / drawn.log)}, folder, tmp_path / "a"
    )
    assert then == now and len(now) == 3  # the generation log and its two judged copies
