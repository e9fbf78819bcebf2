"""How a handler runs: an ``async def`` on the event loop, watched; a plain ``def`` in a thread.

Everything on the event loop shares it: one handler that blocks it (a ``time.sleep``, a
synchronous HTTP call, a long computation) stalls every other request, ``/healthz`` included,
and no deadline can interrupt it. So:

- A plain ``def`` handler is declared blocking by its very shape and runs in a bounded pool of
  threads (``[server] blocking_threads``). At its deadline the caller gets ``TIMEOUT`` at once; the
  thread cannot be stopped and finishes on its own, holding one of the pool's threads meanwhile.
- An ``async def`` handler runs on the loop, and each stretch it runs without yielding is timed:
  one longer than ``blocking_threshold_seconds`` (0.1 s) is a bug in the plugin. It is logged with
  the capability's name, counted (``steward_loop_blocked``), and shown in ``/healthz`` (degraded)
  for ten minutes, so an operator learns which plugin to fix.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import logging
import threading
import time
from collections.abc import Callable, Coroutine, Generator
from typing import Any

log = logging.getLogger("steward.handlers")

BlockObserver = Callable[[str, float], None]


_NOTHING: Any = object()


class _Watched:
    """Drives a coroutine step by step, as a Task would, timing each step between awaits.

    :meth:`first_step` runs the first step at once: a handler that answers without awaiting
    anything (a lookup, a computation) is then done before any deadline or task machinery is set
    up for it, which was a tenth of what the executor cost per call.
    """

    __slots__ = ("_coroutine", "_name", "_runner", "_yielded", "result")

    def __init__(self, coroutine: Coroutine[Any, Any, Any], name: str, runner: HandlerRunner) -> None:
        self._coroutine, self._name, self._runner = coroutine, name, runner
        self._yielded: Any = _NOTHING
        self.result: Any = _NOTHING

    def first_step(self) -> bool:
        """Run the coroutine up to its first await; ``True`` when it finished (see :attr:`result`)."""
        started = time.perf_counter()
        try:
            self._yielded = self._coroutine.send(None)
        except StopIteration as finished:
            self.result = finished.value
            return True
        finally:
            self._check(time.perf_counter() - started, self._runner.threshold_seconds)
        return False

    def __await__(self) -> Generator[Any, Any, Any]:
        send, throw = self._coroutine.send, self._coroutine.throw
        threshold = self._runner.threshold_seconds
        value: Any = None
        error: BaseException | None = None
        yielded, self._yielded = self._yielded, _NOTHING
        while True:
            if yielded is _NOTHING:
                started = time.perf_counter()
                try:
                    yielded = send(value) if error is None else throw(error)
                except StopIteration as finished:
                    self._check(time.perf_counter() - started, threshold)
                    return finished.value
                except BaseException:
                    self._check(time.perf_counter() - started, threshold)
                    raise
                self._check(time.perf_counter() - started, threshold)
            try:
                value, error = (yield yielded), None
            except BaseException as raised:  # noqa: BLE001 - cancellation and errors go back into the handler
                value, error = None, raised
            yielded = _NOTHING

    def _check(self, seconds: float, threshold: float) -> None:
        if seconds > threshold:
            self._runner.blocked(self._name, seconds)


class HandlerRunner:
    """Runs handlers; remembers which async handlers blocked the loop lately."""

    def __init__(
        self,
        *,
        threads: int = 8,
        threshold_seconds: float = 0.1,
        remember_seconds: float = 600,
        observe_block: BlockObserver | None = None,
    ) -> None:
        self.threshold_seconds = threshold_seconds
        self.remember_seconds = remember_seconds
        self.observe_block = observe_block
        self._threads = concurrent.futures.ThreadPoolExecutor(threads, thread_name_prefix="steward-blocking")
        self._recent: collections.deque[tuple[float, str, float]] = collections.deque(maxlen=64)
        self._lock = threading.Lock()

    def start(
        self, name: str, handler: Callable[..., Any], blocking: bool, arguments: Any, context: Any
    ) -> tuple[bool, Any]:
        """The handler under way: ``(True, result)`` when an async handler finished within its first
        step, else ``(False, awaitable)`` to await under the invocation's deadline (a plain ``def``
        runs in the thread pool)."""
        if blocking:
            return False, asyncio.get_running_loop().run_in_executor(self._threads, handler, arguments, context)
        watched = _Watched(handler(arguments, context), name, self)
        if watched.first_step():
            return True, watched.result
        return False, watched

    def blocked(self, name: str, seconds: float) -> None:
        log.warning(
            "%s blocked the event loop for %.0f ms: every other request waited; make its handler a plain def "
            "(run in a thread) or await its slow work",
            name,
            seconds * 1000,
        )
        with self._lock:
            self._recent.append((time.monotonic(), name, seconds))
        if self.observe_block is not None:
            self.observe_block(name, seconds)

    def problems(self) -> list[str]:
        """The capabilities that blocked the loop in the last ``remember_seconds``, for ``/healthz``."""
        horizon = time.monotonic() - self.remember_seconds
        worst: dict[str, float] = {}
        with self._lock:
            for when, name, seconds in self._recent:
                if when >= horizon:
                    worst[name] = max(worst.get(name, 0.0), seconds)
        return [
            f"{name} blocked the event loop (up to {seconds * 1000:.0f} ms) in the last "
            f"{self.remember_seconds / 60:g} minutes"
            for name, seconds in sorted(worst.items())
        ]

    def close(self) -> None:
        self._threads.shutdown(wait=False, cancel_futures=True)
