"""The audit log: one JSON line per outcome, saying that something happened, never what.

A record holds who, which capability, its classification, the surface, the stage reached, the
status, the code and the duration, and which host and worker process wrote it (several workers
append to one host's log; several hosts each keep their own). It never holds arguments, results,
query text, URLs, entity states or secrets: the type below has no field that could carry them.

Lines reach the file by ``write`` on an ``O_APPEND`` descriptor, so lines from concurrent writers
never interleave. A record that is alone in its event-loop iteration is written at once, before
the response leaves. Under load, the records that follow it in the same iteration are gathered
and written together, with one ``write``, as the loop's next callback: the loop never waits for
the network with a record unwritten, and a crash loses at most the records of the iteration it
interrupts. Formatting and the system call were a third of what an invocation cost over HTTP
(``bench/http_throughput.py``); gathered, they cost a fraction of that. Nothing is fsynced.

Before anything that leaves the device or changes something runs, a ``started`` record is
written at once (:meth:`AuditLog.record_start`); if it cannot be written, the executor does not
run it. A run's outcome record follows it as usual.

The outcome of a call that reads only and stays on the device (``read_only`` and ``local``)
waits up to ``QUIET_SECONDS`` to be written with the others of that span: such a call changes
nothing and tells nobody outside, and on the busiest path (an agent polling ``system.health``) a
``write`` per call was the largest part of what Steward added to a request. A crash loses at
most that span's records of such calls; every other record is written as described above.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import datetime
import logging
import os
import socket
import threading
import time
import weakref
from pathlib import Path
from typing import Any

import msgspec

from steward._capability import NAME_PATTERN, Classification
from steward._files import locked, make_directory, own_like_directory
from steward._outcome import Outcome

log = logging.getLogger("steward.audit")


STARTED = "started"
QUIET_SECONDS = 0.05
"""How long the outcome of a read-only, local call may wait to be written with others."""


class AuditRecord(msgspec.Struct, kw_only=True, omit_defaults=True):
    time: str
    capability: str
    version: int | None
    classification: Classification | None
    caller: str
    """Who gave the call, or for an answer to a confirmation, who answered it."""
    surface: str
    stage: str
    status: str
    code: str | None
    duration_ms: float
    host: str = ""
    worker: int = 0
    asker: str | None = None
    """Who asked, when someone else answered the confirmation (a person in the console)."""


def _flush_at_exit(log: weakref.ref[AuditLog]) -> None:
    """A program that ends without closing its host still writes what was gathered (a closed log has nothing left)."""
    alive = log()
    if alive is not None and alive._pending and not alive._closed:
        with contextlib.suppress(OSError):
            alive.flush()


def _reads_locally(classification: Classification | None) -> bool:
    return (
        classification is not None and classification.side_effect == "read_only" and classification.network == "local"
    )


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
        self._pending: list[tuple[float, AuditRecord]] = []
        self._gathering: asyncio.AbstractEventLoop | None = None
        """The loop that writes the records gathered in its current iteration, one iteration later."""
        self._quiet_until: asyncio.AbstractEventLoop | None = None
        """The loop whose timer writes the quiet records (read-only, local calls) of the span."""
        self._second, self._second_text = -1, ""
        make_directory(path.parent)
        self._descriptor = self._open()
        self._size = os.fstat(self._descriptor).st_size
        self._host = socket.gethostname()
        self._worker = os.getpid()
        self._closed = False
        atexit.register(_flush_at_exit, weakref.ref(self))

    def record_start(self, outcome: Outcome, *, caller: str, surface: str, asker: str | None = None) -> None:
        """Write, now, that a capability which leaves the device or changes something is about to run.

        Raises :class:`OSError` when the record cannot be written (a full disk): the caller must
        then not run it, so nothing that matters ever happens unrecorded.
        """
        entry = self._entry(outcome, caller, surface, asker)
        entry.status = STARTED
        with self._lock:
            self._pending.append((time.time(), entry))
            self._write_pending()

    def record(self, outcome: Outcome, *, caller: str, surface: str, asker: str | None = None) -> None:
        """Written at once if no other record came first in this loop iteration, else gathered; a
        read-only, local call's within ``QUIET_SECONDS``, with the others of that span.

        A record that cannot be written is logged, not raised: the outcome has happened already.
        """
        entry = self._entry(outcome, caller, surface, asker)
        quiet = _reads_locally(outcome.classification)
        with self._lock:
            self._pending.append((time.time(), entry))
            if self._gathering is not None and not self._gathering.is_closed():
                return
            self._gathering = None
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                loop = None
            if quiet and loop is not None:
                if self._quiet_until is None or self._quiet_until.is_closed():
                    self._quiet_until = loop
                    loop.call_later(QUIET_SECONDS, self._write_quiet)
                return
            try:
                self._write_pending()
            except OSError as error:
                log.error("audit log %s: a record could not be written: %s", self.path, error)
            if loop is not None:
                self._gathering = loop
                loop.call_soon(self._write_gathered)

    def _entry(self, outcome: Outcome, caller: str, surface: str, asker: str | None) -> AuditRecord:
        return AuditRecord(
            time="",
            capability=outcome.capability,
            version=outcome.version,
            classification=outcome.classification,
            caller=caller,
            surface=surface,
            stage=outcome.stage,
            status=outcome.status,
            code=outcome.code,
            duration_ms=outcome.duration_ms,
            host=self._host,
            worker=self._worker,
            asker=asker,
        )

    def flush(self) -> None:
        """Write every gathered record now (the loop does this itself, one iteration later)."""
        with self._lock:
            self._gathering = None
            self._write_pending()

    def _write_quiet(self) -> None:
        with self._lock:
            self._quiet_until = None
        self._write_gathered()

    def _write_gathered(self) -> None:
        """The loop's callback: nobody waits on it, so a failed write is logged here, by count."""
        count = len(self._pending)
        try:
            self.flush()
        except OSError as error:
            log.error("audit log %s: %d record(s) could not be written: %s", self.path, count, error)

    def recent(self, limit: int = 50) -> list[dict[str, Any]]:
        """The last ``limit`` records of the current file, newest first (what a console shows).

        Records hold names, outcomes and durations only, never arguments or results, so they
        can be shown as they are. Only the file's tail is read, however large the log grew.
        """
        self.flush()
        try:
            with self.path.open("rb") as file:
                start = max(0, file.seek(0, os.SEEK_END) - limit * 1024)
                file.seek(start)
                lines = file.read().splitlines()
        except FileNotFoundError:
            return []
        if start > 0:
            lines = lines[1:]  # the tail began inside a line
        records = []
        for line in reversed(lines[-limit:]):
            try:
                records.append(msgspec.json.decode(line))
            except msgspec.DecodeError:
                continue
        return records

    def close(self) -> None:
        with self._lock:
            self._write_pending()
            os.close(self._descriptor)
            self._closed = True

    def _write_pending(self) -> None:
        """One ``write`` for the gathered lines, or one per file when they cross the rotation size.

        The size is read from the file first: other workers append to it too.
        """
        chunk: list[bytes] = []
        chunk_size = 0
        pending, self._pending = self._pending, []
        if pending and self.max_bytes:
            self._size = os.fstat(self._descriptor).st_size
        for when, entry in pending:
            entry.time = self._timestamp(when)
            entry.capability = audit_name(entry.capability)
            entry.duration_ms = round(entry.duration_ms, 3)
            line = self._encoder.encode(entry) + b"\n"
            if self.max_bytes and self._size + chunk_size + len(line) > self.max_bytes:
                self._write(chunk)
                chunk, chunk_size = [], 0
                self._size = os.fstat(self._descriptor).st_size
                if self._size + len(line) > self.max_bytes:
                    self._rotate()
            chunk.append(line)
            chunk_size += len(line)
        self._write(chunk)

    def _timestamp(self, when: float) -> str:
        """``when`` in ISO 8601, UTC, to the millisecond; the date and time part made once a second."""
        second = int(when)
        if second != self._second:
            moment = datetime.datetime.fromtimestamp(second, datetime.UTC)
            self._second, self._second_text = second, moment.strftime("%Y-%m-%dT%H:%M:%S")
        return f"{self._second_text}.{int((when - second) * 1000):03d}+00:00"

    def _write(self, lines: list[bytes]) -> None:
        if lines:
            self._size += os.write(self._descriptor, b"".join(lines))

    def _open(self) -> int:
        """The log, appended to; one root created (``sudo steward policy get``) goes to the directory's owner."""
        descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        own_like_directory(descriptor, self.path.parent)
        return descriptor

    def _rotate(self) -> None:
        """Start a new file; when another worker sharing the log rotated first, just follow it.

        Rotation holds the directory's lock and renames only the file this process is writing,
        so several workers appending to one log never rotate each other's new file away.
        """
        with locked(self.path):
            if self._writing_current_file():
                if self.backups > 0:
                    for index in range(self.backups - 1, 0, -1):
                        older = self.path.with_name(f"{self.path.name}.{index}")
                        if older.exists():
                            older.replace(self.path.with_name(f"{self.path.name}.{index + 1}"))
                    self.path.replace(self.path.with_name(f"{self.path.name}.1"))
                else:
                    self.path.unlink(missing_ok=True)
            os.close(self._descriptor)
            self._descriptor = self._open()
            self._size = os.fstat(self._descriptor).st_size

    def _writing_current_file(self) -> bool:
        try:
            current = self.path.stat()
        except FileNotFoundError:
            return False
        mine = os.fstat(self._descriptor)
        return (current.st_dev, current.st_ino) == (mine.st_dev, mine.st_ino)
