"""What a plugin's command-line commands are written with (``register_commands``).

``current_config()`` is the configuration the command was given (``--config``, ``--data-dir``,
before or after the command name); ``host_options`` adds those options to a command of its own;
``current_host()`` builds a host in this process. A command that talks to a running server
instead uses the terminal client's settings (``~/.config/steward/client.toml``):
``load_client_settings``, ``server_client`` and ``cannot_reach``.
"""

from __future__ import annotations

import functools
import getpass
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import msgspec

from steward._auth import Principal
from steward._client import ClientSettings, ClientSettingsError, cannot_reach, load_client_settings, server_client
from steward._config import Config, ConfigError, load_config
from steward._host import Host, PluginLoadFailed
from steward._state import StateUnavailable


class _Options(msgspec.Struct):
    data_dir: Path | None = None
    config: Path | None = None
    strict_plugins: bool = False


def host_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--data-dir``, ``--config`` and ``--strict-plugins`` to a command (also accepted on the group)."""

    @click.option("--data-dir", type=click.Path(path_type=Path, file_okay=False), help="Data directory.")
    @click.option(
        "--config", "config_path", type=click.Path(path_type=Path, dir_okay=False), help="TOML configuration file."
    )
    @click.option("--strict-plugins", is_flag=True, default=False, help="Refuse to start if any plugin fails to load.")
    @functools.wraps(command)
    def wrapper(
        *args: Any, data_dir: Path | None, config_path: Path | None, strict_plugins: bool, **kwargs: Any
    ) -> Any:
        options = click.get_current_context().find_object(_Options) or _Options()
        options.data_dir = data_dir or options.data_dir
        options.config = config_path or options.config
        options.strict_plugins = strict_plugins or options.strict_plugins
        return command(*args, **kwargs)

    return wrapper


def current_config(**overrides: Any) -> Config:
    """The configuration the current command was given, with ``overrides`` on top."""
    options = click.get_current_context().find_object(_Options) or _Options()
    if options.strict_plugins:
        overrides.setdefault("plugins", {})["strict"] = True
    try:
        return load_config(options.config, data_dir=options.data_dir, overrides=overrides)
    except ConfigError as error:
        raise click.ClickException(f"configuration: {error}") from None


def current_host(**overrides: Any) -> Host:
    """A host built in this process from :func:`current_config`; its failures as one-line errors."""
    config = current_config(**overrides)
    try:
        return Host(config)
    except (PluginLoadFailed, ConfigError, StateUnavailable) as error:
        raise click.ClickException(str(error)) from None
    except OSError as error:
        where = f" {error.filename}" if error.filename else ""
        raise click.ClickException(
            f"the data directory {config.data_dir} cannot be used:{where} {error.strerror or error}"
        ) from None


def cli_principal() -> Principal:
    """Who a command that runs capabilities in this process acts as: ``cli:<user>``, every scope."""
    return Principal(f"cli:{getpass.getuser()}", frozenset({"admin"}))


__all__ = [
    "ClientSettings",
    "ClientSettingsError",
    "cannot_reach",
    "cli_principal",
    "current_config",
    "current_host",
    "host_options",
    "load_client_settings",
    "server_client",
]
