"""The settings a household console uses: connection, token, allowlist, and an entity browser."""

from __future__ import annotations

import asyncio
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

import steward
from steward_homeassistant.client import HomeAssistantClient
from steward_homeassistant.household import SettingsChange, SettingsProblem, change_settings, read_settings, read_token

ENABLED_FLAG = "home_assistant_enabled"


def settings_view(data_dir: Path, enabled: bool) -> dict:
    """The settings as a console shows them; ``enabled`` is the policy flag, wherever the host keeps it."""
    settings = read_settings(data_dir)
    return {
        "enabled": enabled,
        "base_url": settings.base_url,
        "has_access_token": bool(read_token(data_dir)),
        "allowlisted_entities": settings.allowlisted_entities,
    }


async def _view(request: Request, data_dir: Path) -> dict:
    return settings_view(data_dir, await steward.policy_of(request).enabled(ENABLED_FLAG))


def routes(config: steward.Config) -> list[Route]:
    """The settings endpoints of the household whose data directory ``config`` names."""
    data_dir = config.data_dir
    ca_bundle = config.plugin_settings("homeassistant").ca_bundle

    @steward.require_scope("settings", "conversation")
    async def get_settings(request: Request) -> Response:
        """Home Assistant settings: enabled, base_url, has_access_token, allowlisted_entities (never the token)."""
        return steward.json_response(await _view(request, data_dir))

    @steward.require_scope("settings")
    @steward.openapi_operation(body=SettingsChange)
    async def post_settings(request: Request) -> Response:
        """Change Home Assistant settings; every field is optional. A new base_url without a token drops the token."""
        change = await steward.read_json(request, SettingsChange)
        try:
            change_settings(data_dir, change)
            if change.enabled is not None:
                await asyncio.to_thread(steward.policy_of(request).set, ENABLED_FLAG, change.enabled)
        except SettingsProblem as problem:
            raise steward.ApiError(steward.Code.INVALID_REQUEST, str(problem)) from None
        except OSError as error:
            raise steward.ApiError(
                steward.Code.SETTINGS_NOT_SAVED, f"settings not saved: {error.strerror or error}"
            ) from None
        return steward.json_response(await _view(request, data_dir))

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
        Route("/api/v1/conversation/home-assistant", post_settings, methods=["POST"]),
        Route("/api/v1/conversation/home-assistant/entities", browse_entities, methods=["GET"]),
    ]
