"""The audit log: one JSON line per outcome, saying that something happened, never what.

A record holds who, which capability, its classification, the surface, the stage reached, the
status, the code and the duration. It never holds arguments, results, query text, URLs, entity
states or secrets: the type below has no field that could carry them.

Each record is one ``write`` on an ``O_APPEND`` descriptor: lines from concurrent writers never
interleave, and a crash loses at most the line being written. The write is not fsynced and not
sent to a thread: a few hundred bytes into the page cache cost microseconds, a thread hop costs
more than the whole executor.
"""

from __future__ import annotations

import datetime
import os
import threading
from pathlib import Path

import msgspec

from steward.capability import NAME_PATTERN, Classification
from steward.outcome import Outcome


class AuditRecord(msgspec.Struct, kw_only=True):
    time: str
    capability: str
    version: int | None
    classification: Classification | None
    caller: str
    surface: str
    stage: str
    status: str
    code: str | None
    duration_ms: float


def audit_name(name: str) -> str:
    """A requested capability name, or a placeholder when it is not a name at all.

    The name of a capability that does not exist comes from the caller (a model, even); it is
    only logged when it has the shape of a name, so free text can never enter the log this way.
    """
    return name if len(name) <= 64 and NAME_PATTERN.match(name) else "<not a capability name>"


class AuditLog:
    def __init__(self, path: Path, *, max_bytes: int = 10 * 1024 * 1024, backups: int = 5) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.backups = backups
        self._lock = threading.Lock()
        self._encoder = msgspec.json.Encoder()
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        self._descriptor = self._open()
        self._size = os.fstat(self._descriptor).st_size

    def record(self, outcome: Outcome, *, caller: str, surface: str) -> None:
        line = (
            self._encoder.encode(
                AuditRecord(
                    time=datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds"),
                    capability=audit_name(outcome.capability),
                    version=outcome.version,
                    classification=outcome.classification,
                    caller=caller,
                    surface=surface,
                    stage=outcome.stage,
                    status=outcome.status,
                    code=outcome.code,
                    duration_ms=round(outcome.duration_ms, 3),
                )
            )
            + b"\n"
        )
        with self._lock:
            if self.max_bytes and self._size + len(line) > self.max_bytes:
                self._size = os.fstat(self._descriptor).st_size
                if self._size + len(line) > self.max_bytes:
                    self._rotate()
            self._size += os.write(self._descriptor, line)

    def close(self) -> None:
        with self._lock:
            os.close(self._descriptor)

    def _open(self) -> int:
        return os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)

    def _rotate(self) -> None:
        os.close(self._descriptor)
        if self.backups > 0:
            for index in range(self.backups - 1, 0, -1):
                older = self.path.with_name(f"{self.path.name}.{index}")
                if older.exists():
                    older.replace(self.path.with_name(f"{self.path.name}.{index + 1}"))
            self.path.replace(self.path.with_name(f"{self.path.name}.1"))
        else:
            self.path.unlink(missing_ok=True)
        self._descriptor = self._open()
        self._size = 0
