"""Shared state: what several workers and hosts must agree on.

The single-process default keeps it in memory (:mod:`steward._state.memory`); it needs nothing.
With ``[state] backend = "redis"`` it lives in one Redis that every worker and host uses
(:mod:`steward._state.redis`), so a token issued by one is answered on another, a key revoked on
one is refused by all, and single use is one atomic step in Redis, not a lock in a process.

A backend offers these, and the core writes everything else once against them:

- :class:`StateStore`, a key space with the few operations shared state needs to be safe
  (values with a lifetime, take-once, counters, a token bucket, leased slots, a byte-bounded
  cache). Plugins reach theirs as ``context.state``; the core keeps MCP sessions, kept answers
  and the like in its own.
- :class:`Shelf`, items waiting for a person's answer and taken at most once: pending
  confirmations (:mod:`steward._confirmation`) and paused conversation turns.
- a :class:`~steward._state.keys.KeyTable` and a :class:`~steward._state.flags.FlagTable`, where
  the API keys and the policy flags are kept: files in the data directory on the memory backend
  (SPEC's formats, which a person can read and repair), the same Redis on the Redis one.

Everything that needs the shared store fails closed when it cannot be reached:
:class:`StateUnavailable`, answered ``503 STATE_UNAVAILABLE``, never a guess from a stale copy.

A third backend (SQLite, for several workers on one machine without Redis) would be one more
module here: a :class:`Backend` whose store, shelf and tables pass the tests that both backends
share (``tests/core/test_shared_state.py`` runs every one against each), each operation one
transaction.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from steward._state.flags import FlagLocation, FlagTable
from steward._state.keys import KeyTable
from steward._state.memory import Clock, MemoryBackend, MemoryShelf, MemoryStore, Namespaced
from steward._state.redis import RedisShelf, RedisState, RedisStore, connect, redact
from steward._state.shelf import Shelf, ShelfFull, ShelfLimits, Shelved
from steward._state.store import Lease, StateStore, StateUnavailable

if TYPE_CHECKING:
    from steward._config import StateConfig


class Backend(Protocol):
    """Where a host keeps what it shares: :class:`MemoryBackend` or :class:`RedisState`."""

    problem: str | None
    """What is wrong with the store now (``/healthz`` shows it), ``None`` while it works."""

    def store(self, namespace: str) -> StateStore: ...

    def shelf(self, name: str, limits: ShelfLimits) -> Shelf: ...

    def key_table(self, data_dir: Path) -> KeyTable: ...

    def flag_table(self, directory: Path, locations: Mapping[str, FlagLocation]) -> FlagTable: ...

    async def aclose(self) -> None: ...


def open_backend(config: StateConfig, clock: Clock = time.monotonic) -> Backend:
    """The backend ``config`` names, reached now (:class:`StateUnavailable` when Redis is not)."""
    return connect(config) or MemoryBackend(clock)


__all__ = [
    "Backend",
    "Clock",
    "Lease",
    "MemoryBackend",
    "MemoryShelf",
    "MemoryStore",
    "Namespaced",
    "RedisShelf",
    "RedisState",
    "RedisStore",
    "Shelf",
    "ShelfFull",
    "ShelfLimits",
    "Shelved",
    "StateStore",
    "StateUnavailable",
    "connect",
    "open_backend",
    "redact",
]
