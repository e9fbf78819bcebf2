"""The fetch service's page cache: one SQLite file in the data directory, or the shared store.

A page is stored under its normalised final URL with its body (compressed) and its clean
extraction, which every mode starts from, so a warm ``clean`` or ``digest`` request parses
nothing; the URL that was asked for, when a redirect led elsewhere, is an alias of it. How long a
page stays comes from its own caching headers (:func:`lifetime`): ``no-store``, ``private`` and
``no-cache`` keep it out, ``max-age``/``s-maxage``/``Expires`` set the time, capped at the
configured maximum. The file is bounded: past ``max_bytes`` the least recently used pages go.

SQLite in WAL mode with a busy timeout makes concurrent writers (threads here, other worker
processes) wait for each other instead of failing; each write is one transaction. On the redis
state backend the pages live in the host's shared store instead (:class:`SharedPageCache`), so
a page one host fetched is warm on every host; the store bounds it in bytes the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import sqlite3
import threading
import time
import zlib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import httpx
import msgspec

import steward
from steward_websearch.extraction import Document

_SCHEMA = """
CREATE TABLE IF NOT EXISTS pages (
    url TEXT PRIMARY KEY,
    status INTEGER NOT NULL,
    content_type TEXT NOT NULL,
    fetched_at TEXT NOT NULL,
    stored_at REAL NOT NULL,
    expires_at REAL NOT NULL,
    used_at REAL NOT NULL,
    size INTEGER NOT NULL,
    body BLOB NOT NULL,
    document BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS pages_used ON pages (used_at);
CREATE TABLE IF NOT EXISTS aliases (
    url TEXT PRIMARY KEY,
    final_url TEXT NOT NULL,
    expires_at REAL NOT NULL
);
"""


class CachedPage(msgspec.Struct, kw_only=True):
    """A stored page; ``stored_at`` (epoch seconds) is the cache's to set."""

    final_url: str
    status: int
    content_type: str
    fetched_at: str
    body: bytes
    document: Document
    stored_at: float = 0.0


def normalise_url(url: str) -> str:
    """Scheme and host lower-cased, default port and fragment dropped, an empty path made ``/``.

    The query stays as sent: its order can matter to the site.
    """
    parsed = httpx.URL(url)
    return str(parsed.copy_with(fragment=None, path=parsed.path or "/"))


def lifetime(headers: Mapping[str, str], *, default: float, maximum: float, now: float | None = None) -> float:
    """Seconds a response may be kept, from its ``Cache-Control`` and ``Expires``; 0 = do not store."""
    directives: dict[str, str] = {}
    for part in headers.get("cache-control", "").lower().split(","):
        name, _, value = part.strip().partition("=")
        if name:
            directives[name] = value.strip().strip('"')
    if {"no-store", "private", "no-cache"} & directives.keys():
        return 0
    for name in ("s-maxage", "max-age"):
        if name in directives:
            try:
                return max(0.0, min(float(int(directives[name])), maximum))
            except ValueError:
                return 0
    if "expires" in headers:
        try:
            expires = email.utils.parsedate_to_datetime(headers["expires"]).timestamp()
        except (TypeError, ValueError):
            return 0  # an invalid Expires means "already expired" (RFC 9111 §5.3)
        return max(0.0, min(expires - (now if now is not None else time.time()), maximum))
    return min(default, maximum)


class PageCache:
    def __init__(self, path: Path, *, max_bytes: int, clock: Callable[[], float] = time.time) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.clock = clock
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        self._connection = sqlite3.connect(path, timeout=10, check_same_thread=False, isolation_level=None)
        self._connection.execute("PRAGMA journal_mode=WAL")
        self._connection.execute("PRAGMA synchronous=NORMAL")
        self._connection.executescript(_SCHEMA)
        path.chmod(0o600)

    def get(self, url: str, *, max_age: float | None = None) -> CachedPage | None:
        """The fresh page for ``url`` (requested or final), no older than ``max_age`` seconds if given."""
        key, now = normalise_url(url), self.clock()
        with self._transaction() as connection:
            alias = connection.execute(
                "SELECT final_url FROM aliases WHERE url = ? AND expires_at > ?", (key, now)
            ).fetchone()
            row = connection.execute(
                "SELECT url, status, content_type, fetched_at, stored_at, body, document FROM pages "
                "WHERE url = ? AND expires_at > ?",
                (alias[0] if alias else key, now),
            ).fetchone()
            if row is None or (max_age is not None and now - row[4] > max_age):
                return None
            connection.execute("UPDATE pages SET used_at = ? WHERE url = ?", (now, row[0]))
        return CachedPage(
            final_url=row[0],
            status=row[1],
            content_type=row[2],
            fetched_at=row[3],
            stored_at=row[4],
            body=zlib.decompress(row[5]),
            document=msgspec.msgpack.decode(row[6], type=Document),
        )

    def put(self, requested_url: str, page: CachedPage, ttl: float) -> None:
        if ttl <= 0:
            return
        now = self.clock()
        final, requested = normalise_url(page.final_url), normalise_url(requested_url)
        body = zlib.compress(page.body, 6)
        document = msgspec.msgpack.encode(page.document)
        size = len(body) + len(document)
        if size > self.max_bytes:
            return
        with self._transaction() as connection:
            connection.execute(
                "INSERT OR REPLACE INTO pages VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (final, page.status, page.content_type, page.fetched_at, now, now + ttl, now, size, body, document),
            )
            if requested != final:
                connection.execute("INSERT OR REPLACE INTO aliases VALUES (?, ?, ?)", (requested, final, now + ttl))
            self._evict(connection, now)

    async def aget(self, url: str, *, max_age: float | None = None) -> CachedPage | None:
        return await asyncio.to_thread(self.get, url, max_age=max_age)

    async def aput(self, requested_url: str, page: CachedPage, ttl: float) -> None:
        await asyncio.to_thread(self.put, requested_url, page, ttl)

    def size(self) -> int:
        with self._transaction() as connection:
            return connection.execute("SELECT COALESCE(SUM(size), 0) FROM pages").fetchone()[0]

    def close(self) -> None:
        self._connection.close()

    def _evict(self, connection: sqlite3.Connection, now: float) -> None:
        connection.execute("DELETE FROM pages WHERE expires_at <= ?", (now,))
        connection.execute("DELETE FROM aliases WHERE expires_at <= ?", (now,))
        total = connection.execute("SELECT COALESCE(SUM(size), 0) FROM pages").fetchone()[0]
        for url, size in connection.execute("SELECT url, size FROM pages ORDER BY used_at").fetchall():
            if total <= self.max_bytes:
                break
            connection.execute("DELETE FROM pages WHERE url = ?", (url,))
            total -= size

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._connection.execute("BEGIN IMMEDIATE")
            try:
                yield self._connection
            except BaseException:
                self._connection.execute("ROLLBACK")
                raise
            self._connection.execute("COMMIT")


class _Stored(msgspec.Struct, array_like=True):
    status: int
    content_type: str
    fetched_at: str
    stored_at: float
    body: bytes
    document: Document


class SharedPageCache:
    """Pages in the host's :class:`steward.StateStore` cache: least recently used out past ``max_bytes``.

    A page is one value (the body compressed, the extraction beside it), written in one step, so
    a worker killed mid-write leaves the old entry or the new one, never half of one. A redirect's
    requested URL is a small alias value pointing at the final URL.
    """

    def __init__(self, store: steward.StateStore, *, max_bytes: int, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.max_bytes = max_bytes
        self.clock = clock

    async def aget(self, url: str, *, max_age: float | None = None) -> CachedPage | None:
        final = normalise_url(url)
        raw = await self.store.cache_get("page:" + final)
        if raw is None:
            alias = await self.store.cache_get("alias:" + final)
            if alias is None:
                return None
            final = alias.decode()
            raw = await self.store.cache_get("page:" + final)
            if raw is None:
                return None
        try:
            stored = msgspec.msgpack.decode(raw, type=_Stored)
            body = zlib.decompress(stored.body)
        except (msgspec.DecodeError, msgspec.ValidationError, zlib.error):
            return None
        if max_age is not None and self.clock() - stored.stored_at > max_age:
            return None
        return CachedPage(
            final_url=final,
            status=stored.status,
            content_type=stored.content_type,
            fetched_at=stored.fetched_at,
            stored_at=stored.stored_at,
            body=body,
            document=stored.document,
        )

    async def aput(self, requested_url: str, page: CachedPage, ttl: float) -> None:
        if ttl <= 0:
            return
        final, requested = normalise_url(page.final_url), normalise_url(requested_url)
        stored = _Stored(
            status=page.status,
            content_type=page.content_type,
            fetched_at=page.fetched_at,
            stored_at=self.clock(),
            body=zlib.compress(page.body, 6),
            document=page.document,
        )
        encoded = msgspec.msgpack.encode(stored)
        kept = await self.store.cache_set("page:" + final, encoded, ttl_seconds=ttl, max_bytes=self.max_bytes)
        if kept and requested != final:
            await self.store.cache_set("alias:" + requested, final.encode(), ttl_seconds=ttl, max_bytes=self.max_bytes)
