"""The static site in a real headless Chromium, at desktop and phone widths: the front page,
a framework page, a cell page and the filters; no console errors; every link resolving inside
the site; and an accessibility check (axe-core: landmarks, headings, contrast, names) with the
keyboard path from the skip link to a cell.

Needs Debian's `chromium` and `chromium-driver`, selenium (the `test` group) and axe-core
(`npm ci --prefix tests/browser`). Without them the tests skip, unless
CONFORMANCE_REQUIRE_BROWSER=1 (CI), where they fail. Screenshots are kept in
report/artifacts/site-*.png.
"""

from __future__ import annotations

import contextlib
import itertools
import shutil
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import unquote, urlsplit

import pytest

from conformance.reports.compare import build_comparison
from conformance.reports.compare_html import render_compare_html
from conformance.reports.site import write_site
from results_data import checks, write
from test_browser import BUDGET, FLAGS, WAIT, end_group, kill_group, unavailable
from test_site import AUDIO, CLAUDE, IMAGE, PAI, make_files
from test_variants import AM, framework_file

if TYPE_CHECKING:
    from collections.abc import Iterator

WebDriver = Any
"""selenium's Chrome driver: its `get_log`, `execute_cdp_cmd` and the arguments of
`execute_script` are untyped in selenium's own annotations."""

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "report" / "artifacts"
DESKTOP = (1400, 1000)
PHONE = (390, 844)
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]
AXE_FOLDER = ROOT / "tests" / "browser"
AXE = AXE_FOLDER / "node_modules" / "axe-core" / "axe.min.js"
"""axe-core from the npm registry, pinned by tests/browser/package-lock.json (`npm ci`)."""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("site")
    out = base / "site"
    write_site(make_files(base), out)
    return out


@pytest.fixture(scope="module")
def chrome(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebDriver]:
    """One headless Chromium for the module, its console kept, always ended after."""
    chromium, chromedriver = shutil.which("chromium"), shutil.which("chromedriver")
    if chromium is None or chromedriver is None:
        unavailable("needs Debian's packages: apt-get install chromium chromium-driver")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        unavailable("needs selenium (the `test` dependency group)")
        raise
    options = webdriver.ChromeOptions()
    options.binary_location = cast("str", chromium)
    profile = tmp_path_factory.mktemp("profile")
    for flag in [*FLAGS, f"--user-data-dir={profile}"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(cast("str", chromedriver), popen_kw={"start_new_session": True})
    watchdog: threading.Timer | None = None
    driver: WebDriver = None
    try:
        driver = webdriver.Chrome(options=options, service=service)
        watchdog = threading.Timer(BUDGET * 2, kill_group, [service.process.pid])
        watchdog.start()
        driver.set_page_load_timeout(WAIT)
        driver.set_script_timeout(WAIT * 3)
        yield driver
    finally:
        if watchdog is not None:
            watchdog.cancel()
        if driver is not None:
            with contextlib.suppress(Exception):
                driver.quit()
        process = getattr(service, "process", None)
        if process is not None:
            end_group(process.pid)


def _open(chrome: WebDriver, page: Path, size: tuple[int, int]) -> None:
    """The page at a width: a phone's through device emulation (a headless window is never
    narrower than 500 px), the desktop's as the window."""
    if size == PHONE:
        metrics = {"width": size[0], "height": size[1], "deviceScaleFactor": 2, "mobile": True}
        chrome.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    else:
        chrome.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        chrome.set_window_size(*size)
    chrome.get(page.as_uri())
    chrome.get_log("browser")  # what an earlier page left
    chrome.refresh()


def _errors(chrome: WebDriver) -> list[str]:
    logs = cast("list[dict[str, Any]]", chrome.get_log("browser"))
    return [str(entry["message"]) for entry in logs if entry["level"] in ("SEVERE", "WARNING")]


def _js(chrome: WebDriver, script: str, *args: Any) -> Any:
    return chrome.execute_script(script, *args)


def _links_resolve(chrome: WebDriver, site: Path) -> int:
    hrefs = cast("list[str]", _js(chrome, "return [...document.links].map(a => a.href)"))
    root = site.resolve()
    for href in hrefs:
        parts = urlsplit(href)
        if parts.scheme in ("http", "https"):
            continue
        assert parts.scheme == "file", href
        target = Path(unquote(parts.path))
        assert target.is_file(), f"{href} leads nowhere"
        assert root in target.resolve().parents, f"{href} leaves the site"
    return len(hrefs)


def _axe(chrome: WebDriver) -> list[str]:
    """axe-core's violations on the page (WCAG 2.1 A and AA, and best practice)."""
    if not AXE.is_file():
        unavailable(f"needs axe-core: npm ci --prefix {AXE_FOLDER.relative_to(ROOT)}")
    _js(chrome, AXE.read_text(encoding="utf-8"))
    found = cast(
        "dict[str, Any]",
        chrome.execute_async_script(
            "var done = arguments[arguments.length - 1];"
            "axe.run(document, {runOnly: {type: 'tag', values: arguments[0]}, preload: false})"
            ".then(function (r) { done({violations: r.violations}); },"
            " function (e) { done({error: String(e)}); });",
            AXE_TAGS,
        ),
    )
    assert "error" not in found, found
    return [
        f"{v['id']} ({v['impact']}): {v['help']}: "
        + "; ".join(str(n["target"]) for n in v["nodes"][:3])
        for v in cast("list[dict[str, Any]]", found["violations"])
    ]


def _no_sideways_scroll(chrome: WebDriver) -> None:
    width = _js(chrome, "return document.documentElement.scrollWidth")
    inner = _js(chrome, "return window.innerWidth")
    assert width <= inner + 1, f"the page scrolls sideways: {width} > {inner}"


def test_front_page_at_desktop_width_fits_with_sticky_headers(
    chrome: WebDriver, site: Path
) -> None:
    from selenium.webdriver.common.by import By

    _open(chrome, site / "index.html", DESKTOP)
    assert chrome.find_element(By.TAG_NAME, "h1").text.startswith("Can I use it?")
    region = chrome.find_element(By.CSS_SELECTOR, ".scroll")
    fits = _js(chrome, "return arguments[0].scrollWidth <= arguments[0].clientWidth + 1", region)
    assert fits, "the grid does not fit at 1,400 px"
    chips = chrome.find_elements(By.CSS_SELECTOR, "a.chip")
    assert chips
    assert all(c.is_displayed() for c in chips)
    words = {c.find_element(By.CSS_SELECTOR, ".w").text for c in chips}
    assert {"refused", "native", "fallback, marked", "dropped"} <= words
    _js(chrome, "arguments[0].style.maxHeight = '8rem'; arguments[0].scrollTop = 400", region)
    head = chrome.find_element(By.CSS_SELECTOR, "#grid thead th")
    top = _js(chrome, "return arguments[0].getBoundingClientRect().top", head)
    box = _js(chrome, "return arguments[0].getBoundingClientRect().top", region)
    assert abs(top - box) <= 2, "the column headers scrolled away"
    assert _errors(chrome) == []
    assert _links_resolve(chrome, site) > 10
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    _js(chrome, "arguments[0].style.maxHeight = ''; arguments[0].scrollTop = 0", region)
    (ARTIFACTS / "site-front.png").write_bytes(chrome.get_screenshot_as_png())


def test_filters_answer_the_question_and_keep_it_in_the_address(
    chrome: WebDriver, site: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select

    _open(chrome, site / "index.html", DESKTOP)
    form = chrome.find_element(By.ID, "filters")
    assert form.is_displayed()  # the script shows it; without the script it stays hidden
    Select(chrome.find_element(By.NAME, "framework")).select_by_value(PAI)
    Select(chrome.find_element(By.NAME, "content")).select_by_value("image")
    Select(chrome.find_element(By.NAME, "api")).select_by_value("openai-chat")
    rows = chrome.find_elements(By.CSS_SELECTOR, "#grid tbody tr[data-content]")
    shown = [r.get_attribute("data-content") for r in rows if r.is_displayed()]
    assert shown == ["image"]
    cells = chrome.find_elements(By.CSS_SELECTOR, "#grid td[data-framework]")
    assert {c.get_attribute("data-framework") for c in cells if c.is_displayed()} == {PAI}
    assert (
        urlsplit(str(chrome.current_url)).fragment
        == f"framework={PAI}&content=image&api=openai-chat"
    )
    chrome.refresh()  # the address holds the question
    rows = chrome.find_elements(By.CSS_SELECTOR, "#grid tbody tr[data-content]")
    assert [r.get_attribute("data-content") for r in rows if r.is_displayed()] == ["image"]
    chip = next(c for c in chrome.find_elements(By.CSS_SELECTOR, "a.chip") if c.is_displayed())
    assert chip.get_attribute("href") or "".endswith(f"cells/{IMAGE}.html")
    chrome.find_element(By.CSS_SELECTOR, '#filters button[type="reset"]').click()
    rows = chrome.find_elements(By.CSS_SELECTOR, "#grid tbody tr[data-content]")
    assert all(r.is_displayed() for r in rows)
    assert urlsplit(str(chrome.current_url)).fragment == ""
    assert _errors(chrome) == []


def test_the_given_as_filter_shows_the_media_given_that_way_and_reads_older_links(
    chrome: WebDriver, site: Path
) -> None:
    """The "given as" filter (source and style; "variant" is a framework's entry point) keeps
    only the entries given that way; an address written before it was renamed (`#variant=`)
    asks the same question."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select

    def shown() -> set[str]:
        chips = chrome.find_elements(By.CSS_SELECTOR, "#grid a.chip")
        return {c.get_attribute("data-given") or "" for c in chips if c.is_displayed()}

    _open(chrome, site / "index.html", DESKTOP)
    assert shown() >= {"inline-result", "url-result"}
    Select(chrome.find_element(By.NAME, "given")).select_by_value("url-result")
    assert shown() == {"url-result"}
    assert urlsplit(str(chrome.current_url)).fragment == "given=url-result"
    chrome.get((site / "index.html").as_uri() + "#variant=inline-result")
    chrome.refresh()
    assert shown() == {"inline-result"}
    assert Select(chrome.find_element(By.NAME, "given")).first_selected_option.text == (
        "inline · result"
    )
    assert urlsplit(str(chrome.current_url)).fragment == "given=inline-result"
    assert _errors(chrome) == []


def test_front_page_on_a_phone(chrome: WebDriver, site: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select

    _open(chrome, site / "index.html", PHONE)
    _no_sideways_scroll(chrome)  # only the grid's own region scrolls
    chip = chrome.find_element(By.CSS_SELECTOR, "a.chip .w")
    size = _js(chrome, "return parseFloat(getComputedStyle(arguments[0]).fontSize)", chip)
    assert size >= 11
    Select(chrome.find_element(By.NAME, "framework")).select_by_value(PAI)
    region = chrome.find_element(By.CSS_SELECTOR, ".scroll")
    fits = _js(chrome, "return arguments[0].scrollWidth <= arguments[0].clientWidth + 1", region)
    assert fits, "one framework's column does not fit a phone"
    assert _errors(chrome) == []


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_framework_and_cell_pages(chrome: WebDriver, site: Path, size: tuple[int, int]) -> None:
    from selenium.webdriver.common.by import By

    _open(chrome, site / "frameworks" / PAI / "2.0.0.html", size)
    assert chrome.find_element(By.TAG_NAME, "h1").text == f"{PAI} 2.0.0"
    findings = chrome.find_element(By.CSS_SELECTOR, "ol.findings").text
    assert findings.index("required") < findings.index("recommended")  # worst first
    _no_sideways_scroll(chrome)
    assert _links_resolve(chrome, site) > 5
    assert _errors(chrome) == []
    _open(chrome, site / "cells" / f"{CLAUDE}.html", size)
    sides = chrome.find_elements(By.CSS_SELECTOR, ".side > section")
    assert [s.find_element(By.TAG_NAME, "h2").text for s in sides][:2] == [
        "reference 0.1.0",
        "langchain 1.8.3 STALE",
    ]
    _no_sideways_scroll(chrome)
    assert _links_resolve(chrome, site) > 5
    assert _errors(chrome) == []
    if size == DESKTOP:
        (ARTIFACTS / "site-cell.png").write_bytes(chrome.get_screenshot_as_png())


@pytest.mark.parametrize(
    "page",
    [
        "index.html",
        f"frameworks/{PAI}/2.0.0.html",
        f"cells/{AUDIO}.html",
        f"frameworks/{PAI}/index.html",
        "api.html",
    ],
)
def test_accessibility(chrome: WebDriver, site: Path, page: str) -> None:
    from selenium.webdriver.common.by import By

    _open(chrome, site / page, DESKTOP)
    assert _axe(chrome) == []
    assert _errors(chrome) == []  # axe reads the page as it is (no preload of its style sheet)
    for landmark in ("header", "nav", "main", "footer"):
        assert chrome.find_elements(By.TAG_NAME, landmark), landmark
    assert len(chrome.find_elements(By.TAG_NAME, "h1")) == 1
    levels = [
        int(h.tag_name[1]) for h in chrome.find_elements(By.CSS_SELECTOR, "h1, h2, h3, h4, h5, h6")
    ]
    assert all(b - a <= 1 for a, b in itertools.pairwise(levels)), levels


def test_keyboard_reaches_a_cell_from_the_skip_link(chrome: WebDriver, site: Path) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    _open(chrome, site / "index.html", DESKTOP)
    actions = ActionChains(chrome)
    actions.send_keys(Keys.TAB).perform()
    active = chrome.switch_to.active_element
    assert active.text == "Skip to the content"
    assert active.is_displayed()  # shown when focused
    active.send_keys(Keys.ENTER)
    assert urlsplit(str(chrome.current_url)).fragment == "main"
    seen: list[str] = []
    for _ in range(40):
        ActionChains(chrome).send_keys(Keys.TAB).perform()
        element = chrome.switch_to.active_element
        classes = element.get_attribute("class") or ""
        seen.append(f"{element.tag_name}.{classes}")
        if "chip" in classes:
            outline = _js(chrome, "return getComputedStyle(arguments[0]).outlineStyle", element)
            assert outline != "none", "a focused cell shows no focus ring"
            break
    else:
        pytest.fail(f"no cell reached by Tab: {seen}")
    assert any(s.startswith("select") for s in seen)  # the filters come first
    assert _errors(chrome) == []


def test_the_checks_catch_a_broken_page(chrome: WebDriver, tmp_path: Path) -> None:
    """The mutant: a page with an unlabelled image, grey on grey text, no landmarks and a link
    to nowhere; the accessibility and link checks above must fail on it."""
    broken = tmp_path / "site" / "broken.html"
    broken.parent.mkdir()
    broken.write_text(
        '<!DOCTYPE html><html lang="en"><head><title>broken</title></head><body>'
        '<img src="chart.png"><p style="color:#bbb;background:#ccc">faint</p>'
        '<a href="missing.html">gone</a></body></html>',
        encoding="utf-8",
    )
    (tmp_path / "site" / "chart.png").write_bytes(b"")
    _open(chrome, broken, DESKTOP)
    found = " ".join(_axe(chrome))
    assert "image-alt" in found
    assert "color-contrast" in found
    assert "region" in found  # content outside any landmark
    with pytest.raises(AssertionError, match="leads nowhere"):
        _links_resolve(chrome, broken.parent)


@pytest.fixture(scope="module")
def variant_pages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site and the comparison page of the reference and a framework run with its variant."""
    base = tmp_path_factory.mktemp("variant")
    runs = [write(base / "ref.jsonl", checks(IMAGE)), framework_file(base)]
    write_site(runs, base / "site")
    page = render_compare_html(build_comparison(runs))
    (base / "compare.html").write_text(page, encoding="utf-8")
    return base


def _box(chrome: WebDriver, element: Any) -> dict[str, float]:
    return cast(
        "dict[str, float]", _js(chrome, "return arguments[0].getBoundingClientRect()", element)
    )


def test_a_variant_is_a_sub_column_its_framework_filter_keeps(
    chrome: WebDriver, variant_pages: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select

    site = variant_pages / "site"
    _open(chrome, site / "index.html", DESKTOP)
    heads = chrome.find_elements(By.CSS_SELECTOR, "#grid thead th[data-framework]")
    assert [h.text.splitlines() for h in heads] == [
        ["reference 0.1.0"],
        ["litellm 1.110.2"],
        ["↳ anthropic-messages", "variant of litellm 1.110.2"],
    ]
    framework, variant = heads[1:]
    assert abs(_box(chrome, framework)["right"] - _box(chrome, variant)["left"]) <= 1
    edge = "return getComputedStyle(arguments[0]).borderLeftWidth"
    assert _js(chrome, edge, framework) == "2px"  # the line before the framework's group
    assert _js(chrome, edge, variant) == "0px"  # none inside it
    Select(chrome.find_element(By.NAME, "framework")).select_by_value("litellm")
    cells = chrome.find_elements(By.CSS_SELECTOR, "#grid td[data-framework]")
    shown = {c.get_attribute("data-framework") for c in cells if c.is_displayed()}
    assert shown == {"litellm", AM}  # the framework with its variant's sub-column
    Select(chrome.find_element(By.NAME, "framework")).select_by_value(AM)
    shown = {c.get_attribute("data-framework") for c in cells if c.is_displayed()}
    assert shown == {AM}
    assert _axe(chrome) == []
    assert _links_resolve(chrome, site) > 5
    _open(chrome, site / "frameworks" / "litellm" / "1.110.2.html", DESKTOP)
    link = chrome.find_element(By.LINK_TEXT, "anthropic-messages")
    link.click()
    assert chrome.find_element(By.TAG_NAME, "h1").text == "litellm 1.110.2 ↳ anthropic-messages"
    assert _axe(chrome) == []
    assert _errors(chrome) == []
    _open(chrome, variant_pages / "compare.html", DESKTOP)
    heads = chrome.find_elements(By.CSS_SELECTOR, ".compare thead th")
    assert [h.text.splitlines() for h in heads[2:]] == [
        ["reference 0.1.0"],
        ["litellm 1.110.2"],
        ["↳ anthropic-messages", "variant of litellm"],
    ]
    failing = chrome.find_element(By.CSS_SELECTOR, 'td[data-variant-of="litellm"] button.cell')
    assert "st-fail" in (failing.get_attribute("class") or "")
    assert _errors(chrome) == []
