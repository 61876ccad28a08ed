"""`vivid annotate serve` end to end in a real browser: Debian's Chromium, driven by Selenium.

The annotator scores five items with the keyboard, undoes one, reloads, checks the progress,
works the mouse, escapes hostile cells; then the server is killed (SIGKILL), the file on disk is
checked, the server restarted on the same port and the open page carries on.

Chromium and its driver come from the OS packages (``apt-get install chromium chromium-driver``,
as ``.ci/run`` does); Selenium is pointed at them and never downloads a browser. Without them the
test is skipped with a message that says so.

``VIVID_SCREENSHOT=docs/annotate-serve.png pytest tests/lab/humans/annotate/test_annotate_browser.py`` also saves the
screenshot of the page in docs/annotation.md.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.lab.humans.annotate.test_annotate_server import HOSTILE, make_log, scores_on_disk, start_server
from vivid_inspect.lab.humans.annotate.app import create_app
from vivid_inspect.lab.humans.annotate.opening import default_folder, open_workspace
from vivid_inspect.lab.humans.annotate.serve import bind, urls
from vivid_inspect.lab.humans.annotate.workspace import Workspace

BROWSER_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,860",
)
WAIT = 20  # seconds; generous, the machine may be busy


def _find(*names: str) -> str | None:
    for name in names:
        found = shutil.which(name) or (name if os.path.isabs(name) and os.access(name, os.X_OK) else None)
        if found:
            return found
    return None


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.skip("browser test skipped: selenium is not installed (pip install -e '.[test]')")
    chromium = _find("chromium", "/usr/bin/chromium", "chromium-browser")
    chromedriver = _find("chromedriver", "/usr/bin/chromedriver")
    if chromium is None or chromedriver is None:
        pytest.skip(
            "browser test skipped: Chromium or its driver is not installed "
            "(apt-get install chromium chromium-driver; .ci/run does it)"
        )
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    profile = tempfile.mkdtemp(prefix="vivid-chromium-")
    for flag in (*BROWSER_FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    browser = webdriver.Chrome(service=Service(executable_path=chromedriver), options=options)
    browser.set_page_load_timeout(WAIT)
    try:
        yield browser
    finally:
        browser.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture()
def servers() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait(10)


def text(browser: Any, element_id: str) -> str:
    from selenium.webdriver.common.by import By

    return str(browser.find_element(By.ID, element_id).text)


def until(browser: Any, condition: Any, what: str) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, WAIT).until(condition, message=what)


def loaded(browser: Any, url: str | None = None) -> None:
    """Open (or reload) the page and wait until it has drawn its state."""
    if url is None:
        browser.refresh()
    else:
        browser.get(url)
    until(
        browser,
        lambda b: "ready" in (b.find_element("tag name", "body").get_attribute("class") or ""),
        "the page never drew its state",
    )


def progress(browser: Any, done: int, total: int) -> None:
    until(
        browser,
        lambda b: text(b, "progress-text").startswith(f"{done} / {total} "),
        f"progress never showed {done} / {total}",
    )


def keys(browser: Any, *typed: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    for key in typed:
        ActionChains(browser).send_keys(key).perform()


@pytest.mark.slow
def test_an_annotator_scores_undoes_reloads_and_survives_a_killed_server(
    driver: Any, tmp_path: Path, servers: list[subprocess.Popen[str]]
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    log = make_log(tmp_path / "logs", tmp_path / "cache")
    args = [str(log), "--annotators", "lan,minh", "--overlap", "12", "-n", "100", "--port", "0"]
    process, urls = start_server(args, tmp_path)
    servers.append(process)
    total = 12

    loaded(driver, urls["lan"])
    progress(driver, 0, total)
    assert text(driver, "position").startswith("Mục 1 / 12")

    # Five scores with the keyboard: each saves and moves on.
    keys(driver, "5", "4", "3", "2", "1")
    progress(driver, 5, total)
    until(
        driver,
        lambda b: text(b, "position").startswith("Mục 6 /"),
        "the page did not move on after each score",
    )
    keys(driver, "u")
    progress(driver, 4, total)
    until(
        driver, lambda b: text(b, "position").startswith("Mục 5 /"), "undo did not go back to the undone item"
    )

    # A reload shows the same progress and opens at the first unscored item.
    loaded(driver)
    progress(driver, 4, total)
    assert text(driver, "position").startswith("Mục 5 /")
    keys(driver, Keys.ARROW_LEFT)
    until(
        driver,
        lambda b: "scored 2" in text(b, "item-status"),
        "item 4 does not show its score 2 after a reload",
    )
    keys(driver, Keys.ARROW_RIGHT)

    # The mouse does the same.
    driver.find_element(By.CSS_SELECTOR, 'button.score[data-score="3"]').click()
    progress(driver, 5, total)
    driver.find_element(By.ID, "undo").click()
    progress(driver, 4, total)

    # ? shows the keys, Escape hides them; l lists the unscored items, a click opens one.
    keys(driver, "?")
    until(driver, lambda b: b.find_element(By.ID, "keys").is_displayed(), "? did not show the keys")
    keys(driver, Keys.ESCAPE)
    until(driver, lambda b: not b.find_element(By.ID, "keys").is_displayed(), "Escape did not hide the keys")
    keys(driver, "l")
    entries = driver.find_elements(By.CSS_SELECTOR, "#unscored-list button")
    assert len(entries) == total - 4
    entries[-1].click()
    until(
        driver,
        lambda b: text(b, "position").startswith("Mục 12 /"),
        "a click in the unscored list did not open the item",
    )

    # Hostile cells are shown as text: no element is made from them and no script runs.
    for hostile in (HOSTILE["script"], HOSTILE["img-onerror"], HOSTILE["markup"]):
        keys(driver, *[Keys.ARROW_LEFT] * total)
        until(
            driver, lambda b: text(b, "position").startswith("Mục 1 /"), "← did not go back to the first item"
        )
        for _ in range(total):
            if text(driver, "explanation") == hostile:
                break
            keys(driver, Keys.ARROW_RIGHT)
        assert text(driver, "explanation") == hostile
        assert driver.find_elements(By.CSS_SELECTOR, "#explanation *") == []
    assert driver.execute_script("return window.__pwned === undefined") is True

    # Killed, not stopped: what was acknowledged is on disk.
    process.send_signal(signal.SIGKILL)
    process.wait(10)
    sheet = default_folder(log) / "lan.csv"
    queue = list(scores_on_disk(sheet))
    on_disk = scores_on_disk(sheet)
    assert [on_disk[item] for item in queue] == ["5", "4", "3", "2"] + [""] * (total - 4)

    # Restarted on the same port: the open page's URL works again and carries on.
    port = urls["lan"].split(":")[2].split("/")[0]
    again, urls_again = start_server([*args[:-1], port], tmp_path)
    servers.append(again)
    assert urls_again == urls
    loaded(driver)
    progress(driver, 4, total)
    assert text(driver, "position").startswith("Mục 5 /")

    screenshot = os.environ.get("VIVID_SCREENSHOT")
    if screenshot:
        for _ in range(total):
            if text(driver, "explanation").startswith("Ý nói") and "unscored" in text(driver, "item-status"):
                break
            keys(driver, Keys.ARROW_RIGHT)
        driver.save_screenshot(screenshot)


@contextmanager
def serving_in_process(space: Workspace) -> Iterator[str]:
    """Serve a workspace from a thread of this process (so a test can make its writes fail); yields lan's URL."""
    import uvicorn

    sock = bind("127.0.0.1", 0)
    server = uvicorn.Server(
        uvicorn.Config(create_app(space), log_level="warning", access_log=False, lifespan="off")
    )
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + WAIT
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        yield urls(space, "127.0.0.1", sock.getsockname()[1])["lan"]
    finally:
        server.should_exit = True
        thread.join(WAIT)
        sock.close()


@pytest.mark.slow
@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS], ids=["disk-full", "read-only"])
def test_a_score_the_server_could_not_save_is_shown_as_not_saved(
    driver: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    from selenium.webdriver.common.keys import Keys

    log = make_log(tmp_path / "logs", tmp_path / "cache")
    space = open_workspace(log, ["lan"], n=100)
    total = len(space.plan.queues["lan"])
    real_replace = os.replace

    def replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        if Path(dst).name == "lan.csv":
            raise OSError(code, os.strerror(code))
        real_replace(src, dst)

    with serving_in_process(space) as url:
        loaded(driver, url)
        keys(driver, "5")
        progress(driver, 1, total)
        with monkeypatch.context() as patch:
            patch.setattr(os, "replace", replace)
            keys(driver, "4")
            until(
                driver,
                lambda b: "NOT SAVED" in text(b, "message"),
                "the page never said the score was not saved",
            )
        message = text(driver, "message")
        assert os.strerror(code) in message and "lan.csv" in message
        assert "error" in (driver.find_element("id", "message").get_attribute("class") or "")
        # The item is still unscored, where the annotator left it, and the progress did not move.
        progress(driver, 1, total)
        assert text(driver, "position").startswith("Mục 2 /")
        assert "unscored" in text(driver, "item-status")
        # A reload shows the same: the page never showed what the server did not keep.
        loaded(driver)
        progress(driver, 1, total)
        # Fixed: the same key saves it.
        keys(driver, "4")
        progress(driver, 2, total)
        until(driver, lambda b: "saved" in text(b, "message"), "the page did not say the score was saved")
        keys(driver, Keys.ARROW_LEFT)
        until(driver, lambda b: "scored 4" in text(b, "item-status"), "the saved score is not shown")
    space.close()
    assert [v for v in scores_on_disk(space.annotators["lan"].path).values() if v] == ["5", "4"]


@pytest.mark.slow
def test_a_server_that_stopped_answering_is_shown_as_not_saved(
    driver: Any, tmp_path: Path, servers: list[subprocess.Popen[str]]
) -> None:
    log = make_log(tmp_path / "logs", tmp_path / "cache")
    process, found = start_server([str(log), "--annotators", "lan", "-n", "100", "--port", "0"], tmp_path)
    servers.append(process)
    loaded(driver, found["lan"])
    process.kill()
    process.wait(10)
    keys(driver, "3")
    until(driver, lambda b: "NOT SAVED" in text(b, "message"), "the page never said the score was not saved")
    assert "unscored" in text(driver, "item-status") and text(driver, "progress-text").startswith("0 / ")
