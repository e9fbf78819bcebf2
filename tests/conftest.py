"""Shared fixtures, and the ``requires`` marker for tests that need more than ``make install``.

A plain ``pytest`` after ``make install`` skips such a test, saying what it needs; ``make test``
provides all of it and sets ``STEWARD_TEST_EVERYTHING=1``, under which a missing one fails instead,
so CI can never pass by skipping.
"""

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]

STAMPS = {
    "wheelhouse": (ROOT / ".wheelhouse" / ".downloaded", "the locked wheels in .wheelhouse"),
    "hermes": (ROOT / ".venv-hermes" / ".installed", "hermes-agent's virtual environment .venv-hermes"),
    "mcp1": (ROOT / ".venv-mcp1" / ".installed", "the MCP SDK 1.x virtual environment .venv-mcp1"),
    "axe-core": (ROOT / "tests" / "console" / "axe" / "node_modules" / ".installed", "axe-core in tests/console/axe"),
    "node-clients": (
        ROOT / "tests" / "websearch" / "clients" / "node_modules" / ".installed",
        "Firecrawl's JavaScript clients in tests/websearch/clients/node_modules",
    ),
}


OTHER_PREREQUISITES = ("network-namespace", "chromium", "llama-server", "appliance-image")


@functools.cache
def llama_server() -> Path | None:
    """The cached llama-server binary (its model beside it), or ``None`` when not built yet."""
    sys.path.insert(0, str(ROOT / "tests" / "model"))
    from llama import built_binary

    return built_binary()


@functools.cache
def network_namespace_works() -> bool:
    try:
        probe = subprocess.run(["unshare", "--net", "--map-root-user", "true"], capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0


def missing(prerequisite: str) -> str | None:
    """What is missing for ``prerequisite``, or ``None`` when it is there."""
    if prerequisite == "chromium":
        return None if shutil.which("chromium") else "Debian's chromium (`make test` installs it when run as root)"
    if prerequisite == "llama-server":
        return None if llama_server() else "llama-server and its model (`make test` builds them once, ~10 minutes)"
    if prerequisite == "appliance-image":
        tools = ("mmdebstrap", "systemd-nspawn", "nsenter")
        if os.geteuid() != 0 or not all(map(shutil.which, tools)):
            return "root with mmdebstrap and systemd-nspawn (`make test` installs them when run as root)"
        return None
    if prerequisite == "network-namespace":
        return None if network_namespace_works() else "`unshare --net --map-root-user` (util-linux, user namespaces)"
    stamp, description = STAMPS[prerequisite]
    return None if stamp.exists() else description


def pytest_configure(config: pytest.Config) -> None:
    names = ", ".join([*STAMPS, *OTHER_PREREQUISITES])
    config.addinivalue_line("markers", f"requires(name): the test needs one of {names}, which `make test` provides")


def pytest_runtest_setup(item: pytest.Item) -> None:
    for marker in item.iter_markers("requires"):
        (prerequisite,) = marker.args
        if prerequisite not in STAMPS and prerequisite not in OTHER_PREREQUISITES:
            raise ValueError(f"unknown prerequisite {prerequisite!r}")
        absent = missing(prerequisite)
        if absent is None:
            continue
        if os.environ.get("STEWARD_TEST_EVERYTHING") == "1":
            pytest.fail(f"{absent} is missing; `make test` should have provided it")
        pytest.skip(f"needs {absent}: run `make test`, which provides it")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def redis_server():
    """One real redis-server on 127.0.0.1 for the whole run; a test that needs it fails if it cannot start."""
    from steward.testing import RedisServer

    with RedisServer() as server:
        yield server


@pytest.fixture(scope="session")
def llama_binary() -> Path:
    """The cached llama-server (tests using it are marked ``requires("llama-server")``)."""
    binary = llama_server()
    if binary is None:
        pytest.fail("llama-server is not built; `make test` builds it (tests/model/build-llama-server.sh)")
    return binary


@pytest.fixture
def redis_url(redis_server) -> str:
    """The server's URL, emptied first, so every test starts from nothing."""
    redis_server.flush()
    return redis_server.url
