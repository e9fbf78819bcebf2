"""Shared state: what several workers and hosts must agree on, kept in Redis.

The single-process default keeps pending confirmations and paused turns in memory and keys and
policy in files; it needs nothing. With ``[state] backend = "redis"`` those live in one Redis
that every worker and host uses, so a token issued by one is answered on another, a key revoked
on one is refused by all, and single use is one atomic step in Redis, not a lock in a process.

Everything that needs the shared store fails closed when Redis cannot be reached:
:class:`StateUnavailable`, answered ``503 STATE_UNAVAILABLE``, never a guess from a stale copy.
redis-py reconnects by itself, so service comes back with Redis, with nothing to restart.

Plugins reach the same store through :class:`StateStore` (``context.state`` in a handler), in a
key space of their own, with the few operations that shared state needs to be safe: values with
a lifetime, take-once, counters, a token bucket, leased slots and a byte-bounded cache, each
atomic on either backend (one Lua script on Redis).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import logging
import math
import secrets
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import redis
    import redis.asyncio

    from steward.config import StateConfig

Clock = Callable[[], float]
log = logging.getLogger("steward.state")


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


def connect(config: StateConfig) -> RedisState | None:
    """The Redis the configuration names, checked now; ``None`` on the memory backend.

    A Redis that cannot be reached at start-up is a one-line :class:`StateUnavailable`, so a
    server never starts pretending to share state it cannot reach; it is said to the operator
    starting it, so it names where (credentials redacted).
    """
    if config.backend != "redis":
        return None
    state = RedisState(
        config.url,
        prefix=config.prefix,
        timeout_seconds=config.timeout_seconds,
        max_connections=config.max_connections,
    )
    try:
        state.ping_now()
    except StateUnavailable:
        raise StateUnavailable(state.problem) from None
    return state


_SECRET_PARAMETERS = frozenset({"password", "pass", "pwd", "passwd", "auth", "secret", "token", "username", "user"})


def redact(url: str) -> str:
    """``url`` without its credentials, for messages and logs: the userinfo's password, and the
    query's ``password=`` (the usual form for a unix socket, ``unix:///run/redis.sock?password=…``)
    and its kin, whatever their case."""
    scheme, separator, rest = url.partition("://")
    location, question, query = rest.partition("?")
    query, hash_mark, fragment = query.partition("#")
    credentials, at, place = location.rpartition("@")
    if at:
        user = credentials.partition(":")[0]
        location = f"{user + ':***' if user else '***'}@{place}"
    if question:
        parts = []
        for part in query.split("&"):
            name, equals, _ = part.partition("=")
            parts.append(f"{name}=***" if equals and name.lower() in _SECRET_PARAMETERS else part)
        query = "&".join(parts)
    return f"{scheme}{separator}{location}{question}{query}{hash_mark}{'***' if fragment else ''}"


class RedisState:
    """One Redis, reached from any event loop and from synchronous code (the command line).

    redis-py's asyncio connections belong to the loop that made them, so each loop gets its own
    client (a test or a CLI command may run several loops in one process); the synchronous
    client serves the command line and the operator's writes (keys, policy). Every key is put
    under ``prefix`` so one Redis can serve several Steward installations. Each pool holds at
    most ``max_connections``; a command that finds them all busy waits for one instead of
    failing, so a burst of requests queues rather than being refused (on the event loop by a
    semaphore, a sixth of the cost of redis-py's blocking pool).
    """

    def __init__(
        self, url: str, *, prefix: str = "steward:", timeout_seconds: float = 2.0, max_connections: int = 64
    ) -> None:
        import redis

        self.url = url
        self.prefix = prefix
        self.timeout_seconds = timeout_seconds
        self.max_connections = max_connections
        self._options = {
            "socket_timeout": timeout_seconds,
            "socket_connect_timeout": timeout_seconds,
            "health_check_interval": 30,
            "max_connections": max_connections,
        }
        try:
            pool = redis.BlockingConnectionPool.from_url(
                url, timeout=timeout_seconds, retry=_once_more(redis.retry.Retry), **self._options
            )
            self.sync = redis.Redis(connection_pool=pool)
        except ValueError as error:
            raise StateUnavailable(f"state.url {redact(url)!r} is not a Redis URL: {error}") from None
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, redis.asyncio.Redis] = (
            weakref.WeakKeyDictionary()
        )
        self._scripts: weakref.WeakKeyDictionary[Any, dict[str, Any]] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()
        self.problem: str | None = None

    def key(self, *parts: str) -> str:
        return self.prefix + ":".join(parts)

    @property
    def client(self) -> redis.asyncio.Redis:
        """The asyncio client of the running loop."""
        import redis.asyncio
        import redis.asyncio.retry

        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            with self._lock:
                client = self._clients.get(loop)
                if client is None:
                    pool = redis.asyncio.ConnectionPool.from_url(
                        self.url, retry=_once_more(redis.asyncio.retry.Retry), **self._options
                    )
                    client = self._clients[loop] = _bounded_client()(pool, self.max_connections)
        return client

    async def script(self, source: str, keys: Sequence[str], args: Sequence[Any]) -> Any:
        """Run a Lua script atomically (by its digest after the first time), on this loop's client."""
        client = self.client
        scripts = self._scripts.setdefault(client, {})
        script = scripts.get(source)
        if script is None:
            script = scripts[source] = client.register_script(source)
        with self.reached():
            return await script(keys=list(keys), args=list(args))

    def sync_script(self, source: str, keys: Sequence[str], args: Sequence[Any]) -> Any:
        scripts = self._scripts.setdefault(self.sync, {})
        script = scripts.get(source)
        if script is None:
            script = scripts[source] = self.sync.register_script(source)
        with self.reached():
            return script(keys=list(keys), args=list(args))

    @contextlib.contextmanager
    def reached(self) -> Iterator[None]:
        """Turn redis-py's failures into :class:`StateUnavailable`, and note recovery.

        A connection that fails, a reply that is not Redis's protocol (or nests past what can be
        parsed), and a well-formed reply of a shape no Redis gives to the command sent (a
        wrong-shaped answer unpacked or decoded inside this block) all mean the same: the store
        cannot be trusted now, and nothing that needs it runs.
        """
        import msgspec
        import redis.exceptions

        try:
            yield
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError) as error:
            self._failed("cannot be reached", error)
        except redis.exceptions.ResponseError as error:
            if "LOADING" in str(error) or "READONLY" in str(error) or "MISCONF" in str(error):
                self._failed("cannot be used", error)
            raise
        except (
            redis.exceptions.InvalidResponse,
            redis.exceptions.DataError,
            RecursionError,
            msgspec.DecodeError,
            msgspec.ValidationError,
            TypeError,
            ValueError,
            IndexError,
            KeyError,
            AttributeError,
        ) as error:
            self._failed("answers what no Redis would", error)
        else:
            if self.problem is not None:
                log.warning("the shared state store answers again")
            self.problem = None

    def _failed(self, what: str, error: BaseException) -> None:
        problem = f"the shared state store (Redis at {redact(self.url)}) {what}: {type(error).__name__}"
        if self.problem != problem:
            log.error("%s: %s", problem, error)
        self.problem = problem
        raise StateUnavailable(f"the shared state store {what}; nothing that needs it runs until it answers") from None

    async def ping(self) -> None:
        """A real round trip: a value written, read back and removed, so a store that answers
        anything to anything (``+PONG`` to every command) is not taken for a healthy one."""
        client, key, value = self.client, self.key("probe", secrets.token_hex(8)), secrets.token_bytes(16)
        with self.reached():
            written = await client.set(key, value, px=10_000)
            read = await client.get(key)
            removed = await client.delete(key)
            _expect(written is True and read == value and removed == 1)

    def ping_now(self) -> None:
        client, key, value = self.sync, self.key("probe", secrets.token_hex(8)), secrets.token_bytes(16)
        with self.reached():
            written = client.set(key, value, px=10_000)
            read = client.get(key)
            removed = client.delete(key)
            _expect(written is True and read == value and removed == 1)

    async def aclose(self) -> None:
        """Close this loop's connections (the others close with their loops)."""
        with contextlib.suppress(RuntimeError):
            loop = asyncio.get_running_loop()
            client = self._clients.pop(loop, None)
            if client is not None:
                await client.aclose()

    def close(self) -> None:
        self.sync.close()

    def store(self, namespace: str) -> RedisStore:
        return RedisStore(self, self.key(namespace) + ":")


@functools.cache
def _expect(holds: bool) -> None:
    """Inside :meth:`RedisState.reached`: a reply of the wrong shape makes the store untrusted."""
    if not holds:
        raise ValueError("a reply of the wrong shape")


def _once_more(retry: type) -> Any:
    """Retry a command once, at once, when its pooled connection turns out dead (Redis restarted).

    Only a connection error: the command never reached the Redis that answers now. A timeout is
    not retried, since the command may have run.
    """
    import redis.backoff
    import redis.exceptions

    return retry(redis.backoff.NoBackoff(), 1, supported_errors=(redis.exceptions.ConnectionError,))


def _bounded_client() -> type:
    """``redis.asyncio.Redis`` whose commands wait for one of ``limit`` connections."""
    import redis.asyncio

    class BoundedRedis(redis.asyncio.Redis):
        def __init__(self, pool: redis.asyncio.ConnectionPool, limit: int) -> None:
            super().__init__(connection_pool=pool)
            self._slots = asyncio.Semaphore(limit)

        async def execute_command(self, *arguments: Any, **options: Any) -> Any:
            async with self._slots:
                return await super().execute_command(*arguments, **options)

    return BoundedRedis


_SPEND = """
local now = redis.call('TIME')
now = tonumber(now[1]) + tonumber(now[2]) / 1000000
local rate, burst, cost = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local kept = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(kept[1]) or burst
local at = tonumber(kept[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
local wait = 0
if tokens >= cost then tokens = tokens - cost else wait = (cost - tokens) / rate end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return tostring(wait)
"""

_INCREMENT = """
local value = redis.call('INCRBY', KEYS[1], ARGV[1])
if tonumber(ARGV[2]) > 0 and redis.call('PTTL', KEYS[1]) == -1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return value
"""


_ACQUIRE = """
local now = redis.call('TIME')
now = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
for index, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  if redis.call('ZCARD', key) >= tonumber(ARGV[index + 2]) then return index end
end
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, now + tonumber(ARGV[1]), ARGV[2])
  redis.call('PEXPIRE', key, ARGV[1])
end
return 0
"""

_RELEASE = """
for _, key in ipairs(KEYS) do redis.call('ZREM', key, ARGV[1]) end
return 0
"""

_CACHE_SET = """
local size = string.len(ARGV[1])
if size > tonumber(ARGV[3]) then return 0 end
local now = redis.call('TIME')
now = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local old = redis.call('HGET', KEYS[3], ARGV[4])
if old then redis.call('DECRBY', KEYS[4], old) end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('HSET', KEYS[3], ARGV[4], size)
redis.call('ZADD', KEYS[2], now, ARGV[4])
local total = redis.call('INCRBY', KEYS[4], size)
while total > tonumber(ARGV[3]) do
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  if not oldest then break end
  local freed = tonumber(redis.call('HGET', KEYS[3], oldest) or '0')
  redis.call('ZREM', KEYS[2], oldest)
  redis.call('HDEL', KEYS[3], oldest)
  redis.call('DEL', ARGV[5] .. oldest)
  total = redis.call('DECRBY', KEYS[4], freed)
end
return 1
"""

_CACHE_GET = """
local value = redis.call('GET', KEYS[1])
if value then
  local now = redis.call('TIME')
  redis.call('ZADD', KEYS[2], 'XX', tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000), ARGV[1])
end
return value
"""


def _milliseconds(seconds: float | None) -> int:
    return 0 if seconds is None else max(1, math.ceil(seconds * 1000))


class RedisStore:
    """:class:`StateStore` on Redis, under ``prefix``.

    The cache is one least-recently-used set per store: values under ``cache:``, their uses in
    a sorted set, their sizes in a hash and the total in a counter, changed together by one
    script. (The scripts touch keys they compute, so this needs one Redis, not a Cluster.)
    """

    shared = True

    def __init__(self, state: RedisState, prefix: str) -> None:
        self.state = state
        self.prefix = prefix

    async def get(self, key: str) -> bytes | None:
        with self.state.reached():
            return await self.state.client.get(self.prefix + key)

    async def set(
        self, key: str, value: bytes, *, ttl_seconds: float | None = None, only_if_absent: bool = False
    ) -> bool:
        with self.state.reached():
            done = await self.state.client.set(
                self.prefix + key, value, px=_milliseconds(ttl_seconds) or None, nx=only_if_absent
            )
        return bool(done)

    async def take(self, key: str) -> bytes | None:
        with self.state.reached():
            return await self.state.client.getdel(self.prefix + key)

    async def delete(self, key: str) -> None:
        with self.state.reached():
            await self.state.client.delete(self.prefix + key)

    async def increment(self, key: str, amount: int = 1, *, ttl_seconds: float | None = None) -> int:
        return int(await self.state.script(_INCREMENT, [self.prefix + key], [amount, _milliseconds(ttl_seconds)]))

    async def spend(self, key: str, *, rate_per_second: float, burst: float, cost: float = 1) -> float:
        wait = await self.state.script(_SPEND, [self.prefix + key], [rate_per_second, burst, cost])
        return float(wait)

    async def acquire(self, limits: Mapping[str, int], *, lease_seconds: float) -> Lease:
        lease = secrets.token_hex(8)
        names = tuple(limits)
        arguments = [_milliseconds(lease_seconds), lease, *limits.values()]
        full = await self.state.script(_ACQUIRE, [self.prefix + name for name in names], arguments)
        return Lease(lease, names, names[full - 1] if full else None)

    async def release(self, lease: Lease) -> None:
        if lease.held:
            await self.state.script(_RELEASE, [self.prefix + name for name in lease.limits], [lease.id])

    def _cache_keys(self, key: str) -> list[str]:
        return [
            self.prefix + "cache:" + key,
            *(self.prefix + name for name in ("cache-uses", "cache-sizes", "cache-bytes")),
        ]

    async def cache_set(self, key: str, value: bytes, *, ttl_seconds: float, max_bytes: int) -> bool:
        arguments = [value, _milliseconds(ttl_seconds), max_bytes, key, self.prefix + "cache:"]
        return bool(await self.state.script(_CACHE_SET, self._cache_keys(key), arguments))

    async def cache_get(self, key: str) -> bytes | None:
        return await self.state.script(_CACHE_GET, self._cache_keys(key)[:2], [key])


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
