"""Where the API keys' records are kept: ``keys.toml`` on the memory backend, Redis on the Redis one.

Only storage lives here; what a key is, how it is made and checked, is :mod:`steward._auth`,
written once against :class:`KeyTable`. The file is SPEC's format (``[[keys]]`` records, each a
key's SHA-256 digest, never the key), so a person can read and repair it.
"""

from __future__ import annotations

import logging
import math
import os
import threading
import time
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import msgspec
import tomli_w

from steward._files import locked, write_atomic

if TYPE_CHECKING:
    from steward._state.redis import RedisState

log = logging.getLogger("steward.auth")


class KeyRecord(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """One stored key: its name, the digest of the key itself, and what it may do."""

    name: str
    hash: str
    scopes: list[str]
    preapproved: list[str] = []
    created: str = ""


class KeyTableError(ValueError):
    """The stored keys cannot be read or trusted; the message says which file (or store) and why."""


class KeyTable(Protocol):
    """The stored key records: by name, found by digest; each change one atomic step."""

    problem: str | None
    """Why no record can be trusted right now (every lookup then fails closed), ``None`` while fine."""

    def records(self) -> list[KeyRecord]:
        """Every record, oldest first; :class:`KeyTableError` when the store cannot be used."""
        ...

    def insert(self, record: KeyRecord) -> bool:
        """Store ``record``; ``False`` (nothing stored) when its name is taken."""
        ...

    def remove(self, name: str) -> bool:
        """Forget the record named ``name``; ``False`` when there was none."""
        ...

    def find_now(self, digest: str) -> KeyRecord | None:
        """The record of the key with this digest (for the command line; may block)."""
        ...

    async def find(self, digest: str) -> KeyRecord | None:
        """:meth:`find_now`, as the server asks: never blocking its event loop on a network store."""
        ...

    def refresh(self) -> None:
        """Look at the store now rather than at the next recheck (``/healthz`` does)."""
        ...


class _KeyFile(msgspec.Struct, forbid_unknown_fields=True):
    keys: list[KeyRecord] = []


class FileKeyTable:
    """``keys.toml``, re-read when it changes, looked at no more than once per ``recheck_seconds``.

    A ``stat`` per request was a tenth of the invoke endpoint's cost, so a change another process
    makes (``steward keys revoke``) applies within a second; changes made through this table apply
    at once. Fails closed: while the file cannot be read or parsed, no record is found and
    :attr:`problem` says why, so a key revoked in a file the server cannot read is never honoured
    from a stale copy. Changes re-read the file under :func:`~steward._files.locked`, so concurrent
    additions and revocations in several processes never lose one another's work.
    """

    def __init__(self, path: Path, *, recheck_seconds: float = 1.0) -> None:
        self.path = path
        self.recheck_seconds = recheck_seconds
        self.problem: str | None = None
        self._lock = threading.Lock()
        self._stamp: tuple[int, ...] | None = None
        self._checked_at = -math.inf
        self._by_digest: dict[str, KeyRecord] = {}

    def records(self) -> list[KeyRecord]:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return []
        except OSError as error:
            raise KeyTableError(f"{self.path} cannot be read: {error.strerror}{_ownership_hint(self.path)}") from None
        try:
            return msgspec.convert(tomllib.loads(raw.decode()), type=_KeyFile).keys
        except (tomllib.TOMLDecodeError, msgspec.ValidationError, UnicodeDecodeError) as error:
            raise KeyTableError(f"{self.path} is not a valid key file: {error}") from None

    def insert(self, record: KeyRecord) -> bool:
        with self._lock, locked(self.path):
            records = self.records()
            if any(existing.name == record.name for existing in records):
                return False
            self._write([*records, record])
        return True

    def remove(self, name: str) -> bool:
        with self._lock, locked(self.path):
            records = self.records()
            kept = [record for record in records if record.name != name]
            if len(kept) < len(records):
                self._write(kept)
            return len(kept) < len(records)

    def find_now(self, digest: str) -> KeyRecord | None:
        self._reload_if_changed()
        return self._by_digest.get(digest)

    async def find(self, digest: str) -> KeyRecord | None:
        return self.find_now(digest)

    def refresh(self) -> None:
        self._checked_at = -math.inf
        self._reload_if_changed()

    def _reload_if_changed(self) -> None:
        now = time.monotonic()
        if now - self._checked_at < self.recheck_seconds:
            return
        self._checked_at = now
        try:
            status = self.path.stat()
            stamp: tuple[int, ...] | None = (status.st_mtime_ns, status.st_ctime_ns, status.st_size, status.st_ino)
        except FileNotFoundError:
            stamp = None
        except OSError as error:
            stamp = (error.errno or 0,)
        if stamp == self._stamp and self.problem is None:
            return
        try:
            records = self.records()
        except KeyTableError as error:
            self._by_digest, self._stamp = {}, None
            if self.problem != str(error):
                log.error("%s; refusing every key until it is fixed", error)
            self.problem = str(error)
            return
        if self.problem is not None:
            log.warning("%s is readable again; keys are accepted", self.path)
        self._by_digest = {record.hash: record for record in records}
        self._stamp, self.problem = stamp, None

    def _write(self, records: list[KeyRecord]) -> None:
        document = {"keys": [msgspec.to_builtins(record) for record in records]}
        write_atomic(self.path, tomli_w.dumps(document).encode())
        self._checked_at = -math.inf


def _ownership_hint(path: Path) -> str:
    try:
        owner = path.stat()
    except OSError:
        return ""
    return (
        f" (the file belongs to uid {owner.st_uid}, mode {owner.st_mode & 0o777:04o}, and this process runs as uid "
        f"{os.geteuid()}; run steward commands as the service's user, see docs/operations.md)"
    )


_INSERT = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[1])
return 1
"""

_REMOVE = """
local record = redis.call('HGET', KEYS[1], ARGV[1])
if not record then return 0 end
redis.call('HDEL', KEYS[2], cjson.decode(record)['hash'])
redis.call('HDEL', KEYS[1], ARGV[1])
return 1
"""

_FIND = """
local name = redis.call('HGET', KEYS[2], ARGV[1])
if not name then return false end
return redis.call('HGET', KEYS[1], name)
"""


class RedisKeyTable:
    """The records of every host that shares one Redis: a key revoked anywhere is refused everywhere.

    Two hashes, records by name and names by digest, written together by one script. Every
    lookup asks Redis (one round trip), so a revocation holds on every host from the next
    request; an unreachable Redis finds nobody (:class:`~steward._state.StateUnavailable`).
    """

    problem: str | None = None

    def __init__(self, state: RedisState) -> None:
        self.state = state
        self._keys = [state.key("keys"), state.key("key-digests")]
        self._decoded: dict[bytes, KeyRecord] = {}

    def records(self) -> list[KeyRecord]:
        with self.state.reached():
            stored = self.state.sync.hvals(self._keys[0])
        return sorted((_decode_record(raw) for raw in stored), key=lambda record: record.created)

    def insert(self, record: KeyRecord) -> bool:
        arguments = [record.name, record.hash, msgspec.json.encode(record)]
        return bool(self.state.sync_script(_INSERT, self._keys, arguments))

    def remove(self, name: str) -> bool:
        return bool(self.state.sync_script(_REMOVE, self._keys, [name]))

    def find_now(self, digest: str) -> KeyRecord | None:
        with self.state.reached():
            name = self.state.sync.hget(self._keys[1], digest)
            raw = self.state.sync.hget(self._keys[0], name) if name else None
        return self._record(raw)

    async def find(self, digest: str) -> KeyRecord | None:
        return self._record(await self.state.script(_FIND, self._keys, [digest]))

    def refresh(self) -> None:
        """Nothing to re-read: every lookup asks Redis."""

    def _record(self, raw: bytes | None) -> KeyRecord | None:
        if raw is None:
            return None
        record = self._decoded.get(raw)
        if record is None:
            if len(self._decoded) >= 1024:
                self._decoded.clear()
            record = self._decoded[raw] = _decode_record(raw)
        return record


_decode_record = msgspec.json.Decoder(KeyRecord).decode
