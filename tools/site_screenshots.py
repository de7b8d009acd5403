"""Screenshots of the site for the README: its front page and one cell page, in headless
Chromium at 1,400 px (Debian's `chromium` and `chromium-driver`, driven with selenium).

    python tools/site_screenshots.py report/site docs/img [CELL_ID]

Writes site-front.png and site-cell.png into the folder given; the site is what
`nox -s site` wrote.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

CELL = "cohere/command-a-vision/image/inline/result"
"""A cell where the frameworks differ: the api has no image in tool results."""


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    site, out = Path(argv[0]), Path(argv[1])
    cell = argv[2] if len(argv) == 3 else CELL
    pages = {
        "site-front.png": site / "index.html",
        "site-cell.png": site / "cells" / f"{cell}.html",
    }
    for page in pages.values():
        if not page.is_file():
            print(f"{page}: no such page; build the site first (nox -s site)", file=sys.stderr)
            return 2
    chromium, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if chromium is None or driver_path is None:
        print("needs Debian's chromium and chromium-driver", file=sys.stderr)
        return 2
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as profile:
        options = webdriver.ChromeOptions()
        options.binary_location = chromium
        for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                     "--window-size=1400,1000", f"--user-data-dir={profile}"):  # fmt: skip
            options.add_argument(flag)
        driver = webdriver.Chrome(options=options, service=Service(driver_path))
        try:
            for name, page in pages.items():
                driver.get(page.resolve().as_uri())
                time.sleep(0.3)  # the filters' script has run
                (out / name).write_bytes(driver.get_screenshot_as_png())
                print(f"wrote {out / name}")
        finally:
            driver.quit()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
