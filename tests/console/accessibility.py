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


def contrast(first: str, second: str) -> float:
    """WCAG's contrast ratio of two CSS ``rgb(…)`` colours."""

    def luminance(colour: str) -> float:
        red, green, blue = (int(part) / 255 for part in colour[colour.index("(") + 1 : -1].split(",")[:3])
        linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (red, green, blue)]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    lighter, darker = sorted((luminance(first), luminance(second)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)
