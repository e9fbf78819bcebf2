"""Talking to a running Steward server from a terminal: where it is, and with which key.

The settings live in ``~/.config/steward/client.toml`` (``$XDG_CONFIG_HOME`` respected)::

    url = "http://127.0.0.1:8092"
    key = "stw_…"

``STEWARD_URL`` and ``STEWARD_KEY`` override them. A key is never taken from the command line
(it would land in shell history and in ``ps``), and a settings file that others can read is
refused, as ssh refuses a readable private key.
"""

from __future__ import annotations

import os
import stat
import tomllib
from collections.abc import Mapping
from pathlib import Path

import httpx
import msgspec
import tomli_w

from steward._files import write_atomic
from steward._http_client import USER_AGENT


class ClientSettingsError(ValueError):
    """``client.toml`` cannot be used (readable by others, not TOML, no key); the message says how to fix it."""


class ClientSettings(msgspec.Struct, forbid_unknown_fields=True):
    """Where a command-line client finds the server and its key (``~/.config/steward/client.toml``)."""

    url: str = "http://127.0.0.1:8092"
    key: str = ""


def client_settings_path(environ: Mapping[str, str] = os.environ) -> Path:
    base = Path(environ.get("XDG_CONFIG_HOME") or Path(environ.get("HOME", "~")) / ".config").expanduser()
    return base / "steward" / "client.toml"


def load_client_settings(environ: Mapping[str, str] = os.environ) -> ClientSettings:
    """``client.toml`` with ``STEWARD_URL``/``STEWARD_KEY`` on top; refused unless it is private (0600)."""
    path = client_settings_path(environ)
    raw: dict[str, str] = {}
    if path.exists():
        if stat.S_IMODE(path.stat().st_mode) & 0o077:
            raise ClientSettingsError(f"{path} holds a key and must be private: chmod 600 {path}")
        try:
            raw = tomllib.loads(path.read_text())
        except tomllib.TOMLDecodeError as error:
            raise ClientSettingsError(f"{path} is not valid TOML: {error}") from None
    raw = {
        **raw,
        **{key: environ[name] for key, name in (("url", "STEWARD_URL"), ("key", "STEWARD_KEY")) if name in environ},
    }
    try:
        settings = msgspec.convert(raw, type=ClientSettings)
    except msgspec.ValidationError as error:
        raise ClientSettingsError(f"{path}: {error}") from None
    if not settings.key:
        raise ClientSettingsError(f'no key: put key = "stw_…" in {path} (mode 0600) or set STEWARD_KEY')
    return settings


def save_client_settings(settings: ClientSettings, environ: Mapping[str, str] = os.environ) -> Path:
    """Write ``client.toml`` with mode 0600 from the first byte (never readable by others, even briefly)."""
    path = client_settings_path(environ)
    write_atomic(path, tomli_w.dumps(msgspec.to_builtins(settings)).encode(), mode=0o600)
    return path


def cannot_reach(url: str, error: Exception) -> str:
    """What a client command says when the server does not answer: why, and how to get one that does."""
    return (
        f"cannot reach a Steward server at {url} ({type(error).__name__}). Start one with 'steward serve' "
        "('make run' in a checkout), or point 'steward login --url URL' at the one you use"
    )


def server_client(settings: ClientSettings, timeout: float = 120) -> httpx.Client:
    """An HTTP client for a running server, sending the key (proxies from the environment are ignored)."""
    return httpx.Client(
        base_url=settings.url,
        headers={"Authorization": f"Bearer {settings.key}", "User-Agent": USER_AGENT},
        timeout=timeout,
        trust_env=False,
    )
