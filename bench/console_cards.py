"""How soon a confirmation card appears, and disappears everywhere, in the household console.

Two pages of Debian's Chromium (two devices) are signed in to one served host. Each round another
client invokes a capability that needs a person; the time until the card shows on both pages is
taken; then one page approves, and the time until the card is gone from the other is taken. The
console polls ``GET /api/v1/confirmations`` once a second (no server-sent events: one request a
second per open console is nothing for a household, works through any proxy, and needs no
long-lived connection per worker).

Target (issue 17): a card answered or expired disappears everywhere within 2 s.
"""

from __future__ import annotations

import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

HERE = Path(__file__).parent
ROUNDS = 20
TARGET_SECONDS = 2.0
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]  # fmt: skip


def wait_for(page, selector: str, count: int, started: float) -> float:
    page.wait_for_function(
        "([selector, count]) => document.querySelectorAll(selector).length === count",
        arg=[selector, count],
        timeout=10_000,
        polling=20,
    )
    return time.perf_counter() - started


def main() -> int:
    from playwright.sync_api import sync_playwright

    sys.path.insert(0, str(HERE))
    import trivial_plugin

    import steward
    from steward.testing import serve_host

    chromium = shutil.which("chromium")
    if chromium is None:
        print("console cards: skipped, Debian's chromium is not installed (make bench installs it as root)")
        return 0
    appear, vanish = [], []
    with (
        tempfile.TemporaryDirectory() as scratch,
        serve_host([steward.Plugin("bench", trivial_plugin)], data_dir=Path(scratch)) as served,
    ):
        admin, agent = served.key(["admin"]), served.key(["invoke"])
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=FLAGS)
            pages = [browser.new_page(), browser.new_page()]
            for page in pages:
                page.goto(served.base_url + "/console")
                page.fill("#key", admin)
                page.click("#sign-in-form button")
                page.wait_for_selector("#signed-in-as", state="visible")
            for _ in range(ROUNDS):
                time.sleep(random.uniform(0, 1))  # land anywhere in the pages' polling period
                started = time.perf_counter()
                httpx.post(
                    f"{served.base_url}/api/v1/capabilities/bench.remote/invoke",
                    json={"arguments": {"text": "hello"}},
                    headers={"Authorization": f"Bearer {agent}"},
                ).raise_for_status()
                appear.append(max(wait_for(page, "#cards .card", 1, started) for page in pages))
                time.sleep(random.uniform(0, 1))
                started = time.perf_counter()
                pages[0].click("#cards .card button.approve")
                vanish.append(wait_for(pages[1], "#cards .card", 0, started))
            browser.close()
    print(f"console cards, {ROUNDS} rounds, two signed-in pages, polling every 1 s")
    for label, figures in (("card shown on both pages", appear), ("answered on one, gone from the other", vanish)):
        print(f"  {label:40s} median {statistics.median(figures):.2f} s, max {max(figures):.2f} s")
    worst = max(max(appear), max(vanish))
    verdict = "meets" if worst <= TARGET_SECONDS else "MISSES"
    print(f"  worst {worst:.2f} s: {verdict} the target of <= {TARGET_SECONDS:g} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
