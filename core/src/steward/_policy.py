"""Policy flags: the household's on/off switches, read fresh on every request.

A flag is a boolean key in a JSON file under ``<data-dir>/capabilities/`` or, on the Redis
state backend, a field of one Redis hash every host reads (:mod:`steward._state.flags`). Reads
never cache, so a change applies to the next request with no restart, on every host; anything
but a literal ``true`` (missing file, missing key, corrupt file, a string "true") reads as
``false``, because a switch that guards traffic leaving the house must fail closed. An
unreachable Redis is not ``false`` but :class:`~steward._state.StateUnavailable`: the request
is refused, not run.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from steward._state.flags import FileFlagTable, FlagLocation, FlagTable

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
    label: str = ""
    """The switch's name for people ("Web search"); the name when empty."""

    @property
    def file_key(self) -> str:
        return self.key or self.name


class UnknownFlag(KeyError):
    pass


class Policy:
    """The registered flags and their values, kept where the state backend keeps them.

    The synchronous methods serve the command line and tests; the server reads with
    :meth:`enabled` and :meth:`current`, which never block its event loop on Redis.
    """

    def __init__(self, flags: Iterable[PolicyFlag], table: FlagTable) -> None:
        self.flags = {flag.name: flag for flag in flags}
        self.table = table

    @classmethod
    def in_directory(cls, directory: Path, flags: Iterable[PolicyFlag]) -> Policy:
        """The flags of files under ``directory`` (the memory backend's ``<data-dir>/capabilities/``)."""
        flags = list(flags)
        return cls(flags, FileFlagTable(directory, locations(flags)))

    def is_enabled(self, name: str) -> bool:
        return name in self.flags and self.table.get_now(name)

    async def enabled(self, name: str) -> bool:
        """:meth:`is_enabled`, without blocking the loop on the shared backend."""
        return name in self.flags and await self.table.get(name)

    def snapshot(self) -> dict[str, bool]:
        return self.table.all_now()

    async def current(self) -> dict[str, bool]:
        """:meth:`snapshot`, without blocking the loop on the shared backend."""
        return await self.table.all()

    def set(self, name: str, value: bool) -> None:
        """Set one flag, keeping every other one (and, in a file, the plugin's other settings)."""
        if name not in self.flags:
            raise UnknownFlag(name)
        self.table.set(name, value)

    def problems(self) -> list[str]:
        """Why any flag cannot be trusted right now (for ``/healthz``); such flags read false."""
        return self.table.problems()


def locations(flags: Iterable[PolicyFlag]) -> dict[str, FlagLocation]:
    """Where each flag sits in the files, for a :class:`~steward._state.flags.FileFlagTable`."""
    return {flag.name: FlagLocation(flag.file, flag.file_key) for flag in flags}
