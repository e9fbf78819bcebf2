"""The contrib plugin template, installed with pip, is found at the next start with no other change."""

import os
import pty
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from steward.testing import serve_app

ROOT = Path(__file__).parents[2]
BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("site")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--target",
            str(target),
            str(ROOT / "contrib" / "plugin-template"),
        ],
        check=True,
        capture_output=True,
    )
    return target


@pytest.fixture
def quote_service():
    seen = []

    async def quote(request):
        seen.append(request.query_params["topic"])
        return PlainTextResponse("Tea is liquid wisdom.")

    with serve_app(Starlette(routes=[Route("/quote", quote)])) as base_url:
        yield f"{base_url}/quote", seen


def environment(installed: Path, data_dir: Path, quote_url: str) -> dict[str, str]:
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(data_dir),
        "PYTHONPATH": str(installed),
        "STEWARD_DATA_DIR": str(data_dir),
        "STEWARD_PLUGINS": "example,system",
        "STEWARD_PLUGINS__EXAMPLE__QUOTE_URL": quote_url,
    }


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_installed_template_is_discovered_and_confirmation_runs_once(installed, quote_service, tmp_path):
    quote_url, seen = quote_service
    port = free_port()
    server = subprocess.Popen(
        [BIN / "steward", "serve", "--port", str(port)],
        env=environment(installed, tmp_path, quote_url),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        output = ""
        while "Uvicorn running" not in output:
            line = server.stdout.readline()
            assert line, f"server exited:\n{output}"
            output += line
        key_file = tmp_path / "first-admin-key"
        assert str(key_file) in output, "without a terminal, the log says where the first key is"
        assert not re.search(r"stw_[A-Za-z0-9_-]{43}", output), "and the key itself never reaches the log"
        assert oct(key_file.stat().st_mode & 0o777) == "0o600"
        key = key_file.read_text().strip()
        client = httpx.Client(base_url=f"http://127.0.0.1:{port}", headers={"Authorization": f"Bearer {key}"})
        plugins = client.get("/api/v1/plugins").json()["plugins"]
        example = next(plugin for plugin in plugins if plugin["name"] == "example")
        assert (example["distribution"], example["version"]) == ("steward-example", "0.1.0")
        assert example["capabilities"] == ["example.greet", "example.quote"]
        assert client.post("/api/v1/conversation/policy", json={"example_quotes_enabled": True}).status_code == 200
        pending = client.post("/api/v1/capabilities/example.quote/invoke", json={"arguments": {"topic": "tea"}})
        assert pending.status_code == 202
        answer = {"confirmation": {"token": pending.json()["pending_confirmation"]["token"], "approve": True}}
        ran = client.post("/api/v1/capabilities/example.quote/invoke", json=answer)
        assert (ran.status_code, ran.json()["result"]["quote"]) == (200, "Tea is liquid wisdom.")
        again = client.post("/api/v1/capabilities/example.quote/invoke", json=answer)
        assert again.status_code == 400
        assert seen == ["tea"]
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert key not in (tmp_path / "keys.toml").read_text()


def test_cli_asks_on_a_terminal_and_policy_set_works(installed, quote_service, tmp_path):
    quote_url, seen = quote_service
    env = environment(installed, tmp_path, quote_url)
    subprocess.run(
        [BIN / "steward", "policy", "set", "example_quotes_enabled", "true"], env=env, check=True, capture_output=True
    )
    listed = subprocess.run([BIN / "steward", "policy", "get"], env=env, check=True, capture_output=True, text=True)
    assert listed.stdout == "example_quotes_enabled = true\n"

    def converse(answer: str) -> str:
        controller, terminal = pty.openpty()
        process = subprocess.Popen(
            [BIN / "steward", "invoke", "--local", "example.quote", "--json", '{"topic": "tea"}'],
            env=env,
            stdin=terminal,
            stdout=subprocess.PIPE,
            stderr=terminal,
            text=True,
        )
        os.close(terminal)
        transcript = b""
        deadline = time.monotonic() + 30
        while b"[y/N]" not in transcript and time.monotonic() < deadline:
            transcript += os.read(controller, 4096)
        os.write(controller, answer.encode() + b"\n")
        stdout, _ = process.communicate(timeout=30)
        os.close(controller)
        assert b'"topic": "tea"' in transcript
        return stdout

    assert '"status": "denied"' in converse("n")
    assert seen == []
    assert '"quote": "Tea is liquid wisdom."' in converse("y")
    assert seen == ["tea"]
