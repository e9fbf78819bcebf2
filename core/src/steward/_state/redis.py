"""The Redis backend: one Redis that every worker and host uses.

Single use is one atomic step in Redis (a Lua script), not a lock in a process, and times are
Redis's own clock (``TIME``), so hosts whose clocks disagree still agree on expiry. Every
failure to reach Redis, or a reply no Redis would give, is :class:`StateUnavailable`: nothing
that needs the store runs on a guess. redis-py reconnects by itself, so service comes back with
Redis, with nothing to restart. (The scripts touch keys they compute, so this needs one Redis,
not a Cluster.)
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import math
import secrets
import threading
import weakref
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from steward._state.flags import FlagLocation, RedisFlagTable
from steward._state.keys import RedisKeyTable
from steward._state.shelf import ShelfFull, ShelfLimits, Shelved
from steward._state.store import Lease, StateUnavailable

if TYPE_CHECKING:
    import redis
    import redis.asyncio

    from steward._config import StateConfig

log = logging.getLogger("steward.state")


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

    def shelf(self, name: str, limits: ShelfLimits) -> RedisShelf:
        return RedisShelf(self, name, limits)

    def key_table(self, data_dir: Path) -> RedisKeyTable:
        """The keys every host sharing this Redis checks (``data_dir`` holds none of them)."""
        return RedisKeyTable(self)

    def flag_table(self, directory: Path, locations: Mapping[str, FlagLocation]) -> RedisFlagTable:
        """The flags every host sharing this Redis reads (the files' locations do not apply)."""
        return RedisFlagTable(self, list(locations))


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
    script.
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


_SHELF_PUT = """
local now = redis.call('TIME')
now = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local due, keep, size = now + tonumber(ARGV[3]), now + tonumber(ARGV[4]), string.len(ARGV[2])
for _, stale in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)) do
  redis.call('HDEL', KEYS[4], stale)
end
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local waiting = redis.call('ZCARD', KEYS[2])
if waiting >= tonumber(ARGV[5]) then return {'owner', waiting} end
local all = redis.call('ZCARD', KEYS[3])
if tonumber(ARGV[6]) >= 0 and all >= tonumber(ARGV[6]) then return {'items', all} end
if tonumber(ARGV[7]) >= 0 then
  local total = 0
  for _, kept in ipairs(redis.call('HVALS', KEYS[4])) do total = total + tonumber(kept) end
  if total + size > tonumber(ARGV[7]) then return {'bytes', total} end
end
redis.call('SET', KEYS[1], due .. ':' .. ARGV[2], 'PX', tonumber(ARGV[4]))
redis.call('ZADD', KEYS[2], due, ARGV[1])
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[4]))
redis.call('ZADD', KEYS[3], keep, ARGV[1])
redis.call('PEXPIRE', KEYS[3], tonumber(ARGV[4]))
redis.call('HSET', KEYS[4], ARGV[1], size)
redis.call('PEXPIRE', KEYS[4], tonumber(ARGV[4]))
return {'ok', 0}
"""

_SHELF_TAKE = """
local kept = redis.call('GET', KEYS[1])
if not kept then return false end
local colon = string.find(kept, ':', 1, true)
if string.sub(kept, colon + 1) ~= ARGV[2] then return false end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('HDEL', KEYS[4], ARGV[1])
local now = redis.call('TIME')
return {string.sub(kept, 1, colon - 1), tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)}
"""

_SHELF_WAITING = """
local now = redis.call('TIME')
local answer = {tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)}
for _, item in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  answer[#answer + 1] = item
  answer[#answer + 1] = redis.call('GET', ARGV[1] .. item) or ''
end
return answer
"""


class RedisShelf:
    """:class:`~steward._state.Shelf` on Redis: the same limits counted across every host.

    An item is kept as ``<due-at-ms>:<value>`` with a Redis lifetime of its keep time, so Redis
    forgets it by itself; a sorted set per owner (by due time) and one for the shelf (by keep
    time) count it, and a hash holds its size. Taking is one script, one round trip, that deletes
    the item only if it still holds the value the caller peeked: of concurrent answers on any
    number of hosts, exactly one gets it.
    """

    def __init__(self, state: RedisState, name: str, limits: ShelfLimits) -> None:
        self.state = state
        self.name = name
        self.limits = limits

    def _keys(self, item_id: str, owner: str) -> list[str]:
        key = self.state.key
        return [key(self.name, item_id), key(f"{self.name}-of", owner), key(self.name), key(f"{self.name}-sizes")]

    async def put(self, item_id: str, owner: str, value: bytes, *, due_seconds: float, keep_seconds: float) -> None:
        limits = self.limits
        arguments = [
            item_id,
            value,
            _milliseconds(due_seconds),
            _milliseconds(keep_seconds),
            limits.max_per_owner,
            -1 if limits.max_items is None else limits.max_items,
            -1 if limits.max_bytes is None else limits.max_bytes,
        ]
        answer, count = await self.state.script(_SHELF_PUT, self._keys(item_id, owner), arguments)
        if answer != b"ok":
            raise ShelfFull(answer.decode(), int(count))

    async def peek(self, item_id: str) -> bytes | None:
        with self.state.reached():
            kept = await self.state.client.get(self.state.key(self.name, item_id))
        return None if kept is None else _split_kept(kept)[1]

    async def take(self, item_id: str, owner: str, value: bytes) -> float | None:
        taken = await self.state.script(_SHELF_TAKE, self._keys(item_id, owner), [item_id, value])
        if not taken:
            return None
        due_at, now = taken
        return (int(due_at) - int(now)) / 1000

    async def waiting(self) -> list[Shelved]:
        answer = await self.state.script(_SHELF_WAITING, [self.state.key(self.name)], [self.state.key(self.name, "")])
        now, items = int(answer[0]), []
        for item_id, kept in zip(answer[1::2], answer[2::2], strict=True):
            if kept:
                due_at, value = _split_kept(kept)
                if due_at > now:
                    items.append(Shelved(item_id.decode(), value, (due_at - now) / 1000))
        return sorted(items, key=lambda item: item.due_in_seconds)


def _split_kept(kept: bytes) -> tuple[int, bytes]:
    due_at, _, value = kept.partition(b":")
    return int(due_at), value
