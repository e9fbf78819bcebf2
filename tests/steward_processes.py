"""Real ``steward`` processes, for the tests that meet Steward as an operator does."""

import os
import socket
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

STEWARD = Path(sys.executable).parent / "steward"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def operator_environment(**variables: str) -> dict[str, str]:
    """This process's environment without the developer's ``STEWARD_*`` settings, with ``variables`` on top."""
    kept = {name: value for name, value in os.environ.items() if not name.startswith("STEWARD_")}
    return {**kept, **variables}


def start_serve(port: int, env: Mapping[str, str], *arguments: str) -> tuple[subprocess.Popen, str]:
    """``steward serve --port PORT``, once uvicorn says it runs: the process, and what it printed until then.

    The caller terminates it; its later output stays readable on ``process.stdout``.
    """
    server = subprocess.Popen(
        [STEWARD, "serve", "--port", str(port), *arguments],
        env=dict(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    output = ""
    while "Uvicorn running" not in output:
        line = server.stdout.readline()
        assert line, f"steward serve exited:\n{output}"
        output += line
    return server, output
