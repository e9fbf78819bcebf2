"""The store plugins and the core write to: a key space with the few atomic operations shared state needs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol


class StateUnavailable(RuntimeError):
    """The shared store cannot be reached, or answers what no Redis would; whatever needs it is
    refused until it can. The message names no host, port or database: it reaches callers who
    may hold no key. Where and why is in the server log and a keyed ``/healthz``."""


class StateStore(Protocol):
    """A key space in the host's shared store: memory in one process, Redis across many.

    Every operation is atomic on its own. Values are bytes (encode with msgspec); a lifetime is
    in seconds, ``None`` for none. Raises :class:`StateUnavailable` when the store cannot be
    reached, which a handler lets propagate: the invocation then ends ``STATE_UNAVAILABLE``.
    """

    shared: bool
    """``True`` when other workers and hosts see the same store (Redis); ``False`` in one process."""

    async def get(self, key: str) -> bytes | None:
        """The value stored under ``key``, ``None`` when there is none (or it outlived its lifetime)."""
        ...

    async def set(
        self, key: str, value: bytes, *, ttl_seconds: float | None = None, only_if_absent: bool = False
    ) -> bool:
        """Store ``value``; with ``only_if_absent``, only when nothing is stored (``False`` if so)."""
        ...

    async def take(self, key: str) -> bytes | None:
        """Remove and return the value: of concurrent takers exactly one gets it."""
        ...

    async def delete(self, key: str) -> None:
        """Forget ``key`` (nothing happens when nothing is stored)."""
        ...

    async def increment(self, key: str, amount: int = 1, *, ttl_seconds: float | None = None) -> int:
        """Add ``amount`` (may be negative) and return the new value; ``ttl_seconds`` is set when the key is new."""
        ...

    async def spend(self, key: str, *, rate_per_second: float, burst: float, cost: float = 1) -> float:
        """Take ``cost`` from a token bucket; ``0`` when it was taken, else the seconds until it could be."""
        ...

    async def acquire(self, limits: Mapping[str, int], *, lease_seconds: float) -> Lease:
        """Hold one slot of each limit (``{"in-flight": 16, "in-flight:example.org": 4}``), all or none.

        The :class:`Lease` to :meth:`release`; when a limit is full, nothing is held and
        ``lease.full`` names it. A slot whose holder died without releasing it (a killed worker)
        frees itself when its lease runs out, so a crash never leaves a limit permanently full.
        """
        ...

    async def release(self, lease: Lease) -> None:
        """Give back the slots of ``lease`` (nothing happens for those that already ran out)."""
        ...

    async def cache_set(self, key: str, value: bytes, *, ttl_seconds: float, max_bytes: int) -> bool:
        """Keep ``value`` in the store's cache; past ``max_bytes`` in all, the least recently used go.

        ``False`` (nothing kept) when the value alone is larger than ``max_bytes``.
        """
        ...

    async def cache_get(self, key: str) -> bytes | None:
        """A value :meth:`cache_set` kept, if it is still there; reading it counts as a use."""
        ...


@dataclass(frozen=True)
class Lease:
    """Slots :meth:`StateStore.acquire` holds together: ``held`` is false when ``full`` had no room."""

    id: str
    limits: tuple[str, ...]
    full: str | None = None

    @property
    def held(self) -> bool:
        return self.full is None
