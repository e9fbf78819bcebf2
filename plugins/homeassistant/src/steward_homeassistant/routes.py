"""The settings a household console uses: connection, token, allowlist, and an entity browser."""

from __future__ import annotations

from pathlib import Path

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

import steward
from steward_homeassistant.client import HomeAssistantClient
from steward_homeassistant.household import (
    SettingsProblem,
    read_settings,
    read_token,
    validated_entities,
    validated_url,
    write_settings,
    write_token,
)


class SettingsChange(msgspec.Struct, forbid_unknown_fields=True):
    """``access_token`` omitted (or null) keeps the stored one."""

    enabled: bool | None = None
    base_url: str | None = None
    access_token: str | None = None
    allowlisted_entities: list[str] | None = None


def settings_view(data_dir: Path) -> dict:
    settings = read_settings(data_dir)
    return {
        "enabled": settings.enabled,
        "base_url": settings.base_url,
        "has_access_token": bool(read_token(data_dir)),
        "allowlisted_entities": settings.allowlisted_entities,
    }


def routes(config: steward.Config) -> list[Route]:
    """The settings endpoints of the household whose data directory ``config`` names."""
    data_dir = config.data_dir
    ca_bundle = config.plugin_settings("homeassistant").ca_bundle

    @steward.require_scope("settings", "conversation")
    async def get_settings(request: Request) -> Response:
        """Home Assistant settings: enabled, base_url, has_access_token, allowlisted_entities (never the token)."""
        return steward.json_response(settings_view(data_dir))

    @steward.require_scope("settings")
    async def change_settings(request: Request) -> Response:
        """Change Home Assistant settings; every field is optional."""
        change = await steward.read_json(request, SettingsChange)
        settings = read_settings(data_dir)
        try:
            if change.base_url is not None:
                settings.base_url = validated_url(change.base_url)
            if change.allowlisted_entities is not None:
                settings.allowlisted_entities = validated_entities(change.allowlisted_entities)
            if change.enabled is not None:
                settings.enabled = change.enabled
            if change.access_token is not None:
                write_token(data_dir, change.access_token)
        except SettingsProblem as problem:
            raise steward.ApiError("INVALID_REQUEST", str(problem)) from None
        write_settings(data_dir, settings)
        return steward.json_response(settings_view(data_dir))

    @steward.require_scope("settings")
    async def browse_entities(request: Request) -> Response:
        """Every entity Home Assistant has (for building the allowlist), and a connection test."""
        settings, token = read_settings(data_dir), read_token(data_dir)
        if not settings.base_url or not token:
            connection = {"ok": False, "message": "set base_url and access_token first"}
            return steward.json_response({"connection": connection, "entities": []})
        client = HomeAssistantClient(settings.base_url, token, ca_bundle=ca_bundle)
        try:
            message = await client.ping()
            states = await client.states()
        except steward.CapabilityError as error:
            return steward.json_response({"connection": {"ok": False, "message": error.message}, "entities": []})
        entities = [
            {
                "entity_id": state["entity_id"].lower(),
                "name": str((state.get("attributes") or {}).get("friendly_name") or state["entity_id"])[:200],
                "domain": state["entity_id"].split(".", 1)[0].lower(),
                "state": str(state.get("state", ""))[:200],
                "allowlisted": settings.allows(state["entity_id"]),
            }
            for state in states
        ]
        return steward.json_response({"connection": {"ok": True, "message": message}, "entities": entities})

    return [
        Route("/api/v1/conversation/home-assistant", get_settings, methods=["GET"]),
        Route("/api/v1/conversation/home-assistant", change_settings, methods=["POST"]),
        Route("/api/v1/conversation/home-assistant/entities", browse_entities, methods=["GET"]),
    ]
