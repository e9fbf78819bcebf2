"""Handler timeouts with one timer per event loop instead of one per invocation.

``asyncio.timeout`` arms and disarms a loop timer on every call. Under uvloop that measured about
40 µs of server CPU per invocation (``bench/http_throughput.py``), more than all six executor
stages together. Here each invocation only pushes its deadline onto a heap; one ticker per loop,
running only while deadlines are pending, cancels the tasks that overran. A deadline is honoured
within ``resolution`` seconds, which is nothing next to timeouts counted in seconds.

The cancellation is the real thing (``task.cancel()``), and it is told apart from any other
cancellation exactly as ``asyncio.timeout`` does it, with ``Task.uncancel``.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import weakref
from dataclasses import dataclass, field
from types import TracebackType


@dataclass
class _LoopState:
    heap: list[tuple[float, int, Limit]] = field(default_factory=list)
    ticker: asyncio.TimerHandle | None = None
    finished: int = 0


class Limit:
    """One deadline, as a ``with`` block: it raises :class:`TimeoutError` when the deadline fires.

    A class rather than a generator-based context manager: this runs on every invocation.
    """

    __slots__ = ("_cancelling", "_deadlines", "_seconds", "_state", "_task", "finished", "fired")

    def __init__(self, deadlines: Deadlines, seconds: float) -> None:
        self._deadlines, self._seconds = deadlines, seconds
        self.fired = self.finished = False

    def __enter__(self) -> None:
        task = asyncio.current_task()
        assert task is not None, "deadlines apply to tasks"
        self._task, self._cancelling = task, task.cancelling()
        self._state = self._deadlines.watch(task.get_loop(), self._seconds, self)

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.finished = True
        self._state.finished += 1
        if self.fired and self._task.uncancel() <= self._cancelling and kind is asyncio.CancelledError:
            raise TimeoutError from None

    def fire(self) -> None:
        self.fired = True
        self._task.cancel()


class Deadlines:
    def __init__(self, resolution: float = 0.05) -> None:
        self.resolution = resolution
        self._order = itertools.count()
        self._loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopState] = weakref.WeakKeyDictionary()
        self._last: tuple[weakref.ref[asyncio.AbstractEventLoop], _LoopState] | None = None
        """The loop seen last and its state: a server runs one loop, so the lookup is usually this."""

    def limit(self, seconds: float) -> Limit:
        """Cancel the current task after ``seconds``; the block then raises :class:`TimeoutError`."""
        return Limit(self, seconds)

    def watch(self, loop: asyncio.AbstractEventLoop, seconds: float, limit: Limit) -> _LoopState:
        last = self._last
        if last is not None and last[0]() is loop:
            state = last[1]
        else:
            state = self._loops.get(loop)
            if state is None:
                state = self._loops[loop] = _LoopState()
            self._last = (weakref.ref(loop), state)
        heapq.heappush(state.heap, (loop.time() + seconds, next(self._order), limit))
        if state.ticker is None:
            state.ticker = loop.call_later(self.resolution, self._tick, loop, state)
        return state

    def _tick(self, loop: asyncio.AbstractEventLoop, state: _LoopState) -> None:
        now = loop.time()
        heap = state.heap
        while heap and heap[0][0] <= now:
            _, _, limit = heapq.heappop(heap)
            if limit.finished:
                state.finished -= 1
            else:
                limit.fire()
        if state.finished > len(heap) // 2:
            heap[:] = [item for item in heap if not item[2].finished]
            heapq.heapify(heap)
            state.finished = 0
        state.ticker = loop.call_later(self.resolution, self._tick, loop, state) if heap else None
