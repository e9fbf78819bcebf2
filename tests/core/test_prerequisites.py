"""The ``requires`` marker: a plain ``pytest`` skips what ``make install`` does not provide, saying
what is missing; under ``make test`` (``STEWARD_TEST_EVERYTHING=1``) the same test fails."""

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

CONFTEST = Path(__file__).parents[1] / "conftest.py"
NEEDS_WHEELHOUSE = """
import pytest

@pytest.mark.requires("wheelhouse")
def test_installs_from_the_wheelhouse():
    pass
"""


@pytest.fixture
def project_without_prerequisites(pytester: pytest.Pytester) -> pytest.Pytester:
    """The repository's conftest, in a directory with no .wheelhouse beside it."""
    (pytester.path / "tests").mkdir()
    (pytester.path / "tests" / "conftest.py").write_text(CONFTEST.read_text())
    (pytester.path / "tests" / "test_needs.py").write_text(NEEDS_WHEELHOUSE)
    return pytester


def test_plain_pytest_skips_and_says_what_is_missing(project_without_prerequisites, monkeypatch):
    monkeypatch.delenv("STEWARD_TEST_EVERYTHING", raising=False)
    result = project_without_prerequisites.runpytest_subprocess("-rs", "--strict-markers")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*needs the locked wheels in .wheelhouse: run `make test`, which provides it*"])


def test_make_test_fails_instead_of_skipping(project_without_prerequisites, monkeypatch):
    monkeypatch.setenv("STEWARD_TEST_EVERYTHING", "1")
    result = project_without_prerequisites.runpytest_subprocess("--strict-markers")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*the locked wheels in .wheelhouse is missing; `make test` should have provided it*"])


def test_the_makefile_runs_the_suite_with_everything_required():
    makefile = (Path(__file__).parents[2] / "Makefile").read_text()
    assert "STEWARD_TEST_EVERYTHING=1 $(BIN)/python -m pytest" in makefile
