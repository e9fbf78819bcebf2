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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import msgspec

Clock = Callable[[], float]


class ConfirmationRequest(msgspec.Struct, frozen=True, kw_only=True):
    """What a token was issued for; ``arguments`` is the canonical JSON of the validated call."""

    capability: str
    version: int
    arguments: bytes
    caller: str
    surface: str


class InvalidConfirmation(Exception):
    """Unknown, already used, foreign, or lost in a restart: the same answer for all, on purpose."""


class TooManyPending(Exception):
    """A caller (or the whole host) has as many unanswered confirmations as it may keep."""


@dataclass(frozen=True)
class Consumed:
    request: ConfirmationRequest
    expired: bool


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


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


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
        digest = token_digest(token)
        with self._lock:
            self._forget_stale()
            entry = self._entries.get(digest)
            if entry is None or not may_answer(entry.request):
                raise InvalidConfirmation("unknown or already used confirmation token")
            del self._entries[digest]
        return Consumed(entry.request, expired=self.clock() >= entry.expires_at)

    def __len__(self) -> int:
        return len(self._entries)

    def _forget_stale(self) -> None:
        horizon = self.clock() - self.expired_grace_seconds
        stale = [key for key, entry in self._entries.items() if entry.expires_at <= horizon]
        for key in stale:
            del self._entries[key]
