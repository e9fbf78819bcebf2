"""What a handler receives besides its arguments."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import msgspec

from steward.health import HealthReport
from steward.isolation import IsolatedWorkers


class InvocationContext(msgspec.Struct, frozen=True):
    """Everything a handler may use; it never needs the host's private parts.

    ``settings`` is the plugin's decoded ``[plugins.<name>]`` struct (or ``None``);
    ``http_client()`` makes a client with Steward's defaults (see :func:`steward.http_client`);
    ``health()`` builds the host's health report, for capabilities that describe the host;
    ``isolated.run(...)`` runs CPU-heavy work on untrusted input (parsing, a caller's program) in
    a worker process that is killed at the invocation's deadline (see :class:`IsolatedWorkers`).
    A frozen struct, not a dataclass: one is made for every invocation, in a sixth of the time.
    """

    capability: str
    caller: str
    surface: str
    settings: Any
    data_dir: Path
    logger: logging.Logger
    http_client: Callable[..., httpx.AsyncClient]
    health: Callable[[], Awaitable[HealthReport]]
    isolated: IsolatedWorkers
