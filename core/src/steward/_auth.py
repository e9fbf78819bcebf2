"""API keys and scopes: who is calling, and what they may do.

Keys are 256-bit random strings shown once; only their SHA-256 digests are stored (a fast hash
suffices for keys this long: there is nothing to brute-force), in ``keys.toml`` on the memory
backend and in the shared Redis on the Redis one (:mod:`steward._state.keys`). Either way the
store fails closed: while the keys cannot be read or trusted, nobody is authenticated
(:class:`KeysUnavailable`, a 503, not "wrong key"), so a key revoked where the server cannot
read is never honoured from a stale copy.
"""

from __future__ import annotations

import datetime
import hashlib
import re
import secrets
from collections.abc import Sequence
from pathlib import Path

import msgspec

from steward._state.keys import FileKeyTable, KeyRecord, KeyTable, KeyTableError

SCOPES = ("conversation", "settings", "invoke", "service", "admin")
KEY_PREFIX = "stw_"
MOVED_SUFFIX = ".moved-to-redis"

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


class KeyStoreError(ValueError):
    """A key operation that cannot be done as asked (duplicate name, unknown scope, an unusable store)."""


class KeysUnavailable(RuntimeError):
    """The stored keys cannot be read or trusted right now; nobody is authenticated until they can."""


def key_digest(key: str) -> str:
    return "sha256:" + hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


class KeyStore:
    """The API keys, in whatever :class:`~steward._state.keys.KeyTable` the state backend keeps them.

    Keys that authenticated are remembered with their digest, so a key is hashed once and not on
    every request; only valid keys are remembered, at most 1,024 of them. The record itself is
    looked up on every request, so a revocation holds from the next one.
    """

    def __init__(self, table: KeyTable) -> None:
        self.table = table
        self._digests: dict[str, str] = {}
        self._principals: dict[str, tuple[KeyRecord, Principal]] = {}

    @classmethod
    def in_file(cls, path: Path, *, recheck_seconds: float = 1.0) -> KeyStore:
        """The keys of a ``keys.toml`` (the memory backend's, or one being moved to Redis)."""
        return cls(FileKeyTable(path, recheck_seconds=recheck_seconds))

    @property
    def problem(self) -> str | None:
        return self.table.problem

    def records(self) -> list[KeyRecord]:
        """Every stored key; :class:`KeyStoreError` saying which file and why when it cannot be used."""
        try:
            return self.table.records()
        except KeyTableError as error:
            raise KeyStoreError(str(error)) from None

    def add(self, name: str, scopes: Sequence[str], preapproved: Sequence[str] = ()) -> str:
        """Store a new key's digest and return the key itself, which is never stored."""
        key, record = new_key(name, scopes, preapproved)
        try:
            inserted = self.table.insert(record)
        except KeyTableError as error:
            raise KeyStoreError(str(error)) from None
        if not inserted:
            raise KeyStoreError(f"a key named {name!r} already exists; revoke it first")
        return key

    def revoke(self, name: str) -> bool:
        try:
            return self.table.remove(name)
        except KeyTableError as error:
            raise KeyStoreError(str(error)) from None

    def move_from(self, path: Path) -> int:
        """Copy the records of a memory-backend ``keys.toml`` here, then rename the file; how many were new.

        The file is renamed (``keys.toml.moved-to-redis``) so that it is never read again: a key
        revoked in Redis later must not come back from a stale file.
        """
        moved = sum(self.table.insert(record) for record in KeyStore.in_file(path).records())
        path.replace(path.with_name(path.name + MOVED_SUFFIX))
        return moved

    def lookup(self, key: str) -> Principal | None:
        """The key's principal, ``None`` for an unknown key; :class:`KeysUnavailable` while the keys are unusable."""
        digest = self._digests.get(key) or key_digest(key)
        return self._principal(key, digest, self.table.find_now(digest))

    async def find(self, key: str) -> Principal | None:
        """:meth:`lookup`, as the server calls it (on Redis, without blocking the event loop)."""
        digest = self._digests.get(key) or key_digest(key)
        return self._principal(key, digest, await self.table.find(digest))

    def refresh(self) -> None:
        """Look at the stored keys now (``/healthz`` does, so it reports a problem the moment it appears)."""
        self.table.refresh()

    def _principal(self, key: str, digest: str, record: KeyRecord | None) -> Principal | None:
        if record is None:
            if self.table.problem is not None:
                raise KeysUnavailable(self.table.problem)
            return None
        known = self._principals.get(digest)
        if known is not None and known[0] == record:
            return known[1]
        if len(self._principals) >= 1024:
            self._principals.clear()
            self._digests.clear()
        principal = Principal(record.name, frozenset(record.scopes), frozenset(record.preapproved), key_id=record.hash)
        self._principals[digest] = (record, principal)
        self._digests[key] = digest
        return principal


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


def bearer_key(authorization: str | None) -> str | None:
    """The key in an ``Authorization: Bearer …`` header, or ``None``."""
    if not authorization:
        return None
    scheme, _, value = authorization.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()
