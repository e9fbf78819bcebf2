"""A plugin's long-lived objects on one host: made once, shared by its handlers, closed at the end.

Connection pools, open cache files, counters of what has been seen: things a plugin wants once
per host rather than once per invocation, and that must be closed when the server stops. Module
globals would outlive the host, leak into the next host a test builds in the same process, and
never be closed; here they belong to the host, which closes them at shutdown.

Objects bound to an event loop (an ``httpx.AsyncClient``, an ``asyncio.Semaphore``) are made
once per loop: the server runs one loop, but a command line or a test may run several.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import threading
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

log = logging.getLogger("steward.resources")

T = TypeVar("T")


class Resources:
    """One plugin's objects on one host (``context.resources`` in a handler)."""

    def __init__(self, plugin: str) -> None:
        self.plugin = plugin
        self._shared: dict[str, Any] = {}
        self._per_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, Any]] = (
            weakref.WeakKeyDictionary()
        )
        self._lock = threading.Lock()

    def get(self, name: str, make: Callable[[], T], *, per_loop: bool = False) -> T:
        """The object called ``name``, made by ``make()`` the first time it is asked for.

        ``per_loop=True`` for objects that belong to the running event loop. Whatever has an
        ``aclose()`` or ``close()`` method is closed when the host stops.
        """
        held = self._loop_objects() if per_loop else self._shared
        with self._lock:
            if name not in held:
                held[name] = make()
            return held[name]

    def _loop_objects(self) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        with self._lock:
            return self._per_loop.setdefault(loop, {})

    async def aclose(self) -> None:
        """Close the objects of the running loop and the shared ones (the server's shutdown)."""
        with self._lock:
            objects = [*self._per_loop.pop(asyncio.get_running_loop(), {}).values(), *self._shared.values()]
            self._shared = {}
        for item in objects:
            await _close(self.plugin, item)

    def close(self) -> None:
        """Close what needs no event loop (the host's own end, after any loop has gone)."""
        with self._lock:
            objects, self._shared = list(self._shared.values()), {}
            self._per_loop = weakref.WeakKeyDictionary()
        for item in objects:
            close = getattr(item, "close", None)
            if callable(close) and not inspect.iscoroutinefunction(close):
                with _reported(self.plugin, item):
                    close()


async def _close(plugin: str, item: Any) -> None:
    with _reported(plugin, item):
        closer = getattr(item, "aclose", None) or getattr(item, "close", None)
        if callable(closer):
            result = closer()
            if inspect.isawaitable(result):
                await result


@contextlib.contextmanager
def _reported(plugin: str, item: Any):
    try:
        yield
    except Exception as error:  # noqa: BLE001 - one object that fails to close must not keep the others open
        log.error("plugin %s: closing %s failed: %s", plugin, type(item).__name__, error)
