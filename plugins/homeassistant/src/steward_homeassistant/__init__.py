"""Steward plugin ``homeassistant``: allowlisted state and history from Home Assistant."""

from importlib.resources import files

import click
import msgspec

import steward
from steward_homeassistant.capabilities import capabilities
from steward_homeassistant.cli import homeassistant
from steward_homeassistant.client import HomeAssistantClient
from steward_homeassistant.codes import HomeAssistantCode
from steward_homeassistant.household import read_settings, read_token
from steward_homeassistant.routes import routes


class PluginSettings(msgspec.Struct, forbid_unknown_fields=True):
    """``[plugins.homeassistant]``: a CA file for a household's own CA (https is always verified)."""

    ca_bundle: str = ""


@steward.hookimpl
def register_settings() -> type[PluginSettings]:
    return PluginSettings


@steward.hookimpl
def register_policy_flags() -> list[steward.PolicyFlag]:
    return [
        steward.PolicyFlag(
            "home_assistant_enabled",
            "Lets the model read allowlisted Home Assistant entities.",
            file="home-assistant.json",
            key="enabled",
            label="Home Assistant",
        )
    ]


@steward.hookimpl
def register_outcome_codes() -> list[type[steward.OutcomeCode]]:
    return [HomeAssistantCode]


@steward.hookimpl
def register_capabilities() -> list[steward.Capability]:
    return capabilities()


@steward.hookimpl
def register_routes(config: steward.Config) -> list:
    return routes(config)


@steward.hookimpl
def register_console_panels() -> list[steward.ConsolePanel]:
    return [steward.ConsolePanel("home-assistant", "Home Assistant", files(__name__) / "console_panel.js")]


@steward.hookimpl
def register_commands(cli: click.Group) -> None:
    cli.add_command(homeassistant)


@steward.hookimpl
def register_health_checks(config: steward.Config) -> list[steward.HealthCheck]:
    async def reachable() -> str:
        settings = read_settings(config.data_dir)
        if not settings.enabled:
            return "disabled"
        if not settings.base_url or not read_token(config.data_dir):
            raise RuntimeError("enabled but not configured (base_url and access token)")
        ca_bundle = config.plugin_settings("homeassistant").ca_bundle
        return await HomeAssistantClient(settings.base_url, "", ca_bundle=ca_bundle).reachable()

    return [steward.HealthCheck("home assistant", reachable)]
