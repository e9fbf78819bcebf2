"""axe-core run inside the page, as an accessibility auditor runs it: WCAG 2.0, 2.1 and 2.2, A and AA.

The script is evaluated through the browser's DevTools protocol, which the page's
Content-Security-Policy does not govern, so the page keeps its policy while it is checked.
"""

from __future__ import annotations

import functools
from pathlib import Path

AXE = Path(__file__).parent / "axe" / "node_modules" / "axe-core" / "axe.min.js"
WCAG_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
RUN = """async (tags) => {
  const results = await axe.run(document, { runOnly: { type: "tag", values: tags } });
  return results.violations.map((violation) => ({
    rule: violation.id,
    help: violation.help,
    where: violation.nodes.map((node) => node.target.join(" ")),
  }));
}"""


@functools.cache
def axe_source() -> str:
    return AXE.read_text()


def violations(page) -> list[dict]:
    """axe's WCAG A/AA violations on the page as it stands: each rule, its help and where."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(axe_source())
    return page.evaluate(RUN, WCAG_AA)
