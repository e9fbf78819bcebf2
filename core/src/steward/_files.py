"""Durable small files: the one atomic-write helper every part of Steward uses.

Policy flags, settings, keys and secrets are tiny files that a crash must never leave half
written, so every write goes to a temporary file in the same directory, is fsynced, then renamed
over the old one (and the directory fsynced so the rename itself survives a power cut).

Several processes share these files (the server, ``steward keys add`` in a shell), so every
read-modify-write holds :func:`locked` (``flock`` on the file's directory) and re-reads under it.
Files and directories created by root (an operator's ``sudo steward …``) are given to the owner
of the directory they are made in, so a service running as its own user can still read them.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

TEMPORARY_SUFFIX = ".tmp"


def write_atomic(path: Path, data: bytes, *, mode: int = 0o600, dir_mode: int = 0o700) -> None:
    """Replace ``path`` with ``data`` so readers see the old or the new content, never a mix.

    Missing parent directories are created with ``dir_mode``; the file gets ``mode`` before any
    byte is written, so a secret is never readable by others even for an instant.
    """
    make_directory(path.parent, dir_mode)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=TEMPORARY_SUFFIX)
    try:
        os.fchmod(descriptor, mode)
        own_like_directory(descriptor, path.parent)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def make_directory(path: Path, mode: int = 0o700) -> None:
    """Create ``path`` and its missing parents with ``mode``, each owned like the one it is made in."""
    missing: list[Path] = []
    current = path
    while not current.exists():
        missing.append(current)
        current = current.parent
    for directory in reversed(missing):
        try:
            directory.mkdir(mode=mode)
        except FileExistsError:
            continue
        descriptor = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            own_like_directory(descriptor, directory.parent)
        finally:
            os.close(descriptor)


def own_like_directory(descriptor: int, directory: Path) -> None:
    """As root, give the open file to the owner of ``directory``; otherwise the file is ours already.

    An operator running ``sudo steward keys add`` for a service that runs as its own user must not
    leave a ``root:root 0600`` file the service cannot read.
    """
    if os.geteuid() != 0:
        return
    owner = directory.stat()
    if (owner.st_uid, owner.st_gid) != (0, 0):
        os.fchown(descriptor, owner.st_uid, owner.st_gid)


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold the lock that serialises read-modify-write of ``path`` among processes and threads.

    It is an exclusive ``flock`` on the file's directory: no lock file to leave behind or to own,
    and every file in one directory shares it (they are small and rarely written).
    """
    make_directory(path.parent)
    descriptor = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)


class InUse(RuntimeError):
    """Another process holds the lock file; the message names it."""


def hold_exclusively(path: Path) -> int:
    """Lock ``path`` (created if missing) for as long as this process lives; :class:`InUse` if taken.

    The descriptor is returned and deliberately never closed: the kernel drops the lock when the
    process ends, however it ends, so a crash never leaves a stale lock behind.
    """
    make_directory(path.parent)
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(descriptor, 64, 0).decode(errors="replace").strip()
        os.close(descriptor)
        raise InUse(f"{path} is held by another process{f' (pid {holder})' if holder else ''}") from None
    own_like_directory(descriptor, path.parent)
    os.ftruncate(descriptor, 0)
    os.pwrite(descriptor, f"{os.getpid()}\n".encode(), 0)
    return descriptor


def remove_orphaned_temporaries(directory: Path, *, older_than_seconds: float = 60) -> list[Path]:
    """Delete ``.*.tmp`` files a killed writer left behind (one may hold a secret); return them.

    Only files older than ``older_than_seconds``: a younger one may belong to a write in progress.
    """
    removed = []
    horizon = time.time() - older_than_seconds
    if directory.is_dir():
        for candidate in directory.rglob(f".*{TEMPORARY_SUFFIX}"):
            if candidate.is_file() and candidate.stat().st_mtime < horizon:
                candidate.unlink(missing_ok=True)
                removed.append(candidate)
    return removed


def write_json_atomic(path: Path, value: Any, *, mode: int = 0o600) -> None:
    write_atomic(path, (json.dumps(value, indent=2, sort_keys=True) + "\n").encode(), mode=mode)


class CorruptFile(ValueError):
    """A JSON settings file that exists but cannot be trusted; the message says why."""


def read_json_object(path: Path) -> dict[str, Any] | None:
    """The JSON object in ``path``, ``None`` when the file is missing, :class:`CorruptFile` else."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    try:
        value = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as error:
        raise CorruptFile(f"{path} is not valid JSON ({error})") from None
    if not isinstance(value, dict):
        raise CorruptFile(f"{path} must hold a JSON object, not {type(value).__name__}")
    return value
