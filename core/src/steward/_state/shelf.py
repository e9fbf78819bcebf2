"""A shelf: things waiting for a person's answer, each taken at most once.

Pending confirmations and paused conversation turns are the same kind of thing to store: a value
under an unguessable id, owned by one caller, *due* after a while (a confirmation expires) and
*kept* a little longer (so a late answer hears "expired", not "unknown"), bounded per owner and
in all, and taken by exactly one answer however many arrive at once. The core writes those two
once against :class:`Shelf`; each backend implements the shelf once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol


@dataclass(frozen=True)
class ShelfLimits:
    """How much a shelf holds: per owner (items not yet due), and in all (every kept item, bytes)."""

    max_per_owner: int
    max_items: int | None = None
    max_bytes: int | None = None


class ShelfFull(Exception):
    """A :class:`ShelfLimits` bound is reached: ``limit`` names which, ``count`` what it holds."""

    def __init__(self, limit: Literal["owner", "items", "bytes"], count: int) -> None:
        super().__init__(f"the shelf's {limit} limit is reached ({count})")
        self.limit = limit
        self.count = count


@dataclass(frozen=True)
class Shelved:
    id: str
    value: bytes
    due_in_seconds: float


class Shelf(Protocol):
    """Where waiting items live, on the memory or the Redis backend; every call is atomic."""

    async def put(self, item_id: str, owner: str, value: bytes, *, due_seconds: float, keep_seconds: float) -> None:
        """Keep ``value`` under ``item_id`` for ``keep_seconds``; :class:`ShelfFull` when a limit is reached."""
        ...

    async def peek(self, item_id: str) -> bytes | None:
        """The value kept under ``item_id``, left where it is; ``None`` once taken or forgotten."""
        ...

    async def take(self, item_id: str, owner: str, value: bytes) -> float | None:
        """Remove the item if it still holds ``value`` and answer its seconds until due (negative
        once past); ``None`` when another answer took it first. Peek, decide, then take: a
        caller that may not take an item leaves it on the shelf, unspent."""
        ...

    async def waiting(self) -> list[Shelved]:
        """Every item not yet due, soonest due first."""
        ...
