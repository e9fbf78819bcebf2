"""Serve Steward and run schemathesis against it, inside a network namespace that has only loopback.

Run by test_openapi_contract.py under ``unshare --net --map-root-user``: whatever a fuzzed request
makes the server do (a Home Assistant URL it was given, a page to fetch), nothing leaves this
namespace. Conversations go to ``steward dev-model``, the scripted model, on loopback. Arguments:
the data directory, the time budget in seconds. Exit status: schemathesis's.
"""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent
BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(port: int, process: subprocess.Popen) -> bool:
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                return False
            time.sleep(0.1)


def main(data_dir: str, seconds: str) -> int:
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    port, model_port = free_port(), free_port()
    key = subprocess.run(
        [BIN / "steward", "--data-dir", data_dir, "keys", "add", "schemathesis", "--scope", "admin"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    model = subprocess.Popen(
        [BIN / "steward", "dev-model", "--port", str(model_port)], stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL
    )
    server = subprocess.Popen(
        [BIN / "steward", "serve", "--port", str(port), "--data-dir", data_dir, "--config", HERE / "steward.toml"],
        env={**os.environ, "STEWARD_MODEL__BASE_URL": f"http://127.0.0.1:{model_port}/v1"},
        stdout=subprocess.DEVNULL,
        stderr=open(Path(data_dir) / "server.log", "w"),  # noqa: SIM115 - the server's for its whole life
    )
    try:
        if not (wait_for(model_port, model) and wait_for(port, server)):
            print("the server or the scripted model did not start", file=sys.stderr)
            return 2
        options = ["-H", f"Authorization: Bearer {key}", "--checks", "all", "--max-time", seconds, "--workers", "2"]
        schema = f"http://127.0.0.1:{port}/openapi.json"
        config = ["--no-color", "--config-file", HERE / "schemathesis.toml"]
        # its working directory gets schemathesis's cache: the run's own data directory, not the checkout
        schemathesis = subprocess.run([BIN / "st", *config, "run", *options, schema], cwd=data_dir)
        return schemathesis.returncode
    finally:
        for process in (server, model):
            process.terminate()
            process.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
