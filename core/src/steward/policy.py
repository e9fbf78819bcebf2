"""Policy flags: the household's on/off switches, read fresh on every request.

A flag is a boolean key in a JSON file under ``<data-dir>/capabilities/``. Reads never cache, so
a change applies to the next request with no restart; anything but a literal ``true`` (missing
file, missing key, corrupt file, a string "true") reads as ``false``, because a switch that
guards traffic leaving the house must fail closed.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from steward.files import CorruptFile, locked, read_json_object, write_json_atomic

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
    """Reads and writes the registered flags of one data directory."""

    def __init__(self, directory: Path, flags: Iterable[PolicyFlag]) -> None:
        self.directory = directory
        self.flags = {flag.name: flag for flag in flags}
        self._write_lock = threading.Lock()
        self._reported: set[str] = set()

    def is_enabled(self, name: str) -> bool:
        flag = self.flags.get(name)
        if flag is None:
            return False
        value, problem = self._read(flag)
        if problem is not None:
            self._report(problem)
        return value

    def snapshot(self) -> dict[str, bool]:
        return {name: self.is_enabled(name) for name in sorted(self.flags)}

    def set(self, name: str, value: bool) -> None:
        """Set one flag, keeping every other key of its file; refuses to overwrite a corrupt file.

        The file is re-read under an inter-process lock, so a concurrent write of another flag (or
        of the plugin's other settings in the same file) is never lost.
        """
        flag = self.flags.get(name)
        if flag is None:
            raise UnknownFlag(name)
        path = self.directory / flag.file
        with self._write_lock, locked(path):
            content = read_json_object(path) or {}
            content[flag.file_key] = bool(value)
            write_json_atomic(path, content)

    def problems(self) -> list[str]:
        """Why any flag cannot be trusted right now (for ``/healthz``); such flags read false."""
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
