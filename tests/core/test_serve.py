"""``steward serve`` and the data directory as an operator meets them: real processes, real files."""

import http.client
import os
import socket
import subprocess
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from steward_processes import STEWARD, free_port, operator_environment, start_serve

from steward._auth import KeyStore
from steward._cli import cli
from steward._files import write_atomic


def environment(data_dir: Path) -> dict[str, str]:
    return operator_environment(STEWARD_DATA_DIR=str(data_dir), STEWARD_PLUGINS="system")


def start_server(data_dir: Path) -> subprocess.Popen:
    server, output = start_serve(free_port(), environment(data_dir))
    server.startup_output = output
    return server


def test_serve_says_where_it_serves_and_that_it_stays_in_the_foreground(tmp_path):
    server = start_server(tmp_path / "data")
    server.terminate()
    output = server.startup_output + server.communicate(timeout=30)[0]
    lines = [line for line in output.splitlines() if line.startswith("Steward serves http://127.0.0.1:")]
    assert len(lines) == 1
    assert lines[0].endswith(f"from {tmp_path / 'data'}, in the foreground: Ctrl-C stops it.")
    assert "(lost? `steward keys add NAME --scope admin` on this machine makes another)" in output


def test_a_second_server_on_the_same_data_directory_is_refused(tmp_path):
    first = start_server(tmp_path / "data")
    try:
        second = subprocess.run(
            [STEWARD, "serve", "--port", str(free_port())],
            env=environment(tmp_path / "data"),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert second.returncode == 1
        assert "another Steward server already serves the data directory" in second.stderr
        assert f"pid {first.pid}" in second.stderr
    finally:
        first.terminate()
        first.wait(timeout=30)
    again = start_server(tmp_path / "data")
    again.terminate()
    again.wait(timeout=30)


def test_orphaned_temporary_files_are_removed_at_start(tmp_path):
    data_dir = tmp_path / "data"
    orphan = data_dir / "secrets" / "home-assistant" / ".access-token.abc123.tmp"
    orphan.parent.mkdir(parents=True)
    orphan.write_text("a token a killed writer left behind")
    old = time.time() - 3600
    os.utime(orphan, (old, old))
    young = data_dir / ".keys.toml.def456.tmp"
    young.write_text("a write still in progress")
    server = start_server(data_dir)
    server.terminate()
    output = server.communicate(timeout=30)[0]
    assert not orphan.exists()
    assert young.exists(), "a temporary file younger than a minute may belong to a write in progress"
    assert "a token" not in output


def test_a_data_directory_that_is_a_file_is_one_clear_line(tmp_path):
    not_a_directory = tmp_path / "data"
    not_a_directory.write_text("oops")
    result = CliRunner().invoke(cli, ["--data-dir", str(not_a_directory / "inner"), "policy", "get"])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert result.output.startswith("Error: the data directory")
    assert result.output.count("\n") == 1


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can create files for another user")
def test_files_written_by_root_belong_to_the_owner_of_the_data_directory(tmp_path, monkeypatch):
    service_user = 4242
    data_dir = tmp_path / "data"
    data_dir.mkdir(mode=0o700)
    os.chown(data_dir, service_user, service_user)
    monkeypatch.setenv("STEWARD_PLUGINS", "system")
    runner = CliRunner()
    assert runner.invoke(cli, ["--data-dir", str(data_dir), "keys", "add", "fleet", "--scope", "invoke"]).exit_code == 0
    keys = data_dir / "keys.toml"
    assert (keys.stat().st_uid, keys.stat().st_gid) == (service_user, service_user)
    assert keys.stat().st_mode & 0o777 == 0o600
    KeyStore.in_file(keys).revoke("fleet")
    assert keys.stat().st_uid == service_user
    secret = data_dir / "secrets" / "plugin" / "token"
    write_atomic(secret, b"x")
    for path in (secret, secret.parent, secret.parent.parent):
        assert path.stat().st_uid == service_user, path
    assert runner.invoke(cli, ["--data-dir", str(data_dir), "policy", "get"]).exit_code == 0
    audit = data_dir / "capabilities" / "audit.jsonl"
    for path in (audit, audit.parent):
        assert path.stat().st_uid == service_user, "a root command's host leaves an audit log the service can open"


def test_a_connection_that_never_finishes_its_headers_is_closed(tmp_path):
    port = free_port()
    env = {**environment(tmp_path / "data"), "STEWARD_SERVER__HEADER_TIMEOUT_SECONDS": "1"}
    server, _ = start_serve(port, env)
    try:
        stalled = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]
        for connection in stalled:
            connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            connection.settimeout(10)
        assert all(connection.recv(1024) == b"" for connection in stalled), "each stalled connection was closed"
        kept = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        kept.request("GET", "/healthz")
        assert kept.getresponse().read()
        first = kept.sock
        time.sleep(1.5)
        kept.request("GET", "/healthz")
        assert kept.getresponse().status == 200
        assert kept.sock is first, "an idle keep-alive connection outlives the header deadline"
        kept.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
