"""A real Chromium (Debian's, driven by Playwright) against a served host, and what it may not do.

The sample plugin (tests/core) and the Home Assistant-shaped server (tests/homeassistant) are
shared with those suites, so their folders are put on the import path here.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).parent
sys.path[:0] = [str(HERE.parent / "core"), str(HERE.parent / "homeassistant")]

SCREENSHOTS = HERE.parents[1] / "build" / "console-screenshots"
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WATCH_THE_PAGE = """
window.__violations = [];
window.__dialogs = 0;
document.addEventListener('securitypolicyviolation', (event) => window.__violations.push(event.violatedDirective));
"""


def chromium_path() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        raise RuntimeError(
            "Debian's chromium is not installed: `make test` installs it as root (apt-get install chromium)"
        )
    return found


@pytest.fixture(scope="module")
def browser():
    """One browser for the module, stopped with it: Playwright's sync API holds an event loop while it runs."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser) -> Iterator:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    opened = context.new_page()
    opened.dialogs = []
    opened.on("dialog", lambda dialog: (opened.dialogs.append(dialog.message), dialog.dismiss()))
    opened.add_init_script(WATCH_THE_PAGE)
    yield opened
    try:
        if not opened.is_closed() and opened.url.startswith("http"):
            assert opened.evaluate("window.__violations") == [], "the page broke its Content-Security-Policy"
        assert opened.dialogs == [], "the page opened a dialog"
    finally:
        context.close()


@pytest.fixture(scope="session")
def screenshots() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
