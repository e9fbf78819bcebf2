"""``steward homeassistant …``: the same settings as the console, from a terminal."""

from __future__ import annotations

import json
import sys

import click

import steward
from steward_homeassistant.household import (
    SETTINGS_FILE,
    SettingsChange,
    SettingsProblem,
    change_settings,
    read_settings,
    read_token,
    validated_entities,
    write_settings,
    write_token,
)
from steward_homeassistant.routes import ENABLED_FLAG, settings_view


def _data_dir():
    return steward.current_config().data_dir


@click.group("homeassistant")
def homeassistant() -> None:
    """Home Assistant settings: URL, token, allowlist (the token is never an argument)."""


@homeassistant.command()
def status() -> None:
    """Show the settings (never the token)."""
    host = steward.Host(steward.current_config())
    try:
        enabled = host.policy.is_enabled(ENABLED_FLAG)
    finally:
        host.close()
    click.echo(json.dumps(settings_view(host.data_dir, enabled), indent=2))


@homeassistant.command("set-url")
@click.argument("url")
def set_url(url: str) -> None:
    """Set the base URL, e.g. http://homeassistant.local:8123 (a new URL drops the stored token)."""
    data_dir = _data_dir()
    had_token = bool(read_token(data_dir))
    try:
        change_settings(data_dir, SettingsChange(base_url=url))
    except SettingsProblem as problem:
        raise click.ClickException(str(problem)) from None
    click.echo(f"base_url = {read_settings(data_dir).base_url}")
    if had_token and not read_token(data_dir):
        click.echo("the token was for the old URL and is dropped: set it again with `steward homeassistant set-token`")


@homeassistant.command("set-token")
def set_token() -> None:
    """Store a long-lived access token, read from standard input or a hidden prompt."""
    token = sys.stdin.readline() if not sys.stdin.isatty() else click.prompt("Long-lived access token", hide_input=True)
    try:
        write_token(_data_dir(), token)
    except SettingsProblem as problem:
        raise click.ClickException(str(problem)) from None
    click.echo("token stored (0600)")


@homeassistant.command()
@click.argument("entity_id")
def allow(entity_id: str) -> None:
    """Add an entity to the allowlist."""
    data_dir = _data_dir()
    with steward.locked(data_dir / SETTINGS_FILE):
        settings = read_settings(data_dir)
        try:
            settings.allowlisted_entities = validated_entities([*settings.allowlisted_entities, entity_id])
        except SettingsProblem as problem:
            raise click.ClickException(str(problem)) from None
        write_settings(data_dir, settings)
    click.echo(f"allowed {entity_id.lower()}")


@homeassistant.command()
@click.argument("entity_id")
def disallow(entity_id: str) -> None:
    """Remove an entity from the allowlist."""
    data_dir = _data_dir()
    with steward.locked(data_dir / SETTINGS_FILE):
        settings = read_settings(data_dir)
        if entity_id.lower() not in settings.allowlisted_entities:
            raise click.ClickException(f"{entity_id.lower()} is not on the allowlist")
        settings.allowlisted_entities.remove(entity_id.lower())
        write_settings(data_dir, settings)
    click.echo(f"disallowed {entity_id.lower()}")
