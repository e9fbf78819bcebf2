"""``steward new-plugin``: a package that passes its own tests at once, and the one template."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from steward.cli import cli
from steward.scaffold import core_range
from steward.version import __version__

ROOT = Path(__file__).parents[2]
CONTRIB = ROOT / "contrib" / "plugin-template"


def files_under(root: Path) -> dict[str, str]:
    return {
        str(path.relative_to(root)): path.read_text()
        for path in sorted(root.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def test_contrib_template_is_the_output_for_example(tmp_path):
    result = CliRunner().invoke(cli, ["new-plugin", "example", "--directory", str(tmp_path / "example")])
    assert result.exit_code == 0, result.output
    assert files_under(tmp_path / "example") == files_under(CONTRIB), "regenerate: steward new-plugin example"


def test_a_generated_plugin_installs_and_passes_its_own_tests(tmp_path):
    result = CliRunner().invoke(cli, ["new-plugin", "laundry_room"])
    assert result.exit_code == 0, result.output
    package = tmp_path / "steward-laundry-room"
    assert set(files_under(package)) == {
        ".github/workflows/test.yml",
        ".gitignore",
        "README.md",
        "pyproject.toml",
        "src/steward_laundry_room/__init__.py",
        "src/steward_laundry_room/greet.py",
        "tests/test_laundry_room.py",
    }
    pyproject = (package / "pyproject.toml").read_text()
    assert f'dependencies = ["steward-host{core_range()}"]' in pyproject
    assert 'laundry_room = "steward_laundry_room"' in pyproject
    site = tmp_path / "site"
    install = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--target"]
    subprocess.run([*install, site, package], check=True, capture_output=True)
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=package,
        env={**os.environ, "PYTHONPATH": str(site)},
        capture_output=True,
        text=True,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "2 passed" in ran.stdout


@pytest.fixture(autouse=True)
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize("name", ["Chores", "2chores", "chores-list", "", "a" * 41])
def test_a_name_that_cannot_be_a_family_is_refused(name):
    result = CliRunner().invoke(cli, ["new-plugin", name])
    assert result.exit_code == 1
    assert "is not a plugin name: lower-case letters, digits and underscores" in result.output
    assert list(Path().iterdir()) == []


def test_an_existing_directory_is_never_overwritten(tmp_path):
    (tmp_path / "steward-chores").mkdir()
    (tmp_path / "steward-chores" / "notes.txt").write_text("mine")
    result = CliRunner().invoke(cli, ["new-plugin", "chores"])
    assert result.exit_code == 1
    assert "already exists and is not an empty directory" in result.output
    assert [path.name for path in (tmp_path / "steward-chores").iterdir()] == ["notes.txt"]


@pytest.mark.parametrize(
    ("version", "expected"), [("0.1.0", ">=0.1,<0.2"), ("0.12.3", ">=0.12,<0.13"), ("1.4.0", ">=1.4,<2")]
)
def test_the_core_range_keeps_to_the_series_the_plugin_was_written_for(version, expected):
    assert core_range(version) == expected


def test_the_generated_range_accepts_this_core():
    low, high = core_range().split(",")
    assert low == ">=" + ".".join(__version__.split(".")[:2])
    assert high.startswith("<")
