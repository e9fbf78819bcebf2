"""Policy flags: the household's on/off switches, read fresh on every request.

A flag is a boolean key in a JSON file under ``<data-dir>/capabilities/`` or, on the Redis
state backend, a field of one Redis hash every host reads. Reads never cache, so a change
applies to the next request with no restart, on every host; anything but a literal ``true``
(missing file, missing key, corrupt file, a string "true") reads as ``false``, because a switch
that guards traffic leaving the house must fail closed. An unreachable Redis is not ``false``
but :class:`~steward._state.StateUnavailable`: the request is refused, not run.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from steward._files import CorruptFile, locked, read_json_object, write_json_atomic

if TYPE_CHECKING:
    from steward._state import RedisState

log = logging.getLogger("steward.policy")

DEFAULT_POLICY_FILE = "policy.json"


@dataclass(frozen=True)
class PolicyFlag:
    """A flag a plugin owns; ``file`` is relative to ``<data-dir>/capabilities/``.

    ``key`` is the flag's key inside that file (default: its name), so a plugin can keep its
    switch beside its settings, as ``home-assistant.json``'s ``enabled`` does.
    """

    name: str
    """The flag a capability's ``policy_key`` names; unique across plugins."""
    description: str
    """Shown to the person who sets it (``steward policy``, the console)."""
    file: str = DEFAULT_POLICY_FILE
    """JSON file under ``<data-dir>/capabilities/`` that holds it."""
    key: str | None = None
    """Its key inside ``file`` (default: ``name``)."""

    @property
    def file_key(self) -> str:
        return self.key or self.name


class UnknownFlag(KeyError):
    pass


class Policy:
    """Reads and writes the registered flags: of one data directory, or of the shared Redis.

    The synchronous methods serve the command line and tests; the server reads with
    :meth:`enabled` and :meth:`current`, which never block its event loop on Redis.
    """

    def __init__(self, directory: Path, flags: Iterable[PolicyFlag], shared: RedisState | None = None) -> None:
        self.directory = directory
        self.flags = {flag.name: flag for flag in flags}
        self.shared = shared
        self._write_lock = threading.Lock()
        self._reported: set[str] = set()

    def is_enabled(self, name: str) -> bool:
        flag = self.flags.get(name)
        if flag is None:
            return False
        if self.shared is not None:
            with self.shared.reached():
                return self.shared.sync.hget(self._hash, name) == b"true"
        value, problem = self._read(flag)
        if problem is not None:
            self._report(problem)
        return value

    async def enabled(self, name: str) -> bool:
        """:meth:`is_enabled`, read from Redis without blocking the loop on the shared backend."""
        if self.shared is None or name not in self.flags:
            return self.is_enabled(name)
        with self.shared.reached():
            return await self.shared.client.hget(self._hash, name) == b"true"

    def snapshot(self) -> dict[str, bool]:
        if self.shared is not None:
            with self.shared.reached():
                stored = self.shared.sync.hgetall(self._hash)
            return self._from_hash(stored)
        return {name: self.is_enabled(name) for name in sorted(self.flags)}

    async def current(self) -> dict[str, bool]:
        """:meth:`snapshot`, without blocking the loop on the shared backend."""
        if self.shared is None:
            return self.snapshot()
        with self.shared.reached():
            stored = await self.shared.client.hgetall(self._hash)
        return self._from_hash(stored)

    @property
    def _hash(self) -> str:
        assert self.shared is not None
        return self.shared.key("policy")

    def _from_hash(self, stored: dict[bytes, bytes]) -> dict[str, bool]:
        return {name: stored.get(name.encode()) == b"true" for name in sorted(self.flags)}

    def set(self, name: str, value: bool) -> None:
        """Set one flag, keeping every other key of its file; refuses to overwrite a corrupt file.

        The file is re-read under an inter-process lock, so a concurrent write of another flag (or
        of the plugin's other settings in the same file) is never lost. On Redis the flag is one
        field of the policy hash, set in one command.
        """
        flag = self.flags.get(name)
        if flag is None:
            raise UnknownFlag(name)
        if self.shared is not None:
            with self.shared.reached():
                self.shared.sync.hset(self._hash, name, b"true" if value else b"false")
            return
        path = self.directory / flag.file
        with self._write_lock, locked(path):
            content = read_json_object(path) or {}
            content[flag.file_key] = bool(value)
            write_json_atomic(path, content)

    def problems(self) -> list[str]:
        """Why any flag cannot be trusted right now (for ``/healthz``); such flags read false."""
        if self.shared is not None:
            return []
        found = {problem for flag in self.flags.values() if (problem := self._read(flag)[1])}
        return sorted(found)

    def _read(self, flag: PolicyFlag) -> tuple[bool, str | None]:
        path = self.directory / flag.file
        try:
            content = read_json_object(path)
        except CorruptFile as error:
            return False, str(error)
        if content is None:
            return False, None
        value = content.get(flag.file_key, False)
        if not isinstance(value, bool):
            return False, f"{path}: {flag.file_key} must be true or false, not {value!r}"
        return value, None

    def _report(self, problem: str) -> None:
        if problem not in self._reported:
            self._reported.add(problem)
            log.error("%s; treating it as false", problem)
