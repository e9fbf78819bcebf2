"""The HTTP server ``steward serve`` runs: uvicorn, with a deadline for a request's headers.

uvicorn waits forever for the rest of a request's headers, so a client that sends half a request
line and stops (a slowloris) holds a connection, and thousands of them hold the server. Here a
connection that has not sent a complete request head within ``header_timeout_seconds`` of
connecting, or of starting its next request, is closed. Bodies are already bounded by
``server.max_body_bytes``; idle keep-alive connections by uvicorn's own ``timeout_keep_alive``.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import os
from pathlib import Path
from typing import Any

import uvicorn

from steward._config import ServerConfig


class _HeaderDeadline:
    """Mixed into uvicorn's protocol classes; ``cycle`` is the request being answered, if any."""

    header_timeout: float = 10.0
    _header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)  # type: ignore[misc]
        self._arm_header_deadline()

    def data_received(self, data: bytes) -> None:
        if self._header_timer is None and not self._answering():
            self._arm_header_deadline()
        super().data_received(data)  # type: ignore[misc]
        if self._answering():
            self._disarm_header_deadline()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_header_deadline()
        super().connection_lost(exc)  # type: ignore[misc]

    def _answering(self) -> bool:
        cycle = getattr(self, "cycle", None)
        return cycle is not None and not cycle.response_complete

    def _arm_header_deadline(self) -> None:
        loop: asyncio.AbstractEventLoop = self.loop  # type: ignore[attr-defined]
        self._header_timer = loop.call_later(self.header_timeout, self._header_deadline_passed)

    def _disarm_header_deadline(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _header_deadline_passed(self) -> None:
        self._header_timer = None
        transport = self.transport  # type: ignore[attr-defined]
        if not self._answering() and not transport.is_closing():
            transport.close()


def _protocol_class(header_timeout: float) -> type:
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as Base
    except ImportError:  # httptools is a dependency, but uvicorn runs without it
        from uvicorn.protocols.http.h11_impl import H11Protocol as Base  # type: ignore[assignment]
    return type("StewardHttpProtocol", (_HeaderDeadline, Base), {"header_timeout": header_timeout})


class StewardHttpProtocol(_protocol_class(10.0)):  # type: ignore[misc]
    """The protocol of worker processes, importable by name (uvicorn's workers are spawned, not forked)."""


WORKER_ENVIRONMENT = "STEWARD_WORKER_OPTIONS"


def run_workers(settings: ServerConfig, *, config_path: Path | None, data_dir: Path, strict: bool) -> None:
    """Serve with ``settings.workers`` processes sharing one socket, each building its own host.

    The workers are spawned, so each loads the configuration again, from the same file and
    data directory this process was given (passed down in the environment), and all of them
    reach the same shared state store.
    """
    options = {"config": str(config_path) if config_path else None, "data_dir": str(data_dir), "strict": strict}
    os.environ[WORKER_ENVIRONMENT] = json.dumps(options)
    uvicorn.run(
        "steward._http_server:worker_app",
        factory=True,
        workers=settings.workers,
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level,
        http="steward._http_server:StewardHttpProtocol",
        timeout_keep_alive=5,
    )


def worker_app() -> Any:
    """The app of one worker process: a host of its own, on the shared state store."""
    from steward._app import create_app
    from steward._config import load_config
    from steward._host import Host

    options = json.loads(os.environ[WORKER_ENVIRONMENT])
    config = load_config(
        Path(options["config"]) if options["config"] else None,
        data_dir=Path(options["data_dir"]),
        overrides={"plugins": {"strict": True}} if options["strict"] else None,
    )
    StewardHttpProtocol.header_timeout = config.server.header_timeout_seconds
    host = Host(config)
    atexit.register(host.close)
    return create_app(host)


def run(app: Any, settings: ServerConfig) -> None:
    """Serve ``app`` until a signal stops it."""
    uvicorn.run(
        app,
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level,
        http=_protocol_class(settings.header_timeout_seconds),
        timeout_keep_alive=5,
    )
