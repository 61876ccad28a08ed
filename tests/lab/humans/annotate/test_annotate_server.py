"""`vivid annotate serve`: tokens, validation, persistence, no path traversal, escaped cells.

The generation log is made by a scripted model whose explanations include HTML, a script, a
spreadsheet formula and a text that starts with a quote, so what the page receives can be checked
against what the model wrote. Most tests talk to the application in-process through Starlette's
HTTP test client; one starts the real command (uvicorn) in a subprocess and kills it.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pandas as pd
import pytest
import yaml
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log
from starlette.testclient import TestClient

from tests.fake_api import explain_items, idiom_of
from tests.once import once_per_session
from tests.scripted import scripted_model
from vivid_inspect.lab.cli.main import main
from vivid_inspect.lab.humans.annotate import guidelines as guide
from vivid_inspect.lab.humans.annotate.app import TOKEN_HEADER, create_app
from vivid_inspect.lab.humans.annotate.items import read_sheet, shown
from vivid_inspect.lab.humans.annotate.opening import default_folder, open_workspace
from vivid_inspect.lab.humans.annotate.queues import assign, check_annotators
from vivid_inspect.lab.humans.annotate.serve import announce, bind, server
from vivid_inspect.lab.humans.annotate.sheet_export import export_sheet
from vivid_inspect.lab.humans.annotate.workspace import Workspace
from vivid_inspect.lab.humans.scores_file import read_human_scores, record_path
from vivid_inspect.lab.humans.sheet_files import neutralise
from vivid_inspect.lab.humans.sheet_import import import_sheets
from vivid_inspect.scorers.judge_prompts import ASPECT
from vivid_inspect.tasks import explain

REPO = Path(__file__).resolve().parents[4]
ITEMS = explain_items()[:12]
HOSTILE = {
    "script": "<script>window.__pwned = 1</script>Giải thích có thẻ script.",
    "img-onerror": '<img src=x onerror="window.__pwned = 1">',
    "formula": '=HYPERLINK("http://evil.example/","x")',
    "quote-first": "'Trích dẫn' mở đầu lời giải thích.",
    "markup": "<b>đậm</b> &amp; <i>nghiêng</i>",
}
BY_IDIOM = {item.idiom: text for item, text in zip(ITEMS, HOSTILE.values(), strict=False)}


def explanation(idiom: str) -> str:
    """What the scripted model answers: a hostile text for the first items, else the meaning."""
    item = next(item for item in ITEMS if item.idiom == idiom)
    return BY_IDIOM.get(idiom, f"Ý nói: {item.meaning}")


def make_log(folder: Path, cache: Path) -> Path:
    """A zero-shot generation log of ITEMS, with no judge."""

    def answer(prompt: str) -> str:
        return explanation(idiom_of(prompt) or ITEMS[-1].idiom)

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("INSPECT_CACHE_DIR", str(cache))
        (log,) = inspect_eval(
            explain(prompt="zero_shot", judge="none", data="sample"),
            model=scripted_model(answer),
            sample_id=[item.id for item in ITEMS],
            log_dir=str(folder),
            display="none",
        )
    assert log.status == "success"
    return Path(log.location)


def _make_generation(folder: Path) -> None:
    make_log(folder / "logs", folder / "cache")


@pytest.fixture(scope="module")
def generation_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The generation log of ITEMS, made once per session for the modules that import it; read only."""
    (path,) = (once_per_session(tmp_path_factory, "annotate-generation", _make_generation) / "logs").glob(
        "*.eval"
    )
    return path


@pytest.fixture()
def log(generation_log: Path, tmp_path: Path) -> Path:
    """A private copy of the log, so each test has its own annotation folder beside it."""
    copy = tmp_path / "logs" / generation_log.name
    copy.parent.mkdir()
    copy.write_bytes(generation_log.read_bytes())
    return copy


def workspace(log: Path, names: tuple[str, ...] = ("lan", "minh"), overlap: int = 4) -> Workspace:
    return open_workspace(log, list(names), overlap=overlap, n=100)


def client_of(space: Workspace) -> TestClient:
    return TestClient(create_app(space))


def token(space: Workspace, name: str = "lan") -> dict[str, str]:
    return {TOKEN_HEADER: space.url_token(name)}


def snapshot(folder: Path) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()
    }


# --- the token ----------------------------------------------------------------------------------------

REQUESTS = [
    ("GET", "/"),
    ("GET", "/static/app.js"),
    ("GET", "/api/state"),
    ("POST", "/api/score"),
    ("POST", "/api/undo"),
    ("GET", "/nowhere"),
]


@pytest.mark.parametrize(("method", "path"), REQUESTS, ids=[f"{m} {p}" for m, p in REQUESTS])
@pytest.mark.parametrize("given", ["none", "empty", "wrong", "truncated", "other-case"])
def test_every_request_without_a_valid_token_gets_403(log: Path, method: str, path: str, given: str) -> None:
    space = workspace(log)
    real = space.url_token("lan")
    value = {
        "none": None,
        "empty": "",
        "wrong": "x" * len(real),
        "truncated": real[:-1],
        "other-case": real.swapcase(),
    }[given]
    before = snapshot(space.folder)
    with client_of(space) as client:
        params = {} if value is None else {"t": value}
        response = client.request(
            method, path, params=params, json={"id": ITEMS[0].id, "score": 5} if method == "POST" else None
        )
    assert response.status_code == 403
    assert "open the URL" in response.text and ITEMS[0].idiom not in response.text
    assert snapshot(space.folder) == before


@pytest.mark.parametrize("where", ["query", "header"])
def test_the_token_opens_the_page_and_the_api(log: Path, where: str) -> None:
    space = workspace(log)
    with client_of(space) as client:
        given = {"params": {"t": space.url_token("lan")}} if where == "query" else {"headers": token(space)}
        page = client.get("/", **given)  # type: ignore[arg-type]
        state = client.get("/api/state", **given)  # type: ignore[arg-type]
    assert page.status_code == 200 and 'data-token="' + space.url_token("lan") + '"' in page.text
    assert state.status_code == 200 and state.json()["annotator"] == "lan"


def test_each_annotator_has_their_own_token_and_sees_only_their_queue(log: Path) -> None:
    space = workspace(log)
    assert space.url_token("lan") != space.url_token("minh")
    with client_of(space) as client:
        lan = client.get("/api/state", headers=token(space, "lan")).json()
        minh = client.get("/api/state", headers=token(space, "minh")).json()
        others = [i for i in space.plan.queues["minh"] if i not in space.plan.queues["lan"]]
        refused = client.post("/api/score", headers=token(space, "lan"), json={"id": others[0], "score": 3})
    assert [i["id"] for i in lan["items"]] == list(space.plan.queues["lan"])
    assert [i["id"] for i in minh["items"]] == list(space.plan.queues["minh"])
    assert refused.status_code == 400 and "not one of this annotator's items" in refused.json()["error"]


def test_the_page_is_blind(log: Path) -> None:
    space = workspace(log)
    with client_of(space) as client:
        text = client.get("/api/state", headers=token(space)).text
        page = client.get("/", params={"t": space.url_token("lan")}).text
    for revealing in ("mockllm", "model", "zero_shot", "prompt", "judge", str(log.name)):
        assert revealing not in text and revealing not in page


# --- validation --------------------------------------------------------------------------------------

BAD_BODIES = {
    "score-6": {"score": 6},
    "score-negative": {"score": -1},
    "score-fraction": {"score": 2.5},
    "score-float-whole": {"score": 4.0},
    "score-string": {"score": "3"},
    "score-true": {"score": True},
    "score-null": {"score": None},
    "score-huge": {"score": 10**30},
    "id-unknown": {"id": 999_999},
    "id-string": {"id": "ID"},
    "id-bool": {"id": True},
    "id-path": {"id": "../../etc/passwd"},
    "missing-score": {"score": ...},
    "extra-key": {"path": "/etc/passwd"},
}


@pytest.mark.parametrize("change", list(BAD_BODIES.values()), ids=list(BAD_BODIES))
def test_a_bad_score_is_refused_by_the_server_and_nothing_is_written(
    log: Path, change: dict[str, object]
) -> None:
    space = workspace(log)
    first = space.plan.queues["lan"][0]
    body: dict[str, object] = {"id": first, "score": 3} | change
    body = {k: v for k, v in body.items() if v is not ...}
    if "id" in change and change["id"] == "ID":
        body["id"] = str(first)
    before = snapshot(space.folder)
    with client_of(space) as client:
        response = client.post("/api/score", headers=token(space), json=body)
    assert response.status_code == 400, response.text
    assert response.json()["error"]
    assert snapshot(space.folder) == before


@pytest.mark.parametrize(
    ("content", "type_", "status"),
    [
        (b'{"id": 1, "score": 3}', "text/plain", 415),
        (b"id=1&score=3", "application/x-www-form-urlencoded", 415),
        (b"not json", "application/json", 400),
        (b"[1, 3]", "application/json", 400),
        (b'"3"', "application/json", 400),
        (b'{"id": 1, "score": 3, "pad": "' + b"x" * 10_000 + b'"}', "application/json", 413),
        (b"\xff\xfe", "application/json", 400),
    ],
    ids=["text-plain", "form", "not-json", "array", "string", "too-large", "not-utf8"],
)
def test_a_body_that_is_not_a_small_json_object_is_refused(
    log: Path, content: bytes, type_: str, status: int
) -> None:
    space = workspace(log)
    before = snapshot(space.folder)
    with client_of(space) as client:
        response = client.post("/api/score", headers=token(space) | {"content-type": type_}, content=content)
    assert response.status_code == status
    assert snapshot(space.folder) == before


# --- no file by path ------------------------------------------------------------------------------------

TRAVERSALS = [
    "/static/../plan.json",
    "/static/%2e%2e/plan.json",
    "/static/..%2fplan.json",
    "/static/..%2f..%2f..%2fetc%2fpasswd",
    "/static/%2e%2e%2f%2e%2e%2fapp.py",
    "/../../../etc/passwd",
    "/static/app.js/../../lan.csv",
    "/lan.csv",
    "/minh.csv",
    "/.tokens.json",
    "/plan.json",
    "/humans.csv",
    "/static/index.html",
    "/static/__init__.py",
    "/static/",
    "/api/state/../../minh.csv",
    "//etc/passwd",
    "/static/app.js%00.csv",
]


@pytest.mark.parametrize("path", TRAVERSALS)
def test_no_request_reads_another_file(log: Path, path: str) -> None:
    space = workspace(log)
    secret_parts = [space.url_token("minh"), "root:", "annotators", "def create_app"]
    before = snapshot(space.folder)
    with client_of(space) as client:
        response = client.get(path, params={"t": space.url_token("lan")})
    assert response.status_code in (200, 404, 405), (path, response.status_code)
    if response.status_code == 200:  # only the page itself, at the root, is served
        assert response.text.startswith("<!doctype html>")
    for part in secret_parts:
        assert part not in response.text
    assert snapshot(space.folder) == before


def test_a_score_writes_only_the_annotators_own_sheet(log: Path) -> None:
    space = workspace(log)
    before = snapshot(space.folder)
    outside = snapshot(log.parent)
    with client_of(space) as client:
        assert (
            client.post(
                "/api/score", headers=token(space), json={"id": space.plan.queues["lan"][0], "score": 4}
            ).status_code
            == 200
        )
    after = snapshot(space.folder)
    assert {name for name in after if after[name] != before.get(name)} == {"lan.csv"}
    assert snapshot(log.parent) == outside


# --- escaped cells ----------------------------------------------------------------------------------------


def test_html_in_a_cell_reaches_the_page_as_data_and_the_page_inserts_text_only(log: Path) -> None:
    space = workspace(log, names=("lan",), overlap=0)
    with client_of(space) as client:
        items = client.get("/api/state", headers=token(space)).json()["items"]
        page = client.get("/", params={"t": space.url_token("lan")})
        script = client.get("/static/app.js", params={"t": space.url_token("lan")}).text
    sent = {item["explanation"] for item in items}
    # Sent as the model wrote it (JSON, not HTML), so textContent shows it as text.
    assert {HOSTILE["script"], HOSTILE["img-onerror"], HOSTILE["markup"]} <= sent
    assert not re.search(
        r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function", script
    )
    assert "textContent" in script
    policy = page.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    assert "<script>" not in page.text.split("</head>", 1)[1]  # no inline script in the page body
    assert page.headers["referrer-policy"] == "no-referrer"


@pytest.mark.parametrize(
    "text",
    list(HOSTILE.values()) + ["- gạch đầu dòng", "\t=1+1", "", "'"],
    ids=[*HOSTILE, "bullet", "tab", "empty", "lone-quote"],
)
def test_a_neutralised_sheet_cell_is_shown_as_the_text_it_stands_for(text: str) -> None:
    assert shown(neutralise(text)) == text


def test_formula_cells_are_shown_as_written_and_neutralised_again_in_the_annotators_sheet(log: Path) -> None:
    space = workspace(log, names=("lan",), overlap=0)
    item = next(i for i in space.items.values() if i.output == HOSTILE["formula"])
    with space.annotators["lan"].path.open(encoding="utf-8-sig", newline="") as handle:
        row = next(r for r in csv.DictReader(handle) if int(r["id"]) == item.id)
    assert row["explanation"] == "'" + HOSTILE["formula"]
    quoted = next(i for i in space.items.values() if i.output == HOSTILE["quote-first"])
    assert quoted.output.startswith("'Trích")


# --- persistence, undo and the human scores file ------------------------------------------------------------


def scores_on_disk(path: Path) -> dict[int, str]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        return {int(row["id"]): row["score"] for row in csv.DictReader(handle)}


def test_every_score_is_on_disk_when_acknowledged_and_a_restart_continues_there(log: Path) -> None:
    space = workspace(log)
    queue = space.plan.queues["lan"]
    with client_of(space) as client:
        for item, value in zip(queue[:3], (5, 0, 3), strict=True):
            assert (
                client.post("/api/score", headers=token(space), json={"id": item, "score": value}).status_code
                == 200
            )
            assert scores_on_disk(space.annotators["lan"].path)[item] == str(value)
    restarted = workspace(log)
    assert restarted.url_token("lan") == space.url_token("lan")  # the printed URL still works
    with client_of(restarted) as client:
        state = client.get("/api/state", headers=token(restarted)).json()
    assert state["done"] == 3 and [i["score"] for i in state["items"][:4]] == [5, 0, 3, None]


def test_undo_takes_back_the_newest_change_in_order(log: Path) -> None:
    space = workspace(log)
    first, second = space.plan.queues["lan"][:2]
    with client_of(space) as client:

        def post(path: str, body: dict[str, object]) -> dict[str, object]:
            response = client.post(path, headers=token(space), json=body)
            assert response.status_code == 200
            return dict(response.json())

        post("/api/score", {"id": first, "score": 2})
        post("/api/score", {"id": second, "score": 4})
        post("/api/score", {"id": first, "score": 5})  # a change of mind
        undone = post("/api/undo", {})
        assert (undone["id"], undone["score"]) == (first, 2)
        assert scores_on_disk(space.annotators["lan"].path)[first] == "2"
        assert post("/api/undo", {})["id"] == second
        assert scores_on_disk(space.annotators["lan"].path)[second] == ""
        last = post("/api/undo", {})
        assert (last["id"], last["score"], last["done"]) == (first, None, 0)
        assert post("/api/undo", {})["id"] is None  # nothing left to undo
    assert set(scores_on_disk(space.annotators["lan"].path).values()) == {""}


def finish(
    client: TestClient, space: Workspace, name: str, score_of: dict[int, int] | None = None
) -> dict[str, object]:
    result: dict[str, object] = {}
    for item in space.plan.queues[name]:
        value = (score_of or {}).get(item, item % 6)
        response = client.post("/api/score", headers=token(space, name), json={"id": item, "score": value})
        assert response.status_code == 200
        result = response.json()
    return result


def test_a_finished_annotator_gets_the_human_scores_file_bound_to_the_generation(log: Path) -> None:
    space = workspace(log)
    assert not space.humans_path.exists()
    with client_of(space) as client:
        summary = finish(client, space, "lan")
        assert summary["finished"] and summary["humans"]["path"] == str(space.humans_path.resolve())  # type: ignore[index]
        humans = read_human_scores(space.humans_path)
        assert set(humans["annotator"]) == {"lan"} and set(humans["generation"]) == {space.sheet.key}
        assert (
            json.loads(record_path(space.humans_path).read_text())["eval_id"] == space.sheet.record["eval_id"]
        )  # type: ignore[index]
        finish(client, space, "minh")
        both = read_human_scores(space.humans_path)
        assert set(both["annotator"]) == {"lan", "minh"}
        assert len(both) == len(space.plan.queues["lan"]) + len(space.plan.queues["minh"])
        # Undoing a finished annotator's last score takes their scores out of the file.
        client.post("/api/undo", headers=token(space, "minh"), json={})
        assert set(read_human_scores(space.humans_path)["annotator"]) == {"lan"}


def test_the_annotators_sheets_are_what_vivid_annotate_import_reads(log: Path, tmp_path: Path) -> None:
    space = workspace(log)
    with client_of(space) as client:
        finish(client, space, "lan")
        finish(client, space, "minh")
    imported = import_sheets([space.annotators[n].path for n in ("lan", "minh")], tmp_path / "humans.csv")
    served = read_human_scores(space.humans_path)
    assert imported.equals(served)


def test_agreement_is_shown_only_when_every_annotator_has_scored_the_shared_items(log: Path) -> None:
    space = workspace(log, names=("lan", "minh"), overlap=4)
    shared = set(space.plan.shared)
    with client_of(space) as client:
        first = finish(client, space, "lan")
        assert first["agreement"]["status"] == "waiting"  # type: ignore[index]
        minh_shared_last = sorted(space.plan.queues["minh"], key=lambda i: i in shared)
        for index, item in enumerate(minh_shared_last):
            state = client.post(
                "/api/score", headers=token(space, "minh"), json={"id": item, "score": item % 6}
            ).json()
            done_shared = sum(1 for i in minh_shared_last[: index + 1] if i in shared)
            assert (state["agreement"]["status"] == "ready") == (done_shared == len(shared))
        lan_view = client.get("/api/state", headers=token(space, "lan")).json()["agreement"]
    assert lan_view["status"] == "ready" and lan_view["n"] == 4
    (pair,) = lan_view["pairs"]
    assert pair["annotators"] == ["lan", "minh"] and pair["exact"] == 1.0


@pytest.mark.parametrize("shape", ["folder", "log-file", "sheet"])
def test_the_offered_report_command_names_the_folder_to_report(log: Path, tmp_path: Path, shape: str) -> None:
    if shape == "sheet":
        source = tmp_path / "sheet.csv"
        export_sheet(log, source, n=3)
    else:
        source = log.parent if shape == "folder" else log
    space = open_workspace(source, ["lan"], n=3)
    with client_of(space) as client:
        command = finish(client, space, "lan")["humans"]["command"]  # type: ignore[index]
    folder = {"folder": str(log.parent), "log-file": str(log.parent), "sheet": "LOG_DIR"}[shape]
    assert command == f"vivid report {folder} --human {space.humans_path}"


@pytest.mark.parametrize(
    ("host", "warned"), [("127.0.0.1", False), ("::1", False), ("0.0.0.0", True), ("192.168.1.5", True)]
)
def test_listening_beyond_this_machine_is_said_at_start(log: Path, host: str, warned: bool) -> None:
    space = workspace(log)
    out = io.StringIO()
    announce(space, host, 8765, out)
    assert ("warning: listening on" in out.getvalue()) == warned


# --- --write-log ---------------------------------------------------------------------------------------------------


def test_write_log_keeps_copies_of_the_generations_logs_with_human_score_columns_and_provenance(
    log: Path,
) -> None:
    before = log.read_bytes()
    space = open_workspace(log, ["lan", "minh"], overlap=3, n=100, write_log=True)
    assert list(space.human_logs) == [log] and space.human_logs[log].parent == space.folder / "human-logs"
    with client_of(space) as client:
        finish(client, space, "lan", {i: 4 for i in space.items})
        summary = finish(client, space, "minh", {i: 1 for i in space.items})
    assert summary["humans"]["logs"] == str((space.folder / "human-logs").resolve())  # type: ignore[index]
    copy = read_eval_log(str(space.human_logs[log]))
    assert copy.samples is not None and log.read_bytes() == before  # the generation log is untouched
    shared = set(space.plan.shared)
    for sample in copy.samples:
        scores = sample.scores or {}
        lan, minh = scores.get("human_lan"), scores.get("human_minh")
        assert (lan is not None) == (sample.id in space.plan.queues["lan"])
        assert (minh is not None) == (sample.id in space.plan.queues["minh"])
        if sample.id in shared:
            assert lan is not None and minh is not None
            assert (lan.value, minh.value, scores["human"].value) == (4, 1, 2.5)
            (edit,) = lan.history
            assert edit.provenance is not None and edit.provenance.author == "lan"
            assert edit.provenance.metadata["generation"] == space.sheet.key
            assert scores["human"].history[0].provenance.metadata["annotators"] == ["lan", "minh"]  # type: ignore[union-attr]


@pytest.mark.slow
def test_write_log_puts_the_human_columns_beside_every_judges_column(
    judged_once: Path, tmp_path: Path
) -> None:
    folder = judged_folder(judged_once, tmp_path)
    space = open_workspace(folder, ["lan"], n=6, generation="vivid/literal", write_log=True)
    judged = [log for log in space.human_logs if "judged" in log.parts]
    assert judged and len(space.human_logs) == len(judged) + 1  # the generation log and each judged copy
    with client_of(space) as client:
        finish(client, space, "lan", {i: 2 for i in space.items})
    for log, copy in space.human_logs.items():
        assert copy == space.folder / "human-logs" / log.relative_to(folder)
        for sample in read_eval_log(str(copy)).samples or []:
            if sample.id in space.items:
                assert sample.scores is not None and sample.scores["human"].value == 2
                if log in judged:
                    assert "lexical" in sample.scores  # the judge's column beside the humans'
    assert (
        main(
            [
                "report",
                str(folder),
                "--human",
                str(space.humans_path),
                "--out",
                str(tmp_path / "r"),
                "--no-figures",
            ]
        )
        == 0
    )


@pytest.mark.parametrize("shape", ["unbound-sheet", "log-moved"])
def test_write_log_without_its_generation_log_is_refused_before_anyone_scores(
    log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], shape: str
) -> None:
    sheet = tmp_path / "sheet.csv"
    export_sheet(log, sheet, n=5)
    if shape == "unbound-sheet":
        rows = sheet.read_text(encoding="utf-8-sig").splitlines()
        sheet.write_text("\n".join(row.rsplit(",", 1)[0] for row in rows) + "\n", encoding="utf-8-sig")
        record_path(sheet).unlink()
    else:
        log.rename(tmp_path / "moved.eval")
    assert main(["annotate", "serve", str(sheet), "--annotators", "lan", "--write-log"]) == 2
    err = capsys.readouterr().err
    assert "--write-log" in err and "Traceback" not in err


# --- queues ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("annotators", "overlap"),
    [(("lan",), 0), (("lan", "minh"), 0), (("lan", "minh"), 5), (("a", "b", "c"), 3), (("a", "b", "c"), 20)],
)
def test_queues_share_the_overlap_and_split_the_rest(annotators: tuple[str, ...], overlap: int) -> None:
    ids = list(range(100, 120))
    plan = assign(ids, annotators, overlap=overlap, seed=7)
    shared = set(ids[:overlap])
    own = [set(q) - shared for q in plan.queues.values()]
    assert all(shared <= set(q) for q in plan.queues.values())
    assert set().union(*own) | shared == set(ids)
    assert sum(len(o) for o in own) == len(ids) - overlap  # the rest is split, never repeated
    assert max(map(len, own)) - min(map(len, own)) <= 1
    assert assign(ids, annotators, overlap=overlap, seed=7) == plan  # a restart deals the same queues
    if len(annotators) > 1 and overlap >= 5:
        orders = [[i for i in q if i in shared] for q in plan.queues.values()]
        assert orders[0] != orders[1]  # each annotator meets the shared items in their own order


@pytest.mark.parametrize(
    ("names", "message"),
    [
        ([], "names no annotator"),
        (["lan", ""], "empty name"),
        (["../x"], "letters, digits"),
        (["a/b"], "letters, digits"),
        (["-lan"], "letters, digits"),
        (["x" * 41], "letters, digits"),
        (["humans"], "server's own file"),
        (["Sheet"], "server's own file"),
        (["Lan", "lan"], "named twice"),
    ],
    ids=[
        "none",
        "empty",
        "dot-dot",
        "slash",
        "leading-dash",
        "too-long",
        "humans",
        "sheet",
        "case-duplicate",
    ],
)
def test_bad_annotator_names_are_refused(names: list[str], message: str) -> None:
    assert any(message in problem for problem in check_annotators(names))


def test_vietnamese_names_are_fine() -> None:
    assert check_annotators(["Hương", "Đức_2", "minh-anh"]) == []


# --- the command's errors -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--annotators", "lan", "--overlap", "2"], "needs at least two"),
        (["--annotators", "lan,minh", "--overlap", "500"], "is more than the 12 item(s)"),
        (["--annotators", "lan,minh", "--overlap", "-1"], "must be 0 or more"),
        (["--annotators", "lan,,minh"], "empty name"),
        (["--annotators", "../../etc"], "letters, digits"),
    ],
    ids=["overlap-one-annotator", "overlap-too-large", "overlap-negative", "empty-name", "traversal-name"],
)
def test_bad_options_exit_2_with_one_line_per_problem(
    log: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    assert main(["annotate", "serve", str(log), *extra, "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (default_folder(log) / "sheet.csv").exists()  # a refused start leaves no draw behind


def test_a_restart_with_other_options_is_refused(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    workspace(log, names=("lan", "minh"), overlap=4)
    assert (
        main(["annotate", "serve", str(log), "--annotators", "lan,minh,hoa", "--overlap", "4", "-n", "100"])
        == 2
    )
    err = capsys.readouterr().err
    assert "was started with other options: annotators ['lan', 'minh'] (now ['lan', 'minh', 'hoa'])" in err


@pytest.mark.parametrize("shape", ["missing", "out-dir-is-a-file", "out-dir-holds-the-source"])
def test_a_source_or_folder_that_cannot_be_used_exits_2(
    log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], shape: str
) -> None:
    source, extra = log, []
    if shape == "missing":
        source = tmp_path / "nothing.eval"
    elif shape == "out-dir-is-a-file":
        (tmp_path / "file").write_text("x")
        extra = ["--out-dir", str(tmp_path / "file")]
    else:
        extra = ["--out-dir", str(log.parent)]
    assert main(["annotate", "serve", str(source), "--annotators", "lan", *extra]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_a_port_in_use_exits_2_and_names_it(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        assert (
            main(["annotate", "serve", str(log), "--annotators", "lan", "-n", "100", "--port", str(port)])
            == 2
        )
    err = capsys.readouterr().err
    assert (
        f"cannot listen on 127.0.0.1:{port}" in err
        and "choose another --port" in err
        and "Traceback" not in err
    )


def test_an_annotators_sheet_edited_by_hand_into_nonsense_is_reported_with_row_and_column(
    log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    space = workspace(log, names=("lan",), overlap=0)
    path = space.annotators["lan"].path
    text = path.read_text(encoding="utf-8-sig").splitlines()
    cells = text[2].split(",")
    text[2] = ",".join([*cells[:-3], "9", *cells[-2:]])
    path.write_text("\n".join(text) + "\n", encoding="utf-8-sig")
    assert main(["annotate", "serve", str(log), "--annotators", "lan", "-n", "100"]) == 2
    err = capsys.readouterr().err
    assert "data row 2 (line 3), column 'score': score must be a whole number from 0 to 5, found '9'" in err


# --- sources ---------------------------------------------------------------------------------------------------------


def test_an_exported_sheet_is_served_where_it_is_and_never_written_over(log: Path, tmp_path: Path) -> None:
    sheet = tmp_path / "sheet.csv"
    export_sheet(log, sheet, n=6, seed=3)
    before = (sheet.read_bytes(), record_path(sheet).read_bytes())
    space = open_workspace(sheet, ["lan"])
    assert space.folder == tmp_path / "sheet.annotation"
    assert [i.id for i in space.sheet.items] == [i.id for i in read_sheet(sheet).items] and len(
        space.items
    ) == 6
    with client_of(space) as client:
        finish(client, space, "lan")
    assert (sheet.read_bytes(), record_path(sheet).read_bytes()) == before
    assert set(read_human_scores(space.humans_path)["generation"]) == {space.sheet.key}


def test_a_log_is_drawn_as_export_draws_it(log: Path, tmp_path: Path) -> None:
    exported = export_sheet(log, tmp_path / "export.csv", n=7, seed=5)
    space = open_workspace(log, ["lan"], n=7, seed=5)
    assert [i.id for i in space.sheet.items] == list(exported["id"])


def test_guidelines_are_the_aspect_judges_own_words() -> None:
    lines = [guide.RUBRIC_TITLE, *guide.RUBRIC.values(), *guide.CRITERIA]
    for line in lines:
        assert line["vi"] in ASPECT and line["en"]
    assert sorted(guide.RUBRIC) == [0, 1, 2, 3, 4, 5] and len(guide.CRITERIA) == 4


# --- the real server, killed and restarted -------------------------------------------------------------------------------


def start_server(args: list[str], cwd: Path) -> tuple[subprocess.Popen[str], dict[str, str]]:
    """Start `vivid annotate serve` and read each annotator's URL from its output."""
    process = subprocess.Popen(
        [sys.executable, "-m", "vivid_inspect.lab.cli.main", "annotate", "serve", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=os.environ | {"PYTHONUNBUFFERED": "1"},
    )
    found: dict[str, str] = {}
    assert process.stdout is not None
    for line in process.stdout:
        match = re.match(r"\s+(\S+): (http://\S+)", line)
        if match:
            found[match[1]] = match[2]
        if line.startswith("Every score is saved"):
            return process, found
    process.wait(5)
    raise AssertionError(f"the server did not start (exit {process.returncode})")


@pytest.fixture()
def servers() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait(10)


@pytest.mark.slow
def test_the_command_binds_localhost_and_a_killed_server_loses_nothing(
    log: Path, tmp_path: Path, servers: list[subprocess.Popen[str]]
) -> None:
    args = [str(log), "--annotators", "lan,minh", "--overlap", "2", "-n", "100", "--port", "0"]
    process, urls = start_server(args, tmp_path)
    servers.append(process)
    assert set(urls) == {"lan", "minh"} and all(u.startswith("http://127.0.0.1:") for u in urls.values())
    lan = httpx.URL(urls["lan"])
    base, header = f"http://127.0.0.1:{lan.port}", {TOKEN_HEADER: lan.params["t"]}
    queue = [i["id"] for i in httpx.get(f"{base}/api/state", headers=header).json()["items"]]
    for item, value in zip(queue[:3], (1, 2, 3), strict=True):
        assert (
            httpx.post(f"{base}/api/score", headers=header, json={"id": item, "score": value}).status_code
            == 200
        )
    assert httpx.get(f"{base}/api/state").status_code == 403
    process.send_signal(signal.SIGKILL)
    process.wait(10)
    sheet = default_folder(log) / "lan.csv"
    assert [scores_on_disk(sheet)[i] for i in queue[:4]] == ["1", "2", "3", ""]
    # Same port, same token: the URL the annotator has open works again.
    again, urls_again = start_server([*args[:-1], str(lan.port)], tmp_path)
    servers.append(again)
    assert urls_again == urls
    state = httpx.get(f"{base}/api/state", headers=header).json()
    assert state["done"] == 3 and [i["score"] for i in state["items"][:4]] == [1, 2, 3, None]


def test_the_server_answers_403_before_reading_anything_at_all(log: Path) -> None:
    """Even a malformed request path or method gets 403 without the token."""
    space = workspace(log)
    with client_of(space) as client:
        for method in ("GET", "POST", "PUT", "DELETE", "OPTIONS", "HEAD"):
            assert client.request(method, "/api/score").status_code == 403


# --- done when: the bundled sample, end to end, then `vivid report --human` with no option -------------------------------------

SPEC = {
    "name": "serve-e2e",
    "log_dir": "logs",
    "data": "sample",
    "runs": [
        {
            "name": "explanations",
            "tasks": ["explain"],
            "prompts": ["zero_shot"],
            "models": ["vivid/oracle", "vivid/literal"],
        }
    ],
    "judges": [{"name": "lexical", "strategy": "lexical"}],
}


def _run_judged(root: Path) -> None:
    spec = root / "spec.yaml"
    spec.write_text(yaml.safe_dump(SPEC), encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("INSPECT_CACHE_DIR", str(root / "cache"))
        code = main(["run", str(spec), "--log-dir", str(root / "logs"), "--display", "none", "--no-report"])
    assert code == 0


@pytest.fixture(scope="module")
def judged_once(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The judged folder's one `vivid run`, made once per session; read only (`judged_folder` copies it)."""
    return once_per_session(tmp_path_factory, "annotate-judged", _run_judged) / "logs"


def judged_folder(judged_once: Path, tmp_path: Path) -> Path:
    """A folder of two zero-shot generations (oracle, literal) judged by the lexical judge, as `vivid run` writes it.

    A private copy in ``tmp_path / "logs"``, to be annotated and reported.
    """
    return Path(shutil.copytree(judged_once, tmp_path / "logs"))


@pytest.mark.slow
def test_scores_served_from_a_judged_folder_feed_vivid_report_with_no_extra_option(
    judged_once: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = judged_folder(judged_once, tmp_path)
    space = open_workspace(folder, ["lan", "minh"], overlap=5, n=20, generation="vivid/literal")
    assert space.folder == tmp_path / "logs.annotation"
    with client_of(space) as client:
        finish(client, space, "lan", {i: 0 for i in space.items})
        summary = finish(client, space, "minh", {i: 1 for i in space.items})
    command = summary["humans"]["command"]  # type: ignore[index]
    assert command == f"vivid report {folder} --human {space.humans_path}"
    capsys.readouterr()
    assert main([*command.split()[1:], "--out", str(tmp_path / "report"), "--no-figures"]) == 0
    report = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    computed_on = next(line for line in report.splitlines() if line.startswith("- computed on generation "))
    key = str(space.sheet.record["generation"])  # type: ignore[index]
    assert computed_on.removeprefix("- computed on generation ").split(" ", 1)[0] == key
    table1 = pd.read_csv(tmp_path / "report" / "table1_judges.csv").set_index("judge")
    assert table1.loc["lexical", "n"] == 20


# --- slow clients -------------------------------------------------------------------------------------

SLOW_STARTS = {
    "nothing-sent": b"",
    "request-line-only": b"GET /api/state HTTP/1.1\r\n",
    "headers-unfinished": b"GET /api/state HTTP/1.1\r\nHost: x\r\nX-Vivid-Token: ",
    "body-short": b"POST /api/undo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{",
}


@contextlib.contextmanager
def serving(space: Workspace, **options: Any) -> Iterator[int]:
    """The annotation server of ``space`` in a thread, started, on a free port (yielded); stopped after."""
    sock = bind("127.0.0.1", 0)
    running = server(space, **options)
    thread = threading.Thread(target=running.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not running.started:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        yield sock.getsockname()[1]
    finally:
        running.should_exit = True
        thread.join(10)


@pytest.mark.slow
def test_a_client_that_sends_its_request_slowly_is_closed_and_others_are_still_answered(log: Path) -> None:
    space = workspace(log)
    with serving(space, request_timeout=0.5) as port:
        slow = {name: socket.create_connection(("127.0.0.1", port)) for name in SLOW_STARTS}
        started = time.monotonic()
        for name, sent in SLOW_STARTS.items():
            slow[name].sendall(sent)
        # One byte of header every 0.1 s: each byte used to restart no clock, and the connection was held.
        closed: dict[str, float] = {}
        while len(closed) < len(slow) and time.monotonic() - started < 5:
            for name, conn in slow.items():
                if name in closed:
                    continue
                conn.settimeout(0.05)
                with contextlib.suppress(TimeoutError):
                    if conn.recv(1024) == b"":
                        closed[name] = time.monotonic() - started
                with contextlib.suppress(OSError):
                    if name not in closed and name == "request-line-only":
                        conn.sendall(b"X")
        assert set(closed) == set(SLOW_STARTS), closed
        assert max(closed.values()) < 2.5, closed
        answer = httpx.get(f"http://127.0.0.1:{port}/api/state", headers=token(space), timeout=5)
        assert answer.status_code == 200
        for conn in slow.values():
            conn.close()


@pytest.mark.slow
def test_connections_past_the_limit_get_503_at_once_and_the_server_recovers(log: Path) -> None:
    """Held connections cannot starve the annotators: past the limit a request is refused, not queued."""
    space = workspace(log)
    with serving(space, request_timeout=5, max_connections=3) as port:
        held = [socket.create_connection(("127.0.0.1", port)) for _ in range(3)]
        time.sleep(0.2)  # the server has accepted them
        refused = httpx.get(f"http://127.0.0.1:{port}/api/state", headers=token(space), timeout=5)
        assert refused.status_code == 503
        for conn in held:
            conn.close()
        time.sleep(0.2)
        answer = httpx.get(f"http://127.0.0.1:{port}/api/state", headers=token(space), timeout=5)
        assert answer.status_code == 200


@pytest.mark.slow
def test_a_client_that_leaves_mid_body_costs_no_traceback(
    log: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Content-Length 100, 9 bytes, then gone: starlette's ClientDisconnect used to print a whole traceback."""
    space = workspace(log)
    with serving(space, request_timeout=10.0) as port:
        gone = socket.create_connection(("127.0.0.1", port))  # uvicorn prints an app's exception on stderr
        gone.sendall(
            b"POST /api/undo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + f"{TOKEN_HEADER}: {space.url_token('lan')}\r\n".encode()
            + b'Content-Length: 100\r\n\r\n{"id": 1,'
        )
        time.sleep(0.2)
        gone.close()
        time.sleep(0.5)
        answer = httpx.get(f"http://127.0.0.1:{port}/api/state", headers=token(space), timeout=5)
        assert answer.status_code == 200
        printed = capfd.readouterr()
        assert "Traceback" not in printed.err and "Exception in ASGI" not in printed.err, printed.err
