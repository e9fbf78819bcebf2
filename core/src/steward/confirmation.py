"""Confirmation tokens: a person's yes, bound to one exact invocation and usable once.

The store keeps tokens under their SHA-256 digest, so whatever holds the store's contents (a
shared Redis, a memory dump) cannot replay them. Consumption is the only state change that
matters, and it is atomic: of any number of concurrent approvals of one token, exactly one wins.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

if TYPE_CHECKING:
    from steward.state import RedisState

Clock = Callable[[], float]


class ConfirmationRequest(msgspec.Struct, frozen=True, kw_only=True):
    """What a token was issued for; ``arguments`` is the canonical JSON of the validated call."""

    capability: str
    version: int
    arguments: bytes
    caller: str
    """The asker's name, for people and the audit log."""
    surface: str
    asker: str = ""
    """The asker's :attr:`~steward.Principal.identity`: who may answer or withdraw it besides a console."""


class InvalidConfirmation(Exception):
    """Unknown, already used, foreign, or lost in a restart: the same answer for all, on purpose."""


class TooManyPending(Exception):
    """A caller (or the whole host) has as many unanswered confirmations as it may keep."""


@dataclass(frozen=True)
class Consumed:
    request: ConfirmationRequest
    expired: bool


@dataclass(frozen=True)
class Waiting:
    """A confirmation nobody has answered yet, as a household console lists it."""

    id: str
    """The token's digest: names the confirmation for a ``settings`` key, and cannot be used as the token."""
    request: ConfirmationRequest
    expires_in_seconds: float


class ConfirmationStore(Protocol):
    """Where pending confirmations live; a shared backend implements the same two calls."""

    lifetime_seconds: float

    async def issue(self, request: ConfirmationRequest) -> str: ...

    async def consume(self, token: str, may_answer: Callable[[ConfirmationRequest], bool]) -> Consumed:
        """Take the token out of the store if ``may_answer`` accepts its request; atomic.

        A token the caller may not answer (another key's) stays in the store, unspent, and the
        answer is :class:`InvalidConfirmation`, as for an unknown token.
        """
        ...

    async def consume_id(self, confirmation_id: str, may_answer: Callable[[ConfirmationRequest], bool]) -> Consumed:
        """:meth:`consume` by the confirmation's id (its token's digest), for a console's answer."""
        ...

    async def pending(self) -> list[Waiting]:
        """Every unanswered, unexpired confirmation, soonest to expire first."""
        ...


_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Co", "Cn", "Cs"})


def readable_arguments(arguments: Any) -> str:
    """The exact arguments as a person should read them before saying yes: indented JSON in which
    every character that is invisible or reorders the text around it (bidirectional overrides such
    as U+202E, zero-width spaces, line separators) is written as its ``\\uXXXX`` escape.

    Shown raw, ``"\u202eexe.txt"`` reads as ``txt.exe`` and a zero-width space hides a second
    host name; escaped, what is read is what runs. The result is still JSON of the same value.
    """
    text = msgspec.json.format(msgspec.json.encode(arguments), indent=2).decode()
    return "".join(_escaped(char) if unicodedata.category(char) in _HIDDEN_CATEGORIES else char for char in text)


def _escaped(char: str) -> str:
    if char == "\n":
        return char
    code = ord(char)
    if code > 0xFFFF:
        high, low = 0xD800 + ((code - 0x10000) >> 10), 0xDC00 + ((code - 0x10000) & 0x3FF)
        return f"\\u{high:04x}\\u{low:04x}"
    return f"\\u{code:04x}"


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def confirmation_reference(confirmation_id: str) -> str:
    """A short name for a pending confirmation (from its id) that can be shown anywhere: it answers nothing."""
    return "c-" + confirmation_id[:16]


@dataclass
class _Entry:
    request: ConfirmationRequest
    expires_at: float


class MemoryConfirmationStore:
    """The single-process default: a restart forgets every pending token (they become invalid).

    Tokens that expired unanswered are remembered for ``expired_grace_seconds`` more, so a late
    answer gets the truthful ``CONFIRMATION_EXPIRED`` rather than "unknown token". Memory is
    bounded: at most ``max_pending_per_caller`` unexpired tokens per caller and ``max_pending``
    in all (expired ones included); beyond that :class:`TooManyPending`.
    """

    def __init__(
        self,
        lifetime_seconds: float = 120,
        expired_grace_seconds: float = 600,
        clock: Clock = time.monotonic,
        *,
        max_pending_per_caller: int = 32,
        max_pending: int = 4096,
    ) -> None:
        self.lifetime_seconds = lifetime_seconds
        self.expired_grace_seconds = expired_grace_seconds
        self.clock = clock
        self.max_pending_per_caller = max_pending_per_caller
        self.max_pending = max_pending
        self._entries: dict[str, _Entry] = {}
        self._lock = threading.Lock()

    async def issue(self, request: ConfirmationRequest) -> str:
        token = secrets.token_urlsafe(32)
        with self._lock:
            self._forget_stale()
            now = self.clock()
            waiting = sum(
                1
                for entry in self._entries.values()
                if entry.request.caller == request.caller and entry.expires_at > now
            )
            if waiting >= self.max_pending_per_caller:
                raise TooManyPending(
                    f"{request.caller} has {waiting} confirmations waiting for a person (the most it may have); "
                    "answer or let some expire first"
                )
            if len(self._entries) >= self.max_pending:
                raise TooManyPending(f"{len(self._entries)} confirmations are waiting; retry later")
            self._entries[token_digest(token)] = _Entry(request, now + self.lifetime_seconds)
        return token

    async def consume(self, token: str, may_answer: Callable[[ConfirmationRequest], bool]) -> Consumed:
        return await self.consume_id(token_digest(token), may_answer)

    async def consume_id(self, confirmation_id: str, may_answer: Callable[[ConfirmationRequest], bool]) -> Consumed:
        with self._lock:
            self._forget_stale()
            entry = self._entries.get(confirmation_id)
            if entry is None or not may_answer(entry.request):
                raise InvalidConfirmation("unknown or already used confirmation token")
            del self._entries[confirmation_id]
        return Consumed(entry.request, expired=self.clock() >= entry.expires_at)

    async def pending(self) -> list[Waiting]:
        now = self.clock()
        with self._lock:
            waiting = [
                Waiting(digest, entry.request, entry.expires_at - now)
                for digest, entry in self._entries.items()
                if entry.expires_at > now
            ]
        return sorted(waiting, key=lambda item: item.expires_in_seconds)

    def __len__(self) -> int:
        return len(self._entries)

    def _forget_stale(self) -> None:
        horizon = self.clock() - self.expired_grace_seconds
        stale = [key for key, entry in self._entries.items() if entry.expires_at <= horizon]
        for key in stale:
            del self._entries[key]


_ISSUE = """
local now = redis.call('TIME')
now = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local lifetime, grace = tonumber(ARGV[3]), tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
local waiting = redis.call('ZCARD', KEYS[2])
if waiting >= tonumber(ARGV[5]) then return {'caller', waiting} end
local all = redis.call('ZCARD', KEYS[3])
if all >= tonumber(ARGV[6]) then return {'all', all} end
local expires = now + lifetime
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. expires .. ':' .. ARGV[2], 'PX', lifetime + grace)
redis.call('ZADD', KEYS[2], expires, ARGV[7])
redis.call('PEXPIRE', KEYS[2], lifetime + grace)
redis.call('ZADD', KEYS[3], expires + grace, ARGV[7])
redis.call('PEXPIRE', KEYS[3], lifetime + grace)
return {'ok', expires}
"""

_CONSUME = """
local kept = redis.call('GETDEL', KEYS[1])
if not kept then return false end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
local now = redis.call('TIME')
return {kept, tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)}
"""


_PENDING = """
local now = redis.call('TIME')
local answer = {tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)}
for _, digest in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  answer[#answer + 1] = digest
  answer[#answer + 1] = redis.call('GET', ARGV[1] .. digest) or ''
end
return answer
"""


class RedisConfirmationStore:
    """Pending confirmations in Redis, shared by every worker and host that uses it.

    A token is kept under its digest with a Redis lifetime of its own lifetime plus the grace
    period, so Redis forgets it by itself. Consumption is one Lua script that ``GETDEL``s the
    entry: of concurrent approvals on any number of hosts, exactly one gets it. The caller check
    reads the entry first and spends it only if the caller may answer, so a foreign answer never
    spends a token (the entry cannot change between the two: it is written once). Times are
    Redis's own clock (``TIME``), so hosts whose clocks disagree still agree on expiry. The caps
    are those of :class:`MemoryConfirmationStore`, counted across all hosts.
    """

    def __init__(
        self,
        state: RedisState,
        lifetime_seconds: float = 120,
        expired_grace_seconds: float = 600,
        *,
        max_pending_per_caller: int = 32,
        max_pending: int = 4096,
    ) -> None:
        self.state = state
        self.lifetime_seconds = lifetime_seconds
        self.expired_grace_seconds = expired_grace_seconds
        self.max_pending_per_caller = max_pending_per_caller
        self.max_pending = max_pending

    def _keys(self, digest: str, caller: str) -> list[str]:
        return [
            self.state.key("confirmation", digest),
            self.state.key("confirmations-of", caller),
            self.state.key("confirmations"),
        ]

    async def issue(self, request: ConfirmationRequest) -> str:
        token = secrets.token_urlsafe(32)
        digest = token_digest(token)
        answer, count = await self.state.script(
            _ISSUE,
            self._keys(digest, request.caller),
            [
                b"v1",
                msgspec.msgpack.encode(request),
                int(self.lifetime_seconds * 1000),
                int(self.expired_grace_seconds * 1000),
                self.max_pending_per_caller,
                self.max_pending,
                digest,
            ],
        )
        if answer == b"caller":
            raise TooManyPending(
                f"{request.caller} has {count} confirmations waiting for a person (the most it may have); "
                "answer or let some expire first"
            )
        if answer == b"all":
            raise TooManyPending(f"{count} confirmations are waiting; retry later")
        return token

    async def consume(self, token: str, may_answer: Callable[[ConfirmationRequest], bool]) -> Consumed:
        return await self.consume_id(token_digest(token), may_answer)

    async def pending(self) -> list[Waiting]:
        answer = await self.state.script(
            _PENDING, [self.state.key("confirmations")], [self.state.key("confirmation", "")]
        )
        now, waiting = int(answer[0]), []
        for digest, kept in zip(answer[1::2], answer[2::2], strict=True):
            decoded = _decode_kept(kept or None)
            if decoded is not None and decoded[1] > now:
                waiting.append(Waiting(digest.decode(), decoded[0], (decoded[1] - now) / 1000))
        return sorted(waiting, key=lambda item: item.expires_in_seconds)

    async def consume_id(self, confirmation_id: str, may_answer: Callable[[ConfirmationRequest], bool]) -> Consumed:
        digest = confirmation_id
        with self.state.reached():
            kept = await self.state.client.get(self.state.key("confirmation", digest))
        request = _decode_kept(kept)
        if request is None or not may_answer(request[0]):
            raise InvalidConfirmation("unknown or already used confirmation token")
        taken = await self.state.script(_CONSUME, self._keys(digest, request[0].caller), [digest])
        if not taken or taken[0] != kept:
            raise InvalidConfirmation("unknown or already used confirmation token")
        return Consumed(request[0], expired=int(taken[1]) >= request[1])


def _decode_kept(kept: bytes | None) -> tuple[ConfirmationRequest, int] | None:
    """``v1:<expires-at-ms>:<msgpack request>`` as the issue script wrote it."""
    if kept is None:
        return None
    version, _, rest = kept.partition(b":")
    expires, _, encoded = rest.partition(b":")
    if version != b"v1":
        return None
    return msgspec.msgpack.decode(encoded, type=ConfirmationRequest), int(expires)
