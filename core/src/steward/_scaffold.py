"""``steward new-plugin``: a ready plugin package, rendered from the template shipped with core.

The template is the one copy: ``contrib/plugin-template`` in Steward's repository is its output
for the name ``example`` (``--steward-from index``), checked by the test suite, so the example
people read and the package people generate cannot drift apart.

A plugin needs ``steward-host`` beside it, and an author's Steward is often not on a package
index: a checkout, a wheel an appliance builder handed over, a Git URL. The package therefore
names where its Steward comes from in ``steward-source.txt``, a pip requirements file that its
README and CI install first; ``new-plugin`` writes there where the running Steward was installed
from (pip's ``direct_url.json``), or what ``--steward-from`` says.
"""

from __future__ import annotations

import importlib.metadata
import json
import re
import urllib.parse
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from steward._version import __version__

PLUGIN_NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
TEMPLATE_SUFFIX = ".tmpl"
# Files whose name a leading dot would hide inside the wheel's template directory.
DOTTED = {"gitignore": ".gitignore", "github": ".github"}


class ScaffoldError(ValueError):
    """A name or a destination ``new-plugin`` refuses; the message says what would work."""


def core_range(version: str = __version__) -> str:
    """The core versions a new plugin accepts: this minor series before 1.0, this major after."""
    major, minor = (int(part) for part in version.split(".")[:2])
    if major == 0:
        return f">={major}.{minor},<{major}.{minor + 1}"
    return f">={major}.{minor},<{major + 1}"


def placeholders(name: str, steward_from: str = "index") -> dict[str, str]:
    return {
        "__NAME__": name,
        "__PACKAGE__": f"steward_{name}",
        "__DISTRIBUTION__": f"steward-{name.replace('_', '-')}",
        "__CORE_RANGE__": core_range(),
        "__STEWARD_SOURCE__": steward_requirement(steward_from),
    }


def steward_requirement(source: str) -> str:
    """The pip requirement for steward-host from ``source``: ``index`` (a package index), a
    directory (a checkout's ``core/``), a wheel file, or a URL pip understands (``git+https://…``)."""
    if source == "index":
        return f"steward-host{core_range()}"
    if "://" in source:
        return f"steward-host @ {source}"
    path = Path(source).expanduser().resolve()
    if not path.exists():
        raise ScaffoldError(f"--steward-from {source}: no such file or directory")
    if path.is_dir() and not (path / "pyproject.toml").exists():
        raise ScaffoldError(f"--steward-from {source}: a directory must be steward-host's (core/ of a checkout)")
    if path.is_file() and not path.name.endswith(".whl"):
        raise ScaffoldError(f"--steward-from {source}: a file must be a steward-host wheel")
    return f"steward-host @ {path.as_uri()}"


def installed_from() -> str:
    """Where the running steward-host was installed from, as ``--steward-from`` takes it."""
    try:
        recorded = importlib.metadata.distribution("steward-host").read_text("direct_url.json")
    except importlib.metadata.PackageNotFoundError:
        return "index"
    if not recorded:
        return "index"
    direct = json.loads(recorded)
    url = direct.get("url", "")
    vcs = direct.get("vcs_info")
    if vcs:
        revision = vcs.get("commit_id")
        located = f"{vcs.get('vcs', 'git')}+{url}" + (f"@{revision}" if revision else "")
        subdirectory = direct.get("subdirectory")
        return located + (f"#subdirectory={subdirectory}" if subdirectory else "")
    if url.startswith("file://"):
        return urllib.parse.unquote(urllib.parse.urlsplit(url).path)
    return url or "index"


def render(name: str, destination: Path, steward_from: str = "index") -> list[Path]:
    """Write the plugin package ``name`` into ``destination`` (new or empty); the files written.

    ``steward_from`` is where the package's tests and CI get steward-host (see
    :func:`steward_requirement`)."""
    if not PLUGIN_NAME_PATTERN.match(name):
        raise ScaffoldError(
            f"{name!r} is not a plugin name: lower-case letters, digits and underscores, starting with a letter"
            " (it becomes the capability family, as in 'chores.add')"
        )
    if destination.exists() and (not destination.is_dir() or any(destination.iterdir())):
        raise ScaffoldError(f"{destination} already exists and is not an empty directory; choose another --directory")
    values = placeholders(name, steward_from)
    written = []
    for relative, template in _templates(files("steward") / "plugin_template", ()):
        target = destination.joinpath(*(_fill(part, values) for part in relative))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(_fill(template.read_text(encoding="utf-8"), values), encoding="utf-8")
        written.append(target)
    return sorted(written)


def _templates(folder: Traversable, at: tuple[str, ...]) -> list[tuple[tuple[str, ...], Traversable]]:
    found = []
    for entry in folder.iterdir():
        if entry.is_dir() and entry.name != "__pycache__":
            found += _templates(entry, (*at, DOTTED.get(entry.name, entry.name)))
        elif entry.name.endswith(TEMPLATE_SUFFIX):
            stem = entry.name.removesuffix(TEMPLATE_SUFFIX)
            found.append(((*at, DOTTED.get(stem, stem)), entry))
    return found


def _fill(text: str, values: dict[str, str]) -> str:
    for placeholder, value in values.items():
        text = text.replace(placeholder, value)
    return text
