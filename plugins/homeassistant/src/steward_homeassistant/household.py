"""The household's Home Assistant settings and its access token, in the data directory.

``capabilities/home-assistant.json`` holds ``{"enabled", "base_url", "allowlisted_entities"}``
and is read fresh on every request; the long-lived access token lives apart, in
``secrets/home-assistant/access-token`` (0600 in a 0700 directory, created when first set), so
that settings can be shown, copied and backed up without it. Entity ids are compared lower-cased,
as Home Assistant does.

The token belongs to the URL it was given for: changing ``base_url`` without a new token in the
same change drops the stored token, so no settings change can send the household's token to a
host it was not meant for. Every change holds the settings file's lock and re-reads it first.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any

import httpx
import msgspec

import steward

SETTINGS_FILE = Path("capabilities") / "home-assistant.json"
TOKEN_FILE = Path("secrets") / "home-assistant" / "access-token"
ENTITY_ID = re.compile(r"^[a-z0-9_]+\.[a-z0-9_]+$")
URL = re.compile(r"^https?://[^/@\s?#]+(:\d+)?/?$", re.IGNORECASE)


class HouseholdSettings(msgspec.Struct, kw_only=True):
    enabled: bool = False
    base_url: str = ""
    allowlisted_entities: list[str] = []

    def allows(self, entity_id: str) -> bool:
        return entity_id.lower() in self.allowlisted_entities


class SettingsProblem(ValueError):
    """Settings that cannot be saved as given; the message names the field."""


_H = "[0-9A-Fa-f]{1,4}"
_IPV6 = (
    f"(({_H}:){{7}}{_H}|({_H}:){{1,7}}:|({_H}:){{1,6}}:{_H}|({_H}:){{1,5}}(:{_H}){{1,2}}|({_H}:){{1,4}}(:{_H}){{1,3}}"
    f"|({_H}:){{1,3}}(:{_H}){{1,4}}|({_H}:){{1,2}}(:{_H}){{1,5}}|{_H}:(:{_H}){{1,6}}|:((:{_H}){{1,7}}|:))"
)
EntityId = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_]+\.[A-Za-z0-9_]+$", description="domain.object_id")]


AccessToken = Annotated[str, msgspec.Meta(pattern=r"^[!-~]{1,4096}$", description="a long-lived access token")]


class SettingsChange(msgspec.Struct, forbid_unknown_fields=True):
    """What a console or the CLI changes; a field left out (or null) keeps its stored value."""

    enabled: bool | None = None
    base_url: (
        Annotated[
            str,
            msgspec.Meta(
                pattern=rf"^([Hh][Tt][Tt][Pp][Ss]?://([A-Za-z0-9._~-]+|\[{_IPV6}\])(:[0-9]{{1,5}})?/?)?$",
                description="http(s)://host[:port], no path or credentials; empty to unset",
            ),
        ]
        | None
    ) = None
    access_token: AccessToken | None = None
    allowlisted_entities: list[EntityId] | None = None


def change_settings(data_dir: Path, change: SettingsChange) -> None:
    """Validate every field, then write them; a new ``base_url`` without a token drops the old token.

    :class:`SettingsProblem` (nothing written) when a field is invalid.
    """
    with steward.locked(data_dir / SETTINGS_FILE):
        settings = read_settings(data_dir)
        token = validated_token(change.access_token) if change.access_token is not None else None
        drop_token = False
        if change.base_url is not None:
            base_url = validated_url(change.base_url)
            drop_token = base_url != settings.base_url and token is None
            settings.base_url = base_url
        if change.allowlisted_entities is not None:
            settings.allowlisted_entities = validated_entities(change.allowlisted_entities)
        if change.enabled is not None:
            settings.enabled = change.enabled
        if drop_token:
            (data_dir / TOKEN_FILE).unlink(missing_ok=True)
        if token is not None:
            write_token(data_dir, token)
        write_settings(data_dir, settings)


def read_settings(data_dir: Path) -> HouseholdSettings:
    """The current settings; a missing file is the (disabled) default, a corrupt one reads as disabled."""
    try:
        raw: Any = steward.read_json_object(data_dir / SETTINGS_FILE) or {}
    except steward.CorruptFile:
        return HouseholdSettings()
    raw = {key: raw[key] for key in ("enabled", "base_url", "allowlisted_entities") if key in raw}
    try:
        settings = msgspec.convert(raw, type=HouseholdSettings)
    except msgspec.ValidationError:
        return HouseholdSettings()
    settings.enabled = settings.enabled is True
    settings.allowlisted_entities = [entity.lower() for entity in settings.allowlisted_entities]
    return settings


def write_settings(data_dir: Path, settings: HouseholdSettings) -> None:
    steward.write_atomic(data_dir / SETTINGS_FILE, msgspec.json.format(msgspec.json.encode(settings), indent=2) + b"\n")


def validated_url(value: str) -> str:
    value = value.strip()
    if value and not (URL.match(value) and _parses(value)):
        raise SettingsProblem(
            "base_url: must look like http://homeassistant.local:8123 (http or https, a host, an optional port, "
            "no path, no credentials)"
        )
    return value.rstrip("/")


def _parses(url: str) -> bool:
    """Whether the HTTP client can use ``url`` (``http://[278f]`` matches the pattern, yet is no address)."""
    try:
        httpx.URL(url)
    except (httpx.InvalidURL, ValueError):
        return False
    return True


def validated_entities(values: list[str]) -> list[str]:
    lowered = [value.strip().lower() for value in values]
    bad = [value for value in lowered if not ENTITY_ID.match(value)]
    if bad:
        raise SettingsProblem(f"allowlisted_entities: not an entity id (domain.object_id): {', '.join(bad[:5])}")
    return list(dict.fromkeys(lowered))


def read_token(data_dir: Path) -> str:
    try:
        return (data_dir / TOKEN_FILE).read_text().strip()
    except FileNotFoundError:
        return ""


def validated_token(token: str) -> str:
    token = token.strip()
    if not token or any(character.isspace() for character in token) or len(token) > 4096:
        raise SettingsProblem("access_token: must be a single long-lived access token, no spaces")
    return token


def write_token(data_dir: Path, token: str) -> None:
    steward.write_atomic(data_dir / TOKEN_FILE, validated_token(token).encode(), mode=0o600, dir_mode=0o700)
    (data_dir / TOKEN_FILE).parent.chmod(0o700)
    (data_dir / TOKEN_FILE).parent.parent.chmod(0o700)
