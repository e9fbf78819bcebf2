"""Console panels: a section a plugin adds to the household console, as datasette plugins add
``extra_js_urls``.

The plugin ships one script in its package; the console serves it from its own origin, under
its own Content-Security-Policy, and loads it only for a key that holds the panel's scope. The
script draws into the section it is given with the console's helpers, so it needs no key
handling, no HTML parsing and no origin of its own::

    stewardConsole.panel("garden", (section, { api, el, say }) => {
      section.append(el("p", { text: "Watering: off" }));
    });

``api(method, path, body)`` calls Steward's HTTP API with the signed-in key and throws on an
error answer, ``el(tag, options, ...children)`` builds an element whose ``text`` is always text,
``say(message)`` shows a line in the console's status bar.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib.resources.abc import Traversable
from pathlib import Path

PANEL_NAME = re.compile(r"^[a-z][a-z0-9-]{0,39}$")


@dataclass(frozen=True)
class ConsolePanel:
    """One section of the household console, returned from ``register_console_panels``."""

    name: str
    """The section's id and the script's address (``/console/panels/<name>.js``): lower-case
    letters, digits and hyphens; unique across plugins."""
    title: str
    """The section's heading."""
    script: Traversable | Path
    """The panel's script, a file in the plugin's package (``importlib.resources.files(...) / "panel.js"``)."""
    scope: str = "settings"
    """The scope a key needs to see the panel; without it the console says which scope is missing."""

    @property
    def problems(self) -> list[str]:
        found = []
        if not isinstance(self.name, str) or not PANEL_NAME.match(self.name):
            found.append(f"panel name {self.name!r} is not lower-case letters, digits and hyphens")
        if not isinstance(self.title, str) or not self.title.strip():
            found.append("a panel needs a title")
        if not self.script.is_file():
            found.append(f"panel script {self.script} is not a file")
        return found
