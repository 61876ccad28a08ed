"""A score or undo that cannot be written leaves nothing unsaved: not in memory, not on disk.

The failure is made where a full disk, a read-only folder or a quota makes it (ENOSPC, EROFS,
EDQUOT, EACCES, EIO): in the rename that puts a written file in place, in the ``fsync`` of every
write, or in the project's own atomic writer, and it hits the annotator's sheet, the human scores
file (when the score finishes an annotator) or a ``--write-log`` copy. Every time the server
answers 500 with a JSON error saying what was not saved; what the page is then given
(``/api/state``), what is on disk and what a restart reads are one and the same; and once the
disk is fixed the next score is saved and undo takes back the last change that was saved.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.lab.humans.annotate.test_annotate_server import (
    client_of,
    generation_log,  # noqa: F401 - a fixture
    log,  # noqa: F401 - a fixture
    scores_on_disk,
    snapshot,
    token,
    workspace,
)
from vivid_inspect.lab.humans.annotate import workspace as workspace_module
from vivid_inspect.lab.humans.annotate.opening import open_workspace
from vivid_inspect.lab.humans.annotate.workspace import Workspace
from vivid_inspect.lab.humans.scores_file import read_human_scores, record_path

ERRORS = {
    "ENOSPC": errno.ENOSPC,
    "EROFS": errno.EROFS,
    "EDQUOT": errno.EDQUOT,
    "EACCES": errno.EACCES,
    "EIO": errno.EIO,
}


@contextmanager
def failing(
    monkeypatch: pytest.MonkeyPatch, how: str, code: int, name: Callable[[str], bool] = lambda _: True
) -> Iterator[None]:
    """Writes fail with ``code`` (for files whose name ``name`` accepts), the way ``how`` says."""
    error = OSError(code, os.strerror(code))
    with monkeypatch.context() as patch:
        if how == "rename":
            real = os.replace

            def replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
                if name(Path(dst).name):
                    raise error
                real(src, dst)

            patch.setattr(os, "replace", replace)
        elif how == "fsync":

            def fsync(fd: int) -> None:
                raise error

            patch.setattr(os, "fsync", fsync)
        else:
            real_write = workspace_module.write_atomic

            def write_atomic(path: Path, text: str | bytes, *, encoding: str = "utf-8") -> None:
                if name(path.name):
                    raise error
                real_write(path, text, encoding=encoding)

            patch.setattr(workspace_module, "write_atomic", write_atomic)
        yield


def state_scores(client: object, space: Workspace, name: str = "lan") -> dict[int, int | None]:
    state = client.get("/api/state", headers=token(space, name)).json()  # type: ignore[attr-defined]
    return {item["id"]: item["score"] for item in state["items"]}


def disk_scores(space: Workspace, name: str = "lan") -> dict[int, int | None]:
    return {i: int(v) if v else None for i, v in scores_on_disk(space.annotators[name].path).items()}


def restarted_scores(
    log: Path,  # noqa: F811
    name: str = "lan",
    names: tuple[str, ...] = ("lan", "minh"),
    overlap: int = 4,
) -> dict[int, int | None]:
    again = workspace(log, names=names, overlap=overlap)
    return {i: again.annotators[name].scores.get(i) for i in again.annotators[name].queue}


@pytest.mark.parametrize("how", ["rename", "fsync", "writer"])
@pytest.mark.parametrize("reason", list(ERRORS))
def test_a_score_that_cannot_be_written_is_not_kept_anywhere(
    log: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    how: str,
    reason: str,
) -> None:
    space = workspace(log)
    queue = space.plan.queues["lan"]
    with client_of(space) as client:
        assert (
            client.post("/api/score", headers=token(space), json={"id": queue[0], "score": 5}).status_code
            == 200
        )
        before_files = snapshot(space.folder)
        with failing(monkeypatch, how, ERRORS[reason]):
            response = client.post("/api/score", headers=token(space), json={"id": queue[1], "score": 2})
            changed = client.post("/api/score", headers=token(space), json={"id": queue[0], "score": 1})
        assert response.status_code == 500 and changed.status_code == 500
        body = response.json()
        assert body["saved"] is False
        assert body["error"].startswith("NOT SAVED: lan.csv could not be written")
        assert os.strerror(ERRORS[reason]) in body["error"] and "nothing was changed" in body["error"]
        held = state_scores(client, space)
        assert held[queue[0]] == 5 and held[queue[1]] is None  # neither the new score nor the change
        assert client.get("/api/state", headers=token(space)).json()["done"] == 1
    assert held == disk_scores(space) == restarted_scores(log)
    assert snapshot(space.folder) == before_files
    assert not [p for p in space.folder.iterdir() if p.name.endswith(".tmp")]  # no partial file left


@pytest.mark.parametrize("how", ["rename", "writer"])
def test_an_undo_that_cannot_be_written_takes_nothing_back(
    log: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    how: str,
) -> None:
    space = workspace(log)
    queue = space.plan.queues["lan"]
    with client_of(space) as client:
        for item, value in zip(queue[:2], (3, 4), strict=True):
            assert (
                client.post("/api/score", headers=token(space), json={"id": item, "score": value}).status_code
                == 200
            )
        with failing(monkeypatch, how, errno.ENOSPC):
            response = client.post("/api/undo", headers=token(space), json={})
        assert response.status_code == 500 and response.json()["saved"] is False
        held = state_scores(client, space)
        assert (held[queue[0]], held[queue[1]]) == (3, 4)
        assert held == disk_scores(space)
        # Fixed: the undo still has the same change to take back, then the one before it.
        assert client.post("/api/undo", headers=token(space), json={}).json()["id"] == queue[1]
        assert client.post("/api/undo", headers=token(space), json={}).json()["id"] == queue[0]
        assert client.post("/api/undo", headers=token(space), json={}).json()["id"] is None
        assert set(state_scores(client, space).values()) == {None}


def test_a_failed_score_is_never_what_undo_takes_back(log: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    space = workspace(log)
    queue = space.plan.queues["lan"]
    with client_of(space) as client:
        client.post("/api/score", headers=token(space), json={"id": queue[0], "score": 3})
        with failing(monkeypatch, "rename", errno.ENOSPC):
            for value in range(6):
                assert (
                    client.post(
                        "/api/score", headers=token(space), json={"id": queue[1], "score": value}
                    ).status_code
                    == 500
                )
        undone = client.post("/api/undo", headers=token(space), json={}).json()
        assert (undone["id"], undone["score"]) == (queue[0], None)
        assert undone["can_undo"] is False


def finish_but_last(client: object, space: Workspace, name: str) -> int:
    queue = space.plan.queues[name]
    for item in queue[:-1]:
        response = client.post("/api/score", headers=token(space, name), json={"id": item, "score": item % 6})  # type: ignore[attr-defined]
        assert response.status_code == 200
    return queue[-1]


@contextmanager
def importer_failing(monkeypatch: pytest.MonkeyPatch, code: int) -> Iterator[None]:
    """The import code that writes the human scores file fails (as on a full disk)."""

    def import_sheets(*args: object, **kwargs: object) -> object:
        raise OSError(code, os.strerror(code))

    with monkeypatch.context() as patch:
        patch.setattr(workspace_module, "import_sheets", import_sheets)
        yield


@pytest.mark.parametrize("how", ["rename", "importer"])
def test_a_finishing_score_whose_human_scores_file_cannot_be_written_is_saved_and_the_file_is_not_left_stale(
    log: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    how: str,
) -> None:
    space = workspace(log, names=("lan", "minh"), overlap=2)
    with client_of(space) as client:
        last_minh = finish_but_last(client, space, "minh")
        assert (
            client.post(
                "/api/score", headers=token(space, "minh"), json={"id": last_minh, "score": 1}
            ).status_code
            == 200
        )
        assert set(read_human_scores(space.humans_path)["annotator"]) == {"minh"}
        last = finish_but_last(client, space, "lan")
        humans = {"humans.csv", "humans.csv.generation.json"}
        context = (
            failing(monkeypatch, "rename", errno.ENOSPC, lambda n: n in humans)
            if how == "rename"
            else importer_failing(monkeypatch, errno.ENOSPC)
        )
        with context:
            response = client.post("/api/score", headers=token(space), json={"id": last, "score": 4})
        assert response.status_code == 500
        body = response.json()
        assert body["saved"] is True
        assert body["error"].startswith("saved in lan.csv, but humans.csv could not be written")
        # The score is kept (in memory, on disk, after a restart); the derived file is gone, not stale.
        assert state_scores(client, space)[last] == 4 == disk_scores(space)[last]
        assert not space.humans_path.exists() and not record_path(space.humans_path).exists()
        # The next change writes it again, with both annotators.
        assert (
            client.post("/api/score", headers=token(space), json={"id": last, "score": 5}).status_code == 200
        )
        assert set(read_human_scores(space.humans_path)["annotator"]) == {"lan", "minh"}
    assert restarted_scores(log, overlap=2)[last] == 5


def test_a_restart_after_a_failed_human_scores_write_writes_it_again(
    log: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    space = workspace(log, names=("lan",), overlap=0)
    with client_of(space) as client:
        last = finish_but_last(client, space, "lan")
        with failing(monkeypatch, "rename", errno.EDQUOT, lambda n: n == "humans.csv"):
            assert (
                client.post("/api/score", headers=token(space), json={"id": last, "score": 0}).status_code
                == 500
            )
    assert not space.humans_path.exists()
    again = workspace(log, names=("lan",), overlap=0)
    assert set(read_human_scores(again.humans_path)["id"]) == set(again.plan.queues["lan"])


def test_a_write_log_copy_that_cannot_be_written_is_removed_not_left_stale(
    log: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    space = open_workspace(log, ["lan"], n=100, write_log=True)
    with client_of(space) as client:
        last = finish_but_last(client, space, "lan")
        copies = list(space.human_logs.values())
        with failing(monkeypatch, "rename", errno.ENOSPC, lambda n: n.endswith(".eval")):
            response = client.post("/api/score", headers=token(space), json={"id": last, "score": 2})
        assert response.status_code == 500 and response.json()["saved"] is True
        assert not any(copy.exists() for copy in copies) and not space.humans_path.exists()
        assert (
            client.post("/api/score", headers=token(space), json={"id": last, "score": 3}).status_code == 200
        )
        assert all(copy.exists() for copy in copies) and space.humans_path.exists()
