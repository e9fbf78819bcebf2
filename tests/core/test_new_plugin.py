"""``steward new-plugin``: a package that passes its own tests at once, and the one template."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from steward._cli import cli
from steward._scaffold import core_range
from steward._version import __version__

ROOT = Path(__file__).parents[2]
CONTRIB = ROOT / "contrib" / "plugin-template"


def files_under(root: Path) -> dict[str, str]:
    return {
        str(path.relative_to(root)): path.read_text()
        for path in sorted(root.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def test_contrib_template_is_the_output_for_example(tmp_path):
    result = CliRunner().invoke(
        cli, ["new-plugin", "example", "--directory", str(tmp_path / "example"), "--steward-from", "index"]
    )
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
        "steward-source.txt",
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


@pytest.mark.requires("wheelhouse")
def test_the_generated_ci_steps_pass_in_a_fresh_venv_with_only_a_wheel_of_this_checkout(tmp_path):
    """What a plugin author outside Steward's own venv gets: a wheel handed over, a fresh venv, the CI's steps."""
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", dist, ROOT / "core"],
        check=True,
        capture_output=True,
    )
    (wheel,) = dist.glob("steward_host-*.whl")
    result = CliRunner().invoke(cli, ["new-plugin", "chores", "--steward-from", str(wheel)])
    assert result.exit_code == 0, result.output
    package = tmp_path / "steward-chores"
    assert (package / "steward-source.txt").read_text().splitlines()[-1] == f"steward-host @ {wheel.as_uri()}"
    venv = tmp_path / "fresh"
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    environment = {
        "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(tmp_path),
        "PIP_FIND_LINKS": str(ROOT / ".wheelhouse"),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    workflow = (package / ".github" / "workflows" / "test.yml").read_text()
    steps = [line.split("- run:", 1)[1].strip() for line in workflow.splitlines() if "- run:" in line]
    assert steps == ["pip install -r steward-source.txt -e '.[test]'", "pytest"]
    for step in steps:
        ran = subprocess.run(step, shell=True, cwd=package, env=environment, capture_output=True, text=True)
        assert ran.returncode == 0, f"{step}\n{ran.stdout[-3000:]}\n{ran.stderr[-3000:]}"
    assert "2 passed" in ran.stdout
    shown = subprocess.run([venv / "bin" / "steward", "capabilities"], env=environment, capture_output=True, text=True)
    assert "chores.greet" in shown.stdout


def test_new_plugin_names_where_steward_comes_from(tmp_path):
    checkout = CliRunner().invoke(cli, ["new-plugin", "a", "--steward-from", str(ROOT / "core")])
    assert checkout.exit_code == 0, checkout.output
    assert (
        (tmp_path / "steward-a" / "steward-source.txt")
        .read_text()
        .endswith(f"steward-host @ {(ROOT / 'core').as_uri()}\n")
    )
    url = "git+https://git.example/steward.git@v0.1.0#subdirectory=core"
    assert CliRunner().invoke(cli, ["new-plugin", "b", "--steward-from", url]).exit_code == 0
    assert (tmp_path / "steward-b" / "steward-source.txt").read_text().endswith(f"steward-host @ {url}\n")
    detected = CliRunner().invoke(cli, ["new-plugin", "c"])
    assert "steward-host comes from: steward-host @ file://" in detected.output, "this checkout's editable install"
    missing = CliRunner().invoke(cli, ["new-plugin", "d", "--steward-from", str(tmp_path / "nowhere.whl")])
    assert missing.exit_code == 1
    assert "no such file" in missing.output
