"""Durable small files: the one atomic-write helper every part of Steward uses.

Policy flags, settings, keys and secrets are tiny files that a crash must never leave half
written, so every write goes to a temporary file in the same directory, is fsynced, then renamed
over the old one (and the directory fsynced so the rename itself survives a power cut).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def write_atomic(path: Path, data: bytes, *, mode: int = 0o600, dir_mode: int = 0o700) -> None:
    """Replace ``path`` with ``data`` so readers see the old or the new content, never a mix.

    Missing parent directories are created with ``dir_mode``; the file gets ``mode`` before any
    byte is written, so a secret is never readable by others even for an instant.
    """
    path.parent.mkdir(parents=True, exist_ok=True, mode=dir_mode)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(descriptor, mode)
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
