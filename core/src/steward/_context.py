"""What a handler receives besides its arguments."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import msgspec

from steward._health import HealthReport
from steward._isolation import IsolatedShare
from steward._resources import Resources
from steward._state import StateStore


class InvocationContext(msgspec.Struct, frozen=True):
    """Everything a handler may use; it never needs the host's private parts.

    ``settings`` is the plugin's decoded ``[plugins.<name>]`` struct (or ``None``);
    ``http_client()`` makes a client with Steward's defaults (see :func:`steward.http_client`);
    ``health()`` builds the host's health report, for capabilities that describe the host;
    ``isolated.run(...)`` runs CPU-heavy work on untrusted input (parsing, a caller's program) in
    a worker process that is killed at the invocation's deadline, within this caller's share of
    the workers (see :class:`IsolatedWorkers`);
    ``state`` keeps what every worker and host must agree on (rate buckets, take-once values);
    ``resources`` holds what the plugin makes once per host and the host closes.
    A frozen struct, not a dataclass: one is made for every invocation, in a sixth of the time.
    """

    capability: str
    """The name being invoked (one handler may serve several)."""
    caller: str
    """Who is asking: a key's name, or ``cli:<user>`` on the command line; it is what the audit log records."""
    surface: str
    """``conversation``, ``invoke``, ``service``, ``cli`` or ``mcp``: the surface that asked (never ``console``)."""
    settings: Any
    """The plugin's decoded ``[plugins.<name>]`` struct, or ``None``."""
    data_dir: Path
    """The host's data directory; a plugin keeps its files under ``capabilities/`` or its own sub-directory."""
    logger: logging.Logger
    """``steward.plugins.<name>``: log here, never page content or secrets."""
    http_client: Callable[..., httpx.AsyncClient]
    """Makes an ``httpx.AsyncClient`` with Steward's timeouts and user agent (see :func:`steward.http_client`)."""
    health: Callable[[], Awaitable[HealthReport]]
    """Builds the host's :class:`HealthReport` (for capabilities that describe the host)."""
    isolated: IsolatedShare
    """Runs CPU-heavy work on untrusted input in a worker process killed at the deadline."""
    state: StateStore
    """The host's shared store, in this plugin's own key space: this process on the memory backend,
    every worker and host on Redis (see :class:`steward.StateStore`)."""
    resources: Resources
    """The plugin's long-lived objects on this host (connection pools, open files): made on first use
    with ``resources.get(name, make)``, closed when the host stops."""
