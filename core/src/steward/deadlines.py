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
import contextlib
import heapq
import itertools
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field


@dataclass
class _Watch:
    task: asyncio.Task
    cancelling: int
    fired: bool = False
    finished: bool = False


@dataclass
class _LoopState:
    heap: list[tuple[float, int, _Watch]] = field(default_factory=list)
    ticker: asyncio.TimerHandle | None = None
    finished: int = 0


class Deadlines:
    def __init__(self, resolution: float = 0.05) -> None:
        self.resolution = resolution
        self._order = itertools.count()
        self._loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopState] = weakref.WeakKeyDictionary()

    @contextlib.contextmanager
    def limit(self, seconds: float) -> Iterator[None]:
        """Cancel the current task after ``seconds``; the block then raises :class:`TimeoutError`."""
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None, "deadlines apply to tasks"
        state = self._loops.get(loop)
        if state is None:
            state = self._loops[loop] = _LoopState()
        watch = _Watch(task, task.cancelling())
        heapq.heappush(state.heap, (loop.time() + seconds, next(self._order), watch))
        if state.ticker is None:
            state.ticker = loop.call_later(self.resolution, self._tick, loop, state)
        try:
            yield
        except asyncio.CancelledError:
            if watch.fired and task.uncancel() <= watch.cancelling:
                raise TimeoutError from None
            raise
        else:
            if watch.fired:
                task.uncancel()
        finally:
            watch.finished = True
            state.finished += 1

    def _tick(self, loop: asyncio.AbstractEventLoop, state: _LoopState) -> None:
        now = loop.time()
        heap = state.heap
        while heap and heap[0][0] <= now:
            _, _, watch = heapq.heappop(heap)
            if watch.finished:
                state.finished -= 1
            else:
                watch.fired = True
                watch.task.cancel()
        if state.finished > len(heap) // 2:
            heap[:] = [item for item in heap if not item[2].finished]
            heapq.heapify(heap)
            state.finished = 0
        state.ticker = loop.call_later(self.resolution, self._tick, loop, state) if heap else None
