"""What an image builder installs: our distributions by their own names, pinned dependencies.

"steward" on the registry is an unrelated project, so the core is "steward-host" and every
plugin asks for a compatible range of it; constraints.txt and requirements-lock.txt pin every
runtime dependency (the lock with hashes). The install test builds our wheels and installs a
plugin into a fresh virtual environment from a local wheelhouse only (make test downloads the
locked wheels, hash-checked, into .wheelhouse): no index, so nothing but what we ship can be
chosen, and a look-alike "steward" placed beside it is never picked.
"""

import base64
import contextlib
import hashlib
import importlib.metadata
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.markers import Marker, default_environment
from packaging.requirements import Requirement

ROOT = Path(__file__).parents[2]
DISTRIBUTIONS = [ROOT / "core", *sorted((ROOT / "plugins").iterdir())]
WHEELHOUSE = ROOT / ".wheelhouse"
LOCK = ROOT / "requirements-lock.txt"


def project(path: Path) -> dict:
    return tomllib.loads((path / "pyproject.toml").read_text())["project"]


def pins(path: Path) -> dict[str, str]:
    found = re.findall(r"^([A-Za-z0-9_.-]+)==([^ \\\n]+)", path.read_text(), re.MULTILINE)
    return {name.lower().replace("_", "-"): version for name, version in found}


def test_the_core_is_not_named_like_the_unrelated_project_and_plugins_ask_for_a_range_of_it():
    core = project(ROOT / "core")
    assert core["name"] == "steward-host"
    for path in [*DISTRIBUTIONS[1:], ROOT / "contrib" / "plugin-template"]:
        requirements = [Requirement(text) for text in project(path)["dependencies"]]
        assert "steward" not in {requirement.name for requirement in requirements}, path
        host = next(requirement for requirement in requirements if requirement.name == "steward-host")
        assert host.specifier, f"{path.name} must name a compatible range of steward-host"
        assert core["version"] in host.specifier


def test_every_runtime_dependency_is_pinned_in_both_files_alike():
    locked, constrained = pins(ROOT / "requirements-lock.txt"), pins(ROOT / "constraints.txt")
    assert locked == constrained
    ours = {project(path)["name"] for path in DISTRIBUTIONS}
    for path in DISTRIBUTIONS:
        for text in project(path)["dependencies"]:
            requirement = Requirement(text)
            if requirement.name in ours:
                continue
            name = requirement.name.lower().replace("_", "-")
            assert name in locked, f"{requirement.name} ({path.name}) is not pinned"
            assert locked[name] in requirement.specifier, f"{name}=={locked[name]} does not satisfy {requirement}"
    hashed = (ROOT / "requirements-lock.txt").read_text().replace("_", "-").lower()
    for name, version in locked.items():
        pin = re.compile(rf"^{re.escape(name)}=={re.escape(version)}( ; [^\\\n]+)? \\\n    --hash=sha256:", re.M)
        assert pin.search(hashed), f"{name} has no hash in requirements-lock.txt"


def locked_markers() -> dict[str, Marker | None]:
    """Each pin of the lock and the environments it is for (``None``: every one)."""
    found = re.findall(r"^([A-Za-z0-9_.-]+)==[^ \\\n]+(?: ; ([^\\\n]+?))? \\$", LOCK.read_text(), re.MULTILINE)
    return {name.lower().replace("_", "-"): Marker(marker) if marker else None for name, marker in found}


# the Pythons an image may be built on: Debian 12's (below redis's async-timeout line), 3.12, 3.13
IMAGE_PYTHONS = ["3.11.2", "3.11.9", "3.12.0", "3.13.0"]


@pytest.mark.parametrize("python", IMAGE_PYTHONS)
def test_the_lock_holds_every_dependency_an_image_python_needs(python):
    environment = {**default_environment(), "python_full_version": python, "python_version": python[:4], "extra": ""}
    environment["implementation_version"] = python
    locked = locked_markers()
    ours = {project(path)["name"] for path in DISTRIBUTIONS}
    needed = [Requirement(text) for path in DISTRIBUTIONS for text in project(path)["dependencies"]]
    seen = set(ours)
    while needed:
        requirement = needed.pop()
        name = requirement.name.lower().replace("_", "-")
        if name in seen or (requirement.marker and not requirement.marker.evaluate(environment)):
            continue
        seen.add(name)
        assert name in locked, f"Python {python} needs {requirement} and the lock has no {name}"
        marker = locked[name]
        assert marker is None or marker.evaluate(environment), f"the lock leaves {name} out on Python {python}"
        # a pin not installed on this Python (async-timeout on 3.11.7) has its own needs read by the image test
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            needed += [Requirement(text) for text in importlib.metadata.requires(name) or []]


def squatter_wheel(directory: Path) -> Path:
    """A look-alike "steward" 9.9.9 that would make itself known if it were ever installed."""
    path = directory / "steward-9.9.9-py3-none-any.whl"
    files = {
        "steward_squatter.py": b"raise SystemExit('the unrelated steward was installed')\n",
        "steward-9.9.9.dist-info/METADATA": b"Metadata-Version: 2.1\nName: steward\nVersion: 9.9.9\n",
        "steward-9.9.9.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    records = []
    with zipfile.ZipFile(path, "w") as wheel:
        for name, content in files.items():
            wheel.writestr(name, content)
            digest = base64.urlsafe_b64encode(hashlib.sha256(content).digest()).rstrip(b"=").decode()
            records.append(f"{name},sha256={digest},{len(content)}")
        records.append("steward-9.9.9.dist-info/RECORD,,")
        wheel.writestr("steward-9.9.9.dist-info/RECORD", "\n".join(records) + "\n")
    return path


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    wheels = tmp_path_factory.mktemp("wheels")
    for path in [ROOT / "core", ROOT / "plugins" / "system"]:
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", wheels, path],
            check=True,
            capture_output=True,
        )
    squatter_wheel(wheels)
    return wheels


@pytest.mark.requires("wheelhouse")
def test_a_plugin_wheel_in_a_fresh_venv_with_only_the_constraints_resolves_to_our_core(built, tmp_path):
    venv = tmp_path / "fresh"
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    python = venv / "bin" / "python"
    offline = ["--no-index", "--find-links", built, "--find-links", WHEELHOUSE, "-c", ROOT / "constraints.txt"]
    install = subprocess.run(
        [python, "-m", "pip", "install", *offline, "steward-system"],
        capture_output=True,
        text=True,
    )
    assert install.returncode == 0, install.stderr
    installed = subprocess.run([python, "-m", "pip", "list", "--format=freeze"], capture_output=True, text=True).stdout
    names = {line.split("==")[0].lower() for line in installed.splitlines()}
    assert {"steward-host", "steward-system"} <= names
    assert "steward" not in names, "the look-alike beside our wheels was never chosen"
    assert subprocess.run([python, "-m", "pip", "check"], capture_output=True).returncode == 0
    for line in installed.splitlines():
        name, version = line.split("==")
        if name.lower() in pins(ROOT / "constraints.txt"):
            assert pins(ROOT / "constraints.txt")[name.lower()] == version
    plugins = subprocess.run(
        [venv / "bin" / "steward", "plugins", "--data-dir", tmp_path / "data"], capture_output=True, text=True
    )
    assert plugins.returncode == 0, plugins.stderr
    assert plugins.stdout.startswith("system  (steward-system 0.1.0)")
