"""Headless Chromium for the HTML tests, through selenium and Debian's chromedriver.

A test that needs the browser calls :func:`browser`; without Chromium or chromedriver it FAILS with
the line that installs them (a skipped browser test would hide that the pages were never opened).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
INSTALL = "apt-get install -y chromium chromium-driver"


@contextmanager
def browser(width: int = 1200, height: int = 1400) -> Iterator[Any]:
    if CHROMIUM is None or CHROMEDRIVER is None:
        pytest.fail(f"This test opens the HTML export in headless Chromium, which is not installed: {INSTALL}",
                    pytrace=False)
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--no-first-run", f"--window-size={width},{height}"):
        options.add_argument(arg)
    options.binary_location = CHROMIUM
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


#: how long the navigation timing may take to record the load event's end after ``driver.get`` returned
TIMING_WAIT_S = 10.0
_TIMING = ("const n = performance.getEntriesByType('navigation')[0];"
           "return n && n.loadEventEnd > 0 ? [n.startTime, n.loadEventEnd] : null;")


def load_ms(driver: Any, url: str) -> float:
    """Open ``url`` and return its load time as the browser's navigation timing measured it (from the
    start of the navigation to the end of the load event), in milliseconds.

    ``driver.get`` returns once the document is complete, which the browser marks just before the
    load event runs: its end (``loadEventEnd``) may still be 0 then (seen on a 0.67 MB session page),
    so the timing is read once it is set, waiting up to :data:`TIMING_WAIT_S`."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(url)
    try:
        timing = WebDriverWait(driver, TIMING_WAIT_S, poll_frequency=0.01).until(
            lambda d: d.execute_script(_TIMING))
    except TimeoutException:
        raise AssertionError(f"{url}: the browser gave no navigation timing") from None
    return float(timing[1] - timing[0])


def console_errors(driver: Any) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if e.get("level") in ("SEVERE", "WARNING")]
