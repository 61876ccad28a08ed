"""Self-consistency counts only fresh judgements; the first repeat alone feeds the other tables.

Report-level tests build score rows by hand (every shape of repeated judgement: fresh repeats,
cache replays, a redone repeat, a rerun labelled with a used repeat, logs that record nothing,
rescored copies). The end-to-end tests run a spec with ``repeats: 3`` against a judge on the local
HTTP server that answers at random, and count the calls that reached it.
"""

from __future__ import annotations

import itertools
import math
import random
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml
from inspect_ai.log import read_eval_log
from sklearn.metrics import cohen_kappa_score

from tests.fake_api import GEN, default_responder, idiom_of, isolate_inspect
from vivid_inspect.lab.report.build import write_report
from vivid_inspect.lab.report.reading.judged import VIVID_SCALE
from vivid_inspect.lab.report.reading.logs import SCORE_COLUMNS
from vivid_inspect.lab.report.stats.repeats import first_repeat
from vivid_inspect.lab.report.tables.judges import judge_rows
from vivid_inspect.lab.report.tables.reliability import build_reliability
from vivid_inspect.lab.runner.execute import run_spec
from vivid_inspect.lab.runner.plan import make_plan
from vivid_inspect.lab.runner.spec.load import load_spec
from vivid_inspect.scorers import judge_parse
from vivid_inspect.testing.openai_server import FakeOpenAIServer

A = {1: 0.0, 2: 1.0, 3: 2.0, 4: 3.0, 5: 4.0, 6: 5.0, 7: 3.0, 8: 2.0}
B = {1: 1.0, 2: 1.0, 3: 2.0, 4: 4.0, 5: 4.0, 6: 5.0, 7: 2.0, 8: 3.0}
C = {1: 5.0, 2: 0.0, 3: 2.0, 4: 1.0, 5: 4.0, 6: 3.0, 7: 2.0, 8: 0.0}
HUMAN = {1: 0, 2: 1, 3: 2, 4: 3, 5: 4, 6: 5, 7: 3, 8: 2}


def _rows(
    values: dict[int, float],
    *,
    log: str,
    repeat: int | None,
    cached: bool | None,
    created: str = "2026-01-01",
    eval_id: str | None = "E1",
    generation: str = "generations/gen.eval",
    parse_status: str = "ok",
) -> list[dict[str, object]]:
    return [
        {
            "log": log,
            "generation": generation,
            "task": "explain",
            "model": "m/gen",
            "prompt": "zero_shot",
            "status": "success",
            "created": created,
            "id": item,
            "epoch": 1,
            "scorer": "judge_aspect",
            "judge": "aspect",
            "judge_model": "m/judge",
            "strategy": "aspect",
            "value": value,
            "unscored": math.isnan(value),
            "error": False,
            "parse_status": parse_status,
            "retried": False,
            "lenient": math.nan,
            "scale": VIVID_SCALE,  # VIVID's judges declare 0-5 (the contract)
            "eval_id": eval_id,
            "repeat": math.nan if repeat is None else float(repeat),
            "cached": math.nan if cached is None else float(cached),
            "judge_temperature": None if repeat is None else 0.0,
        }
        for item, value in values.items()
    ]


def _frame(*groups: list[dict[str, object]]) -> pd.DataFrame:
    frame = pd.DataFrame([row for group in groups for row in group], columns=list(SCORE_COLUMNS))
    return judge_rows(frame.astype({"value": "float64", "repeat": "float64", "cached": "float64"}))


def _consistency(rows: pd.DataFrame) -> pd.DataFrame:
    result = build_reliability(rows, None, n_boot=20)
    return next(t for t in result.tables if t.name == "judge_consistency").frame


def _mean_kappa(*runs: dict[int, float]) -> float:
    kappas = [
        cohen_kappa_score([a[i] for i in a], [b[i] for i in a], labels=list(range(6)))
        for a, b in itertools.combinations(runs, 2)
    ]
    return float(np.mean(kappas))


def test_three_fresh_repeats_are_three_runs() -> None:
    rows = _frame(
        _rows(A, log="judged/aspect/gen.eval", repeat=0, cached=False),
        _rows(B, log="judged/aspect/repeat-1/gen.eval", repeat=1, cached=False),
        _rows(C, log="judged/aspect/repeat-2/gen.eval", repeat=2, cached=False),
    )
    (row,) = _consistency(rows).to_dict("records")
    assert (row["runs_from"], row["runs"], row["n"], row["excluded"]) == ("repeats", 3, 8, 0)
    assert row["mean_kappa"] == pytest.approx(_mean_kappa(A, B, C), abs=1e-12)
    assert row["flip_rate"] == pytest.approx(np.mean([len({A[i], B[i], C[i]}) > 1 for i in A]))
    assert row["temperature"] == "0"
    assert row["generation"] == "generations/gen.eval"


@pytest.mark.parametrize(
    ("groups", "runs", "excluded", "note"),
    [
        pytest.param(
            # `inspect score` run three times without a new -S repeat: the cache replays repeat 0.
            [
                _rows(A, log="a.eval", repeat=0, cached=False),
                _rows(A, log="b.eval", repeat=0, cached=True, created="2026-01-02"),
                _rows(A, log="c.eval", repeat=0, cached=True, created="2026-01-03"),
            ],
            1,
            16,
            "Inspect's cache replayed a reply of the same repeat",
            id="replays-of-repeat-0",
        ),
        pytest.param(
            # Two fresh repeats, and a replay of repeat 1 written beside them.
            [
                _rows(A, log="a.eval", repeat=0, cached=False),
                _rows(B, log="b.eval", repeat=1, cached=False),
                _rows(B, log="c.eval", repeat=1, cached=True, created="2026-01-02"),
            ],
            2,
            8,
            "Inspect's cache replayed a reply of the same repeat",
            id="replay-of-repeat-1-beside-it",
        ),
        pytest.param(
            # With the cache off, a rerun labelled with a used repeat is fresh but not a new repeat.
            [
                _rows(A, log="a.eval", repeat=0, cached=False),
                _rows(B, log="b.eval", repeat=0, cached=False, created="2026-01-02"),
            ],
            1,
            8,
            "a further fresh judgement labelled with an already counted repeat",
            id="fresh-but-same-repeat",
        ),
        pytest.param(
            # Repeat 1's judged log was redone (a parser change): its replies come from its own scope.
            [
                _rows(A, log="a.eval", repeat=0, cached=True),
                _rows(B, log="b.eval", repeat=1, cached=True),
            ],
            2,
            0,
            "replayed from Inspect's cache (the same judgement made before",
            id="redone-repeats-count",
        ),
    ],
)
def test_only_fresh_judgements_of_their_own_repeat_count(
    groups: list[list[dict[str, object]]], runs: int, excluded: int, note: str
) -> None:
    (row,) = _consistency(_frame(*groups)).to_dict("records")
    assert (row["runs"], row["excluded"]) == (runs, excluded)
    assert note in row["notes"]
    if runs == 1:
        # Nothing fresh to compare: no agreement of a reply with its own replay.
        assert pd.isna(row["mean_kappa"]) and "no fresh repeat left" in row["notes"]
    else:
        assert row["mean_kappa"] == pytest.approx(_mean_kappa(A, B), abs=1e-12)


def test_logs_without_the_record_are_compared_with_a_warning() -> None:
    rows = _frame(
        _rows(A, log="judged/a/run1.eval", repeat=None, cached=None, eval_id=None),
        _rows(A, log="judged/a/run2.eval", repeat=None, cached=None, eval_id=None, created="2026-01-02"),
    )
    (row,) = _consistency(rows).to_dict("records")
    assert (row["runs_from"], row["runs"], row["mean_kappa"]) == ("repeated logs", 2, 1.0)
    assert "do not record whether Inspect's cache replayed a reply" in row["notes"]
    assert row["temperature"] == ""


def test_empty_explanations_are_not_judgements() -> None:
    empty = {9: 0.0, 10: 0.0}
    rows = _frame(
        _rows(A, log="a.eval", repeat=0, cached=False),
        _rows(empty, log="a.eval", repeat=0, cached=False, parse_status="empty_answer"),
        _rows(B, log="b.eval", repeat=1, cached=False),
        _rows(empty, log="b.eval", repeat=1, cached=False, parse_status="empty_answer"),
    )
    (row,) = _consistency(rows).to_dict("records")
    assert row["n"] == len(A) and "2 empty explanation(s) left out" in row["notes"]


def test_rescored_copies_of_one_log_are_grouped_by_eval_id() -> None:
    # `inspect score gen.eval -S repeat=r --output-file gen-repeat-r.eval`: three logs, one eval id.
    rows = _frame(
        _rows(A, log="gen.eval", generation="gen.eval", repeat=0, cached=False),
        _rows(B, log="gen-repeat-1.eval", generation="gen-repeat-1.eval", repeat=1, cached=False),
        _rows(C, log="gen-repeat-2.eval", generation="gen-repeat-2.eval", repeat=2, cached=False),
        # another generation with the same judge, judged once: no consistency row of its own
        _rows(B, log="other.eval", generation="other.eval", eval_id="E2", repeat=0, cached=False),
    )
    (row,) = _consistency(rows).to_dict("records")
    assert (row["generation"], row["runs"]) == ("gen.eval", 3)
    # the copies' first repeat is the only one of that eval in the other tables
    assert set(first_repeat(rows)["log"]) == {"gen.eval", "other.eval"}


@pytest.mark.parametrize("newest", [1, 2], ids=["repeat-1-newest", "repeat-2-newest"])
def test_only_the_first_repeat_feeds_table1_pairs_and_summary(newest: int) -> None:
    later = {1: B, 2: C}
    groups = [_rows(A, log="r0.eval", repeat=0, cached=False, created="2026-01-01")]
    for repeat, values in later.items():
        created = "2026-01-09" if repeat == newest else "2026-01-05"
        groups.append(_rows(values, log=f"r{repeat}.eval", repeat=repeat, cached=False, created=created))
    humans = pd.DataFrame({"id": list(HUMAN), "score": list(HUMAN.values())}).astype("int64")
    result = build_reliability(_frame(*groups), humans, n_boot=20)
    tables = {t.name: t.frame for t in result.tables}
    table1 = tables["table1_judges"].set_index("judge").loc["aspect"]
    assert table1["kappa"] == pytest.approx(cohen_kappa_score([HUMAN[i] for i in A], [int(A[i]) for i in A]))
    summary = tables["judge_summary"].iloc[0]
    assert (summary["samples"], summary["mean"]) == (len(A), pytest.approx(np.mean(list(A.values()))))
    assert tables["judge_consistency"].iloc[0]["runs"] == 3


# --- end to end: a judge that answers at random ------------------------------------------------------

ITEMS = 20  # enough for three random draws to disagree on most items; each item is 5 calls
REPEATS = 3
SPEC = """\
name: repeats
data: sample
log_dir: logs
runs:
  - tasks: [explain]
    models:
      - model: openai-api/fake/gen
        model_args: {{base_url: "{url}"}}
    limit: {items}
judges:
  - name: coin
    strategy: aspect
    model: openai-api/fake/judge
    model_args: {{base_url: "{url}"}}
    repeats: {repeats}
{generate}  - name: other
    strategy: zero_shot
    model: openai-api/fake/other
    model_args: {{base_url: "{url}"}}
panel: {{name: panel, members: [coin, other], aggregate: mean}}
concurrency: {{max_connections: 8}}
retries: {{attempts: 0, max_retries: 0, timeout: 60}}
"""


def random_judge(seed: int) -> Callable[[str, list[dict[str, Any]]], str]:
    """The default generator; judges that answer 0-5 at random, a new draw for every request.

    The n-th request about an idiom draws from a generator seeded with (seed, idiom, n), so the
    draws do not depend on the order in which concurrent requests arrive.
    """
    asked: Counter[tuple[str, str | None]] = Counter()
    lock = threading.Lock()

    def respond(model: str, messages: list[dict[str, Any]]) -> str:
        if model == GEN:
            return default_responder(model, messages)
        idiom = idiom_of(str(messages[-1]["content"]))
        with lock:
            n = asked[(model, idiom)]
            asked[(model, idiom)] += 1
        return str(random.Random(f"{seed}:{model}:{idiom}:{n}").randint(0, 5))

    return respond


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    """The local server with the random judges; logs and Inspect's cache in ``tmp_path``."""
    isolate_inspect(tmp_path, monkeypatch)
    with FakeOpenAIServer(responder=random_judge(seed=0), models=(GEN, "judge", "other")) as running:
        for name, value in running.env().items():
            monkeypatch.setenv(name, value)
        yield running


def _spec(
    folder: Path, server: FakeOpenAIServer, *, items: int = ITEMS, repeats: int = REPEATS, generate: str = ""
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "spec.yaml"
    extra = f"    generate: {generate}\n" if generate else ""
    path.write_text(
        SPEC.format(url=server.base_url, items=items, repeats=repeats, generate=extra), encoding="utf-8"
    )
    return path


def _scores(path: Path, column: str) -> dict[Any, Any]:
    log = read_eval_log(str(path))
    return {s.id: s.scores[column] for s in log.samples or []}


@pytest.mark.slow
def test_random_judge_repeated_three_times_is_inconsistent_and_every_repeat_was_called(
    server: FakeOpenAIServer, tmp_path: Path
) -> None:
    loaded = load_spec(_spec(tmp_path, server))
    plan = make_plan(loaded)
    planned = {t.model: t.calls for t in plan.totals() if t.role == "judge"}
    assert planned == {"openai-api/fake/judge": REPEATS * ITEMS, "openai-api/fake/other": ITEMS}

    result = run_spec(loaded, display="none", quiet=True, report=False)

    assert result.ok, result.progress.messages
    assert server.model_counts.get("judge") == REPEATS * ITEMS  # every repeat reached the provider
    assert server.model_counts.get("other") == ITEMS
    judged = tmp_path / "logs" / "judged"
    (first,) = (judged / "coin").glob("*.eval")
    repeat_logs = [first, *(judged / "coin" / f"repeat-{r}" / first.name for r in range(1, REPEATS))]
    for repeat, path in enumerate(repeat_logs):
        log = read_eval_log(str(path), header_only=True)
        record = log.eval.metadata["vivid_judge"]
        assert (record["name"], record["repeat"], record["temperature"]) == ("coin", repeat, 0.0)
        scores = _scores(path, "judge_aspect").values()
        assert {(s.metadata["repeat"], s.metadata["cached"]) for s in scores} == {(repeat, False)}

    resolved = yaml.safe_load(
        (tmp_path / "logs" / "vivid" / "repeats" / "spec.resolved.yaml").read_text("utf-8")
    )
    assert set(resolved["judges"]) == {"coin", "coin/repeat-1", "coin/repeat-2", "other"}
    report = write_report(tmp_path / "logs", figures=False)

    consistency = report.table("judge_consistency").frame.set_index("judge")
    assert "other" not in consistency.index  # judged once: nothing to compare
    row = consistency.loc["coin"]
    assert (row["runs_from"], row["runs"], row["n"], row["excluded"], row["temperature"]) == (
        "repeats",
        REPEATS,
        ITEMS,
        0,
        "0",
    )
    assert abs(row["mean_kappa"]) < 0.3
    assert row["flip_rate"] > 0.8  # three draws agree on 1 item in 36
    # only the first repeat feeds the other tables and the panel
    first_scores = {i: s.as_float() for i, s in _scores(first, "judge_aspect").items()}
    summary = report.table("judge_summary").frame.set_index("judge").loc["coin"]
    assert (summary["samples"], summary["mean"]) == (
        ITEMS,
        pytest.approx(np.mean(list(first_scores.values()))),
    )
    (table3,) = report.table("table3_themes").frame.to_dict("records")
    assert table3["Average"] == pytest.approx(np.mean(list(first_scores.values())))
    (panel_log,) = (judged / "panel").glob("*.eval")
    panel = _scores(panel_log, "judge_panel")
    assert {i: s.metadata["members"]["coin"] for i, s in panel.items()} == first_scores

    server.reset()
    again = run_spec(load_spec(tmp_path / "spec.yaml"), display="none", quiet=True, report=False)

    assert again.ok and {j.status for j in again.judged} == {"done"}
    assert server.model_counts == {}  # a rerun of the finished spec makes no call


@pytest.mark.slow
def test_repeats_run_at_the_temperature_the_spec_sets_and_the_report_says_so(
    server: FakeOpenAIServer, tmp_path: Path
) -> None:
    spec = _spec(tmp_path, server, items=6, repeats=2, generate="{temperature: 0.7}")

    result = run_spec(load_spec(spec), display="none", quiet=True, report=False)

    assert result.ok, result.progress.messages
    records = [
        read_eval_log(str(path), header_only=True).eval.metadata["vivid_judge"]
        for path in sorted((tmp_path / "logs" / "judged" / "coin").rglob("*.eval"))
    ]
    assert [(r["repeat"], r["temperature"]) for r in records] == [(0, 0.7), (1, 0.7)]
    report = write_report(tmp_path / "logs", figures=False)
    row = report.table("judge_consistency").frame.set_index("judge").loc["coin"]
    assert (row["runs"], row["temperature"]) == (2, "0.7")


@pytest.mark.slow
def test_repeats_redone_after_a_parser_change_replay_their_own_replies_and_still_count(
    server: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    items = 8
    spec = _spec(tmp_path, server, items=items, repeats=2)
    assert run_spec(load_spec(spec), display="none", quiet=True, report=False).ok
    first = write_report(tmp_path / "logs", figures=False).table("judge_consistency").frame.set_index("judge")
    server.reset()
    monkeypatch.setattr(judge_parse, "JUDGE_PARSER_VERSION", judge_parse.JUDGE_PARSER_VERSION + 1)

    again = run_spec(load_spec(spec), display="none", quiet=True, report=False)

    assert again.ok and {j.status for j in again.judged} == {"scored"}  # every judge cell redone
    assert server.model_counts.get("judge", 0) == 0  # the same prompts: each repeat's own cached replies
    row = (
        write_report(tmp_path / "logs", figures=False)
        .table("judge_consistency")
        .frame.set_index("judge")
        .loc["coin"]
    )
    assert (row["runs"], row["n"], row["excluded"]) == (2, items, 0)
    # the same replies as before the change, so the same agreement
    assert (row["mean_kappa"], row["flip_rate"]) == pytest.approx(
        (first.loc["coin", "mean_kappa"], first.loc["coin", "flip_rate"])
    )
    assert f"{2 * items} counted score(s) are their own repeat's replies replayed" in row["notes"]
