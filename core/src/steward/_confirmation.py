"""Confirmation tokens: a person's yes, bound to one exact invocation and usable once.

The store keeps tokens under their SHA-256 digest, so whatever holds the store's contents (a
shared Redis, a memory dump) cannot replay them. Consumption is the only state change that
matters, and it is atomic: of any number of concurrent approvals of one token, exactly one wins.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass

import msgspec

from steward._auth import Principal
from steward._capability import Surface
from steward._state import Shelf, ShelfFull


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


def token_digest(token: str) -> str:
    """A confirmation's id: what every store, the executor and the console know it by.

    A surface that holds the token turns it into its id once, where the token arrives; from
    then on nothing handles the token, so nothing can leak or replay it.
    """
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def may_answer(request: ConfirmationRequest, caller: Principal, surface: Surface, capability: str | None) -> bool:
    """The one rule for who may answer a pending confirmation, and where.

    On the ``console`` surface, a key with the ``settings`` scope, whatever surface asked.
    Elsewhere, the key that asked or a ``settings`` key, on the surface that asked, and for
    ``capability`` when the surface names one (the invoke URL does). Anyone else's answer is
    refused as an unknown confirmation's would be, and spends nothing.
    """
    if surface is Surface.CONSOLE:
        return caller.has_scope("settings")
    return (
        (request.asker == caller.identity or caller.has_scope("settings"))
        and request.surface == surface
        and capability in (None, request.capability)
    )


def confirmation_reference(confirmation_id: str) -> str:
    """A short name for a pending confirmation (from its id) that can be shown anywhere: it answers nothing."""
    return "c-" + confirmation_id[:16]


class ConfirmationStore:
    """Pending confirmations on a :class:`~steward._state.Shelf`, under their token's digest.

    A token is due after ``lifetime_seconds`` and kept ``expired_grace_seconds`` more, so a late
    answer gets the truthful ``CONFIRMATION_EXPIRED`` rather than "unknown token". The shelf
    bounds how many wait: per caller (unexpired ones) and in all (expired ones included); beyond
    that :class:`TooManyPending`. A caller that may not answer a token leaves it unspent.
    """

    def __init__(self, shelf: Shelf, lifetime_seconds: float = 120, expired_grace_seconds: float = 600) -> None:
        self.shelf = shelf
        self.lifetime_seconds = lifetime_seconds
        self.expired_grace_seconds = expired_grace_seconds

    async def issue(self, request: ConfirmationRequest) -> str:
        token = secrets.token_urlsafe(32)
        try:
            await self.shelf.put(
                token_digest(token),
                request.caller,
                _encode_request(request),
                due_seconds=self.lifetime_seconds,
                keep_seconds=self.lifetime_seconds + self.expired_grace_seconds,
            )
        except ShelfFull as full:
            if full.limit == "owner":
                raise TooManyPending(
                    f"{request.caller} has {full.count} confirmations waiting for a person (the most it may have); "
                    "answer or let some expire first"
                ) from None
            raise TooManyPending(f"{full.count} confirmations are waiting; retry later") from None
        return token

    async def consume(self, confirmation_id: str, may_answer: Callable[[ConfirmationRequest], bool]) -> Consumed:
        """Take the confirmation (by its id, the token's digest) off the shelf if ``may_answer``
        accepts its request; atomic.

        A confirmation the caller may not answer (another key's) stays, unspent, and the answer
        is :class:`InvalidConfirmation`, as for an unknown one.
        """
        kept = await self.shelf.peek(confirmation_id)
        request = None if kept is None else _decode_request(kept)
        if request is None or not may_answer(request):
            raise InvalidConfirmation("unknown or already used confirmation token")
        due_in = await self.shelf.take(confirmation_id, request.caller, kept)
        if due_in is None:
            raise InvalidConfirmation("unknown or already used confirmation token")
        return Consumed(request, expired=due_in <= 0)

    async def pending(self) -> list[Waiting]:
        """Every unanswered, unexpired confirmation, soonest to expire first."""
        return [
            Waiting(item.id, _decode_request(item.value), item.due_in_seconds) for item in await self.shelf.waiting()
        ]

    def __len__(self) -> int:
        """How many tokens the shelf keeps (expired ones in their grace included): the memory backend's count."""
        return len(self.shelf)  # type: ignore[arg-type]


_encode_request = msgspec.msgpack.Encoder().encode
_decode_request = msgspec.msgpack.Decoder(ConfirmationRequest).decode
