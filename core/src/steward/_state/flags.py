"""Where the policy flags' values are kept: JSON files on the memory backend, Redis on the Redis one.

Only storage lives here; which flags exist and what reading one means is :mod:`steward._policy`,
written once against :class:`FlagTable`. Every read goes to the store, never to a copy, so a
switch set anywhere applies to the next request on every host. Anything but a literal ``true``
reads ``false``: a switch that guards traffic leaving the house fails closed.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, Protocol

from steward._files import CorruptFile, locked, read_json_object, write_json_atomic

if TYPE_CHECKING:
    from steward._state.redis import RedisState

log = logging.getLogger("steward.policy")


class FlagLocation(NamedTuple):
    """Where a flag's value sits in the files: ``key`` of the JSON object in ``file``."""

    file: str
    key: str


class FlagTable(Protocol):
    """The values of a fixed set of flags; unknown names are the caller's business."""

    def get_now(self, name: str) -> bool:
        """One flag (for the command line; may block)."""
        ...

    async def get(self, name: str) -> bool:
        """:meth:`get_now`, as the server asks: never blocking its event loop on a network store."""
        ...

    def all_now(self) -> dict[str, bool]:
        """Every flag, by name in order."""
        ...

    async def all(self) -> dict[str, bool]:
        """:meth:`all_now`, without blocking the event loop."""
        ...

    def set(self, name: str, value: bool) -> None:
        """Set one flag, keeping every other value where it is kept."""
        ...

    def problems(self) -> list[str]:
        """Why any flag cannot be trusted right now (for ``/healthz``); such flags read ``false``."""
        ...


class FileFlagTable:
    """Flags as keys of JSON files under one directory (``<data-dir>/capabilities/``).

    A plugin can keep its switch beside its settings, as ``home-assistant.json``'s ``enabled``
    does. A missing file or key, a corrupt file or a value that is not a boolean reads ``false``;
    the last two are logged once and shown as problems.
    """

    def __init__(self, directory: Path, locations: Mapping[str, FlagLocation]) -> None:
        self.directory = directory
        self.locations = dict(sorted(locations.items()))
        self._write_lock = threading.Lock()
        self._reported: set[str] = set()

    def get_now(self, name: str) -> bool:
        value, problem = self._read(self.locations[name])
        if problem is not None and problem not in self._reported:
            self._reported.add(problem)
            log.error("%s; treating it as false", problem)
        return value

    async def get(self, name: str) -> bool:
        return self.get_now(name)

    def all_now(self) -> dict[str, bool]:
        return {name: self.get_now(name) for name in self.locations}

    async def all(self) -> dict[str, bool]:
        return self.all_now()

    def set(self, name: str, value: bool) -> None:
        """Re-read under an inter-process lock, so a concurrent write of another flag (or of the
        plugin's other settings in the same file) is never lost; a corrupt file is not overwritten."""
        location = self.locations[name]
        path = self.directory / location.file
        with self._write_lock, locked(path):
            content = read_json_object(path) or {}
            content[location.key] = bool(value)
            write_json_atomic(path, content)

    def problems(self) -> list[str]:
        return sorted({problem for location in self.locations.values() if (problem := self._read(location)[1])})

    def _read(self, location: FlagLocation) -> tuple[bool, str | None]:
        path = self.directory / location.file
        try:
            content = read_json_object(path)
        except CorruptFile as error:
            return False, str(error)
        if content is None:
            return False, None
        value = content.get(location.key, False)
        if not isinstance(value, bool):
            return False, f"{path}: {location.key} must be true or false, not {value!r}"
        return value, None


class RedisFlagTable:
    """Flags as fields of one Redis hash every host reads; an unreachable Redis is not ``false``
    but :class:`~steward._state.StateUnavailable`, so the request is refused, not run."""

    def __init__(self, state: RedisState, names: list[str]) -> None:
        self.state = state
        self.names = sorted(names)
        self._hash = state.key("policy")

    def get_now(self, name: str) -> bool:
        with self.state.reached():
            return self.state.sync.hget(self._hash, name) == b"true"

    async def get(self, name: str) -> bool:
        with self.state.reached():
            return await self.state.client.hget(self._hash, name) == b"true"

    def all_now(self) -> dict[str, bool]:
        with self.state.reached():
            return self._values(self.state.sync.hgetall(self._hash))

    async def all(self) -> dict[str, bool]:
        with self.state.reached():
            return self._values(await self.state.client.hgetall(self._hash))

    def set(self, name: str, value: bool) -> None:
        with self.state.reached():
            self.state.sync.hset(self._hash, name, b"true" if value else b"false")

    def problems(self) -> list[str]:
        """The Redis itself is the host's own health check; a stored value cannot be malformed."""
        return []

    def _values(self, stored: Mapping[bytes, bytes]) -> dict[str, bool]:
        return {name: stored.get(name.encode()) == b"true" for name in self.names}
