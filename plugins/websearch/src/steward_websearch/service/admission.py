"""Who may start a service request now: concurrency caps and per-key rate limits.

A request over a limit is refused at once with how long to wait (429 + ``Retry-After``), never
queued: an agent fleet retries better than a queue it cannot see. The counts live in the host's
:class:`steward.StateStore`, so on the redis backend the limits hold for the whole fleet of
workers and hosts, not for each process's share. A slot is a lease: a worker killed mid-request
frees it when the lease (the longest a service request may take) runs out.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import AsyncIterator

import steward
from steward_websearch.settings import ServiceSettings

LEASE_SECONDS = 130.0
"""Longer than any service request may run (web.fetch's bound is 120 s)."""


class Busy(Exception):
    """A refused admission; ``retry_after`` is in whole seconds."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.message, self.retry_after = message, retry_after


class Admission:
    def __init__(self, settings: ServiceSettings) -> None:
        self.settings = settings

    @contextlib.asynccontextmanager
    async def admit(self, store: steward.StateStore, key: str, host: str | None) -> AsyncIterator[None]:
        """Hold a slot for one request by ``key`` (to ``host``, for a fetch); :class:`Busy` if none is free.

        Both slots and the key's token are taken in two atomic steps, one round trip each on Redis.
        """
        limits = {"in-flight": self.settings.max_concurrent}
        if host is not None:
            limits[f"in-flight:{host}"] = self.settings.max_per_host
        lease = await store.acquire(limits, lease_seconds=LEASE_SECONDS)
        if not lease.held:
            if lease.full == "in-flight":
                raise Busy(f"the service is at its limit of {self.settings.max_concurrent} requests in flight", 1)
            raise Busy(f"already {self.settings.max_per_host} requests in flight to {host}", 1)
        try:
            await self._take_token(store, key)
            yield
        finally:
            await store.release(lease)

    async def _take_token(self, store: steward.StateStore, key: str) -> None:
        """A token bucket per key: ``requests_per_minute`` on average, bursts up to the same number."""
        per_minute = self.settings.requests_per_minute
        wait = await store.spend(f"rate:{key}", rate_per_second=per_minute / 60, burst=per_minute)
        if wait > 0:
            raise Busy(f"this key's limit is {per_minute} requests per minute", max(1, math.ceil(wait)))
