"""API keys of the services the plugin asks (Brave, Honcho): one file each under the data directory.

Written 0600 in a 0700 directory, from standard input or a hidden prompt (never a command-line
argument, which other users see in ``ps``); read fresh on each request, so setting or forgetting
a key applies at once. A key never appears in a response, a log line or an audit record.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import steward


@dataclass(frozen=True)
class SecretFile:
    relative_path: Path
    """Under the data directory."""
    what: str
    """How messages name the key: ``a Brave subscription key``."""

    def read(self, data_dir: Path) -> str:
        """The key, or ``""`` when none is set."""
        try:
            return (data_dir / self.relative_path).read_text().strip()
        except FileNotFoundError:
            return ""

    def write(self, data_dir: Path, key: str) -> None:
        """Store ``key``; :class:`ValueError` for one that cannot be a key (empty, spaces, over 512 characters)."""
        key = key.strip()
        if not key or any(character.isspace() for character in key) or len(key) > 512:
            raise ValueError(f"{self.what} is one word, no spaces")
        steward.write_atomic(data_dir / self.relative_path, key.encode(), mode=0o600, dir_mode=0o700)

    def forget(self, data_dir: Path) -> None:
        (data_dir / self.relative_path).unlink(missing_ok=True)


BRAVE_KEY = SecretFile(Path("secrets") / "websearch" / "brave-api-key", "a Brave subscription key")
HONCHO_KEY = SecretFile(Path("secrets") / "websearch" / "honcho-api-key", "a Honcho API key")
