"""`steward chat` and `steward dev-model`, as real processes on a terminal and on loopback."""

import os
import pty
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

import steward
from steward._client import ClientSettingsError, load_client_settings
from steward.testing import Rule, ScriptedModel, serve_app, serve_host

BIN = Path(sys.executable).parent


def test_client_settings_come_from_a_private_file_or_the_environment(tmp_path):
    path = tmp_path / "steward" / "client.toml"
    path.parent.mkdir()
    path.write_text('url = "http://127.0.0.1:9"\nkey = "stw_file"\n')
    path.chmod(0o644)
    with pytest.raises(ClientSettingsError, match="chmod 600"):
        load_client_settings({"XDG_CONFIG_HOME": str(tmp_path)})
    path.chmod(0o600)
    assert load_client_settings({"XDG_CONFIG_HOME": str(tmp_path)}).key == "stw_file"
    overridden = load_client_settings({"XDG_CONFIG_HOME": str(tmp_path), "STEWARD_KEY": "stw_env"})
    assert (overridden.url, overridden.key) == ("http://127.0.0.1:9", "stw_env")
    with pytest.raises(ClientSettingsError, match="no key"):
        load_client_settings({"XDG_CONFIG_HOME": str(tmp_path / "none")})


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_dev_model_serves_scripted_tool_calls(tmp_path):
    port = free_port()
    process = subprocess.Popen([BIN / "steward", "dev-model", "--port", str(port)], stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                models = httpx.get(f"http://127.0.0.1:{port}/v1/models")
                break
            except httpx.ConnectError:
                assert time.monotonic() < deadline
                time.sleep(0.1)
        assert models.json()["data"][0]["id"] == "scripted"
        body = {"model": "x", "messages": [{"role": "user", "content": 'search the web for "tea in Kyoto"'}]}
        reply = httpx.post(f"http://127.0.0.1:{port}/v1/chat/completions", json=body).json()
        call = reply["choices"][0]["message"]["tool_calls"][0]["function"]
        assert (call["name"], call["arguments"]) == ("web-search", '{"query": "tea in Kyoto"}')
    finally:
        process.terminate()
        process.wait(timeout=10)


def read_until(descriptor: int, marker: bytes, seen: bytearray, seconds: float = 30) -> None:
    """Read the terminal until ``marker`` appears in what arrives from now on."""
    start = len(seen)
    deadline = time.monotonic() + seconds
    while marker not in seen[start:]:
        assert time.monotonic() < deadline, seen.decode(errors="replace")
        seen.extend(os.read(descriptor, 4096))


def test_chat_shows_the_exact_arguments_and_asks(sample, tmp_path):
    model = ScriptedModel(rules=[Rule(r'send "([^"]+)"', calls=[("sample.send", {"text": "{1}"})])])
    with serve_app(model.app()) as model_url:
        config = {"model": {"base_url": f"{model_url}/v1"}}
        with serve_host([steward.Plugin("sample", sample)], data_dir=tmp_path / "data", config=config) as server:
            server.set_policy("sample_enabled", True)
            environment = {
                "PATH": os.environ["PATH"],
                "HOME": str(tmp_path),
                "STEWARD_URL": server.base_url,
                "STEWARD_KEY": server.key(["conversation"]),
            }
            controller, terminal = pty.openpty()
            process = subprocess.Popen(
                [BIN / "steward", "chat"], env=environment, stdin=terminal, stdout=terminal, stderr=terminal
            )
            os.close(terminal)
            seen = bytearray()
            try:
                read_until(controller, b"you> ", seen)
                os.write(controller, b'please send "hello there"\n')
                read_until(controller, b"[y/N]", seen)
                assert b'"text": "hello there"' in seen
                assert b"Allow sample.send (version 1) to run? It reads only and leaves this device." in seen
                assert b"It would run once with exactly these arguments:" in seen
                assert sample.runs == {}
                os.write(controller, b"y\n")
                read_until(controller, b"you> ", seen)
                assert b"sent hello there" in seen
                assert b"[sample.send: ok, left this device]" in seen
                assert b"httpx" not in seen
                assert sample.runs == {"send": 1}
                os.write(controller, b"\x04")
                process.wait(timeout=10)
            finally:
                process.kill()
                os.close(controller)
    assert process.returncode == 0
