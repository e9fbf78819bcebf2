"""Steward's appliance image, built with ``make image`` and booted under a real systemd.

The container runs with ``systemd-nspawn --boot --private-network``: its own loopback, nothing
else. The tests look in from outside through its namespaces with ``nsenter``: a command in all of
them runs inside the image, and this interpreter in its network namespace alone is an HTTP client
on the container's 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).parents[2]
PORT = 8092
# booted as docs/operations.md says, on its own loopback; this machine's PID 1 is not systemd
NSPAWN = ["systemd-nspawn", "--quiet", "--register=no", "--keep-unit", "--private-network", "--console=read-only"]
CLEAN_PATH = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

_HTTP_CLIENT = """
import json, sys, urllib.error, urllib.request
method, url, key, body = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
request = urllib.request.Request(url, method=method, data=body.encode() or None)
request.add_header("Content-Type", "application/json")
if key:
    request.add_header("Authorization", "Bearer " + key)
try:
    with urllib.request.urlopen(request, timeout=60) as response:
        status, text = response.status, response.read().decode()
except urllib.error.HTTPError as error:
    status, text = error.code, error.read().decode()
print(json.dumps({"status": status, "body": text}))
"""


def build(image: Path, plugins: list[str], base: Path) -> None:
    """``make image``, as a builder runs it; ``base`` keeps the Debian step for the next image."""
    environment = {**os.environ, "STEWARD_IMAGE_BASE": str(base)}
    subprocess.run(
        [
            "make",
            "--no-print-directory",
            "image",
            f"IMAGE={image}",
            f"PLUGINS={' '.join(plugins)}",
            f"PYTHON={sys.executable}",
        ],
        cwd=ROOT,
        env=environment,
        check=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=900,
    )


class Response:
    def __init__(self, status: int, text: str) -> None:
        self.status_code = status
        self.text = text

    def json(self):
        return json.loads(self.text)


class Container:
    """One boot of an image directory; ``start`` it, ``poweroff`` it, ``start`` it again."""

    def __init__(self, root: Path, name: str, console_log: Path) -> None:
        self.root = root
        self.name = name
        self.console_log = console_log
        self.nspawn: subprocess.Popen | None = None
        self.leader = 0

    def start(self, timeout: float = 120) -> None:
        with self.console_log.open("ab") as log:
            self.nspawn = subprocess.Popen(
                [*NSPAWN, "-D", str(self.root), f"--machine={self.name}", "--boot"],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + timeout
        while not self.leader:
            self._fail_if_gone()
            children = Path(f"/proc/{self.nspawn.pid}/task/{self.nspawn.pid}/children")
            pids = children.read_text().split() if children.exists() else []
            if pids and Path(f"/proc/{pids[0]}/comm").read_text().strip() == "systemd":
                self.leader = int(pids[0])
            elif time.monotonic() > deadline:
                raise TimeoutError("systemd-nspawn started no init")
            else:
                time.sleep(0.1)
        state = ""
        while state not in ("running", "degraded"):
            # "offline" until systemd listens; then --wait returns once start-up is over
            state = self.run("systemctl", "is-system-running", "--wait", timeout=timeout, check=False).stdout.strip()
            if time.monotonic() > deadline:
                raise TimeoutError(f"the container's systemd is {state}")
            time.sleep(0.1)
        self.wait_until_serving(deadline - time.monotonic())

    def wait_until_serving(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while self.get("/healthz").status_code != 200:
            if time.monotonic() > deadline:
                raise TimeoutError(f"Steward did not answer on 127.0.0.1:{PORT}")
            time.sleep(0.2)

    def _fail_if_gone(self) -> None:
        assert self.nspawn is not None
        if self.nspawn.poll() is not None:
            raise RuntimeError(
                f"systemd-nspawn exited {self.nspawn.returncode}: {self.console_log.read_text()[-2000:]}"
            )

    def run(self, *command: str, input: str | None = None, check: bool = True, timeout: float = 60):
        """``command`` inside the container (all its namespaces), with a clean environment."""
        return subprocess.run(
            ["nsenter", "-t", str(self.leader), "-a", "--", "env", "-i", CLEAN_PATH, *command],
            input=input,
            capture_output=True,
            text=True,
            check=check,
            timeout=timeout,
        )

    def in_network(self, *command: str, **popen) -> subprocess.Popen:
        """A host program in the container's network namespace only (its loopback, our files)."""
        return subprocess.Popen(["nsenter", "-t", str(self.leader), "-n", "--", *command], **popen)

    def request(self, method: str, path: str, key: str = "", json_body: object = None) -> Response:
        body = "" if json_body is None else json.dumps(json_body)
        url = f"http://127.0.0.1:{PORT}{path}"
        done = subprocess.run(
            ["nsenter", "-t", str(self.leader), "-n", "--", sys.executable, "-c", _HTTP_CLIENT, method, url, key, body],
            capture_output=True,
            text=True,
            timeout=90,
        )
        if done.returncode:
            return Response(0, done.stderr)
        answer = json.loads(done.stdout)
        return Response(answer["status"], answer["body"])

    def get(self, path: str, key: str = "") -> Response:
        return self.request("GET", path, key)

    def post(self, path: str, key: str, json_body: object) -> Response:
        return self.request("POST", path, key, json_body)

    def poweroff(self, timeout: float = 60) -> None:
        if self.nspawn is None or self.nspawn.poll() is not None:
            return
        self.run("systemctl", "poweroff", "--no-block", check=False)
        try:
            self.nspawn.wait(timeout)
        except subprocess.TimeoutExpired:
            self.nspawn.kill()
            self.nspawn.wait()
        self.leader = 0
