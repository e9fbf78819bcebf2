"""The memory backend: one process, nothing to install, forgotten on restart."""

from __future__ import annotations

import collections
import math
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from steward._state.flags import FileFlagTable, FlagLocation
from steward._state.keys import FileKeyTable
from steward._state.shelf import ShelfFull, ShelfLimits, Shelved
from steward._state.store import Lease, StateUnavailable

Clock = Callable[[], float]
"""Seconds on a monotonic scale: ``time.monotonic``, or a test's fake."""


class MemoryStore:
    """:class:`StateStore` in this process: what the memory backend gives plugins."""

    def __init__(self, clock: Clock = time.monotonic, *, max_entries: int = 100_000) -> None:
        self.clock = clock
        self.max_entries = max_entries
        self._values: dict[str, tuple[bytes | int, float]] = {}
        self._buckets: dict[str, tuple[float, float]] = {}
        self._leases: dict[str, dict[str, float]] = {}

        self._caches: dict[str, _MemoryCache] = {}
        self._lock = threading.Lock()
        self._swept_at = -math.inf
        self.problem: str | None = None
        """Set while the store is full (``/healthz`` shows it), cleared when a new entry fits again."""

    def _live(self, key: str) -> bytes | int | None:
        kept = self._values.get(key)
        if kept is None:
            return None
        if kept[1] <= self.clock():
            del self._values[key]
            return None
        return kept[0]

    def _put(self, key: str, value: bytes | int, ttl_seconds: float | None) -> None:
        """Store one entry; when full, sweep out the expired ones (at most once a second: a flood
        against a full store must not cost a scan of every entry per request) or refuse."""
        if key not in self._values:
            if len(self._values) >= self.max_entries:
                now = self.clock()
                if now - self._swept_at >= 1.0:
                    self._swept_at = now
                    for stale in [name for name, (_, until) in self._values.items() if until <= now]:
                        del self._values[stale]
                if len(self._values) >= self.max_entries:
                    self.problem = f"the in-process state store holds {self.max_entries} entries, its limit"
                    raise StateUnavailable(self.problem)
            self.problem = None
        self._values[key] = (value, math.inf if ttl_seconds is None else self.clock() + ttl_seconds)

    async def get(self, key: str) -> bytes | None:
        with self._lock:
            value = self._live(key)
        return value if isinstance(value, bytes) else None

    async def set(
        self, key: str, value: bytes, *, ttl_seconds: float | None = None, only_if_absent: bool = False
    ) -> bool:
        with self._lock:
            if only_if_absent and self._live(key) is not None:
                return False
            self._put(key, value, ttl_seconds)
        return True

    async def take(self, key: str) -> bytes | None:
        with self._lock:
            value = self._live(key)
            self._values.pop(key, None)
        return value if isinstance(value, bytes) else None

    async def delete(self, key: str) -> None:
        with self._lock:
            self._values.pop(key, None)

    async def increment(self, key: str, amount: int = 1, *, ttl_seconds: float | None = None) -> int:
        with self._lock:
            value = self._live(key)
            if value is None:
                self._put(key, amount, ttl_seconds)
                return amount
            if not isinstance(value, int):
                raise TypeError(f"{key} does not hold a counter")
            until = self._values[key][1]
            self._values[key] = (value + amount, until)
            return value + amount

    async def spend(self, key: str, *, rate_per_second: float, burst: float, cost: float = 1) -> float:
        with self._lock:
            now = self.clock()
            tokens, at = self._buckets.get(key, (burst, now))
            tokens = min(burst, tokens + max(0.0, now - at) * rate_per_second)
            wait = 0.0
            if tokens >= cost:
                tokens -= cost
            else:
                wait = (cost - tokens) / rate_per_second
            if len(self._buckets) >= self.max_entries and key not in self._buckets:
                self._buckets = {name: kept for name, kept in self._buckets.items() if kept[0] < burst}
            self._buckets[key] = (tokens, now)
            return wait

    async def acquire(self, limits: Mapping[str, int], *, lease_seconds: float) -> Lease:
        lease = secrets.token_hex(8)
        with self._lock:
            now = self.clock()
            for name, limit in limits.items():
                held = {other: until for other, until in self._leases.get(name, {}).items() if until > now}
                self._leases[name] = held
                if len(held) >= limit:
                    return Lease(lease, tuple(limits), name)
            for name in limits:
                self._leases[name][lease] = now + lease_seconds
        return Lease(lease, tuple(limits))

    async def release(self, lease: Lease) -> None:
        if not lease.held:
            return
        with self._lock:
            for name in lease.limits:
                held = self._leases.get(name)
                if held is not None:
                    held.pop(lease.id, None)
                    if not held:
                        del self._leases[name]

    def cache(self, prefix: str) -> _MemoryCache:
        with self._lock:
            return self._caches.setdefault(prefix, _MemoryCache(self.clock))


class _MemoryCache:
    """A least-recently-used set of values with lifetimes, bounded in bytes."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._values: collections.OrderedDict[str, tuple[bytes, float]] = collections.OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def set(self, key: str, value: bytes, ttl_seconds: float, max_bytes: int) -> bool:
        if len(value) > max_bytes:
            return False
        with self._lock:
            old = self._values.pop(key, None)
            if old is not None:
                self._bytes -= len(old[0])
            self._values[key] = (value, self.clock() + ttl_seconds)
            self._bytes += len(value)
            while self._bytes > max_bytes:
                _, (dropped, _) = self._values.popitem(last=False)
                self._bytes -= len(dropped)
        return True

    def get(self, key: str) -> bytes | None:
        with self._lock:
            kept = self._values.get(key)
            if kept is None:
                return None
            if kept[1] <= self.clock():
                del self._values[key]
                self._bytes -= len(kept[0])
                return None
            self._values.move_to_end(key)
            return kept[0]


class Namespaced:
    """A :class:`StateStore` seen through a key prefix (one per plugin on the memory backend)."""

    shared = False

    def __init__(self, store: MemoryStore, prefix: str) -> None:
        self._store = store
        self._prefix = prefix

    async def get(self, key: str) -> bytes | None:
        return await self._store.get(self._prefix + key)

    async def set(
        self, key: str, value: bytes, *, ttl_seconds: float | None = None, only_if_absent: bool = False
    ) -> bool:
        return await self._store.set(self._prefix + key, value, ttl_seconds=ttl_seconds, only_if_absent=only_if_absent)

    async def take(self, key: str) -> bytes | None:
        return await self._store.take(self._prefix + key)

    async def delete(self, key: str) -> None:
        await self._store.delete(self._prefix + key)

    async def increment(self, key: str, amount: int = 1, *, ttl_seconds: float | None = None) -> int:
        return await self._store.increment(self._prefix + key, amount, ttl_seconds=ttl_seconds)

    async def spend(self, key: str, *, rate_per_second: float, burst: float, cost: float = 1) -> float:
        return await self._store.spend(self._prefix + key, rate_per_second=rate_per_second, burst=burst, cost=cost)

    async def acquire(self, limits: Mapping[str, int], *, lease_seconds: float) -> Lease:
        prefixed = {self._prefix + name: limit for name, limit in limits.items()}
        lease = await self._store.acquire(prefixed, lease_seconds=lease_seconds)
        full = lease.full.removeprefix(self._prefix) if lease.full else None
        return Lease(lease.id, tuple(limits), full)

    async def release(self, lease: Lease) -> None:
        prefixed = tuple(self._prefix + name for name in lease.limits)
        await self._store.release(Lease(lease.id, prefixed, lease.full))

    async def cache_set(self, key: str, value: bytes, *, ttl_seconds: float, max_bytes: int) -> bool:
        return self._store.cache(self._prefix).set(key, value, ttl_seconds, max_bytes)

    async def cache_get(self, key: str) -> bytes | None:
        return self._store.cache(self._prefix).get(key)


@dataclass
class _Kept:
    owner: str
    value: bytes
    due_at: float
    keep_until: float


class MemoryShelf:
    """:class:`~steward._state.Shelf` in this process, behind one lock."""

    def __init__(self, limits: ShelfLimits, clock: Clock = time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        self._items: dict[str, _Kept] = {}
        self._bytes = 0
        self._lock = threading.Lock()

    async def put(self, item_id: str, owner: str, value: bytes, *, due_seconds: float, keep_seconds: float) -> None:
        limits = self.limits
        with self._lock:
            now = self._forget_stale()
            waiting = sum(1 for kept in self._items.values() if kept.owner == owner and kept.due_at > now)
            if waiting >= limits.max_per_owner:
                raise ShelfFull("owner", waiting)
            if limits.max_items is not None and len(self._items) >= limits.max_items:
                raise ShelfFull("items", len(self._items))
            if limits.max_bytes is not None and self._bytes + len(value) > limits.max_bytes:
                raise ShelfFull("bytes", self._bytes)
            self._items[item_id] = _Kept(owner, value, now + due_seconds, now + keep_seconds)
            self._bytes += len(value)

    async def peek(self, item_id: str) -> bytes | None:
        with self._lock:
            self._forget_stale()
            kept = self._items.get(item_id)
        return None if kept is None else kept.value

    async def take(self, item_id: str, owner: str, value: bytes) -> float | None:
        with self._lock:
            kept = self._items.get(item_id)
            if kept is None or kept.value != value:
                return None
            del self._items[item_id]
            self._bytes -= len(kept.value)
        return kept.due_at - self.clock()

    async def waiting(self) -> list[Shelved]:
        now = self.clock()
        with self._lock:
            items = [
                Shelved(key, kept.value, kept.due_at - now) for key, kept in self._items.items() if kept.due_at > now
            ]
        return sorted(items, key=lambda item: item.due_in_seconds)

    def __len__(self) -> int:
        return len(self._items)

    def _forget_stale(self) -> float:
        now = self.clock()
        for key in [key for key, kept in self._items.items() if kept.keep_until <= now]:
            self._bytes -= len(self._items.pop(key).value)
        return now


class MemoryBackend:
    """Everything the host keeps in one process: plugins' key spaces and the core's shelves."""

    shared = False

    def __init__(self, clock: Clock = time.monotonic) -> None:
        self.clock = clock
        self._store = MemoryStore(clock)
        self._shelves: dict[str, MemoryShelf] = {}

    @property
    def problem(self) -> str | None:
        return self._store.problem

    def store(self, namespace: str) -> Namespaced:
        return Namespaced(self._store, f"{namespace}:")

    def shelf(self, name: str, limits: ShelfLimits) -> MemoryShelf:
        """The shelf called ``name`` (made with ``limits`` the first time it is asked for)."""
        shelf = self._shelves.get(name)
        if shelf is None:
            shelf = self._shelves[name] = MemoryShelf(limits, self.clock)
        return shelf

    def key_table(self, data_dir: Path) -> FileKeyTable:
        """``<data-dir>/keys.toml``: the keys outlive the process, so they are a file, not memory."""
        return FileKeyTable(data_dir / "keys.toml")

    def flag_table(self, directory: Path, locations: Mapping[str, FlagLocation]) -> FileFlagTable:
        """The JSON files under ``directory`` that hold the flags, each where its plugin keeps it."""
        return FileFlagTable(directory, locations)

    async def aclose(self) -> None:
        """Nothing to close: for symmetry with the Redis backend."""
