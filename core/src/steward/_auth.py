"""API keys and scopes: who is calling, and what they may do.

Keys are 256-bit random strings shown once; ``keys.toml`` stores only their SHA-256 digests
(a fast hash suffices for keys this long: there is nothing to brute-force). A running server
re-reads the file when it changes, looking at most once per ``recheck_seconds`` (a ``stat`` per
request is a tenth of the invoke endpoint's cost here), so ``steward keys revoke`` in another
process takes effect within a second; changes made through the same store apply at once.

The store fails closed: when the file cannot be read or parsed, no key is known (every request
is refused with :class:`KeysUnavailable`, a 503, not "wrong key") until it can be again, so a key
revoked in a file the server cannot read is never honoured from a stale table. Changes are made
under :func:`~steward._files.locked` and re-read the file first, so concurrent ``keys add`` and
``keys revoke`` in several processes never lose one another's work.
Keys that have authenticated are remembered until the file changes, so a key is hashed once and
not on every request; only valid keys are remembered, never more of them than the file holds.

On the redis state backend :class:`RedisKeyStore` holds the same records in Redis and looks each
request's key up there, so a key revoked through any host is refused by every host at once.
"""

from __future__ import annotations

import datetime
import hashlib
import logging
import math
import os
import re
import secrets
import threading
import time
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec
import tomli_w

from steward._files import locked, write_atomic

if TYPE_CHECKING:
    from steward._state import RedisState

SCOPES = ("conversation", "settings", "invoke", "service", "admin")
KEY_PREFIX = "stw_"
MOVED_SUFFIX = ".moved-to-redis"
log = logging.getLogger("steward.auth")

NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")


class Principal(msgspec.Struct, frozen=True):
    """An authenticated caller. ``admin`` holds every scope."""

    name: str
    """The key's name; it appears in the audit log."""
    scopes: frozenset[str]
    """Among ``conversation``, ``settings``, ``invoke``, ``service``, ``admin``."""
    preapproved: frozenset[str] = frozenset()
    """Capabilities this key may run without confirmation."""
    key_id: str = ""
    """The stored digest of the key itself, when the caller came with one of Steward's keys."""

    def has_scope(self, scope: str) -> bool:
        return scope in self.scopes or "admin" in self.scopes

    @property
    def identity(self) -> str:
        """What state bound to this caller (pending confirmations, MCP sessions) is bound to.

        The key's digest, not its name: a key revoked and another added under the same name is
        a stranger to everything the first one left pending. A caller an ``authenticate`` hook
        made without a key is known by its name.
        """
        return self.key_id or "name:" + self.name


class KeyRecord(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    name: str
    hash: str
    scopes: list[str]
    preapproved: list[str] = []
    created: str = ""


class _KeyFile(msgspec.Struct, forbid_unknown_fields=True):
    keys: list[KeyRecord] = []


class KeyStoreError(ValueError):
    """A key operation that cannot be done as asked (duplicate name, unknown scope, …)."""


class KeysUnavailable(RuntimeError):
    """The key file cannot be read or trusted right now; nobody is authenticated until it can."""


def key_digest(key: str) -> str:
    return "sha256:" + hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


class KeyStore:
    def __init__(self, path: Path, *, recheck_seconds: float = 1.0) -> None:
        self.path = path
        self.recheck_seconds = recheck_seconds
        self._lock = threading.Lock()
        self._stamp: tuple[int, int] | None = None
        self._checked_at = -math.inf
        self._by_digest: dict[str, Principal] = {}
        self._by_key: dict[str, Principal] = {}
        self.problem: str | None = None

    def records(self) -> list[KeyRecord]:
        """Every stored key; :class:`KeyStoreError` saying which file and why when it cannot be used."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return []
        except OSError as error:
            raise KeyStoreError(f"{self.path} cannot be read: {error.strerror}{_ownership_hint(self.path)}") from None
        try:
            return msgspec.convert(tomllib.loads(raw.decode()), type=_KeyFile).keys
        except (tomllib.TOMLDecodeError, msgspec.ValidationError, UnicodeDecodeError) as error:
            raise KeyStoreError(f"{self.path} is not a valid key file: {error}") from None

    def add(self, name: str, scopes: Sequence[str], preapproved: Sequence[str] = ()) -> str:
        """Store a new key's digest and return the key itself, which is never stored."""
        key, record = new_key(name, scopes, preapproved)
        with self._lock, locked(self.path):
            records = self.records()
            if any(existing.name == name for existing in records):
                raise KeyStoreError(_duplicate(name))
            records.append(record)
            self._write(records)
        return key

    def revoke(self, name: str) -> bool:
        with self._lock, locked(self.path):
            records = self.records()
            kept = [record for record in records if record.name != name]
            if len(kept) == len(records):
                return False
            self._write(kept)
            return True

    def lookup(self, key: str) -> Principal | None:
        """The key's principal, ``None`` for an unknown key; :class:`KeysUnavailable` while the file is unusable."""
        self._reload_if_changed()
        if self.problem is not None:
            raise KeysUnavailable(self.problem)
        principal = self._by_key.get(key)
        if principal is None:
            principal = self._by_digest.get(key_digest(key))
            if principal is not None and len(self._by_key) < len(self._by_digest):
                self._by_key[key] = principal
        return principal

    async def find(self, key: str) -> Principal | None:
        """:meth:`lookup`, as the server calls it (the Redis store must wait for Redis)."""
        return self.lookup(key)

    def refresh(self) -> None:
        """Look at the file now (``/healthz`` does, so it reports a problem the moment it appears)."""
        self._checked_at = -math.inf
        self._reload_if_changed()

    def _reload_if_changed(self) -> None:
        now = time.monotonic()
        if now - self._checked_at < self.recheck_seconds:
            return
        self._checked_at = now
        try:
            status = self.path.stat()
            stamp = (status.st_mtime_ns, status.st_ctime_ns, status.st_size, status.st_ino)
        except FileNotFoundError:
            stamp = None
        except OSError as error:
            stamp = (error.errno,)
        if stamp == self._stamp and self.problem is None:
            return
        self._by_key = {}
        try:
            records = self.records()
        except KeyStoreError as error:
            self._by_digest, self._stamp = {}, None
            if self.problem != str(error):
                log.error("%s; refusing every key until it is fixed", error)
            self.problem = str(error)
            return
        if self.problem is not None:
            log.warning("%s is readable again; keys are accepted", self.path)
        self._by_digest = {record.hash: _principal(record) for record in records}
        self._stamp, self.problem = stamp, None

    def _write(self, records: list[KeyRecord]) -> None:
        document = {"keys": [msgspec.to_builtins(record) for record in records]}
        write_atomic(self.path, tomli_w.dumps(document).encode())
        self._checked_at = -math.inf


def open_key_store(data_dir: Path, shared: RedisState | None) -> KeyStore | RedisKeyStore:
    """``<data-dir>/keys.toml`` on the memory backend; the shared Redis's keys on the redis one."""
    return KeyStore(data_dir / "keys.toml") if shared is None else RedisKeyStore(shared)


def new_key(name: str, scopes: Sequence[str], preapproved: Sequence[str] = ()) -> tuple[str, KeyRecord]:
    """A fresh key and the record that stores its digest; :class:`KeyStoreError` for a bad name or scope."""
    if not NAME_PATTERN.match(name):
        raise KeyStoreError(f"key name {name!r} must be 1-64 letters, digits or ._@-")
    unknown = sorted(set(scopes) - set(SCOPES))
    if unknown or not scopes:
        raise KeyStoreError(f"scopes must be among {', '.join(SCOPES)} (got {', '.join(unknown) or 'none'})")
    key = KEY_PREFIX + secrets.token_urlsafe(32)
    record = KeyRecord(
        name=name,
        hash=key_digest(key),
        scopes=sorted(set(scopes)),
        preapproved=sorted(set(preapproved)),
        created=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    )
    return key, record


def _duplicate(name: str) -> str:
    return f"a key named {name!r} already exists; revoke it first"


def _principal(record: KeyRecord) -> Principal:
    return Principal(record.name, frozenset(record.scopes), frozenset(record.preapproved), key_id=record.hash)


_ADD_KEY = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[1])
return 1
"""

_REVOKE_KEY = """
local record = redis.call('HGET', KEYS[1], ARGV[1])
if not record then return 0 end
redis.call('HDEL', KEYS[2], cjson.decode(record)['hash'])
redis.call('HDEL', KEYS[1], ARGV[1])
return 1
"""

_FIND_KEY = """
local name = redis.call('HGET', KEYS[2], ARGV[1])
if not name then return false end
return redis.call('HGET', KEYS[1], name)
"""


class RedisKeyStore:
    """The keys of every host that shares one Redis: a key revoked anywhere is refused everywhere.

    Two hashes: records by name, names by digest, written together by one script. Every request
    looks its key up in Redis (one round trip), so a revocation holds on every host from the
    next request; an unreachable Redis authenticates nobody (:class:`~steward._state.StateUnavailable`).
    """

    def __init__(self, state: RedisState) -> None:
        self.state = state
        self.problem: str | None = None
        self._keys = [state.key("keys"), state.key("key-digests")]
        self._decoded: dict[bytes, Principal] = {}

    def records(self) -> list[KeyRecord]:
        with self.state.reached():
            stored = self.state.sync.hvals(self._keys[0])
        return sorted((_decode_record(raw) for raw in stored), key=lambda record: record.created)

    def add(self, name: str, scopes: Sequence[str], preapproved: Sequence[str] = ()) -> str:
        key, record = new_key(name, scopes, preapproved)
        added = self.state.sync_script(_ADD_KEY, self._keys, [name, record.hash, msgspec.json.encode(record)])
        if not added:
            raise KeyStoreError(_duplicate(name))
        return key

    def revoke(self, name: str) -> bool:
        return bool(self.state.sync_script(_REVOKE_KEY, self._keys, [name]))

    def move_from(self, path: Path) -> int:
        """Copy the records of a memory-backend ``keys.toml`` here, then rename the file; how many were new.

        The file is renamed (``keys.toml.moved-to-redis``) so that it is never read again: a key
        revoked in Redis later must not come back from a stale file.
        """
        moved = 0
        for record in KeyStore(path).records():
            arguments = [record.name, record.hash, msgspec.json.encode(record)]
            moved += bool(self.state.sync_script(_ADD_KEY, self._keys, arguments))
        path.replace(path.with_name(path.name + MOVED_SUFFIX))
        return moved

    def lookup(self, key: str) -> Principal | None:
        with self.state.reached():
            name = self.state.sync.hget(self._keys[1], key_digest(key))
            raw = self.state.sync.hget(self._keys[0], name) if name else None
        return self._principal(raw)

    async def find(self, key: str) -> Principal | None:
        return self._principal(await self.state.script(_FIND_KEY, self._keys, [key_digest(key)]))

    def refresh(self) -> None:
        """Nothing to re-read: every lookup asks Redis."""

    def _principal(self, raw: bytes | None) -> Principal | None:
        if raw is None:
            return None
        principal = self._decoded.get(raw)
        if principal is None:
            if len(self._decoded) >= 1024:
                self._decoded.clear()
            principal = self._decoded[raw] = _principal(_decode_record(raw))
        return principal


_decode_record = msgspec.json.Decoder(KeyRecord).decode


def _ownership_hint(path: Path) -> str:
    try:
        owner = path.stat()
    except OSError:
        return ""
    return (
        f" (the file belongs to uid {owner.st_uid}, mode {owner.st_mode & 0o777:04o}, and this process runs as uid "
        f"{os.geteuid()}; run steward commands as the service's user, see docs/operations.md)"
    )


def bearer_key(authorization: str | None) -> str | None:
    """The key in an ``Authorization: Bearer …`` header, or ``None``."""
    if not authorization:
        return None
    scheme, _, value = authorization.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()
