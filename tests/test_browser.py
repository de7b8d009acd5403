"""The HTML report in a real headless Chromium: every cell is there, a failing cell opens.

Needs Debian's `chromium` and `chromium-driver` (`apt-get install chromium chromium-driver`),
driven with selenium. Without them the test skips, unless CONFORMANCE_REQUIRE_BROWSER=1 (CI
sets it), where it fails. The screenshot of the opened cell is kept at
report/artifacts/browser.png. The browser runs in its own process group, which is killed
after the test, and a watchdog kills it early if the test overruns its budget.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from conformance.cli import main
from results_data import checks, meta, result, write

if TYPE_CHECKING:
    from collections.abc import Iterator

    from selenium.webdriver.remote.webdriver import WebDriver

ROOT = Path(__file__).resolve().parent.parent
SCREENSHOT = ROOT / "report" / "artifacts" / "browser.png"
BUDGET = 120.0
"""Seconds before the watchdog kills the browser; the test takes a few seconds."""
WAIT = 10.0
"""Seconds to wait for anything on the page."""
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,1000",
]
FAILING = "cohere/command-a-vision/image/inline/result"
DETAIL = "expected fallback-marked, observed dropped: the image is gone"
HOSTILE = "<script>document.title = 'pwned'</script><img src=x onerror=\"document.title='pwned'\">"
CELLS = [
    *checks("openai-chat/gpt-4o/text/inline/result", expect="native", outcome="native"),
    *checks("openai-chat/gpt-4o/image/inline/result"),
    *checks("openai-chat/gpt-4o/image/url/result"),
    *checks("openai-chat/gpt-4o/audio/inline/result", expect="unsupported", outcome="raised"),
    *checks("cohere/command-a-vision/text/inline/result", expect="native", outcome="native"),
    result(FAILING, "snapshot", outcome="dropped"),
    result(FAILING, "outcome", verdict="fail", outcome="dropped", detail=DETAIL),
    result(FAILING, "no-silent-loss", verdict="fail", outcome="dropped", detail=HOSTILE),
]


def unavailable(reason: str) -> None:
    if os.environ.get("CONFORMANCE_REQUIRE_BROWSER") == "1":
        pytest.fail(f"{reason} (required: CONFORMANCE_REQUIRE_BROWSER=1)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[WebDriver]:
    """A headless Chromium with a fresh profile, always ended after the test."""
    chromium = shutil.which("chromium")
    chromedriver = shutil.which("chromedriver")
    if chromium is None or chromedriver is None:
        unavailable("needs Debian's packages: apt-get install chromium chromium-driver")
    assert chromium is not None
    assert chromedriver is not None
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        unavailable("needs selenium (the `test` dependency group)")
        raise
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in [*FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]:
        options.add_argument(flag)
    service = Service(chromedriver, popen_kw={"start_new_session": True})
    watchdog: threading.Timer | None = None
    driver: WebDriver | None = None
    try:
        driver = webdriver.Chrome(options=options, service=service)
        group = service.process.pid
        watchdog = threading.Timer(BUDGET, kill_group, [group])
        watchdog.start()
        driver.set_page_load_timeout(WAIT)
        driver.set_script_timeout(WAIT)
        yield driver
    finally:
        if watchdog is not None:
            watchdog.cancel()
        if driver is not None:
            with contextlib.suppress(Exception):  # the browser may be gone already
                driver.quit()
        process = getattr(service, "process", None)
        if process is not None:
            end_group(process.pid)


def kill_group(group: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(group, signal.SIGKILL)


def end_group(group: int) -> None:
    """Give the browser's processes a few seconds to exit after quit, then kill the rest."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    kill_group(group)


def test_grid_has_every_cell_and_a_failing_cell_opens(browser: WebDriver, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.wait import WebDriverWait

    results = write(tmp_path / "results.jsonl", CELLS)
    page = tmp_path / "index.html"
    assert main(["report", str(results), "--format", "html", "-o", str(page)]) == 0
    browser.get(page.as_uri())
    assert browser.title == "Tool-result conformance report"

    buttons = browser.find_elements(By.CSS_SELECTOR, "button.cell")
    titles = sorted(b.get_attribute("title") or "" for b in buttons)
    ids = sorted(dict.fromkeys(line["cell"] for line in CELLS))
    assert [t.split(": ")[0] for t in titles] == ids
    assert all(b.is_displayed() for b in buttons)

    browser.find_element(By.CSS_SELECTOR, 'input[name="source"][value="url"]').click()
    shown = [b.get_attribute("title") for b in buttons if b.is_displayed()]
    assert shown == ["openai-chat/gpt-4o/image/url/result: pass"]
    browser.find_element(By.CSS_SELECTOR, 'input[name="source"][value="all"]').click()

    failing = browser.find_element(By.CSS_SELECTOR, "button.cell.st-fail")
    assert failing.text.split() == ["❌", "dropped", "inline", "·", "result"]
    failing.click()
    dialog = browser.find_element(By.ID, failing.get_attribute("data-details") or "")
    WebDriverWait(browser, WAIT).until(lambda _: dialog.is_displayed())
    text = dialog.text
    assert FAILING in text
    assert DETAIL in text
    assert HOSTILE in text  # shown as text, never run
    assert "Accepted by a live API\nnot recorded" in text
    assert browser.title == "Tool-result conformance report"
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    SCREENSHOT.write_bytes(browser.get_screenshot_as_png())

    dialog.find_element(By.CSS_SELECTOR, "button.close").click()
    WebDriverWait(browser, WAIT).until(lambda _: not dialog.is_displayed())


def test_comparison_page_switches_level_and_opens_a_cell(
    browser: WebDriver, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.wait import WebDriverWait

    reference = write(tmp_path / "results.jsonl", CELLS[:18])
    framework = [
        line | {"target": "framework", "target_version": "2.0.0"}
        for line in [*checks(FAILING, outcome="fallback-unmarked")]
    ]
    framework[4] |= {"verdict": "fail", "detail": HOSTILE}  # provenance: recommended
    other = write(tmp_path / "fw.jsonl", framework, head=meta(framework="2.0.0"))
    page = tmp_path / "compare.html"
    assert main(["compare", str(reference), str(other), "-o", str(page)]) == 0
    browser.get(page.as_uri())
    assert browser.title == "Frameworks compared: tool-result conformance"

    cell = browser.find_element(By.CSS_SELECTOR, f'button.cell[title^="{FAILING}"]')
    assert "st-fail" in (cell.get_attribute("class") or "")
    browser.find_element(By.CSS_SELECTOR, 'input[name="level"][value="required"]').click()
    assert "st-pass" in (cell.get_attribute("class") or "")  # nothing lost: required kept
    browser.find_element(By.CSS_SELECTOR, 'input[name="level"][value="recommended"]').click()
    assert "st-fail" in (cell.get_attribute("class") or "")

    cell.click()
    dialog = browser.find_element(By.ID, cell.get_attribute("data-details") or "")
    WebDriverWait(browser, WAIT).until(lambda _: dialog.is_displayed())
    text = dialog.text
    assert f"conformance repro {FAILING} --target framework" in text
    assert HOSTILE in text  # shown as text, never run
    assert "provenance recommended" in text.replace("\n", " ")
    assert browser.title == "Frameworks compared: tool-result conformance"
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    (SCREENSHOT.parent / "compare.png").write_bytes(browser.get_screenshot_as_png())
