"""How many invocations run at once on this host: one counter for every surface, one cap.

``server.max_concurrent_invocations`` bounds what runs, wherever it was asked: REST, MCP, a
conversation. A call waiting for a person's answer is not running and holds no slot, so people
who are slow to answer never make a host refuse everyone else.
"""

from __future__ import annotations

from types import TracebackType


class Busy(Exception):
    """Every slot is taken; the caller should retry shortly (``429 BUSY``)."""


class Admission:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.running = 0

    def slot(self) -> Admission:
        """``with admission.slot():`` holds one slot while the block runs; :class:`Busy` at once when none is free.

        The admission is its own context manager (a class, not a generator: this runs on every
        invocation), so one object counts every slot of the host.
        """
        return self

    def __enter__(self) -> None:
        if self.running >= self.limit:
            raise Busy("too many invocations in flight; retry shortly")
        self.running += 1

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.running -= 1
