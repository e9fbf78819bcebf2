"""Who may start a service request now: concurrency caps and per-key rate limits.

A request over a limit is refused at once with how long to wait (429 + ``Retry-After``), never
queued: an agent fleet retries better than a queue it cannot see. The counts live in the worker
process, so with several workers each enforces the limits on its own share of the traffic.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from steward_websearch.settings import ServiceSettings


class Busy(Exception):
    """A refused admission; ``retry_after`` is in whole seconds."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.message, self.retry_after = message, retry_after


@dataclass
class _Bucket:
    tokens: float
    updated: float


class Admission:
    def __init__(self, settings: ServiceSettings, clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.clock = clock
        self.in_flight = 0
        self.per_host: dict[str, int] = {}
        self._buckets: dict[str, _Bucket] = {}

    @contextlib.contextmanager
    def admit(self, key: str, host: str | None) -> Iterator[None]:
        """Hold a slot for one request by ``key`` (to ``host``, for a fetch); :class:`Busy` if none is free."""
        limits = self.settings
        if self.in_flight >= limits.max_concurrent:
            raise Busy(f"the service is at its limit of {limits.max_concurrent} requests in flight", 1)
        if host is not None and self.per_host.get(host, 0) >= limits.max_per_host:
            raise Busy(f"already {limits.max_per_host} requests in flight to {host}", 1)
        self._take_token(key)
        self.in_flight += 1
        if host is not None:
            self.per_host[host] = self.per_host.get(host, 0) + 1
        try:
            yield
        finally:
            self.in_flight -= 1
            if host is not None:
                remaining = self.per_host[host] - 1
                if remaining:
                    self.per_host[host] = remaining
                else:
                    del self.per_host[host]

    def _take_token(self, key: str) -> None:
        """A token bucket per key: ``requests_per_minute`` on average, bursts up to the same number."""
        rate = self.settings.requests_per_minute / 60
        capacity = float(self.settings.requests_per_minute)
        now = self.clock()
        bucket = self._buckets.setdefault(key, _Bucket(capacity, now))
        bucket.tokens = min(capacity, bucket.tokens + (now - bucket.updated) * rate)
        bucket.updated = now
        if bucket.tokens < 1:
            wait = math.ceil((1 - bucket.tokens) / rate)
            raise Busy(f"this key's limit is {self.settings.requests_per_minute} requests per minute", wait)
        bucket.tokens -= 1
