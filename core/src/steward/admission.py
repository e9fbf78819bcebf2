"""How many invocations run at once on this host: one counter for every surface, one cap.

``server.max_concurrent_invocations`` bounds what runs, wherever it was asked: REST, MCP, a
conversation. A call waiting for a person's answer is not running and holds no slot, so people
who are slow to answer never make a host refuse everyone else.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


class Busy(Exception):
    """Every slot is taken; the caller should retry shortly (``429 BUSY``)."""


class Admission:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.running = 0

    @contextlib.contextmanager
    def slot(self) -> Iterator[None]:
        """Hold one slot while the block runs; :class:`Busy` at once when none is free."""
        if self.running >= self.limit:
            raise Busy("too many invocations in flight; retry shortly")
        self.running += 1
        try:
            yield
        finally:
            self.running -= 1
